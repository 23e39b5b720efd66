r"""Blocked Gibbs with blocks drawn by exact elimination: whole regions of a factor graph updated at once.

Single-site Gibbs, and blocks of a few hundred enumerated configurations (:mod:`dogs.samplers.factor_blocks`),
mix slowly on networks whose variables are strongly, not only exactly, tied: near-deterministic tables over many
states (pgmpy's munin, diabetes, pathfinder, mildew), where chains agree on wrong answers for as long as one can
run them. A block ``B`` of any size can still be drawn exactly from

.. math::

    \pi(X_B = c \mid x_{-B}) \propto \prod_{f \,:\, S_f \cap B \ne \emptyset} \phi_f\big(x_{S_f}^{(B \to c)}\big)

when its interaction graph, with the rest fixed, has a small elimination width: forward filtering by variable
elimination, backward sampling (the rule and its proof are in :mod:`dogs._kernels.elimination_block`). This is
the blocking Gibbs sampler of Jensen, Kong & Kjaerulff (1995, "Blocking Gibbs sampling in very large
probabilistic expert systems", Int. J. Human-Computer Studies 42), built for pedigree networks like pgmpy's pigs.
Each update is a Gibbs kernel of :math:`\pi`, so any scan of them leaves :math:`\pi` invariant, and zero entries
inside a block need no care (the draw is exact).

Choice (:func:`elimination_blocks`), after Jensen et al.: the first block is the whole model minus a *cutset* of
variables held fixed. A greedy cutset elimination on the interaction graph repeatedly eliminates the variable of
smallest table (its states times those of its current neighbours: the min-weight rule); when even that table
exceeds ``max_step_entries``, it conditions instead on the neighbour of that variable with the most neighbours
(removes it from the graph, into the cut), and tries again; once the tables made hold ``max_block_entries``
entries, a variable whose table would overflow what is left is cut too, or, if it is one to keep (below), its
neighbours are, until it fits. The eliminated variables form the first block, drawn in that order.
The next block is chosen the same way among the variables not yet in a block and those within
:data:`NEIGHBOURHOOD_RADIUS` edges of them (the rest held fixed), with the variables not yet in a block cut only
when no other neighbour is left to cut, and so on until every variable is in a block; each variable's *home* is
the first block that holds it (a scan step on the variable draws its home block). Blocks overlap: two variables
that the first cutset separates are drawn together by a later block, which removes the cause of reducibility that
fixed blocks leave at their borders (a cut variable tied by zeros to its block's variables could never move).

Costs. A step's table holds at most ``max_step_entries`` entries (conditioning only removes variables from a
step's scope; a single variable with more states is a step of its own), and a block's tables at most
``max_block_entries`` plus one step (the memory per chain, float64). Where the model's whole elimination fits
(asia to pathfinder and pigs among pgmpy's networks), the first block holds every variable and each sweep is an
independent exact draw; on munin2 and diabetes a sweep draws two to four overlapping blocks in turn.

:func:`pack_elimination_blocks` lays a choice out as the flat arrays the kernel reads.
"""

from __future__ import annotations

import functools
import heapq
import math
import operator
from dataclasses import dataclass

import numpy as np

from dogs.models.factor_graph import DiscreteFactorGraph

__all__ = ["ELIMINATION_BLOCK_ENTRIES", "ELIMINATION_STEP_ENTRIES", "EliminationBlocks", "elimination_blocks",
           "empty_elimination_plan", "pack_elimination_blocks"]

#: Default cap on the entries of one elimination step's table in :func:`elimination_blocks`.
ELIMINATION_STEP_ENTRIES = 1 << 18
#: Default cap on the entries of a block's tables together (float64: 32 MiB per chain).
ELIMINATION_BLOCK_ENTRIES = 1 << 22
#: Blocks after the first hold the variables not yet in a block and those within this many edges of them.
NEIGHBOURHOOD_RADIUS = 2


