r"""numba kernels building graph arrays in one pass each, with no work space beyond their outputs.

:func:`grid_edge_list` writes the edges of a ``rows x cols`` 4-neighbour lattice (sites numbered row-major)
in the order of :func:`dogs.models.graph.grid_edges`: site by site, the right neighbour, then the lower one,
each pair as ``(min, max)``.

:func:`fill_neighbour_lists` turns an edge list into CSR neighbour lists: ``indptr`` (the prefix sums of
the degrees) is given, and each edge ``e = (i, j)`` is written into row ``i`` as ``(j, e)`` and into row ``j``
as ``(i, e)``, in edge order; every row is then sorted by neighbour (insertion sort for short rows, a
merge sort for long ones). Equal neighbours in a row, i.e. a repeated edge, are reported.

They replace numpy code whose temporaries (the candidate pairs of every site; a ``lexsort`` of the ``2E``
slot keys and their gathered copies) took about 340 bytes per variable on a grid on top of the
model's own arrays, which limited the largest model that fits in memory.

Private: arrays and scalars only; the public functions are in :mod:`dogs.models.graph`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["fill_neighbour_lists", "grid_edge_list"]

#: Rows longer than this are sorted by a merge sort instead of insertion.
_INSERTION_LIMIT = 32


@njit(cache=True)
def grid_edge_list(rows, cols, torus, out):
    """Write the lattice's edges into ``out`` (E, 2), in :func:`dogs.models.graph.grid_edges` order; returns E."""
    e = 0
    for r in range(rows):
        for c in range(cols):
            here = r * cols + c
            if c + 1 < cols or torus:
                there = r * cols + (c + 1) % cols
                out[e, 0] = min(here, there)
                out[e, 1] = max(here, there)
                e += 1
            if r + 1 < rows or torus:
                there = ((r + 1) % rows) * cols + c
                out[e, 0] = min(here, there)
                out[e, 1] = max(here, there)
                e += 1
    return e


@njit(cache=True)
def _sort_row(neighbors, edge_of, lo, hi, work_n, work_e):
    """Sort slots ``lo:hi`` by neighbour, carrying ``edge_of`` (stable: equal neighbours keep edge order)."""
    n = hi - lo
    if n <= _INSERTION_LIMIT:
        for r in range(lo + 1, hi):
            key, edge = neighbors[r], edge_of[r]
            m = r - 1
            while m >= lo and neighbors[m] > key:
                neighbors[m + 1] = neighbors[m]
                edge_of[m + 1] = edge_of[m]
                m -= 1
            neighbors[m + 1] = key
            edge_of[m + 1] = edge
        return
    width = 1  # bottom-up merge sort through the work arrays
    while width < n:
        for start in range(lo, hi, 2 * width):
            mid = min(start + width, hi)
            stop = min(start + 2 * width, hi)
            a, b, k = start, mid, 0
            while a < mid or b < stop:
                if b >= stop or (a < mid and neighbors[a] <= neighbors[b]):
                    work_n[k], work_e[k] = neighbors[a], edge_of[a]
                    a += 1
                else:
                    work_n[k], work_e[k] = neighbors[b], edge_of[b]
                    b += 1
                k += 1
            for t in range(k):
                neighbors[start + t] = work_n[t]
                edge_of[start + t] = work_e[t]
        width *= 2


@njit(cache=True)
def fill_neighbour_lists(edges, indptr, neighbors, edge_of):
    """Fill ``neighbors`` and ``edge_of`` (2E,) from ``edges`` (E, 2) and ``indptr`` (degree prefix sums).

    Returns the index of a row holding a repeated neighbour (a duplicate edge), or -1.
    """
    n_vars = indptr.size - 1
    cursor = indptr[:-1].copy()
    for e in range(edges.shape[0]):
        i, j = edges[e, 0], edges[e, 1]
        neighbors[cursor[i]] = j
        edge_of[cursor[i]] = e
        cursor[i] += 1
        neighbors[cursor[j]] = i
        edge_of[cursor[j]] = e
        cursor[j] += 1
    longest = 0
    for i in range(n_vars):
        longest = max(longest, indptr[i + 1] - indptr[i])
    size = longest if longest > _INSERTION_LIMIT else 0
    work_n = np.empty(size, dtype=neighbors.dtype)
    work_e = np.empty(size, dtype=edge_of.dtype)
    for i in range(n_vars):
        _sort_row(neighbors, edge_of, indptr[i], indptr[i + 1], work_n, work_e)
        for slot in range(indptr[i] + 1, indptr[i + 1]):
            if neighbors[slot] == neighbors[slot - 1]:
                return i
    return -1
