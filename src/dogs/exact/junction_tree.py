r"""Exact marginals and ``log Z`` with pgmpy: a junction tree built from our own elimination order.

The model is a pairwise MRF (DoGS eq. (2); binary models, eq. (3) with each
edge counted once, enter through ``to_discrete()``, state 0 = spin -1):

.. math::

    \pi(x) = \frac{1}{Z} \prod_i \psi_i(x_i) \prod_{(i,j) \in E} \psi_{ij}(x_i, x_j),
    \qquad \psi = \exp(\text{log potential}).

Junction tree (Lauritzen & Spiegelhalter 1988; Koller & Friedman 2009,
ch. 10), in the steps below.

1. **Elimination order.** pgmpy's default triangulation produces cliques of
   31-33 variables on 9x9 and 10x10 lattices (see ``PGMPY_NOTES.md``), so the
   order is computed here: ``"row_major"`` (index order, the best for open
   grids), greedy ``"min_degree"`` and ``"min_fill"`` (best on tori), an
   explicit permutation, or ``"auto"``: the candidate whose clique tables have
   the fewest entries in total (memory and time follow the total, not only
   the largest clique).
2. **Cliques.** Eliminating ``v`` creates the clique ``C_v = {v} ∪ madj(v)``
   (its not-yet-eliminated neighbours in the filled graph). ``C_v`` is not
   maximal iff a child ``u`` of ``v`` in the elimination tree has
   ``madj(u) = C_v`` (Blair & Peyton 1993, "An introduction to chordal graphs
   and clique trees", Sec. 4); only maximal cliques are kept.
3. **Treewidth guard.** The largest clique and the total number of table
   entries ``sum_C prod_{v in C} K_v`` are known before any table exists; if the
   total exceeds ``max_table_entries`` a :class:`ModelTooLargeError` is raised.
   A model whose graph contains the lattice of its ``shape`` is refused at once
   when that lattice's treewidth ``min(rows, cols)`` alone is too large (a 40x40
   grid: about 2 ms); otherwise each candidate order is abandoned as soon as
   its running total passes the budget.
4. **Junction tree.** The maximal cliques are joined by a maximum-weight
   spanning tree of the clique graph with weights ``|C_a ∩ C_b|``, which has
   the running-intersection property for the cliques of a chordal graph
   (Jensen & Jensen 1994). Disconnected models give one tree per component.
5. **Two-pass calibration** (Hugin schedule) on pgmpy ``DiscreteFactor``
   operations: one collect pass towards the root and one distribute pass back,
   one message per tree edge each way. Every factor and message is divided by
   its maximum and the logarithm of that maximum is carried as an offset, so
   ``log Z`` above 709 (float64 ``exp`` overflow; e.g. a 9x9 torus at coupling
   5) stays exact:

   .. math::

       \mu_{c \to p}(s) = \sum_{x_{C_c \setminus S}} \beta^{\uparrow}_c, \qquad
       \log Z = \log \sum \beta^{\uparrow}_{root} + \text{offsets}, \qquad
       \beta_c = \beta^{\uparrow}_c \, \frac{\sum_{C_p \setminus S} \beta_p}{\mu_{c \to p}}.

6. Node and edge marginals are read from the calibrated clique beliefs
   (smallest clique containing the variable or edge), addressing axes by
   variable name (pgmpy orders product axes by a Python set).

:func:`variable_elimination_marginals` is an independent cross-check with
pgmpy's ``VariableElimination`` on a ``DiscreteMarkovNetwork`` (small models).
"""

from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from dogs.exact.enumeration import ExactMarginals, _check_positive_int, as_discrete_model, model_structure

__all__ = [
    "ORDER_NAMES",
    "JunctionTreePlan",
    "ModelTooLargeError",
    "elimination_order",
    "junction_tree_marginals",
    "plan_junction_tree",
    "variable_elimination_marginals",
]

#: Named elimination orders accepted by :func:`plan_junction_tree` (besides an explicit permutation).
ORDER_NAMES = ("auto", "row_major", "min_degree", "min_fill")
#: Candidates tried by ``order="auto"``, in tie-breaking order.
AUTO_CANDIDATES = ("min_degree", "min_fill", "row_major")
_BYTES_PER_ENTRY = 8  # float64 clique tables
_PEAK_OVER_TABLES = 3.5  # rough peak memory / clique-table memory, for error messages only (PGMPY_NOTES.md)


