r"""Exact marginals and ``log Z`` from a pgmpy junction tree, calibrated in two rescaled passes.

The model is a pairwise MRF (DoGS eq. (2); binary models, eq. (3) with each
edge counted once, enter through ``to_discrete()``, state 0 = spin -1) or a
factor graph (:class:`~dogs.models.factor_graph.DiscreteFactorGraph`, zero
entries allowed):

.. math::

    \pi(x) = \frac{1}{Z} \prod_f \psi_f(x_{S_f}),
    \qquad \psi = \exp(\text{log potential}).

Junction tree (Lauritzen & Spiegelhalter 1988; Koller & Friedman 2009,
ch. 10). The cliques and the tree come from :func:`~dogs.exact.plan_junction_tree`
(:mod:`dogs.exact.elimination`: our own elimination order, because pgmpy's
default triangulation gives 31-33-variable cliques on 9x9 and 10x10 lattices,
and the treewidth guard); this module does the numeric part:

1. **Clique potentials.** Each factor's log table (:func:`~dogs.exact.enumeration.log_factors`)
   is added to the smallest clique (by table size) that contains its scope
   (every scope is a clique of the interaction graph, so some clique of its
   triangulation contains it); each clique table is exponentiated after
   subtracting its maximum, which is kept as a log offset, and becomes a pgmpy
   ``DiscreteFactor`` named by strings (:func:`~dogs.exact.pgmpy_support.node_name`).
   A clique table whose maximum is ``-inf`` (its factors are zero together
   everywhere) means :math:`Z = 0`: :class:`~dogs.exact.ZeroProbabilityError`.
2. **Two-pass calibration** (Hugin schedule) on pgmpy ``DiscreteFactor``
   operations: one collect pass towards the root and one distribute pass back,
   one message per tree edge each way. pgmpy itself works in float64 without
   rescaling, so beliefs overflow once ``log Z > 709`` (where ``exp`` overflows
   float64; e.g. a 9x9 torus at coupling 5 has ``log Z`` near 800). Here every
   factor and message is divided by its maximum and the logarithm of that
   maximum is carried as an offset, so ``log Z`` stays exact at any size (a
   maximum of 0 is again :math:`Z = 0`; zero entries stay exact zeros, and the
   distribute pass divides 0 by 0 only where a message is 0, which pgmpy
   makes 0):

   .. math::

       \mu_{c \to p}(s) = \sum_{x_{C_c \setminus S}} \beta^{\uparrow}_c, \qquad
       \log Z = \log \sum \beta^{\uparrow}_{root} + \text{offsets}, \qquad
       \beta_c = \beta^{\uparrow}_c \, \frac{\sum_{C_p \setminus S} \beta_p}{\mu_{c \to p}}.

3. Node and edge marginals are read from the calibrated clique beliefs
   (smallest clique containing the variable or edge), addressing axes by
   variable name (pgmpy orders product axes by a Python set, so positions change
   with the hash seed).

:func:`~dogs.exact.variable_elimination_marginals` (:mod:`dogs.exact.variable_elimination`)
is an independent cross-check for small models.
"""

from __future__ import annotations

import math
import time

import numpy as np

from dogs.exact.elimination import JunctionTreePlan, plan_junction_tree
from dogs.exact.enumeration import ExactMarginals, ZeroProbabilityError, broadcast_table, log_factors, model_structure
from dogs.exact.pgmpy_support import import_pgmpy, node_name, table_by_name

__all__ = ["junction_tree_marginals"]


def _smallest_cliques(plan: JunctionTreePlan, p: int, scopes):
    """For every scope (a tuple of variables), the index of the smallest clique (by table size) containing it."""
    containing: list[set[int]] = [set() for _ in range(p)]
    for c, clique in enumerate(plan.cliques):
        for v in clique:
            containing[v].add(c)
    size = plan.clique_entries
    homes = []
    for scope in scopes:
        shared = set.intersection(*(containing[v] for v in scope)) if scope else set(range(len(plan.cliques)))
        if not shared:
            raise RuntimeError(f"internal error: the scope {tuple(scope)} is in no clique of the junction tree")
        homes.append(min(shared, key=size.__getitem__))
    return homes


def _clique_log_potentials(card, plan: JunctionTreePlan, factors):
    """Log potential of each clique (axes = its sorted variables): the sum of the factors' log tables assigned to it,
    each factor to the smallest clique containing its scope (a constant factor to the first clique)."""
    logs = [np.zeros(tuple(int(card[v]) for v in clique)) for clique in plan.cliques]
    homes = _smallest_cliques(plan, len(card), [scope for scope, _ in factors])
    for (scope, table), c in zip(factors, homes):
        logs[c] += broadcast_table(table, scope, plan.cliques[c], card)
    return logs


