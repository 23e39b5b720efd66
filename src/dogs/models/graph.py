"""Graph helpers shared by the model classes: edge-list checks, CSR neighbour lists, lattice edges.

Edges are unordered pairs stored as rows ``(i, j)`` with ``i < j``, each edge
once; variables are numbered ``0 .. p - 1`` (row-major ``r * cols + c`` on a
lattice). This module depends on numpy only and imports nothing else from
:mod:`dogs.models`, so both :mod:`dogs.models.binary` and
:mod:`dogs.models.discrete` can build on it without importing each other.
"""

from __future__ import annotations

import weakref

import numpy as np

__all__ = ["check_edges", "grid_edges", "is_symmetric_neighbour_pattern", "neighbour_lists"]

#: Neighbour lists built by :func:`neighbour_lists`: ``id(neighbors) -> (weakref(indptr), weakref(neighbors))``.
_NEIGHBOUR_PATTERNS: dict = {}


def check_edges(edges, n_vars: int) -> np.ndarray:
    """Validate an edge list over ``n_vars`` variables and return it as a fresh ``(E, 2)`` int64 array, ``i < j``.

    Each row is sorted, so ``(j, i)`` becomes ``(i, j)``; rows keep their order.
    An empty input gives shape ``(0, 2)``. Raises ``ValueError`` for a wrong
    shape, an index outside ``0 .. n_vars - 1`` or a self-loop, and ``TypeError``
    for non-integer entries. Duplicates are found by :func:`neighbour_lists`.
    """
    edges = np.asarray(edges)
    if edges.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if edges.ndim != 2 or edges.shape[1] != 2:
        raise ValueError(f"edges must be an (E, 2) array, got shape {edges.shape}")
    if not np.issubdtype(edges.dtype, np.integer):
        raise TypeError(f"edges must hold integers, got dtype {edges.dtype}")
    edges = np.sort(edges.astype(np.int64), axis=1)
    if edges.min() < 0 or edges.max() >= n_vars:
        raise ValueError(f"edges must index variables 0..{n_vars - 1}")
    if np.any(edges[:, 0] == edges[:, 1]):
        raise ValueError("edges must not contain self-loops (single-site terms belong in the unary part)")
    return edges


def neighbour_lists(edges: np.ndarray, n_vars: int):
    """CSR neighbour lists of an undirected edge list: ``(indptr, neighbors, edge_of)``.

    The neighbours of ``i`` are ``neighbors[indptr[i]:indptr[i + 1]]`` in increasing order,
    and ``edge_of[slot]`` is the row of ``edges`` that slot comes from. A repeated edge (each
    edge is counted once) is a ValueError; sorted lists find it without hashing.
    """
    heads = np.concatenate([edges[:, 0], edges[:, 1]])
    tails = np.concatenate([edges[:, 1], edges[:, 0]])
    edge_ids = np.concatenate([np.arange(len(edges)), np.arange(len(edges))])
    order = np.lexsort((tails, heads))
    heads, tails = heads[order], tails[order]
    if np.any((heads[1:] == heads[:-1]) & (tails[1:] == tails[:-1])):
        raise ValueError("edges must not contain duplicates (each edge is counted once)")
    indptr = np.zeros(n_vars + 1, dtype=np.int64)
    np.cumsum(np.bincount(heads, minlength=n_vars), out=indptr[1:])
    neighbors = tails.astype(np.int64)
    _register(indptr, neighbors)
    return indptr, neighbors, edge_ids[order].astype(np.int64)


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
    Each edge appears once with ``i < j``. A torus needs both sides >= 3
    (a side of 2 would put two parallel edges between the same pair).
    """
    rows, cols = _check_side("rows", rows), _check_side("cols", cols)
    if torus and min(rows, cols) < 3:
        raise ValueError(f"a torus needs both sides >= 3 (got {rows} x {cols}): a side of 2 would double edges")
    here = np.arange(rows * cols)
    r, c = np.divmod(here, cols)
    candidates = np.empty((here.size, 2, 2), dtype=np.int64)  # per site: (right pair, down pair)
    candidates[:, :, 0] = here[:, None]
    candidates[:, 0, 1] = r * cols + (c + 1) % cols
    candidates[:, 1, 1] = ((r + 1) % rows) * cols + c
    exists = np.stack([(c + 1 < cols) | torus, (r + 1 < rows) | torus], axis=1)
    pairs = candidates[exists]  # site by site in row-major order, right before down
    return np.sort(pairs, axis=1).astype(np.int64)


def _check_side(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if value < 2:
        raise ValueError(f"{name} must be >= 2 (got {value})")
    return int(value)
