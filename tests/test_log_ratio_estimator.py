"""The prepared log-ratio estimator gives run_samplers' numbers bit for bit, and refuses what it cannot run.

No statistical tests: every comparison is exact.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dogs.models import BinaryPairwiseMRF, grid_model
from dogs.samplers.budget import equal_cost_budget
from dogs.samplers.log_ratio import LOG_RATIO_SAMPLERS, LogRatioEstimator
from dogs.samplers.suite import run_samplers

_NO_EDGES = np.zeros((0, 2), dtype=np.int64)


def _graphs():
    rng = np.random.default_rng(61)
    upper = np.triu(rng.normal(0.0, 0.8, (6, 6)), 1)
    return {"dense_6": BinaryPairwiseMRF.dense(upper + upper.T, rng.normal(0.0, 0.3, 6)),
            "grid_3x4": grid_model(3, 4, rng.normal(0.0, 0.5, 17), rng.normal(0.0, 0.2, 12))}


@pytest.mark.parametrize("graph_name", ["dense_6", "grid_3x4"])
@pytest.mark.parametrize("name", LOG_RATIO_SAMPLERS)
def test_estimates_equal_run_samplers(name, graph_name):
    graph = _graphs()[graph_name]
    d = graph.n_vars
    budget = equal_cost_budget(d, travel_time_periods=1.5, n_hmc_samples=40, clique_size=d - 1)
    estimator = LogRatioEstimator(graph, budget, name)
    rng = np.random.default_rng(7)
    kernel_seeds = estimator.kernel_seeds(np.random.SeedSequence(11, spawn_key=(3, 1)), 4)
    for step, seed in enumerate(np.random.SeedSequence(11, spawn_key=(3, 1)).spawn(4)):
        model = graph.with_parameters(rng.normal(0.0, 0.7, graph.n_edges), rng.normal(0.0, 0.3, d))
        delta = graph.with_parameters(rng.normal(0.0, 0.2, graph.n_edges), rng.normal(0.0, 0.1, d))
        start = np.where(rng.random(d) < 0.5, 1, -1).astype(np.int8)
        want = run_samplers(model, budget, names=[name], seed=seed, initial_state=start, delta=delta,
                            edges=_NO_EDGES)[name]
        log_ratio, state, evaluations = estimator.estimate(model, delta, seed, start)
        assert np.float64(log_ratio).tobytes() == np.float64(want.log_ratio).tobytes()
        np.testing.assert_array_equal(state, want.state)
        assert state.dtype == np.int8
        assert evaluations == want.density_evaluations
        # the same run from the precomputed kernel seed of this child
        log_ratio, state, evaluations = estimator.estimate(model, delta, kernel_seeds[step], start)
        assert np.float64(log_ratio).tobytes() == np.float64(want.log_ratio).tobytes()
        np.testing.assert_array_equal(state, want.state)
        assert evaluations == want.density_evaluations


def test_refuses_other_samplers_graphs_and_bad_input():
    graphs = _graphs()
    graph = graphs["dense_6"]
    budget = equal_cost_budget(6, travel_time_periods=1.5, n_hmc_samples=10, clique_size=5)
    with pytest.raises(ValueError, match="sampler must be one of"):
        LogRatioEstimator(graph, budget, "CMH + LBP")
    with pytest.raises(ValueError, match="hmc_samples"):
        LogRatioEstimator(graph, dataclasses.replace(budget, hmc_samples=0), "HMC")
    estimator = LogRatioEstimator(graph, budget, "CMH")
    seed = np.random.SeedSequence(1)
    other = graphs["grid_3x4"]
    with pytest.raises(ValueError, match="not on the estimator's graph"):
        estimator.estimate(other, other, seed, np.ones(12))
    with pytest.raises(ValueError, match="-1 or \\+1"):
        estimator.estimate(graph, graph, seed, np.zeros(6))
    with pytest.raises(TypeError, match="SeedSequence"):
        estimator.estimate(graph, graph, 5, np.ones(6))
    with pytest.raises(TypeError, match="SeedSequence"):
        estimator.kernel_seeds(5, 3)
    with pytest.raises(ValueError, match=">= 1"):
        estimator.kernel_seeds(seed, 0)
    # a copy of the graph (not shared arrays) is still the same graph
    copy = BinaryPairwiseMRF(graph.edges.copy(), graph.theta.copy(), graph.h.copy())
    assert np.isfinite(estimator.estimate(copy, copy, seed, np.ones(6))[0])
