"""Cross-check of the exact engines: pgmpy's variable elimination, one query per variable and per edge.

Independent of the junction tree of :mod:`dogs.exact.junction_tree` except for
the size guard and the elimination order, both from :mod:`dogs.exact.elimination`;
meant for small models (tests compare it with enumeration and the junction tree).
"""

from __future__ import annotations

import math

import numpy as np

from dogs.exact.elimination import elimination_order, plan_junction_tree
from dogs.exact.enumeration import ExactMarginals, ZeroProbabilityError, log_factors, model_structure
from dogs.exact.pgmpy_support import import_pgmpy, node_name, table_by_name

__all__ = ["variable_elimination_marginals"]


def variable_elimination_marginals(model, max_table_entries: int = 2**22) -> ExactMarginals:
    """Node and edge marginals and ``log Z`` with pgmpy's ``VariableElimination`` (a cross-check for small models).

    Each factor (:func:`~dogs.exact.enumeration.log_factors`: a pairwise model's unary and pair tables, a
    factor graph's factors) enters a ``DiscreteMarkovNetwork`` (in pgmpy
    1.1 ``pgmpy.models.MarkovNetwork`` raises ImportError) as
    ``exp(log table - max)``; the maxima are summed into an offset (constant factors straight into ``log Z``). On a Markov network
    ``VariableElimination.query`` returns the unnormalised marginal (unlike
    ``BeliefPropagation.query``, which normalises), so its total is
    ``Z * exp(-offset)`` and gives ``log Z``. Every query gets an explicit
    elimination order, the min-fill order without the queried variables: on a
    Markov network pgmpy silently ignores the named heuristics (``"MinFill"``,
    ...) and uses an arbitrary order, and the order cannot be given to the
    ``VariableElimination`` constructor, only to ``query``. pgmpy 1.1.2 also
    drops the scalar that eliminating a whole other connected component leaves,
    so a query's total is the partition function of its own component; ``log Z``
    is the sum over components.

    Parameters
    ----------
    model : BinaryPairwiseMRF, DiscretePairwiseMRF or DiscreteFactorGraph
    max_table_entries : int, default 2**22
        Treewidth guard (one query is run per variable and per edge, so this
        engine is meant for small models).

    Returns
    -------
    ExactMarginals
        ``method = "variable_elimination"``.
    """
    plan_junction_tree(model, order="min_fill", max_table_entries=max_table_entries)
    structure = model_structure(model)
    import_pgmpy()
    from pgmpy.factors.discrete import DiscreteFactor
    from pgmpy.inference import VariableElimination
    from pgmpy.models import DiscreteMarkovNetwork

    p = structure.n_vars
    card = [int(k) for k in structure.cardinalities]
    names = [node_name(v) for v in range(p)]
    states = {names[v]: list(range(card[v])) for v in range(p)}
    network = DiscreteMarkovNetwork()
    network.add_nodes_from(names)
    network.add_edges_from([(names[i], names[j]) for i, j in structure.edges.tolist()])
    component = _connected_components(p, structure.edges)
    offset = np.zeros(component.max() + 1)  # sum of the subtracted maxima, per connected component
    constant = 0.0  # the constant (empty-scope) factors, outside every component
    factors = []
    for scope, table in log_factors(model):
        peak = float(table.max())
        if not scope:
            constant += peak
            continue
        offset[component[scope[0]]] += peak
        scope_names = [names[v] for v in scope]
        factors.append(DiscreteFactor(scope_names, [card[v] for v in scope], np.exp(table - peak),
                                      {n: states[n] for n in scope_names}))
    network.add_factors(*factors)
    engine = VariableElimination(network)
    order = [names[v] for v in elimination_order(model, "min_fill")]

    def query(query_names):
        keep = set(query_names)
        factor = engine.query(
            list(query_names),
            elimination_order=[n for n in order if n not in keep],
            joint=True,
            show_progress=False,
        )
        return table_by_name(factor, list(query_names))

    node_marginals, log_totals = [], np.zeros(p)
    for v in range(p):
        table = query([names[v]])
        if table.sum() == 0:
            raise ZeroProbabilityError("every state of the model has weight 0 (Z = 0); with evidence, the evidence "
                                       "has probability 0")
        log_totals[v] = math.log(table.sum())
        node_marginals.append(table / table.sum())
    edge_marginals = []
    for i, j in structure.edges.tolist():
        table = query([names[i], names[j]])
        edge_marginals.append(table / table.sum())
    # pgmpy drops the scalar left by eliminating a whole other component, so a query's total
    # is the partition function of the queried variable's component only: add them up
    first_of = [int(np.flatnonzero(component == k)[0]) for k in range(len(offset))]
    log_z = constant + float(sum(offset[k] + log_totals[v] for k, v in enumerate(first_of)))
    spread = max(float(np.ptp(log_totals[component == k])) for k in range(len(offset)))
    return ExactMarginals(
        node_marginals,
        edge_marginals,
        log_z,
        structure.edges,
        "variable_elimination",
        {"n_components": len(offset), "log_z_spread_over_queries": spread},
    )


def _connected_components(p: int, edges: np.ndarray) -> np.ndarray:
    """Component label of each variable of the interaction graph."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    graph = coo_matrix((np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(p, p))
    return connected_components(graph, directed=False)[1]