@dataclass(frozen=True, eq=False)
class EliminationBlocks:
    """Blocks of a model's variables, each drawn by elimination.

    Attributes
    ----------
    blocks : list of ndarray
        Each block's variables in the order they are eliminated (drawn in the reverse order). Blocks may overlap.
    homes : list of ndarray
        Each block's *home* variables, sorted and disjoint: a scan step on a variable draws the block that is its
        home; a variable of no home is updated alone. From :func:`elimination_blocks`, every variable has one.
    """

    blocks: list
    homes: list


def _bits(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _neighbour_masks(model: DiscreteFactorGraph) -> list[int]:
    """Neighbour bitmasks of the variables (adjacent when a factor holds both)."""
    masks = [0] * model.n_vars
    for f in range(model.n_factors):
        scope = model.scope(f).tolist()
        together = sum(1 << v for v in scope)
        for v in scope:
            masks[v] |= together & ~(1 << v)
    return masks


def _cutset_elimination(masks, card, max_step_entries, max_block_entries, members=None,
                        keep=frozenset()) -> list[int]:
    """The variables of ``members`` (default all) eliminated, in order, by the greedy cutset elimination of the
    module docstring, the other variables held fixed; those of ``keep`` are cut only when no other neighbour is left
    to cut."""
    members = range(len(masks)) if members is None else sorted(members)
    inside = sum(1 << v for v in members)
    adj = [0] * len(masks)
    for v in members:
        adj[v] = masks[v] & inside
    log_card = [math.log(k) for k in card]
    weight = {v: log_card[v] + sum(log_card[w] for w in _bits(adj[v])) for v in members}
    heap = [(weight[v], v) for v in members]
    heapq.heapify(heap)
    alive, order, total = [False] * len(masks), [], 0
    for v in members:
        alive[v] = True

    def reweigh(v):
        weight[v] = log_card[v] + sum(log_card[w] for w in _bits(adj[v]))
        heapq.heappush(heap, (weight[v], v))

    def cut(x):
        alive[x] = False
        for y in _bits(adj[x]):
            adj[y] &= ~(1 << x)
            reweigh(y)
        adj[x] = 0

    while heap:
        w, v = heapq.heappop(heap)
        if not alive[v] or w != weight[v]:
            continue
        entries = card[v] * math.prod(card[x] for x in _bits(adj[v]))
        room = min(max_step_entries, max(max_block_entries - total, 1))
        if entries > room and (adj[v] or total + entries > max_block_entries):
            if total + entries > max_block_entries and v not in keep:
                cut(v)  # the block is full: v waits for a later block
            elif adj[v]:
                cut(max(_bits(adj[v]), key=lambda y: (y not in keep, adj[y].bit_count(), card[y], -y)))
            elif order:
                cut(v)  # v alone exceeds what is left of the block's entries
            else:
                order.append(v)
                alive[v] = False
            continue
        order.append(v)
        total += entries
        alive[v] = False
        neighbours = adj[v]
        adj[v] = 0
        for y in _bits(neighbours):
            adj[y] = (adj[y] | neighbours) & ~(1 << y) & ~(1 << v)
            reweigh(y)
    return order


def _positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def elimination_blocks(model: DiscreteFactorGraph, max_step_entries: int = ELIMINATION_STEP_ENTRIES,
                       max_block_entries: int = ELIMINATION_BLOCK_ENTRIES) -> EliminationBlocks:
    """Blocks of ``model`` for blocked Gibbs by elimination, each the model minus a cutset (module docstring)."""
    if not isinstance(model, DiscreteFactorGraph):
        raise TypeError(f"model must be a DiscreteFactorGraph, got {type(model).__name__}")
    max_step_entries = _positive_int("max_step_entries", max_step_entries)
    max_block_entries = _positive_int("max_block_entries", max_block_entries)
    masks = _neighbour_masks(model)
    card = [int(k) for k in model.cardinalities]
    blocks, homes, remaining = [], [], set(range(model.n_vars))
    while remaining:
        members = None  # the first block: the whole model
        if blocks:  # later ones: the variables left and their neighbours' neighbours
            near = sum(1 << v for v in remaining)
            for _ in range(NEIGHBOURHOOD_RADIUS):
                near |= functools.reduce(operator.or_, (masks[v] for v in _bits(near)), 0)
            members = list(_bits(near))
        order = _cutset_elimination(masks, card, max_step_entries, max_block_entries, members, keep=remaining)
        home = sorted(v for v in order if v in remaining)
        if not home:  # every variable left was cut again: a block of them alone
            order = _cutset_elimination(masks, card, max_step_entries, max_block_entries, remaining)
            home = sorted(order)
        blocks.append(np.array(order, dtype=np.int64))
        homes.append(np.array(home, dtype=np.int64))
        remaining -= set(home)
    return EliminationBlocks(blocks=blocks, homes=homes)


def _strides(sizes) -> np.ndarray:
    """C-order strides of a table with axes of ``sizes`` (the last fastest)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    return np.concatenate([np.cumprod(sizes[::-1])[::-1][1:], [1]]).astype(np.int64)


def pack_elimination_blocks(model: DiscreteFactorGraph, plan: EliminationBlocks) -> tuple:
    """The arrays :func:`dogs._kernels.elimination_block.elimination_block_update` reads for ``plan``.

    ``(elimination_of, step_indptr, step_var, scope_indptr, scope_vars, scope_strides, msg_start, input_indptr,
    input_source, input_strides, stride_start, prod_start, single_start, outside_indptr, outside_slots,
    buffer_sizes, block_entries)``:

    - ``elimination_of[i]``: the block whose home holds variable ``i`` (-1 for none);
    - block ``b``'s steps ``step_indptr[b]:step_indptr[b + 1]`` in elimination order, step ``k`` eliminating
      ``step_var[k]`` over ``scope_vars[scope_indptr[k]:scope_indptr[k + 1]]`` (the eliminated one last; C-order
      strides ``scope_strides``), its table at ``prod_start[k]`` and its message at ``msg_start[k]`` in the
      chain's buffers;
    - its inputs ``input_indptr[k]:input_indptr[k + 1]``, factors over several scope variables first, then such
      messages, then those over one scope variable (from ``single_start[k]`` on): each a factor
      (``input_source >= 0``; its scope slots outside the block ``outside_slots[outside_indptr[i]:outside_indptr[i +
      1]]``) or the message of step ``-source - 1``, with its stride at each scope position
      ``input_strides[stride_start[i] + pos]`` (0 where absent);
    - ``buffer_sizes = [products, messages, largest scope, most inputs, most states]``;
    - ``block_entries[b]``: the entries of block ``b``'s tables together (its update's work).
    """
    if not isinstance(model, DiscreteFactorGraph):
        raise TypeError(f"model must be a DiscreteFactorGraph, got {type(model).__name__}")
    if not isinstance(plan, EliminationBlocks):
        raise TypeError(f"plan must be EliminationBlocks, got {type(plan).__name__}")
    p = model.n_vars
    card = model.cardinalities.astype(np.int64)
    homed = np.concatenate([np.asarray(h, dtype=np.int64) for h in plan.homes]) if plan.homes else np.zeros(0, int)
    if len(plan.homes) != len(plan.blocks) or np.unique(homed).size != homed.size \
            or any(not set(np.asarray(h).tolist()) <= set(np.asarray(b).tolist())
                   for h, b in zip(plan.homes, plan.blocks)):
        raise ValueError("the plan's homes must be one per block, disjoint, each within its block")
    for block in plan.blocks:
        block = np.asarray(block)
        if block.ndim != 1 or block.size == 0 or block.min() < 0 or block.max() >= p \
                or np.unique(block).size != block.size:
            raise ValueError(f"every block must list distinct variables in 0..{p - 1}, got {block.tolist()}")
    elimination_of = np.full(p, -1, dtype=np.int64)
    step_indptr, step_var, scope_indptr, scope_vars, scope_strides = [0], [], [0], [], []
    msg_start, prod_start, input_indptr, input_source, input_strides, stride_start = [], [], [0], [], [], []
    single_start, outside_indptr, outside_slots, block_entries = [], [0], [], []
    largest_products = largest_messages = largest_scope = largest_inputs = 1
    for b, (block, home) in enumerate(zip(plan.blocks, plan.homes)):
        block = [int(v) for v in block]
        elimination_of[np.asarray(home, dtype=np.int64)] = b
        position = {v: k for k, v in enumerate(block)}
        buckets = [[] for _ in block]
        touched = np.unique(np.concatenate([model.factor_ids[model.factor_indptr[v]:model.factor_indptr[v + 1]]
                                            for v in block]))
        for f in touched.tolist():
            inside = sorted(int(v) for v in model.scope(f) if int(v) in position)
            buckets[min(position[v] for v in inside)].append(("factor", f, inside))
        first_step = len(step_var)
        products = messages = 0
        for k, v in enumerate(block):
            others = sorted({v}.union(*(variables for _, _, variables in buckets[k])) - {v})
            scope = others + [v]
            at = {w: j for j, w in enumerate(scope)}
            step_var.append(v)
            scope_vars.extend(scope)
            scope_strides.extend(_strides(card[scope]).tolist())
            scope_indptr.append(len(scope_vars))
            prod_start.append(products)
            msg_start.append(messages)
            n_entries = int(np.prod(card[scope]))
            products += n_entries
            messages += n_entries // int(card[v])
            # factors over several scope variables, then such messages, then the inputs over one variable
            inputs = sorted(buckets[k], key=lambda item: (len(item[2]) == 1, item[0] == "message"))
            single_start.append(len(input_source) + sum(len(item[2]) > 1 for item in inputs))
            for kind, source, variables in inputs:
                strides = np.zeros(len(scope), dtype=np.int64)
                if kind == "factor":
                    input_source.append(source)
                    lo = int(model.scope_starts[source])
                    for j, w in enumerate(model.scope(source).tolist()):
                        if w in position:
                            strides[at[w]] = model.strides[lo + j]
                        else:
                            outside_slots.append(lo + j)
                else:
                    input_source.append(-(source + 1))
                    strides[[at[w] for w in variables]] = _strides(card[variables])
                stride_start.append(len(input_strides))
                input_strides.extend(strides.tolist())
                outside_indptr.append(len(outside_slots))
            input_indptr.append(len(input_source))
            largest_inputs = max(largest_inputs, len(inputs))
            largest_scope = max(largest_scope, len(scope))
            if others:
                buckets[min(position[w] for w in others)].append(("message", first_step + k, others))
        step_indptr.append(len(step_var))
        block_entries.append(products)
        largest_products, largest_messages = max(largest_products, products), max(largest_messages, messages)

    def ints(values):
        return np.asarray(values, dtype=np.int64)

    buffer_sizes = ints([largest_products, largest_messages, largest_scope, largest_inputs,
                         int(card.max()) if p else 1])
    return (elimination_of, ints(step_indptr), ints(step_var), ints(scope_indptr), ints(scope_vars),
            ints(scope_strides), ints(msg_start), ints(input_indptr), ints(input_source), ints(input_strides),
            ints(stride_start), ints(prod_start), ints(single_start), ints(outside_indptr), ints(outside_slots),
            buffer_sizes, ints(block_entries))


def empty_elimination_plan(model: DiscreteFactorGraph) -> tuple:
    """The packed arrays of no elimination block (every variable updated alone)."""
    return pack_elimination_blocks(model, EliminationBlocks(blocks=[], homes=[]))
