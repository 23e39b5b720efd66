"""Boltzmann-machine posteriors with estimated partition-function ratios (AA §3.2): exact ratios, the inner
estimators, the approximate Metropolis-Hastings chain and the experiment steps.

Statistical tests and their false-failure rates:
- ``test_estimated_ratio_error_shrinks_with_the_inner_budget``: the RMS error over 40 seeded estimates must fall by
  at least 3x when F grows 100x (about 10x expected for a consistent estimator); with the seeds fixed the test is
  deterministic, and the margin makes a failure by chance essentially impossible (the RMS of 40 errors fluctuates by
  about 11% relative).
- ``test_exact_ratio_chain_samples_the_posterior``: the chain's posterior mean of each weight is compared with an
  importance-sampling estimate at 5 Monte Carlo standard errors (chain s.e. from batch means); per weight a
  false failure has probability below 1e-5 under a normal approximation.
"""

from __future__ import annotations

import itertools
import json
import math
import os

import numpy as np
import pandas as pd
import pytest

from dogs.exact import brute_force
from dogs.experiments import boltzmann
from dogs.learning.boltzmann_posterior import _SpinForms, approximate_mh, log_partition, pair_statistics, weights_matrix
from dogs.models.boltzmann import boltzmann_to_spin
from dogs.samplers.budget import equal_cost_budget
from dogs.samplers.suite import run_samplers

from experiment_cli import SCHEMA, merged_configs, outputs_in, run

FULL, SMOKE = merged_configs()


