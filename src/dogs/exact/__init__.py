"""Exact ground truth for pairwise MRFs: brute-force enumeration and a pgmpy junction tree.

- :func:`brute_force` enumerates the joint state space (up to about 2**20 states);
- :func:`junction_tree_marginals` calibrates a pgmpy junction tree built from our own
  elimination order, with a treewidth guard (:class:`ModelTooLargeError`) and
  rescaled messages (valid for ``log Z > 709``);
- :func:`variable_elimination_marginals` is pgmpy's variable elimination, a cross-check.

All return :class:`ExactMarginals` (node marginals, edge marginals aligned with
``model.edges``, ``log Z``). pgmpy is imported lazily, so importing this package is cheap.
"""

from dogs.exact.enumeration import ExactMarginals, ModelStructure, as_discrete_model, brute_force, model_structure
from dogs.exact.junction_tree import (
    ORDER_NAMES,
    JunctionTreePlan,
    ModelTooLargeError,
    elimination_order,
    junction_tree_marginals,
    plan_junction_tree,
    variable_elimination_marginals,
)

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
