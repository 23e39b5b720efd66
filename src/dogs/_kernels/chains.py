"""Exact-chain kernel: one sparse transition step for a block of distributions, with their TV to pi.

Used by :mod:`dogs.exact.chains` for mixing times on state spaces too large for dense squaring.
"""

import numba


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
