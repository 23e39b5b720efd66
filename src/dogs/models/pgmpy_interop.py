r"""Conversion between pgmpy networks and this package's models.

:func:`from_pgmpy` reads a pgmpy ``DiscreteBayesianNetwork``, ``DiscreteMarkovNetwork`` (the pinned pgmpy 1.1
refuses to build the older ``MarkovNetwork``: its constructor raises ``ImportError``) or ``FactorGraph`` into
the flat layout the UAI reader uses (:class:`dogs.models.uai.UAINetwork`), so both paths share one tested
conversion. The network is the distribution

.. math::

    \pi(x) = \frac{1}{Z} \prod_f \phi_f(x_{S_f}),

one factor per ``DiscreteFactor`` of a Markov network or factor graph, one per ``TabularCPD`` of a Bayesian
network (:math:`\phi_c = P(x_c \mid x_{pa(c)})`, :math:`Z = 1`).

- **Variables** are numbered in the order of ``network.nodes()`` (of ``get_variable_nodes()`` for a factor
  graph); ``nodes[i]`` is the pgmpy node of variable ``i``.
- **States**: variable ``i``'s labels ``0 .. K_i - 1`` follow the state names of its CPD (Bayesian network) or
  of the first factor that mentions it (``states[i]``); every other table is permuted to that order by state
  name, so tables that list one variable's states in different orders are read correctly.
- **Which model.** A Markov network or factor graph whose factors cover one or two variables and whose entries
  are all positive gives a pairwise model: when every variable has two states (and ``spins`` is true) a
  :class:`~dogs.models.BinaryPairwiseMRF` :math:`\pi(s) \propto \exp(\sum_{i<j} \theta_{ij} s_i s_j +
  \sum_i h_i s_i)` with **label 0 = spin -1 and label 1 = spin +1** (``states[i][0]`` is :math:`s_i = -1`),
  each pair table expanded exactly in spin parities (:func:`dogs.models.uai.binary_pairwise_terms`),
  otherwise a :class:`~dogs.models.DiscretePairwiseMRF` of the log tables. Any other network (larger factors,
  zero entries) gives a :class:`~dogs.models.factor_graph.DiscreteFactorGraph` of kind ``"MARKOV"``, and a
  Bayesian network one of kind ``"BAYES"``: one factor per node, its scope the CPD's parents in the CPD's
  evidence order followed by the node itself (the child last, as in a UAI ``BAYES`` file), zeros as ``-inf``.
  A factor graph keeps ``names = nodes`` and ``state_names = states``.
- ``log_constant``: :math:`\log Z_{network} = \log Z_{model} + \text{log\_constant}` (0 for a factor graph).

A ``TabularCPD``'s ``values`` has the axes of its ``variables``: the child, then the evidence (its
``get_values()`` is the same array as a ``(K_child, prod K_parents)`` matrix).

:func:`to_pgmpy` goes back. A pairwise model gives one unary factor per variable and one pair factor per
edge, each table divided by its largest entry (the distribution is unchanged, and ``exp`` cannot overflow),
with node names ``"x0", "x1", ...`` unless given (pgmpy mistakes an integer node ``0`` for "no node" in
places) and states ``0 .. K_i - 1``. A factor graph keeps its names and state names: of kind ``"BAYES"`` it
gives a ``DiscreteBayesianNetwork`` with one ``TabularCPD`` per factor, otherwise a ``DiscreteMarkovNetwork``
with one ``DiscreteFactor`` per factor (constant factors dropped, a uniform factor for a variable in none).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from dogs.extras import require
from dogs.models.binary import BinaryPairwiseMRF
from dogs.models.discrete import DiscretePairwiseMRF
from dogs.models.factor_graph import DiscreteFactorGraph
from dogs.models.uai import UAINetwork, binary_pairwise_terms, is_pairwise_positive, pairwise_model

__all__ = ["PgmpyModel", "from_pgmpy", "to_pgmpy"]


class PgmpyModel(NamedTuple):
    """Result of :func:`from_pgmpy`."""

    model: BinaryPairwiseMRF | DiscretePairwiseMRF | DiscreteFactorGraph
    nodes: list
    states: list
    log_constant: float


def from_pgmpy(network, *, spins: bool = True) -> PgmpyModel:
    """A pgmpy network as this package's model; see the module docstring for the numbering, the states, the ±1
    convention and which model each network gives.

    Parameters
    ----------
    network : pgmpy DiscreteBayesianNetwork, DiscreteMarkovNetwork or FactorGraph
    spins : bool
        Give a pairwise positive network of binary variables as a ±1 :class:`BinaryPairwiseMRF` (else discrete).

    Raises
    ------
    TypeError
        Another kind of pgmpy model (a DAG without CPDs, a Gaussian network, ...).
    ValueError
        A negative or non-finite entry, a factor that is zero everywhere, a node without any factor or CPD (its
        number of states is unknown), or a factor naming a node not in the network.
    """
    from pgmpy.models import DiscreteBayesianNetwork, DiscreteMarkovNetwork, FactorGraph

    if isinstance(network, DiscreteBayesianNetwork):
        return _from_bayesian_network(network)
    if isinstance(network, FactorGraph):
        nodes = list(network.get_variable_nodes())
    elif isinstance(network, DiscreteMarkovNetwork):
        nodes = list(network.nodes())
    else:
        raise TypeError(f"from_pgmpy takes a pgmpy DiscreteBayesianNetwork, DiscreteMarkovNetwork or FactorGraph, "
                        f"got {type(network).__name__}")
    index = {node: i for i, node in enumerate(nodes)}
    factors = list(network.get_factors())
    states: list = [None] * len(nodes)
    for f, factor in enumerate(factors):
        for var, card in zip(factor.variables, factor.cardinality):
            if var not in index:
                raise ValueError(f"factor {f} names {var!r}, which is not a node of the network")
            if states[index[var]] is None:
                states[index[var]] = list(factor.state_names[var])
            elif len(states[index[var]]) != int(card):
                raise ValueError(f"factor {f} gives {var!r} {card} states, another factor {len(states[index[var]])}")
    missing = [nodes[i] for i, s in enumerate(states) if s is None]
    if missing:
        raise ValueError(f"nodes {missing[:5]} appear in no factor, so their numbers of states are unknown")
    scopes, tables = [], []
    for f, factor in enumerate(factors):
        variables = list(factor.variables)
        scopes.append([index[v] for v in variables])
        tables.append(_log_table(f"factor {f} over {variables}", factor.values, factor.state_names, variables,
                                 [states[index[v]] for v in variables]))
    flat = _flat(states, scopes, tables)
    if not is_pairwise_positive(flat):
        return PgmpyModel(DiscreteFactorGraph(flat.cardinalities, flat.scope_starts, flat.scope_vars,
                                              flat.table_starts, flat.log_values, names=nodes, state_names=states),
                          nodes, states, 0.0)
    if spins and np.all(flat.cardinalities == 2):
        edges, theta, h, offset = binary_pairwise_terms(flat)
        return PgmpyModel(BinaryPairwiseMRF(edges, theta, h), nodes, states, offset)
    model, constant = pairwise_model(flat)
    return PgmpyModel(model, nodes, states, constant)


def _from_bayesian_network(network) -> PgmpyModel:
    """One factor per node: its CPD with the child's axis moved last (module docstring)."""
    nodes = list(network.nodes())
    index = {node: i for i, node in enumerate(nodes)}
    cpds = []
    for node in nodes:
        cpd = network.get_cpds(node)
        if cpd is None:
            raise ValueError(f"node {node!r} has no conditional probability table, so the network defines no "
                             "distribution (add its TabularCPD)")
        if not hasattr(cpd, "state_names") or list(cpd.variables)[:1] != [node]:
            raise TypeError(f"the CPD of {node!r} is not a discrete TabularCPD of that node")
        cpds.append(cpd)
    states = [list(cpd.state_names[node]) for node, cpd in zip(nodes, cpds)]
    scopes, tables = [], []
    for node, cpd in zip(nodes, cpds):
        variables = list(cpd.variables)  # the child, then its parents: the axes of cpd.values
        for v in variables[1:]:
            if v not in index:
                raise ValueError(f"the CPD of {node!r} is conditioned on {v!r}, which is not a node of the network")
        table = _log_table(f"the CPD of {node!r}", cpd.values, cpd.state_names, variables,
                           [states[index[v]] for v in variables])
        scopes.append([index[v] for v in variables[1:]] + [index[node]])
        tables.append(np.moveaxis(table, 0, -1))
    flat = _flat(states, scopes, tables)
    graph = DiscreteFactorGraph(flat.cardinalities, flat.scope_starts, flat.scope_vars, flat.table_starts,
                                flat.log_values, kind="BAYES", names=nodes, state_names=states)
    return PgmpyModel(graph, nodes, states, 0.0)


