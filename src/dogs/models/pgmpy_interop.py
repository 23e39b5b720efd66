r"""Conversion between pgmpy Markov networks and this package's pairwise models.

A pgmpy ``DiscreteMarkovNetwork`` (the pinned pgmpy 1.1 refuses to build the older ``MarkovNetwork``: its constructor
raises ``ImportError``) whose ``DiscreteFactor`` s each cover one or two variables is the distribution

.. math::

    \pi(x) = \frac{1}{Z} \prod_f \phi_f(x_{S_f}), \qquad |S_f| \le 2,

the pairwise form of DoGS eq. (2) with log potentials :math:`\log \phi_f`. :func:`from_pgmpy` reads it
into the same flat layout the UAI reader uses (:class:`dogs.models.uai.UAINetwork`) and builds the model
from there, so both paths share one tested conversion:

- **Variables** are numbered in the order of ``network.nodes()``; ``nodes[i]`` is the pgmpy node of
  variable ``i``.
- **States**: variable ``i``'s labels ``0 .. K_i - 1`` follow the state names of the first factor that
  mentions it (``states[i]``); other factors are permuted to that order by state name, so factors that
  list one variable's states in different orders are read correctly.
- **The ±1 convention**: when every variable has two states (and ``spins`` is true), the result is a
  :class:`~dogs.models.BinaryPairwiseMRF` :math:`\pi(s) \propto \exp(\sum_{i<j} \theta_{ij} s_i s_j +
  \sum_i h_i s_i)` with **label 0 = spin -1 and label 1 = spin +1** (``states[i][0]`` is :math:`s_i = -1`),
  each pair table expanded exactly in spin parities (:func:`dogs.models.uai.binary_pairwise_terms`);
  otherwise a :class:`~dogs.models.DiscretePairwiseMRF` of the log tables.
- ``log_constant``: :math:`\log Z_{network} = \log Z_{model} + \text{log\_constant}`.

:func:`to_pgmpy` goes back: one unary factor per variable and one pair factor per edge, each table
divided by its largest entry (the distribution is unchanged, and ``exp`` cannot overflow), with node
names ``"x0", "x1", ...`` unless given (pgmpy mistakes an integer node ``0`` for "no node" in places) and
states ``0 .. K_i - 1``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from dogs.extras import require
from dogs.models.binary import BinaryPairwiseMRF
from dogs.models.discrete import DiscretePairwiseMRF
from dogs.models.uai import UAINetwork, binary_pairwise_terms, pairwise_model

__all__ = ["PgmpyModel", "from_pgmpy", "to_pgmpy"]


class PgmpyModel(NamedTuple):
    """Result of :func:`from_pgmpy`."""

    model: BinaryPairwiseMRF | DiscretePairwiseMRF
    nodes: list
    states: list
    log_constant: float


def from_pgmpy(network, *, spins: bool = True) -> PgmpyModel:
    """A pgmpy pairwise Markov network as a :class:`BinaryPairwiseMRF` (all binary, ``spins``) or a
    :class:`DiscretePairwiseMRF`; see the module docstring for the numbering and the ±1 convention.

    Raises
    ------
    ValueError
        A factor over more than two variables, a non-positive or non-finite entry, a node without any
        factor (its number of states is unknown), or a factor naming a node not in the network.
    """
    nodes = list(network.nodes())
    index = {node: i for i, node in enumerate(nodes)}
    factors = list(network.get_factors())
    states: list = [None] * len(nodes)
    for f, factor in enumerate(factors):
        if len(factor.variables) > 2:
            raise ValueError(f"factor {f} over {list(factor.variables)} has more than two variables; only pairwise "
                             "networks are supported")
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
    cards = np.array([len(s) for s in states], dtype=np.int64)
    scope_vars, scope_sizes, tables = [], [], []
    for f, factor in enumerate(factors):
        variables = list(factor.variables)
        values = np.asarray(factor.values, dtype=np.float64)
        if not (np.all(np.isfinite(values)) and np.all(values > 0)):
            raise ValueError(f"factor {f} over {variables} has an entry that is not positive and finite")
        for axis, var in enumerate(variables):  # to the canonical state order of var
            order = [list(factor.state_names[var]).index(s) for s in states[index[var]]]
            values = np.take(values, order, axis=axis)
        scope_vars += [index[v] for v in variables]
        scope_sizes.append(len(variables))
        tables.append(np.log(values).ravel())
    scope_starts = np.concatenate([[0], np.cumsum(scope_sizes)]).astype(np.int64)
    table_starts = np.concatenate([[0], np.cumsum([t.size for t in tables])]).astype(np.int64)
    flat = UAINetwork(cards, scope_starts, np.array(scope_vars, dtype=np.int64), table_starts,
                      np.concatenate(tables) if tables else np.zeros(0), source="pgmpy network")
    if spins and np.all(cards == 2):
        edges, theta, h, offset = binary_pairwise_terms(flat)
        return PgmpyModel(BinaryPairwiseMRF(edges, theta, h), nodes, states, offset)
    model, constant = pairwise_model(flat)
    return PgmpyModel(model, nodes, states, constant)


def to_pgmpy(model, names=None):
    """A pgmpy ``DiscreteMarkovNetwork`` with the distribution of ``model`` (label 0 = spin -1 for ±1 models).

    Parameters
    ----------
    model : BinaryPairwiseMRF or DiscretePairwiseMRF
    names : sequence, optional
        pgmpy node names of the variables (default ``"x0", "x1", ...``).
    """
    require("pgmpy", "dogs.models.to_pgmpy")
    from pgmpy.factors.discrete import DiscreteFactor
    from pgmpy.models import DiscreteMarkovNetwork

    p = model.n_vars
    names = [f"x{i}" for i in range(p)] if names is None else list(names)
    if len(names) != p or len(set(names)) != p:
        raise ValueError(f"names must give {p} distinct node names, got {len(names)} ({len(set(names))} distinct)")
    if isinstance(model, BinaryPairwiseMRF):
        spins = np.array([-1.0, 1.0])
        unary = [model.h[i] * spins for i in range(p)]
        tables = [t * np.outer(spins, spins) for t in model.theta]
        cards = np.full(p, 2)
    elif isinstance(model, DiscretePairwiseMRF):
        unary, tables, cards = list(model.unary), list(model.tables), model.cardinalities
    else:
        raise TypeError(f"model must be a BinaryPairwiseMRF or DiscretePairwiseMRF, got {type(model).__name__}")
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
