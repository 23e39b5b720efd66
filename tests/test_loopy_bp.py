"""Loopy belief propagation: exact on trees, non-convergence reported on a frustrated torus, close on weak loops.

Exact answers come from enumeration (:func:`dogs.exact.brute_force`). The numba kernel is checked
against a plain-Python reference that keeps every message as an explicit normalised 2-vector and
multiplies incoming messages in log space (a different formulation from the kernel's message fields).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dogs.exact import brute_force
from dogs.inference import LBPResult, loopy_belief_propagation
from dogs.models.binary import BinaryPairwiseMRF, grid_model
from dogs.models.discrete import DiscretePairwiseMRF

SPINS = (-1.0, 1.0)


# ------------------------------------------------------------------ plain-Python reference
def _normalise_log(values):
    top = max(values)
    w = [math.exp(v - top) for v in values]
    total = sum(w)
    return [x / total for x in w]


def lbp_reference(model: BinaryPairwiseMRF, tolerance=1e-4, max_iterations=100, schedule="sequential"):
    """Textbook sum-product LBP with dict-of-2-vector messages; returns (node_marginals, edge_tables, iterations, changes)."""
    d = model.n_vars
    nbrs = {i: [int(k) for k in model.neighbors_of(i)] for i in range(d)}
    theta = {}
    for (i, j), t in zip(model.edges, model.theta):
        theta[int(i), int(j)] = theta[int(j), int(i)] = float(t)
    msg = {(i, j): [0.5, 0.5] for i in range(d) for j in nbrs[i]}  # msg[i, j][b] = m_{i->j}(s_j = SPINS[b])

    def new_message(i, j, source):
        logs = []
        for sj in SPINS:
            terms = []
            for si in SPINS:
                v = float(model.h[i]) * si + theta[i, j] * si * sj
                for k in nbrs[i]:
                    if k != j:
                        v += math.log(source[k, i][SPINS.index(si)])
                terms.append(v)
            top = max(terms)
            logs.append(top + math.log(sum(math.exp(t - top) for t in terms)))
        return _normalise_log(logs)

    changes = []
    iterations = 0
    for _ in range(max_iterations):
        iterations += 1
        source = msg if schedule == "sequential" else {key: list(v) for key, v in msg.items()}
        change = 0.0
        for i in range(d):
            for j in nbrs[i]:
                new = new_message(i, j, source)
                change += sum(abs(a - b) for a, b in zip(new, msg[i, j]))
                msg[i, j] = new
        changes.append(change)
        if change < tolerance:
            break

    nodes = np.empty(d)
    for i in range(d):
        logs = [float(model.h[i]) * s + sum(math.log(msg[k, i][b]) for k in nbrs[i]) for b, s in enumerate(SPINS)]
        nodes[i] = _normalise_log(logs)[1]
    tables = np.empty((model.n_edges, 2, 2))
    for e, (i, j) in enumerate(model.edges):
        i, j = int(i), int(j)
        logs = []
        for a, si in enumerate(SPINS):
            for b, sj in enumerate(SPINS):
                v = theta[i, j] * si * sj + float(model.h[i]) * si + float(model.h[j]) * sj
                v += sum(math.log(msg[k, i][a]) for k in nbrs[i] if k != j)
                v += sum(math.log(msg[l, j][b]) for l in nbrs[j] if l != i)
                logs.append(v)
        tables[e] = np.reshape(_normalise_log(logs), (2, 2))
    return nodes, tables, iterations, np.array(changes)


# ------------------------------------------------------------------ models
def chain_model(d=7):
    rng = np.random.default_rng(11)
    edges = np.stack([np.arange(d - 1), np.arange(1, d)], axis=1)
    theta = rng.uniform(0.3, 1.5, d - 1) * np.array([1, -1, 1, 1, -1, -1])[: d - 1]
    return BinaryPairwiseMRF(edges, theta, rng.uniform(-1, 1, d))


def star_model(leaves=6):
    rng = np.random.default_rng(12)
    centre = 3  # not node 0, so the hub is visited mid-sweep
    others = [k for k in range(leaves + 1) if k != centre]
    edges = np.array([(centre, k) for k in others])
    theta = rng.uniform(0.2, 2.0, leaves) * np.where(np.arange(leaves) % 2 == 0, 1.0, -1.0)
    return BinaryPairwiseMRF(edges, theta, rng.uniform(-1, 1, leaves + 1))


def random_tree_model(d=10, seed=13, scale=1.0):
    rng = np.random.default_rng(seed)
    perm = rng.permutation(d)  # random labels, so node order is unrelated to the tree structure
    edges = np.array([(perm[k], perm[rng.integers(k)]) for k in range(1, d)])
    return BinaryPairwiseMRF(edges, scale * rng.normal(0.0, 1.0, d - 1), scale * rng.normal(0.0, 0.7, d))


def forest_model():
    """Two trees plus an isolated node."""
    edges = np.array([(0, 1), (1, 2), (4, 5), (4, 6), (6, 7)])
    return BinaryPairwiseMRF(edges, [0.8, -1.1, 0.5, -0.4, 1.3], [0.2, -0.3, 0.1, 0.7, -0.5, 0.0, 0.4, -0.9])


def frustrated_torus():
    """3x3 antiferromagnetic torus, J = -1, small uniform field: every row/column is a frustrated triangle."""
    return grid_model(3, 3, -1.0, 0.1, torus=True)


def random_loopy_model(seed=5):
    rng = np.random.default_rng(seed)
    d = 8
    iu = np.triu_indices(d, 1)
    keep = rng.random(iu[0].size) < 0.45
    edges = np.stack([iu[0][keep], iu[1][keep]], axis=1)
    return BinaryPairwiseMRF(edges, rng.normal(0, 0.5, len(edges)), rng.normal(0, 0.5, d))


def exact(model):
    ex = brute_force(model)
    return ex.node_marginals_array[:, 1], np.stack(ex.edge_marginals)


# ------------------------------------------------------------------ trees: exact
TREES = {
    "chain": chain_model,
    "star": star_model,
    "random_tree": random_tree_model,
    "random_tree_strong": lambda: random_tree_model(d=9, seed=21, scale=25.0),  # |theta|, |h| up to ~60
    "forest": forest_model,
}


@pytest.mark.parametrize("name", sorted(TREES))
@pytest.mark.parametrize("schedule", ["sequential", "parallel"])
def test_exact_on_trees(name, schedule):
    model = TREES[name]()
    nodes, tables = exact(model)
    result = loopy_belief_propagation(model, tolerance=1e-12, schedule=schedule)
    assert result.converged
    assert result.iterations <= model.n_vars + 1  # at most diameter + 1 sweeps on a tree
    assert np.all(np.isfinite(result.edge_beliefs))
    np.testing.assert_allclose(result.node_marginals, nodes, rtol=0, atol=1e-8)
    np.testing.assert_allclose(result.edge_beliefs, tables, rtol=0, atol=1e-8)
    np.testing.assert_allclose(result.edge_beliefs.sum(axis=(1, 2)), 1.0, atol=1e-12)


def test_default_settings_on_a_tree_are_exact_too():
    model = random_tree_model()
    nodes, tables = exact(model)
    result = loopy_belief_propagation(model)
    assert result.converged and result.final_change < 1e-4
    np.testing.assert_allclose(result.node_marginals, nodes, rtol=0, atol=1e-8)
    np.testing.assert_allclose(result.edge_beliefs, tables, rtol=0, atol=1e-8)


def test_edge_belief_layout():
    """tables[e, a, b] = p(s_i = 2a - 1, s_j = 2b - 1) for edges[e] = (i, j): a strong field on i shows in axis 1."""
    model = BinaryPairwiseMRF(np.array([[0, 1]]), [0.0], [5.0, -5.0])
    table = loopy_belief_propagation(model).edge_beliefs[0]
    assert table[1, 0] > 0.99  # s_0 = +1, s_1 = -1
    np.testing.assert_allclose(table, np.outer([1 - _sig(10), _sig(10)], [_sig(10), 1 - _sig(10)]), atol=1e-14)


def _sig(x):
    return 1.0 / (1.0 + math.exp(-x))


# ------------------------------------------------------------------ loops
def test_frustrated_torus_oscillates_and_reports_non_convergence():
    model = frustrated_torus()
    result = loopy_belief_propagation(model)
    assert not result.converged
    assert result.iterations == 100 and result.change_history.shape == (100,)
    assert result.final_change > 10.0  # nowhere near 1e-4
    # a genuine oscillation, not slow convergence: a period-4 limit cycle of the sequential sweep
    a = loopy_belief_propagation(model, max_iterations=400).messages
    b = loopy_belief_propagation(model, max_iterations=404).messages
    c = loopy_belief_propagation(model, max_iterations=402).messages
    np.testing.assert_allclose(a, b, atol=1e-9)
    assert np.abs(a - c).max() > 0.5
    assert not loopy_belief_propagation(model, max_iterations=5000).converged
    assert not loopy_belief_propagation(model, schedule="parallel").converged


def test_zero_field_is_a_fixed_point_from_uniform_messages():
    """With h = 0 every message stays uniform, so LBP stops after one sweep even on the frustrated torus."""
    result = loopy_belief_propagation(grid_model(3, 3, -2.0, 0.0, torus=True))
    assert result.converged and result.iterations == 1 and result.final_change == 0.0
    np.testing.assert_array_equal(result.node_marginals, 0.5)


WEAK_TORUS_ATOL_NODE = 2e-3
WEAK_TORUS_ATOL_EDGE = 5e-3


def test_weak_torus_with_fields_converges_close_to_exact():
    """3x3 torus, J = 0.1, fields U[-0.5, 0.5]: measured max errors 8.6e-4 (nodes), 3.2e-3 (edge cells)."""
    rng = np.random.default_rng(2017)
    model = grid_model(3, 3, 0.1, rng.uniform(-0.5, 0.5, 9), torus=True)
    nodes, tables = exact(model)
    result = loopy_belief_propagation(model)
    assert result.converged and result.iterations < 20
    assert np.abs(result.node_marginals - nodes).max() < WEAK_TORUS_ATOL_NODE
    assert np.abs(result.edge_beliefs - tables).max() < WEAK_TORUS_ATOL_EDGE


# ------------------------------------------------------------------ kernel vs reference
@pytest.mark.parametrize("schedule", ["sequential", "parallel"])
@pytest.mark.parametrize(
    "make, kwargs",
    [
        (frustrated_torus, {"max_iterations": 37}),
        (random_loopy_model, {}),
        (lambda: random_loopy_model(seed=9), {"tolerance": 1e-9}),
        (random_tree_model, {"tolerance": 1e-12}),
        (star_model, {"max_iterations": 1}),
    ],
)
def test_kernel_matches_plain_python_reference(make, kwargs, schedule):
    model = make()
    nodes, tables, iterations, changes = lbp_reference(model, schedule=schedule, **kwargs)
    result = loopy_belief_propagation(model, schedule=schedule, **kwargs)
    assert result.iterations == iterations
    np.testing.assert_allclose(result.change_history, changes, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(result.node_marginals, nodes, rtol=0, atol=1e-10)
    np.testing.assert_allclose(result.edge_beliefs, tables, rtol=0, atol=1e-10)


# ------------------------------------------------------------------ edge cases and validation
def test_no_iterations_gives_local_fields():
    model = chain_model()
    result = loopy_belief_propagation(model, max_iterations=0)
    assert not result.converged and result.iterations == 0 and math.isnan(result.final_change)
    np.testing.assert_allclose(result.node_marginals, 1 / (1 + np.exp(-2 * model.h)))


def test_model_without_edges():
    model = BinaryPairwiseMRF(np.zeros((0, 2), dtype=np.int64), [], [0.3, -1.0, 0.0])
    result = loopy_belief_propagation(model)
    assert result.converged and result.iterations == 1
    assert result.edge_beliefs.shape == (0, 2, 2)
    np.testing.assert_allclose(result.node_marginals, 1 / (1 + np.exp(-2 * model.h)))


def test_result_type_and_read_only_arrays():
    result = loopy_belief_propagation(chain_model())
    assert isinstance(result, LBPResult)
    assert result.messages.shape == (2 * chain_model().n_edges, 2)
    with pytest.raises(ValueError):
        result.node_marginals[0] = 0.0


@pytest.mark.parametrize(
    "model, kwargs, error, match",
    [
        ("not a model", {}, TypeError, "BinaryPairwiseMRF"),
        (None, {}, TypeError, "BinaryPairwiseMRF"),
        ("discrete", {}, TypeError, "BinaryPairwiseMRF"),
        ("ok", {"tolerance": 0.0}, ValueError, "tolerance"),
        ("ok", {"tolerance": -1e-4}, ValueError, "tolerance"),
        ("ok", {"tolerance": float("nan")}, ValueError, "tolerance"),
        ("ok", {"tolerance": float("inf")}, ValueError, "tolerance"),
        ("ok", {"tolerance": "1e-4"}, TypeError, "tolerance"),
        ("ok", {"tolerance": True}, TypeError, "tolerance"),
        ("ok", {"max_iterations": -1}, ValueError, "max_iterations"),
        ("ok", {"max_iterations": 10.0}, TypeError, "max_iterations"),
        ("ok", {"max_iterations": True}, TypeError, "max_iterations"),
        ("ok", {"schedule": "random"}, ValueError, "schedule"),
        ("ok", {"schedule": None}, ValueError, "schedule"),
    ],
)
def test_validation(model, kwargs, error, match):
    if model == "ok":
        model = chain_model()
    elif model == "discrete":
        model = chain_model().to_discrete()
        assert isinstance(model, DiscretePairwiseMRF)
    with pytest.raises(error, match=match):
        loopy_belief_propagation(model, **kwargs)


def test_positional_options_are_rejected():
    with pytest.raises(TypeError):
        loopy_belief_propagation(chain_model(), 1e-4)