def _rescale_max(factor) -> float:
    """Divide ``factor`` in place by its maximum; return the log of that maximum.

    A maximum of 0 means that every state has weight 0 (:class:`ZeroProbabilityError`)."""
    peak = float(factor.values.max())
    if peak == 0:
        raise ZeroProbabilityError("every state of the model has weight 0 (Z = 0): the junction tree found a clique "
                                   "or message that is zero everywhere; with evidence, the evidence has probability 0")
    if not (np.isfinite(peak) and peak > 0):
        raise FloatingPointError(f"junction tree calibration failed: a factor has maximum {peak}")
    factor.values /= peak
    return math.log(peak)


def _two_pass_calibration(potentials: dict, log_offset: dict, neighbours: dict, root):
    """Hugin collect/distribute over one tree of pgmpy factors; returns (log Z of the component, beliefs).

    ``potentials[c]`` are pgmpy ``DiscreteFactor`` with maximum 1 and true value
    ``exp(log_offset[c]) * potentials[c]``; they are modified in place and
    become the normalised clique beliefs.
    """
    parent = {root: None}
    bfs = [root]
    for node in bfs:
        for other in neighbours[node]:
            if other not in parent:
                parent[other] = node
                bfs.append(other)
    up = potentials
    scale = dict(log_offset)
    message_up = {}
    # collect: leaves to root, one message per edge
    for child in reversed(bfs[1:]):
        par = parent[child]
        separator = set(child) & set(par)
        msg = up[child].marginalize([v for v in up[child].variables if v not in separator], inplace=False)
        msg_log = scale[child] + _rescale_max(msg)
        message_up[child] = msg
        up[par].product(msg, inplace=True)
        scale[par] += msg_log + _rescale_max(up[par])
    total = float(up[root].values.sum())
    log_z = scale[root] + math.log(total)
    up[root].values /= total
    # distribute: root to leaves, one message per edge; beliefs are normalised to sum 1
    for child in bfs[1:]:
        par = parent[child]
        separator = set(child) & set(par)
        ratio = up[par].marginalize([v for v in up[par].variables if v not in separator], inplace=False)
        with np.errstate(divide="ignore", invalid="ignore"):  # 0/0 where a message underflowed: pgmpy maps it to 0
            ratio.divide(message_up[child], inplace=True)
        _rescale_max(ratio)
        up[child].product(ratio, inplace=True)
        up[child].values /= up[child].values.sum()
    for c, belief in up.items():
        if not np.all(np.isfinite(belief.values)):
            raise FloatingPointError(f"junction tree calibration produced non-finite beliefs in clique {c}")
    return log_z, up


def _marginal_from_belief(belief, names: list) -> np.ndarray:
    """Normalised marginal of a pgmpy clique belief on ``names`` (in that axis order)."""
    table = table_by_name(belief, names)
    return table / table.sum()


