"""pgmpy interop (:mod:`dogs.models.pgmpy_interop`): our models of pgmpy networks against pgmpy's own exact
inference, round trips, refusals, and the pgmpy example of docs/library.md run as written."""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from dogs.exact.enumeration import brute_force
from dogs.models import BinaryPairwiseMRF, DiscretePairwiseMRF, from_pgmpy, grid_model, to_pgmpy

ROOT = Path(__file__).resolve().parents[1]


def _pgmpy():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pgmpy.factors.discrete import DiscreteFactor
        from pgmpy.inference import VariableElimination
        from pgmpy.models import DiscreteMarkovNetwork
    return DiscreteFactor, DiscreteMarkovNetwork, VariableElimination


def _random_network(cards: dict, edges, seed: int, shuffled_states: bool):
    """A pgmpy network with random positive tables; with ``shuffled_states`` factors list states in varying orders."""
    DiscreteFactor, DiscreteMarkovNetwork, _ = _pgmpy()
    rng = np.random.default_rng(seed)
    names = {v: [f"{v}-s{k}" for k in range(k_v)] for v, k_v in cards.items()}

    def states(v):
        return list(rng.permutation(names[v])) if shuffled_states else names[v]

    network = DiscreteMarkovNetwork(edges)
    network.add_nodes_from(cards)
    factors = [DiscreteFactor([a, b], [cards[a], cards[b]], rng.uniform(0.2, 3.0, cards[a] * cards[b]),
                              state_names={a: states(a), b: states(b)}) for a, b in edges]
    factors += [DiscreteFactor([v], [cards[v]], rng.uniform(0.2, 3.0, cards[v]), state_names={v: states(v)})
                for v in cards]
    network.add_factors(*factors)
    return network


def _by_names(network):
    """Marginals ``{(node, state name): P}`` and log Z by enumerating state names, reading every factor by name."""
    import itertools

    nodes = list(network.nodes())
    names = {}
    for factor in network.get_factors():
        for var in factor.variables:
            names.setdefault(var, sorted(factor.state_names[var], key=str))
    weights, assignments = [], []
    for combo in itertools.product(*(names[n] for n in nodes)):
        assignment = dict(zip(nodes, combo))
        weight = 1.0
        for factor in network.get_factors():
            weight *= factor.get_value(**{v: assignment[v] for v in factor.variables})
        weights.append(weight)
        assignments.append(assignment)
    weights = np.array(weights)
    marginals = {(n, state): weights[[a[n] == state for a in assignments]].sum() / weights.sum()
                 for n in nodes for state in names[n]}
    return marginals, float(np.log(weights.sum()))


def _check_against_pgmpy(network, converted, pgmpy_inference=True):
    """Our exact marginals and log Z of the converted model against enumeration by state name, and against
    pgmpy's variable elimination (which assumes every factor lists a variable's states in one order)."""
    _, _, VariableElimination = _pgmpy()
    exact = brute_force(converted.model)
    reference, log_z = _by_names(network)
    ve = VariableElimination(network) if pgmpy_inference else None
    for i, node in enumerate(converted.nodes):
        answer = ve.query([node], show_progress=False) if ve else None
        if answer is not None:
            answer.normalize()
        for k, state in enumerate(converted.states[i]):
            assert np.isclose(exact.node_marginals[i][k], reference[(node, state)], rtol=1e-10)
            if answer is not None:
                assert np.isclose(exact.node_marginals[i][k], answer.get_value(**{node: state}), rtol=1e-10)
    assert np.isclose(exact.log_partition + converted.log_constant, log_z, rtol=1e-10)
    if pgmpy_inference:
        assert np.isclose(exact.log_partition + converted.log_constant, np.log(network.get_partition_function()),
                          rtol=1e-10)


@pytest.mark.parametrize("shuffled", [False, True])
def test_binary_network_becomes_a_spin_model_with_pgmpys_marginals(shuffled):
    cards = {name: 2 for name in "abcdef"}
    edges = [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "e"), ("e", "f"), ("f", "d")]
    network = _random_network(cards, edges, seed=1, shuffled_states=shuffled)
    converted = from_pgmpy(network)
    assert isinstance(converted.model, BinaryPairwiseMRF) and converted.nodes == list("abcdef")
    _check_against_pgmpy(network, converted, pgmpy_inference=not shuffled)
    labels = from_pgmpy(network, spins=False)  # the same network as labels: state k of variable i is states[i][k]
    assert isinstance(labels.model, DiscretePairwiseMRF)
    _check_against_pgmpy(network, labels, pgmpy_inference=not shuffled)
    # the ±1 convention: the first state of each variable is spin -1
    p_plus = brute_force(converted.model).node_marginals[0][1]  # state index 1 of a ±1 model is spin +1
    assert np.isclose(p_plus, _by_names(network)[0][("a", converted.states[0][1])], rtol=1e-10)


