"""Blocked Gibbs on factor graphs: the kernel against a plain-Python replay of the same randomness, every block step
leaving the distribution invariant (its exact transition matrix on enumerated states), the choice of blocks, and
asia made irreducible (a z-test against exact posteriors with its stated false-failure rate).

The statistical test's seed was fixed before it was first run.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import norm

from dogs._kernels.rng import uniform_stream
from dogs.models.factor_graph import DiscreteFactorGraph
from dogs.samplers.base import chain_seeds
from dogs.samplers.factor_blocks import deterministic_blocks, internal_support, pack_blocks
from dogs.samplers.factor_gibbs import pack_factor_graph, positive_starts, run_factor_gibbs_draws
from dogs.scans import systematic_scan, uniform_scan
from random_factor_graphs import (block_transition, enumerate_joint, or_gate_graph, random_bayesian_network,
                                 random_markov_graph)


def _log(values):
    with np.errstate(divide="ignore"):
        return np.log(np.asarray(values, dtype=np.float64))


def _site_weights(graph, exp_values, state, site):
    weights = np.ones(int(graph.cardinalities[site]))
    for slot in range(graph.factor_indptr[site], graph.factor_indptr[site + 1]):
        f, position = graph.factor_ids[slot], graph.factor_positions[slot]
        lo, hi = graph.scope_starts[f], graph.scope_starts[f + 1]
        base = graph.table_starts[f] + sum(int(state[graph.scope_vars[q]]) * int(graph.strides[q])
                                           for q in range(lo, hi) if q != lo + position)
        for k in range(weights.size):
            weights[k] *= exp_values[base + k * graph.strides[lo + position]]
    return weights


def _internal_support(graph, block):
    """Every configuration of ``block`` (sorted) in C order at which each factor within the block is positive."""
    block = sorted(int(v) for v in block)
    inside = [f for f in range(graph.n_factors) if set(graph.scope(f).tolist()) <= set(block)]
    out = []
    for configuration in itertools.product(*[range(int(graph.cardinalities[v])) for v in block]):
        x = dict(zip(block, configuration))
        if all(graph.log_values[graph.table_starts[f] + sum(x[int(v)] * int(s) for v, s in zip(
                graph.scope(f), graph.strides[graph.scope_starts[f]:graph.scope_starts[f + 1]]))] > -np.inf
               for f in inside):
            out.append(configuration)
    return out


def _block_weights(graph, exp_values, state, block, factors):
    """Weights of the block's internal support in C order (the last block variable fastest), each the product of the
    block's factors in increasing order."""
    configurations = _internal_support(graph, block)
    weights = np.ones(len(configurations))
    for c, configuration in enumerate(configurations):
        x = state.copy()
        x[block] = configuration
        for f in factors:
            lo, hi = graph.scope_starts[f], graph.scope_starts[f + 1]
            weights[c] *= exp_values[graph.table_starts[f] + int(x[graph.scope_vars[lo:hi]] @ graph.strides[lo:hi])]
    return configurations, weights


def _reference(graph, blocks, scan, seed, start, passes):
    """The kernel's rule in plain Python on its own uniforms: labels after every pass."""
    exp_values = pack_factor_graph(graph)[8]
    block_of, indptr, block_vars, factor_indptr, block_factors = pack_blocks(graph, blocks)[:5]
    uniforms = iter(uniform_stream(np.uint64(seed), 10 * passes * scan.length + 10))
    state = np.array(start, dtype=np.int64)
    out = []
    for _ in range(passes):
        for site in scan.indices:
            if site < 0:
                site = int(next(uniforms) * graph.n_vars)
            b = block_of[site]
            if b < 0:
                cumulative = np.cumsum(_site_weights(graph, exp_values, state, site))
                u = next(uniforms)
                if cumulative[-1] > 0:
                    state[site] = int(np.sum(cumulative <= u * cumulative[-1]))
                continue
            block = block_vars[indptr[b]:indptr[b + 1]]
            configurations, weights = _block_weights(graph, exp_values, state, block,
                                                     block_factors[factor_indptr[b]:factor_indptr[b + 1]])
            cumulative = np.cumsum(weights)
            u = next(uniforms)
            if cumulative.size and cumulative[-1] > 0:
                state[block] = configurations[int(np.sum(cumulative <= u * cumulative[-1]))]
        out.append(state.copy())
    return np.array(out)


