r"""Gibbs sampling of discrete factor graphs (Bayesian networks, higher-order Markov networks) with any scan.

For the model of :class:`~dogs.models.factor_graph.DiscreteFactorGraph`,
:math:`\pi(x) \propto \prod_f \phi_f(x_{S_f})`, step ``t`` of the scan updates one site ``i`` (the scan's index,
or a uniformly drawn site where the scan holds ``-1``) by drawing from its full conditional, the product of the
factors containing it,

.. math::

    \pi(X_i = k \mid x_{-i}) \propto \prod_{f \ni i} \phi_f\big(x_{S_f}^{(i \to k)}\big),

looked up in the factors' tables (:mod:`dogs._kernels.factor_gibbs`: the exact floating-point rule). Work
follows the sampler contract (:mod:`dogs.samplers.base`): one site update per step, ``K_i - 1`` single-flip
density evaluations per update of a ``K_i``-state variable (a block update counts as one step, with one fewer
evaluations than its block's joint configurations).

Starts of positive probability. With zero entries (deterministic conditional tables), a uniformly random state
usually has probability 0, and single-site Gibbs from it is not a Markov chain on the model. :func:`positive_starts`
draws each chain's start by sequential sampling with backtracking: variables are assigned one at a time (in
topological order for a Bayesian network, so that with no evidence this is forward sampling from the network;
otherwise by maximum cardinality search), each from the product of the factors whose scopes have just become fully
assigned, and a variable whose every label has weight 0 sends the search back to the previous one. Every start it
returns has positive probability; when none is found within a budget of steps, the search with constraint
propagation of :mod:`dogs.samplers.support_search` takes over (its starts are random states of positive
probability, not forward samples), and it raises a clear error when propagation proves that no such state exists
or its budget runs out too.

Reducibility. Determinism can make single-site Gibbs reducible: two states of positive probability that no
sequence of single-site changes through positive states connects (two variables that must be equal, say). A chain
then never leaves the part it started in; chains started in different parts disagree, which the sampling call's
split R-hat reports, and chains that all start in one part agree on the wrong answer, which nothing inside a
sampler can detect. The dispersed starts of :func:`positive_starts` make the first case the likely one, and blocks
(``blocks=``, :mod:`dogs.samplers.factor_blocks`) of the variables tied by zero entries remove the cause where the
tied variables fit in one block.
"""

from __future__ import annotations

import weakref

import numpy as np

from dogs._kernels.factor_gibbs import factor_gibbs_chain_draws, factor_gibbs_chains_draws
from dogs._kernels.gibbs import seed_states
from dogs.models.factor_graph import DiscreteFactorGraph
from dogs.resources import TooLargeError, format_bytes, memory_limit_bytes
from dogs.samplers.base import Work, chain_seeds, check_n_chains
from dogs.samplers.checks import check_int
from dogs.samplers.elimination_blocks import empty_elimination_plan, pack_elimination_blocks
from dogs.samplers.factor_blocks import pack_blocks
from dogs.samplers.support_search import NoPositiveStartError, support_states
from dogs.samplers.draws import (DrawsResult, PreparedDraws, check_record_vars, label_dtype, passes_per_call, run_draws,
                                 use_threads)
from dogs.scans.base import Scan

__all__ = ["NoPositiveStartError", "SEQUENTIAL_STEPS_PER_VARIABLE", "START_STEPS_PER_VARIABLE", "factor_draws_kernel",
           "pack_factor_graph", "positive_starts", "prepare_factor_gibbs_draws", "run_factor_gibbs_draws"]

#: Assignments the start search with propagation may make per variable and chain before it gives up.
START_STEPS_PER_VARIABLE = 200
#: Assignments the sequential start search may make per variable and chain (backtracking included) before the
#: search with propagation takes over: forward sampling needs one per variable, and a search that backs up much
#: more is lost in a dead end far below its choice (on pgmpy's diabetes, 200 per variable took 4-5 s to fail).
SEQUENTIAL_STEPS_PER_VARIABLE = 4


