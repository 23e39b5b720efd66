"""Annular augmentation samplers (AAG, AAS, AAST): invariance, exact transitions, RB estimates, kernel vs plain Python.

Statistical tests and their false-failure rate
----------------------------------------------
Every statistical test below rejects at ``PER_TEST_ALPHA = 1e-3 / N_STATISTICAL_TESTS`` (Bonferroni),
so the probability that a correct implementation fails *any* of them is at most ``1e-3`` for this
file (up to the normal approximation in the z-tests). The ``N_STATISTICAL_TESTS = 102`` tests are:

- ``test_leaves_target_invariant``: 3 operators x 2 priors x 2 (RB on/off, independent seeds) x
  5 targets = 60 chi-square tests on 2000 final states after 3 iterations from exact draws;
- ``test_rao_blackwell_marginals_unbiased``: 3 operators x 2 priors x 5 targets = 30 tests; each
  compares every RB node marginal and edge-table cell, averaged over 2000 stationary chains of 10
  iterations, with the exact value: within ``z`` across-chain standard errors, ``z`` from a further
  Bonferroni split of ``PER_TEST_ALPHA`` over the quantities of the test (``z`` about 5.1-5.3);
- ``test_rao_blackwell_log_ratio_unbiased``: 3 operators x 2 priors x 2 targets = 12 z-tests of the
  mean over 2000 stationary chains of ``exp(log_ratio)`` (unbiased for ``E_p[exp q]``) against the
  exact ratio by enumeration.

Everything else is deterministic: the kernel replayed bit for bit by a plain-Python reference on the
same uniforms, exact invariance of the lattice transition matrices (all permutations enumerated),
Suwa-Todo balance, validation, reproducibility and work counts.

Seeds were fixed before the tests were first run and never changed to make a test pass.
"""

from __future__ import annotations

import itertools
import math
import zlib

import numpy as np
import pytest
from scipy import stats

from binary_targets import chi_square_pvalue, exact_distribution, exact_draws, exact_edge_tables, exact_node_marginals, small_models
from dogs._kernels.annular import MAX_TIE_TOLERANCE, annular_chain, suwa_todo_choice, suwa_todo_flows
from dogs._kernels.rng import next_uniform, seed_state, uniform_stream
from dogs.models import BinaryPairwiseMRF
from dogs.samplers.annular import OPERATORS, annular_sampler, model_arrays, prior_arrays
from dogs.samplers.base import Work, chain_seeds
from dogs.samplers.binary import BinaryChainResult, empirical_edge_tables, empirical_node_marginals, log_mean_exp_quadratic

N_STATISTICAL_TESTS = 60 + 30 + 12
PER_TEST_ALPHA = 1e-3 / N_STATISTICAL_TESTS
N_CHAINS = 2000
MODELS = small_models()
TARGETS = sorted(MODELS)  # bimodal_2x4, chain_with_fields, dense_mixed_signs, frustrated_triangle, torus_3x3_biased
OPERATOR_NAMES = ("gibbs", "slice", "suwa_todo")
PRIORS = ("uniform", "mean_field")
FALLBACK = 1e-5


def _seed(*parts) -> int:
    """A fixed seed per test case (CRC-32 of its name)."""
    return zlib.crc32("/".join(str(p) for p in parts).encode())


def imperfect_prior(model: BinaryPairwiseMRF) -> np.ndarray:
    """A deliberately imperfect mean-field prior: exact marginals stretched and shifted, kept in [0.05, 0.95]."""
    return np.clip(0.5 + 1.3 * (exact_node_marginals(model) - 0.5) + 0.1, 0.05, 0.95)


def _prior(kind: str, model):
    return None if kind == "uniform" else imperfect_prior(model)


def _delta_form(model: BinaryPairwiseMRF) -> BinaryPairwiseMRF:
    """A second quadratic form q on a different graph (a ring plus one chord) with fields; fixed numbers."""
    d = model.n_vars
    rng = np.random.default_rng(20170801 + d)
    edges = [[i, (i + 1) % d] for i in range(d - 1)] + ([[0, d - 1]] if d > 2 else [])
    if d > 3:
        edges.append([0, 2])
    edges = sorted({tuple(sorted(e)) for e in edges})
    return BinaryPairwiseMRF(edges, rng.uniform(-0.3, 0.3, size=len(edges)), rng.uniform(-0.2, 0.2, size=d))


def _exact_log_ratio(model, delta) -> float:
    states, p = exact_distribution(model)
    q = delta.log_potential(states.astype(np.float64))
    top = q.max()
    return float(top + np.log(p @ np.exp(q - top)))


