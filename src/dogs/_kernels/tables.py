r"""numba kernels: the counts behind the plain estimates of the samplers (node marginals and 2x2 edge tables).

For ``N`` recorded states ``s_n in {-1, +1}^d`` (int8) with whole-number counts ``c_n`` (how many times a state
was recorded; all 1 for every sampler but the proposal-budget form of CMH + LBP), :func:`state_counts` writes
``sum {c_n : s_{n,i} = +1}`` for every ``i`` and, for pairs ``(i, j)``,
``sum {c_n : [s_{n,i} = +1] = a, [s_{n,j} = +1] = b}``. An estimate is the count over the total. The sums are
int64, so they are exact in any order; converted to float64 (exact below ``2^53``) and divided by the total they
give the correctly rounded (weighted) mean: with unit counts, the same float64 number as the mean of the
indicators.

The states are first copied into a ``(d, N)`` int8 array of indicators ``[s_{n,i} = +1]``, one contiguous row per
variable; a table then needs the sums ``sum c x_i`` of every variable and ``sum c x_i x_j`` of its pair, which the
compiler vectorises. For the annular-Ising runs (``N = 1446`` states, ``E = 162`` pairs) the earlier
state-by-state form, which added each state's count to one of four cells chosen per pair, was a fifth of a
setting's time.

Private: arrays and scalars only; the public users are :func:`dogs.samplers.binary.empirical_node_marginals`
and :func:`~dogs.samplers.binary.empirical_edge_tables`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["state_counts"]


@njit(cache=True)
def _indicator_rows(samples):
    """``rows[i, n] = 1 if samples[n, i] == 1 else 0`` as a ``(d, N)`` int8 array."""
    n_states, d = samples.shape
    rows = np.empty((d, n_states), dtype=np.int8)
    for n in range(n_states):
        for i in range(d):
            rows[i, n] = 1 if samples[n, i] == 1 else 0
    return rows


@njit(cache=True)
def _weighted_sum(counts, x):
    total = 0
    for n in range(x.size):
        total += counts[n] * x[n]
    return total


@njit(cache=True)
def state_counts(samples, counts, edges, plus, table):
    """``plus[i] = sum of counts[n]`` over the states ``n`` with ``samples[n, i] == 1`` and ``table[e, a, b] = sum
    of counts[n]`` over those with ``[samples[n, i] == 1] = a`` and ``[samples[n, j] == 1] = b``,
    ``(i, j) = edges[e]`` (int64; the table from ``plus`` and, per pair, the count of ``(+1, +1)``)."""
    rows = _indicator_rows(samples)
    total = 0
    for n in range(counts.size):
        total += counts[n]
    for i in range(rows.shape[0]):
        plus[i] = _weighted_sum(counts, rows[i])
    for e in range(edges.shape[0]):
        i, j = edges[e, 0], edges[e, 1]
        x, y = rows[i], rows[j]
        both = 0
        for n in range(x.size):
            both += counts[n] * (x[n] & y[n])
        table[e, 1, 1] = both
        table[e, 1, 0] = plus[i] - both
        table[e, 0, 1] = plus[j] - both
        table[e, 0, 0] = total - plus[i] - plus[j] + both
