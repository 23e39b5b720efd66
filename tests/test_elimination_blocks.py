"""Blocks drawn by exact elimination: each draw against the block's exact conditional (by enumeration), the
log-domain fallback, the choice of blocks and its caps, and ``dogs.sample(blocks="elimination")`` on asia against
exact posteriors.

Statistical tests state their false-failure rate; their seeds were fixed before they were first run.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import norm

from dogs.models.factor_graph import DiscreteFactorGraph
from dogs.samplers.elimination_blocks import EliminationBlocks, elimination_blocks, pack_elimination_blocks
from dogs.samplers.factor_gibbs import positive_starts, run_factor_gibbs_draws
from dogs.scans import Scan
from random_factor_graphs import random_bayesian_network, random_markov_graph

#: False-failure rate of each statistical check below (Bonferroni over the configurations it compares).
FALSE_FAILURE = 1e-6


def _log(values):
    with np.errstate(divide="ignore"):
        return np.log(np.asarray(values, dtype=np.float64))


def _conditional(graph, state, block):
    """The exact conditional of ``block`` (a list) given the rest of ``state``, by enumeration, C order over the
    block's variables as listed."""
    cards = [int(graph.cardinalities[v]) for v in block]
    weights = np.empty(int(np.prod(cards)))
    x = np.array(state, dtype=np.int64)
    for n, configuration in enumerate(itertools.product(*[range(k) for k in cards])):
        x[block] = configuration
        weights[n] = np.exp(graph.log_potential(x))
    return weights / weights.sum()


def _draws_of_block(graph, plan, state, block, draws, seed):
    """``draws`` updates of the block alone from ``state`` (the rest never changes, so they are independent draws of
    its conditional), as configuration numbers in C order over ``block``."""
    home = int(plan.homes[0][0])
    result = run_factor_gibbs_draws(graph, Scan(np.array([home]), graph.n_vars), seed=seed, draws=draws,
                                    initial_state=state, elimination=plan)
    labels = result.labels[0][:, block].astype(np.int64)
    cards = [int(graph.cardinalities[v]) for v in block]
    return np.ravel_multi_index(labels.T, cards)


def _check_counts(configurations, probabilities):
    """Every configuration's share within ``z`` binomial standard errors of its probability, ``z`` the two-sided
    Bonferroni quantile at :data:`FALSE_FAILURE`; configurations of probability 0 never drawn."""
    n = configurations.size
    counts = np.bincount(configurations, minlength=probabilities.size) / n
    z = norm.isf(FALSE_FAILURE / (2 * probabilities.size))
    assert np.all(counts[probabilities == 0] == 0)
    np.testing.assert_array_less(np.abs(counts - probabilities), z * np.sqrt(probabilities * (1 - probabilities) / n)
                                 + 1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_a_block_draw_follows_its_exact_conditional(seed):
    """Random Bayesian and Markov graphs with zero entries, a block of 3-5 of their 6 variables in a random
    elimination order (so that steps have several inputs and messages), 4000 draws from a start of positive
    probability: the block's configurations against the conditional by enumeration."""
    rng = np.random.default_rng(100 + seed)
    graph = random_markov_graph(rng, p=6, zeros=0.3) if seed % 2 else random_bayesian_network(rng, p=6, zeros=0.3)
    block = [int(v) for v in rng.permutation(6)[:3 + seed % 3]]
    plan = EliminationBlocks(blocks=[np.array(block)], homes=[np.sort(block)])
    state = positive_starts(graph, 1, rng)[0]
    drawn = _draws_of_block(graph, plan, state, block, 4000, seed)
    _check_counts(drawn, _conditional(graph, state, block))


def test_underflowing_products_take_the_log_domain():
    """Four factors over one binary variable peak at alternate states with entries 1e-200: every product is 1e-400,
    0 in float64, so only the log-domain fallback sees that both states are equally likely (without it the block
    would keep its label)."""
    factors = [((0,), _log([1.0, 1e-200] if k % 2 else [1e-200, 1.0])) for k in range(4)]
    factors.append(((0, 1), _log([[0.5, 0.5], [0.25, 0.75]])))
    graph = DiscreteFactorGraph.from_factors([2, 2], factors)
    plan = EliminationBlocks(blocks=[np.array([1, 0])], homes=[np.array([0, 1])])
    drawn = _draws_of_block(graph, plan, np.array([0, 0]), [0, 1], 4000, 0)
    _check_counts(drawn, _conditional(graph, np.array([0, 0]), [0, 1]))


def _largest_step(graph, plan):
    packed = pack_elimination_blocks(graph, plan)
    scope_indptr, scope_vars, scope_strides = packed[3], packed[4], packed[5]
    sizes = [int(scope_strides[scope_indptr[k]]) * int(graph.cardinalities[scope_vars[scope_indptr[k]]])
             for k in range(scope_indptr.size - 1)]
    return max(sizes), packed


@pytest.mark.parametrize("seed", range(4))
def test_blocks_cover_every_variable_and_keep_to_their_caps(seed):
    rng = np.random.default_rng(200 + seed)
    graph = random_markov_graph(rng, p=12, zeros=0.2) if seed % 2 else random_bayesian_network(rng, p=12, zeros=0.2)
    whole = elimination_blocks(graph)
    assert len(whole.blocks) == 1 and sorted(whole.blocks[0].tolist()) == list(range(12))  # all fits: exact draws
    step_cap = int(graph.cardinalities.max()) ** 2
    plan = elimination_blocks(graph, max_step_entries=step_cap, max_block_entries=4 * step_cap)
    homes = np.concatenate(plan.homes)
    assert sorted(homes.tolist()) == list(range(12))
    assert all(set(h.tolist()) <= set(b.tolist()) for h, b in zip(plan.homes, plan.blocks))
    largest, packed = _largest_step(graph, plan)
    assert largest <= step_cap
    assert np.all(packed[16] <= 4 * step_cap + step_cap)  # the block cap, plus one step
    assert np.array_equal(np.sort(np.flatnonzero(packed[0] >= 0)), np.arange(12))


def test_bad_plans_and_caps_are_refused():
    graph = DiscreteFactorGraph.from_factors([2, 2, 2], [((0, 1), _log([[1, 2], [3, 4]]))])
    with pytest.raises(ValueError, match="positive integer"):
        elimination_blocks(graph, max_step_entries=0)
    with pytest.raises(ValueError, match="homes"):
        pack_elimination_blocks(graph, EliminationBlocks(blocks=[np.array([0, 1])], homes=[np.array([2])]))
    with pytest.raises(ValueError, match="distinct variables"):
        pack_elimination_blocks(graph, EliminationBlocks(blocks=[np.array([0, 0])], homes=[np.array([0])]))
    with pytest.raises(ValueError, match="not both"):
        run_factor_gibbs_draws(graph, Scan(np.array([0]), 3), seed=0, draws=4, initial_state=0, blocks=[[0, 1]],
                               elimination=elimination_blocks(graph))


FAMILY_FALSE_FAILURE = 1e-3


def test_sample_with_elimination_blocks_matches_asia_posteriors():
    """asia with evidence ``dysp = yes, xray = no`` through ``dogs.sample(blocks="elimination")``: one block holds
    the whole network, so the 8 x 500 draws are independent exact draws , and every state's estimate is within ``z``
    binomial standard errors of the exact posterior, ``z`` the two-sided Bonferroni quantile over the marginals at
    family-wise false-failure rate 1e-3."""
    pytest.importorskip("pgmpy")
    pytest.importorskip("arviz")
    import json
    import warnings

    from dogs.benchmarks.networks import load_network
    from dogs.exact import junction_tree_marginals
    from dogs.models.evidence import condition
    from dogs.sampling_call import SamplingWarning, marginals, sample

    model, _ = load_network("asia")
    names = list(model.names)
    evidence = {names.index("dysp"): 0, names.index("xray"): 1}
    conditioned = condition(model, evidence)
    truth = junction_tree_marginals(conditioned.model).node_marginals
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SamplingWarning)
        data = sample(model, chains=8, draws=500, seed=3, evidence=evidence, progress=False, blocks="elimination")
    assert data.posterior.attrs["block_update"] == "elimination"
    assert json.loads(data.posterior.attrs["blocks"]) == [sorted(int(v) for v in conditioned.free)]
    assert int(data.posterior.attrs["scan_length"]) == 1
    table = marginals(data)
    n = 8 * 500
    z = norm.isf(FAMILY_FALSE_FAILURE / (2 * len(table)))
    exact = {(int(i), k): truth[r][k] for r, i in enumerate(conditioned.free) for k in range(len(truth[r]))}
    for variable, state, estimate in zip(table["variable"], table["state"], table["probability"]):
        p = exact[int(variable), int(state)]
        assert abs(estimate - p) <= z * np.sqrt(p * (1 - p) / n) + 1e-12, (names[int(variable)], state, estimate, p)


