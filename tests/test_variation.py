"""Dobrushin variation (DoGS Definition 7) against a dense matrix-product reference."""

from __future__ import annotations


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

from dogs._kernels.variation import tree_build, tree_offsets, tree_set, tree_total

from random_problems import random_influence, random_steps, random_weights
from dogs.scans.base import UNIFORM, Scan, explicit_scan, systematic_scan, uniform_scan
from dogs.scans.variation import dobrushin_variation, dobrushin_variation_curve, uniform_variation_curve


def dense_variation(steps, weights, influence):
    r"""``d^T B(q_T) ... B(q_1) 1`` with dense ``B(q) = I - diag(q)(I - C)``, applied right to left."""
    c = influence.toarray() if sparse.issparse(influence) else np.asarray(influence)
    p = c.shape[0]
    b = np.ones(p)
    for step in steps:
        q = np.full(p, 1.0 / p) if step == UNIFORM else np.eye(p)[step]
        b = (np.eye(p) - np.diag(q) @ (np.eye(p) - c)) @ b
    return float(weights @ b)


def grid_influence(rows, cols, rng, high=0.25):
    """tanh|theta| on the open 4-neighbour grid (DoGS Theorem 11 at zero field), theta ~ U[0, high]."""
    p = rows * cols
    here = np.arange(p).reshape(rows, cols)
    pairs = np.concatenate([
        np.stack([here[:, :-1].ravel(), here[:, 1:].ravel()], axis=1),
        np.stack([here[:-1, :].ravel(), here[1:, :].ravel()], axis=1),
    ])
    coupling = np.tanh(rng.uniform(0, high, len(pairs)))
    i = np.concatenate([pairs[:, 0], pairs[:, 1]])
    j = np.concatenate([pairs[:, 1], pairs[:, 0]])
    return sparse.csr_matrix((np.concatenate([coupling, coupling]), (i, j)), shape=(p, p))


cases = st.fixed_dictionaries({
    "seed": st.integers(0, 2**32 - 1),
    "p": st.integers(1, 8),
    "length": st.integers(0, 30),
    "density": st.sampled_from([0.3, 0.6, 1.0]),
    "row_sum": st.sampled_from([0.7, 0.99, 1.5]),
    "scan_kind": st.sampled_from(["deterministic", "uniform", "mixed"]),
    "weight_kind": st.sampled_from(["random", "basis", "ones"]),
})


def build(case):
    rng = np.random.default_rng(case["seed"])
    p = case["p"]
    influence = random_influence(rng, p, case["density"], case["row_sum"])
    steps = random_steps(rng, p, case["length"], case["scan_kind"])
    weights = random_weights(rng, p, case["weight_kind"])
    return Scan(steps, p), weights, influence


# ----------------------------------------------------------------------------- against the dense product
@settings(max_examples=200, deadline=None, derandomize=True)
@given(cases)
def test_variation_matches_dense_product(case):
    scan, weights, influence = build(case)
    expected = dense_variation(scan.indices, weights, influence)
    assert dobrushin_variation(scan, weights, influence) == pytest.approx(expected, rel=1e-12, abs=1e-300)


@settings(max_examples=120, deadline=None, derandomize=True)
@given(cases)
def test_curve_entries_are_prefix_variations(case):
    scan, weights, influence = build(case)
    curve = dobrushin_variation_curve(scan, weights, influence)
    assert curve.shape == (scan.length + 1,)
    expected = [dense_variation(scan.indices[:t], weights, influence) for t in range(scan.length + 1)]
    np.testing.assert_allclose(curve, expected, rtol=1e-12, atol=1e-300)
    assert curve[-1] == pytest.approx(dobrushin_variation(scan, weights, influence), rel=1e-12, abs=1e-300)


def test_curve_at_requested_lengths_any_order():
    rng = np.random.default_rng(3)
    p = 12
    influence = random_influence(rng, p, 0.4, 0.9)
    scan = Scan(random_steps(rng, p, 60, "mixed"), p)
    weights = random_weights(rng, p, "random")
    lengths = [60, 0, 17, 17, 3]
    curve = dobrushin_variation_curve(scan, weights, influence, lengths=lengths)
    full = dobrushin_variation_curve(scan, weights, influence)
    np.testing.assert_array_equal(curve, full[lengths])
    assert dobrushin_variation_curve(scan, weights, influence, lengths=[]).shape == (0,)


