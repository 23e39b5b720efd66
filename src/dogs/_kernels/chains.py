"""Exact-chain kernels: one sparse transition step for a block of distributions (with their TV to pi), and
successive steps of a banded chain on levels.

Used by :mod:`dogs.exact.chains` for mixing times on state spaces too large for dense squaring, and by
:mod:`dogs.counterexamples.levels` for the random-scan level chains of He et al. (2016), App. A.
"""

import numba
import numpy as np


@numba.njit(parallel=True, cache=True)
def step_rows(rows, indptr, indices, data, pi, out, tv):
    """``out[b] = rows[b] @ P`` (P in CSR) and ``tv[b] = ||out[b] - pi||_TV`` for every row, in parallel."""
    n_rows, n_states = rows.shape
    for b in numba.prange(n_rows):
        o = out[b]
        r = rows[b]
        for y in range(n_states):
            o[y] = 0.0
        for x in range(n_states):
            m = r[x]
            if m != 0.0:
                for k in range(indptr[x], indptr[x + 1]):
                    o[indices[k]] += m * data[k]
        acc = 0.0
        for y in range(n_states):
            acc += abs(o[y] - pi[y])
        tv[b] = 0.5 * acc


@numba.njit(cache=True)
def band_steps(offsets, bands, vector, forward, out):
    """Successive steps of a banded chain on ``n`` levels: ``out[s]`` is ``vector`` after ``s + 1`` steps.

    ``bands[k, l] = P(l, l + offsets[k])`` (zero where ``l + offsets[k]`` is not a level). ``forward``:
    ``v <- v P`` (a distribution); otherwise ``v <- P v`` (a function of the start).
    """
    n_bands, n = bands.shape
    v = vector.copy()
    w = np.empty(n)
    for s in range(out.shape[0]):
        if forward:
            for j in range(n):
                w[j] = 0.0
            for level in range(n):
                m = v[level]
                if m != 0.0:
                    for k in range(n_bands):
                        j = level + offsets[k]
                        if 0 <= j < n:
                            w[j] += m * bands[k, level]
        else:
            for level in range(n):
                acc = 0.0
                for k in range(n_bands):
                    j = level + offsets[k]
                    if 0 <= j < n:
                        acc += bands[k, level] * v[j]
                w[level] = acc
        for j in range(n):
            v[j] = w[j]
            out[s, j] = w[j]
