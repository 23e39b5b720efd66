r"""numba kernels: counts behind the plain estimates of the samplers (node marginals and 2x2 edge tables).

For ``N`` recorded states ``s_n in {-1, +1}^d`` (int8), :func:`plus_counts` adds ``#{n : s_{n,i} = +1}`` to
``counts[i]`` and, for pairs ``(i, j)``, :func:`edge_table_counts` adds
``#{n : [s_{n,i} = +1] = a, [s_{n,j} = +1] = b}`` to ``counts[e, a, b]``. An estimate is the count over ``N``,
the same float64 number as the mean of the indicators (a sum of zeros and ones is exact).

``O(N d)`` and ``O(N E)`` time, no work space: the NumPy forms build ``(N, d)`` and four ``(N, E)`` boolean
arrays first, which for the annular-Ising runs (``N = 1446`` states, ``E = 162`` pairs) cost about as much
as the sampler that drew them, and for the thousand short inner runs of a Boltzmann-machine chain about a
tenth of its time.

With weights (a state recorded ``w_n`` times, the proposal-budget form of CMH + LBP), :func:`weighted_plus_counts`
and :func:`weighted_edge_table_counts` add ``w_n`` instead of 1, in row order. For whole-number weights (counts
of recording points) every partial sum is a whole number below ``2^53``, so the sums are exact and an estimate
(the sum over the total weight) is the correctly rounded weighted mean. The NumPy form converted four
``(N, E)`` boolean arrays to float64 and contracted them with the weights: about three quarters of an
annular-Ising setting's time at strong coupling.

Private: arrays and scalars only; the public users are :func:`dogs.samplers.binary.empirical_node_marginals`
and :func:`~dogs.samplers.binary.empirical_edge_tables`.
"""

from __future__ import annotations

from numba import njit

__all__ = ["edge_table_counts", "plus_counts", "weighted_edge_table_counts", "weighted_plus_counts"]


@njit(cache=True)
def edge_table_counts(samples, edges, counts):
    """``counts[e, a, b] += #{n : [samples[n, i] == 1] = a and [samples[n, j] == 1] = b}`` for ``(i, j) = edges[e]``."""
    for n in range(samples.shape[0]):
        state = samples[n]
        for e in range(edges.shape[0]):
            a = 1 if state[edges[e, 0]] == 1 else 0
            b = 1 if state[edges[e, 1]] == 1 else 0
            counts[e, a, b] += 1


@njit(cache=True)
def plus_counts(samples, counts):
    """``counts[i] += #{n : samples[n, i] == 1}``."""
    for n in range(samples.shape[0]):
        state = samples[n]
        for i in range(state.size):
            if state[i] == 1:
                counts[i] += 1


@njit(cache=True)
def weighted_edge_table_counts(samples, weights, edges, sums):
    """``sums[e, a, b] += weights[n]`` for every ``n`` with ``[samples[n, i] == 1] = a``, ``[samples[n, j] == 1] = b``."""
    for n in range(samples.shape[0]):
        state = samples[n]
        weight = weights[n]
        for e in range(edges.shape[0]):
            a = 1 if state[edges[e, 0]] == 1 else 0
            b = 1 if state[edges[e, 1]] == 1 else 0
            sums[e, a, b] += weight


@njit(cache=True)
def weighted_plus_counts(samples, weights, sums):
    """``sums[i] += weights[n]`` for every ``n`` with ``samples[n, i] == 1``."""
    for n in range(samples.shape[0]):
        state = samples[n]
        weight = weights[n]
        for i in range(state.size):
            if state[i] == 1:
                sums[i] += weight
