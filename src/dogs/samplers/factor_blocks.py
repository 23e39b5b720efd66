r"""Blocks for Gibbs sampling of factor graphs with deterministic structure: variables tied by zero entries.

Single-site Gibbs can be reducible when factors have zero entries: in asia, ``either`` is the deterministic OR
of ``tub`` and ``lung``, so from ``(tub, lung, either) = (1, 0, 1)`` no single change reaches ``(0, 1, 1)``
through states of positive probability, and a chain never visits both. Updating a *block* ``B`` of variables
jointly from its exact conditional given the rest,

.. math::

    \pi(X_B = c \mid x_{-B}) \propto \prod_{f \,:\, S_f \cap B \ne \emptyset} \phi_f\big(x_{S_f}^{(B \to c)}\big),

is a Gibbs kernel of :math:`\pi` too (it leaves :math:`\pi` invariant whatever the scan; the kernel's rule is
in :mod:`dogs._kernels.factor_gibbs`), and moves between such states in one step when ``B`` holds the
variables a zero entry ties together.

The block's candidate configurations. Let :math:`F_B` be the factors whose whole scope lies in ``B`` (the block's
*internal* factors). Whatever the rest :math:`x_{-B}`, a configuration ``c`` of positive conditional probability
has :math:`\phi_f(c_{S_f}) > 0` for every :math:`f \in F_B`, so

.. math::

    \{c : \pi(X_B = c \mid x_{-B}) > 0\} \subseteq \Sigma_B = \{c : \phi_f(c_{S_f}) > 0 \ \forall f \in F_B\},

the block's *internal support*. An update enumerates :math:`\Sigma_B` (in C order, the last block variable
fastest) instead of all :math:`\prod_{i \in B} K_i` configurations; the configurations left out have weight 0
under every :math:`x_{-B}`, so the conditional drawn from is the same, and so is the draw for the same uniform
(the inverse CDF of :mod:`dogs._kernels.factor_gibbs` never picks a configuration of weight 0). This is what
makes large blocks affordable where zeros are deterministic functions: a variable with ``K`` states and ``m``
children each a function of it has :math:`K` configurations in :math:`\Sigma_B`, not :math:`K \prod K_j`
(hailfinder's ``Scenario``, 11 states, and its functional children, which single-site Gibbs cannot move at all).

Choice (:func:`deterministic_blocks`). A factor *ties* its scope when some entry is at most ``near_zero`` times its
largest entry (``near_zero = 0``: exactly the factors with zero entries). Blocks grow greedily from single
variables: the blocks holding two variables of a tied scope, or all of its variables, may merge when the merged
block's internal support has at most ``max_configurations`` configurations (default
:data:`MAX_BLOCK_CONFIGURATIONS`; the supports are joined and filtered by the factors the merge makes internal),
and the merge made next is the one that keeps the smallest share :math:`|\Sigma_{A \cup B}| / (|\Sigma_A|
|\Sigma_B|)` of the joined configurations (the tightest tie first; then the smaller support, then the candidate's
order). A child that is a function of its block keeps a share ``1 / K_child`` and merges early, so chains of
functions (hailfinder's ``Scenario`` and the variables derived from it) end up in one block before looser ties
fill the cap. A merge that keeps every joined configuration still comes last, not never: its tie runs through a
factor with variables outside it (``{tub, either}`` given ``lung = no`` in asia), which the internal support
cannot see. An update of a block of ``C`` candidate configurations costs ``C`` products of its factors, so the cap
bounds a step's work; a tie the cap leaves unmerged stays a possible cause of reducibility, which split R-hat then
reports. Only exact
zeros ever remove a configuration: ``near_zero`` merges blocks, it never shrinks a support.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from dogs.models.factor_graph import DiscreteFactorGraph

__all__ = ["MAX_BLOCK_CONFIGURATIONS", "automatic_blocks", "deterministic_blocks", "internal_support", "pack_blocks",
           "unenclosed_ties"]

#: Default cap on a block's internal support (candidate configurations) in :func:`deterministic_blocks`.
MAX_BLOCK_CONFIGURATIONS = 256
#: Largest internal support :func:`pack_blocks` accepts: the kernel's work array holds all its configurations.
BLOCK_CONFIGURATIONS_LIMIT = 1 << 16
#: Largest join (product of two supports) formed while a support is computed: a bigger one is refused.
JOIN_LIMIT = 1 << 20
#: :func:`deterministic_blocks` weighs a merge only when the product of the supports it joins is at most this many
#: times the cap (a variable of up to 64 states that is a function of a full block still merges): the joins stay
#: small, so that choosing the blocks costs a fraction of a second on munin's 1041 variables.
JOIN_FACTOR = 64


class _Supports:
    """Internal supports of sets of variables of ``model``, by joins (module docstring)."""

    def __init__(self, model: DiscreteFactorGraph):
        self.model = model
        self.scopes = [model.scope(f) for f in range(model.n_factors)]
        self.scope_sets = [frozenset(scope.tolist()) for scope in self.scopes]
        self.factors_of = [np.unique(model.factor_ids[model.factor_indptr[v]:model.factor_indptr[v + 1]])
                           for v in range(model.n_vars)]

    def _positive(self, f, variables, rows) -> np.ndarray:
        """Whether factor ``f`` (scope within ``variables``, sorted) is positive at each row of ``rows``."""
        model = self.model
        lo, hi = model.scope_starts[f], model.scope_starts[f + 1]
        columns = np.searchsorted(variables, self.scopes[f])
        offsets = model.table_starts[f] + rows[:, columns].astype(np.int64) @ model.strides[lo:hi].astype(np.int64)
        return model.log_values[offsets] > -np.inf

    def single(self, v: int) -> tuple[np.ndarray, np.ndarray]:
        """``({v}, its states where every factor over ``v`` alone is positive)``."""
        variables = np.array([v], dtype=np.int64)
        rows = np.arange(int(self.model.cardinalities[v]), dtype=np.int32)[:, None]
        for f in self.factors_of[v]:
            if self.scopes[f].size == 1:
                rows = rows[self._positive(f, variables, rows)]
        return variables, rows

    def join(self, first, second):
        """The internal support of the union of two disjoint sets from theirs, ``(variables, rows)`` with the rows in
        C order; None when the product of the two supports exceeds :data:`JOIN_LIMIT`."""
        (vars_a, rows_a), (vars_b, rows_b) = first, second
        if len(rows_a) * len(rows_b) > JOIN_LIMIT:
            return None
        variables = np.concatenate([vars_a, vars_b])
        order = np.argsort(variables)
        rows = np.concatenate([np.repeat(rows_a, len(rows_b), axis=0), np.tile(rows_b, (len(rows_a), 1))],
                              axis=1)[:, order]
        variables = variables[order]
        members = set(variables.tolist())
        smaller, other = (vars_a, vars_b) if vars_a.size <= vars_b.size else (vars_b, vars_a)
        other = set(other.tolist())
        # a factor the union makes internal has variables on both sides: it is a factor of the smaller side's
        for f in np.unique(np.concatenate([self.factors_of[v] for v in smaller])):
            scope = self.scope_sets[f]
            if scope <= members and not scope.isdisjoint(other) and len(scope & other) < len(scope):
                rows = rows[self._positive(f, variables, rows)]
        return variables, rows[np.lexsort(rows.T[::-1])] if rows.shape[0] else rows

    def of(self, variables):
        """The internal support of ``variables`` (distinct), folding one variable at a time, each time the one that
        makes the most factors internal (so that constraints prune the support early); None when a join exceeds
        :data:`JOIN_LIMIT`."""
        left = sorted(int(v) for v in variables)
        scopes = {f: set(self.scopes[f].tolist()) for v in left for f in self.factors_of[v]}
        members = set(left)
        inside = {f: s for f, s in scopes.items() if s <= members}
        current, taken = None, set()
        while left:
            def completed(v):
                return sum(1 for s in inside.values() if v in s and s <= taken | {v})

            v = max(left, key=lambda u: (completed(u), -int(self.model.cardinalities[u]), -u))
            left.remove(v)
            taken.add(v)
            current = self.single(v) if current is None else self.join(current, self.single(v))
            if current is None:
                return None
        return current


def internal_support(model: DiscreteFactorGraph, variables) -> np.ndarray:
    """The configurations of ``variables`` (distinct indices) at which every factor whose scope lies within them is
    positive (:math:`\\Sigma_B` of the module docstring), ``(C, |B|)`` int32 rows in C order over the sorted
    variables (the last fastest). Raises ``ValueError`` when a join of partial supports would exceed
    :data:`JOIN_LIMIT` rows."""
    if not isinstance(model, DiscreteFactorGraph):
        raise TypeError(f"model must be a DiscreteFactorGraph, got {type(model).__name__}")
    support = _Supports(model).of(variables)
    if support is None:
        raise ValueError(f"the support of block {sorted(int(v) for v in variables)} is too large to enumerate "
                         f"(a partial join over {JOIN_LIMIT} configurations)")
    return support[1]


def deterministic_blocks(model: DiscreteFactorGraph, max_configurations: int = MAX_BLOCK_CONFIGURATIONS,
                         near_zero: float = 0.0) -> list[np.ndarray]:
    """Blocks of variables tied by zero (or near-zero) entries, each sorted, of two or more variables and at most
    ``max_configurations`` configurations in its internal support (module docstring); the other variables stay
    single sites."""
    if not isinstance(model, DiscreteFactorGraph):
        raise TypeError(f"model must be a DiscreteFactorGraph, got {type(model).__name__}")
    if not 0.0 <= near_zero < 1.0:
        raise ValueError(f"near_zero must lie in [0, 1), got {near_zero}")
    tied = []
    for f in range(model.n_factors):
        scope = model.scope(f)
        if scope.size < 2:
            continue
        table = model.log_values[model.table_starts[f]:model.table_starts[f + 1]]
        smallest = table.min() - table.max()  # log of the smallest entry over the largest
        if smallest == -np.inf or (near_zero > 0 and smallest <= np.log(near_zero)):
            tied.append((f, scope.tolist()))
    root = np.arange(model.n_vars)

    def find(i):
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    supports = _Supports(model)
    support_of = {v: supports.single(v) for v in range(model.n_vars)}  # root -> (variables, rows) of its block
    version = np.zeros(model.n_vars, dtype=np.int64)  # bumped when a root's block changes: older entries are stale
    candidates = [pair for _, scope in tied for n, a in enumerate(scope) for pair in ((a, b) for b in scope[n + 1:])]
    candidates += [tuple(scope) for _, scope in tied if len(scope) > 2]
    heap = []

    def push(candidate):
        roots = sorted({find(v) for v in candidates[candidate]}, key=lambda r: (len(support_of[r][1]), r))
        if len(roots) < 2:
            return
        merged = support_of[roots[0]]
        for r in roots[1:]:
            if len(merged[1]) * len(support_of[r][1]) > JOIN_FACTOR * max_configurations:
                return  # the joined supports would have to shrink more than JOIN_FACTOR-fold to fit the cap
            merged = supports.join(merged, support_of[r])
            if merged is None:
                return
        if len(merged[1]) > max_configurations:
            return
        kept = len(merged[1]) / math.prod(len(support_of[r][1]) for r in roots)
        heapq.heappush(heap, (kept, len(merged[1]), candidate, tuple(sorted(roots)),
                              tuple(int(version[r]) for r in sorted(roots)), merged))

    for candidate in range(len(candidates)):
        push(candidate)
    while heap:
        _, _, candidate, roots, versions, merged = heapq.heappop(heap)
        if any(find(r) != r or version[r] != v for r, v in zip(roots, versions)):
            push(candidate)  # its blocks grew since: weigh it again
            continue
        keep = roots[0]
        for r in roots[1:]:
            root[r] = keep
            del support_of[r]
        version[keep] += 1
        support_of[keep] = merged
    owners = np.array([find(i) for i in range(model.n_vars)])
    blocks = [np.flatnonzero(owners == r) for r in np.unique(owners)]
    return [b for b in blocks if b.size > 1]


def unenclosed_ties(model: DiscreteFactorGraph, blocks) -> int:
    """How many factors over two or more variables with a zero entry have their scope in no one of ``blocks``
    (disjoint blocks; a variable of none is a site of its own): ties a single-site update may not be able to cross."""
    block_of = np.arange(model.n_vars) + model.n_vars
    for b, variables in enumerate(blocks):
        block_of[np.asarray(variables, dtype=np.int64)] = b
    loose = 0
    for f in range(model.n_factors):
        scope = model.scope(f)
        table = model.log_values[model.table_starts[f]:model.table_starts[f + 1]]
        if scope.size > 1 and table.min() == -np.inf and np.unique(block_of[scope]).size > 1:
            loose += 1
    return loose


def automatic_blocks(model: DiscreteFactorGraph):
    """The blocks of ``dogs.sample(..., blocks="auto")`` for a factor graph: :func:`deterministic_blocks` when they
    hold every factor with a zero entry inside one block (:func:`unenclosed_ties` is 0: asia, child, alarm and
    every network without zeros), else the blocks drawn by elimination of
    :func:`~dogs.samplers.elimination_blocks.elimination_blocks`.

    Why not enumerated blocks and single sites where some tie is left out. A zero entry the blocks do not hold
    can make the chain reducible, and where zeros come with near-zero entries (pgmpy's pathfinder, diabetes,
    munin2-4) single-site chains agree on wrong answers, so that split R-hat cannot see it. On the
    Bayesian-network scoreboard (:mod:`dogs.benchmarks.networks`, 5 s per network) the systematic scan's
    intervals covered 60-91% of the exact marginals there with enumerated blocks and single sites, and 97.7-100%
    with these defaults. Blocks drawn by elimination only of the variables in factors with zeros (single sites
    elsewhere) were tried and fell short too (munin3 67%): variables without a zero entry are tied by near-zero
    ones. Elimination costs more per pass where single sites were right already (water: 143 draws against 3,793
    in 5 s, both covering 100%), a price the default pays for not being confidently wrong.
    """
    from dogs.samplers.elimination_blocks import elimination_blocks

    blocks = deterministic_blocks(model)
    return blocks if unenclosed_ties(model, blocks) == 0 else elimination_blocks(model)


def pack_blocks(model: DiscreteFactorGraph, blocks) -> tuple:
    """The arrays the kernel reads for ``blocks`` (sequences of variable indices, disjoint; blocks of one variable
    are single sites): ``(block_of, block_indptr, block_vars, block_factor_indptr, block_factors,
    largest support, config_indptr, configs)``, ``block_of[i] = -1`` for a single site, each block's variables
    sorted, its factors those that contain one of its variables, once each, in increasing order, and its candidate
    configurations its internal support (:func:`internal_support`), the rows of block ``b`` flattened in
    ``configs[config_indptr[b]:config_indptr[b + 1]]``."""
    p = model.n_vars
    block_of = np.full(p, -1, dtype=np.int64)
    members, factors, rows, largest = [], [], [], 1
    for b in blocks if blocks is not None else []:
        variables = np.asarray(b)
        if variables.ndim != 1 or variables.size == 0 or not np.issubdtype(variables.dtype, np.integer):
            raise ValueError(f"every block must be a non-empty sequence of variable indices, got {b!r}")
        if variables.min() < 0 or variables.max() >= p or np.unique(variables).size != variables.size:
            raise ValueError(f"a block must list distinct variables in 0..{p - 1}, got {variables.tolist()}")
        if variables.size == 1:
            continue
        if np.any(block_of[variables] >= 0):
            raise ValueError(f"blocks must be disjoint: variable {int(variables[block_of[variables] >= 0][0])} is in "
                             "two")
        variables = np.sort(variables).astype(np.int64)
        support = internal_support(model, variables)
        if len(support) > BLOCK_CONFIGURATIONS_LIMIT:
            raise ValueError(f"block {variables.tolist()} has {len(support)} configurations of positive weight under "
                             f"its own factors, more than {BLOCK_CONFIGURATIONS_LIMIT}")
        block_of[variables] = len(members)
        members.append(variables)
        rows.append(np.ascontiguousarray(support, dtype=np.int32).ravel())
        slots = np.concatenate([np.arange(model.factor_indptr[v], model.factor_indptr[v + 1]) for v in variables])
        factors.append(np.unique(model.factor_ids[slots]).astype(np.int64))
        largest = max(largest, len(support))

    def csr(parts, dtype=np.int64):
        indptr = np.concatenate([[0], np.cumsum([part.size for part in parts])]).astype(np.int64)
        return indptr, (np.concatenate(parts) if parts else np.zeros(0)).astype(dtype)

    block_indptr, block_vars = csr(members)
    block_factor_indptr, block_factors = csr(factors)
    config_indptr, configs = csr(rows, np.int32)
    return (block_of, block_indptr, block_vars, block_factor_indptr, block_factors, np.int64(largest), config_indptr,
            configs)
