"""Exact ground truth for pairwise MRFs: brute-force enumeration and a pgmpy junction tree.

- :func:`brute_force` enumerates the joint state space (up to about 2**20 states);
- :func:`plan_junction_tree` (:mod:`~dogs.exact.elimination`) chooses an elimination order
  and the cliques it creates, with a treewidth guard (:class:`ModelTooLargeError`), before
  any table exists;
- :func:`junction_tree_marginals` (:mod:`~dogs.exact.junction_tree`) calibrates a pgmpy
  junction tree built on that plan, with rescaled messages (valid for ``log Z > 709``);
- :func:`variable_elimination_marginals` (:mod:`~dogs.exact.variable_elimination`) is
  pgmpy's variable elimination, a cross-check for small models;
- :mod:`~dogs.exact.chains` holds exact Markov chains (transition matrices, mixing times).

The three engines return :class:`ExactMarginals` (node marginals, edge marginals aligned with
``model.edges``, ``log Z``). pgmpy is imported lazily, so importing this package is cheap.
"""

from dogs.exact.enumeration import ExactMarginals, ModelStructure, as_discrete_model, brute_force, model_structure
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
    "as_discrete_model",
    "brute_force",
    "elimination_order",
    "junction_tree_marginals",
    "model_structure",
    "plan_junction_tree",
    "variable_elimination_marginals",
]