def test_discrete_network_with_mixed_cardinalities():
    cards = {"a": 3, "b": 2, "c": 4, "d": 3}
    edges = [("a", "b"), ("b", "c"), ("c", "d"), ("d", "a")]
    for shuffled in (False, True):
        network = _random_network(cards, edges, seed=2, shuffled_states=shuffled)
        converted = from_pgmpy(network)
        assert isinstance(converted.model, DiscretePairwiseMRF)
        assert converted.model.cardinalities.tolist() == [3, 2, 4, 3]
        _check_against_pgmpy(network, converted, pgmpy_inference=not shuffled)


def test_round_trips():
    binary = grid_model(3, 3, coupling=np.linspace(-1, 1, 12), field=np.linspace(-0.5, 0.5, 9))
    back = from_pgmpy(to_pgmpy(binary)).model
    np.testing.assert_array_equal(back.edges, binary.edges)
    np.testing.assert_allclose(back.theta, binary.theta, atol=1e-13)
    np.testing.assert_allclose(back.h, binary.h, atol=1e-13)
    rng = np.random.default_rng(3)
    discrete = DiscretePairwiseMRF(np.array([2, 3, 4]), [rng.normal(size=k) for k in (2, 3, 4)],
                                   np.array([[0, 1], [1, 2], [0, 2]]),
                                   [rng.normal(size=(2, 3)), rng.normal(size=(3, 4)), rng.normal(size=(2, 4))])
    again = from_pgmpy(to_pgmpy(discrete, names=["u", "v", "w"])).model
    states = np.array(np.meshgrid(range(2), range(3), range(4), indexing="ij")).reshape(3, -1).T
    difference = again.log_potential(states) - discrete.log_potential(states)
    np.testing.assert_allclose(difference, difference[0], atol=1e-12)  # the same distribution


def test_refusals():
    DiscreteFactor, DiscreteMarkovNetwork, _ = _pgmpy()
    network = DiscreteMarkovNetwork([("a", "b")])
    network.add_factors(DiscreteFactor(["a", "b"], [2, 2], [1.0, -1.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match="negative or not finite"):
        from_pgmpy(network)
    network = DiscreteMarkovNetwork([("a", "b")])
    network.add_factors(DiscreteFactor(["a", "b"], [2, 2], [0.0, 0.0, 0.0, 0.0]))
    with pytest.raises(ValueError, match="zero everywhere"):
        from_pgmpy(network)
    network = DiscreteMarkovNetwork([("a", "b")])
    network.add_node("lonely")
    network.add_factors(DiscreteFactor(["a", "b"], [2, 2], [1.0, 2.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match="no factor"):
        from_pgmpy(network)
    with pytest.raises(ValueError, match="distinct"):
        to_pgmpy(grid_model(2, 2, coupling=0.1), names=["a", "a", "b", "c"])


def test_readme_pgmpy_example_runs():
    """The pgmpy example of docs/library.md, run as written: our estimate of P(s00 = up) matches pgmpy's exact answer."""
    text = (ROOT / "docs" / "library.md").read_text()
    match = re.search(r"<!-- pgmpy example -->\s*```python\n(.*?)```", text, re.S)
    assert match, "docs/library.md lost its pgmpy example"
    namespace: dict = {}
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()) as printed:
        warnings.simplefilter("ignore")
        exec(compile(match.group(1), "docs/library.md (pgmpy example)", "exec"), namespace)
    assert "per site update" in printed.getvalue()
    _, _, VariableElimination = _pgmpy()
    answer = VariableElimination(namespace["network"]).query(["s00"], show_progress=False)
    answer.normalize()
    exact = answer.get_value(s00="up")
    estimate = (namespace["ours"].states[:, 0] == 1).mean()
    # 2000 independent chains: standard error at most 0.5 / sqrt(2000) = 0.011, plus the DoGS scan's bias,
    # which its certificate bounds by the printed variation; 5 standard errors fail by chance with p < 1e-6
    assert abs(estimate - exact) < 5 * 0.5 / np.sqrt(2000) + namespace["variation"]
