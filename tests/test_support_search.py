"""Starts of positive probability by constraint propagation: a state of positive probability whenever one exists
(checked by enumeration on small random factor graphs with many zeros), a clear error when none does, and the
fallback of :func:`positive_starts` to it."""

from __future__ import annotations

import numpy as np
import pytest

import dogs.samplers.factor_gibbs as factor_gibbs
from dogs.models.factor_graph import DiscreteFactorGraph
from dogs.samplers.factor_gibbs import NoPositiveStartError, positive_starts
from dogs.samplers.support_search import support_state
from random_factor_graphs import enumerate_joint, random_local_factor_graph


def _sparse_graph(seed, n_vars=6, zeros=0.6):
    """Random scopes of 1 to 3 variables with a large share of zero entries: the support is often empty."""
    return random_local_factor_graph(seed, n_vars, zeros=zeros, max_card=3)


def test_support_state_finds_a_positive_state_exactly_when_one_exists():
    outcomes = set()
    for seed in range(60):
        graph = _sparse_graph(seed)
        _, weights = enumerate_joint(graph)
        if weights.max() > 0:
            state = support_state(graph, np.random.default_rng(seed))
            assert np.isfinite(graph.log_potential(state)), seed
            outcomes.add("found")
        else:
            with pytest.raises(NoPositiveStartError, match="no state of positive probability exists"):
                support_state(graph, np.random.default_rng(seed))
            outcomes.add("none")
    assert outcomes == {"found", "none"}  # both cases were exercised


def test_support_state_draws_different_states():
    # x0 == x1 == x2 (copies), 4 labels each: four states of positive probability
    with np.errstate(divide="ignore"):
        copy = np.log(np.eye(4))
    graph = DiscreteFactorGraph.from_factors([4, 4, 4], [((0, 1), copy), ((1, 2), copy)])
    states = np.array([support_state(graph, np.random.default_rng(seed)) for seed in range(40)])
    assert np.all(states[:, 0] == states[:, 1]) and np.all(states[:, 1] == states[:, 2])
    assert len(np.unique(states[:, 0])) > 1


def test_positive_starts_falls_back_to_propagation(monkeypatch):
    graph = _sparse_graph(1, zeros=0.3)
    calls = []

    def exhausted(*args):
        calls.append(1)
        raise factor_gibbs._SearchBudgetExceeded("budget")

    monkeypatch.setattr(factor_gibbs, "_search_start", exhausted)
    starts = positive_starts(graph, 5, np.random.default_rng(0))
    assert np.all(np.isfinite(graph.log_potential(starts)))
    assert len(calls) == 1  # the later chains go straight to the search with propagation