def _log_table(what: str, values, state_names: dict, variables: list, canonical: list) -> np.ndarray:
    """The log of a pgmpy table (axes = ``variables``), every axis put in the canonical state order by name."""
    values = np.asarray(values, dtype=np.float64)
    if not (np.all(np.isfinite(values)) and np.all(values >= 0)):
        raise ValueError(f"{what} has an entry that is negative or not finite")
    for axis, (var, order) in enumerate(zip(variables, canonical)):
        listed = list(state_names[var])
        try:
            if len(listed) != len(order):
                raise ValueError
            values = np.take(values, [listed.index(state) for state in order], axis=axis)
        except ValueError:
            raise ValueError(f"{what} lists the states {listed} for {var!r}, another table {order}") from None
    with np.errstate(divide="ignore"):
        return np.log(values)


def _flat(states: list, scopes: list, tables: list) -> UAINetwork:
    """The flat layout of :class:`UAINetwork` (and of the factor graph) from scopes and log tables."""
    cards = np.array([len(s) for s in states], dtype=np.int64)
    scope_starts = np.concatenate([[0], np.cumsum([len(s) for s in scopes])]).astype(np.int64)
    table_starts = np.concatenate([[0], np.cumsum([t.size for t in tables])]).astype(np.int64)
    return UAINetwork(cards, scope_starts, np.array([v for s in scopes for v in s], dtype=np.int64), table_starts,
                      np.concatenate([t.ravel() for t in tables]) if tables else np.zeros(0), source="pgmpy network")


