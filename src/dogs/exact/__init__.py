"""Exact ground truth for pairwise MRFs and factor graphs: brute-force enumeration and a pgmpy junction tree.

- :func:`brute_force` enumerates the joint state space (up to about 2**20 states);
- :func:`plan_junction_tree` (:mod:`~dogs.exact.elimination`) chooses an elimination order
  and the cliques it creates, with a treewidth guard (:class:`ModelTooLargeError`), before
  any table exists;
- :func:`junction_tree_marginals` (:mod:`~dogs.exact.junction_tree`) calibrates a pgmpy
  junction tree built on that plan, with rescaled messages (valid for ``log Z > 709``);
- :func:`variable_elimination_marginals` (:mod:`~dogs.exact.variable_elimination`) is
  pgmpy's variable elimination, a cross-check for small models;
- :mod:`~dogs.exact.chains` holds exact Markov chains (transition matrices, mixing times).

The three engines take a binary or discrete pairwise MRF or a
:class:`~dogs.models.factor_graph.DiscreteFactorGraph` (zero entries allowed; condition on evidence first
with :func:`dogs.models.evidence.condition`, whose ``log_constant`` added to ``log Z`` of the reduced model
is the log mass of the evidence, ``log P(evidence)`` for a Bayesian network), and return
:class:`ExactMarginals` (node marginals, edge marginals aligned with the model's edges, ``log Z``). A model
under which every state has weight 0 raises :class:`ZeroProbabilityError`. pgmpy is imported lazily, so
importing this package is cheap.
"""

from dogs.exact.enumeration import (
    ExactMarginals,
    ModelStructure,
    ZeroProbabilityError,
    as_discrete_model,
    brute_force,
    log_factors,
    model_structure,
)
from dogs.exact.elimination import (
    ORDER_NAMES,
    JunctionTreePlan,
    ModelTooLargeError,
    elimination_order,
    plan_junction_tree,
)
from dogs.exact.junction_tree import junction_tree_marginals
from dogs.exact.variable_elimination import variable_elimination_marginals

__all__ = [
    "ORDER_NAMES",
    "ExactMarginals",
    "ModelStructure",
    "JunctionTreePlan",
    "ModelTooLargeError",
    "ZeroProbabilityError",
    "as_discrete_model",
    "brute_force",
    "elimination_order",
    "junction_tree_marginals",
    "log_factors",
    "model_structure",
    "plan_junction_tree",
    "variable_elimination_marginals",
]
