"""Exact engines of ``dogs.exact`` checked against each other and against transfer matrices.

Engines: numpy enumeration (``brute_force``), the pgmpy junction tree with our
elimination orders and two-pass rescaled calibration (``junction_tree_marginals``)
and pgmpy variable elimination (``variable_elimination_marginals``). Larger
lattices are checked against a column transfer-matrix computation written
here from the Ising parameters alone (no ``to_discrete``, no pgmpy).
"""

from __future__ import annotations

import subprocess
import sys
import tracemalloc

import numpy as np
import pytest
from scipy.special import logsumexp

from dogs.exact import (
    ExactMarginals,
    ModelTooLargeError,
    brute_force,
    elimination_order,
    junction_tree_marginals,
    plan_junction_tree,
    variable_elimination_marginals,
)
from dogs.models import BinaryPairwiseMRF, DiscretePairwiseMRF, grid_edges, grid_model

TOL = 1e-10


# ------------------------------------------------------------------------------------ models


def random_open_grid_3x3():
    rng = np.random.default_rng(11)
    return grid_model(3, 3, rng.normal(0.0, 0.6, size=12), rng.normal(0.0, 0.4, size=9))


def torus_4x4():
    rng = np.random.default_rng(12)
    return grid_model(4, 4, rng.uniform(-0.5, 0.8, size=32), rng.normal(0.0, 0.3, size=16), torus=True)


def dense_binary_6():
    rng = np.random.default_rng(13)
    w = rng.normal(0.0, 0.5, size=(6, 6))
    return BinaryPairwiseMRF.dense((w + w.T) / 2, rng.normal(0.0, 0.5, size=6))


def potts_3_states_3x3():
    rng = np.random.default_rng(14)
    return DiscretePairwiseMRF.potts(grid_edges(3, 3), 3, 0.7, rng.normal(0.0, 0.5, size=(9, 3)), shape=(3, 3))


def mixed_cardinality():
    """A 5-cycle plus a chord; variable 2 has 3 states, the others 2."""
    rng = np.random.default_rng(15)
    card = np.array([2, 2, 3, 2, 2])
    edges = np.array([[0, 1], [1, 2], [2, 3], [3, 4], [0, 4], [1, 3]])
    unary = [rng.normal(size=k) for k in card]
    tables = [rng.normal(size=(card[i], card[j])) for i, j in edges]
    return DiscretePairwiseMRF(card, unary, edges, tables)


SMALL_MODELS = {
    "open_grid_3x3": random_open_grid_3x3,
    "torus_4x4": torus_4x4,
    "dense_binary_6": dense_binary_6,
    "potts_3x3": potts_3_states_3x3,
    "mixed_cardinality": mixed_cardinality,
}


def assert_same(a: ExactMarginals, b: ExactMarginals, tol: float = TOL):
    assert a.n_vars == b.n_vars
    np.testing.assert_array_equal(a.edges, b.edges)
    assert abs(a.log_partition - b.log_partition) <= tol, (a.log_partition, b.log_partition)
    for i, (x, y) in enumerate(zip(a.node_marginals, b.node_marginals)):
        assert x.shape == y.shape
        assert np.max(np.abs(x - y)) <= tol, (i, x, y)
    for e, (x, y) in enumerate(zip(a.edge_marginals, b.edge_marginals)):
        assert x.shape == y.shape
        assert np.max(np.abs(x - y)) <= tol, (e, x, y)


def assert_consistent(result: ExactMarginals):
    """Marginals are distributions and each edge table sums to its two node marginals."""
    for m in result.node_marginals:
        assert np.all(m >= 0) and abs(m.sum() - 1) < 1e-12
    for (i, j), table in zip(result.edges, result.edge_marginals):
        np.testing.assert_allclose(table.sum(axis=1), result.node_marginals[i], atol=1e-12)
        np.testing.assert_allclose(table.sum(axis=0), result.node_marginals[j], atol=1e-12)


# ------------------------------------------------------------- independent transfer matrices


def _columns(model: BinaryPairwiseMRF):
    """Column spin states and the per-column / between-column log potentials of a lattice Ising model."""
    rows, cols = model.shape
    states = 1 - 2 * ((np.arange(2**rows)[:, None] >> np.arange(rows)) & 1)  # (S, rows), entries ±1
    coupling = {(int(i), int(j)): float(t) for (i, j), t in zip(model.edges, model.theta)}

    def theta(a, b):
        return coupling.get((min(a, b), max(a, b)), 0.0)

    column_log = []
    for c in range(cols):
        sites = np.arange(rows) * cols + c
        log_pot = states @ model.h[sites]
        for r in range(rows):
            for r2 in range(r + 1, rows):
                t = theta(sites[r], sites[r2])
                if t:
                    log_pot = log_pot + t * states[:, r] * states[:, r2]
        column_log.append(log_pot)
    between_log = []  # between column c and c+1 (mod cols): (S, S), zero when there are no edges
    for c in range(cols):
        nxt = (c + 1) % cols
        t = np.array([theta(r * cols + c, r * cols + nxt) if nxt != c else 0.0 for r in range(rows)])
        between_log.append((states * t) @ states.T)
    return states, column_log, between_log


