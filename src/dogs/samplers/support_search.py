r"""A state of positive probability of a factor graph by constraint propagation and backtracking.

The support of :math:`\pi(x) \propto \prod_f \phi_f(x_{S_f})` is a constraint satisfaction problem: every factor
with zero entries allows only the configurations of its scope where it is positive (factors without zeros allow
everything). :func:`support_state` solves it by the textbook method (Mackworth 1977, generalised arc consistency;
Haralick & Elliott 1980, search with propagation):

1. *Propagation*: each variable keeps a domain of labels still possible; a label of ``i`` is removed when no
   positive entry of some factor containing ``i`` agrees with it and with the domains of the factor's other
   variables. Removals are propagated, factor by factor through a queue, until nothing changes. A domain that
   becomes empty *proves* that no state of positive probability exists (given the domains so far).
2. *Search*: the unassigned variable with the fewest labels left (ties to the first in ``order``) is set to one of
   them, drawn at random, and propagation runs again; when a domain empties, the label is removed and the next
   one tried, and when none is left the search goes back one variable.

With every domain a single label, each factor with zeros is positive at the state (propagation left only
supported labels), so the state has positive probability. This finds starts where sequential sampling with
one-step backtracking (:func:`dogs.samplers.factor_gibbs.positive_starts`) runs into a dead end deep below its
choice (evidence far downstream of deterministic tables); its draws are random but not forward samples.
"""

from __future__ import annotations

from collections import deque

import numpy as np

__all__ = ["NoPositiveStartError", "support_state", "support_states"]


class NoPositiveStartError(ValueError):
    """No state of positive probability was found for a chain's start (the evidence may have probability 0)."""


class _Unsatisfiable(Exception):
    """A domain became empty."""


def support_state(model, rng: np.random.Generator, *, order=None, budget: int | None = None) -> np.ndarray:
    """One ``(p,)`` int32 state of positive probability of ``model`` (module docstring).

    Raises
    ------
    NoPositiveStartError
        When propagation proves that no such state exists, or the search exceeds ``budget`` assignments
        (default ``200 p``).
    """
    return support_states(model, 1, rng, order=order, budget=budget)[0]


def support_states(model, n_states: int, rng: np.random.Generator, *, order=None,
                   budget: int | None = None) -> np.ndarray:
    """``(n_states, p)`` int32 states of positive probability, each from its own search (:func:`support_state`),
    after one propagation from the full domains that they share."""
    p, card = model.n_vars, model.cardinalities
    budget = 200 * p if budget is None else budget
    order = np.arange(p) if order is None else np.asarray(order, dtype=np.int64)
    rank = np.empty(p, dtype=np.int64)
    rank[order] = np.arange(p)
    constraints = {}  # factor -> its positive entries as a boolean table over its scope
    for f in range(model.n_factors):
        table = model.table(f)
        if model.scope(f).size and np.isinf(table).any():
            constraints[f] = np.isfinite(table)
    factors_of = [[int(f) for f in model.factor_ids[model.factor_indptr[i]:model.factor_indptr[i + 1]]
                   if int(f) in constraints] for i in range(p)]
    domains = np.arange(card.max())[None, :] < card[:, None]
    try:
        _propagate(model, constraints, factors_of, domains, list(constraints))
    except _Unsatisfiable:
        raise NoPositiveStartError("no state of positive probability exists: propagating the zero entries (with the "
                                   "evidence) empties a variable's labels") from None
    return np.array([_search(model, constraints, factors_of, domains.copy(), rank, rng, budget)
                     for _ in range(n_states)], dtype=np.int32).reshape(n_states, p)


def _search(model, constraints, factors_of, domains, rank, rng, budget) -> np.ndarray:
    """Step 2 of the module docstring from propagated ``domains`` (changed in place)."""
    stack = []  # (variable, domains before its assignment, labels left to try)
    steps = 0
    while True:
        sizes = domains.sum(axis=1)
        open_vars = np.flatnonzero(sizes > 1)
        if open_vars.size == 0:
            break
        i = int(open_vars[np.lexsort((rank[open_vars], sizes[open_vars]))[0]])
        labels = rng.permutation(np.flatnonzero(domains[i])).tolist()
        stack.append((i, domains.copy(), labels))
        while stack:
            i, saved, labels = stack[-1]
            if not labels:
                stack.pop()
                if not stack:
                    raise NoPositiveStartError("no state of positive probability exists: the search with "
                                               "propagation tried every label")
                continue
            label = labels.pop(0)
            steps += 1
            if steps > budget:
                raise NoPositiveStartError(f"no start of positive probability found in {budget} assignments of the "
                                           "search with propagation; the support is too hard to find: give starts")
            domains[:] = saved
            domains[i] = False
            domains[i, label] = True
            try:
                _propagate(model, constraints, factors_of, domains, factors_of[i])
                break
            except _Unsatisfiable:
                continue
    state = np.argmax(domains, axis=1).astype(np.int32)
    assert np.isfinite(model.log_potential(state))  # propagation's guarantee
    return state


def _propagate(model, constraints, factors_of, domains, queue) -> None:
    """Generalised arc consistency of ``domains`` (in place) from the factors in ``queue``; raises
    :class:`_Unsatisfiable` when a domain empties."""
    pending = deque(queue)
    queued = set(pending)
    while pending:
        f = pending.popleft()
        queued.discard(f)
        scope = model.scope(f)
        allowed = constraints[f]
        changed = False
        for axis, v in enumerate(scope):
            shape = [1] * scope.size
            shape[axis] = -1
            allowed = allowed & domains[v, :allowed.shape[axis]].reshape(shape)
        for axis, v in enumerate(scope):
            others = tuple(a for a in range(scope.size) if a != axis)
            supported = allowed.any(axis=others) if others else allowed
            k = supported.size
            if np.array_equal(supported, domains[v, :k]):
                continue
            domains[v, :k] &= supported
            if not domains[v].any():
                raise _Unsatisfiable
            shape = [1] * scope.size
            shape[axis] = -1
            allowed = allowed & supported.reshape(shape)  # the later axes see the smaller domain
            changed = True
            for g in factors_of[v]:
                if g != f and g not in queued:
                    pending.append(g)
                    queued.add(g)
        if changed and f not in queued:  # the axes before a change did not see it
            pending.append(f)
            queued.add(f)