def test_uniform_curve_matches_uniform_scan_and_dense():
    rng = np.random.default_rng(4)
    p = 6
    influence = random_influence(rng, p, 0.7, 0.8)
    weights = random_weights(rng, p, "random")
    lengths = [0, 1, 5, 40, 5]
    values = uniform_variation_curve(p, lengths, weights, influence)
    for value, length in zip(values, lengths):
        steps = np.full(length, UNIFORM)
        assert value == pytest.approx(dense_variation(steps, weights, influence), rel=1e-12)
        assert value == pytest.approx(dobrushin_variation(uniform_scan(p, length), weights, influence), rel=1e-12)


def test_two_variable_example_by_hand():
    # C = [[0, a], [c, 0]]; scan (e_1, e_2): b = (a, 1) then (a, c a); d = (1, 1) gives a + c a.
    a, c = 0.3, 0.6
    influence = np.array([[0.0, a], [c, 0.0]])
    scan = explicit_scan([0, 1], 2)
    assert dobrushin_variation(scan, np.ones(2), influence) == pytest.approx(a + c * a, rel=1e-15)
    np.testing.assert_allclose(dobrushin_variation_curve(scan, [1.0, 0.0], influence), [1.0, a, a])


def test_empty_scan_and_dense_input_agree_with_sparse():
    rng = np.random.default_rng(5)
    influence = random_influence(rng, 5, 0.5, 0.9)
    weights = random_weights(rng, 5, "random")
    assert dobrushin_variation(Scan(np.array([], dtype=np.int64), 5), weights, influence) == pytest.approx(weights.sum())
    scan = Scan(random_steps(rng, 5, 20, "mixed"), 5)
    assert dobrushin_variation(scan, weights, influence.toarray()) == dobrushin_variation(scan, weights, influence)
    assert dobrushin_variation(scan, weights, sparse.csc_array(influence)) == dobrushin_variation(scan, weights, influence)


def test_curve_keeps_relative_accuracy_after_long_decay():
    # d = 1 on a 10 x 10 grid: the variation falls from 100 to ~1e-38; every curve entry must still agree with a
    # direct forward computation of that prefix (a running sum of increments would be off by ~1e-16 * 100).
    rng = np.random.default_rng(6)
    influence = grid_influence(10, 10, rng)
    weights = np.ones(100)
    scan = systematic_scan(100, 8000)
    lengths = [1000, 4000, 7999, 8000]
    curve = dobrushin_variation_curve(scan, weights, influence, lengths=lengths)
    assert curve[-1] < 1e-35
    for value, length in zip(curve, lengths):
        assert value == pytest.approx(dobrushin_variation(scan.prefix(length), weights, influence), rel=1e-12)


def test_variation_on_the_million_variable_grid():
    # DoGS §5.2 setting: 1000 x 1000 grid, d = e_1, systematic scan of length 2e6.
    rng = np.random.default_rng(7)
    influence = grid_influence(1000, 1000, rng)
    weights = np.zeros(10**6)
    weights[0] = 1.0
    scan = systematic_scan(10**6, 2 * 10**6)
    value = dobrushin_variation(scan, weights, influence)  # speed: measured by dogs.benchmarks.dogs
    assert 0 < value < 1


def _binary_pairwise_total(values):
    """Root of the binary pairwise-sum tree over ``values`` padded with zeros to a power of two (plain Python)."""
    size = 1
    while size < len(values):
        size *= 2
    level = [float(v) for v in values] + [0.0] * (size - len(values))
    while len(level) > 1:
        level = [level[k] + level[k + 1] for k in range(0, len(level), 2)]
    return level[0]


@pytest.mark.parametrize("n", [1, 5, 8, 9, 20, 64, 65, 300, 4097])
def test_eight_ary_sum_tree_is_the_binary_pairwise_tree_bit_for_bit(n):
    rng = np.random.default_rng(n)
    values = rng.random(n) * 10.0 ** rng.integers(-30, 30, n)  # a wide dynamic range makes order visible
    offsets = tree_offsets(n)
    tree = np.zeros(offsets[-1])
    tree_build(tree, offsets, values)
    assert tree_total(tree, offsets) == _binary_pairwise_total(values)
    for _ in range(50):
        leaf = int(rng.integers(n))
        values[leaf] = rng.random() * 10.0 ** rng.integers(-30, 30)
        tree_set(tree, offsets, leaf, values[leaf])
        assert tree_total(tree, offsets) == _binary_pairwise_total(values)


# ----------------------------------------------------------------------------- bad input
@pytest.fixture
def small():
    rng = np.random.default_rng(8)
    return systematic_scan(4, 6), np.ones(4), random_influence(rng, 4, 0.6, 0.8)