def to_pgmpy(model, names=None):
    """A pgmpy network with the distribution of ``model`` (module docstring).

    Parameters
    ----------
    model : BinaryPairwiseMRF, DiscretePairwiseMRF or DiscreteFactorGraph
        A factor graph of kind ``"BAYES"`` gives a ``DiscreteBayesianNetwork`` (one ``TabularCPD`` per variable);
        any other model a ``DiscreteMarkovNetwork``.
    names : sequence, optional
        pgmpy node names of the variables (default: a factor graph's own ``names``, else ``"x0", "x1", ...``).
    """
    require("pgmpy", "dogs.models.to_pgmpy")
    from pgmpy.factors.discrete import DiscreteFactor
    from pgmpy.models import DiscreteMarkovNetwork

    p = model.n_vars
    if names is None:
        names = getattr(model, "names", None) or [f"x{i}" for i in range(p)]
    names = list(names)
    if len(names) != p or len(set(names)) != p:
        raise ValueError(f"names must give {p} distinct node names, got {len(names)} ({len(set(names))} distinct)")
    if isinstance(model, DiscreteFactorGraph):
        return _factor_graph_to_pgmpy(model, names)
    if isinstance(model, BinaryPairwiseMRF):
        spins = np.array([-1.0, 1.0])
        unary = [model.h[i] * spins for i in range(p)]
        tables = [t * np.outer(spins, spins) for t in model.theta]
        cards = np.full(p, 2)
    elif isinstance(model, DiscretePairwiseMRF):
        unary, tables, cards = list(model.unary), list(model.tables), model.cardinalities
    else:
        raise TypeError(f"model must be a BinaryPairwiseMRF, DiscretePairwiseMRF or DiscreteFactorGraph, got "
                        f"{type(model).__name__}")
    network = DiscreteMarkovNetwork()
    network.add_nodes_from(names)
    network.add_edges_from([(names[i], names[j]) for i, j in model.edges.tolist()])
    factors = []
    for i in range(p):
        factors.append(DiscreteFactor([names[i]], [int(cards[i])], np.exp(unary[i] - unary[i].max())))
    for (i, j), table in zip(model.edges.tolist(), tables):
        factors.append(DiscreteFactor([names[i], names[j]], [int(cards[i]), int(cards[j])],
                                      np.exp(table - table.max()).ravel()))
    network.add_factors(*factors)
    return network


def _factor_graph_to_pgmpy(graph: DiscreteFactorGraph, names: list):
    """A ``DiscreteBayesianNetwork`` (kind ``"BAYES"``) or a ``DiscreteMarkovNetwork`` of the factor graph."""
    from pgmpy.factors.discrete import DiscreteFactor, TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork, DiscreteMarkovNetwork

    cards = [int(k) for k in graph.cardinalities]
    states = graph.state_names or [list(range(k)) for k in cards]
    state_names = {names[v]: list(states[v]) for v in range(graph.n_vars)}
    if graph.kind == "BAYES":
        network = DiscreteBayesianNetwork()
        network.add_nodes_from(names)
        cpds = []
        for scope, table in graph.factors():
            if not scope:
                raise ValueError("a BAYES factor graph has a factor with an empty scope: no variable's CPD")
            *parents, child = scope
            network.add_edges_from([(names[q], names[child]) for q in parents])
            values = np.exp(np.moveaxis(table, -1, 0)).reshape(cards[child], -1)  # rows: the child's states
            cpds.append(TabularCPD(names[child], cards[child], values, evidence=[names[q] for q in parents] or None,
                                   evidence_card=[cards[q] for q in parents] or None,
                                   state_names={names[v]: state_names[names[v]] for v in scope}))
        network.add_cpds(*cpds)
        return network
    network = DiscreteMarkovNetwork()
    network.add_nodes_from(names)
    covered = np.zeros(graph.n_vars, dtype=bool)
    factors = []
    for scope, table in graph.factors():
        if not scope:
            continue  # a constant factor changes Z only, and pgmpy has no factor without variables
        covered[list(scope)] = True
        network.add_edges_from([(names[a], names[b]) for k, a in enumerate(scope) for b in scope[k + 1:]])
        factors.append(DiscreteFactor([names[v] for v in scope], [cards[v] for v in scope],
                                      np.exp(table - table.max()), state_names={names[v]: state_names[names[v]]
                                                                                 for v in scope}))
    for v in np.flatnonzero(~covered).tolist():  # a variable in no factor is uniform; pgmpy needs its factor
        factors.append(DiscreteFactor([names[v]], [cards[v]], np.ones(cards[v]),
                                      state_names={names[v]: state_names[names[v]]}))
    network.add_factors(*factors)
    return network
