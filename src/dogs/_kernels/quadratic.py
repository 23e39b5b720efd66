r"""numba kernel: a binary pairwise quadratic form at many recorded states (AA eq. 5's ``q(s_n)``).

For ``q(s) = sum_{i<j} dtheta_ij s_i s_j + sum_i dh_i s_i`` on ``s in {-1, +1}^d``, given by CSR
neighbour lists (each edge stored in both rows) and ``N`` recorded states, :func:`quadratic_values`
writes ``out[n] = q(s_n)``: the pair sum over the slots with ``neighbour > i`` (each edge once, rows in
order), then the unary sum, added last (the order of
:meth:`dogs.models.BinaryPairwiseMRF.log_potential`; the two agree up to floating-point rounding, tested).

``O(N (d + E))`` time and no work space: :meth:`~dogs.models.BinaryPairwiseMRF.log_potential` gathers
two ``(N, E)`` float64 arrays first, which at ``d = 50`` (``E = 1225``) and ``N = 500`` recorded states
cost more than the sampler that drew them.

Private: arrays and scalars only; the public user is :func:`dogs.samplers.binary.log_mean_exp_quadratic`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["quadratic_values"]


@njit(cache=True)
def quadratic_values(indptr, neighbors, coupling, h, samples, out):
    """``out[n] = sum_{i<j} coupling s_i s_j + sum_i h_i s_i`` for each row ``s = samples[n]`` (int8 spins).

    A row's neighbours are sorted, so its slots with ``j > i`` are a suffix of it; where each suffix starts
    is found once, and the per-state loops carry no test.
    """
    n_vars = h.size
    upper = np.empty(n_vars, dtype=np.int64)
    for i in range(n_vars):
        slot = indptr[i]
        while slot < indptr[i + 1] and neighbors[slot] < i:
            slot += 1
        upper[i] = slot
    for n in range(samples.shape[0]):
        state = samples[n]
        pair = 0.0
        for i in range(n_vars):
            si = state[i]
            slot, stop = np.uint64(upper[i]), np.uint64(indptr[i + 1])
            while slot < stop:  # unsigned indices: no negative-index fix-ups; the same order of terms
                pair += coupling[slot] * (si * state[np.uint64(neighbors[slot])])
                slot += np.uint64(1)
        unary = 0.0
        for i in range(n_vars):
            unary += h[i] * state[i]
        out[n] = pair + unary
