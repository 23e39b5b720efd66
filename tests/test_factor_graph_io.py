"""Factor graphs in and out: UAI MARKOV and BAYES files (reader, writer, round trips, the BAYES convention against
enumeration), pgmpy Bayesian networks, Markov networks and factor graphs (from_pgmpy / to_pgmpy), and every network
pgmpy bundles.

The whole sweep of pgmpy's 24 bundled discrete networks takes minutes (loading the largest takes 20-50 s in pgmpy
itself); it runs when ``DOGS_ALL_NETWORKS=1`` is set. The default run loads the five smallest."""

from __future__ import annotations

import itertools
import os
import warnings

import numpy as np
import pytest

from random_factor_graphs import enumerated_marginals, random_bayesian_network, random_markov_graph

from dogs.exact import brute_force
from dogs.models import BinaryPairwiseMRF, DiscretePairwiseMRF, from_pgmpy, to_pgmpy
from dogs.models.factor_graph import DiscreteFactorGraph
from dogs.models.uai import (UAIError, potentials, read_uai, read_uai_factor_graph, read_uai_model, read_uai_network,
                             write_uai)

#: pgmpy's bundled discrete networks (``pgmpy.utils.get_example_model``), smallest first.
BUNDLED = ("asia", "cancer", "earthquake", "sachs", "survey", "alarm", "barley", "child", "insurance", "mildew",
           "water", "hailfinder", "hepar2", "win95pts", "andes", "diabetes", "link", "munin1", "munin2", "munin3",
           "munin4", "pathfinder", "pigs", "munin")
SMALL = BUNDLED[:5]


