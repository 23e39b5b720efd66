"""The discrete factor graph (dogs.models.factor_graph): its checks, its derived structure and its conditionals
against enumeration."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dogs.models.factor_graph import DiscreteFactorGraph


def _small_graph():
    rng = np.random.default_rng(0)
    card = np.array([2, 3, 2, 4])
    factors = [((0, 1), rng.normal(size=(2, 3))), ((1, 2, 3), rng.normal(size=(3, 2, 4))), ((3,), rng.normal(size=4)),
               ((2, 0), np.log(np.array([[0.5, 0.0], [0.2, 0.3]]))), ((), np.array(0.7))]
    return DiscreteFactorGraph.from_factors(card, factors)


def test_conditionals_and_log_potential_against_enumeration():
    graph = _small_graph()
    states = np.array(list(itertools.product(*[range(k) for k in graph.cardinalities])))
    with np.errstate(divide="ignore"):
        expected = sum(table[tuple(states[:, list(scope)].T)] if scope else float(table)
                       for scope, table in graph.factors())
    np.testing.assert_allclose(graph.log_potential(states), expected)
    support = states[np.isfinite(expected)]
    assert 0 < len(support) < len(states)  # the zero entry removes some states
    for x in support:
        for i in range(graph.n_vars):
            others = np.all(np.delete(states, i, 1) == np.delete(x, i), axis=1)
            weights = np.exp(expected[others] - expected[others].max())
            np.testing.assert_allclose(graph.conditional(x, i), weights / weights.sum())


def test_derived_structure():
    graph = _small_graph()
    blankets = [graph.neighbors[graph.indptr[i]:graph.indptr[i + 1]].tolist() for i in range(4)]
    assert blankets == [[1, 2], [0, 2, 3], [0, 1, 3], [1, 2]]
    for i in range(4):
        for slot in range(graph.factor_indptr[i], graph.factor_indptr[i + 1]):
            assert graph.scope(graph.factor_ids[slot])[graph.factor_positions[slot]] == i
    assert graph.n_factors == 5 and graph.n_edges == 5


@pytest.mark.parametrize("change, words", [
    (lambda f: f.__setitem__(0, ((0, 0), np.zeros((2, 2)))), "twice"),
    (lambda f: f.__setitem__(1, ((1, 2, 3), np.full((3, 2, 4), -np.inf))), "zero everywhere"),
    (lambda f: f.__setitem__(2, ((3,), np.array([0.0, np.nan, 0.0, 0.0]))), "NaN"),
    (lambda f: f.__setitem__(2, ((3,), np.zeros(3))), "table of shape"),
    (lambda f: f.__setitem__(2, ((4,), np.zeros(4))), "outside"),
])
def test_bad_factors_are_refused(change, words):
    rng = np.random.default_rng(1)
    factors = [((0, 1), rng.normal(size=(2, 3))), ((1, 2, 3), rng.normal(size=(3, 2, 4))), ((3,), np.zeros(4))]
    change(factors)
    with pytest.raises(ValueError, match=words):
        DiscreteFactorGraph.from_factors([2, 3, 2, 4], factors)
