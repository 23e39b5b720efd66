"""Passes of block updates without overwritten draws (:mod:`dogs.samplers.block_scans`): the numba sweep against
the rule's plain-Python reading, and the shortened pass against the original as exact Markov kernels on enumerated
states of small factor graphs (not a statistical test: no false failures)."""

from __future__ import annotations

import numpy as np
import pytest

from dogs.samplers.block_scans import unit_sets, without_overwritten_draws
from dogs.samplers.elimination_blocks import EliminationBlocks
from dogs.scans import Scan
from random_factor_graphs import (block_transition, enumerate_joint, or_gate_graph, random_bayesian_network,
                                 random_markov_graph)


def _reference_keep(model, indices, blocks) -> np.ndarray:
    """The rule as written: backwards, drop step t when the first later kept step writing or reading W_t writes
    all of W_t."""
    unit_of, writes = unit_sets(model, blocks)
    w = [set(writes[unit_of[v]].tolist()) for v in indices]
    r = [set().union(*(set(model.neighbors[model.indptr[x]:model.indptr[x + 1]].tolist()) for x in ws)) - ws
         for ws in w]
    keep = [True] * len(indices)
    for t in range(len(indices) - 1, -1, -1):
        for u in range(t + 1, len(indices)):
            if keep[u] and (w[u] & w[t] or r[u] & w[t]):
                keep[t] = not w[t] <= w[u]
                break
    return np.array(keep, dtype=bool)


def _random_case(seed: int):
    rng = np.random.default_rng(seed)
    p = int(rng.integers(3, 7))
    graph = random_markov_graph(rng, p=p, zeros=0.2) if seed % 2 else random_bayesian_network(rng, p=p, zeros=0.2)
    order = rng.permutation(p)
    cut = sorted(rng.choice(np.arange(1, p), size=min(2, p - 1), replace=False).tolist())
    parts = [np.sort(part) for part in np.split(order, cut) if part.size > 1]
    if seed % 3 == 0:  # elimination blocks: overlapping blocks, homes disjoint, some variables without a home
        blocks = []
        for part in parts:
            extra = rng.choice(p, size=int(rng.integers(0, 2)), replace=False)
            blocks.append(np.unique(np.concatenate([part, extra])))
        plan = EliminationBlocks(blocks=[rng.permutation(b) for b in blocks], homes=parts)
    else:
        plan = parts
    indices = rng.integers(0, p, size=int(rng.integers(1, 4 * p)))
    return graph, plan, indices


@pytest.mark.parametrize("seed", range(300))
def test_the_kernel_keeps_what_the_rule_keeps(seed):
    graph, plan, indices = _random_case(seed)
    reduced = without_overwritten_draws(Scan(indices, graph.n_vars), graph, plan)
    n_blocks = len(plan.blocks) if isinstance(plan, EliminationBlocks) else len(plan)
    expected = indices[_reference_keep(graph, indices, plan)] if n_blocks else indices
    np.testing.assert_array_equal(reduced.indices, expected)


def _pass_kernel(graph, states, weights, indices, plan):
    unit_of, writes = unit_sets(graph, plan)
    kernel = np.eye(len(states))
    for v in indices:
        kernel = kernel @ block_transition(graph, states, weights, writes[unit_of[v]])
    positive = weights > 0
    return kernel[np.ix_(positive, positive)]


def test_the_shortened_pass_is_the_same_markov_kernel():
    dropped = kept_all = 0
    for seed in range(60):
        graph, plan, indices = _random_case(seed)
        states, weights = enumerate_joint(graph)
        if len(states) > 400:
            continue
        reduced = without_overwritten_draws(Scan(indices, graph.n_vars), graph, plan).indices
        dropped += reduced.size < indices.size
        kept_all += reduced.size == indices.size
        np.testing.assert_allclose(_pass_kernel(graph, states, weights, reduced, plan),
                                   _pass_kernel(graph, states, weights, indices, plan), atol=1e-12)
    assert dropped >= 10 and kept_all >= 5  # both outcomes were checked


def test_a_site_before_a_draw_of_its_block_and_repeated_draws_are_dropped():
    graph = random_bayesian_network(np.random.default_rng(0), p=4, zeros=0.0)
    plan = EliminationBlocks(blocks=[np.array([0, 1, 2, 3])], homes=[np.array([0, 1])])
    # 2 and 3 are sites (no home); the block writes all four: every step before the last block draw is overwritten
    reduced = without_overwritten_draws(Scan(np.array([2, 0, 3, 1, 0]), 4), graph, plan)
    np.testing.assert_array_equal(reduced.indices, [0])
    uniform = Scan(np.array([0, -1, 0]), 4)
    assert without_overwritten_draws(uniform, graph, plan) is uniform  # uniform steps: the pass stays whole
    assert without_overwritten_draws(Scan(np.array([2, 2]), 4), graph, []).indices.tolist() == [2, 2]


def test_sample_draws_the_shortened_pass():
    pytest.importorskip("arviz")
    from dogs.sampling_call import sample

    graph = or_gate_graph()
    # the block {0, 1, 2} (default blocks) is drawn at steps 0-2 and 4-6: only the last draw before x3's update and
    # the last of the pass are read
    data = sample(graph, [0, 1, 2, 3, 0, 1, 2], chains=2, draws=8, seed=0, progress=False)
    assert data.posterior.attrs["scan_length"] == 3
    single = sample(graph, [0, 1, 2, 3, 0, 1, 2], chains=2, draws=8, seed=0, progress=False, blocks=None)
    assert single.posterior.attrs["scan_length"] == 7  # single-site passes are left as given