class _SearchBudgetExceeded(NoPositiveStartError):
    """The sequential search used up its assignments without proving that no start exists."""


def run_factor_gibbs_draws(model: DiscreteFactorGraph, scan: Scan, *, seed, draws: int, n_chains: int = 1,
                           initial_state, record_vars=None, on_passes=None, blocks=None,
                           elimination=None) -> DrawsResult:
    """Run ``n_chains`` chains through ``draws`` passes of ``scan``, recording ``record_vars`` after every pass.

    Each chain is one dependent sequence of ``draws`` repetitions of the scan with one in-kernel random stream, its
    draws written by the kernel into ``labels`` (:mod:`dogs.samplers.draws`). :func:`prepare_factor_gibbs_draws`
    then :func:`dogs.samplers.draws.run_draws`.

    Parameters
    ----------
    model : DiscreteFactorGraph
    scan : Scan
        Over ``model.n_vars`` variables; ``-1`` entries are uniform steps.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Root of the per-chain seeds (:func:`~dogs.samplers.base.chain_seeds`). Same seed, same draws.
    draws : int
        Passes per chain (>= 1), each recorded.
    n_chains : int
    initial_state : int or array of int
        One label everywhere, a ``(p,)`` state for every chain or ``(n_chains, p)`` states; each must have positive
        probability (:func:`positive_starts` draws such states).
    record_vars : array-like of int, optional
        Variables to record (default: all).
    on_passes : callable, optional
        Called with the number of passes just done after each kernel call.
    blocks : sequence of sequences of int, optional
        Disjoint blocks of variables (:mod:`dogs.samplers.factor_blocks`): a step on any variable of a block draws
        the whole block from its joint conditional. Default none: every step a single-site update.
    elimination : EliminationBlocks, optional
        Blocks drawn by exact elimination (:func:`dogs.samplers.elimination_blocks.elimination_blocks`): a step on
        a variable draws the block that is its home. Not together with ``blocks``. Raises
        :class:`dogs.resources.TooLargeError` before any chain runs when the chains' elimination tables would
        exceed the memory limit.

    Returns
    -------
    DrawsResult
        ``labels`` ``(n_chains, draws, V)`` (int8 when every ``K_i <= 127``), final states, work, seeds.
    """
    prepared = prepare_factor_gibbs_draws(model, scan, seed=seed, draws=draws, n_chains=n_chains,
                                          initial_state=initial_state, record_vars=record_vars, blocks=blocks,
                                          elimination=elimination)
    return run_draws(prepared, on_passes)


