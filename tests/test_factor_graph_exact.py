"""Exact answers for factor graphs (dogs.exact on DiscreteFactorGraph), with evidence (dogs.models.evidence): the
junction tree and pgmpy's variable elimination against enumeration on random factor graphs and Bayesian networks
with zeros, impossible evidence refused clearly, pgmpy's own VariableElimination with evidence on five bundled
networks, and ``dogs exact`` on MARKOV and BAYES files."""

from __future__ import annotations

import json

import numpy as np
import pytest

from random_factor_graphs import enumerated_marginals, random_bayesian_network, random_markov_graph
from test_factor_graph_io import example_model

from dogs.cli import EXIT_BAD_INPUT, EXIT_OK, main
from dogs.exact import (ModelTooLargeError, ZeroProbabilityError, brute_force, junction_tree_marginals,
                        plan_junction_tree, variable_elimination_marginals)
from dogs.models import from_pgmpy
from dogs.models.evidence import EvidenceError, condition
from dogs.models.factor_graph import DiscreteFactorGraph
from dogs.models.uai import write_uai


def _random_evidence(rng, graph, count):
    """``count`` variables observed at the values of a state of positive probability (found by enumeration)."""
    from random_factor_graphs import enumerate_joint

    states, weights = enumerate_joint(graph)
    state = states[rng.choice(len(states), p=weights / weights.sum())]
    chosen = rng.choice(graph.n_vars, count, replace=False)
    return {int(i): int(state[i]) for i in chosen}