def _edge_tables_from_column(states, prob, r, r2):
    idx = (states[:, [r, r2]] > 0).astype(int)
    table = np.zeros((2, 2))
    np.add.at(table, (idx[:, 0], idx[:, 1]), prob)
    return table


def transfer_matrix_open(model: BinaryPairwiseMRF):
    """Forward-backward over columns (log space) for an open lattice: node, edge marginals and log Z."""
    rows, cols = model.shape
    states, column_log, between_log = _columns(model)
    fwd = [column_log[0]]
    for c in range(1, cols):
        fwd.append(column_log[c] + logsumexp(fwd[-1][:, None] + between_log[c - 1], axis=0))
    bwd = [np.zeros(len(states))] * cols
    for c in range(cols - 2, -1, -1):
        bwd[c] = logsumexp(between_log[c] + (column_log[c + 1] + bwd[c + 1])[None, :], axis=1)
    log_z = logsumexp(fwd[-1])
    node = np.zeros((rows * cols, 2))
    edge = {}
    for c in range(cols):
        prob = np.exp(fwd[c] + bwd[c] - log_z)
        for r in range(rows):
            node[r * cols + c] = [prob[states[:, r] < 0].sum(), prob[states[:, r] > 0].sum()]
            if r + 1 < rows:
                edge[(r * cols + c, (r + 1) * cols + c)] = _edge_tables_from_column(states, prob, r, r + 1)
        if c + 1 < cols:
            joint = np.exp(
                fwd[c][:, None] + between_log[c] + (column_log[c + 1] + bwd[c + 1])[None, :] - log_z
            )
            for r in range(rows):
                a = (states[:, r] > 0).astype(int)
                table = np.zeros((2, 2))
                for x in range(2):
                    for y in range(2):
                        table[x, y] = joint[np.ix_(a == x, a == y)].sum()
                edge[(r * cols + c, r * cols + c + 1)] = table
    return node, [edge[(int(i), int(j))] for i, j in model.edges], log_z


def _scaled_product(a, b):
    """Product of two (matrix, log scale) pairs, renormalised to maximum 1."""
    m = a[0] @ b[0]
    peak = m.max()
    return m / peak, a[1] + b[1] + np.log(peak)


def transfer_matrix_torus(model: BinaryPairwiseMRF):
    """Node marginals, vertical-edge marginals and log Z of a torus from cyclic column transfer matrices.

    ``M_c(s, s') = exp(column_c(s) + between_c(s, s'))``, ``Z = tr(M_0 ... M_{C-1})`` and
    ``P(column c = s) = [M_c ... M_{c-1}](s, s) / Z``; every product is rescaled.
    """
    rows, cols = model.shape
    states, column_log, between_log = _columns(model)
    mats = []
    for c in range(cols):
        log_m = column_log[c][:, None] + between_log[c]
        peak = log_m.max()
        mats.append((np.exp(log_m - peak), peak))
    identity = (np.eye(len(states)), 0.0)
    prefix = [identity]  # prefix[c] = M_0 ... M_{c-1}
    for c in range(cols - 1):
        prefix.append(_scaled_product(prefix[-1], mats[c]))
    suffix = [None] * cols  # suffix[c] = M_c ... M_{C-1}
    suffix[cols - 1] = mats[cols - 1]
    for c in range(cols - 2, -1, -1):
        suffix[c] = _scaled_product(mats[c], suffix[c + 1])
    node = np.zeros((rows * cols, 2))
    vertical = {}
    log_z = None
    for c in range(cols):
        diag = np.einsum("ij,ji->i", suffix[c][0], prefix[c][0])  # diagonal of the cyclic product from c
        log_trace = suffix[c][1] + prefix[c][1] + np.log(diag.sum())
        log_z = log_trace if log_z is None else log_z
        prob = diag / diag.sum()
        for r in range(rows):
            node[r * cols + c] = [prob[states[:, r] < 0].sum(), prob[states[:, r] > 0].sum()]
            r2 = (r + 1) % rows
            i, j = sorted((r * cols + c, r2 * cols + c))
            table = _edge_tables_from_column(states, prob, r, r2)
            vertical[(i, j)] = table if (i, j) == (r * cols + c, r2 * cols + c) else table.T
    return node, vertical, log_z


