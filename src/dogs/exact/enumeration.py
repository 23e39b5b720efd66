r"""Exact marginals by enumerating the whole state space (small models only).

For a discrete pairwise MRF (:class:`~dogs.models.DiscretePairwiseMRF`, DoGS
eq. (2)), a binary one (:class:`~dogs.models.BinaryPairwiseMRF`, DoGS
eq. (3), each edge counted once) or a factor graph
(:class:`~dogs.models.factor_graph.DiscreteFactorGraph`, any factors, zero entries as ``-inf``),

.. math::

    \log \pi(x) = L(x) - \log Z, \qquad
    L(x) = \sum_f \theta_f(x_{S_f}) \quad \Big(= \sum_i \phi_i(x_i) + \sum_{(i,j) \in E} \theta^{ij}(x_i, x_j)
    \text{ for a pairwise model}\Big), \qquad
    \log Z = \log \sum_x e^{L(x)},

the log potential ``L`` is built once as a dense tensor of shape
``(K_0, ..., K_{p-1})`` by broadcasting each factor's table onto its
axes, ``log Z`` is a log-sum-exp (stable for any ``log Z``, including
``log Z > 709`` where ``exp`` overflows float64), and every marginal is a sum of
``pi = exp(L - log Z)`` over the other axes. A model under which every state has weight 0
(:math:`Z = 0`, possible only with zero entries: impossible evidence, say) raises
:class:`ZeroProbabilityError` in every engine.

This module also defines :class:`ExactMarginals`, the result type shared by all
exact engines of :mod:`dogs.exact`, and :func:`log_factors`, every model's factors in one form.
"""

from __future__ import annotations

import math
import types
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

__all__ = ["ExactMarginals", "ModelStructure", "ZeroProbabilityError", "as_discrete_model", "brute_force", "log_factors",
           "model_structure"]


class ZeroProbabilityError(ValueError):
    """Every state of the model has weight 0 (:math:`Z = 0`): with evidence, the evidence has probability 0."""


@dataclass(frozen=True, eq=False)
class ExactMarginals:
    r"""Exact single-site and pairwise marginals and the log partition function of a model.

    Parameters
    ----------
    node_marginals : tuple of (K_i,) arrays
        ``node_marginals[i][a] = P(X_i = a)`` in state-index order. For a binary
        model state 0 is the spin ``-1`` and state 1 the spin ``+1``.
    edge_marginals : tuple of (K_i, K_j) arrays
        ``edge_marginals[e][a, b] = P(X_i = a, X_j = b)`` for ``edges[e] = (i, j)``,
        aligned with ``model.edges`` (``i < j``; for a factor graph, the pairs of variables that share a
        factor, :func:`model_structure`).
    log_partition : float
        ``log Z``, the log of the normaliser of ``exp(L(x))``.
    edges : (E, 2) int array
        The model's edges, for reference (``edge_marginals`` is aligned with them).
    method : str
        Which engine produced the result (``"enumeration"``, ``"junction_tree"``,
        ``"variable_elimination"``).
    info : mapping
        Engine-specific facts (elimination order, clique sizes, table entries, ...).
    """

    node_marginals: tuple
    edge_marginals: tuple
    log_partition: float
    edges: np.ndarray
    method: str
    info: Mapping = field(default_factory=dict)

    def __post_init__(self):
        nodes = tuple(_read_only(np.asarray(m, dtype=np.float64)) for m in self.node_marginals)
        pairs = tuple(_read_only(np.asarray(m, dtype=np.float64)) for m in self.edge_marginals)
        edges = _read_only(np.asarray(self.edges, dtype=np.int64).reshape(-1, 2))
        if len(pairs) != len(edges):
            raise ValueError(f"edge_marginals has {len(pairs)} tables but there are {len(edges)} edges")
        object.__setattr__(self, "node_marginals", nodes)
        object.__setattr__(self, "edge_marginals", pairs)
        object.__setattr__(self, "edges", edges)
        object.__setattr__(self, "log_partition", float(self.log_partition))
        object.__setattr__(self, "info", types.MappingProxyType(dict(self.info)))

    @property
    def n_vars(self) -> int:
        return len(self.node_marginals)

    @property
    def cardinalities(self) -> np.ndarray:
        return np.array([m.size for m in self.node_marginals], dtype=np.int64)

    @property
    def node_marginals_array(self) -> np.ndarray:
        """The node marginals stacked as a ``(p, K)`` array (requires all cardinalities equal to ``K``).

        For a binary model column 0 is ``P(x_i = -1)`` and column 1 is ``P(x_i = +1)``.
        """
        card = self.cardinalities
        if np.any(card != card[0]):
            raise ValueError(
                f"node_marginals_array needs equal cardinalities, got {sorted(set(card.tolist()))}: "
                "use node_marginals (one vector per variable) instead"
            )
        return _read_only(np.stack(self.node_marginals))

    def mean_spin(self) -> np.ndarray:
        r"""``E[x_i] = P(x_i = +1) - P(x_i = -1)`` for every site of a binary (spin ±1) model."""
        card = self.cardinalities
        if np.any(card != 2):
            raise ValueError("mean_spin() needs a binary model (every cardinality 2)")
        marg = self.node_marginals_array
        return marg[:, 1] - marg[:, 0]


