"""DoGS Algorithm 2: the heap implementation against a dense transcription of the paper's pseudocode,
its guarantees (never worse than the input, early stopping, iteration, length doubling) and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

from dogs._kernels.dogs import heap_push, heap_remove, heap_update, heapify
from random_problems import random_influence, random_steps, random_weights
from dogs.scans.base import UNIFORM, Scan, explicit_scan, systematic_scan, uniform_scan
from dogs.scans.dogs import dogs_scan, iterated_dogs, length_doubling_dogs
from dogs.scans.variation import dobrushin_variation


def reference_dogs(steps, weights, influence, epsilon=None):
    r"""DoGS Algorithm 2 transcribed with dense numpy, O(p^2) per step.

    Forward: Delta_{t-1} = diag(q_t)(I - C) b, b <- b - Delta_{t-1}. Backward, t = T..1: stop if V <= eps;
    b <- b + Delta_{t-1}; w = -d_t ⊙ (I - C) b; q_t* = e_{argmin w}; V <- V + (q_t* - q_t)^T w (the paper's line
    reads ``d^T diag(q* - q) b``, which drops the factor -(I - C)); d^T <- d^T - d^T diag(q_t*)(I - C).
    Ties: w within 1e-12 of the minimum (rounding hides exact zeros here), then largest d_i, then smallest i.
    """
    c = influence.toarray()
    p = c.shape[0]
    eye = np.eye(p)
    m = eye - c
    qs = [np.full(p, 1.0 / p) if s == UNIFORM else eye[s] for s in steps]
    b = np.ones(p)
    deltas = []
    for q in qs:
        delta = q * (m @ b)
        deltas.append(delta)
        b = b - delta
    d = np.asarray(weights, dtype=float).copy()
    variation = input_variation = float(d @ b)
    out = np.array(steps, dtype=np.int64)
    stop = None
    for t in range(len(steps) - 1, -1, -1):
        if epsilon is not None and variation <= epsilon:
            stop = t + 1
            break
        b = b + deltas[t]
        w = -d * (m @ b)
        tol = 1e-12 * (1.0 + np.abs(w).max())
        tied = np.flatnonzero(w <= w.min() + tol)
        tied = tied[d[tied] == d[tied].max()]
        best = int(tied.min())
        out[t] = best
        variation = variation + float((eye[best] - qs[t]) @ w)
        d = d - d[best] * m[best]
    return out, variation, input_variation, stop


cases = st.fixed_dictionaries({
    "seed": st.integers(0, 2**32 - 1),
    "p": st.integers(1, 7),
    "length": st.integers(0, 24),
    "density": st.sampled_from([0.3, 0.6, 1.0]),
    "row_sum": st.sampled_from([0.6, 0.95, 1.4]),
    "scan_kind": st.sampled_from(["deterministic", "systematic", "uniform", "mixed"]),
    "weight_kind": st.sampled_from(["random", "basis", "ones"]),
    "stop_fraction": st.sampled_from([None, None, 0.9, 0.5, 0.1, 0.01]),
})


def build(case):
    rng = np.random.default_rng(case["seed"])
    p = case["p"]
    influence = random_influence(rng, p, case["density"], case["row_sum"])
    scan = Scan(random_steps(rng, p, case["length"], case["scan_kind"]), p)
    weights = random_weights(rng, p, case["weight_kind"])
    return scan, weights, influence


def close(a, b, scale):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b)) + 1e-12 * scale


# ----------------------------------------------------------------------------- heap vs dense reference
@settings(max_examples=300, deadline=None, derandomize=True)
@given(cases)
def test_heap_implementation_matches_dense_reference(case):
    scan, weights, influence = build(case)
    input_variation = dobrushin_variation(scan, weights, influence)
    epsilon = None if case["stop_fraction"] is None else case["stop_fraction"] * input_variation
    expected_steps, expected_variation, expected_input, expected_stop = reference_dogs(
        scan.indices, weights, influence, epsilon
    )
    result = dogs_scan(scan, weights, influence, epsilon=epsilon)
    np.testing.assert_array_equal(result.scan.indices, expected_steps)
    assert close(result.variation, expected_variation, weights.sum())
    assert close(result.input_variation, expected_input, weights.sum())
    assert result.early_stop_step == expected_stop


@settings(max_examples=200, deadline=None, derandomize=True)
@given(cases)
def test_shared_workspace_is_cleared_and_changes_nothing(case):
    """Runs sharing one work space (length doubling, iterated DoGS) give exactly what fresh runs give, and
    every zero-filled array is zero again after each run, with and without early stopping and uniform steps."""
    from dogs.scans.dogs import _run_dogs, _Workspace
    from dogs.scans.checks import as_influence

    scan, weights, influence = build(case)
    matrix = as_influence(influence, scan.n_vars)
    input_variation = dobrushin_variation(scan, weights, influence)
    epsilon = -np.inf if case["stop_fraction"] is None else case["stop_fraction"] * input_variation
    space = _Workspace(scan.n_vars)
    for steps in (scan.indices, scan.indices[: len(scan.indices) // 2], scan.indices):
        shared = _run_dogs(steps, scan.n_vars, weights, matrix, epsilon, 0.0, workspace=space)
        fresh = _run_dogs(steps, scan.n_vars, weights, matrix, epsilon, 0.0)
        np.testing.assert_array_equal(shared.scan.indices, fresh.scan.indices)
        assert (shared.variation, shared.input_variation, shared.early_stop_step) == \
            (fresh.variation, fresh.input_variation, fresh.early_stop_step)
        for name in ("b_set", "d", "w", "where", "tree"):
            assert not np.any(getattr(space, name)), name


@pytest.mark.parametrize("seed", range(6))
def test_sparse_weights_path_matches_dense_reference(seed):
    # ||d||_0 * 32 < p: the kernel builds the heap by inserting the support of d into an index-ordered heap.
    rng = np.random.default_rng(100 + seed)
    p = int(rng.integers(40, 90))
    influence = random_influence(rng, p, 0.08, float(rng.choice([0.8, 1.3])))
    weights = random_weights(rng, p, "basis")
    scan = Scan(random_steps(rng, p, 120, str(rng.choice(["deterministic", "systematic", "mixed"]))), p)
    expected_steps, expected_variation, _, _ = reference_dogs(scan.indices, weights, influence)
    result = dogs_scan(scan, weights, influence)
    np.testing.assert_array_equal(result.scan.indices, expected_steps)
    assert close(result.variation, expected_variation, weights.sum())


# ----------------------------------------------------------------------------- guarantees
big_cases = st.fixed_dictionaries({
    "seed": st.integers(0, 2**32 - 1),
    "p": st.integers(1, 40),
    "length": st.integers(0, 300),
    "density": st.sampled_from([0.05, 0.2, 0.5]),
    "row_sum": st.sampled_from([0.5, 0.9, 1.3]),
    "scan_kind": st.sampled_from(["deterministic", "systematic", "uniform", "mixed"]),
    "weight_kind": st.sampled_from(["random", "basis", "ones"]),
    "stop_fraction": st.sampled_from([None, 0.5, 0.05]),
})


@settings(max_examples=150, deadline=None, derandomize=True)
@given(big_cases)
def test_dogs_never_worse_than_its_input(case):
    scan, weights, influence = build(case)
    input_variation = dobrushin_variation(scan, weights, influence)
    epsilon = None if case["stop_fraction"] is None else case["stop_fraction"] * input_variation
    result = dogs_scan(scan, weights, influence, epsilon=epsilon)
    assert result.input_variation == pytest.approx(input_variation, rel=1e-12, abs=1e-300)
    assert result.variation <= result.input_variation * (1 + 1e-12)
    # the reported variation is the variation of the returned scan
    assert result.variation == pytest.approx(dobrushin_variation(result.scan, weights, influence), rel=1e-10, abs=1e-300)
    assert result.scan.n_vars == scan.n_vars and result.scan.length == scan.length
    optimised = result.scan.indices[result.early_stop_step or 0:]
    assert np.all(optimised >= 0)  # every optimised step is deterministic
    if result.early_stop_step is not None:
        assert result.variation <= epsilon
        np.testing.assert_array_equal(result.scan.indices[: result.early_stop_step], scan.indices[: result.early_stop_step])


def test_early_stopping_keeps_input_prefix_and_meets_epsilon():
    rng = np.random.default_rng(11)
    p = 30
    influence = random_influence(rng, p, 0.15, 0.8)
    weights = np.ones(p)
    scan = systematic_scan(p, 600)
    full = dogs_scan(scan, weights, influence)
    assert full.early_stop_step is None
    epsilon = full.input_variation * 0.3
    stopped = dogs_scan(scan, weights, influence, epsilon=epsilon)
    assert stopped.early_stop_step is not None and 0 < stopped.early_stop_step < scan.length
    assert full.variation <= stopped.variation <= epsilon
    np.testing.assert_array_equal(stopped.scan.indices[: stopped.early_stop_step], scan.indices[: stopped.early_stop_step])
    # the optimised suffixes agree: the two runs are identical until the stop
    np.testing.assert_array_equal(
        stopped.scan.indices[stopped.early_stop_step:], full.scan.indices[stopped.early_stop_step:]
    )
    # epsilon above the input variation: nothing changes
    untouched = dogs_scan(scan, weights, influence, epsilon=full.input_variation * 1.01)
    assert untouched.early_stop_step == scan.length
    np.testing.assert_array_equal(untouched.scan.indices, scan.indices)


def test_uniform_and_mixed_inputs():
    rng = np.random.default_rng(12)
    p = 8
    influence = random_influence(rng, p, 0.5, 0.9)
    weights = random_weights(rng, p, "random")
    for scan in (uniform_scan(p, 40), Scan(random_steps(rng, p, 40, "mixed"), p)):
        result = dogs_scan(scan, weights, influence)
        assert result.scan.is_deterministic
        assert result.variation <= result.input_variation
        stopped = dogs_scan(scan, weights, influence, epsilon=0.5 * result.input_variation)
        kept = stopped.scan.indices[: stopped.early_stop_step]
        np.testing.assert_array_equal(kept, scan.indices[: stopped.early_stop_step])


def test_ties_prefer_the_weighted_variable():
    # Chain 0 - 1 - 2, d = e_3 (index 2), input scan (e_3, e_2). At t = 2 the target has just been updated, so
    # every w_i = 0; the rule (w, -d, index) picks the target (smallest index would waste the step on variable 0).
    # Then d_1 = C[2, 1] e_2 and step 1 picks variable 1: scan (1, 2), V = C21 (C10 + C12) < C21 = input V.
    c10, c12, c21, c01 = 0.2, 0.3, 0.4, 0.25
    influence = sparse.csr_matrix(np.array([[0, c01, 0], [c10, 0, c12], [0, c21, 0]], dtype=float))
    weights = np.array([0.0, 0.0, 1.0])
    result = dogs_scan(explicit_scan([2, 1], 3), weights, influence)
    np.testing.assert_array_equal(result.scan.indices, [1, 2])
    assert result.input_variation == pytest.approx(c21)
    assert result.variation == pytest.approx(c21 * (c10 + c12))
    # exact ties among equal keys fall to the smallest index
    symmetric = sparse.csr_matrix(np.zeros((3, 3)))
    assert dogs_scan(explicit_scan([2], 3), np.ones(3), symmetric).scan.indices.tolist() == [0]


def test_heap_kernel_against_lexicographic_minimum():
    """Push, remove and update in random order; the heap always holds the present set in key order."""
    rng = np.random.default_rng(13)
    p = 200
    w = np.round(rng.normal(size=p), 1)  # many exact ties
    d = rng.choice([0.5, 1.0, 2.0], size=p)
    heap_var, heap_w, heap_d = np.empty(p, np.int64), np.empty(p), np.empty(p)
    where = np.zeros(p, np.int64)
    present = rng.random(p) < 0.5
    members = np.flatnonzero(present)
    heap_var[: members.size], heap_w[: members.size], heap_d[: members.size] = members, w[members], d[members]
    n = members.size
    heapify(heap_var, heap_w, heap_d, where, n)

    def check():
        inside = np.flatnonzero(present)
        assert n == inside.size
        np.testing.assert_array_equal(np.sort(heap_var[:n]), inside)
        np.testing.assert_array_equal(where[heap_var[:n]], np.arange(1, n + 1))
        assert np.all(where[~present] == 0)
        if n:
            expected = inside[np.lexsort((inside, -d[inside], w[inside]))[0]]
            assert heap_var[0] == expected
        np.testing.assert_array_equal(heap_w[:n], w[heap_var[:n]])
        np.testing.assert_array_equal(heap_d[:n], d[heap_var[:n]])
        for pos in range(1, n):
            parent = (pos - 1) // 2
            a, b = heap_var[parent], heap_var[pos]
            assert (w[a], -d[a], a) <= (w[b], -d[b], b)

    check()
    for _ in range(800):
        var = int(rng.integers(p))
        w[var] = np.round(rng.normal(), 1)
        d[var] = rng.choice([0.5, 1.0, 2.0])
        if present[var] and rng.random() < 0.3:
            n = heap_remove(heap_var, heap_w, heap_d, where, n, var)
            present[var] = False
        elif present[var]:
            heap_update(heap_var, heap_w, heap_d, where, n, var, w[var], d[var])
        else:
            n = heap_push(heap_var, heap_w, heap_d, where, n, var, w[var], d[var])
            present[var] = True
        check()


def test_iterated_dogs_is_non_increasing():
    rng = np.random.default_rng(14)
    p = 25
    influence = random_influence(rng, p, 0.2, 0.9)
    weights = random_weights(rng, p, "random")
    scan = systematic_scan(p, 200)
    result = iterated_dogs(scan, weights, influence, max_iterations=10)
    v = result.variations
    assert v[0] == pytest.approx(dobrushin_variation(scan, weights, influence), rel=1e-12)
    assert np.all(np.diff(v) <= 1e-12 * v[:-1])
    assert result.n_iterations == len(v) - 1
    assert result.variation == pytest.approx(v.min())
    assert result.variation == pytest.approx(dobrushin_variation(result.scan, weights, influence), rel=1e-10)
    assert result.variation <= dogs_scan(scan, weights, influence).variation
    if result.converged:
        assert v[-1] >= v[-2] * (1 - 1e-15)
    capped = iterated_dogs(scan, weights, influence, max_iterations=1)
    assert capped.n_iterations == 1 and len(capped.variations) == 2


def test_length_doubling_meets_epsilon():
    rng = np.random.default_rng(15)
    n = 12
    p = n * n
    influence = random_influence(rng, p, 0.03, 0.9)
    weights = np.zeros(p)
    weights[0] = 1.0
    scan = systematic_scan(p, 4 * p)
    epsilon = dobrushin_variation(scan, weights, influence)
    result = length_doubling_dogs(scan, weights, influence, epsilon)
    assert result.variation <= epsilon
    assert result.length == result.scan.length == result.lengths_tried[-1]
    np.testing.assert_array_equal(result.lengths_tried, 2 ** np.arange(1, len(result.lengths_tried) + 1))
    assert np.all(result.variations_tried[:-1] > epsilon)
    assert result.variation == pytest.approx(dobrushin_variation(result.scan, weights, influence), rel=1e-10)
    again = dogs_scan(scan.prefix(result.length), weights, influence, epsilon=epsilon)
    np.testing.assert_array_equal(again.scan.indices, result.scan.indices)
    started = length_doubling_dogs(scan, weights, influence, epsilon, start_length=3)
    assert started.lengths_tried[0] == 3 and started.variation <= epsilon


def test_length_doubling_errors_when_input_too_short():
    rng = np.random.default_rng(16)
    influence = random_influence(rng, 10, 0.3, 0.9)
    scan = systematic_scan(10, 20)
    with pytest.raises(ValueError, match="not even the whole input scan"):
        length_doubling_dogs(scan, np.ones(10), influence, epsilon=1e-12)


# ----------------------------------------------------------------------------- bad input
@pytest.fixture
def small():
    rng = np.random.default_rng(17)
    return systematic_scan(4, 8), np.ones(4), random_influence(rng, 4, 0.6, 0.8)


@pytest.mark.parametrize("fn", [dogs_scan, iterated_dogs])
def test_bad_input_dogs(fn, small):
    scan, weights, influence = small
    with pytest.raises(ValueError, match="weights"):
        fn(scan, np.ones(5), influence)
    with pytest.raises(ValueError, match="weights"):
        fn(scan, np.array([1.0, -1.0, 1.0, 1.0]), influence)
    with pytest.raises(ValueError, match="influence"):
        fn(scan, weights, np.zeros((5, 5)))
    with pytest.raises(ValueError, match="influence"):
        fn(scan, weights, -influence.toarray())
    with pytest.raises(ValueError, match="n_vars"):
        fn(systematic_scan(5, 8), np.ones(5), influence)
    with pytest.raises(TypeError, match="input_scan"):
        fn([0, 1, 2], weights, influence)
    with pytest.raises(ValueError, match="epsilon"):
        fn(scan, weights, influence, epsilon=-0.1)
    with pytest.raises(ValueError, match="epsilon"):
        fn(scan, weights, influence, epsilon=float("nan"))
    with pytest.raises(TypeError, match="epsilon"):
        fn(scan, weights, influence, epsilon="0.1")


def test_bad_input_iterated_and_doubling(small):
    scan, weights, influence = small
    with pytest.raises(ValueError, match="max_iterations"):
        iterated_dogs(scan, weights, influence, max_iterations=0)
    with pytest.raises(TypeError, match="max_iterations"):
        iterated_dogs(scan, weights, influence, max_iterations=2.5)
    with pytest.raises(ValueError, match="start_length"):
        length_doubling_dogs(scan, weights, influence, 0.1, start_length=0)
    with pytest.raises(ValueError, match="start_length"):
        length_doubling_dogs(scan, weights, influence, 0.1, start_length=9)
    with pytest.raises(TypeError, match="epsilon"):
        length_doubling_dogs(scan, weights, influence, None)
    with pytest.raises(ValueError, match="epsilon"):
        length_doubling_dogs(scan, weights, influence, -1.0)
    with pytest.raises(ValueError, match="weights"):
        length_doubling_dogs(scan, np.ones(3), influence, 0.1)
    with pytest.raises(ValueError, match="n_vars"):
        length_doubling_dogs(systematic_scan(5, 8), np.ones(5), influence, 0.1)
