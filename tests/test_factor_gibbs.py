"""Gibbs sampling of discrete factor graphs: the kernel against a plain-Python replay of the same randomness,
starts of positive probability, zero entries never visited, and marginals against enumeration.

The statistical test states its false-failure rate; its seed was fixed before it was first run.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from dogs._kernels.rng import uniform_stream
from dogs.models.factor_graph import DiscreteFactorGraph
from dogs.samplers.base import chain_seeds
from dogs.samplers.factor_gibbs import (NoPositiveStartError, assignment_order, positive_starts,
                                        run_factor_gibbs_draws)
from dogs.scans import systematic_scan, uniform_scan
from random_factor_graphs import random_local_factor_graph


def _random_graph(seed, n_vars=6, zeros=0.2):
    """Random scopes of 1 to 3 variables, cardinalities 2 to 4, a share of zero entries (never a whole factor)."""
    return random_local_factor_graph(seed, n_vars, zeros=zeros, max_card=4)


def _states(graph):
    return np.array(list(itertools.product(*[range(k) for k in graph.cardinalities])))


def _reference(graph, scan, seed, start, passes):
    """The kernel's rule in plain Python on its own uniforms: labels after every pass."""
    uniforms = iter(uniform_stream(np.uint64(seed), 10 * passes * scan.length + 10))
    state = np.array(start, dtype=np.int64)
    out = []
    for _ in range(passes):
        for site in scan.indices:
            if site < 0:
                site = int(next(uniforms) * graph.n_vars)
            weights = np.ones(int(graph.cardinalities[site]))
            for slot in range(graph.factor_indptr[site], graph.factor_indptr[site + 1]):
                f, position = graph.factor_ids[slot], graph.factor_positions[slot]
                lo, hi = graph.scope_starts[f], graph.scope_starts[f + 1]
                peak = graph.log_values[graph.table_starts[f]:graph.table_starts[f + 1]].max()
                base = graph.table_starts[f] + sum(int(state[graph.scope_vars[q]]) * int(graph.strides[q])
                                                   for q in range(lo, hi) if q != lo + position)
                for k in range(weights.size):
                    weights[k] *= np.exp(graph.log_values[base + k * graph.strides[lo + position]] - peak)
            cumulative = np.cumsum(weights)
            u = next(uniforms)
            if cumulative[-1] > 0:
                label = int(np.sum(cumulative <= u * cumulative[-1]))
                state[site] = label
        out.append(state.copy())
    return np.array(out)


@pytest.mark.parametrize("uniform", [False, True])
def test_kernel_replays_the_plain_python_rule(uniform):
    graph = _random_graph(4)
    scan = uniform_scan(graph.n_vars, 9) if uniform else systematic_scan(graph.n_vars, 8)
    start = positive_starts(graph, 3, np.random.default_rng(0))
    result = run_factor_gibbs_draws(graph, scan, seed=7, draws=20, n_chains=3, initial_state=start)
    for c, seed in enumerate(chain_seeds(7, 3)):
        np.testing.assert_array_equal(result.labels[c], _reference(graph, scan, seed, start[c], 20))


def test_starts_have_positive_probability_and_forward_sample_a_network():
    for seed in range(5):
        graph = _random_graph(seed, zeros=0.4)
        starts = positive_starts(graph, 20, np.random.default_rng(seed))
        assert np.all(np.isfinite(graph.log_potential(starts)))
    # a Bayesian network in topological order: the starts are exact draws from it (chi-square, alpha = 1e-3)
    cpds = [((0,), _log([0.3, 0.7])), ((0, 1), _log([[0.9, 0.1], [0.2, 0.8]])),
            ((0, 1, 2), _log([[[1, 0], [0.5, 0.5]], [[0.5, 0.5], [0, 1]]]))]
    net = DiscreteFactorGraph.from_factors([2, 2, 2], [(s, t) for s, t in cpds], kind="BAYES")
    assert assignment_order(net).tolist() == [0, 1, 2]
    starts = positive_starts(net, 4000, np.random.default_rng(11))
    states = _states(net)
    with np.errstate(divide="ignore"):
        probabilities = np.exp(net.log_potential(states))
    counts = np.array([np.sum(np.all(starts == s, axis=1)) for s in states])
    support = probabilities > 0
    assert counts[~support].sum() == 0
    statistic = np.sum((counts[support] - 4000 * probabilities[support]) ** 2 / (4000 * probabilities[support]))
    assert statistic < stats.chi2.ppf(1 - 1e-3, support.sum() - 1)


def _log(values):
    with np.errstate(divide="ignore"):
        return np.log(np.asarray(values, dtype=np.float64))


def test_no_positive_state_and_a_zero_start_are_clear_errors():
    contradiction = DiscreteFactorGraph.from_factors([2, 2], [((0, 1), _log(np.eye(2))), ((0, 1), _log(1 - np.eye(2)))])
    with pytest.raises(NoPositiveStartError, match="no state of positive probability"):
        positive_starts(contradiction, 1, np.random.default_rng(0))
    differ = DiscreteFactorGraph.from_factors([2, 2], [((0, 1), _log(1 - np.eye(2)))])  # x0 != x1
    with pytest.raises(ValueError, match="probability 0"):
        run_factor_gibbs_draws(differ, systematic_scan(2, 2), seed=0, draws=4, initial_state=0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_marginals_match_enumeration(seed):
    """Per state, |mean - exact| <= 4.5 standard errors of the mean over 40 chains' own averages (t with 39
    degrees of freedom: two-sided P = 3.7e-5; at most 24 states per graph, under 1e-3 per test); 300 sweeps per
    chain after the random positive start, whose bias (mixing is fast on these small graphs) is far below it."""
    graph = _random_graph(seed)
    states = _states(graph)
    log_p = graph.log_potential(states)
    p = np.exp(log_p - log_p.max())
    p /= p.sum()
    start = positive_starts(graph, 40, np.random.default_rng(seed))
    result = run_factor_gibbs_draws(graph, systematic_scan(graph.n_vars, graph.n_vars), seed=seed, draws=300,
                                    n_chains=40, initial_state=start)
    assert not np.any(np.isinf(graph.log_potential(result.states)))  # never in a state of probability 0
    for v in range(graph.n_vars):
        for k in range(graph.cardinalities[v]):
            exact = p[states[:, v] == k].sum()
            per_chain = (result.labels[:, :, v] == k).mean(axis=1)
            error = abs(per_chain.mean() - exact)
            assert error <= 4.5 * per_chain.std(ddof=1) / np.sqrt(40) + 1e-12, (v, k, per_chain.mean(), exact)