def prepare_factor_gibbs_draws(model: DiscreteFactorGraph, scan: Scan, *, seed, draws: int, n_chains: int = 1,
                               initial_state, record_vars=None, blocks=None, elimination=None) -> PreparedDraws:
    """The checked, seeded and packed chains of :func:`run_factor_gibbs_draws` (same arguments), ready to run."""
    if not isinstance(model, DiscreteFactorGraph):
        raise TypeError(f"model must be a DiscreteFactorGraph, got {type(model).__name__}")
    if not isinstance(scan, Scan):
        raise TypeError(f"scan must be a dogs.scans.Scan, got {type(scan).__name__}")
    if scan.n_vars != model.n_vars:
        raise ValueError(f"scan is over n_vars = {scan.n_vars} variables but the model has {model.n_vars}")
    n_chains = check_n_chains(n_chains)
    draws = check_int("draws", draws)
    states = _initial_states(model, initial_state, n_chains)
    record_vars = check_record_vars(record_vars, model.n_vars)
    packed = pack_factor_graph(model)
    if elimination is not None and blocks:
        raise ValueError("give blocks or elimination blocks, not both (an elimination block draws tied variables "
                         "together anyway)")
    packed_blocks = pack_blocks(model, blocks)
    plan = empty_elimination_plan(model) if elimination is None else pack_elimination_blocks(model, elimination)
    if elimination is not None:
        entries = int(plan[15][0] + plan[15][1])  # each chain's tables and messages, float64
        need, limit = 8.0 * n_chains * entries, memory_limit_bytes()
        if need > limit:
            raise TooLargeError(f"{n_chains} chains x the elimination blocks' tables ({entries:,} entries each) need "
                                f"about {format_bytes(need)}, more than the memory limit of {format_bytes(limit)}: use "
                                "fewer chains or smaller blocks (elimination_blocks' max_block_entries)")
    seeds = chain_seeds(seed, n_chains)
    rng_states = seed_states(seeds)
    labels = np.empty((n_chains, draws, record_vars.size), dtype=label_dtype(int(model.cardinalities.max())))
    indices = np.ascontiguousarray(scan.indices, dtype=np.int64)
    evaluations = np.zeros(n_chains, dtype=np.int64)
    per_pass = n_chains * _pass_cost(plan, indices)

    def run(first, count):
        if use_threads(n_chains, count * per_pass):
            factor_gibbs_chains_draws(packed, packed_blocks, plan, indices, states, rng_states, record_vars, labels,
                                      first, count, evaluations)
            return
        for c in range(n_chains):
            evaluations[c] += factor_gibbs_chain_draws(packed, packed_blocks, plan, indices, states[c], rng_states[c],
                                                       record_vars, labels[c], first, count)

    def finish():
        work = Work(site_updates=n_chains * draws * scan.length, density_evaluations=int(evaluations.sum()))
        return DrawsResult(labels=labels, record_vars=record_vars, states=states, work=work, seeds=seeds)

    return PreparedDraws(labels=labels, updates_per_pass=per_pass, run=run, finish=finish)


def _pass_cost(plan: tuple, indices: np.ndarray) -> int:
    """A pass's work in site updates, a step on an elimination block counted as its table entries (each about the
    cost of a site update): what decides the passes per kernel call and the use of threads."""
    elimination_of, block_entries = plan[0], plan[16]
    cost = np.ones(elimination_of.size, dtype=np.int64)
    homed = elimination_of >= 0
    cost[homed] = block_entries[elimination_of[homed]]
    return int(cost[indices[indices >= 0]].sum() + np.sum(indices < 0) * cost.mean())


def factor_draws_kernel(scan: Scan, n_chains: int, draws: int) -> tuple[str, str]:
    """``(module, function)`` under :mod:`dogs._kernels` of the kernel that the first call of
    :func:`run_factor_gibbs_draws` runs (for a notice before numba compiles it)."""
    per_pass = n_chains * scan.length
    threads = use_threads(n_chains, passes_per_call(draws, per_pass) * per_pass)
    return "factor_gibbs", "factor_gibbs_chains_draws" if threads else "factor_gibbs_chain_draws"


_PACKED: "weakref.WeakKeyDictionary[DiscreteFactorGraph, tuple]" = weakref.WeakKeyDictionary()


def pack_factor_graph(model: DiscreteFactorGraph) -> tuple:
    """The arrays the kernels read, built once per model: ``(card, factor_indptr, factor_ids, factor_positions,
    scope_starts, scope_vars, strides, table_starts, exp_values, log_values)``, ``exp_values`` each factor's table
    divided by its largest entry (:mod:`dogs._kernels.factor_gibbs`)."""
    packed = _PACKED.get(model)
    if packed is None:
        sizes = np.diff(model.table_starts)
        owner = np.repeat(np.arange(model.n_factors), sizes)
        peaks = np.full(model.n_factors, -np.inf)
        np.maximum.at(peaks, owner, model.log_values)
        exp_values = np.exp(model.log_values - peaks[owner])
        packed = tuple(np.ascontiguousarray(a) for a in (
            model.cardinalities, model.factor_indptr, model.factor_ids, model.factor_positions, model.scope_starts,
            model.scope_vars, model.strides, model.table_starts, exp_values, model.log_values))
        _PACKED[model] = packed
    return packed