def test_sample_refuses_elimination_blocks_where_they_do_not_apply():
    pytest.importorskip("arviz")
    from dogs.models import grid_model
    from dogs.sampling_call import sample

    with pytest.raises(ValueError, match="elimination"):
        sample(grid_model(2, 2, 0.2), chains=2, draws=4, progress=False, blocks="elimination")
    graph = DiscreteFactorGraph.from_factors([2, 2], [((0, 1), _log([[1, 2], [3, 4]]))])
    with pytest.raises(ValueError, match="elimination"):
        sample(graph, chains=2, draws=4, progress=False, blocks="elimination", certify=True)
    with pytest.raises(ValueError, match="'auto', 'elimination'"):
        sample(graph, chains=2, draws=4, progress=False, blocks="junction")


def test_tables_over_the_memory_limit_are_refused_before_any_chain_runs(monkeypatch):
    import dogs.samplers.factor_gibbs as factor_gibbs
    from dogs.resources import TooLargeError

    graph = random_bayesian_network(np.random.default_rng(0), p=6, zeros=0.0)
    plan = elimination_blocks(graph)
    monkeypatch.setattr(factor_gibbs, "memory_limit_bytes", lambda: 64)
    with pytest.raises(TooLargeError, match="elimination blocks' tables"):
        run_factor_gibbs_draws(graph, Scan(np.array([0]), 6), seed=0, draws=4, n_chains=2,
                               initial_state=positive_starts(graph, 2, np.random.default_rng(0)), elimination=plan)


def test_the_r_hat_warning_points_single_site_factor_graph_chains_to_elimination_blocks():
    """Two variables that must agree (a zero-entry copy factor): single-site chains never move, the warning says
    so and names the remedy; elimination blocks draw the pair exactly, and no warning is given."""
    import warnings

    from dogs.sampling_call import SamplingWarning, sample

    copy = np.where(np.eye(3) > 0, 0.0, -np.inf)
    model = DiscreteFactorGraph.from_factors([3, 3], [((0, 1), copy)])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sample(model, chains=8, draws=50, seed=0, progress=False, blocks=None)
    texts = [str(w.message) for w in caught if issubclass(w.category, SamplingWarning)]
    assert any("R-hat" in t and "blocks='elimination'" in t for t in texts), texts
    with warnings.catch_warnings():
        warnings.simplefilter("error", SamplingWarning)
        data = sample(model, chains=8, draws=50, seed=0, progress=False, blocks="elimination")
    assert int(data.posterior.attrs["factor_graph"]) == 1