# ------------------------------------------------------------------ plain-Python references
class _Stream:
    """The uniforms of a kernel seed, read in order; counts how many were used."""

    def __init__(self, kernel_seed, n):
        self.values = [float(u) for u in uniform_stream(np.uint64(kernel_seed), n)]
        self.used = 0

    def __call__(self):
        value = self.values[self.used]
        self.used += 1
        return value


def reference_thresholds(d, prior, spins, perm, u):
    """Operator 1: ``(flip order, arc lengths in turns)``; ``perm`` (lattice) is shuffled in place.

    Lattice: Fisher-Yates (``i = d-1..1``, ``j = int(u (i+1))``), flips ``perm + perm``, arcs ``1/(2d)``.
    Stretched: first flip of ``i`` at ``p̂_i(s_i) u_i``, second ``p̂_i(-s_i)`` later; positions sorted
    (ties by index, first flips before second flips); the arc of point ``k >= 1`` ends at position ``k``,
    the arc of point 0 wraps through 0.
    """
    n = 2 * d
    if prior is None:
        for i in range(d - 1, 0, -1):
            j = int(u() * (i + 1))
            perm[i], perm[j] = perm[j], perm[i]
        return list(perm) + list(perm), [1.0 / n] * n
    plus = [float(p) for p in prior]
    events = []
    for i in range(d):
        keep = plus[i] if spins[i] == 1 else 1.0 - plus[i]
        other = 1.0 - plus[i] if spins[i] == 1 else plus[i]
        alpha = keep * u()
        events.append((alpha, i, i))
        events.append((alpha + other, d + i, i))
    events.sort()
    positions = [e[0] for e in events]
    arcs = [positions[0] + (1.0 - positions[-1])] + [positions[k] - positions[k - 1] for k in range(1, n)]
    return [e[2] for e in events], arcs


def reference_points(model, prior, spins, flips):
    """The ``2d`` annulus points (full states) and their ``log L = log f - log p̂`` from scratch (no increments)."""
    points = [np.array(spins, dtype=np.int64)]
    for k in range(len(flips) - 1):
        nxt = points[-1].copy()
        nxt[flips[k]] = -nxt[flips[k]]
        points.append(nxt)
    points = np.array(points)
    log_l = model.log_potential(points.astype(np.float64))
    if prior is not None:
        plus = np.asarray(prior, dtype=np.float64)
        log_l = log_l - np.where(points == 1, np.log(plus), np.log(1.0 - plus)).sum(axis=1)
    return points, log_l


def st_flows_reference(w, current):
    """Suwa-Todo flows out of ``current`` (annulus indexing), the formula with 1-based rotated positions.

    Rotation start: the first index whose weight is within ``MAX_TIE_TOLERANCE`` of the maximum.
    """
    n = len(w)
    top = max(w)
    start = next(k for k in range(n) if w[k] >= top * (1.0 - MAX_TIE_TOLERANCE))
    rot = [w[(start + r) % n] for r in range(n)]  # rot[r - 1] is w_r of the formula
    S = [0.0] * (n + 1)
    for r in range(1, n + 1):
        S[r] = S[r - 1] + rot[r - 1]
    S[0] = S[n]
    i = (current - start) % n + 1
    flows = [0.0] * n
    for j in range(1, n + 1):
        delta = S[i] - S[j - 1] + rot[0]
        v = max(0.0, min(delta, rot[i - 1] + rot[j - 1] - delta, rot[i - 1], rot[j - 1]))
        flows[(start + j - 1) % n] = v
    return flows, start


def operator2_probabilities(log_l, arcs, operator, fallback, level=None):
    """Move probabilities from point 0 and the RB weights ``r`` (both normalised), and whether ST fell back.

    Gibbs: ``∝ arc × exp(log L)``. Slice (given the level): ``∝ arc`` on ``log L >= level``. Suwa-Todo:
    the flows out of 0 over ``w_0``, or the Gibbs probabilities when ``w_0 / sum w <= fallback``; RB
    weights: Gibbs (Gibbs, Suwa-Todo) or the slice probabilities.
    """
    log_l = np.asarray(log_l, dtype=np.float64)
    arcs = np.asarray(arcs, dtype=np.float64)
    gibbs = arcs * np.exp(log_l - log_l.max())
    gibbs = gibbs / gibbs.sum()
    if operator == "gibbs":
        return gibbs, gibbs, False
    if operator == "slice":
        sl = np.where(log_l >= level, arcs, 0.0)
        sl = sl / sl.sum()
        return sl, sl, False
    if gibbs[0] <= fallback:
        return gibbs, gibbs, True
    flows, _ = st_flows_reference(list(gibbs), 0)
    flows = np.array(flows)
    return flows / flows.sum(), gibbs, False