def _read_only(a: np.ndarray) -> np.ndarray:
    a = np.array(a, copy=True)
    a.setflags(write=False)
    return a


def as_discrete_model(model):
    """Return ``model`` as a :class:`~dogs.models.DiscretePairwiseMRF` (binary models via ``to_discrete()``).

    Raises
    ------
    TypeError
        If ``model`` is neither a ``BinaryPairwiseMRF`` nor a ``DiscretePairwiseMRF``.
    """
    from dogs.models import BinaryPairwiseMRF, DiscretePairwiseMRF

    if isinstance(model, BinaryPairwiseMRF):
        return model.to_discrete()
    if isinstance(model, DiscretePairwiseMRF):
        return model
    raise TypeError(f"model must be a BinaryPairwiseMRF or a DiscretePairwiseMRF, got {type(model).__name__}")


@dataclass(frozen=True)
class ModelStructure:
    """What the size checks need, read without building any table: cardinalities, edges, lattice shape."""

    cardinalities: np.ndarray
    edges: np.ndarray
    shape: tuple | None

    @property
    def n_vars(self) -> int:
        return self.cardinalities.size


def model_structure(model) -> ModelStructure:
    """The :class:`ModelStructure` of a binary or discrete pairwise MRF or a factor graph (no conversion, no tables).

    A factor graph's edges are the pairs ``i < j`` of variables that share a factor (its interaction graph, in
    which every scope is a clique, so every factor lies in a clique of any triangulation of it).

    Raises
    ------
    TypeError
        If ``model`` is none of these.
    """
    from dogs.models import BinaryPairwiseMRF, DiscretePairwiseMRF
    from dogs.models.factor_graph import DiscreteFactorGraph

    if isinstance(model, BinaryPairwiseMRF):
        return ModelStructure(np.full(model.n_vars, 2, dtype=np.int64), model.edges, model.shape)
    if isinstance(model, DiscretePairwiseMRF):
        return ModelStructure(model.cardinalities, model.edges, model.shape)
    if isinstance(model, DiscreteFactorGraph):
        owner = np.repeat(np.arange(model.n_vars), np.diff(model.indptr))
        upper = owner < model.neighbors
        return ModelStructure(model.cardinalities, np.stack([owner[upper], model.neighbors[upper]], axis=1), None)
    raise TypeError(f"model must be a BinaryPairwiseMRF, a DiscretePairwiseMRF or a DiscreteFactorGraph, got "
                    f"{type(model).__name__}")


def log_factors(model) -> list[tuple[tuple[int, ...], np.ndarray]]:
    """Every factor of ``model`` as ``(scope, log table)``, the table's axes in scope order.

    A pairwise model gives its unary tables then its edge tables (binary models via ``to_discrete()``, state 0 =
    spin -1); a factor graph its factors as stored, plus a zero (uniform) unary table for each variable in no
    factor, so that every variable appears in some scope.
    """
    from dogs.models.factor_graph import DiscreteFactorGraph

    if isinstance(model, DiscreteFactorGraph):
        factors = model.factors()
        covered = np.zeros(model.n_vars, dtype=bool)
        covered[model.scope_vars] = True
        return factors + [((v,), np.zeros(int(model.cardinalities[v]))) for v in np.flatnonzero(~covered).tolist()]
    discrete = as_discrete_model(model)
    return ([((v,), unary) for v, unary in enumerate(discrete.unary)]
            + [((i, j), table) for (i, j), table in zip(discrete.edges.tolist(), discrete.tables)])