def _initial_states(model: DiscreteFactorGraph, initial_state, n_chains: int) -> np.ndarray:
    """``(n_chains, p)`` int32 starts, each a state of positive probability."""
    n_vars, card = model.n_vars, model.cardinalities
    values = np.asarray(initial_state)
    if values.dtype == bool or not np.issubdtype(values.dtype, np.integer):
        raise TypeError(f"initial_state must hold integer labels, got dtype {values.dtype}")
    if not (values.ndim == 0 or values.shape in ((n_vars,), (n_chains, n_vars))):
        raise ValueError(f"initial_state must be a label, a ({n_vars},) state or a ({n_chains}, {n_vars}) array, "
                         f"got shape {values.shape}")
    states = np.ascontiguousarray(np.broadcast_to(values, (n_chains, n_vars)), dtype=np.int32).copy()
    bad = (states < 0) | (states >= card[None, :])
    if np.any(bad):
        c, i = (int(v) for v in np.argwhere(bad)[0])
        raise ValueError(f"initial_state labels must satisfy 0 <= x_i < K_i: variable {i} has K_i = {card[i]}, got "
                         f"{states[c, i]}")
    zero = ~np.isfinite(model.log_potential(states))
    if np.any(zero):
        c = int(np.argmax(zero))
        raise ValueError(f"the start of chain {c} has probability 0 under the model (a factor is 0 there); Gibbs "
                         "sampling needs starts of positive probability (dogs.samplers.factor_gibbs.positive_starts)")
    return states


# ------------------------------------------------------------------ starts of positive probability
def positive_starts(model: DiscreteFactorGraph, n_chains: int, rng: np.random.Generator, *,
                    order=None) -> np.ndarray:
    """``(n_chains, p)`` int32 states of positive probability, one random draw per chain (module docstring).

    Parameters
    ----------
    model : DiscreteFactorGraph
    n_chains : int
    rng : numpy.random.Generator
    order : sequence of int, optional
        The order in which variables are assigned (default: :func:`assignment_order`).

    Raises
    ------
    NoPositiveStartError
        When no state of positive probability exists, or when the search with constraint propagation
        (:func:`dogs.samplers.support_search.support_state`), which takes over from a sequential search exhausting
        :data:`SEQUENTIAL_STEPS_PER_VARIABLE` assignments per variable and then serves the remaining chains too,
        exhausts :data:`START_STEPS_PER_VARIABLE`.
    """
    n_chains = check_n_chains(n_chains)
    order = assignment_order(model) if order is None else np.asarray(order, dtype=np.int64)
    completes = _factors_completed_by(model, order)
    out = np.empty((n_chains, model.n_vars), dtype=np.int32)
    budget = START_STEPS_PER_VARIABLE * model.n_vars
    for c in range(n_chains):
        try:
            out[c] = _search_start(model, order, completes, rng, SEQUENTIAL_STEPS_PER_VARIABLE * model.n_vars)
        except _SearchBudgetExceeded:  # this chain and the next ones: the search with propagation
            out[c:] = support_states(model, n_chains - c, rng, order=order, budget=budget)
            break
    return out


