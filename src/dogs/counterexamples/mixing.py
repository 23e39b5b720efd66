r"""Exact mixing times of the He, De Sa, Mitliagkas & Ré (2016) models under random and systematic scans.

:math:`t_{mix}(\epsilon) = \min\{t : \max_{x_0} \|\delta_{x_0} P^{(t)} - \pi\|_{TV} \le \epsilon\}`
(He et al. 2016, §3), counted in single-variable updates and computed exactly from the models'
site kernels (:func:`dogs.exact.chains.mixing_time`, :func:`dogs.exact.chains.systematic_mixing_times`).

"Best" and "worst" systematic scan (Table 1, Fig. 2a): the minimum and maximum over *all*
permutations of the variables when the model is small enough to enumerate them; otherwise, for
models with blocks of interchangeable variables (two islands), over one permutation per class of
orders that visit the blocks in the same sequence (:func:`block_orders`: conjugate chains, the same
mixing time), while there are at most :data:`MAX_BLOCK_ORDERS` classes; otherwise, for models
invariant under every relabelling of the variables (discrete pyramid, memorize and repeat), any
order (all are equivalent); otherwise the paper's named best and worst orders. Every row says which
(``order_source``: :data:`ALL_PERMUTATIONS`, :data:`BLOCK_CLASSES`, :data:`SYMMETRIC`, :data:`NAMED`).

Systematic scans start from *every* support state, also those whose probability underflows to 0
in double precision (:math:`M^{-k}` far below 1e-308): the default starts of
:func:`~dogs.exact.chains.mixing_time` (:math:`\pi > 0`) would drop exactly the worst ones. Random
scan starts from the model's ``random_scan_starts`` (one per orbit of a symmetry of :math:`\pi`).

Every row says how its value was obtained (``method``): :data:`EXACT` (every start's distribution
followed), :data:`TOP_BRACKET` (models with at least ``bracket_min_states`` states whose :math:`\pi`
sits on one top state: :func:`~dogs.exact.chains.top_state_mixing_bracket`, one backward recursion
for every start at once), or, for the random scan of the App. A models at large ``n``
(:func:`level_chain_rows`), :data:`LEVELS_EXACT` / :data:`LEVELS_BRACKET`
(:mod:`dogs.counterexamples.levels`). Bracketed values are ``t_mix`` (a proven lower bound) and
``t_mix_upper`` (a proven upper bound); ``t_mix_upper`` is empty when the value is exact.
"""

from __future__ import annotations

import itertools
import math
import time
from typing import Callable

import numpy as np
import pandas as pd

from dogs.counterexamples.levels import level_chain, random_scan_mixing_bracket
from dogs.counterexamples.models import ScanOrderModel
from dogs.exact.chains import mixing_time, systematic_mixing_times, top_state_mixing_bracket

__all__ = [
    "SCANS",
    "PAPER_ORDER_SCANS",
    "ALL_PERMUTATIONS",
    "BLOCK_CLASSES",
    "MAX_BLOCK_ORDERS",
    "SYMMETRIC",
    "NAMED",
    "MAX_PERMUTATION_VARIABLES",
    "EXACT",
    "TOP_BRACKET",
    "LEVELS_EXACT",
    "LEVELS_BRACKET",
    "block_orders",
    "scan_mixing_rows",
    "level_chain_rows",
    "permutation_mixing_table",
]

#: The three scans of Table 1 and Fig. 2: random scan, best and worst systematic scan.
SCANS = ("random", "best_systematic", "worst_systematic")
#: The paper's named best and worst orders, kept beside the best and worst found.
PAPER_ORDER_SCANS = ("paper_best_order", "paper_worst_order")
ALL_PERMUTATIONS = "all permutations"
BLOCK_CLASSES = "all permutations (one per class of block sequences)"
#: Most classes of block sequences searched (two islands n = 7: 1716 classes, about 10 s; n = 8: 6435, 14 min).
MAX_BLOCK_ORDERS = 2000
SYMMETRIC = "any order (all equivalent by symmetry)"
NAMED = "paper's named order"
#: Most variables whose permutations are all enumerated (9! = 362880 systematic scans).
MAX_PERMUTATION_VARIABLES = 9
EXACT = "exact (every start followed)"
TOP_BRACKET = "top-state bracket (backward recursion, every start)"
LEVELS_EXACT = "level chain (exact lumping)"
LEVELS_BRACKET = "level chains (merge phase bracketed)"