def check_positive_int(name: str, value) -> int:
    """``value`` as an ``int`` if it is an integer ``>= 1`` (bools refused); shared by the exact engines."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    return int(value)


def log_potential_tensor(model) -> np.ndarray:
    r"""Dense tensor ``L[x_0, ..., x_{p-1}] = sum_f theta_f(x_{S_f})`` of any model (no size check); axis ``i`` is
    variable ``i``, ``-inf`` where a factor is zero."""
    card = tuple(int(k) for k in model_structure(model).cardinalities)
    log_pot = np.zeros(card)
    for scope, table in log_factors(model):
        log_pot += broadcast_table(table, scope, range(len(card)), card)
    return log_pot


def broadcast_table(table: np.ndarray, scope, axes_vars, card) -> np.ndarray:
    """``table`` (axes in ``scope`` order) as an array that broadcasts onto the axes ``axes_vars`` (sorted variables,
    sizes from ``card``, indexed by variable), size 1 along the variables outside the scope."""
    axes_vars = list(axes_vars)
    position = {v: a for a, v in enumerate(axes_vars)}
    order = np.argsort([position[v] for v in scope]) if len(scope) else np.zeros(0, dtype=np.int64)
    shape = [1] * len(axes_vars)
    for v in scope:
        shape[position[v]] = int(card[v])
    return np.transpose(np.asarray(table), order).reshape(shape)


def brute_force(model, max_vars: int = 20) -> ExactMarginals:
    r"""Exact node and edge marginals and ``log Z`` by enumerating every joint state.

    Computes ``log Z = logsumexp_x L(x)`` with ``L`` the log potential of DoGS
    eq. (2)/(3) (see the module docstring) and the marginals
    ``P(X_i = a) = sum_{x: x_i = a} exp(L(x) - log Z)`` and
    ``P(X_i = a, X_j = b)`` for every edge, in float64 without overflow for any
    ``log Z``.

    Parameters
    ----------
    model : BinaryPairwiseMRF, DiscretePairwiseMRF or DiscreteFactorGraph
        The model (binary models are converted with ``to_discrete()``: state 0 = spin -1).
    max_vars : int, default 20
        Refuse models with more than ``max_vars`` variables or more than
        ``2**max_vars`` joint states (the dense tensor takes 8 bytes per state).

    Returns
    -------
    ExactMarginals
        With ``method = "enumeration"`` and ``info["n_states"]``.

    Raises
    ------
    TypeError
        If ``model`` is not a model of this package or ``max_vars`` is not an integer.
    ValueError
        If the model has more than ``max_vars`` variables or ``2**max_vars`` states.
    ZeroProbabilityError
        If every state has weight 0.
    """
    max_vars = check_positive_int("max_vars", max_vars)
    card = [int(k) for k in model_structure(model).cardinalities]
    n_states = math.prod(card)
    if len(card) > max_vars or n_states > 2**max_vars:
        raise ValueError(
            f"brute_force: the state space has {n_states:.4g} joint states over {len(card)} variables "
            f"({n_states * 8 / 2**30:.3g} GiB as float64), above the limit of max_vars = {max_vars} "
            f"variables / 2**{max_vars} = {2**max_vars} states; use junction_tree_marginals instead"
        )
    edges = model_structure(model).edges
    log_pot = log_potential_tensor(model)
    peak = log_pot.max()
    if peak == -np.inf:
        raise ZeroProbabilityError("every state of the model has weight 0 (Z = 0); with evidence, the evidence has "
                                   "probability 0")
    prob = np.exp(log_pot - peak)
    total = prob.sum()
    log_z = float(peak + np.log(total))
    prob /= total
    p = len(card)
    all_axes = set(range(p))
    node = [prob.sum(axis=tuple(sorted(all_axes - {i}))) for i in range(p)]
    pair = [prob.sum(axis=tuple(sorted(all_axes - {int(i), int(j)}))) for i, j in edges]
    return ExactMarginals(node, pair, log_z, edges, "enumeration", {"n_states": n_states})
