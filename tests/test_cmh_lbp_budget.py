"""CMH + LBP with a budget of proposed flips (the authors' discrete-event form): kernel against plain Python,
the law of the recorded sequence against the step-by-step chain stopped at the same proposal, work and validation.

Statistical tests and their false-failure rate
----------------------------------------------
``test_budget_form_has_the_law_of_the_step_chain`` makes three two-sample chi-square tests (number of
recorded states, first recorded state, final state) between 3000 discrete-event runs and 3000 plain-Python
step-by-step runs stopped at their ``n``-th proposed flip; each rejects at ``1e-3 / 3``, so a correct
implementation fails this file with probability at most ``1e-3``. Seeds were fixed before the first run.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from binary_targets import flip_delta_reference, logit, proposed_flip_reference, small_models
from dogs._kernels.metropolis import cmh_lbp_proposals
from dogs._kernels.rng import seed_state, uniform_stream
from dogs.models import BinaryPairwiseMRF, grid_model
from dogs.samplers.base import Work, chain_seeds
from dogs.samplers.binary import empirical_edge_tables, empirical_node_marginals, log_mean_exp_quadratic
from dogs.samplers.metropolis import coordinate_metropolis_lbp

PER_TEST_ALPHA = 1e-3 / 3
MODELS = small_models()


def proposals_reference(model, prior, kernel_seed, initial, n_proposals, per_sample):
    """The kernel's rule written out (module docstring of dogs._kernels.metropolis): rows, counts, state, steps, evaluations."""
    d = model.n_vars
    plus = [float(p) for p in prior]
    minus = [1.0 - p for p in plus]
    stream = [float(u) for u in uniform_stream(np.uint64(kernel_seed), 3 * n_proposals + 3)]
    used = 0

    def u():
        nonlocal used
        used += 1
        return stream[used - 1]

    s = [int(v) for v in initial]
    weights = [minus[j] if s[j] > 0 else plus[j] for j in range(d)]
    total = sum(weights[j] for j in range(d))  # left to right, as the kernel
    step, checkpoint, rows, counts, evaluations = 0.0, float(per_sample), [], [], 0
    for _ in range(n_proposals):
        if not total > 0.0:
            return [list(s)], [1.0], s, step, evaluations
        alpha = total / d
        ratio = 0.0 if alpha >= 1.0 else math.log1p(-u()) / math.log1p(-alpha)
        if alpha >= 1.0:
            u()  # drawn all the same
        event = step + 1.0 + math.floor(ratio)
        if checkpoint < event:
            seen = math.floor((event - 1.0 - checkpoint) / per_sample) + 1.0
            rows.append(list(s))
            counts.append(seen)
            checkpoint += seen * per_sample
        step = event
        total = proposed_flip_reference(model, s, weights, total, plus, minus, u)
        evaluations += 1
    if checkpoint <= step:
        rows.append(list(s))
        counts.append(math.floor((step - checkpoint) / per_sample) + 1.0)
    return rows, counts, s, step, evaluations


def steps_until_proposals(model, prior, rng, initial, n_proposals, per_sample):
    """The step-by-step chain (AA appendix A.3, steps 1-4) until its n-th proposed flip; a state every ``per_sample`` steps."""
    d = model.n_vars
    s = [int(v) for v in initial]
    recorded, proposals, step = [], 0, 0
    while proposals < n_proposals:
        step += 1
        i = int(rng.integers(d))
        propensity = (1.0 - prior[i]) if s[i] > 0 else prior[i]
        if rng.random() < propensity:
            proposals += 1
            if rng.random() < math.exp(flip_delta_reference(model, s, i) + s[i] * logit(prior[i])):
                s[i] = -s[i]
        if step % per_sample == 0:
            recorded.append(list(s))
    return recorded, s


