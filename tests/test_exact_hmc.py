"""Exact HMC for binary distributions: invariance, estimates, the kernel against a generic exact-flow reference.

Statistical tests and their false-failure rate
----------------------------------------------
Every statistical test rejects at ``PER_TEST_ALPHA = 1e-3 / N_STATISTICAL_TESTS`` (Bonferroni), so a
correct implementation fails any of them with probability at most ``1e-3`` for this file. The
``N_STATISTICAL_TESTS = 9`` tests are:

- ``test_exact_hmc_leaves_target_invariant``: 5 targets at the paper's travel time ``2.5 pi`` and 2
  targets at ``0.6 pi`` (shorter than one half-period, so some coordinates never reach a wall);
  chi-square on the final states of 2000 chains started from exact draws (spins exact, magnitudes
  half-normal: an exact draw of the augmented target);
- ``test_marginal_estimates_match_exact``: 1 (every one of the 9 node marginals and 72 edge cells,
  averaged over 400 independent chains, within ``z = 4.90`` standard errors: the per-test level split
  again over the 81 quantities; Student-t / normal approximation over chains);
- ``test_normal_draws_are_standard_normal``: 1 (Kolmogorov-Smirnov on 200 000 Box-Muller draws).

Per test ``PER_TEST_ALPHA = 1.1e-4``. The invariance tests check the spins only; the magnitudes the
kernel carries between trajectories are checked against the generic exact-flow reference.

Seeds were fixed before the tests were first run and never changed to make a test pass.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from binary_targets import (chi_square_pvalue, exact_draws, exact_edge_tables, exact_node_marginals, flip_delta_reference,
                            small_models)
from dogs._kernels.exact_hmc import exact_hmc_chain, normal_draws, order_by_key
from dogs._kernels.rng import next_uniform, seed_state, uniform_stream
from dogs.models import BinaryPairwiseMRF, grid_model
from dogs.samplers.base import Work, chain_seeds
from dogs.samplers.binary import BinaryChainResult, empirical_edge_tables, empirical_node_marginals, log_mean_exp_quadratic
from dogs.samplers.exact_hmc import exact_hmc

N_STATISTICAL_TESTS = 9
PER_TEST_ALPHA = 1e-3 / N_STATISTICAL_TESTS
N_CHAINS = 2000
MODELS = small_models()
TARGETS = sorted(MODELS)


# ------------------------------------------------------------------ plain-Python reference
class _Stream:
    def __init__(self, kernel_seed, n):
        self.values = [float(u) for u in uniform_stream(np.uint64(kernel_seed), n)]
        self.used = 0

    def __call__(self):
        value = self.values[self.used]
        self.used += 1
        return value


def _normals(u, n):
    """Box-Muller: ``r = sqrt(-2 log(1 - u1))``, ``(r cos 2 pi u2, r sin 2 pi u2)``; odd tail drops the sine."""
    out = []
    while len(out) < n:
        radius = math.sqrt(-2.0 * math.log1p(-u()))
        angle = 2.0 * math.pi * u()
        out.append(radius * math.cos(angle))
        if len(out) < n:
            out.append(radius * math.sin(angle))
    return out


def hmc_reference(model, kernel_seed, initial, n_samples, travel_time, magnitude=None):
    """Exact HMC by the generic event-driven flow, written independently of the kernel's shortcuts.

    Between walls every coordinate rotates, ``(y, v) <- (y cos t + v sin t, -y sin t + v cos t)``. The
    next wall of coordinate ``j`` is the smallest ``t > 0`` with ``y_j(t) = 0`` (``pi`` for the one that
    just hit); all coordinates move to the earliest wall; there ``e = v_j^2 + 2 Delta_j`` with
    ``Delta_j`` = log p after the wall minus log p before: cross (flip ``s_j``, ``|v_j| <- sqrt(e)``,
    same direction) if ``e > 0``, else reflect (``v_j <- -v_j``). Velocities are fresh Box-Muller
    normals per trajectory. Returns ``(samples, final signs, final y, hits)``.
    """
    d = model.n_vars
    u = _Stream(kernel_seed, 2 * d * (n_samples + 1) + 2)
    s = [int(v) for v in initial]
    if magnitude is None:
        y = [abs(z) * s[j] for j, z in enumerate(_normals(u, d))]
    else:
        y = [float(magnitude) * s[j] for j in range(d)]
    samples, hits = [], 0
    for _ in range(n_samples):
        v = _normals(u, d)
        elapsed, just_hit = 0.0, -1
        while True:
            wait, who = math.inf, -1
            for j in range(d):
                if j == just_hit:
                    t_j = math.pi
                else:
                    t_j = (-math.atan2(y[j], v[j])) % math.pi
                    if t_j == 0.0:
                        t_j = math.pi
                if t_j < wait:
                    wait, who = t_j, j
            step = min(wait, travel_time - elapsed)
            c, sn = math.cos(step), math.sin(step)
            y, v = [y[j] * c + v[j] * sn for j in range(d)], [-y[j] * sn + v[j] * c for j in range(d)]
            if elapsed + wait >= travel_time:
                break
            elapsed += wait
            y[who] = 0.0
            hits += 1
            energy = v[who] ** 2 + 2.0 * flip_delta_reference(model, s, who)
            if energy > 0.0:
                s[who] = -s[who]
                v[who] = math.copysign(math.sqrt(energy), v[who])
            else:
                v[who] = -v[who]
            just_hit = who
        samples.append(list(s))
    return np.array(samples, dtype=np.int8), np.array(s, dtype=np.int8), np.array(y), hits


def _reference_models():
    rng = np.random.default_rng(5151)
    grid = grid_model(4, 4, rng.normal(0.0, 0.6, size=24), rng.normal(0.0, 0.5, size=16))
    w = np.triu(rng.normal(0.0, 0.5, size=(7, 7)), 1)
    dense = BinaryPairwiseMRF.dense(w + w.T, rng.normal(0.0, 0.4, size=7))
    return {"grid_4x4": grid, "dense_7": dense, **{name: MODELS[name] for name in ("chain_with_fields", "bimodal_2x4")}}


REFERENCE_MODELS = _reference_models()


# ------------------------------------------------------------------ (d) kernel against the reference
@pytest.mark.parametrize("travel_time", [2.5 * math.pi, 0.6 * math.pi, 3.0])
@pytest.mark.parametrize("name", sorted(REFERENCE_MODELS))
def test_kernel_matches_generic_flow(name, travel_time):
    model = REFERENCE_MODELS[name]
    d = model.n_vars
    initial = np.random.default_rng(21).choice(np.array([-1, 1], dtype=np.int8), size=d)
    kernel_seed = chain_seeds(17, 1)[0]
    expected, expected_state, expected_y, expected_hits = hmc_reference(model, kernel_seed, initial, 60, travel_time)
    rng_state = seed_state(kernel_seed)
    position = np.empty(d)
    normal_draws(position, rng_state)
    position = np.abs(position) * initial
    spins, samples = initial.copy(), np.empty((60, d), dtype=np.int8)
    hits = exact_hmc_chain(model.indptr, model.neighbors, model.coupling, model.h, spins, position, rng_state, 60, travel_time, samples)
    np.testing.assert_array_equal(samples, expected)
    np.testing.assert_array_equal(spins, expected_state)
    assert hits == expected_hits
    np.testing.assert_allclose(np.abs(position), np.abs(expected_y), rtol=1e-8, atol=1e-10)
    assert np.all(np.sign(expected_y[np.abs(expected_y) > 1e-10]) == spins[np.abs(expected_y) > 1e-10])
    result = exact_hmc(model, n_samples=60, travel_time=travel_time, seed=17, initial_state=initial)
    np.testing.assert_array_equal(result.samples, expected)
    assert result.work == Work(expected_hits, expected_hits)


def test_kernel_matches_generic_flow_on_a_dense_model():
    """The kernel keeps the local fields across wall hits (updated after each crossing); the reference sums them
    afresh at every hit. On 40 fully connected variables (about 60 hits per trajectory), the same samples."""
    rng = np.random.default_rng(4545)
    w = np.triu(rng.normal(0.0, 0.3, size=(40, 40)), 1)
    model = BinaryPairwiseMRF.dense(w + w.T, rng.normal(0.0, 0.5, size=40))
    initial = np.random.default_rng(22).choice(np.array([-1, 1], dtype=np.int8), size=40)
    kernel_seed = chain_seeds(18, 1)[0]
    expected, expected_state, _, expected_hits = hmc_reference(model, kernel_seed, initial, 40, 1.5 * math.pi)
    result = exact_hmc(model, n_samples=40, travel_time=1.5 * math.pi, seed=18, initial_state=initial)
    np.testing.assert_array_equal(result.samples, expected)
    np.testing.assert_array_equal(result.state, expected_state)
    assert result.work == Work(expected_hits, expected_hits)
    assert (np.diff(expected.astype(int), axis=0) != 0).any(axis=1).mean() > 0.5  # the chain moves


@pytest.mark.parametrize("n", [1, 2, 6, 50, 1000])
def test_order_by_key_is_a_stable_argsort(n):
    """The kernel's hit order: ascending keys, ties by index, NaN last (numpy's stable argsort), whatever the buckets."""
    rng = np.random.default_rng(n)
    special = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e300, -1e300, 5e-324])
    for trial in range(40):
        keys = [rng.standard_cauchy(n), rng.integers(-3, 4, n).astype(float), rng.normal(0.0, 1e-300, n),
                np.where(rng.random(n) < 0.4, rng.choice(special, n), rng.standard_cauchy(n))][trial % 4]
        order = np.empty(n, dtype=np.int64)
        order_by_key(keys, order, np.empty(n), np.empty(n + 1, dtype=np.int64))
        np.testing.assert_array_equal(order, np.argsort(keys, kind="stable"))


def test_kernel_matches_generic_flow_from_unit_magnitudes():
    model = REFERENCE_MODELS["grid_4x4"]
    initial = np.ones(16, dtype=np.int8)
    expected, _, _, hits = hmc_reference(model, chain_seeds(3, 1)[0], initial, 40, 1.5 * math.pi, magnitude=1.0)
    result = exact_hmc(model, n_samples=40, travel_time=1.5 * math.pi, seed=3, initial_state=initial, initial_magnitude=1.0)
    np.testing.assert_array_equal(result.samples, expected)
    assert result.work == Work(hits, hits)


@pytest.mark.parametrize("n", [1, 6, 7])
def test_normal_draws_match_box_muller_reference(n):
    kernel_seed = chain_seeds(99, 1)[0]
    state = seed_state(kernel_seed)
    out = np.empty(n)
    normal_draws(out, state)
    u = _Stream(kernel_seed, n + 1)
    expected = _normals(u, n)
    np.testing.assert_array_equal(out, expected)
    advanced = seed_state(kernel_seed)
    for _ in range(u.used):
        next_uniform(advanced)
    np.testing.assert_array_equal(state, advanced)


def test_normal_draws_are_standard_normal():
    state = seed_state(np.uint64(2024))
    out = np.empty(200_000)
    normal_draws(out, state)
    assert stats.kstest(out, "norm").pvalue > PER_TEST_ALPHA


# ------------------------------------------------------------------ (a) invariance from exact starts
INVARIANCE_CASES = [(name, 2.5 * math.pi) for name in TARGETS] + [
    ("chain_with_fields", 0.6 * math.pi),
    ("dense_mixed_signs", 0.6 * math.pi),
]


@pytest.mark.parametrize("name, travel_time", INVARIANCE_CASES)
def test_exact_hmc_leaves_target_invariant(name, travel_time):
    model = MODELS[name]
    seed = 500 + INVARIANCE_CASES.index((name, travel_time))
    starts = exact_draws(model, N_CHAINS, np.random.default_rng(seed))
    children = np.random.SeedSequence(seed).spawn(N_CHAINS)
    finals = np.array([
        exact_hmc(model, n_samples=3, travel_time=travel_time, seed=child, initial_state=start).state
        for start, child in zip(starts, children)
    ])
    assert chi_square_pvalue(finals, model) > PER_TEST_ALPHA


# ------------------------------------------------------------------ (b) estimates over many chains
def test_marginal_estimates_match_exact():
    model = MODELS["torus_3x3_biased"]
    n_chains, n_samples = 400, 50
    starts = exact_draws(model, n_chains, np.random.default_rng(606))
    rows = []
    for start, child in zip(starts, np.random.SeedSequence(607).spawn(n_chains)):
        result = exact_hmc(model, n_samples=n_samples, seed=child, initial_state=start)
        rows.append(np.concatenate([result.node_marginals, result.edge_tables.ravel()]))
    estimates = np.array(rows)
    exact = np.concatenate([exact_node_marginals(model), exact_edge_tables(model, model.edges).ravel()])
    z = (estimates.mean(axis=0) - exact) / (estimates.std(axis=0, ddof=1) / math.sqrt(n_chains))
    limit = stats.t.isf(PER_TEST_ALPHA / (2 * exact.size), n_chains - 1)
    assert np.max(np.abs(z)) < limit, (np.max(np.abs(z)), limit)


# ------------------------------------------------------------------ (e) results, work, reproducibility, validation
def test_wall_hits_per_trajectory():
    """Each coordinate meets a wall every ``pi``: ``T = 2 pi`` gives exactly ``2d`` hits, ``2.5 pi`` between ``2d`` and ``3d``."""
    model = MODELS["torus_3x3_biased"]
    start = np.ones(9)
    assert exact_hmc(model, n_samples=50, travel_time=2.0 * math.pi, seed=1, initial_state=start).work == Work(900, 900)
    work = exact_hmc(model, n_samples=50, seed=1, initial_state=start).work
    assert work.site_updates == work.density_evaluations
    assert 900 <= work.site_updates <= 1350


def test_result_holds_plain_estimates_and_log_ratio():
    model = MODELS["torus_3x3_biased"]
    delta = BinaryPairwiseMRF(model.edges, -0.1, np.full(9, 0.05))
    pairs = np.array([[1, 5], [0, 8], [3, 3]])
    result = exact_hmc(model, n_samples=30, seed=2, initial_state=np.ones(9), edges=pairs, delta=delta)
    assert isinstance(result, BinaryChainResult) and not result.rao_blackwellised
    assert result.samples.shape == (30, 9) and result.samples.dtype == np.int8
    np.testing.assert_array_equal(result.state, result.samples[-1])
    np.testing.assert_array_equal(result.node_marginals, empirical_node_marginals(result.samples))
    np.testing.assert_array_equal(result.edge_tables, empirical_edge_tables(result.samples, pairs))
    assert result.log_ratio == log_mean_exp_quadratic(result.samples, delta)
    default = exact_hmc(model, n_samples=5, seed=2, initial_state=np.ones(9))
    np.testing.assert_array_equal(default.edges, model.edges)
    assert default.log_ratio is None


def test_same_seed_same_result_and_seed_kinds():
    model = MODELS["torus_3x3_biased"]
    start = np.array([1, -1, 1, -1, 1, -1, 1, -1, 1])
    a, b, c = (exact_hmc(model, n_samples=20, seed=s, initial_state=start) for s in (4, 4, 5))
    np.testing.assert_array_equal(a.samples, b.samples)
    assert a.work == b.work
    assert not np.array_equal(a.samples, c.samples)
    np.testing.assert_array_equal(exact_hmc(model, n_samples=20, seed=np.random.SeedSequence(4), initial_state=start).samples, a.samples)
    g1 = exact_hmc(model, n_samples=20, seed=np.random.default_rng(8), initial_state=start)
    g2 = exact_hmc(model, n_samples=20, seed=np.random.default_rng(8), initial_state=start)
    np.testing.assert_array_equal(g1.samples, g2.samples)
    np.testing.assert_array_equal(start, [1, -1, 1, -1, 1, -1, 1, -1, 1])  # the input is not modified


_MODEL = MODELS["chain_with_fields"]
_GOOD = dict(n_samples=3, seed=0, initial_state=np.ones(4))


@pytest.mark.parametrize(
    "change, error",
    [
        (dict(n_samples=0), ValueError),
        (dict(n_samples=1.0), TypeError),
        (dict(travel_time=0.0), ValueError),
        (dict(travel_time=-1.0), ValueError),
        (dict(travel_time=math.inf), ValueError),
        (dict(travel_time=math.nan), ValueError),
        (dict(travel_time="pi"), TypeError),
        (dict(travel_time=True), TypeError),
        (dict(seed=-3), ValueError),
        (dict(initial_state=np.zeros(4)), ValueError),
        (dict(initial_state=np.ones(3)), ValueError),
        (dict(initial_state=None), TypeError),
        (dict(edges=[[0, 9]]), ValueError),
        (dict(delta=3.0), TypeError),
        (dict(initial_magnitude=0.0), ValueError),
        (dict(initial_magnitude=-1.0), ValueError),
        (dict(initial_magnitude=np.ones(3)), ValueError),
        (dict(initial_magnitude=np.array([1.0, np.nan, 1.0, 1.0])), ValueError),
        (dict(initial_magnitude="one"), TypeError),
    ],
)
def test_bad_arguments_are_rejected(change, error):
    with pytest.raises(error):
        exact_hmc(_MODEL, **{**_GOOD, **change})
    with pytest.raises(TypeError):
        exact_hmc(_MODEL.to_discrete(), **_GOOD)
