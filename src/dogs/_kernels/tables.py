r"""numba kernels: the sums behind the plain estimates of the samplers (node marginals and 2x2 edge tables).

For ``N`` recorded states ``s_n in {-1, +1}^d`` (int8) with weights ``w_n`` (how many times a state was
recorded; all 1 for every sampler but the proposal-budget form of CMH + LBP), :func:`plus_sums` adds
``sum {w_n : s_{n,i} = +1}`` to ``sums[i]`` and, for pairs ``(i, j)``, :func:`edge_table_sums` adds
``sum {w_n : [s_{n,i} = +1] = a, [s_{n,j} = +1] = b}`` to ``sums[e, a, b]``, in row order. An estimate is the
sum over the total weight. For whole-number weights every partial sum is a whole number below ``2^53``, so
the sums are exact and an estimate is the correctly rounded (weighted) mean: with unit weights, the same
float64 number as the mean of the indicators.

``O(N d)`` and ``O(N E)`` time, no work space: the NumPy forms build ``(N, d)`` and four ``(N, E)`` boolean
arrays first, which for the annular-Ising runs (``N = 1446`` states, ``E = 162`` pairs) cost about as much
as the sampler that drew them, and for the thousand short inner runs of a Boltzmann-machine chain about a
tenth of its time; weighted, they were converted to float64 and contracted with the weights, about three
quarters of an annular-Ising setting's time at strong coupling.

Private: arrays and scalars only; the public users are :func:`dogs.samplers.binary.empirical_node_marginals`
and :func:`~dogs.samplers.binary.empirical_edge_tables`.
"""

from __future__ import annotations

from numba import njit

__all__ = ["edge_table_sums", "plus_sums"]


@njit(cache=True)
def edge_table_sums(samples, weights, edges, sums):
    """``sums[e, a, b] += weights[n]`` for every ``n`` with ``[samples[n, i] == 1] = a``, ``[samples[n, j] == 1] = b``."""
    for n in range(samples.shape[0]):
        state = samples[n]
        weight = weights[n]
        for e in range(edges.shape[0]):
            a = 1 if state[edges[e, 0]] == 1 else 0
            b = 1 if state[edges[e, 1]] == 1 else 0
            sums[e, a, b] += weight


@njit(cache=True)
def plus_sums(samples, weights, sums):
    """``sums[i] += weights[n]`` for every ``n`` with ``samples[n, i] == 1``."""
    for n in range(samples.shape[0]):
        state = samples[n]
        weight = weights[n]
        for i in range(state.size):
            if state[i] == 1:
                sums[i] += weight