def _kernel_run(model, prior, kernel_seed, initial, n_proposals, per_sample):
    plus = np.asarray(prior, dtype=np.float64)
    minus = 1.0 - plus
    with np.errstate(divide="ignore"):
        log_odds = np.log(plus) - np.log(minus)
    spins = np.array(initial, dtype=np.int8)
    samples = np.empty((n_proposals + 1, model.n_vars), dtype=np.int8)
    counts = np.empty(n_proposals + 1)
    rows, steps, evaluations = cmh_lbp_proposals(model.indptr, model.neighbors, model.coupling, model.h, plus, minus,
                                                 log_odds, spins, seed_state(np.uint64(kernel_seed)), n_proposals,
                                                 per_sample, samples, counts)
    return samples[:rows], counts[:rows], spins, steps, evaluations


def _models():
    rng = np.random.default_rng(77)
    grid = grid_model(4, 4, rng.normal(0.0, 0.6, size=24), rng.normal(0.0, 0.5, size=16))
    return {"grid_4x4": grid, "chain_with_fields": MODELS["chain_with_fields"], "bimodal_2x4": MODELS["bimodal_2x4"]}


@pytest.mark.parametrize("prior_kind", ["interior", "peaked", "zero_one"])
@pytest.mark.parametrize("name", sorted(_models()))
def test_kernel_matches_the_plain_python_rule(name, prior_kind):
    model = _models()[name]
    d = model.n_vars
    prior = {"interior": np.linspace(0.2, 0.8, d), "peaked": np.full(d, 1e-4),
             "zero_one": np.r_[0.0, np.linspace(0.3, 0.7, d - 2), 1.0]}[prior_kind]
    initial = np.random.default_rng(3).choice(np.array([-1, 1], dtype=np.int8), size=d)
    kernel_seed = chain_seeds(9, 1)[0]
    for n_proposals, per_sample in ((40, 3), (25, d)):
        rows, counts, state, steps, evaluations = proposals_reference(model, prior, kernel_seed, initial, n_proposals, per_sample)
        samples, kcounts, kstate, ksteps, kevals = _kernel_run(model, prior, kernel_seed, initial, n_proposals, per_sample)
        np.testing.assert_array_equal(samples, np.array(rows, dtype=np.int8).reshape(-1, d))
        np.testing.assert_array_equal(kcounts, counts)
        np.testing.assert_array_equal(kstate, state)
        assert (ksteps, kevals) == (steps, evaluations) and evaluations == n_proposals
        assert kcounts.sum() == math.floor(steps / per_sample)  # every checkpoint up to the last step, once
    result = coordinate_metropolis_lbp(model, prior, n_proposals=40, proposals_per_sample=3, seed=9, initial_state=initial)
    np.testing.assert_array_equal(result.sample_weights, _kernel_run(model, prior, kernel_seed, initial, 40, 3)[1])
    assert result.work == Work(int(_kernel_run(model, prior, kernel_seed, initial, 40, 3)[3]), 40)


def test_a_peaked_prior_spends_the_budget_on_proposals_not_steps():
    """At the all-+1 mode q(-1) = 1e-4 and almost every step holds: a budget of steps proposes almost nothing."""
    model = grid_model(3, 3, 0.2, 2.0, torus=True)
    prior = np.full(9, 1.0 - 1e-4)
    result = coordinate_metropolis_lbp(model, prior, n_proposals=900, seed=1, initial_state=np.ones(9))
    assert result.work.density_evaluations == 900
    assert result.work.site_updates > 100 * 900  # about 1e4 steps per proposal made from the mode
    assert result.sample_weights.sum() == result.work.site_updates // 9
    by_steps = coordinate_metropolis_lbp(model, prior, n_samples=100, seed=1, initial_state=np.ones(9))
    assert by_steps.work.site_updates == 900 and by_steps.work.density_evaluations < 900 / 10