@pytest.mark.parametrize("uniform", [False, True])
def test_block_kernel_replays_the_plain_python_rule(uniform):
    graph = random_bayesian_network(np.random.default_rng(3), p=7, zeros=0.3)
    blocks = [[0, 2, 5], [1, 6]]
    scan = uniform_scan(graph.n_vars, 9) if uniform else systematic_scan(graph.n_vars, 8)
    start = positive_starts(graph, 3, np.random.default_rng(0))
    result = run_factor_gibbs_draws(graph, scan, seed=5, draws=25, n_chains=3, initial_state=start, blocks=blocks)
    for c, seed in enumerate(chain_seeds(5, 3)):
        np.testing.assert_array_equal(result.labels[c], _reference(graph, blocks, scan, seed, start[c], 25))
    n_configs = np.prod(graph.cardinalities[[0, 2, 5]]) - 1, np.prod(graph.cardinalities[[1, 6]]) - 1
    assert result.work.density_evaluations > 0 and max(n_configs) > 0


@pytest.mark.parametrize("seed", range(4))
def test_every_block_step_leaves_the_distribution_invariant(seed):
    rng = np.random.default_rng(seed)
    graph = random_markov_graph(rng, p=5, zeros=0.3) if seed % 2 else random_bayesian_network(rng, p=5, zeros=0.3)
    states, weights = enumerate_joint(graph)
    pi = weights / weights.sum()
    blocks = deterministic_blocks(graph, max_configurations=16) + [rng.choice(5, 2, replace=False)]
    for block in blocks:
        matrix = block_transition(graph, states, weights, np.asarray(block))
        np.testing.assert_allclose(pi @ matrix, pi, atol=1e-12)


