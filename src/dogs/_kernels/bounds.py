r"""numba kernel for the influence bound of DoGS Theorem 11 (binary pairwise MRFs with fields).

For every CSR slot ``(i, j)`` of the model, with ``t = |theta_ij|``, the row total
``S_i = sum_k |theta_ik|`` and ``g = max(0, |theta_i| - (S_i - t))`` (``t`` is subtracted from the
row total first, so that a coupling negligible next to the others cannot turn into a spurious
``g``), the bound is

.. math::

    \bar C_{ij} = \tfrac12\big[\tanh(t + g) + \tanh(t - g)\big]

(the derivation is in :func:`dogs.bounds.influence_binary_pairwise`); at ``g = 0`` it is
``tanh t``.

``tanh`` without ``exp``
------------------------
:func:`tanh_nonnegative` evaluates ``tanh x`` for ``x >= 0`` with the addition theorem

.. math::

    \tanh(a + r) = \frac{\tanh a + \tanh r}{1 + \tanh a \tanh r}, \qquad a = k/32,\; 0 \le r < 1/32,

``tanh a`` from a table of ``tanh(k/32)`` (``k < 620``; beyond ``x = 19.375`` the value rounds to
1) and ``tanh r`` from its odd Taylor polynomial to ``r^11`` (truncation below ``1e-19`` relative).
Numerator and denominator are sums of non-negative terms, so there is no cancellation: the result
is within 2 units in the last place of ``tanh x`` everywhere (tested against a 50-digit
reference), also for tiny couplings, where ``(1 - e^{-2t}) / (1 + e^{-2t})`` loses almost all
relative precision. The loop has no calls, a table gather and one division, so it vectorises.

Both passes run in parallel (``prange``; numba's thread count): ``tanh |theta_e|`` once per
*edge* (each edge has two slots, one in each endpoint's row), gathered into every slot with
``g = 0``; slots with ``g > 0`` evaluate their two ``tanh`` themselves. The row total is summed
in the same pass over the row's slots.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

__all__ = ["TANH_TABLE", "tanh_nonnegative", "theorem11_values"]

#: ``tanh(k / 32)`` for ``k = 0 .. 619``.
TANH_TABLE = np.tanh(np.arange(620) / 32.0)
TANH_TABLE.setflags(write=False)


@njit(cache=True, inline="always")
def tanh_nonnegative(x, table):
    """``tanh x`` for ``x >= 0`` by the addition theorem on a ``1/32`` grid (module docstring)."""
    x = min(x, table.size / 32.0)  # tanh is 1.0 in floating point long before; no integer overflow below
    k = min(np.int64(x * 32.0), table.size - 1)
    a = table[k]
    r = min(x - k * 0.03125, 0.03125)
    r2 = r * r
    b = r + r * r2 * (-1.0 / 3.0 + r2 * (2.0 / 15.0 + r2 * (-17.0 / 315.0 + r2 * (62.0 / 2835.0
                                                                                  + r2 * (-1382.0 / 155925.0)))))
    return min((a + b) / (1.0 + a * b), 1.0)  # rounding could put a value near 1 one unit above it


@njit(cache=True, parallel=True)
def theorem11_values(indptr, coupling, edge_of, theta, field, out, table):
    """Write the Theorem 11 bound of every CSR slot into ``out`` (same length as ``coupling``).

    ``coupling[slot] = theta[edge_of[slot]]`` (the model's CSR layout); ``table`` is :data:`TANH_TABLE`.
    """
    edge_tanh = np.empty(theta.size)
    for e in prange(theta.size):
        edge_tanh[e] = tanh_nonnegative(abs(theta[e]), table)
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
                x = t - g
                below = tanh_nonnegative(abs(x), table)
                out[slot] = 0.5 * (tanh_nonnegative(t + g, table) + (below if x >= 0.0 else -below))