def example_model(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pgmpy 1.1 announces get_example_model's future removal
        from pgmpy.utils import get_example_model

        return get_example_model(name)


def _same_graph(a: DiscreteFactorGraph, b: DiscreteFactorGraph) -> None:
    assert a.kind == b.kind
    for name in ("cardinalities", "scope_starts", "scope_vars", "table_starts", "log_values"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)  # bit for bit, -inf included


# ------------------------------------------------------------------------------------------ UAI files
@pytest.mark.parametrize("seed", range(6))
def test_uai_round_trip_is_exact(seed, tmp_path):
    """Bit for bit on log tables that are logs of floats (models made of entries: every file, every pgmpy network);
    other log tables come back within 2^-53 (next test)."""
    rng = np.random.default_rng(seed)
    for graph in (random_markov_graph(rng, p=6, n_factors=8), random_bayesian_network(rng, p=7)):
        path = write_uai(graph, tmp_path / f"{graph.kind}.uai")
        back = read_uai_factor_graph(path)
        _same_graph(graph, back)
        text = path.read_text()
        assert write_uai(back, tmp_path / "again.uai").read_text() == text  # file -> ours -> file as well


def test_entries_whose_logs_are_the_log_potentials():
    rng = np.random.default_rng(0)
    v = np.exp(rng.uniform(-700, 700, 100_000))
    theta = np.log(v)  # every model read from a file or pgmpy has such logs: bitwise
    np.testing.assert_array_equal(np.log(potentials(theta)), theta)
    theta = rng.normal(size=100_000) * 1e-6  # logs of no float: the nearest achievable
    assert np.abs(np.log(potentials(theta)) - theta).max() <= 2.0**-53
    assert potentials(np.array([-np.inf]))[0] == 0.0
    with pytest.raises(ValueError, match="overflows"):
        potentials(np.array([800.0]))


# A Bayesian network in the UAI convention, written by hand: a -> b, (a, b) -> c, c -> d; cardinalities 2, 3, 2, 2.
# Each table lists P(child | parents) with the child last in the scope and changing fastest; c is deterministic.
P_A = {0: 0.3, 1: 0.7}
P_B = {0: [0.2, 0.5, 0.3], 1: [0.6, 0.0, 0.4]}                    # P(b | a)
P_C = {(a, b): [1.0, 0.0] if (a + b) % 2 == 0 else [0.0, 1.0] for a in range(2) for b in range(3)}  # c = (a+b) mod 2
P_D = {0: [0.9, 0.1], 1: [0.25, 0.75]}                           # P(d | c)
BAYES_TEXT = "\n".join([
    "c a hand-written BAYES network", "BAYES", "4", "2 3 2 2", "4", "1 0", "2 0 1", "3 0 1 2", "2 2 3", "",
    "2", "0.3 0.7",
    "6", " ".join(str(x) for a in range(2) for x in P_B[a]),
    "12", " ".join(str(x) for a in range(2) for b in range(3) for x in P_C[(a, b)]),
    "4", " ".join(str(x) for c in range(2) for x in P_D[c]), ""])


def _hand_joint():
    """P(a, b, c, d) by the chain rule from the dictionaries above (no file, no package code)."""
    joint = np.zeros((2, 3, 2, 2))
    for a, b, c, d in itertools.product(range(2), range(3), range(2), range(2)):
        joint[a, b, c, d] = P_A[a] * P_B[a][b] * P_C[(a, b)][c] * P_D[c][d]
    return joint


def test_bayes_file_matches_enumeration(tmp_path):
    path = tmp_path / "hand.uai"
    path.write_text(BAYES_TEXT)
    graph = read_uai_factor_graph(path)
    assert graph.kind == "BAYES" and graph.n_factors == 4
    assert np.isneginf(graph.log_values).sum() == 1 + 6  # the zero of P(b | a) and six in c's deterministic table
    joint = _hand_joint()
    exact = brute_force(graph)
    assert abs(exact.log_partition) < 1e-12  # a Bayesian network: Z = 1
    for i in range(4):
        np.testing.assert_allclose(exact.node_marginals[i], joint.sum(axis=tuple(a for a in range(4) if a != i)),
                                   atol=1e-14)
    model, constant = read_uai_model(path)  # a BAYES file is a factor graph even with pairwise tables
    assert isinstance(model, DiscreteFactorGraph) and constant == 0.0


def test_pgmpy_writer_tables_are_refused_by_the_convention(tmp_path):
    """pgmpy 1.1's UAIWriter lists the child last but writes its rows child-slowest: the rows then do not sum to 1."""
    from pgmpy.readwrite import UAIWriter

    network = example_model("asia")
    path = tmp_path / "asia_pgmpy.uai"
    UAIWriter(network).write(str(path))
    with pytest.raises(UAIError, match="sums to .*not 1.*child changing slowest"):
        read_uai_factor_graph(path)
    # our writer follows the convention: read back, the marginals are pgmpy's own exact ones
    ours = from_pgmpy(network)
    graph = read_uai_factor_graph(write_uai(ours.model, tmp_path / "asia.uai"))
    from pgmpy.inference import VariableElimination

    engine = VariableElimination(network)
    exact = brute_force(graph)
    for i, node in enumerate(ours.nodes):
        answer = engine.query([node], show_progress=False)
        expected = [answer.get_value(**{node: state}) for state in ours.states[i]]
        np.testing.assert_allclose(exact.node_marginals[i], expected, atol=1e-12)


def _without_last_table(text):
    """The hand-written network with d's table gone (3 tables for 4 variables)."""
    text = text.replace("4\n1 0\n", "3\n1 0\n").replace("2 2 3\n", "")
    return text[:text.rindex("4\n")]


BAYES_BROKEN = {
    "two tables for one child": (lambda t: t.replace("2 2 3\n", "2 3 2\n"), "child .* of tables 2 and 3"),
    "a directed cycle": (lambda t: t.replace("1 0\n2 0 1", "2 3 0\n2 0 1").replace("2\n0.3 0.7", "4\n0.3 0.7 0.5 0.5"),
                         "directed cycle"),
    "fewer tables than variables": (_without_last_table, "one table per variable, but this one has 3 tables"),
    "a row that is not a distribution": (lambda t: t.replace("0.3 0.7", "0.3 0.6"), "sums to 0.9"),
    "a factor zero everywhere": (lambda t: t.replace("0.3 0.7", "0 0.0"), "zero everywhere"),
    "a positive entry that reads as zero": (lambda t: t.replace("0.3 0.7", "1e-400 0.7"), "read as a hard zero"),
    "a negative entry": (lambda t: t.replace("0.3 0.7", "-0.3 0.7"), "non-negative"),
}


@pytest.mark.parametrize("case", BAYES_BROKEN)
def test_broken_bayes_files_are_refused(case, tmp_path):
    change, words = BAYES_BROKEN[case]
    text = change(BAYES_TEXT)
    assert text != BAYES_TEXT
    path = tmp_path / "broken.uai"
    path.write_text(text)
    with pytest.raises(UAIError, match=words):
        read_uai_factor_graph(path)


def test_which_model_a_file_gives(tmp_path):
    binary = "MARKOV\n3\n2 2 2\n2\n2 0 1\n1 2\n\n4\n1 2 3 4\n2\n1 3\n"
    cases = {"binary pairwise": (binary, BinaryPairwiseMRF),
             "discrete pairwise": (binary.replace("2 2 2\n", "2 2 3\n").replace("2\n1 3\n", "3\n1 3 2\n"),
                                   DiscretePairwiseMRF),
             "a zero entry": (binary.replace("1 2 3 4", "1 0 3 4"), DiscreteFactorGraph),
             "a triple factor": ("MARKOV\n3\n2 2 2\n1\n3 0 1 2\n\n8\n1 2 3 4 5 6 7 8\n", DiscreteFactorGraph),
             "a BAYES network": ("BAYES\n2\n2 2\n2\n1 0\n2 0 1\n\n2\n0.5 0.5\n4\n0.1 0.9 0.8 0.2\n",
                                 DiscreteFactorGraph)}
    for name, (text, kind) in cases.items():
        path = tmp_path / "m.uai"
        path.write_text(text)
        model, _ = read_uai_model(path)
        assert type(model) is kind, name
        graph = read_uai_factor_graph(path)  # any file as a factor graph: the same distribution
        marginals, log_z = enumerated_marginals(graph)
        exact = brute_force(model)
        offset = read_uai_model(path)[1]
        assert np.isclose(exact.log_partition + offset, log_z, rtol=1e-12), name
        for got, expected in zip(exact.node_marginals, marginals):
            np.testing.assert_allclose(got, expected, atol=1e-13)
        if kind is DiscreteFactorGraph:  # the pairwise readers refuse it, pointing to the factor-graph reader
            with pytest.raises(UAIError, match="read_uai_factor_graph|only factors of one or two"):
                read_uai(path)
    path.write_text(cases["a BAYES network"][0])
    with pytest.raises(UAIError, match="BAYES network"):
        read_uai_network(path)


def test_writer_refuses_what_the_reader_would(tmp_path):
    rng = np.random.default_rng(1)
    graph = random_bayesian_network(rng, p=4)
    factors = graph.factors()
    factors[0], factors[1] = factors[1], factors[0]  # tables no longer one per variable in order: still a BN...
    swapped = DiscreteFactorGraph.from_factors(graph.cardinalities, factors, kind="BAYES")
    _same_graph(swapped, read_uai_factor_graph(write_uai(swapped, tmp_path / "ok.uai")))
    scope, table = factors[2]
    factors[2] = (scope, table + np.log(0.5))  # ...but rows summing to 1/2 are not conditional tables
    with pytest.raises(ValueError, match="sums to 0.5"):
        write_uai(DiscreteFactorGraph.from_factors(graph.cardinalities, factors, kind="BAYES"), tmp_path / "bad.uai")
    assert not (tmp_path / "bad.uai").exists()


# ------------------------------------------------------------------------------------------ pgmpy
def test_bayesian_network_from_pgmpy_matches_pgmpy():
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.inference import VariableElimination
    from pgmpy.models import DiscreteBayesianNetwork

    network = DiscreteBayesianNetwork([("rain", "wet"), ("sprinkler", "wet"), ("rain", "sprinkler")])
    rain = TabularCPD("rain", 2, [[0.2], [0.8]], state_names={"rain": ["yes", "no"]})
    sprinkler = TabularCPD("sprinkler", 3, [[0.01, 0.4], [0.49, 0.3], [0.5, 0.3]], evidence=["rain"],
                           evidence_card=[2], state_names={"sprinkler": ["on", "off", "broken"], "rain": ["yes", "no"]})
    wet = TabularCPD("wet", 2, [[0.99, 0.9, 0.0, 0.8, 0.0, 0.1], [0.01, 0.1, 1.0, 0.2, 1.0, 0.9]],
                     evidence=["sprinkler", "rain"], evidence_card=[3, 2],
                     state_names={"wet": ["wet", "dry"], "sprinkler": ["on", "off", "broken"],
                                  "rain": ["yes", "no"]})
    network.add_cpds(rain, sprinkler, wet)
    network.check_model()
    result = from_pgmpy(network)
    graph = result.model
    assert isinstance(graph, DiscreteFactorGraph) and graph.kind == "BAYES" and result.log_constant == 0.0
    assert list(graph.names) == result.nodes and [list(s) for s in graph.state_names] == result.states
    for f in range(graph.n_factors):  # one table per node, the node last
        assert result.nodes[graph.scope(f)[-1]] == result.nodes[f]
    engine = VariableElimination(network)
    exact = brute_force(graph)
    for i, node in enumerate(result.nodes):
        answer = engine.query([node], show_progress=False)
        np.testing.assert_allclose(exact.node_marginals[i], [answer.get_value(**{node: s}) for s in result.states[i]],
                                   atol=1e-12)
    again = from_pgmpy(to_pgmpy(graph))  # back as a DiscreteBayesianNetwork, names and states kept
    assert type(to_pgmpy(graph)).__name__ == "DiscreteBayesianNetwork"
    assert again.nodes == result.nodes and again.states == result.states
    np.testing.assert_allclose(again.model.log_values, graph.log_values, atol=1e-15)


def test_markov_networks_and_factor_graphs_from_pgmpy():
    from pgmpy.factors.discrete import DiscreteFactor
    from pgmpy.models import DiscreteMarkovNetwork, FactorGraph

    rng = np.random.default_rng(2)
    triple = DiscreteFactor(["a", "b", "c"], [2, 3, 2], rng.uniform(0.5, 2, 12) * (rng.random(12) > 0.3),
                            state_names={"a": ["lo", "hi"], "b": ["x", "y", "z"], "c": [0, 1]})
    pair = DiscreteFactor(["c", "d"], [2, 2], [1.0, 2.0, 0.0, 3.0], state_names={"c": [1, 0], "d": ["u", "v"]})
    markov = DiscreteMarkovNetwork([("a", "b"), ("b", "c"), ("a", "c"), ("c", "d")])
    markov.add_factors(triple, pair)
    factor_graph = FactorGraph()
    factor_graph.add_nodes_from(["a", "b", "c", "d"])
    factor_graph.add_factors(triple, pair)
    factor_graph.add_edges_from([(v, triple) for v in "abc"] + [(v, pair) for v in "cd"])
    for network in (markov, factor_graph):
        result = from_pgmpy(network)
        graph = result.model
        assert isinstance(graph, DiscreteFactorGraph) and graph.kind == "MARKOV"
        assert sorted(result.nodes) == ["a", "b", "c", "d"]
        c = result.nodes.index("c")
        assert list(graph.state_names[c]) == [0, 1]  # the first factor's order; the pair table is permuted to it
        states = np.array(list(itertools.product(*[range(int(k)) for k in graph.cardinalities])))
        named = [{node: result.states[i][x[i]] for i, node in enumerate(result.nodes)} for x in states]
        direct = np.array([triple.get_value(**{v: s[v] for v in "abc"}) * pair.get_value(**{v: s[v] for v in "cd"})
                           for s in named])
        with np.errstate(divide="ignore"):
            np.testing.assert_allclose(graph.log_potential(states), np.log(direct), atol=1e-13)
        back = from_pgmpy(to_pgmpy(graph))  # a DiscreteMarkovNetwork with the same distribution
        assert back.nodes == result.nodes and back.states == result.states
        finite = np.isfinite(graph.log_potential(states))
        np.testing.assert_array_equal(np.isfinite(back.model.log_potential(states)), finite)
        shift = back.model.log_potential(states[finite]) - graph.log_potential(states[finite])
        np.testing.assert_allclose(shift, shift[0], atol=1e-12)


def test_pairwise_positive_networks_keep_their_models():
    from pgmpy.factors.discrete import DiscreteFactor
    from pgmpy.models import FactorGraph

    factor = DiscreteFactor(["a", "b"], [2, 2], [1.0, 2.0, 3.0, 4.0])
    graph = FactorGraph()
    graph.add_nodes_from(["a", "b"])
    graph.add_factors(factor)
    graph.add_edges_from([("a", factor), ("b", factor)])
    assert isinstance(from_pgmpy(graph).model, BinaryPairwiseMRF)
    assert isinstance(from_pgmpy(graph, spins=False).model, DiscretePairwiseMRF)


def test_pgmpy_refusals():
    from pgmpy.base import DAG
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork

    network = DiscreteBayesianNetwork([("a", "b")])
    network.add_cpds(TabularCPD("a", 2, [[0.5], [0.5]]))
    with pytest.raises(ValueError, match="'b' has no conditional probability table"):
        from_pgmpy(network)
    with pytest.raises(TypeError, match="DAG"):
        from_pgmpy(DAG([("a", "b")]))


@pytest.mark.parametrize("name", SMALL)
def test_small_bundled_networks_load(name):
    _load_bundled(name)


@pytest.mark.skipif(os.environ.get("DOGS_ALL_NETWORKS") != "1",
                    reason="the sweep of all 24 bundled networks takes minutes: set DOGS_ALL_NETWORKS=1")
@pytest.mark.parametrize("name", BUNDLED[len(SMALL):])
def test_every_bundled_network_loads(name):
    _load_bundled(name)


def _load_bundled(name):
    network = example_model(name)
    result = from_pgmpy(network)
    graph = result.model
    assert isinstance(graph, DiscreteFactorGraph) and graph.kind == "BAYES"
    assert graph.n_vars == len(network.nodes()) == graph.n_factors
    assert result.nodes == list(network.nodes())
    for i, node in enumerate(result.nodes):  # the table of node i is its CPD, the child last, rows summing to 1
        cpd = network.get_cpds(node)
        scope = graph.scope(i)
        assert [result.nodes[v] for v in scope] == list(cpd.variables[1:]) + [node]
        assert list(graph.state_names[i]) == list(cpd.state_names[node])
        np.testing.assert_allclose(np.exp(graph.table(i)).sum(axis=-1), 1.0, atol=1e-6)
        parent_states = {v: cpd.state_names[v][0] for v in cpd.variables[1:]}
        for k, state in enumerate(cpd.state_names[node]):  # one row read back by state names
            expected = cpd.get_value(**{node: state}, **parent_states)
            assert np.isclose(np.exp(graph.table(i)[(0,) * (len(scope) - 1) + (k,)]), expected, rtol=1e-12)