def test_log_partition_against_a_plain_sum_and_the_spin_model():
    rng = np.random.default_rng(0)
    d = 6
    w = rng.normal(0, 1, d * (d - 1) // 2)
    plain = math.log(sum(math.exp(sum(w[k] * y[i] * y[j] for k, (i, j) in enumerate(zip(*np.triu_indices(d, 1)))))
                         for y in itertools.product((0, 1), repeat=d)))
    assert log_partition(w, d) == pytest.approx(plain, rel=1e-12)
    spin, offset = boltzmann_to_spin(weights_matrix(w, d), np.zeros(d))
    assert log_partition(w, d) == pytest.approx(brute_force(spin).log_partition + offset, rel=1e-12)


@pytest.mark.parametrize("sampler", ["HMC", "CMH", "AAS + RB", "AAG + RB"])
def test_estimated_ratio_error_shrinks_with_the_inner_budget(sampler):
    d = 6
    rng = np.random.default_rng(1)
    w = rng.normal(0, 0.5, 15)
    w_new = w + rng.normal(0, np.sqrt(0.1), 15)
    exact = log_partition(w_new, d) - log_partition(w, d)
    forms = _SpinForms(d)
    model, _ = forms.model(w_new)
    delta, offset = forms.model(-(w_new - w))
    rms = {}
    for budget_n in (20, 2000):
        budget = equal_cost_budget(d, travel_time_periods=1.5, n_hmc_samples=budget_n, clique_size=d - 1)
        errors = []
        for seed in range(40):
            estimate = run_samplers(model, budget, names=[sampler], seed=np.random.SeedSequence(seed),
                                    initial_state=np.ones(d, dtype=np.int8), delta=delta,
                                    edges=np.zeros((0, 2), dtype=np.int64))[sampler]
            errors.append(-(estimate.log_ratio + offset) - exact)
        rms[budget_n] = float(np.sqrt(np.mean(np.square(errors))))
    assert rms[2000] * 3 <= rms[20], rms


def test_exact_ratio_chain_samples_the_posterior():
    """d = 3: the exact-ratio MH chain against importance sampling from the prior."""
    d, rng = 3, np.random.default_rng(2)
    y = rng.integers(0, 2, size=(40, d))
    statistic, n = pair_statistics(y).sum(axis=0), len(y)
    chain = approximate_mh(statistic, n, d=d, sampler="exact", initial=np.zeros(3), n_steps=40000, prior_variance=5.0,
                           proposal_variance=0.3, inner_samples=1, travel_time_periods=1.5, seed=np.random.SeedSequence(3))
    samples = chain.weights[4000:]
    batches = samples.reshape(36, -1, 3).mean(axis=1)
    chain_mean, chain_se = samples.mean(axis=0), batches.std(axis=0, ddof=1) / np.sqrt(len(batches))
    prior = rng.normal(0, np.sqrt(5.0), size=(200_000, 3))
    states = pair_statistics(np.array(list(itertools.product((0, 1), repeat=d))))
    log_z = np.array([np.log(np.exp(states @ w).sum()) for w in prior])
    log_weight = prior @ statistic - n * log_z
    weight = np.exp(log_weight - log_weight.max())
    weight /= weight.sum()
    is_mean = weight @ prior
    is_se = np.sqrt(weight**2 @ (prior - is_mean) ** 2)
    assert np.all(np.abs(chain_mean - is_mean) <= 5 * np.sqrt(chain_se**2 + is_se**2)), (chain_mean, is_mean)


def test_synthetic_data_by_enumeration_and_by_exact_hmc():
    y, w, b = boltzmann.synthetic_data(5, 30, 0.1, None, np.random.SeedSequence(4))
    assert y.shape == (30, 5) and set(np.unique(y)) <= {0, 1} and np.allclose(w, w.T) and np.all(np.abs(b) <= 0.1)
    y, w, b = boltzmann.synthetic_data(21, 4, 0.1, 5, np.random.SeedSequence(5))  # beyond enumeration: exact HMC
    assert y.shape == (4, 21) and set(np.unique(y)) <= {0, 1}


@pytest.mark.skipif("DOGS_DATA_DIR" not in os.environ, reason="no data directory configured")
def test_the_heart_table_is_read_with_the_documented_coding():
    from dogs.data import load_heart_disease, require_dataset

    y = load_heart_disease(require_dataset("heart_disease"))
    assert y.shape == (1841, 6)
    np.testing.assert_array_equal(y.sum(axis=0), [880, 778, 914, 787, 780, 260])  # level "n" = present / high


_PROTOCOL = {"prior": {"mean": "truth", "variance": 2.0}, "start": {"mean": "truth", "variance": 0.5}}
TINY = {**SMOKE["boltzmann"], "outer_samples": 3, "variants": {},
        "datasets": {"synthetic10": {"source": "synthetic", "units": 4, "data_points": 20, "chains": 3, "inner_samples": 5,
                                     **_PROTOCOL},
                     "synthetic25": {"source": "synthetic", "units": 5, "data_points": 20, "chains": 2, "inner_samples": 5,
                                     **_PROTOCOL}}}


def test_the_configs_pass_the_experiment_checks():
    for config in (FULL, SMOKE):
        boltzmann.EXPERIMENT.context(["summarise", "--settings", json.dumps(config["boltzmann"]), "--schema", str(SCHEMA)])


def test_experiment_steps_end_to_end(tmp_path):
    chain_files = []
    for name in TINY["datasets"]:
        data = tmp_path / name / "data.npz"
        run(boltzmann, "compute-data", TINY, 6, outputs={"data": data}, wildcards={"bm_dataset": name})
        outputs = {f"chains_{s}": tmp_path / name / f"posterior_{s}.npz" for s in TINY["samplers"]}
        run(boltzmann, "compute-chains", TINY, 6, inputs={"data": data}, outputs=outputs, wildcards={"bm_dataset": name})
        chain_files += list(outputs.values())
    with np.load(chain_files[0]) as first:
        assert first["weights"].shape == (3, 3, 6) and np.all(np.isfinite(first["exact"]))
    outs = outputs_in(tmp_path, errors="errors.csv", fractions="fractions.csv", posterior="posterior.csv",
                      claims="claims.json")
    run(boltzmann, "summarise", TINY, 6, inputs={"chains": chain_files}, outputs=outs, smoke=True)
    errors = pd.read_csv(outs["errors"])
    assert list(errors.columns) == ["variant", "dataset", "sampler", "inner_samples", "chain", "mean_abs_error",
                                    "cross_chain_error", "acceptance"]
    assert set(errors["sampler"]) == {"exact", "HMC", "CMH", "AAS + RB", "AAG + RB"}
    assert "aa_fig6_synthetic_annular_best" in json.loads(outs["claims"].read_text())["claims"]
    run(boltzmann, "plot-fig6", TINY, 6, inputs={"errors": outs["errors"]}, outputs={"figure": tmp_path / "f6.png"})
    fig8_chains = [path for path in chain_files if path.parent.name in boltzmann.FIG8_DATASETS]  # synthetic25 alone
    run(boltzmann, "plot-fig8", TINY, 6, inputs={"chains": fig8_chains}, outputs={"figure": tmp_path / "f8.png"})
    assert (tmp_path / "f8.png").stat().st_size > 10_000
    again = {f"chains_{s}": tmp_path / "again" / f"posterior_{s}.npz" for s in TINY["samplers"]}
    run(boltzmann, "compute-chains", TINY, 6, inputs={"data": tmp_path / "synthetic10" / "data.npz"}, outputs=again,
        wildcards={"bm_dataset": "synthetic10"})
    with np.load(again["chains_aag_rb"]) as a, np.load(tmp_path / "synthetic10" / "posterior_aag_rb.npz") as b:
        np.testing.assert_array_equal(a["weights"], b["weights"])
