"""Lattice edges and CSR neighbour lists: the one-pass kernels give exactly the arrays of the plain numpy construction."""

from __future__ import annotations

import numpy as np
import pytest

from dogs.models.graph import check_edges, grid_edges, index_dtype, is_symmetric_neighbour_pattern, neighbour_lists


def reference_grid_edges(rows, cols, torus):
    """Every site's (right, down) candidate pair, kept where it exists, each pair sorted."""
    here = np.arange(rows * cols)
    r, c = np.divmod(here, cols)
    candidates = np.stack([np.stack([here, r * cols + (c + 1) % cols], axis=1),
                           np.stack([here, ((r + 1) % rows) * cols + c], axis=1)], axis=1)
    exists = np.stack([(c + 1 < cols) | torus, (r + 1 < rows) | torus], axis=1)
    return np.sort(candidates[exists], axis=1).astype(np.int64)


def reference_neighbour_lists(edges, n_vars):
    """Both directions of every edge, sorted by (head, tail) with ``lexsort``."""
    heads = np.concatenate([edges[:, 0], edges[:, 1]])
    tails = np.concatenate([edges[:, 1], edges[:, 0]])
    ids = np.concatenate([np.arange(len(edges)), np.arange(len(edges))])
    order = np.lexsort((tails, heads))
    indptr = np.zeros(n_vars + 1, dtype=np.int64)
    np.cumsum(np.bincount(heads, minlength=n_vars), out=indptr[1:])
    return indptr, tails[order].astype(np.int64), ids[order].astype(np.int64)


@pytest.mark.parametrize("rows, cols, torus", [(2, 2, False), (2, 9, False), (5, 3, False), (3, 3, True), (3, 7, True),
                                               (40, 40, True), (31, 17, False)])
def test_grid_edges_equal_the_reference(rows, cols, torus):
    edges = grid_edges(rows, cols, torus)
    expected = reference_grid_edges(rows, cols, torus)
    assert edges.dtype == np.int32  # the values are the reference's, in half the memory
    np.testing.assert_array_equal(edges, expected)


def _random_graphs():
    rng = np.random.default_rng(2024)
    graphs = []
    for trial in range(60):
        p = int(rng.integers(2, 60))
        pairs = np.array([(i, j) for i in range(p) for j in range(i + 1, p)])
        keep = len(pairs) if trial % 5 == 0 else int(rng.integers(0, len(pairs) + 1))
        chosen = pairs[rng.permutation(len(pairs))[:keep]]
        flipped = np.where(rng.random((keep, 1)) < 0.5, chosen, chosen[:, ::-1])  # either orientation
        graphs.append((p, flipped))
    hub = 400  # one row longer than the insertion-sort limit: the merge-sort path
    spokes = np.stack([np.zeros(hub - 1, dtype=np.int64), rng.permutation(np.arange(1, hub))], axis=1)
    graphs.append((hub, np.vstack([spokes, [[5, 3], [9, 2]]])))
    graphs.append((4, np.zeros((0, 2), dtype=np.int64)))
    return graphs


@pytest.mark.parametrize("k", range(62))
def test_neighbour_lists_equal_the_lexsort_reference(k):
    p, raw = _random_graphs()[k]
    edges = check_edges(raw, p)
    got = neighbour_lists(edges, p)
    for array, expected in zip(got, reference_neighbour_lists(edges, p)):
        assert array.dtype == np.int32
        np.testing.assert_array_equal(array, expected)
    assert is_symmetric_neighbour_pattern(got[0], got[1])


@pytest.mark.parametrize("edges", [[[0, 1], [1, 2], [1, 0]], [[0, j] for j in range(1, 50)] + [[0, 17]]])
def test_a_repeated_edge_is_refused(edges):
    with pytest.raises(ValueError, match="duplicates"):
        neighbour_lists(check_edges(np.array(edges), 50), 50)


def test_check_edges_sorts_pairs_and_copies():
    raw = np.array([[3, 1], [0, 2]], dtype=np.int32)
    edges = check_edges(raw, 4)
    np.testing.assert_array_equal(edges, [[1, 3], [0, 2]])
    assert edges.dtype == np.int32 and raw[0, 0] == 3


def test_index_type_is_int32_below_two_to_the_31():
    assert index_dtype(10, 2**31 - 1) == np.int32 and index_dtype(2**31) == np.int64 and index_dtype() == np.int32
    with pytest.raises(ValueError, match="index variables"):  # validated before the cast, which would wrap
        check_edges(np.array([[0, 2**32 + 1]]), 5)