@pytest.mark.parametrize("fn", [dobrushin_variation, dobrushin_variation_curve])
def test_bad_weights(fn, small):
    scan, weights, influence = small
    with pytest.raises(ValueError, match="weights"):
        fn(scan, np.ones(3), influence)
    with pytest.raises(ValueError, match="weights"):
        fn(scan, -np.ones(4), influence)
    with pytest.raises(ValueError, match="weights"):
        fn(scan, np.array([1.0, np.nan, 1.0, 1.0]), influence)
    with pytest.raises(ValueError, match="weights"):
        fn(scan, np.ones((2, 2)), influence)
    with pytest.raises(TypeError, match="weights"):
        fn(scan, None, influence)
    with pytest.raises(TypeError, match="weights"):
        fn(scan, np.array(["a"] * 4), influence)


@pytest.mark.parametrize("fn", [dobrushin_variation, dobrushin_variation_curve])
def test_bad_influence(fn, small):
    scan, weights, influence = small
    with pytest.raises(ValueError, match="influence"):
        fn(scan, weights, sparse.csr_matrix((5, 5)))  # other n_vars than the scan
    with pytest.raises(ValueError, match="influence"):
        fn(scan, weights, np.zeros((4, 3)))
    with pytest.raises(ValueError, match="influence"):
        fn(scan, weights, np.zeros(4))
    negative = influence.toarray()
    negative[0, 1] = -0.1
    with pytest.raises(ValueError, match="influence"):
        fn(scan, weights, negative)
    diagonal = influence.toarray()
    diagonal[2, 2] = 0.1
    with pytest.raises(ValueError, match="influence.*diagonal"):
        fn(scan, weights, diagonal)
    infinite = influence.toarray()
    infinite[0, 1] = np.inf
    with pytest.raises(ValueError, match="influence"):
        fn(scan, weights, infinite)
    with pytest.raises(TypeError, match="influence"):
        fn(scan, weights, "not a matrix")


@pytest.mark.parametrize("fn", [dobrushin_variation, dobrushin_variation_curve])
def test_bad_scan(fn, small):
    _, weights, influence = small
    with pytest.raises(TypeError, match="scan"):
        fn(np.arange(4), weights, influence)
    with pytest.raises(ValueError, match="n_vars"):
        fn(systematic_scan(5, 6), np.ones(5), influence)


def test_bad_lengths(small):
    scan, weights, influence = small
    with pytest.raises(ValueError, match="lengths"):
        dobrushin_variation_curve(scan, weights, influence, lengths=[7])
    with pytest.raises(ValueError, match="lengths"):
        dobrushin_variation_curve(scan, weights, influence, lengths=[-1])
    with pytest.raises(TypeError, match="lengths"):
        dobrushin_variation_curve(scan, weights, influence, lengths=[1.5])
    with pytest.raises(ValueError, match="lengths"):
        uniform_variation_curve(4, [-3], weights, influence)
    with pytest.raises(ValueError, match="n_vars"):
        uniform_variation_curve(0, [1], weights, influence)
    with pytest.raises(ValueError, match="influence"):
        uniform_variation_curve(5, [1], np.ones(5), influence)


@pytest.mark.parametrize("torus, coupling", [(True, 0.25), (False, float(np.arctanh(0.25))), (True, 0.165)])
def test_the_systematic_scan_ending_on_the_target_is_its_best_phase(torus, coupling):
    """The fair systematic baseline for a marginal at budget T: of all p phases of the row-major scan, the one
    whose last step updates the target has the smallest Dobrushin variation (8x8 grids, the couplings of DoGS
    §5.4 and §5.6, T below, at and between multiples of p); the paper's phase equals it at multiples of p."""
    from dogs.bounds import influence_binary_pairwise
    from dogs.models import grid_model
    from dogs.scans.base import paper_systematic_scan, systematic_scan_ending_on

    model = grid_model(8, 8, coupling=coupling, torus=torus)
    influence, p = influence_binary_pairwise(model), model.n_vars
    for target in (0, 27):
        weights = np.eye(p)[target]
        for length in (5, 40, 64, 100, 128, 190):
            aligned = systematic_scan_ending_on(p, length, target)
            assert aligned.indices[-1] == target and np.all(np.diff(aligned.indices) % p == 1)
            by_phase = [dobrushin_variation(Scan((np.arange(length) + shift) % p, p), weights, influence)
                        for shift in range(p)]
            assert dobrushin_variation(aligned, weights, influence) == pytest.approx(min(by_phase), rel=1e-12)
    assert np.array_equal(systematic_scan_ending_on(p, 2 * p, 0).indices, paper_systematic_scan(p, 2 * p).indices)
    with pytest.raises(ValueError, match="target"):
        systematic_scan_ending_on(p, 10, p)