def test_weighted_estimates_are_the_plain_averages_over_the_recorded_sequence():
    model = MODELS["torus_3x3_biased"]
    delta = BinaryPairwiseMRF(model.edges, 0.1, np.full(9, -0.05))
    result = coordinate_metropolis_lbp(model, np.full(9, 0.3), n_proposals=200, proposals_per_sample=4, seed=5,
                                       initial_state=np.ones(9, dtype=np.int8), delta=delta)
    sequence = np.repeat(result.samples, result.sample_weights.astype(int), axis=0)  # small counts here: exact
    # whole-number weights are summed exactly: the same float64 numbers as the counts over the expanded sequence
    np.testing.assert_array_equal(result.node_marginals, empirical_node_marginals(sequence))
    np.testing.assert_array_equal(result.edge_tables, empirical_edge_tables(sequence, model.edges))
    float_rows = result.samples.astype(np.float64)  # the NumPy form (any array type) agrees up to rounding
    np.testing.assert_allclose(result.node_marginals, empirical_node_marginals(float_rows, result.sample_weights),
                               rtol=1e-12)
    np.testing.assert_allclose(result.edge_tables,
                               empirical_edge_tables(float_rows, model.edges, result.sample_weights), rtol=1e-12)
    with pytest.raises(ValueError, match="one entry per recorded state"):
        empirical_node_marginals(result.samples, result.sample_weights[:-1])
    assert result.log_ratio == pytest.approx(log_mean_exp_quadratic(sequence, delta), rel=1e-12)


def test_budget_form_has_the_law_of_the_step_chain():
    model = MODELS["chain_with_fields"]
    d = model.n_vars
    prior = np.clip(np.linspace(0.15, 0.85, d), 0.0, 1.0)
    start = np.array([1, -1] * (d // 2) + [1] * (d % 2), dtype=np.int8)
    n_runs, n_proposals, per_sample = 3000, 6, 2
    seeds = np.random.SeedSequence(2024).spawn(n_runs)
    rng = np.random.default_rng(2025)
    events, steps = [], []
    for child in seeds:
        result = coordinate_metropolis_lbp(model, prior, n_proposals=n_proposals, proposals_per_sample=per_sample,
                                           seed=child, initial_state=start)
        events.append((int(result.sample_weights.sum()), tuple(result.samples[0]), tuple(result.state)))
    for _ in range(n_runs):
        recorded, state = steps_until_proposals(model, prior, rng, start, n_proposals, per_sample)
        steps.append((len(recorded), tuple(recorded[0]), tuple(state)))
    for k in range(3):
        keys = sorted({e[k] for e in events} | {s[k] for s in steps})
        table = np.array([[sum(e[k] == key for e in sample) for key in keys] for sample in (events, steps)])
        small = table.sum(axis=0) < 10
        if small.any():
            table = np.column_stack([table[:, ~small], table[:, small].sum(axis=1)])
        assert stats.chi2_contingency(table).pvalue > PER_TEST_ALPHA, (k, table)


def test_a_frozen_chain_keeps_its_state_as_the_only_row():
    model = MODELS["dense_mixed_signs"]
    frozen = coordinate_metropolis_lbp(model, np.ones(6), n_proposals=50, seed=0, initial_state=np.ones(6))
    assert frozen.work == Work(0, 0)
    np.testing.assert_array_equal(frozen.samples, np.ones((1, 6)))
    np.testing.assert_array_equal(frozen.sample_weights, [1.0])
    np.testing.assert_array_equal(frozen.node_marginals, np.ones(6))


@pytest.mark.parametrize("kwargs, error, match", [
    ({}, TypeError, "exactly one of n_samples"),
    ({"n_samples": 5, "n_proposals": 5}, TypeError, "exactly one of n_samples"),
    ({"n_proposals": 0}, ValueError, "n_proposals must be >= 1"),
    ({"n_proposals": 5}, ValueError, "records no state"),
    ({"n_proposals": 12, "discrete_event": False}, ValueError, "discrete-event form only"),
    ({"n_proposals": 12.0}, TypeError, "n_proposals must be an integer"),
])
def test_bad_budgets_are_refused(kwargs, error, match):
    with pytest.raises(error, match=match):
        coordinate_metropolis_lbp(MODELS["dense_mixed_signs"], np.full(6, 0.5), seed=0, initial_state=np.ones(6), **kwargs)