def _choose_reference(weights, order, u):
    """First index (in ``order``) whose running weight sum exceeds ``u × total``; else the last positive."""
    total = sum(weights[k] for k in order)
    target, running, last = u * total, 0.0, None
    for k in order:
        running += weights[k]
        if weights[k] > 0:
            last = k
        if target < running:
            return k
    return last


def reference_chain(model, prior, operator, fallback, kernel_seed, initial, n_iterations, edges, delta):
    """One chain in plain Python on the uniform stream of ``kernel_seed`` (the kernel's contract).

    Per iteration: Operator 1 uniforms (``d - 1`` lattice / ``d`` stretched), the slice level
    ``log(1 - u) + log L(s_0)`` (slice only), the selection uniform. Returns a dict with the recorded
    states, the RB sums, the log-ratio accumulator, evaluations, uniforms used and fallback count.
    """
    d = model.n_vars
    n = 2 * d
    u = _Stream(kernel_seed, n_iterations * (d + 2) + 4)
    perm = list(range(d))
    spins = np.array(initial, dtype=np.int64)
    edges = np.asarray(edges).reshape(-1, 2)
    node_sum, edge_sum = np.zeros(d), np.zeros((len(edges), 2, 2))
    log_acc, samples, evaluations, fallbacks = -math.inf, [], 0, 0
    for _ in range(n_iterations):
        flips, arcs = reference_thresholds(d, prior, spins, perm, u)
        points, log_l = reference_points(model, prior, spins, flips)
        evaluations += n - 1
        level = None
        if operator == "slice":
            level = math.log(1.0 - u()) + log_l[0]
        move, rb, fell_back = operator2_probabilities(log_l, arcs, operator, fallback, level)
        fallbacks += fell_back
        select = u()
        if operator == "suwa_todo" and not fell_back:
            _, start = st_flows_reference(list(rb), 0)  # rb: the normalised interval weights
            chosen = _choose_reference(move, [(start + r) % n for r in range(n)], select)
        else:
            chosen = _choose_reference(move, range(n), select)
        node_sum += rb @ (points == 1)
        for e, (i, j) in enumerate(edges):
            for k in range(n):
                edge_sum[e, int(points[k, i] == 1), int(points[k, j] == 1)] += rb[k]
        if delta is not None:
            q = delta.log_potential(points.astype(np.float64))
            keep = rb > 0
            top = q[keep].max()
            log_acc = float(np.logaddexp(log_acc, top + np.log(np.sum(rb[keep] * np.exp(q[keep] - top)))))
        spins = points[chosen].copy()
        samples.append(spins.copy())
    return {
        "samples": np.array(samples, dtype=np.int8),
        "state": spins.astype(np.int8),
        "node_sum": node_sum,
        "edge_sum": edge_sum,
        "log_acc": log_acc,
        "evaluations": evaluations,
        "used": u.used,
        "fallbacks": fallbacks,
    }