def _perm_index(perms: np.ndarray, order: np.ndarray) -> int:
    return int(np.flatnonzero(np.all(perms == order, axis=1))[0])


def _block_sequences(sizes: list[int], swappable: bool):
    """Every sequence of block labels with ``sizes[b]`` copies of ``b``; one per swap class when ``swappable``."""
    total = sum(sizes)

    def extend(prefix, left):
        if len(prefix) == total:
            yield tuple(prefix)
            return
        for b, count in enumerate(left):
            if count == 0:
                continue
            if swappable and b > 0 and left[b - 1] == sizes[b - 1] and count == sizes[b]:
                continue  # canonical form: blocks first appear in label order (the swaps relabel them)
            left[b] -= 1
            prefix.append(b)
            yield from extend(prefix, left)
            prefix.pop()
            left[b] += 1

    yield from extend([], list(sizes))


def block_orders(model: ScanOrderModel, max_orders: int = MAX_BLOCK_ORDERS) -> np.ndarray | None:
    r"""One systematic order per class of orders that visit ``model.interchangeable_blocks`` in the same sequence.

    Relabelling variables within a block (or, when ``blocks_swappable``, exchanging the blocks) is a
    symmetry of :math:`\pi`, so it conjugates the systematic-scan chain by a permutation of the
    states and leaves its worst-case mixing time unchanged: the minimum and maximum over these
    representatives are the minimum and maximum over all permutations. The symmetry is checked on the
    model (a transposition in every block, and the swap) before it is used. Returns ``None`` when the
    model has no blocks, or more than ``max_orders`` classes.
    """
    blocks = [list(b) for b in model.interchangeable_blocks]
    if not blocks or sorted(v for b in blocks for v in b) != list(range(model.n_vars)):
        return None
    sizes = [len(b) for b in blocks]
    swappable = model.blocks_swappable and len(set(sizes)) == 1
    count = math.factorial(sum(sizes)) // math.prod(math.factorial(k) for k in sizes)
    if swappable:
        count //= math.factorial(len(sizes))
    if count > max_orders:
        return None
    _check_symmetries(model, blocks, swappable)
    orders = []
    for sequence in _block_sequences(sizes, swappable):
        next_in = [iter(b) for b in blocks]
        orders.append([next(next_in[label]) for label in sequence])
    return np.array(orders, dtype=np.int64)


def _check_symmetries(model: ScanOrderModel, blocks: list[list[int]], swappable: bool) -> None:
    """Raise unless the declared block relabellings leave the support and the weights unchanged."""
    weight = {tuple(x): w for x, w in zip(model.states.tolist(), model.log_weights.tolist())}
    relabellings = [(b[0], b[1]) for b in blocks if len(b) > 1]
    mappings = []
    for i, j in relabellings:
        perm = list(range(model.n_vars))
        perm[i], perm[j] = j, i
        mappings.append(perm)
    if swappable and len(blocks) > 1:
        perm = list(range(model.n_vars))
        for a, b in zip(blocks[0], blocks[1]):
            perm[a], perm[b] = b, a
        mappings.append(perm)
    for perm in mappings:
        for x, w in weight.items():
            image = tuple(x[perm[v]] for v in range(model.n_vars))
            if image not in weight or not math.isclose(weight[image], w, rel_tol=1e-12, abs_tol=1e-12):
                raise ValueError(f"{model.name}: the declared interchangeable blocks are not a symmetry of pi")