class ModelTooLargeError(ValueError):
    """Exact inference would need more clique-table entries than allowed (treewidth too large)."""


# ----------------------------------------------------------------------------------------------
# elimination orders (symbolic: Python ints as bitsets over the variables)
# ----------------------------------------------------------------------------------------------


def _bits(mask: int):
    """Indices of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _neighbour_masks(structure) -> list[int]:
    masks = [0] * structure.n_vars
    for i, j in structure.edges.tolist():
        masks[i] |= 1 << j
        masks[j] |= 1 << i
    return masks


@dataclass
class _Elimination:
    """Outcome of a symbolic elimination (possibly abandoned once over budget)."""

    name: str
    order: list
    maximal_cliques: list  # bitmasks of the maximal cliques, in order of creation
    largest_clique: int  # variables in the largest clique met so far
    largest_entries: int
    total_entries: int  # sum of the table sizes of the maximal cliques met so far
    complete: bool


def _clique_entries(clique: int, card: list, uniform_card: int | None) -> int:
    if uniform_card is not None:
        return uniform_card ** clique.bit_count()
    return math.prod(card[u] for u in _bits(clique))


def _fill_in(u: int, adj: list) -> int:
    """Number of missing edges among the current neighbours of ``u``."""
    nb = adj[u]
    missing = 0
    for w in _bits(nb):
        missing += (nb & ~adj[w]).bit_count() - 1  # minus w itself
    return missing // 2


def _eliminate(masks: list, card: list, name: str, fixed_order=None, budget: int | None = None) -> _Elimination:
    r"""Play the elimination game for a fixed order or a greedy heuristic, keeping the maximal cliques.

    Eliminating ``v`` creates ``C_v = {v} ∪ madj(v)``. ``C_v`` is contained in
    an earlier clique iff some earlier-eliminated ``u`` has ``madj(u) = C_v``
    (such a ``u`` is a child of ``v`` in the elimination tree; Blair & Peyton
    1993, Sec. 4), so maximality is decided when ``C_v`` appears and the running
    total of maximal-clique table sizes is exact and non-decreasing: the run is
    abandoned (``complete=False``) as soon as it exceeds ``budget``.
    """
    p = len(masks)
    adj = list(masks)
    alive = [True] * p
    earlier_madj: set = set()
    maximal: list = []
    order: list = []
    uniform_card = card[0] if all(k == card[0] for k in card) else None
    largest_clique = largest_entries = total = 0

    heap: list = []
    if name == "min_degree":
        heap = [(adj[v].bit_count(), v) for v in range(p)]
    elif name == "min_fill":
        score = [(_fill_in(v, adj), adj[v].bit_count()) for v in range(p)]
        heap = [(*score[v], v) for v in range(p)]
    heapq.heapify(heap)

    for step in range(p):
        if fixed_order is not None:
            v = fixed_order[step]
        else:
            while True:
                entry = heapq.heappop(heap)
                v = entry[-1]
                if not alive[v]:
                    continue
                if name == "min_degree" and entry[0] == adj[v].bit_count():
                    break
                if name == "min_fill" and entry[:2] == score[v]:
                    break
        nb = adj[v]
        alive[v] = False
        order.append(v)
        clique = nb | (1 << v)
        is_maximal = clique not in earlier_madj
        earlier_madj.add(nb)
        if is_maximal:
            maximal.append(clique)
            entries = _clique_entries(clique, card, uniform_card)
            total += entries
            if (entries, clique.bit_count()) > (largest_entries, largest_clique):
                largest_entries, largest_clique = entries, clique.bit_count()
            if budget is not None and total > budget:
                return _Elimination(name, order, maximal, largest_clique, largest_entries, total, complete=False)
        drop_v = ~(1 << v)
        for u in _bits(nb):
            adj[u] = (adj[u] | nb) & drop_v & ~(1 << u)
        adj[v] = 0
        if name == "min_degree":
            for u in _bits(nb):
                heapq.heappush(heap, (adj[u].bit_count(), u))
        elif name == "min_fill":
            # fill-in and degree change only for v's neighbours and for vertices adjacent to
            # at least two of them (a new edge between two of its neighbours lowers its fill-in)
            outer = 0
            for u in _bits(nb):
                outer |= adj[u]
            outer &= ~nb
            for u in _bits(outer):
                if (adj[u] & nb).bit_count() < 2:
                    continue
                new = (_fill_in(u, adj), score[u][1])
                if new != score[u]:
                    score[u] = new
                    heapq.heappush(heap, (*new, u))
            for u in _bits(nb):
                new = (_fill_in(u, adj), adj[u].bit_count())
                if new != score[u]:
                    score[u] = new
                    heapq.heappush(heap, (*new, u))
    return _Elimination(name, order, maximal, largest_clique, largest_entries, total, complete=True)


def _check_order(order, p: int):
    """Validate ``order``: a name from :data:`ORDER_NAMES` or a permutation of ``range(p)``."""
    if isinstance(order, str):
        if order not in ORDER_NAMES:
            raise ValueError(f"order must be one of {ORDER_NAMES} or a permutation of range({p}), got {order!r}")
        return order
    if not isinstance(order, (Sequence, np.ndarray)):
        raise TypeError(f"order must be a string or a sequence of variable indices, got {type(order).__name__}")
    arr = np.asarray(order)
    if arr.ndim != 1 or (arr.size and not np.issubdtype(arr.dtype, np.integer)):
        raise TypeError("order, when explicit, must be a 1-d sequence of integer variable indices")
    if arr.size != p or not np.array_equal(np.sort(arr), np.arange(p)):
        raise ValueError(f"order, when explicit, must be a permutation of range({p}) (each variable once)")
    return [int(v) for v in arr]


def elimination_order(model, order: str = "min_fill") -> list[int]:
    """An elimination order of the model's interaction graph.

    Parameters
    ----------
    model : BinaryPairwiseMRF or DiscretePairwiseMRF
    order : {"row_major", "min_degree", "min_fill"}
        ``"row_major"`` is the index order (row-major on lattices); the greedy
        heuristics break ties by the smaller variable index (min-fill first by
        fill-in, then by degree).

    Returns
    -------
    list of int
        A permutation of ``range(p)``.
    """
    structure = model_structure(model)
    if order not in ("row_major", "min_degree", "min_fill"):
        raise ValueError(f"order must be 'row_major', 'min_degree' or 'min_fill', got {order!r}")
    p = structure.n_vars
    fixed = list(range(p)) if order == "row_major" else None
    card = [int(k) for k in structure.cardinalities]
    return _eliminate(_neighbour_masks(structure), card, order, fixed_order=fixed).order


# ----------------------------------------------------------------------------------------------
# the plan: cliques, tree, sizes (no tables yet)
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class JunctionTreePlan:
    """Symbolic junction tree: maximal cliques of an elimination order and the tree joining them.

    Attributes
    ----------
    order_name : str
        ``"row_major"``, ``"min_degree"``, ``"min_fill"`` or ``"explicit"``.
    elimination_order : tuple of int
    cliques : tuple of tuple of int
        Maximal cliques (sorted variable indices).
    clique_entries : tuple of int
        Table size ``prod_{v in C} K_v`` of each clique.
    tree_edges : tuple of (int, int)
        Junction-tree edges as pairs of clique indices (a forest if the model is disconnected).
    largest_clique : int
        Number of variables of the clique with the largest table.
    largest_clique_entries : int
    total_entries : int
        Sum of ``clique_entries``.
    candidates : mapping
        For each order tried: ``largest_clique``, ``total_entries`` and ``complete``
        (False: abandoned once its running total passed the budget or the best
        total so far, so both figures are lower bounds).
    """

    order_name: str
    elimination_order: tuple
    cliques: tuple
    clique_entries: tuple
    tree_edges: tuple
    largest_clique: int
    largest_clique_entries: int
    total_entries: int
    candidates: Mapping = field(default_factory=dict)

    @property
    def table_bytes(self) -> int:
        """Memory of all clique tables as float64."""
        return self.total_entries * _BYTES_PER_ENTRY


def _gib(n_bytes: float) -> str:
    return f"{n_bytes / 2**30:.3g} GiB"


def _too_large_message(tried: list, budget: int) -> str:
    best = min(tried, key=lambda e: e.total_entries)
    lines = [
        "exact inference is infeasible for this model: no elimination order tried fits in "
        f"max_table_entries = {budget} clique-table entries ({_gib(budget * _BYTES_PER_ENTRY)} as float64). "
        f"The smallest, {best.name!r}, has a largest clique of at least {best.largest_clique} variables "
        f"({best.largest_entries:.4g} entries) and clique tables totalling at least {best.total_entries:.4g} "
        f"entries = {_gib(best.total_entries * _BYTES_PER_ENTRY)} (peak memory about {_PEAK_OVER_TABLES}x that). "
        "Orders tried (runs are abandoned once over budget, so their figures are lower bounds):"
    ]
    for e in tried:
        bound = "" if e.complete else ">= "
        lines.append(
            f"  {e.name}: largest clique {bound}{e.largest_clique} variables, "
            f"total {bound}{e.total_entries:.4g} entries"
        )
    return "\n".join(lines)


def _check_lattice_bound(structure, budget: int) -> None:
    """Refuse at once a model whose graph contains its ``shape`` lattice when even the lattice is too large.

    The ``r x c`` grid graph has treewidth ``min(r, c)`` (e.g. Bodlaender 1998,
    "A partial k-arboretum of graphs with bounded treewidth"), and treewidth is
    monotone under subgraphs, so if the model's edges include every edge of
    the open lattice of ``structure.shape`` (row-major numbering), any
    elimination order has a clique of at least ``min(r, c) + 1`` variables.
    """
    from dogs.models.binary import grid_edges

    shape = structure.shape
    if shape is None or len(shape) != 2 or min(shape) < 2:
        return
    rows, cols = (int(s) for s in shape)
    width = min(rows, cols) + 1
    smallest_card = int(structure.cardinalities.min())
    entries = smallest_card**width
    if entries <= budget:
        return
    p = structure.n_vars
    have = set((structure.edges[:, 0] * p + structure.edges[:, 1]).tolist())
    lattice = grid_edges(rows, cols, torus=False)
    if not have.issuperset((lattice[:, 0] * p + lattice[:, 1]).tolist()):
        return
    raise ModelTooLargeError(
        f"exact inference is infeasible for this model: its graph contains the {rows}x{cols} lattice, whose "
        f"treewidth is {width - 1}, so every elimination order has a clique of at least {width} variables, "
        f"i.e. at least {entries:.4g} table entries ({_gib(entries * _BYTES_PER_ENTRY)} as float64; "
        f"peak memory about {_PEAK_OVER_TABLES}x the tables), above max_table_entries = {budget} "
        f"({_gib(budget * _BYTES_PER_ENTRY)})"
    )


def _spanning_tree(clique_masks: list, p: int) -> list[tuple[int, int]]:
    """Maximum-weight spanning forest of the clique graph, weight = number of shared variables."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import minimum_spanning_tree

    m = len(clique_masks)
    if m < 2:
        return []
    containing: list[list[int]] = [[] for _ in range(p)]
    for c, mask in enumerate(clique_masks):
        for v in _bits(mask):
            containing[v].append(c)
    shared: dict = {}
    for cliques in containing:
        for a_pos, a in enumerate(cliques):
            for b in cliques[a_pos + 1 :]:
                shared[(a, b)] = shared.get((a, b), 0) + 1
    if not shared:
        return []
    pairs = np.array(list(shared.keys()), dtype=np.int64)
    weight = np.array(list(shared.values()), dtype=np.float64)
    # minimum spanning tree of (max + 1 - weight) > 0 is a maximum-weight spanning tree of weight
    cost = coo_matrix((weight.max() + 1.0 - weight, (pairs[:, 0], pairs[:, 1])), shape=(m, m)).tocsr()
    tree = minimum_spanning_tree(cost).tocoo()
    return sorted((int(min(a, b)), int(max(a, b))) for a, b in zip(tree.row, tree.col))