def junction_tree_marginals(model, order="auto", max_table_entries: int = 2**27) -> ExactMarginals:
    """Exact node and edge marginals and ``log Z`` from a calibrated pgmpy junction tree.

    Parameters
    ----------
    model : BinaryPairwiseMRF, DiscretePairwiseMRF or DiscreteFactorGraph
    order : {"auto", "row_major", "min_degree", "min_fill"} or sequence of int
        Elimination order that defines the cliques (see :func:`~dogs.exact.plan_junction_tree`).
    max_table_entries : int, default 2**27
        Treewidth guard: the largest allowed total number of clique-table entries.

    Returns
    -------
    ExactMarginals
        ``method = "junction_tree"``; ``info`` holds the order used, the number
        of cliques, the largest clique (variables and entries), the total entries,
        the candidates tried and the seconds spent planning, building and calibrating.

    Raises
    ------
    ModelTooLargeError
        Before any table is allocated, when the clique tables would exceed ``max_table_entries``.
    ZeroProbabilityError
        When every state has weight 0 (a clique table or message zero everywhere: impossible evidence).

    Notes
    -----
    pgmpy's ``BeliefPropagation`` is not used, for four reasons. Its default
    triangulation gives 31-33-variable cliques on 9x9 and 10x10 lattices.
    Its ``calibrate()`` compares unnormalised beliefs with an absolute
    tolerance of 1e-8, so when ``Z`` is tiny it stops at once and returns
    wrong marginals without a warning. Its ``query()`` discards the calibration
    and rebuilds the tree at every call. And it works in float64 without
    rescaling, so beliefs overflow to inf (marginals to NaN) once
    ``log Z > 709``. ``DiscreteMarkovNetwork.get_partition_function()`` is not
    used either: it multiplies all factors into one table. The tree here is
    pgmpy's ``JunctionTree`` of ``DiscreteFactor`` potentials; calibration is
    the fixed, rescaled two-pass schedule of the module docstring.
    """
    t0 = time.perf_counter()
    plan = plan_junction_tree(model, order=order, max_table_entries=max_table_entries)
    t_plan = time.perf_counter() - t0
    structure = model_structure(model)

    import_pgmpy()
    from pgmpy.factors.discrete import DiscreteFactor
    from pgmpy.models import JunctionTree

    p = structure.n_vars
    card = [int(k) for k in structure.cardinalities]
    names = [node_name(v) for v in range(p)]
    node_home = _smallest_cliques(plan, p, [(v,) for v in range(p)])
    edge_home = _smallest_cliques(plan, p, [tuple(e) for e in structure.edges.tolist()])
    logs = _clique_log_potentials(card, plan, log_factors(model))
    nodes = [tuple(names[v] for v in clique) for clique in plan.cliques]
    potentials, log_offset = {}, {}
    for c, (node, log_table) in enumerate(zip(nodes, logs)):
        peak = float(log_table.max())
        if peak == -np.inf:
            raise ZeroProbabilityError(f"every state of the model has weight 0 (Z = 0): the factors of clique {c} are "
                                       "zero together everywhere; with evidence, the evidence has probability 0")
        log_table -= peak
        np.exp(log_table, out=log_table)
        states = {names[v]: list(range(card[v])) for v in plan.cliques[c]}  # one state order everywhere
        # pgmpy reads values in C order over the variable list, which is the axis order of log_table
        potentials[node] = DiscreteFactor(list(node), [card[v] for v in plan.cliques[c]], log_table, state_names=states)
        log_offset[node] = peak
    del logs

    # one pgmpy JunctionTree per connected component of the clique forest
    neighbours: dict = {node: [] for node in nodes}
    for a, b in plan.tree_edges:
        neighbours[nodes[a]].append(nodes[b])
        neighbours[nodes[b]].append(nodes[a])
    seen: set = set()
    trees = []
    for start in sorted(range(len(nodes)), key=lambda c: -plan.clique_entries[c]):
        if nodes[start] in seen:
            continue
        component = [nodes[start]]
        seen.add(nodes[start])
        for node in component:
            for other in neighbours[node]:
                if other not in seen:
                    seen.add(other)
                    component.append(other)
        tree = JunctionTree()
        tree.add_nodes_from(component)
        tree.add_edges_from([(a, b) for a in component for b in neighbours[a] if a < b])
        tree.add_factors(*(potentials[node] for node in component))
        tree.check_model()
        trees.append((tree, component[0]))
    t_build = time.perf_counter() - t0 - t_plan

    log_z = 0.0
    beliefs: dict = {}
    for tree, root in trees:
        clique_potentials = {node: tree.get_factors(node) for node in tree.nodes()}
        component_log_z, calibrated = _two_pass_calibration(
            clique_potentials, {node: log_offset[node] for node in clique_potentials}, neighbours, root
        )
        log_z += component_log_z
        beliefs.update(calibrated)  # calibrated in place: the pgmpy tree now holds these clique beliefs
    t_calibrate = time.perf_counter() - t0 - t_plan - t_build

    node_marginals = [_marginal_from_belief(beliefs[nodes[node_home[v]]], [names[v]]) for v in range(p)]
    edge_marginals = [
        _marginal_from_belief(beliefs[nodes[c]], [names[i], names[j]])
        for (i, j), c in zip(structure.edges.tolist(), edge_home)
    ]
    info = {
        "order": plan.order_name,
        "n_cliques": len(plan.cliques),
        "largest_clique": plan.largest_clique,
        "largest_clique_entries": plan.largest_clique_entries,
        "total_entries": plan.total_entries,
        "table_bytes": plan.table_bytes,
        "candidates": plan.candidates,
        "n_trees": len(trees),
        "seconds_plan": t_plan,
        "seconds_build": t_build,
        "seconds_calibrate": t_calibrate,
        "seconds_total": time.perf_counter() - t0,
    }
    return ExactMarginals(node_marginals, edge_marginals, log_z, structure.edges, "junction_tree", info)