# ------------------------------------------------------------------------------- agreement


@pytest.mark.parametrize("name", list(SMALL_MODELS))
def test_three_engines_agree(name):
    model = SMALL_MODELS[name]()
    enumerated = brute_force(model)
    tree = junction_tree_marginals(model)
    eliminated = variable_elimination_marginals(model)
    assert_consistent(enumerated)
    assert_same(enumerated, tree)
    assert_same(enumerated, eliminated)
    assert enumerated.method == "enumeration" and tree.method == "junction_tree"
    assert eliminated.method == "variable_elimination"


def test_junction_tree_matches_enumeration_on_4x5_grid():
    rng = np.random.default_rng(21)
    model = grid_model(4, 5, rng.normal(0.0, 0.7, size=31), rng.normal(0.0, 0.5, size=20))
    assert_same(brute_force(model), junction_tree_marginals(model))


@pytest.mark.parametrize("order", ["row_major", "min_degree", "min_fill", "explicit"])
def test_every_elimination_order_gives_the_same_answer(order):
    model = torus_4x4()
    if order == "explicit":
        order = list(np.random.default_rng(3).permutation(model.n_vars))
    result = junction_tree_marginals(model, order=order)
    assert_same(brute_force(model), result)
    assert result.info["order"] == (order if isinstance(order, str) else "explicit")


def test_disconnected_model_with_isolated_variable():
    """Two components and an isolated site: one junction tree per component, log Z adds up."""
    edges = np.array([[0, 1], [1, 2], [0, 2], [3, 4], [4, 5]])
    model = BinaryPairwiseMRF(edges, [0.5, -0.3, 0.8, 1.1, -0.4], [0.1, -0.2, 0.3, 0.0, 0.5, -0.6, 0.7])
    result = junction_tree_marginals(model)
    assert result.info["n_trees"] == 3
    assert_same(brute_force(model), result)
    assert_same(brute_force(model), variable_elimination_marginals(model))


def test_strong_coupling_beyond_float64_exp_matches_enumeration():
    """log Z > 709 (exp overflows float64): rescaled calibration and log-space enumeration still agree."""
    rng = np.random.default_rng(31)
    model = grid_model(4, 4, rng.uniform(20.0, 30.0, size=32), rng.normal(0.0, 0.1, size=16), torus=True)
    enumerated = brute_force(model)
    assert enumerated.log_partition > 709
    tree = junction_tree_marginals(model)
    assert np.isfinite(tree.log_partition)
    assert all(np.all(np.isfinite(m)) for m in tree.node_marginals + tree.edge_marginals)
    assert_same(enumerated, tree)
    assert 0.01 < enumerated.node_marginals_array[0, 1] < 0.99  # not a trivially dominated state
    assert_same(enumerated, variable_elimination_marginals(model))


def test_strong_coupling_4x4_torus_coupling_5_field_1():
    model = grid_model(4, 4, 5.0, 1.0, torus=True)
    tree = junction_tree_marginals(model)
    assert np.isfinite(tree.log_partition)
    assert_same(brute_force(model), tree)


def test_10x10_grid_matches_column_transfer_matrix():
    rng = np.random.default_rng(41)
    model = grid_model(10, 10, rng.uniform(0.0, 0.25, size=180), rng.integers(0, 2, size=100).astype(float))
    node, edge, log_z = transfer_matrix_open(model)
    result = junction_tree_marginals(model)
    assert abs(result.log_partition - log_z) <= TOL
    assert np.max(np.abs(result.node_marginals_array - node)) <= TOL
    assert max(np.max(np.abs(a - b)) for a, b in zip(result.edge_marginals, edge)) <= TOL
    assert_consistent(result)
    np.testing.assert_allclose(result.mean_spin(), node[:, 1] - node[:, 0], atol=TOL)


def test_9x9_torus_strong_random_coupling_matches_cyclic_transfer_matrix():
    """log Z > 709 on the 9x9 torus (annular-augmentation scale): junction tree = cyclic transfer matrices."""
    rng = np.random.default_rng(51)
    model = grid_model(9, 9, rng.uniform(4.0, 6.0, size=162), rng.normal(0.0, 0.3, size=81), torus=True)
    node, vertical, log_z = transfer_matrix_torus(model)
    result = junction_tree_marginals(model)
    assert log_z > 709
    assert abs(result.log_partition - log_z) <= TOL
    assert np.max(np.abs(result.node_marginals_array - node)) <= TOL
    assert 0.01 < node[0, 1] < 0.99  # not a trivially dominated state
    for (i, j), table in zip(result.edges.tolist(), result.edge_marginals):
        if (i, j) in vertical:
            assert np.max(np.abs(table - vertical[(i, j)])) <= TOL