def plan_junction_tree(model, order="auto", max_table_entries: int = 2**27) -> JunctionTreePlan:
    """Choose the elimination order, derive the maximal cliques and the junction tree, and check the size.

    Nothing proportional to the clique tables is allocated: this is the
    treewidth guard of :func:`junction_tree_marginals` and can be called alone
    to ask whether exact inference is feasible.

    Parameters
    ----------
    model : BinaryPairwiseMRF or DiscretePairwiseMRF
    order : {"auto", "row_major", "min_degree", "min_fill"} or sequence of int
        ``"auto"`` tries :data:`AUTO_CANDIDATES` and keeps the order with the
        smallest total clique-table size (a greedy candidate is abandoned once
        its running total exceeds the best so far or the budget).
    max_table_entries : int, default 2**27
        Largest allowed total number of clique-table entries (2**27 float64
        entries = 1 GiB of tables, about 3.5 GiB peak).

    Returns
    -------
    JunctionTreePlan

    Raises
    ------
    ModelTooLargeError
        If the total exceeds ``max_table_entries`` (message: largest clique, total entries, memory).
    ValueError, TypeError
        For an unknown order name, an order that is not a permutation, or a bad ``max_table_entries``.
    """
    structure = model_structure(model)
    p = structure.n_vars
    order = _check_order(order, p)
    budget = _check_positive_int("max_table_entries", max_table_entries)
    _check_lattice_bound(structure, budget)
    masks = _neighbour_masks(structure)
    card = [int(k) for k in structure.cardinalities]

    if isinstance(order, list):
        runs = [("explicit", order)]
    elif order == "auto":
        runs = [(name, None) for name in AUTO_CANDIDATES]
    else:
        runs = [(order, None)]
    tried: list[_Elimination] = []
    best: _Elimination | None = None
    for name, fixed in runs:
        if fixed is None and name == "row_major":
            fixed = list(range(p))
        limit = budget if best is None else min(budget, best.total_entries)
        elim = _eliminate(masks, card, name, fixed_order=fixed, budget=limit)
        tried.append(elim)
        if elim.complete and (best is None or elim.total_entries < best.total_entries):
            best = elim
    if best is None:
        raise ModelTooLargeError(_too_large_message(tried, budget))

    clique_masks = best.maximal_cliques
    cliques = tuple(tuple(_bits(mask)) for mask in clique_masks)
    entries = tuple(math.prod(card[v] for v in c) for c in cliques)
    total = sum(entries)
    largest = max(range(len(cliques)), key=lambda c: (entries[c], len(cliques[c])))
    candidates = {
        e.name: {"largest_clique": e.largest_clique, "total_entries": e.total_entries, "complete": e.complete}
        for e in tried
    }
    return JunctionTreePlan(
        order_name=best.name,
        elimination_order=tuple(best.order),
        cliques=cliques,
        clique_entries=entries,
        tree_edges=tuple(_spanning_tree(clique_masks, p)),
        largest_clique=len(cliques[largest]),
        largest_clique_entries=entries[largest],
        total_entries=total,
        candidates=candidates,
    )