def test_deterministic_blocks_group_variables_tied_by_zeros_within_the_cap():
    # x2 = x0 OR x1 (zeros), x3 depends on x2 softly: the block is {0, 1, 2}; x3 stays single
    graph = or_gate_graph()
    assert [b.tolist() for b in deterministic_blocks(graph)] == [[0, 1, 2]]
    # {0, 1, 2} has 4 configurations where the OR factor is positive (of 8): the cap counts those
    assert [b.tolist() for b in deterministic_blocks(graph, max_configurations=4)] == [[0, 1, 2]]
    assert deterministic_blocks(graph, max_configurations=3) == []
    assert [b.tolist() for b in deterministic_blocks(graph, near_zero=0.25)] == [[0, 1, 2, 3]]
    with pytest.raises(ValueError, match="disjoint"):
        pack_blocks(graph, [[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="distinct variables"):
        pack_blocks(graph, [[0, 4]])


@pytest.mark.parametrize("seed", range(6))
def test_internal_support_is_every_configuration_the_blocks_own_factors_allow(seed):
    rng = np.random.default_rng(seed)
    graph = random_markov_graph(rng, p=6, zeros=0.4) if seed % 2 else random_bayesian_network(rng, p=6, zeros=0.4)
    for size in (2, 3, 4):
        block = np.sort(rng.choice(6, size, replace=False))
        expected = np.array(_internal_support(graph, block), dtype=np.int32).reshape(-1, size)
        np.testing.assert_array_equal(internal_support(graph, block), expected)
        np.testing.assert_array_equal(internal_support(graph, block[::-1]), expected)  # any order: sorted rows
    with pytest.raises(ValueError, match="too large"):
        internal_support(DiscreteFactorGraph.from_factors([64] * 4, []), [0, 1, 2, 3])


def test_functional_children_form_one_block_of_few_configurations():
    """A 5-state parent with three children, each a function of it (4 states): single-site Gibbs never moves the
    parent (any change breaks a child's function), and the 320 joint configurations exceed the cap, but the block's
    own factors allow 5, so the default blocks hold all four variables and the chain visits every parent state."""
    functions = [[0, 1, 2, 3, 0], [3, 2, 1, 0, 0], [1, 1, 2, 2, 3]]
    factors = [((0,), _log(np.full(5, 0.2)))]
    for child, function in enumerate(functions, start=1):
        table = np.zeros((5, 4))
        table[np.arange(5), function] = 1.0
        factors.append(((0, child), _log(table)))
    graph = DiscreteFactorGraph.from_factors([5, 4, 4, 4], factors, kind="BAYES")
    blocks = deterministic_blocks(graph)
    assert [b.tolist() for b in blocks] == [[0, 1, 2, 3]]
    assert len(internal_support(graph, blocks[0])) == 5
    start = np.array([2, 2, 1, 2])
    scan = systematic_scan(4, 4)
    single = run_factor_gibbs_draws(graph, scan, seed=0, draws=200, initial_state=start)
    assert np.all(single.labels[0, :, 0] == 2)
    blocked = run_factor_gibbs_draws(graph, scan, seed=0, draws=200, initial_state=start, blocks=blocks)
    assert set(blocked.labels[0, :, 0].tolist()) == set(range(5))
    assert all(np.all(blocked.labels[0, :, child] == np.take(function, blocked.labels[0, :, 0]))
               for child, function in enumerate(functions, start=1))


def test_or_gate_is_reducible_single_site_and_mixes_blocked():
    """x2 = x0 OR x1 with x0, x1 fair coins and evidence-free: single-site chains from (1, 0, 1) never reach
    (0, 1, 1) (that needs x0 and x1 to change together), a blocked chain does. A fact, not a statistic."""
    either = np.zeros((2, 2, 2))
    for a, b in itertools.product(range(2), repeat=2):
        either[a, b, int(a or b)] = 1.0
    # a soft factor keeps (0, 0, 0) improbable so that single-site moves are stuck on one side
    graph = DiscreteFactorGraph.from_factors([2, 2, 2], [((0, 1), _log([[0.0, 1.0], [1.0, 0.0]])),
                                                       ((0, 1, 2), _log(either))])
    start = np.array([1, 0, 1])
    scan = systematic_scan(3, 3)
    single = run_factor_gibbs_draws(graph, scan, seed=0, draws=200, initial_state=start)
    assert np.all(single.labels[0, :, 0] == 1)
    blocked = run_factor_gibbs_draws(graph, scan, seed=0, draws=200, initial_state=start,
                                     blocks=deterministic_blocks(graph))
    assert set(blocked.labels[0, :, 0].tolist()) == {0, 1}


FAMILY_FALSE_FAILURE = 1e-3


def test_asia_blocked_matches_exact_posteriors():
    """asia with evidence ``dysp = yes, xray = no``, 40 blocked chains all started in one state with ``either =
    no``, from which single-site Gibbs never moves (``either = yes`` needs ``tub`` or ``lung`` to change first,
    and they are forced to ``no`` while ``either = no``): every state's estimate, the mean of the chains' own
    averages over 500 sweeps, is within ``z`` standard errors of that mean of the exact posterior, ``z`` the
    two-sided Bonferroni quantile over the marginals at family-wise false-failure rate 1e-3 (the t quantile with
    39 degrees of freedom approximated by the normal; the start's bias after 500 sweeps is far below it). The same
    test without blocks fails: its chains never change ``either``."""
    pytest.importorskip("pgmpy")
    from dogs.benchmarks.networks import load_network
    from dogs.exact import junction_tree_marginals
    from dogs.models.evidence import condition
    from dogs.sampling_call import conditioned_positive_starts

    model, _ = load_network("asia")
    names = list(model.names)
    evidence = {names.index("dysp"): 0, names.index("xray"): 1}
    conditioned = condition(model, evidence)
    reduced = conditioned.model
    blocks = deterministic_blocks(reduced)
    assert any({"tub", "lung", "either"} <= {reduced.names[v] for v in b} for b in blocks)
    truth = junction_tree_marginals(reduced).node_marginals
    either = list(reduced.names).index("either")
    candidates = conditioned_positive_starts(model, conditioned, 200, np.random.default_rng(2))
    starts = candidates[candidates[:, either] == 0][0]  # every chain from one state with either = no: single-site
    # Gibbs never leaves it (tub = lung = no is forced, and either = yes needs one of them)
    result = run_factor_gibbs_draws(reduced, systematic_scan(reduced.n_vars, reduced.n_vars), seed=2, draws=500,
                                    n_chains=40, initial_state=starts, blocks=blocks)
    n_marginals = int(reduced.cardinalities.sum())
    z = norm.isf(FAMILY_FALSE_FAILURE / (2 * n_marginals))
    for v in range(reduced.n_vars):
        for k in range(int(reduced.cardinalities[v])):
            per_chain = (result.labels[:, :, v] == k).mean(axis=1)
            error = abs(per_chain.mean() - truth[v][k])
            assert error <= z * per_chain.std(ddof=1) / np.sqrt(40) + 1e-12, (reduced.names[v], k, per_chain.mean(),
                                                                              truth[v][k])


def test_once_per_block_keeps_each_blocks_first_variable_and_every_other_step():
    from dogs.sampling_call import once_per_block
    from dogs.scans import Scan

    scan = Scan(np.array([0, 1, 2, 3, 4, -1, 4, 3, 2, 1, 0]), 5)
    assert once_per_block(scan, [np.array([3, 1])]).indices.tolist() == [0, 1, 2, 4, -1, 4, 2, 1, 0]


def test_sample_takes_blocks_and_records_them():
    pytest.importorskip("arviz")
    import json

    from dogs.sampling_call import sample

    graph = or_gate_graph(kind="MARKOV")
    data = sample(graph, chains=2, draws=8, seed=0, progress=False)
    assert json.loads(data.posterior.attrs["blocks"]) == [[0, 1, 2]]
    assert data.posterior.attrs["scan_length"] == 2  # a systematic sweep steps on the block once, then on x3
    assert sample(graph, "uniform", chains=2, draws=8, seed=0, progress=False).posterior.attrs["scan_length"] == 4
    observed = sample(graph, chains=2, draws=8, seed=0, progress=False, evidence={1: 0}, blocks=[[0, 1, 2]])
    assert json.loads(observed.posterior.attrs["blocks"]) == [[0, 2]]  # the observed variable left out
    assert json.loads(sample(graph, chains=2, draws=8, seed=0, progress=False, blocks=None)
                      .posterior.attrs["blocks"]) == []
    assert json.loads(sample(graph, chains=2, draws=8, seed=0, progress=False, certify=True)
                      .posterior.attrs["blocks"]) == []
    with pytest.raises(ValueError, match="single-site"):
        sample(graph, chains=2, draws=8, progress=False, certify=True, blocks=[[0, 1]])
    with pytest.raises(ValueError, match="disjoint"):
        sample(graph, chains=2, draws=8, progress=False, blocks=[[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="blocks must be"):
        sample(graph, chains=2, draws=8, progress=False, blocks="all")


def test_automatic_blocks_enumerate_where_they_hold_every_tie_and_eliminate_where_they_cannot():
    pytest.importorskip("arviz")
    import json

    from dogs.samplers.elimination_blocks import EliminationBlocks
    from dogs.samplers.factor_blocks import automatic_blocks, unenclosed_ties
    from dogs.sampling_call import sample

    asia_like = or_gate_graph()
    assert [b.tolist() for b in automatic_blocks(asia_like)] == [[0, 1, 2]]
    assert unenclosed_ties(asia_like, [[0, 1, 2]]) == 0 and unenclosed_ties(asia_like, []) == 1
    # 14 binary variables in a chain, no two neighbours both 1: the chain's support (610 configurations) is over the
    # cap of 256, so the enumerated blocks split some tie, and "auto" takes elimination blocks
    no_two_ones = _log([[1.0, 1.0], [1.0, 0.0]])
    chain = DiscreteFactorGraph.from_factors([2] * 14, [((i, i + 1), no_two_ones) for i in range(13)])
    assert unenclosed_ties(chain, deterministic_blocks(chain)) > 0
    plan = automatic_blocks(chain)
    assert isinstance(plan, EliminationBlocks)
    data = sample(chain, chains=2, draws=8, seed=0, progress=False)
    assert data.posterior.attrs["block_update"] == "elimination"
    assert sorted(v for home in json.loads(data.posterior.attrs["blocks"]) for v in home) == list(range(14))
    certified = sample(chain, chains=2, draws=8, seed=0, progress=False, certify=True)
    assert certified.posterior.attrs["block_update"] == "none"  # the certificate bounds single-site updates
