r"""numba kernel for the influence bound of DoGS Theorem 11 (binary pairwise MRFs with fields).

For every CSR slot ``(i, j)`` of the model, with ``t = |theta_ij|``, the row total
``S_i = sum_k |theta_ik|`` and ``g = max(0, |theta_i| - (S_i - t))`` (``t`` is subtracted from the
row total first, so that a coupling negligible next to the others cannot turn into a spurious
``g``), the bound is

.. math::

    \bar C_{ij} = \tfrac12\big[\tanh(t + g) + \tanh(t - g)\big]

(the derivation is in :func:`dogs.bounds.influence_binary_pairwise`). It is evaluated through
``exp`` of non-positive arguments only, so no finite input overflows:

- ``g = 0`` (the field never beats the other couplings): ``tanh t = (1 - E) / (1 + E)``, ``E = e^{-2t}``;
- ``g > 0``: each half-tanh as ``tanh(x) / 2 = 1 / (1 + e^{-2|x|}) - 1/2`` with the sign of ``x``
  restored by ``copysign``.

Accuracy is ~1e-16 absolute. Both passes run in parallel (``prange``; numba's thread count). The
``exp`` is the cost, so ``tanh |theta_e|`` is computed once per *edge* (each edge has two slots, one
in each endpoint's row) and gathered into every slot with ``g = 0``; only slots with ``g > 0`` pay
their own two ``exp``. The row total is summed in the same pass over the row's slots.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

__all__ = ["theorem11_values"]


@njit(cache=True, parallel=True)
def theorem11_values(indptr, coupling, edge_of, theta, field, out):
    """Write the Theorem 11 bound of every CSR slot into ``out`` (same length as ``coupling``).

    ``coupling[slot] = theta[edge_of[slot]]`` (the model's CSR layout).
    """
    edge_tanh = np.empty(theta.size)
    for e in prange(theta.size):
        decay = math.exp(-2.0 * abs(theta[e]))
        edge_tanh[e] = (1.0 - decay) / (1.0 + decay)
    n_rows = indptr.size - 1
    for i in prange(n_rows):
        start = indptr[i]
        stop = indptr[i + 1]
        row_total = 0.0
        for slot in range(start, stop):
            row_total += abs(coupling[slot])
        row_field = abs(field[i])
        for slot in range(start, stop):
            t = abs(coupling[slot])
            g = row_field - (row_total - t)
            if g <= 0.0:
                out[slot] = edge_tanh[edge_of[slot]]
            else:
                half_sum = 1.0 / (1.0 + math.exp(-2.0 * (t + g))) - 0.5
                x = t - g
                half_diff = 1.0 / (1.0 + math.exp(-2.0 * abs(x))) - 0.5
                out[slot] = half_sum + math.copysign(half_diff, x)