# ----------------------------------------------------------------------------------------------
# numeric part: pgmpy factors, two-pass calibration
# ----------------------------------------------------------------------------------------------


def _pgmpy_quiet():
    """Import pgmpy (lazily: ~2 s) and silence its progress bars."""
    from pgmpy import config

    config.set_show_progress(False)


def _name(v: int) -> str:
    # string names: pgmpy treats the integer node 0 as "no node" in places (PGMPY_NOTES pitfall 5)
    return f"x{v}"


def _smallest_clique_for(plan: JunctionTreePlan, p: int, edges: np.ndarray):
    """For every variable and every edge, the index of the smallest clique (by table size) containing it."""
    containing: list[list[int]] = [[] for _ in range(p)]
    for c, clique in enumerate(plan.cliques):
        for v in clique:
            containing[v].append(c)
    size = plan.clique_entries
    node_home = [min(containing[v], key=size.__getitem__) for v in range(p)]
    edge_home = []
    for i, j in edges.tolist():
        both = set(containing[i]).intersection(containing[j])
        if not both:
            raise RuntimeError(f"internal error: edge ({i}, {j}) is in no clique of the junction tree")
        edge_home.append(min(both, key=size.__getitem__))
    return node_home, edge_home


def _clique_log_potentials(discrete, plan: JunctionTreePlan, node_home, edge_home):
    """Log potential of each clique: sum of the unary and pairwise log tables assigned to it (axes = sorted vars)."""
    card = discrete.cardinalities
    logs = [np.zeros(tuple(int(card[v]) for v in clique)) for clique in plan.cliques]
    axis_of = [{v: a for a, v in enumerate(clique)} for clique in plan.cliques]
    for v, c in enumerate(node_home):
        shape = [1] * len(plan.cliques[c])
        shape[axis_of[c][v]] = int(card[v])
        logs[c] += discrete.unary[v].reshape(shape)
    for (i, j), table, c in zip(discrete.edges.tolist(), discrete.tables, edge_home):
        shape = [1] * len(plan.cliques[c])
        shape[axis_of[c][i]], shape[axis_of[c][j]] = int(card[i]), int(card[j])
        logs[c] += table.reshape(shape)  # i < j and cliques are sorted, so table axes are in clique order
    return logs


