"""Independent sample points against wall-clock time (dogs.samplers.points; DoGS §5.2, Fig. 2 left).

What is checked: bad input fails before sampling with a message naming the argument; the same seed gives
the same points; the first point is ``run_gibbs``'s final state and point ``k`` is the ``(k+1)``-th
consecutive chain on one stream; the running estimate is the mean of the points and agrees with the exact
``E[X_target^T]`` on a 2x3 grid; the work counts follow the sampler contract; the budget stops the run.
Clock readings are never asserted beyond their order and the fake clock's values.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from dogs._kernels.gibbs import field_thresholds, gibbs_chain, seed_states
from dogs.models.binary import grid_model
from dogs.samplers.base import Work, chain_seeds
from dogs.samplers.gibbs import run_gibbs
from dogs.samplers.points import RESET_FULL, RESET_VISITED, SamplePointsResult, checkpoint_counts, sample_points
from dogs.scans.base import UNIFORM, explicit_scan, systematic_scan, uniform_scan


def _model(side=5, field=0.3, seed=0):
    rng = np.random.default_rng(seed)
    n_edges = 2 * side * (side - 1)
    return grid_model(side, side, rng.uniform(-0.6, 0.6, n_edges), field=rng.uniform(-field, field, side * side))


def _draw(model, scan, seed, n, **kwargs):
    return sample_points(model, scan, seed=seed, budget_seconds=None, max_points=n, keep_points=True, **kwargs)


# ---------------------------------------------------------------- validation
@pytest.mark.parametrize("change, error, words", [
    ({"model": "grid"}, TypeError, "model must be a BinaryPairwiseMRF"),
    ({"scan": [0, 1]}, TypeError, "scan must be a dogs.scans.Scan"),
    ({"scan": systematic_scan(9, 9)}, ValueError, "n_vars = 9"),
    ({"target": 25}, ValueError, "target must index a variable in [0, 25)"),
    ({"target": -1}, ValueError, "target must index"),
    ({"target": 1.0}, TypeError, "target must be an integer"),
    ({"budget_seconds": 0}, ValueError, "budget_seconds must be a finite number > 0"),
    ({"budget_seconds": math.inf}, ValueError, "budget_seconds must be a finite number > 0"),
    ({"budget_seconds": "1"}, TypeError, "budget_seconds must be a number"),
    ({"per_decade": 0}, ValueError, "per_decade must be >= 1"),
    ({"per_decade": 2.5}, TypeError, "per_decade must be an integer"),
    ({"max_points": 0}, ValueError, "max_points must be >= 1"),
    ({"budget_seconds": None, "max_points": None}, ValueError, "give budget_seconds or max_points"),
    ({"scan": uniform_scan(25, 10), "sparse_reset": True}, ValueError, "sparse_reset needs a deterministic scan"),
    ({"seed": -3}, ValueError, "seed must be a non-negative integer"),
    ({"seed": "seven"}, TypeError, "seed must be a non-negative int"),
    ({"clock": 3.0}, TypeError, "clock must be a callable"),
])
def test_bad_input_is_rejected_before_sampling(change, error, words):
    model = _model()
    calls = []

    def clock():
        calls.append(1)
        return 0.0

    args = {"model": model, "scan": systematic_scan(25, 50), "seed": 1, "target": 0, "budget_seconds": 1.0,
            "max_points": 10, "clock": clock, **change}
    with pytest.raises(error, match=words.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        sample_points(args.pop("model"), args.pop("scan"), **args)
    assert not calls, "the clock started: validation came after sampling began"


def test_checkpoint_counts_every_count_then_geometric():
    counts = checkpoint_counts(5, limit=10**4)
    np.testing.assert_array_equal(counts[:5], [1, 2, 3, 4, 5])
    assert np.all(np.diff(counts) > 0) and counts[-1] == 10**4
    ratios = counts[6:] / counts[5:-1]
    assert ratios.max() < 1.7
    assert checkpoint_counts(1, limit=1).tolist() == [1]
    with pytest.raises(ValueError, match="per_decade must be >= 1"):
        checkpoint_counts(0)
    with pytest.raises(ValueError, match="limit must be >= per_decade"):
        checkpoint_counts(10, limit=5)


# ---------------------------------------------------------------- reproducibility and the Gibbs stream
def test_same_seed_same_points_other_seed_other_points():
    model = _model(side=6)
    scan = systematic_scan(model.n_vars, 2 * model.n_vars)
    first = _draw(model, scan, np.random.SeedSequence(5), 3000, target=0, per_decade=4)
    again = _draw(model, scan, np.random.SeedSequence(5), 3000, target=0, per_decade=1)  # other batches, same stream
    other = _draw(model, scan, np.random.SeedSequence(6), 3000, target=0, per_decade=4)
    np.testing.assert_array_equal(again.points, first.points)
    assert again.seed == first.seed == chain_seeds(np.random.SeedSequence(5), 1)[0]
    assert not np.array_equal(other.points, first.points)


@pytest.mark.parametrize("sparse", [True, False])
def test_first_point_is_the_run_gibbs_final_state_for_every_target(sparse):
    model = _model()
    scan = explicit_scan(np.random.default_rng(1).integers(0, model.n_vars, 40), model.n_vars)
    reference = run_gibbs(model, scan, seed=np.random.SeedSequence(7), initial_state=1)
    got = [_draw(model, scan, np.random.SeedSequence(7), 1, target=v, sparse_reset=sparse).points[0]
           for v in range(model.n_vars)]
    np.testing.assert_array_equal(got, reference.states[0])
    assert _draw(model, scan, np.random.SeedSequence(7), 1, target=0).seed == reference.seeds[0]


@pytest.mark.parametrize("length, sparse", [(12, True), (12, False), (60, False)])
def test_point_k_is_the_k_th_consecutive_gibbs_chain_on_one_stream(length, sparse):
    """Point k consumes what the (k+1)-th gibbs_chain call from all +1 on the same stream consumes."""
    model = _model()
    scan = systematic_scan(model.n_vars, length) if length > model.n_vars else \
        explicit_scan(np.random.default_rng(2).integers(0, model.n_vars, length), model.n_vars)
    target = 6
    run = _draw(model, scan, 3, 200, target=target, sparse_reset=sparse)
    assert run.reset == (RESET_VISITED if sparse else RESET_FULL)

    state = seed_states(chain_seeds(3, 1))[0].copy()
    low, high = field_thresholds()
    empty = np.zeros(0, dtype=np.int64)
    reference = []
    for _ in range(200):
        chain = np.ones(model.n_vars, dtype=np.int8)
        csr = (model.indptr, model.neighbors, model.coupling.view(np.uint64))  # the other layout than the points'
        gibbs_chain(csr, model.h, scan.indices, chain, state, low, high, empty, empty, np.zeros((0, 0), dtype=np.int8))
        reference.append(chain[target])
    np.testing.assert_array_equal(run.points, reference)
    assert len(set(run.points.tolist())) == 2  # both spins occur: the comparison is not vacuous


# ---------------------------------------------------------------- the running estimate
def test_running_estimate_is_the_mean_of_the_points_drawn():
    model = _model(side=6)
    scan = systematic_scan(model.n_vars, 2 * model.n_vars)
    run = _draw(model, scan, np.random.SeedSequence(5), 3000, target=0, per_decade=4)
    assert isinstance(run, SamplePointsResult)
    assert run.points.size == run.n_points == 3000 and run.counts[-1] == 3000
    cumulative = np.cumsum(run.points.astype(np.int64))
    np.testing.assert_array_equal(run.sums, cumulative[run.counts - 1])
    np.testing.assert_allclose(run.estimates, cumulative[run.counts - 1] / run.counts)
    m = run.estimates
    np.testing.assert_allclose(run.std_errors, np.sqrt((1 - m * m) / np.maximum(run.counts - 1, 1)))
    np.testing.assert_array_equal(run.counts, np.append(checkpoint_counts(4)[checkpoint_counts(4) < 3000], 3000))
    assert np.all(np.diff(run.seconds) >= 0) and run.total_seconds == run.seconds[-1]
    assert run.reset == RESET_FULL  # a full sweep is not shorter than p: the whole state is reset


def _exact_mean_after_scan(model, scan, target):
    """E[X_target^T] from all +1, by pushing the law on {-1, +1}^p through every Gibbs step (tiny p)."""
    p = model.n_vars
    states = np.array(list(itertools.product([-1, 1], repeat=p)), dtype=np.int64)  # row s: spins of state s
    index = {tuple(s): k for k, s in enumerate(states)}
    field = np.asarray(model.h, dtype=np.float64)
    coupling = np.zeros((p, p))
    for i in range(p):
        for slot in range(model.indptr[i], model.indptr[i + 1]):
            coupling[i, model.neighbors[slot]] = model.coupling[slot]

    def site_kernel(i):
        kernel = np.zeros((states.shape[0], states.shape[0]))
        for k, s in enumerate(states):
            f = field[i] + coupling[i] @ s
            up = 1.0 / (1.0 + math.exp(-2.0 * f))
            for spin, prob in ((1, up), (-1, 1.0 - up)):
                t = s.copy()
                t[i] = spin
                kernel[k, index[tuple(t)]] += prob
        return kernel

    kernels = [site_kernel(i) for i in range(p)]
    uniform = sum(kernels) / p
    law = np.zeros(states.shape[0])
    law[index[(1,) * p]] = 1.0
    for i in scan.indices:
        law = law @ (uniform if i == UNIFORM else kernels[i])
    return float(law @ states[:, target])


@pytest.mark.parametrize("kind", ["systematic", "with uniform steps"])
def test_estimate_agrees_with_the_exact_mean_of_the_length_T_sampler(kind):
    """|m_hat - E[X^T]| <= 5 sd: a correct sampler fails this with probability < 1e-6 (normal approximation)."""
    rng = np.random.default_rng(11)
    model = grid_model(2, 3, rng.uniform(-0.8, 0.8, 7), field=rng.uniform(-0.5, 0.5, 6))
    indices = [1, 4, 2, 0, 5, 3] if kind == "systematic" else [1, UNIFORM, 4, UNIFORM, 0]
    scan = explicit_scan(indices, model.n_vars)
    target, n = 4, 200_000
    exact = _exact_mean_after_scan(model, scan, target)
    run = sample_points(model, scan, seed=2024, target=target, budget_seconds=None, max_points=n)
    sd = math.sqrt((1.0 - exact**2) / n)
    assert abs(exact) > 10 * sd, "the exact mean should be far from 0, so a sign or target mix-up would show"
    assert abs(run.estimates[-1] - exact) <= 5 * sd, (run.estimates[-1], exact, sd)


# ---------------------------------------------------------------- work and the budget
def test_work_is_points_times_scan_length():
    model = _model()
    scan = explicit_scan([3, 1, 4, 1, 5, 9, 2, 6], model.n_vars)
    run = sample_points(model, scan, seed=0, target=1, budget_seconds=None, max_points=1234)
    assert run.work == Work(site_updates=1234 * 8, density_evaluations=1234 * 8)
    timed = sample_points(model, scan, seed=0, target=1, budget_seconds=0.02)
    assert timed.work == Work(timed.n_points * 8, timed.n_points * 8) and timed.n_points > 0
    assert run_gibbs(model, scan, seed=0, n_chains=7).work == Work(7 * 8, 7 * 8)  # the same unit as run_gibbs


def test_budget_stops_the_run_at_the_measured_rate():
    """A fake clock that advances 1 s per reading: 1 point at t = 1; then 1 s per point leaves room for none
    more before 3.5 s, so one last point is drawn and the run stops."""
    ticks = itertools.count()
    run = sample_points(_model(), systematic_scan(25, 25), seed=0, target=0, budget_seconds=3.5,
                        clock=lambda: float(next(ticks)))
    assert run.counts.tolist() == [1, 2] and run.seconds.tolist() == [1.0, 3.0]


def test_a_real_clock_budget_ends_the_run():
    """With the real clock the run ends by its budget; how close it lands is the fake clock's test above (a real
    clock on a loaded machine gives no bound to assert)."""
    model = _model(side=6)
    run = sample_points(model, explicit_scan([0, 1, 2], model.n_vars), seed=np.random.SeedSequence(0), target=0,
                        budget_seconds=0.05, per_decade=10)
    assert run.reset == RESET_VISITED  # a deterministic scan shorter than p resets only the visited sites
    assert run.n_points >= 1 and run.total_seconds > 0 and np.all(np.diff(run.counts) > 0)