def assignment_order(model: DiscreteFactorGraph) -> np.ndarray:
    """The order :func:`positive_starts` assigns variables in: topological for a Bayesian network (``kind ==
    "BAYES"``: each factor's last scope variable is its child), else maximum cardinality search on the blankets
    (each next variable the one with the most assigned neighbours, ties to the lowest index)."""
    p = model.n_vars
    if model.kind == "BAYES":
        parents = [set() for _ in range(p)]
        for f in range(model.n_factors):
            scope = model.scope(f).tolist()
            if scope:
                parents[scope[-1]].update(scope[:-1])
        order, placed = [], np.zeros(p, dtype=bool)
        children = [[] for _ in range(p)]
        waiting = np.array([len(s) for s in parents])
        for child, ps in enumerate(parents):
            for q in ps:
                children[q].append(child)
        ready = [i for i in range(p) if waiting[i] == 0]
        while ready:
            i = ready.pop(0)
            order.append(i)
            placed[i] = True
            for child in children[i]:
                waiting[child] -= 1
                if waiting[child] == 0:
                    ready.append(child)
        if len(order) == p:
            return np.array(order, dtype=np.int64)
    weight = np.zeros(p, dtype=np.int64)
    assigned = np.zeros(p, dtype=bool)
    order = []
    for _ in range(p):
        candidates = np.flatnonzero(~assigned)
        i = int(candidates[np.argmax(weight[candidates])])
        order.append(i)
        assigned[i] = True
        weight[model.neighbors[model.indptr[i]:model.indptr[i + 1]]] += 1
    return np.array(order, dtype=np.int64)


def _factors_completed_by(model: DiscreteFactorGraph, order: np.ndarray) -> list[list[int]]:
    """``completes[t]``: the factors whose last-assigned scope variable is ``order[t]`` (empty scopes: none)."""
    step_of = np.empty(model.n_vars, dtype=np.int64)
    step_of[order] = np.arange(order.size)
    completes: list[list[int]] = [[] for _ in range(order.size)]
    for f in range(model.n_factors):
        scope = model.scope(f)
        if scope.size:
            completes[int(step_of[scope].max())].append(f)
    return completes


def _search_start(model, order, completes, rng, budget) -> np.ndarray:
    """One state of positive probability by sequential sampling with backtracking (module docstring)."""
    p = model.n_vars
    state = np.zeros(p, dtype=np.int64)
    tried = [None] * p  # per depth: the labels not yet tried there, in the order drawn
    depth, steps = 0, 0
    while depth < p:
        i = int(order[depth])
        if tried[depth] is None:
            weights = _completion_weights(model, completes[depth], state, i)
            tried[depth] = _draw_order(weights, rng)
        if not tried[depth]:
            tried[depth] = None
            depth -= 1
            if depth < 0:
                raise NoPositiveStartError("no state of positive probability exists: the factors (with the evidence) "
                                           "are never all positive at once")
            continue
        state[i] = tried[depth].pop(0)
        depth += 1
        steps += 1
        if steps > budget:
            raise _SearchBudgetExceeded(f"no start of positive probability found in {budget} assignments by "
                                        "sequential search")
    return state.astype(np.int32)


def _completion_weights(model, factors, state, i) -> np.ndarray:
    """Weights of the labels of ``i`` from the factors it completes (the others already assigned in ``state``)."""
    n_states = int(model.cardinalities[i])
    log_w = np.zeros(n_states)
    for f in factors:
        lo, hi = model.scope_starts[f], model.scope_starts[f + 1]
        scope, strides = model.scope_vars[lo:hi], model.strides[lo:hi]
        position = int(np.flatnonzero(scope == i)[0])
        base = model.table_starts[f] + int(state[scope] @ strides) - int(state[i]) * int(strides[position])
        log_w += model.log_values[base + np.arange(n_states) * strides[position]]
    with np.errstate(invalid="ignore"):
        return np.where(np.isfinite(log_w), np.exp(log_w - np.max(log_w)), 0.0) if np.isfinite(log_w).any() \
            else np.zeros(n_states)


def _draw_order(weights: np.ndarray, rng: np.random.Generator) -> list[int]:
    """The labels of positive weight in a random order that draws each next label with probability proportional to
    its weight among those left (the first is a draw from the weights: forward sampling when nothing fails)."""
    labels = np.flatnonzero(weights > 0)
    if labels.size <= 1:
        return labels.tolist()
    keys = rng.random(labels.size) ** (1.0 / weights[labels])  # Efraimidis-Spirakis: weighted order without repeats
    return labels[np.argsort(-keys)].tolist()
