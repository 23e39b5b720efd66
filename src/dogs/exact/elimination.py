r"""Elimination planning for exact inference: elimination orders, maximal cliques, the treewidth guard.

Everything here is symbolic (variables as bits of Python ints); no table is
allocated, and pgmpy is not imported. :func:`plan_junction_tree` returns a
:class:`JunctionTreePlan` that :func:`dogs.exact.junction_tree_marginals`
turns into pgmpy factors, in the steps below.

1. **Elimination order.** pgmpy's own triangulation (what
   ``BeliefPropagation`` does with a Markov network) picks orders whose
   cliques hold 31 variables on a 9x9 torus and 33 on a 10x10 open grid,
   tables of 2**31-2**33 entries that no machine we use can hold, while a
   row-major order gives cliques of 11 (10x10) and 19 (9x9 torus) variables.
   So the order is computed here: ``"row_major"`` (index order, the best for
   open grids), greedy ``"min_degree"`` and ``"min_fill"`` (best on tori: a
   min-degree order makes the 9x9 torus tables several times smaller than
   row-major), an explicit permutation, or ``"auto"``: the candidate whose
   clique tables have the fewest entries in total (memory and time of the
   calibration follow the total, not only the largest clique).
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
   (Jensen & Jensen 1994). Disconnected models give a forest, one tree per
   component.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from dogs.exact.enumeration import check_positive_int, model_structure

__all__ = [
    "AUTO_CANDIDATES",
    "BYTES_PER_ENTRY",
    "ORDER_NAMES",
    "PEAK_OVER_TABLES",
    "JunctionTreePlan",
    "ModelTooLargeError",
    "elimination_order",
    "plan_junction_tree",
]

#: Named elimination orders accepted by :func:`plan_junction_tree` (besides an explicit permutation).
ORDER_NAMES = ("auto", "row_major", "min_degree", "min_fill")
#: Candidates tried by ``order="auto"``, in tie-breaking order.
AUTO_CANDIDATES = ("min_degree", "min_fill", "row_major")
#: Bytes per clique-table entry (float64 tables).
BYTES_PER_ENTRY = 8
#: Rough ratio of peak memory to clique-table memory when pgmpy calibrates the tables (measured
#: about 3-3.5 on 9x9 to 20x20 lattices: products and marginals allocate temporaries). Used in
#: error messages only.
PEAK_OVER_TABLES = 3.5


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
    model : BinaryPairwiseMRF, DiscretePairwiseMRF or DiscreteFactorGraph
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
        return self.total_entries * BYTES_PER_ENTRY


def _gib(n_bytes: float) -> str:
    return f"{n_bytes / 2**30:.3g} GiB"


def _too_large_message(tried: list, budget: int) -> str:
    best = min(tried, key=lambda e: e.total_entries)
    lines = [
        "exact inference is infeasible for this model: no elimination order tried fits in "
        f"max_table_entries = {budget} clique-table entries ({_gib(budget * BYTES_PER_ENTRY)} as float64). "
        f"The smallest, {best.name!r}, has a largest clique of at least {best.largest_clique} variables "
        f"({best.largest_entries:.4g} entries) and clique tables totalling at least {best.total_entries:.4g} "
        f"entries = {_gib(best.total_entries * BYTES_PER_ENTRY)} (peak memory about {PEAK_OVER_TABLES}x that). "
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
    from dogs.models.graph import grid_edges

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
    edges = structure.edges.astype(np.int64)  # i * p + j needs 64 bits beyond 46 341 variables
    have = set((edges[:, 0] * p + edges[:, 1]).tolist())
    lattice = grid_edges(rows, cols, torus=False).astype(np.int64)
    if not have.issuperset((lattice[:, 0] * p + lattice[:, 1]).tolist()):
        return
    raise ModelTooLargeError(
        f"exact inference is infeasible for this model: its graph contains the {rows}x{cols} lattice, whose "
        f"treewidth is {width - 1}, so every elimination order has a clique of at least {width} variables, "
        f"i.e. at least {entries:.4g} table entries ({_gib(entries * BYTES_PER_ENTRY)} as float64; "
        f"peak memory about {PEAK_OVER_TABLES}x the tables), above max_table_entries = {budget} "
        f"({_gib(budget * BYTES_PER_ENTRY)})"
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
    treewidth guard of :func:`~dogs.exact.junction_tree_marginals` and can be called alone
    to ask whether exact inference is feasible.

    Parameters
    ----------
    model : BinaryPairwiseMRF, DiscretePairwiseMRF or DiscreteFactorGraph
    order : {"auto", "row_major", "min_degree", "min_fill"} or sequence of int
        ``"auto"`` tries :data:`AUTO_CANDIDATES` and keeps the order with the
        smallest total clique-table size (a greedy candidate is abandoned once
        its running total exceeds the best so far or the budget).
    max_table_entries : int, default 2**27
        Largest allowed total number of clique-table entries (2**27 float64
        entries = 1 GiB of tables, about 3.5 GiB peak once pgmpy calibrates them;
        see :data:`PEAK_OVER_TABLES`).

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
    budget = check_positive_int("max_table_entries", max_table_entries)
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