def run_kernel(model, prior, operator, fallback, kernel_seed, initial, n_iterations, edges, delta):
    """The single-chain kernel with RB on; returns the same fields as :func:`reference_chain`."""
    d = model.n_vars
    prior_current, log_odds, lattice = prior_arrays(prior, d)
    spins = np.array(initial, dtype=np.int8)
    rng_state = seed_state(np.uint64(kernel_seed))
    samples = np.empty((n_iterations, d), dtype=np.int8)
    edges = np.ascontiguousarray(np.asarray(edges, dtype=np.int64).reshape(-1, 2))
    node_acc, edge_acc, log_acc = np.zeros(d), np.zeros((len(edges), 2, 2)), np.full(1, -np.inf)
    if delta is None:
        delta_arrays = (np.zeros(d + 1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(d))
    else:
        delta_arrays = model_arrays(delta)
    evaluations = annular_chain(
        model_arrays(model), (prior_current, log_odds, lattice), OPERATORS[operator], fallback,
        spins, rng_state, samples, True, edges, node_acc, edge_acc, delta is not None, delta_arrays, log_acc,
    )
    return {"samples": samples, "state": spins, "node_sum": node_acc, "edge_sum": edge_acc,
            "log_acc": float(log_acc[0]), "evaluations": int(evaluations), "rng_state": rng_state}


# ------------------------------------------------------------------ (d) kernel == plain-Python reference
def _strong_k4() -> BinaryPairwiseMRF:
    """Complete graph on 4 spins with strong couplings: normalised annulus weights fall below 1e-5 (ST fallback)."""
    return BinaryPairwiseMRF.dense(np.array([[0, 2.0, -1.5, 2.2], [2.0, 0, 1.8, -2.1], [-1.5, 1.8, 0, 2.4], [2.2, -2.1, 2.4, 0]]),
                                   [0.3, -0.2, 0.1, 0.4])


REPLAY_MODELS = {"chain_with_fields": MODELS["chain_with_fields"], "torus_3x3_biased": MODELS["torus_3x3_biased"],
                 "bimodal_2x4": MODELS["bimodal_2x4"], "strong_k4": _strong_k4()}


def _delta_on_model_graph(model: BinaryPairwiseMRF) -> BinaryPairwiseMRF:
    """A quadratic form q on the model's own neighbour lists (the kernel then walks both in one pass); fixed numbers."""
    rng = np.random.default_rng(20170802 + model.n_vars)
    return model.with_parameters(rng.uniform(-0.3, 0.3, size=model.n_edges), rng.uniform(-0.2, 0.2, size=model.n_vars))


@pytest.mark.parametrize("q_graph", ["other", "model"])
@pytest.mark.parametrize("operator", OPERATOR_NAMES)
@pytest.mark.parametrize("prior_kind", PRIORS)
@pytest.mark.parametrize("name", sorted(REPLAY_MODELS))
def test_kernel_matches_reference(operator, prior_kind, name, q_graph):
    model = REPLAY_MODELS[name]
    d = model.n_vars
    prior = _prior(prior_kind, model)
    rng = np.random.default_rng(_seed("replay", operator, prior_kind, name))
    edges = np.concatenate([model.edges, [[0, d - 1], [1, 1]]])  # model edges, a non-edge and a self-pair
    delta = _delta_form(model) if q_graph == "other" else _delta_on_model_graph(model)
    fallbacks = 0
    for chain in range(3):
        kernel_seed = int(rng.integers(0, 2**63))
        initial = rng.choice([-1, 1], size=d)
        want = reference_chain(model, prior, operator, FALLBACK, kernel_seed, initial, 25, edges, delta)
        got = run_kernel(model, prior, operator, FALLBACK, kernel_seed, initial, 25, edges, delta)
        np.testing.assert_array_equal(got["samples"], want["samples"])
        np.testing.assert_array_equal(got["state"], want["state"])
        np.testing.assert_allclose(got["node_sum"], want["node_sum"], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(got["edge_sum"], want["edge_sum"], rtol=1e-9, atol=1e-12)
        assert got["log_acc"] == pytest.approx(want["log_acc"], rel=1e-10, abs=1e-12)
        assert got["evaluations"] == want["evaluations"] == 25 * (2 * d - 1)
        advanced = seed_state(np.uint64(kernel_seed))  # the kernel consumed exactly the reference's uniforms
        for _ in range(want["used"]):
            next_uniform(advanced)
        np.testing.assert_array_equal(got["rng_state"], advanced)
        fallbacks += want["fallbacks"]
    if operator == "suwa_todo" and name == "strong_k4":
        assert fallbacks > 0  # the fallback path is exercised


def test_fused_flip_differences_equal_separate_ones():
    """The one-pass flip differences of the model and of q (same neighbour lists) are bit-identical to two passes."""
    from dogs._kernels.annular import _flip_deltas
    from dogs._kernels.metropolis import flip_delta

    rng = np.random.default_rng(_seed("fused-flip"))
    for model in (REPLAY_MODELS["strong_k4"], REPLAY_MODELS["torus_3x3_biased"]):
        delta = _delta_on_model_graph(model)
        arrays, delta_arrays = model_arrays(model), model_arrays(delta)
        for _ in range(20):
            spins = rng.choice(np.array([-1, 1], dtype=np.int8), size=model.n_vars)
            for i in range(model.n_vars):
                fused = _flip_deltas(*arrays, delta_arrays[2], delta_arrays[3], spins, i)
                assert fused == (flip_delta(*arrays, spins, i), flip_delta(*delta_arrays, spins, i))


def test_public_sampler_is_the_kernel_on_chain_seed():
    model = MODELS["torus_3x3_biased"]
    prior = imperfect_prior(model)
    initial = np.array([1, -1, 1, 1, -1, -1, 1, 1, -1])
    delta = _delta_form(model)
    for operator in OPERATOR_NAMES:
        result = annular_sampler(model, operator=operator, prior=prior, n_iterations=30, seed=123, initial_state=initial, delta=delta)
        want = reference_chain(model, prior, operator, FALLBACK, int(chain_seeds(123, 1)[0]), initial, 30, model.edges, delta)
        np.testing.assert_array_equal(result.samples, want["samples"])
        np.testing.assert_array_equal(result.state, want["state"])
        np.testing.assert_allclose(result.node_marginals, want["node_sum"] / 30, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(result.edge_tables, want["edge_sum"] / 30, rtol=1e-9, atol=1e-12)
        assert result.log_ratio == pytest.approx(want["log_acc"] - math.log(30), rel=1e-10, abs=1e-12)
        assert result.rao_blackwellised


# ------------------------------------------------------------------ Suwa-Todo move
def _st_matrix(w):
    n = len(w)
    return np.array([np.array(st_flows_reference(list(w), c)[0]) / w[c] for c in range(n)])


def test_suwa_todo_flows_balance_and_kernel():
    rng = np.random.default_rng(20100917)
    flows = np.empty(16)
    for trial in range(300):
        n = int(rng.integers(1, 17))
        w = rng.exponential(size=n) ** rng.uniform(0.2, 4.0)
        if trial % 3 == 0:
            w = rng.integers(1, 4, size=n).astype(float)  # many exact ties
        w = w / w.max()
        P = _st_matrix(w)
        np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
        np.testing.assert_allclose(w @ P, w, atol=1e-12)  # global balance: w-invariant
        assert np.all(P >= 0)
        for current in range(n):
            want, start = st_flows_reference(list(w), current)
            total = suwa_todo_flows(w, start, current, flows[:n])
            np.testing.assert_allclose(flows[:n], want, atol=1e-15)
            assert total == pytest.approx(w[current], abs=1e-12)
        # rejection is minimal when a largest weight is first: v_ii = max(0, 2 w_max - sum w) for the maximum
        i_max = int(np.argmax(w))
        assert P[i_max, i_max] * w[i_max] == pytest.approx(max(0.0, 2 * w.max() - w.sum()), abs=1e-12)


def test_suwa_todo_move_does_not_depend_on_which_tied_maximum_is_first():
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(2, 12))
        w = rng.integers(1, 4, size=n).astype(float)
        tied = np.flatnonzero(w == w.max())
        mats = []
        for start in tied:
            rows = []
            for c in range(n):
                f = np.empty(n)
                suwa_todo_flows(w, int(start), c, f)
                rows.append(f / w[c])
            mats.append(np.array(rows))
        for m in mats[1:]:
            np.testing.assert_allclose(m, mats[0], atol=1e-12)


def test_suwa_todo_choice_fallback():
    w = np.array([1e-7, 1.0, 0.5, 0.25])  # current weight / total < 1e-5: Gibbs probabilities
    flows = np.empty(4)
    total = w.sum()
    for u, want in ((0.0, 0), (0.5, 1), (0.8, 2), (0.99, 3)):
        assert suwa_todo_choice(w, 0, flows, u, 1e-5, total) == want
    # without the fallback: the flows out of 0, in the rotated order starting at the maximum (index 1)
    f, start = st_flows_reference(list(w), 0)
    assert start == 1
    order = [(start + r) % 4 for r in range(4)]
    for u in (0.0, 0.3, 0.7, 0.999):
        assert suwa_todo_choice(w, 0, flows, u, 0.0, total) == _choose_reference(f, order, u)


# ------------------------------------------------------------------ exact lattice transition matrices
def _state_index(state) -> int:
    return int(sum((1 << (len(state) - 1 - i)) for i, v in enumerate(state) if v == 1))


def _slice_probabilities_integrated(log_l, arcs):
    """Slice move from point 0 averaged exactly over the level ``v L(s_0)``, ``v`` uniform on (0, 1]."""
    rho = np.minimum(np.exp(log_l - log_l[0]), 1.0)  # point k is in the slice iff v <= rho_k
    cuts = np.unique(np.concatenate([[0.0], rho]))
    probs = np.zeros(len(log_l))
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        inside = rho >= hi
        probs += (hi - lo) * np.where(inside, arcs, 0.0) / np.sum(np.where(inside, arcs, 0.0))
    return probs


def lattice_transition_matrix(model, operator, fallback):
    """Exact one-iteration transition matrix of the lattice variant (all ``d!`` permutations)."""
    d = model.n_vars
    states, _ = exact_distribution(model)
    perms = list(itertools.permutations(range(d)))
    T = np.zeros((2**d, 2**d))
    arcs = np.full(2 * d, 1.0 / (2 * d))
    for s in states:
        row = _state_index(s)
        for perm in perms:
            points, log_l = reference_points(model, None, s, list(perm) + list(perm))
            if operator == "slice":
                move = _slice_probabilities_integrated(log_l, arcs)
            else:
                move, _, _ = operator2_probabilities(log_l, arcs, operator, fallback)
            for k, point in enumerate(points):
                T[row, _state_index(point)] += move[k] / len(perms)
    return T


@pytest.mark.parametrize("name", ["chain_with_fields", "frustrated_triangle", "strong_k4"])
@pytest.mark.parametrize("operator", OPERATOR_NAMES)
def test_lattice_transition_leaves_target_exactly_invariant(name, operator):
    model = REPLAY_MODELS.get(name) or MODELS[name]
    _, p = exact_distribution(model)
    T = lattice_transition_matrix(model, operator, 0.0)
    np.testing.assert_allclose(T.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(p @ T, p, atol=1e-12)
    if operator == "suwa_todo":
        # the authors' fallback: invariant up to the weight of the points below the threshold
        d = model.n_vars
        Tf = lattice_transition_matrix(model, operator, FALLBACK)
        assert np.abs(p @ Tf - p).sum() <= 2 * (2 * d) * FALLBACK
        if name == "strong_k4":
            assert np.abs(p @ Tf - p).sum() > 1e-14  # ... and it does perturb it there


# ------------------------------------------------------------------ (a) invariance from exact draws
def _run_chains(model, operator, prior_kind, rb, seed, n_iterations, draws_seed, delta=None):
    draws = exact_draws(model, N_CHAINS, np.random.default_rng(draws_seed))
    return annular_sampler(model, operator=operator, prior=_prior(prior_kind, model), n_iterations=n_iterations,
                           seed=seed, initial_state=draws, rao_blackwell=rb, n_chains=N_CHAINS, delta=delta)


@pytest.mark.parametrize("rb", [True, False], ids=["rb", "plain"])
@pytest.mark.parametrize("operator", OPERATOR_NAMES)
@pytest.mark.parametrize("prior_kind", PRIORS)
@pytest.mark.parametrize("name", TARGETS)
def test_leaves_target_invariant(name, prior_kind, operator, rb):
    model = MODELS[name]
    results = _run_chains(model, operator, prior_kind, rb, _seed("inv", name, prior_kind, operator, rb), 3,
                          _seed("draws", name, prior_kind, operator, rb))
    finals = np.array([r.state for r in results])
    assert chi_square_pvalue(finals, model) >= PER_TEST_ALPHA


# ------------------------------------------------------------------ (b), (c) Rao-Blackwellised estimates
def _z(n_quantities: int) -> float:
    return float(stats.norm.isf(PER_TEST_ALPHA / (2 * n_quantities)))


@pytest.mark.parametrize("operator", OPERATOR_NAMES)
@pytest.mark.parametrize("prior_kind", PRIORS)
@pytest.mark.parametrize("name", TARGETS)
def test_rao_blackwell_marginals_unbiased(name, prior_kind, operator):
    model = MODELS[name]
    results = _run_chains(model, operator, prior_kind, True, _seed("rb", name, prior_kind, operator), 10,
                          _seed("rb-draws", name, prior_kind, operator))
    nodes = np.array([r.node_marginals for r in results])
    tables = np.array([r.edge_tables for r in results]).reshape(N_CHAINS, -1)
    estimates = np.concatenate([nodes, tables], axis=1)
    exact = np.concatenate([exact_node_marginals(model), exact_edge_tables(model, model.edges).ravel()])
    mean = estimates.mean(axis=0)
    se = estimates.std(axis=0, ddof=1) / math.sqrt(N_CHAINS)
    z = _z(len(exact))
    assert 4.5 < z < 6.0
    assert np.all(np.abs(mean - exact) <= z * se + 1e-9), np.max(np.abs(mean - exact) / (se + 1e-300))
    np.testing.assert_allclose(tables.reshape(N_CHAINS, -1, 4).sum(axis=2), 1.0, atol=1e-12)


@pytest.mark.parametrize("operator", OPERATOR_NAMES)
@pytest.mark.parametrize("prior_kind", PRIORS)
@pytest.mark.parametrize("name", ["dense_mixed_signs", "torus_3x3_biased"])
def test_rao_blackwell_log_ratio_unbiased(name, prior_kind, operator):
    model = MODELS[name]
    delta = _delta_form(model)
    results = _run_chains(model, operator, prior_kind, True, _seed("lr", name, prior_kind, operator), 10,
                          _seed("lr-draws", name, prior_kind, operator), delta=delta)
    ratios = np.exp([r.log_ratio for r in results])  # each unbiased for E_p[exp q] from a stationary start
    exact = math.exp(_exact_log_ratio(model, delta))
    se = ratios.std(ddof=1) / math.sqrt(N_CHAINS)
    assert abs(ratios.mean() - exact) <= _z(1) * se


# ------------------------------------------------------------------ plain estimates, reproducibility, work
def test_plain_estimates_and_chain_do_not_depend_on_rao_blackwell():
    model = MODELS["dense_mixed_signs"]
    delta = _delta_form(model)
    edges = [[0, 3], [2, 5]]
    for operator in OPERATOR_NAMES:
        for prior in (None, imperfect_prior(model)):
            kwargs = dict(operator=operator, prior=prior, n_iterations=40, seed=99, initial_state=np.ones(6), edges=edges, delta=delta)
            rb = annular_sampler(model, rao_blackwell=True, **kwargs)
            plain = annular_sampler(model, rao_blackwell=False, **kwargs)
            np.testing.assert_array_equal(rb.samples, plain.samples)
            np.testing.assert_array_equal(rb.state, plain.state)
            assert not plain.rao_blackwellised and rb.rao_blackwellised
            np.testing.assert_array_equal(plain.node_marginals, empirical_node_marginals(plain.samples))
            np.testing.assert_array_equal(plain.edge_tables, empirical_edge_tables(plain.samples, edges))
            assert plain.log_ratio == log_mean_exp_quadratic(plain.samples, delta)
            np.testing.assert_array_equal(rb.edges, np.array(edges))
            assert rb.edge_tables.shape == (2, 2, 2)


def test_same_seed_same_result_and_chain_zero_is_the_single_chain():
    model = MODELS["torus_3x3_biased"]
    init = np.array([1, 1, -1, 1, -1, 1, -1, -1, 1])
    for operator in OPERATOR_NAMES:
        for prior in (None, imperfect_prior(model)):
            a = annular_sampler(model, operator=operator, prior=prior, n_iterations=50, seed=5, initial_state=init)
            b = annular_sampler(model, operator=operator, prior=prior, n_iterations=50, seed=np.random.SeedSequence(5), initial_state=init)
            c = annular_sampler(model, operator=operator, prior=prior, n_iterations=50, seed=6, initial_state=init)
            many = annular_sampler(model, operator=operator, prior=prior, n_iterations=50, seed=5, initial_state=init, n_chains=3)
            np.testing.assert_array_equal(a.samples, b.samples)
            np.testing.assert_array_equal(a.node_marginals, b.node_marginals)
            assert not np.array_equal(a.samples, c.samples)
            assert isinstance(many, list) and len(many) == 3
            np.testing.assert_array_equal(many[0].samples, a.samples)
            np.testing.assert_array_equal(many[0].node_marginals, a.node_marginals)
            assert not np.array_equal(many[1].samples, many[2].samples)
    # a Generator seed is advanced, so two calls differ
    gen = np.random.default_rng(1)
    x = annular_sampler(model, n_iterations=20, seed=gen, initial_state=init)
    y = annular_sampler(model, n_iterations=20, seed=gen, initial_state=init)
    assert not np.array_equal(x.samples, y.samples)


def test_work_counts_and_result_shape():
    model = MODELS["bimodal_2x4"]
    for operator in OPERATOR_NAMES:
        for prior in (None, imperfect_prior(model)):
            r = annular_sampler(model, operator=operator, prior=prior, n_iterations=17, seed=3, initial_state=-np.ones(8))
            assert isinstance(r, BinaryChainResult)
            assert r.work == Work(site_updates=2 * 8 * 17, density_evaluations=(2 * 8 - 1) * 17)
            assert r.samples.shape == (17, 8) and r.samples.dtype == np.int8
            assert r.state.dtype == np.int8 and r.states.shape == (1, 8)
            np.testing.assert_array_equal(r.state, r.samples[-1])
            assert r.log_ratio is None
            assert r.edge_tables.shape == (model.n_edges, 2, 2)
    single = BinaryPairwiseMRF(np.zeros((0, 2), dtype=int), np.zeros(0), [0.3])  # d = 1: the annulus is {s, -s}
    r = annular_sampler(single, n_iterations=5, seed=0, initial_state=[1])
    assert r.work == Work(10, 5)


def test_zero_field_lattice_rb_marginals_are_exactly_symmetric():
    """With h = 0 every lattice annulus holds s and -s with equal weight: RB node marginals are 1/2 (paper §2.4)."""
    model = MODELS["bimodal_2x4"]
    for operator in ("gibbs", "suwa_todo"):
        r = annular_sampler(model, operator=operator, n_iterations=200, seed=11, initial_state=np.ones(8))
        np.testing.assert_allclose(r.node_marginals, 0.5, atol=1e-12)


# ------------------------------------------------------------------ (e) validation
def _call(model=None, **overrides):
    kwargs = dict(operator="gibbs", prior=None, n_iterations=5, seed=0, initial_state=np.ones(4))
    kwargs.update(overrides)
    return annular_sampler(MODELS["chain_with_fields"] if model is None else model, **kwargs)


@pytest.mark.parametrize("overrides, error, match", [
    (dict(model="not a model"), TypeError, "model"),
    (dict(operator="metropolis"), ValueError, "operator"),
    (dict(operator=1), TypeError, "operator"),
    (dict(prior=np.full(3, 0.5)), ValueError, "prior"),
    (dict(prior=np.array([0.5, 0.5, 1.0, 0.5])), ValueError, "prior"),
    (dict(prior=np.array([0.5, 0.0, 0.5, 0.5])), ValueError, "prior"),
    (dict(prior=np.array([0.5, np.nan, 0.5, 0.5])), ValueError, "prior"),
    (dict(prior=np.array([True, False, True, True])), TypeError, "prior"),
    (dict(prior=["a", "b", "c", "d"]), TypeError, "prior"),
    (dict(n_iterations=0), ValueError, "n_iterations"),
    (dict(n_iterations=2.0), TypeError, "n_iterations"),
    (dict(n_iterations=True), TypeError, "n_iterations"),
    (dict(seed=-1), ValueError, "seed"),
    (dict(seed="x"), TypeError, "seed"),
    (dict(initial_state=None), TypeError, "initial_state"),
    (dict(initial_state=np.ones(3)), ValueError, "initial_state"),
    (dict(initial_state=np.array([1, 0, 1, 1])), ValueError, "initial_state"),
    (dict(initial_state=np.ones(4, dtype=bool)), TypeError, "initial_state"),
    (dict(initial_state=np.ones((2, 4))), ValueError, "initial_state"),
    (dict(edges=[[0, 4]]), ValueError, "edges"),
    (dict(edges=[0, 1, 2]), ValueError, "edges"),
    (dict(edges=[[0.0, 1.0]]), TypeError, "edges"),
    (dict(rao_blackwell="yes"), TypeError, "rao_blackwell"),
    (dict(delta="q"), TypeError, "delta"),
    (dict(delta=BinaryPairwiseMRF([[0, 1]], [0.1], [0.0, 0.0, 0.0])), ValueError, "delta"),
    (dict(n_chains=0), ValueError, "n_chains"),
    (dict(n_chains=2.5), TypeError, "n_chains"),
    (dict(n_chains=2, initial_state=np.ones((3, 4))), ValueError, "initial_state"),
    (dict(suwa_todo_fallback=1.0), ValueError, "suwa_todo_fallback"),
    (dict(suwa_todo_fallback=-0.1), ValueError, "suwa_todo_fallback"),
    (dict(suwa_todo_fallback="0"), TypeError, "suwa_todo_fallback"),
])
def test_validation_errors(overrides, error, match):
    with pytest.raises(error, match=match):
        _call(**overrides)


def test_validation_happens_before_sampling_and_accepts_good_variants():
    gen = np.random.default_rng(0)
    before = gen.bit_generator.state
    with pytest.raises(ValueError, match="suwa_todo_fallback"):
        _call(seed=gen, suwa_todo_fallback=2.0)
    assert gen.bit_generator.state == before  # the seed was not touched
    model = MODELS["chain_with_fields"]

    class Marginals:
        node_marginals = np.array([0.6, 0.4, 0.5, 0.7])

    r = _call(prior=Marginals(), edges=np.zeros((0, 2), dtype=int), n_chains=2, initial_state=[[1, -1, 1, -1], [1, 1, 1, 1]])
    assert len(r) == 2 and r[0].edge_tables.shape == (0, 2, 2)
    np.testing.assert_array_equal(r[0].samples.shape, (5, 4))
    r = _call(initial_state=np.array([1.0, -1.0, 1.0, 1.0]), n_chains=3)
    assert len(r) == 3 and model.n_vars == 4