def scan_mixing_rows(model: ScanOrderModel, epsilon: float, *, enumerate_max_variables: int,
                     enumerate_max_states: int, bracket_min_states: int | None = None, random: bool = True,
                     progress: Callable[[str], None] | None = None) -> list[dict]:
    r"""Exact mixing times of one model: random, best and worst systematic scan, and the paper's named orders.

    Parameters
    ----------
    model : ScanOrderModel
        A model of Table 1 (:func:`dogs.counterexamples.models.make_model`).
    epsilon : float
        TV threshold of the mixing time (paper: 1/4).
    enumerate_max_variables, enumerate_max_states : int
        Best and worst are taken over all permutations when the model has at most this many
        variables and states (see the module docstring otherwise).
    bracket_min_states : int, optional
        Models with at least this many states whose top state holds at least :math:`1 - \epsilon` of
        :math:`\pi` get their named or symmetric systematic scans from
        :func:`~dogs.exact.chains.top_state_mixing_bracket` (exact when its bounds meet); default: never.
    random : bool
        Also the random scan on the full model (False: systematic scans only, e.g. when
        :func:`level_chain_rows` gives the random scan).
    progress : callable, optional
        Receives progress messages of long mixing-time searches.

    Returns
    -------
    list of dict
        Rows ``model, n, n_variables, n_states, M, bridge_weight, scan, t_mix, t_mix_upper, method,
        order_source, order, seconds``; ``scan`` is one of :data:`SCANS` or :data:`PAPER_ORDER_SCANS`,
        ``order`` the permutation in the paper's variable names, ``seconds`` the time of the search that
        found it (the first row includes building the kernels).
    """
    if not 0 < epsilon < 0.5:
        raise ValueError(f"epsilon must lie in (0, 1/2), got {epsilon!r}")
    started = time.perf_counter()
    kernels, pi = model.kernels(), model.stationary()
    build_seconds = time.perf_counter() - started
    every = np.arange(model.n_states)
    base = {
        "model": model.name, "n": model.n, "n_variables": model.n_vars, "n_states": model.n_states,
        "M": model.parameters.get("M", np.nan), "bridge_weight": model.parameters.get("bridge_weight", np.nan),
    }
    rows = []

    def add(scan, t_mix, source, order, seconds, upper=None, method=EXACT):
        rows.append({**base, "scan": scan, "t_mix": int(t_mix),
                     "t_mix_upper": np.nan if upper is None or upper == t_mix else int(upper), "method": method,
                     "order_source": source, "order": "" if order is None else model.order_names(order),
                     "seconds": round(seconds + (build_seconds if not rows else 0.0), 4)})

    if random:
        started = time.perf_counter()
        t_random = mixing_time(kernels, pi, "random", epsilon=epsilon, starts=model.random_scan_starts)
        add("random", t_random, "random scan", None, time.perf_counter() - started)
    named_best, named_worst = model.named_orders["best_systematic"], model.named_orders["worst_systematic"]
    top = int(np.argmax(pi))
    bracket = bracket_min_states is not None and model.n_states >= bracket_min_states and pi[top] >= 1 - epsilon

    def one_order(order):
        """(t_mix, t_mix_upper, method, seconds) of one systematic order."""
        started = time.perf_counter()
        if bracket:
            found = top_state_mixing_bracket(kernels, pi, order, top, epsilon=epsilon)
            return found.lower, found.upper, TOP_BRACKET, time.perf_counter() - started
        t = mixing_time(kernels, pi, order, epsilon=epsilon, starts=every, progress=progress)
        return t, None, EXACT, time.perf_counter() - started

    if model.n_vars <= min(enumerate_max_variables, MAX_PERMUTATION_VARIABLES) and model.n_states <= enumerate_max_states:
        started = time.perf_counter()
        perms = np.array(list(itertools.permutations(range(model.n_vars))), dtype=np.int64)
        times = systematic_mixing_times(kernels, pi, perms, epsilon=epsilon, starts=every)
        seconds = time.perf_counter() - started
        best, worst = int(np.argmin(times)), int(np.argmax(times))
        add("best_systematic", times[best], ALL_PERMUTATIONS, perms[best], seconds)
        add("worst_systematic", times[worst], ALL_PERMUTATIONS, perms[worst], 0.0)
        add("paper_best_order", times[_perm_index(perms, named_best)], ALL_PERMUTATIONS, named_best, 0.0)
        add("paper_worst_order", times[_perm_index(perms, named_worst)], ALL_PERMUTATIONS, named_worst, 0.0)
    elif (classes := block_orders(model)) is not None:
        started = time.perf_counter()
        times = systematic_mixing_times(kernels, pi, classes, epsilon=epsilon, starts=every)
        seconds = time.perf_counter() - started
        named = systematic_mixing_times(kernels, pi, np.array([named_best, named_worst]), epsilon=epsilon, starts=every)
        best, worst = int(np.argmin(times)), int(np.argmax(times))
        add("best_systematic", times[best], BLOCK_CLASSES, classes[best], seconds)
        add("worst_systematic", times[worst], BLOCK_CLASSES, classes[worst], 0.0)
        add("paper_best_order", named[0], BLOCK_CLASSES, named_best, 0.0)
        add("paper_worst_order", named[1], BLOCK_CLASSES, named_worst, 0.0)
        if progress is not None:
            progress(f"{model.name} n={model.n}: {len(classes)} classes of block sequences in {seconds:.1f} s")
    elif model.orders_equivalent:
        t, upper, method, seconds = one_order(named_best)
        for scan, order in (("best_systematic", named_best), ("worst_systematic", named_best),
                            ("paper_best_order", named_best), ("paper_worst_order", named_worst)):
            add(scan, t, SYMMETRIC, order, seconds if scan == "best_systematic" else 0.0, upper, method)
    else:
        found = {scan: one_order(model.named_orders[scan]) for scan in ("best_systematic", "worst_systematic")}
        for scan, paper_scan in (("best_systematic", "paper_best_order"), ("worst_systematic", "paper_worst_order")):
            t, upper, method, seconds = found[scan]
            add(scan, t, NAMED, model.named_orders[scan], seconds, upper, method)
            add(paper_scan, t, NAMED, model.named_orders[scan], 0.0, upper, method)
    return rows