def _rescale_max(factor) -> float:
    """Divide ``factor`` in place by its maximum; return the log of that maximum."""
    peak = float(factor.values.max())
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
        ratio.divide(message_up[child], inplace=True)  # pgmpy maps 0/0 to 0
        _rescale_max(ratio)
        up[child].product(ratio, inplace=True)
        up[child].values /= up[child].values.sum()
    for c, belief in up.items():
        if not np.all(np.isfinite(belief.values)):
            raise FloatingPointError(f"junction tree calibration produced non-finite beliefs in clique {c}")
    return log_z, up


def _marginal_from_belief(belief, names: list) -> np.ndarray:
    """Sum a pgmpy belief onto ``names`` (in that axis order), addressing axes by name."""
    axes = [belief.variables.index(n) for n in names]
    others = tuple(a for a in range(len(belief.variables)) if a not in axes)
    table = belief.values.sum(axis=others) if others else belief.values
    kept = sorted(axes)
    table = np.transpose(table, [kept.index(a) for a in axes])
    return table / table.sum()


def junction_tree_marginals(model, order="auto", max_table_entries: int = 2**27) -> ExactMarginals:
    """Exact node and edge marginals and ``log Z`` from a calibrated pgmpy junction tree.

    Parameters
    ----------
    model : BinaryPairwiseMRF or DiscretePairwiseMRF
    order : {"auto", "row_major", "min_degree", "min_fill"} or sequence of int
        Elimination order that defines the cliques (see :func:`plan_junction_tree`).
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

    Notes
    -----
    pgmpy's ``BeliefPropagation`` is not used: its default triangulation is
    unusable on lattices, its ``calibrate()`` may stop early with wrong answers
    when ``Z`` is small, and it overflows when ``log Z > 709`` (PGMPY_NOTES
    pitfalls 9-14). The tree is pgmpy's ``JunctionTree`` of ``DiscreteFactor``
    potentials; calibration is the fixed two-pass schedule of the module docstring.
    """
    t0 = time.perf_counter()
    plan = plan_junction_tree(model, order=order, max_table_entries=max_table_entries)
    t_plan = time.perf_counter() - t0
    discrete = as_discrete_model(model)

    _pgmpy_quiet()
    from pgmpy.factors.discrete import DiscreteFactor
    from pgmpy.models import JunctionTree

    p = discrete.n_vars
    card = [int(k) for k in discrete.cardinalities]
    names = [_name(v) for v in range(p)]
    node_home, edge_home = _smallest_clique_for(plan, p, discrete.edges)
    logs = _clique_log_potentials(discrete, plan, node_home, edge_home)
    nodes = [tuple(names[v] for v in clique) for clique in plan.cliques]
    potentials, log_offset = {}, {}
    for c, (node, log_table) in enumerate(zip(nodes, logs)):
        peak = float(log_table.max())
        log_table -= peak
        np.exp(log_table, out=log_table)
        states = {names[v]: list(range(card[v])) for v in plan.cliques[c]}  # one state order everywhere
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
        for (i, j), c in zip(discrete.edges.tolist(), edge_home)
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
    return ExactMarginals(node_marginals, edge_marginals, log_z, discrete.edges, "junction_tree", info)