def _check_against_enumeration(graph, evidence, engines):
    conditioned = condition(graph, evidence)
    expected, log_mass = enumerated_marginals(graph, evidence)
    for engine in engines:
        exact = engine(conditioned.model)
        assert np.isclose(exact.log_partition + conditioned.log_constant, log_mass, rtol=1e-11, atol=1e-12), engine
        for got, want in zip(exact.node_marginals, expected):
            np.testing.assert_allclose(got, want, atol=1e-12)
        reference = brute_force(conditioned.model)  # pair marginals of the pairs sharing a factor
        np.testing.assert_array_equal(exact.edges, reference.edges)
        for got, want in zip(exact.edge_marginals, reference.edge_marginals):
            np.testing.assert_allclose(got, want, atol=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_engines_match_enumeration_on_random_factor_graphs(seed):
    rng = np.random.default_rng(seed)
    engines = (junction_tree_marginals, variable_elimination_marginals, brute_force)
    markov = random_markov_graph(rng, p=6, n_factors=7, max_scope=3)
    bayes = random_bayesian_network(rng, p=7, max_parents=3)
    assert np.isneginf(markov.log_values).any() and np.isneginf(bayes.log_values).any()
    for graph in (markov, bayes):
        _check_against_enumeration(graph, {}, engines)
        _check_against_enumeration(graph, _random_evidence(rng, graph, 2), engines)
    assert abs(junction_tree_marginals(bayes).log_partition) < 1e-12  # a Bayesian network: Z = 1


def test_conditioning_slices_every_table():
    rng = np.random.default_rng(11)
    graph = random_bayesian_network(rng, p=5)
    names = [f"v{i}" for i in range(5)]
    states = [[f"s{k}" for k in range(int(c))] for c in graph.cardinalities]
    named = DiscreteFactorGraph(graph.cardinalities, graph.scope_starts, graph.scope_vars, graph.table_starts,
                                graph.log_values, kind="BAYES", names=names, state_names=states)
    evidence = _random_evidence(rng, graph, 2)
    by_index = condition(named, evidence)
    by_name = condition(named, {names[i]: states[i][k] for i, k in evidence.items()})
    assert by_index.evidence == by_name.evidence == evidence
    reduced = by_index.model
    assert reduced.kind == "MARKOV" and list(reduced.names) == [names[i] for i in by_index.free]
    assert np.array_equal(reduced.log_values, by_name.model.log_values)
    # the reduced log potential is the full one with the evidence filled in, less the constant
    full = by_index.full_states(np.array([[k % int(c) for k, c in enumerate(reduced.cardinalities)]]))
    assert np.isclose(reduced.log_potential(full[:, by_index.free])[0] + by_index.log_constant,
                      graph.log_potential(full)[0]) or np.isneginf(graph.log_potential(full)[0])
    with pytest.raises(EvidenceError, match="neither a variable index nor the name"):
        condition(named, {"nope": 0})
    with pytest.raises(EvidenceError, match="nor one of its states"):
        condition(named, {"v0": "nope"})
    with pytest.raises(EvidenceError, match="must be an integer"):
        condition(graph, {"v0": 0})  # no names: indices only


def _deterministic_chain():
    """b = a and c = b exactly (zero entries), a uniform: a Markov chain of copies."""
    with np.errstate(divide="ignore"):
        copy = np.log(np.eye(2))
        return DiscreteFactorGraph.from_factors([2, 2, 2], [((0,), np.log([0.5, 0.5])), ((0, 1), copy), ((1, 2), copy)],
                                                names=["a", "b", "c"])


def test_impossible_evidence_is_refused_clearly():
    graph = _deterministic_chain()
    with pytest.raises(EvidenceError, match="probability zero: factor 1 over \\['a', 'b'\\]"):
        condition(graph, {"a": 0, "b": 1})  # one table rules it out
    conditioned = condition(graph, {"a": 0, "c": 1})  # no single table does: b = 0 and b = 1 at once
    for engine in (junction_tree_marginals, variable_elimination_marginals, brute_force):
        with pytest.raises(ZeroProbabilityError, match="weight 0"):
            engine(conditioned.model)
    exact = junction_tree_marginals(condition(graph, {"a": 1}).model)  # possible evidence: the copies follow
    np.testing.assert_allclose(exact.node_marginals, [[0.0, 1.0], [0.0, 1.0]])


def test_treewidth_guard_covers_factor_graphs():
    factor = np.zeros((2,) * 12)
    graph = DiscreteFactorGraph.from_factors([2] * 12, [(tuple(range(12)), factor)])
    assert plan_junction_tree(graph).largest_clique == 12
    with pytest.raises(ModelTooLargeError):
        junction_tree_marginals(graph, max_table_entries=1000)


# pgmpy's own exact answers with evidence on bundled networks: evidence of positive probability chosen by seed (a
# forward sample of the network, drawn by pgmpy), our junction tree on the conditioned factor graph against pgmpy's
# VariableElimination on the pgmpy network itself, every free marginal and the mass of the evidence.
@pytest.mark.parametrize("name, n_observed", [("asia", 2), ("sachs", 3), ("child", 3), ("insurance", 4),
                                              ("alarm", 4)])
def test_junction_tree_matches_pgmpy_variable_elimination_with_evidence(name, n_observed):
    from pgmpy.inference import VariableElimination
    from pgmpy.sampling import BayesianModelSampling

    network = example_model(name)
    result = from_pgmpy(network)
    rng = np.random.default_rng(sum(map(ord, name)))
    sample = BayesianModelSampling(network).forward_sample(size=1, seed=int(rng.integers(2**31)),
                                                           show_progress=False)
    observed = [result.nodes[i] for i in sorted(rng.choice(len(result.nodes), n_observed, replace=False))]
    evidence = {node: sample[node].iloc[0] for node in observed}
    conditioned = condition(result.model, evidence)  # by node and state names
    exact = junction_tree_marginals(conditioned.model)
    engine = VariableElimination(network)
    joint = engine.query(observed, joint=True, show_progress=False)
    # The bundled tables are rounded: their rows sum to 1 within some d (about 1e-7). pgmpy leaves out the nodes
    # that neither are observed nor lead to an observed or queried node, which is exact only for rows summing to 1
    # exactly, while we sum over every node; the two answers may differ by up to (nodes) x d.
    d = max(float(np.abs(np.exp(table).sum(axis=-1) - 1).max()) for _, table in result.model.factors())
    tolerance = 1e-10 + result.model.n_vars * d
    assert abs(exact.log_partition + conditioned.log_constant - np.log(joint.get_value(**evidence))) <= tolerance
    for r, i in enumerate(conditioned.free.tolist()):
        node = result.nodes[i]
        answer = engine.query([node], evidence=evidence, show_progress=False)
        expected = [answer.get_value(**{node: state}) for state in result.states[i]]
        np.testing.assert_allclose(exact.node_marginals[r], expected, atol=tolerance)


# ------------------------------------------------------------------------------------------ the command
def _run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("kind", ["MARKOV", "BAYES"])
def test_dogs_exact_on_factor_graph_files_with_evidence(kind, tmp_path, capsys):
    rng = np.random.default_rng(5)
    graph = (random_markov_graph(rng, p=6, n_factors=8) if kind == "MARKOV"
             else random_bayesian_network(rng, p=7, max_parents=3))
    path = write_uai(graph, tmp_path / "net.uai")
    evidence = _random_evidence(rng, graph, 2)
    evid = tmp_path / "net.uai.evid"
    evid.write_text(f"{len(evidence)} " + " ".join(f"{i} {k}" for i, k in evidence.items()) + "\n")
    code, out, err = _run(["exact", str(path), "--evidence", str(evid)], capsys)
    assert code == EXIT_OK, err
    result = json.loads(out)
    expected, log_mass = enumerated_marginals(graph, evidence)
    assert np.isclose(result["log_partition"], log_mass, rtol=1e-11, atol=1e-12)
    got = {(row["variable"], row["state"]): row["probability"] for row in result["marginals"]}
    free = [i for i in range(graph.n_vars) if i not in evidence]
    assert all(np.isclose(got[(i, k)], m[k], atol=1e-12) for i, m in zip(free, expected) for k in range(m.size))



def test_dogs_exact_says_when_evidence_is_impossible(tmp_path, capsys):
    path = write_uai(_deterministic_chain(), tmp_path / "chain.uai")
    for observed, words in (("2 0 0 1 1", "probability zero: factor 1"), ("2 0 0 2 1", "has probability zero")):
        evid = tmp_path / "e.evid"
        evid.write_text(observed + "\n")
        code, out, err = _run(["exact", str(path), "--evidence", str(evid)], capsys)
        assert code == EXIT_BAD_INPUT and out == "" and words in err and len(err.strip().splitlines()) == 1, err