# ---------------------------------------------------------------------------- treewidth guard


def test_40x40_grid_is_refused_before_any_table_naming_the_clique_size():
    model = grid_model(40, 40, 0.25, 0.0)
    tracemalloc.start()
    try:
        with pytest.raises(ModelTooLargeError, match="clique of at least 41 variables") as excinfo:
            junction_tree_marginals(model)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20, f"{peak / 2**20:.0f} MB traced: refused after allocating"  # 0.5 MB measured
    assert isinstance(excinfo.value, ValueError)
    assert "infeasible" in str(excinfo.value) and "GiB" in str(excinfo.value)


def test_graph_without_lattice_shape_is_refused_by_the_greedy_orders():
    """No ``shape``: every candidate order runs until its running total passes the budget."""
    grid = grid_model(12, 12, 0.3, 0.0)
    model = BinaryPairwiseMRF(grid.edges, grid.theta, grid.h)  # same graph, no lattice metadata
    with pytest.raises(ModelTooLargeError, match=r"largest clique of at least \d+ variables") as excinfo:
        plan_junction_tree(model, max_table_entries=2**10)
    for name in ("min_degree", "min_fill", "row_major"):
        assert name in str(excinfo.value)


def test_plan_reports_sizes_without_building_tables():
    plan = plan_junction_tree(grid_model(9, 9, 0.2, 0.0, torus=True))
    assert plan.total_entries == sum(plan.clique_entries)
    assert plan.largest_clique_entries == max(plan.clique_entries) == 2**plan.largest_clique
    assert len(plan.tree_edges) == len(plan.cliques) - 1
    assert plan.table_bytes == 8 * plan.total_entries
    order = elimination_order(grid_model(5, 5, 0.2, 0.0), "min_fill")
    assert sorted(order) == list(range(25))


# -------------------------------------------------------------------------------- bad input


def test_bad_input_is_rejected_with_clear_errors():
    model = random_open_grid_3x3()
    with pytest.raises(ValueError, match="order must be one of"):
        junction_tree_marginals(model, order="min_width")
    with pytest.raises(ValueError, match="permutation"):
        junction_tree_marginals(model, order=[0, 1, 2])
    with pytest.raises(TypeError, match="order"):
        junction_tree_marginals(model, order=3.5)
    with pytest.raises(ValueError, match="max_table_entries"):
        junction_tree_marginals(model, max_table_entries=0)
    with pytest.raises(TypeError, match="model"):
        junction_tree_marginals(np.zeros((3, 3)))
    with pytest.raises(TypeError, match="model"):
        brute_force("not a model")
    with pytest.raises(TypeError, match="max_vars"):
        brute_force(model, max_vars=2.5)
    with pytest.raises(ValueError, match="elimination_order|order must be"):
        elimination_order(model, "auto")
    with pytest.raises(ValueError, match="joint states over 21 variables"):
        brute_force(grid_model(3, 7, 0.1, 0.0))


def test_result_helpers():
    binary = brute_force(random_open_grid_3x3())
    marg = binary.node_marginals_array
    assert marg.shape == (9, 2)
    np.testing.assert_allclose(binary.mean_spin(), marg[:, 1] - marg[:, 0])
    # spin convention (state 0 = -1): E[x_i] = sum_x x_i pi(x) over the 2**9 spin configurations
    model = random_open_grid_3x3()
    spins = 1 - 2 * ((np.arange(2**9)[:, None] >> np.arange(9)) & 1)
    log_pot = model.log_potential(spins)
    weights = np.exp(log_pot - logsumexp(log_pot))
    np.testing.assert_allclose(binary.mean_spin(), weights @ spins, atol=1e-12)
    assert abs(binary.log_partition - logsumexp(log_pot)) < 1e-12
    mixed = brute_force(mixed_cardinality())
    with pytest.raises(ValueError, match="equal cardinalities"):
        mixed.node_marginals_array
    with pytest.raises(ValueError, match="binary"):
        mixed.mean_spin()
    with pytest.raises(ValueError):
        binary.node_marginals[0][0] = 1.0  # read-only


def test_importing_dogs_exact_does_not_import_pgmpy():
    code = "import sys, dogs.exact; assert 'pgmpy' not in sys.modules, 'pgmpy imported eagerly'"
    subprocess.run([sys.executable, "-c", code], check=True)