# ----------------------------------------------------------------------------------------------
# cross-check: pgmpy variable elimination
# ----------------------------------------------------------------------------------------------


def variable_elimination_marginals(model, max_table_entries: int = 2**22) -> ExactMarginals:
    """Node and edge marginals and ``log Z`` with pgmpy's ``VariableElimination`` (a cross-check for small models).

    Each unary and pairwise factor enters a ``DiscreteMarkovNetwork`` as
    ``exp(log table - max)``, the maxima are summed into an offset. On a Markov
    network ``VariableElimination.query`` returns the unnormalised marginal
    (PGMPY_NOTES pitfall 6), whose total is ``Z * exp(-offset)``. Every query
    gets an explicit elimination order (the min-fill order without the queried
    variables; pgmpy ignores named heuristics on Markov networks, pitfall 8).
    pgmpy 1.1.2 also drops the scalar that eliminating a whole other connected
    component leaves, so a query's total is the partition function of its own
    component; ``log Z`` is the sum over components.

    Parameters
    ----------
    model : BinaryPairwiseMRF or DiscretePairwiseMRF
    max_table_entries : int, default 2**22
        Treewidth guard (one query is run per variable and per edge, so this
        engine is meant for small models).

    Returns
    -------
    ExactMarginals
        ``method = "variable_elimination"``.
    """
    plan_junction_tree(model, order="min_fill", max_table_entries=max_table_entries)
    discrete = as_discrete_model(model)
    _pgmpy_quiet()
    from pgmpy.factors.discrete import DiscreteFactor
    from pgmpy.inference import VariableElimination
    from pgmpy.models import DiscreteMarkovNetwork

    p = discrete.n_vars
    card = [int(k) for k in discrete.cardinalities]
    names = [_name(v) for v in range(p)]
    states = {names[v]: list(range(card[v])) for v in range(p)}
    network = DiscreteMarkovNetwork()
    network.add_nodes_from(names)
    network.add_edges_from([(names[i], names[j]) for i, j in discrete.edges.tolist()])
    component = _connected_components(p, discrete.edges)
    offset = np.zeros(component.max() + 1)  # sum of the subtracted maxima, per connected component
    factors = []
    for v, unary in enumerate(discrete.unary):
        offset[component[v]] += float(unary.max())
        factors.append(DiscreteFactor([names[v]], [card[v]], np.exp(unary - unary.max()), {names[v]: states[names[v]]}))
    for (i, j), table in zip(discrete.edges.tolist(), discrete.tables):
        offset[component[i]] += float(table.max())
        scope = [names[i], names[j]]
        factors.append(
            DiscreteFactor(scope, [card[i], card[j]], np.exp(table - table.max()), {n: states[n] for n in scope})
        )
    network.add_factors(*factors)
    engine = VariableElimination(network)
    order = [names[v] for v in elimination_order(discrete, "min_fill")]

    def query(query_names):
        keep = set(query_names)
        factor = engine.query(
            list(query_names),
            elimination_order=[n for n in order if n not in keep],
            joint=True,
            show_progress=False,
        )
        return _marginal_unnormalised(factor, list(query_names))

    node_marginals, log_totals = [], np.zeros(p)
    for v in range(p):
        table = query([names[v]])
        log_totals[v] = math.log(table.sum())
        node_marginals.append(table / table.sum())
    edge_marginals = []
    for i, j in discrete.edges.tolist():
        table = query([names[i], names[j]])
        edge_marginals.append(table / table.sum())
    # pgmpy drops the scalar left by eliminating a whole other component, so a query's total
    # is the partition function of the queried variable's component only: add them up
    first_of = [int(np.flatnonzero(component == k)[0]) for k in range(len(offset))]
    log_z = float(sum(offset[k] + log_totals[v] for k, v in enumerate(first_of)))
    spread = max(float(np.ptp(log_totals[component == k])) for k in range(len(offset)))
    return ExactMarginals(
        node_marginals,
        edge_marginals,
        log_z,
        discrete.edges,
        "variable_elimination",
        {"n_components": len(offset), "log_z_spread_over_queries": spread},
    )


def _connected_components(p: int, edges: np.ndarray) -> np.ndarray:
    """Component label of each variable of the interaction graph."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    graph = coo_matrix((np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(p, p))
    return connected_components(graph, directed=False)[1]


def _marginal_unnormalised(factor, names: list) -> np.ndarray:
    axes = [factor.variables.index(n) for n in names]
    return np.transpose(np.asarray(factor.values, dtype=np.float64), axes)
