"""Graph helpers shared by the model classes: edge-list checks, CSR neighbour lists, lattice edges.

Edges are unordered pairs stored as rows ``(i, j)`` with ``i < j``, each edge
once; variables are numbered ``0 .. p - 1`` (row-major ``r * cols + c`` on a
lattice). This module imports nothing else from :mod:`dogs.models`, so both
:mod:`dogs.models.binary` and :mod:`dogs.models.discrete` can build on it without
importing each other; the lattice edges and the neighbour lists are filled by the
one-pass kernels of :mod:`dogs._kernels.graph`, whose only memory is their output.
"""

from __future__ import annotations

import weakref

import numpy as np

from dogs._kernels.graph import fill_neighbour_lists, grid_edge_list

__all__ = ["check_edges", "grid_edges", "index_dtype", "is_symmetric_neighbour_pattern", "neighbour_lists"]

#: Neighbour lists built by :func:`neighbour_lists`: ``id(neighbors) -> (weakref(indptr), weakref(neighbors))``.
_NEIGHBOUR_PATTERNS: dict = {}


def index_dtype(*largest: int) -> np.dtype:
    """The index type of a graph whose indices and offsets are at most ``largest``: ``int32`` below ``2^31``, else ``int64``.

    Every array of variable indices, edge numbers and CSR offsets that this module builds uses it: the
    values are the same in either type, and ``int32`` halves their memory and the bandwidth of the
    kernels that read them (a grid of 10^8 variables has 4 * 10^8 neighbour slots).
    """
    return np.dtype(np.int32) if max(largest, default=0) < 2**31 else np.dtype(np.int64)


def check_edges(edges, n_vars: int) -> np.ndarray:
    """Validate an edge list over ``n_vars`` variables and return it as a fresh ``(E, 2)`` array, ``i < j``.

    Each row is sorted, so ``(j, i)`` becomes ``(i, j)``; rows keep their order. The type is
    :func:`index_dtype` of ``n_vars`` (``int32`` unless there are ``2^31`` variables or more).
    An empty input gives shape ``(0, 2)``. Raises ``ValueError`` for a wrong
    shape, an index outside ``0 .. n_vars - 1`` or a self-loop, and ``TypeError``
    for non-integer entries. Duplicates are found by :func:`neighbour_lists`.
    """
    edges = np.asarray(edges)
    dtype = index_dtype(n_vars)
    if edges.size == 0:
        return np.zeros((0, 2), dtype=dtype)
    if edges.ndim != 2 or edges.shape[1] != 2:
        raise ValueError(f"edges must be an (E, 2) array, got shape {edges.shape}")
    if not np.issubdtype(edges.dtype, np.integer):
        raise TypeError(f"edges must hold integers, got dtype {edges.dtype}")
    if edges.min() < 0 or edges.max() >= n_vars:  # before the cast, which would wrap larger values
        raise ValueError(f"edges must index variables 0..{n_vars - 1}")
    edges = np.array(edges, dtype=dtype)  # a fresh copy, sorted in place (no second copy)
    edges.sort(axis=1)
    if np.any(edges[:, 0] == edges[:, 1]):
        raise ValueError("edges must not contain self-loops (single-site terms belong in the unary part)")
    return edges


def neighbour_lists(edges: np.ndarray, n_vars: int):
    """CSR neighbour lists of an undirected edge list: ``(indptr, neighbors, edge_of)``.

    The neighbours of ``i`` are ``neighbors[indptr[i]:indptr[i + 1]]`` in increasing order,
    and ``edge_of[slot]`` is the row of ``edges`` that slot comes from; all three of
    :func:`index_dtype` (``int32`` below ``2^31`` slots). A repeated edge (each
    edge is counted once) is a ValueError; sorted lists find it without hashing. One pass places
    every edge in its two rows, then each row is sorted (:func:`dogs._kernels.graph.fill_neighbour_lists`):
    ``O(E)`` time for bounded degrees and no memory beyond the three arrays returned.
    """
    edges = np.asarray(edges).reshape(-1, 2)
    dtype = index_dtype(n_vars, 2 * len(edges))
    edges = np.ascontiguousarray(edges, dtype=index_dtype(n_vars))
    indptr = np.zeros(n_vars + 1, dtype=dtype)
    np.cumsum(np.bincount(edges.ravel(), minlength=n_vars), out=indptr[1:])
    neighbors = np.empty(2 * len(edges), dtype=dtype)
    edge_of = np.empty(2 * len(edges), dtype=dtype)
    if fill_neighbour_lists(edges, indptr, neighbors, edge_of) >= 0:
        raise ValueError("edges must not contain duplicates (each edge is counted once)")
    _register(indptr, neighbors)
    return indptr, neighbors, edge_of


def _register(indptr: np.ndarray, neighbors: np.ndarray) -> None:
    """Freeze a pattern built here and remember it (until the arrays are garbage collected)."""
    indptr.setflags(write=False)
    neighbors.setflags(write=False)
    key = id(neighbors)
    _NEIGHBOUR_PATTERNS[key] = (weakref.ref(indptr), weakref.ref(neighbors))
    weakref.finalize(neighbors, _NEIGHBOUR_PATTERNS.pop, key, None)


def is_symmetric_neighbour_pattern(indptr, indices) -> bool:
    """Whether ``(indptr, indices)`` are the very (read-only) arrays of a :func:`neighbour_lists` result.

    Such a pattern is canonical (rows sorted, no duplicates), symmetric (``j`` in row ``i`` iff ``i`` in
    row ``j``) and has no diagonal, by construction, and cannot have been changed since (the arrays are
    read-only). An influence bound stored on a model's pattern (:mod:`dogs.bounds`) is therefore
    checked in ``O(nnz)`` for its values only, and its transpose pattern is itself.
    """
    entry = _NEIGHBOUR_PATTERNS.get(id(indices))
    return entry is not None and entry[0]() is indptr and entry[1]() is indices


def grid_edges(rows: int, cols: int, torus: bool = False) -> np.ndarray:
    """Edges of an ``rows x cols`` 4-neighbour lattice, variables numbered row-major ``r*cols + c``.

    Edges come in a fixed order: for each site in row-major order, its right
    neighbour, then its lower neighbour (wrapping around when ``torus``).
    Each edge appears once with ``i < j``, in :func:`index_dtype` of ``rows * cols``. A torus needs both sides >= 3
    (a side of 2 would put two parallel edges between the same pair).
    """
    rows, cols = _check_side("rows", rows), _check_side("cols", cols)
    if torus and min(rows, cols) < 3:
        raise ValueError(f"a torus needs both sides >= 3 (got {rows} x {cols}): a side of 2 would double edges")
    n_edges = 2 * rows * cols if torus else rows * (cols - 1) + (rows - 1) * cols
    edges = np.empty((n_edges, 2), dtype=index_dtype(rows * cols))
    grid_edge_list(rows, cols, torus, edges)
    return edges


def _check_side(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if value < 2:
        raise ValueError(f"{name} must be >= 2 (got {value})")
    return int(value)