def level_chain_rows(name: str, n_values, *, M_factor: float, epsilon: float,
                     progress: Callable[[str], None] | None = None) -> list[dict]:
    """Random-scan mixing times of an App. A model on its level chain (:mod:`dogs.counterexamples.levels`) at every ``n``.

    Returns
    -------
    list of dict
        Rows ``model, n, n_levels, M, scan ("random"), t_mix, t_mix_upper, method, order_source, seconds``;
        ``t_mix`` and ``t_mix_upper`` bracket the full model's worst-case mixing time (``t_mix_upper`` empty
        when they meet).
    """
    rows = []
    for n in n_values:
        started = time.perf_counter()
        chain = level_chain(name, n, M_factor=M_factor)
        lower, upper = random_scan_mixing_bracket(chain, epsilon)
        seconds = time.perf_counter() - started
        rows.append({"model": name, "n": int(n), "n_levels": chain.n_levels, "M": chain.M, "scan": "random",
                     "t_mix": int(lower), "t_mix_upper": np.nan if upper == lower else int(upper),
                     "method": LEVELS_EXACT if chain.exact else LEVELS_BRACKET, "order_source": "random scan",
                     "seconds": round(seconds, 4)})
        if progress is not None:
            progress(f"{name} n={n}: random scan on {chain.n_levels} levels: t_mix in [{lower}, {upper}] ({seconds:.1f} s)")
    return rows


def permutation_mixing_table(model: ScanOrderModel, epsilon: float) -> pd.DataFrame:
    """Fig. 2c of He et al. (2016): the exact mixing time of every systematic permutation (sorted) and of random scan.

    Returns
    -------
    pandas.DataFrame
        Columns ``model, n, bridge_weight, scan, rank, t_mix, order``: first the random-scan row
        (``scan = "random"``, ``rank = 0``), then one row per permutation (``scan = "systematic"``)
        in increasing ``t_mix`` (``rank`` 1, 2, ...; ties in enumeration order).
    """
    if not 0 < epsilon < 0.5:
        raise ValueError(f"epsilon must lie in (0, 1/2), got {epsilon!r}")
    if model.n_vars > MAX_PERMUTATION_VARIABLES:
        raise ValueError(f"{model.name} with n={model.n} has {model.n_vars} variables: too many permutations "
                         f"to enumerate (at most {MAX_PERMUTATION_VARIABLES} variables)")
    kernels, pi = model.kernels(), model.stationary()
    every = np.arange(model.n_states)
    perms = np.array(list(itertools.permutations(range(model.n_vars))), dtype=np.int64)
    times = systematic_mixing_times(kernels, pi, perms, epsilon=epsilon, starts=every)
    t_random = mixing_time(kernels, pi, "random", epsilon=epsilon, starts=model.random_scan_starts)
    order = np.argsort(times, kind="stable")
    bridge_weight = model.parameters.get("bridge_weight", np.nan)
    frame = pd.DataFrame({
        "model": model.name, "n": model.n, "bridge_weight": bridge_weight,
        "scan": "systematic", "rank": np.arange(1, len(perms) + 1), "t_mix": times[order],
        "order": [model.order_names(p) for p in perms[order]],
    })
    random_row = pd.DataFrame([{"model": model.name, "n": model.n, "bridge_weight": frame["bridge_weight"].iloc[0],
                                "scan": "random", "rank": 0, "t_mix": t_random, "order": "random scan"}])
    return pd.concat([random_row, frame], ignore_index=True)
