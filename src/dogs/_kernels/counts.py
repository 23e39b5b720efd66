"""Label counts per half chain: the sufficient statistics of the split R-hat of indicator draws.

``counts[s * C + c, k, v]`` is the number of draws ``d`` of chain ``c`` in half ``s`` (``s = 0``: ``d < n``;
``s = 1``: ``d >= D - n``, with ``n = floor(D / 2)``; the middle draw of an odd ``D`` is in neither) whose label of
variable ``v`` is ``k``, for ``k >= 1``; row ``k = 0`` is left for the caller (``n`` minus the others). The draws
of a chain are rows of ``V`` labels, so each count is a vector addition over ``v``: ``counts[.., 1, :] += row``
when the labels are 0 and 1, ``counts[.., k, :] += (row == k)`` otherwise, loops that LLVM vectorises (a fraction of
a nanosecond a label, on the calling thread: a parallel region's wake-up would cost more on a loaded machine than
the pass). Private: arrays in, arrays out; :func:`dogs.convergence.split_counts` is the public wrapper, tested
against numpy.
"""

from __future__ import annotations

from numba import njit

__all__ = ["half_chain_counts"]


@njit(inline="always", cache=True)
def _count_rows(labels, chain, start, stop, binary, out):
    n_vars, n_states = labels.shape[2], out.shape[0]
    for d in range(start, stop):
        row = labels[chain, d]
        if binary:
            ones = out[1]
            for v in range(n_vars):
                ones[v] += row[v]
        else:
            for k in range(1, n_states):
                hits = out[k]
                for v in range(n_vars):
                    hits[v] += row[v] == k


@njit(cache=True)
def half_chain_counts(labels, counts):
    """Add to ``counts`` (2C, K, V) int32, zeroed by the caller, the counts of ``labels`` (C, D, V) for ``k >= 1``
    (module docstring)."""
    n_chains, n_draws, _ = labels.shape
    half = n_draws // 2
    binary = counts.shape[1] == 2
    for c in range(n_chains):
        _count_rows(labels, c, 0, half, binary, counts[c])
        _count_rows(labels, c, n_draws - half, n_draws, binary, counts[n_chains + c])
