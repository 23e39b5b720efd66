r"""The five models of He, De Sa, Mitliagkas & Ré (2016), Table 1, as discrete distributions for exact Gibbs chains.

Each model is a distribution :math:`\pi(x) \propto e^{L(x)}` over a product
space of discrete variables. Because their supports are tiny parts of the
product spaces, a :class:`ScanOrderModel` lists the support states
(``states``, C order) with their natural-log weights; the exact-chain functions
of :mod:`dogs.exact.chains` accept exactly that (``states=``). Next to each
builder, :func:`definition_log_weights` evaluates the paper's formula at
*any* state of the product space (``-inf`` off the support): the tests check
the constructed supports against it. The analyses of the two-islands model
(§3.2 and §4: island masses, bridge efficiency, the reduced chain) are in
:mod:`dogs.counterexamples.islands`.

Where the paper uses "a very large constant :math:`M`", it is a parameter.
:func:`make_model` sets it with :func:`model_M`: :math:`M = c\,L` with :math:`L` the number of forward
transitions from the bottom state to the top state (``n`` for the sequence of dependencies,
:math:`2n \times` cycles for memorize and repeat): Appendix B shows the sequence of dependencies needs
:math:`M` growing at least linearly in :math:`n`, and the same argument applies to any chain of
:math:`L` forward moves, each taken with probability :math:`M/(1+M)` (all :math:`L` in a row with
probability :math:`\approx e^{-L/M} = e^{-1/c}`). Soft dependencies (ours): :math:`M = c\,(2n-1)\,n^2`.
Its analysis, like that of memorize and repeat, assumes that :math:`\pi` puts almost all of its mass
on the top state, and the level just below the top holds :math:`n(n-1)` merge states (one variable not
yet at ``n``, at any of its positions), against ``n`` for memorize and repeat: with :math:`M = c(2n-1)`
the mass off the top state grows like :math:`n/(2c)` (15-26 % at ``n = 4..7`` for :math:`c = 10`, most
of the mass at large ``n``); the extra :math:`n^2` brings it to about :math:`1/(2cn)`, as
:math:`n/M = 1/(2cn)` for memorize and repeat. Systematic mixing times at ``n = 4..8`` are the same with
either choice.

Variables are 0-based in code (``x_1`` of the paper is variable 0).

Models
------
sequence_of_dependencies (§3.1)
    ``n`` binary variables; :math:`P(x) \propto M^{|x|}` unless some
    :math:`x_i = 1` with :math:`x_{i-1} = 0` (then 0). Support
    :math:`s_0, \dots, s_n` (:math:`s_k`: the first :math:`k` variables true).
two_islands (§3.2, eq. (3))
    ``2n`` binary variables :math:`x_1..x_n, y_1..y_n`; weight 0 if some
    :math:`x_i` and some :math:`y_j` are both true, else 1, except the bridge
    (all false) whose weight is ``bridge_weight`` (1 in eq. (3); 0.1 in the
    modified model of §4).
discrete_pyramid (§3.3, App. A.1, Roberts & Rosenthal)
    ``n`` binary variables, uniform over the states with at most one true variable.
memorize_and_repeat (App. A.2)
    ``n`` variables; one memorize-and-repeat cycle is the paper's
    :math:`\log_M P(x) = \max_i x_i` on :math:`\sigma(0..0, 1..i)` (memorize) and
    :math:`n + \#\{x_i = n+1\}` on :math:`\sigma(i+1..n, n+1..n+1)` (repeat).
    The paper repeats the cycle ``n`` times "to allow the difference in mixing
    time to appear even in the worst-case analysis" without a formula; ours
    (choice): cycle :math:`c = 0..C-1` uses the values :math:`c(n+1) + v`,
    :math:`v = 0..n+1`, so a variable's "repeated" value of cycle :math:`c`
    (:math:`v = n+1`) is its "not memorized" value of cycle :math:`c + 1`
    (:math:`v = 0`), and the exponent of a cycle-:math:`c` state is
    :math:`2nc` plus the one-cycle exponent. The state where every variable
    is repeated in cycle :math:`c` is the empty-memory state of cycle
    :math:`c+1`, with the same weight either way. Cardinality
    :math:`C(n+1) + 1` per variable; :math:`C = n` (paper).
soft_dependencies (App. A.3)
    ``n`` variables with values ``0..n``. Memorize states: the variables store
    their position in a prefix :math:`(a_1, \dots, a_i)` of an accepted
    permutation, :math:`\log_M P = i`; a permutation is accepted when, for
    every :math:`k`, at most :math:`\lfloor\sqrt n\rfloor` still-unused
    variables lie strictly between :math:`a_k` and :math:`a_{k+1}` going
    forward mod ``n`` (the paper's displayed condition; ``window`` overrides
    :math:`\lfloor\sqrt n\rfloor`). Merge states (paper: "at least two of
    :math:`x` have value :math:`n`", :math:`\log_M P = n - 1 + \#\{x_j = n\}`):
    the paper does not say what the other entries hold; ours (choice, from its
    text "all variables need to be sampled one more time ... its value is
    changed to n"): a merge state is an accepted full permutation with some
    further entries raised to ``n``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from dogs.exact.chains import site_kernels, stationary_distribution, unique_rows

__all__ = [
    "MODEL_NAMES",
    "MIN_N",
    "DEFAULT_MAX_STATES",
    "ScanOrderModel",
    "make_model",
    "model_M",
    "sequence_of_dependencies",
    "two_islands",
    "discrete_pyramid",
    "memorize_and_repeat",
    "soft_dependencies",
    "definition_log_weights",
    "check_n",
    "check_positive",
    "soft_window",
    "soft_prefix_accepted",
    "state_count",
    "state_space_binary",
]

MODEL_NAMES = ("sequence_of_dependencies", "two_islands", "discrete_pyramid", "memorize_and_repeat", "soft_dependencies")
#: Smallest n each builder accepts.
MIN_N = {name: 2 for name in MODEL_NAMES}
DEFAULT_MAX_STATES = 100_000


@dataclass(frozen=True, eq=False)
class ScanOrderModel:
    r"""A model of Table 1 as its support states and unnormalised log weights.

    Attributes
    ----------
    name : str
        One of :data:`MODEL_NAMES`.
    n : int
        The paper's ``n`` (for two islands: variables per island, ``2n`` in all).
    cardinalities : (p,) int array
        Number of values of each variable.
    states : (N, p) int array
        The support (every state of positive weight), in C order.
    log_weights : (N,) float array
        :math:`L(x)`, natural log, :math:`\pi \propto e^{L}`.
    variable_names : tuple of str
        ``"x1"``, ... as in the paper.
    named_orders : mapping
        The paper's best and worst systematic scans, ``{"best_systematic": order, "worst_systematic": order}``
        (0-based permutations).
    parameters : mapping
        ``M``, ``bridge_weight``, ``window``, ``n_cycles`` as applicable.
    random_scan_starts : (S,) int array
        Indices of start states meeting every orbit of a symmetry of :math:`\pi` (a relabelling
        of variables under which :math:`\pi` is invariant): the random-scan chain commutes with
        it, so the worst case over these starts is the worst case over all states.
    orders_equivalent : bool
        True when every relabelling of the variables leaves :math:`\pi` invariant, so all
        systematic permutations have the same mixing time (and best = worst).
    interchangeable_blocks : tuple of tuples of int
        Blocks of variables within which every relabelling leaves :math:`\pi` invariant (two islands:
        the x and the y variables). Two systematic scans that differ only by such relabellings are
        conjugate chains with the same worst-case mixing time, so a scan's mixing time depends only on
        the sequence of blocks it visits (:func:`dogs.counterexamples.mixing.block_orders`).
    blocks_swappable : bool
        True when exchanging the (equally large) blocks also leaves :math:`\pi` invariant.
    """

    name: str
    n: int
    cardinalities: np.ndarray
    states: np.ndarray
    log_weights: np.ndarray
    variable_names: tuple
    named_orders: Mapping
    parameters: Mapping
    random_scan_starts: np.ndarray
    orders_equivalent: bool = False
    interchangeable_blocks: tuple = ()
    blocks_swappable: bool = False
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def n_vars(self) -> int:
        return int(self.cardinalities.size)

    @property
    def n_states(self) -> int:
        return int(self.states.shape[0])

    def stationary(self) -> np.ndarray:
        r""":math:`\pi` over ``states``."""
        if "pi" not in self._cache:
            self._cache["pi"] = stationary_distribution(self.log_weights)
        return self._cache["pi"]

    def kernels(self) -> list:
        """Sparse single-site Gibbs kernels over ``states`` (:func:`dogs.exact.chains.site_kernels`)."""
        if "kernels" not in self._cache:
            self._cache["kernels"] = site_kernels(self.log_weights, self.cardinalities, states=self.states)
        return self._cache["kernels"]

    def index_of(self, states) -> np.ndarray:
        """Row indices in ``states`` of the given states (``ValueError`` if one is off the support)."""
        if "lookup" not in self._cache:
            self._cache["lookup"] = {tuple(row): k for k, row in enumerate(self.states.tolist())}
        lookup = self._cache["lookup"]
        rows = np.atleast_2d(np.asarray(states, dtype=np.int64))
        try:
            return np.array([lookup[tuple(row)] for row in rows.tolist()], dtype=np.int64)
        except KeyError as exc:
            raise ValueError(f"state {exc.args[0]} is not in the support of {self.name}") from None

    def order_names(self, order) -> str:
        """A permutation written with the paper's variable names, e.g. ``"x1 y1 x2 y2"``."""
        return " ".join(self.variable_names[i] for i in order)


def check_n(name, n):
    """``n`` as an ``int``, refused unless it is an integer of at least ``MIN_N[name]`` (the model ``name``)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise ValueError(f"n must be an integer for {name}, got {n!r}")
    if n < MIN_N[name]:
        raise ValueError(f"n={n} is too small for {name}: n must be >= {MIN_N[name]}")
    return int(n)


def check_positive(value, key):
    """``value`` as a ``float``, refused unless it is a finite positive number; messages name ``key``."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not value > 0 or not np.isfinite(value):
        raise ValueError(f"{key} must be a finite positive number, got {value!r}")
    return float(value)


def _check_max_states(name, n, count, max_states):
    if max_states is not None and count > max_states:
        raise ValueError(
            f"max_states: {name} with n={n} has {count} states (or up to that many), more than "
            f"max_states={max_states} allows for exact computation"
        )


def _c_order(states: np.ndarray, log_weights: np.ndarray):
    order = np.argsort(unique_rows(states)[2], kind="stable")  # rank of each (distinct) row in C order
    return np.ascontiguousarray(states[order]), np.ascontiguousarray(log_weights[order])


def _finish(name, n, card, states, exponents_or_logw, names, named, params, starts_mask_fn, equivalent,
            blocks=(), swappable=False):
    states, logw = _c_order(np.asarray(states, dtype=np.int64), np.asarray(exponents_or_logw, dtype=np.float64))
    starts = np.flatnonzero(starts_mask_fn(states))
    return ScanOrderModel(
        name=name,
        n=n,
        cardinalities=np.asarray(card, dtype=np.int64),
        states=states,
        log_weights=logw,
        variable_names=tuple(names),
        named_orders={k: np.asarray(v, dtype=np.int64) for k, v in named.items()},
        parameters=dict(params),
        random_scan_starts=starts,
        orders_equivalent=equivalent,
        interchangeable_blocks=tuple(tuple(int(v) for v in block) for block in blocks),
        blocks_swappable=bool(swappable),
    )


# ---------------------------------------------------------------------------------------------
# sequence of dependencies


def sequence_of_dependencies(n: int, M: float) -> ScanOrderModel:
    r"""Sequence of dependencies (§3.1): :math:`P(x) \propto M^{|x|}`, zero if :math:`x_i \wedge \neg x_{i-1}` for some i.

    Best systematic scan :math:`x_1, \dots, x_n`; worst :math:`x_n, \dots, x_1`
    (paper: :math:`t_{mix} = n` and :math:`n(n-1) + 1` for large :math:`M`).
    """
    n = check_n("sequence_of_dependencies", n)
    M = check_positive(M, "M")
    states = np.tril(np.ones((n + 1, n), dtype=np.int64), k=-1)  # row k: first k variables true
    exponents = states.sum(axis=1)
    return _finish(
        "sequence_of_dependencies", n, [2] * n, states, exponents * math.log(M),
        [f"x{i + 1}" for i in range(n)],
        {"best_systematic": np.arange(n), "worst_systematic": np.arange(n)[::-1]},
        {"M": M}, lambda s: np.ones(len(s), dtype=bool), False,
    )


# ---------------------------------------------------------------------------------------------
# two islands


def two_islands(n: int, bridge_weight: float = 1.0) -> ScanOrderModel:
    r"""Two islands (§3.2, eq. (3)): ``2n`` binary variables, weight 0 if some :math:`x_i` and some :math:`y_j` are true.

    Every other state has weight 1, except the bridge (all false), weight ``bridge_weight``
    (1 in eq. (3); 0.1 in the modified model of §4, Fig. 2b-c). Best systematic scan
    :math:`x_1, y_1, x_2, y_2, \dots`; worst :math:`x_1, \dots, x_n, y_1, \dots, y_n`.
    Random-scan starts: one state per orbit of the relabellings within the blocks and the
    swap of the blocks (the first :math:`k` x-variables true, :math:`k = 0..n`).
    """
    n = check_n("two_islands", n)
    w_b = check_positive(bridge_weight, "bridge_weight")
    half = state_space_binary(n)
    zeros = np.zeros_like(half)
    states = np.vstack([np.hstack([half, zeros]), np.hstack([zeros[1:], half[1:]])])
    logw = np.where(states.sum(axis=1) == 0, math.log(w_b), 0.0)
    best = np.ravel(np.column_stack([np.arange(n), n + np.arange(n)]))

    def starts(s):
        x, y = s[:, :n], s[:, n:]
        prefix = np.all(np.diff(x, axis=1) <= 0, axis=1) if n > 1 else np.ones(len(s), dtype=bool)
        return prefix & (y.sum(axis=1) == 0)

    return _finish(
        "two_islands", n, [2] * (2 * n), states, logw,
        [f"x{i + 1}" for i in range(n)] + [f"y{i + 1}" for i in range(n)],
        {"best_systematic": best, "worst_systematic": np.arange(2 * n)},
        {"bridge_weight": w_b}, starts, False,
        blocks=(range(n), range(n, 2 * n)), swappable=True,
    )


def state_space_binary(n: int) -> np.ndarray:
    """All ``2**n`` binary states, C order."""
    return ((np.arange(2**n)[:, None] >> np.arange(n - 1, -1, -1)) & 1).astype(np.int64)


# ---------------------------------------------------------------------------------------------
# discrete pyramid


def discrete_pyramid(n: int) -> ScanOrderModel:
    r"""Discrete pyramid (§3.3, App. A.1): ``n`` binary variables, uniform over states with at most one true.

    Every relabelling of the variables leaves it invariant, so all systematic scans mix alike
    (paper: :math:`O(n^3)`; random scan :math:`O(n)`).
    """
    n = check_n("discrete_pyramid", n)
    states = np.vstack([np.zeros((1, n), dtype=np.int64), np.eye(n, dtype=np.int64)])
    return _finish(
        "discrete_pyramid", n, [2] * n, states, np.zeros(n + 1),
        [f"x{i + 1}" for i in range(n)],
        {"best_systematic": np.arange(n), "worst_systematic": np.arange(n)[::-1]},
        {}, lambda s: np.all(np.diff(s, axis=1) <= 0, axis=1), True,
    )


# ---------------------------------------------------------------------------------------------
# memorize and repeat


def _memorize_repeat_cycle_size(n: int) -> int:
    memorize = sum(math.perm(n, i) for i in range(n + 1))
    repeat = sum(math.factorial(n) // math.factorial(i) for i in range(n + 1))
    return memorize + repeat - math.factorial(n)


def memorize_and_repeat(n: int, M: float, n_cycles: int | None = None, *, max_states: int | None = DEFAULT_MAX_STATES) -> ScanOrderModel:
    r"""Memorize and repeat (App. A.2), its cycle repeated ``n_cycles`` times (default ``n``, paper).

    One cycle (local values :math:`v \in \{0..n+1\}`):

    .. math::

        \log_M P(x) = \begin{cases} \max_i v_i & v \in \sigma(0,\dots,0,1,\dots,i) \\
        n + \#\{v_i = n+1\} & v \in \sigma(i+1,\dots,n,n+1,\dots,n+1) \\ -\infty & \text{otherwise}\end{cases}

    Cycle :math:`c` stores :math:`x_i = c(n+1) + v_i` and adds :math:`2nc` to the exponent (see the
    module docstring). Every relabelling of the variables leaves it invariant: all systematic scans
    mix alike (paper: :math:`O(n^2)`; random scan :math:`O(n^3)`). Random-scan starts: the states
    with non-decreasing values (one per orbit).
    """
    n = check_n("memorize_and_repeat", n)
    M = check_positive(M, "M")
    cycles = n if n_cycles is None else n_cycles
    if isinstance(cycles, bool) or not isinstance(cycles, (int, np.integer)) or cycles < 1:
        raise ValueError(f"n_cycles must be a positive integer, got {n_cycles!r}")
    cycles = int(cycles)
    _check_max_states("memorize_and_repeat", n, state_count("memorize_and_repeat", n, n_cycles=cycles), max_states)
    perms = np.array(list(itertools.permutations(range(n))), dtype=np.int64)  # a[k] = variable at position k+1
    rows, expo = [], []
    positions = np.arange(1, n + 1)
    for c in range(cycles):
        base = c * (n + 1)
        for i in range(n + 1):  # memorize: first i positions memorized
            s = np.full((len(perms), n), base, dtype=np.int64)
            for k in range(i):
                s[np.arange(len(perms)), perms[:, k]] = base + positions[k]
            rows.append(s)
            expo.append(np.full(len(perms), 2 * n * c + i))
        for i in range(n + 1):  # repeat: first i positions repeated
            s = np.empty((len(perms), n), dtype=np.int64)
            for k in range(n):
                s[np.arange(len(perms)), perms[:, k]] = base + (n + 1 if k < i else positions[k])
            rows.append(s)
            expo.append(np.full(len(perms), 2 * n * c + n + i))
    states, first, _ = unique_rows(np.vstack(rows))
    exponents = np.concatenate(expo)[first]
    names = [f"x{i + 1}" for i in range(n)]
    return _finish(
        "memorize_and_repeat", n, [cycles * (n + 1) + 1] * n, states, exponents * math.log(M), names,
        {"best_systematic": np.arange(n), "worst_systematic": np.arange(n)[::-1]},
        {"M": M, "n_cycles": cycles}, lambda s: np.all(np.diff(s, axis=1) >= 0, axis=1), True,
    )


# ---------------------------------------------------------------------------------------------
# soft dependencies


def soft_window(n, window):
    """The window of soft dependencies: ``window`` checked as a non-negative integer, ``isqrt(n)`` when ``None``."""
    if window is None:
        return math.isqrt(n)
    if isinstance(window, bool) or not isinstance(window, (int, np.integer)) or window < 0:
        raise ValueError(f"window must be a non-negative integer, got {window!r}")
    return int(window)


def _skipped(a: int, b: int, unused: set, n: int) -> int:
    """Unused variables strictly between a and b going forward mod n."""
    gap = (b - a) % n
    return sum(1 for v in unused if 0 < (v - a) % n < gap)


def _accepted_prefixes(n: int, window: int, limit: int | None):
    """Every prefix (a_1..a_i) of an accepted permutation, by depth-first search."""
    out = [()]
    stack = [(v,) for v in range(n - 1, -1, -1)]
    while stack:
        prefix = stack.pop()
        out.append(prefix)
        if limit is not None and len(out) > limit:
            raise ValueError(f"max_states: soft_dependencies with n={n} has more than {limit} states")
        if len(prefix) == n:
            continue
        unused = set(range(n)) - set(prefix)
        for v in sorted(unused, reverse=True):
            if _skipped(prefix[-1], v, unused - {v}, n) <= window:
                stack.append(prefix + (v,))
    return out


def soft_dependencies(n: int, M: float, window: int | None = None, *, max_states: int | None = DEFAULT_MAX_STATES) -> ScanOrderModel:
    r"""Soft dependencies (App. A.3): memorize an accepted permutation, then merge every variable to ``n``.

    .. math::

        \log_M P(x) = \begin{cases} \max_i x_i & x \in \sigma(0,\dots,0,1,\dots,i), \text{ an accepted prefix} \\
        n - 1 + \#\{x_i = n\} & \text{merge state (at least two } x_i = n) \\ -\infty & \text{otherwise}\end{cases}

    Accepted: at most ``window`` (default :math:`\lfloor\sqrt n\rfloor`) unused variables strictly
    between consecutive entries going forward mod ``n``. Best systematic scan :math:`x_1..x_n`,
    worst :math:`x_n..x_1` (paper: :math:`O(n)` and :math:`O(n^2)`; random :math:`O(n^{3/2})`). The
    model is invariant under the cyclic relabelling :math:`x_i \to x_{i+1 \bmod n}`; random-scan
    starts are the states that are lexicographically least in their rotation orbit.
    """
    n = check_n("soft_dependencies", n)
    M = check_positive(M, "M")
    window = soft_window(n, window)
    _check_max_states("soft_dependencies", n, state_count("soft_dependencies", n), max_states)
    prefixes = _accepted_prefixes(n, window, max_states)
    rows, expo = [], []
    full = []
    for prefix in prefixes:
        s = np.zeros(n, dtype=np.int64)
        s[list(prefix)] = np.arange(1, len(prefix) + 1)
        rows.append(s)
        expo.append(len(prefix))
        if len(prefix) == n:
            full.append(s)
    full = np.array(full, dtype=np.int64)
    # merge states: an accepted permutation with a non-empty subset of its other entries raised to n;
    # one subset of the values 1..n-1 at a time (the same value sits at the same position), as int keys
    weights = (n + 1) ** np.arange(n - 1, -1, -1, dtype=np.int64)
    keys = []
    for subset in state_space_binary(n - 1)[1:].astype(bool):
        raise_value = np.r_[False, subset, False]  # indexed by value 0..n
        keys.append(np.unique(np.where(raise_value[full], n, full) @ weights))
    merge = np.zeros((0, n), dtype=np.int64)
    if keys:
        merge = (np.unique(np.concatenate(keys))[:, None] // weights) % (n + 1)
    states = np.vstack([np.array(rows), merge])
    exponents = np.concatenate([np.array(expo), n - 1 + (merge == n).sum(axis=1)])

    def starts(s):
        key = s @ weights  # lexicographic order of the rows (values below n + 1)
        keep = np.ones(len(s), dtype=bool)
        for r in range(1, n):
            keep &= key <= np.roll(s, -r, axis=1) @ weights  # s is <= every rotation lexicographically
        return keep

    return _finish(
        "soft_dependencies", n, [n + 1] * n, states, exponents * math.log(M),
        [f"x{i + 1}" for i in range(n)],
        {"best_systematic": np.arange(n), "worst_systematic": np.arange(n)[::-1]},
        {"M": M, "window": window}, starts, False,
    )


# ---------------------------------------------------------------------------------------------
# counts, definitions, factory


def state_count(name: str, n: int, *, n_cycles: int | None = None) -> int:
    r"""Number of support states without building the model: exact, except an upper bound for soft dependencies.

    Soft dependencies: the accepted prefixes are counted exactly (every prefix of length :math:`i \ge 1`
    has :math:`\min(w + 1, n - i)` accepted extensions), the merge states bounded by every assignment of
    distinct values ``1..n-1`` to the variables not at ``n``; ``n = 8``: 364,722 against the model's 101,474,
    ``n = 9``: 4,384,199 against 1,590,617.
    """
    if name not in MODEL_NAMES:
        raise ValueError(f"model must be one of {MODEL_NAMES}, got model={name!r}")
    n = check_n(name, n)
    if name in ("sequence_of_dependencies", "discrete_pyramid"):
        return n + 1
    if name == "two_islands":
        return 2 ** (n + 1) - 1
    if name == "memorize_and_repeat":
        cycles = n if n_cycles is None else int(n_cycles)
        return cycles * (_memorize_repeat_cycle_size(n) - 1) + 1
    window, prefixes, memorize = math.isqrt(n), n, 1 + n
    for i in range(1, n):
        prefixes *= min(window + 1, n - i)
        memorize += prefixes
    merge = sum(math.comb(n, k) * math.factorial(n - 1) // math.factorial(k - 1) for k in range(2, n + 1))
    return memorize + merge


def model_M(name: str, n: int, M_factor: float) -> float:
    r"""The "very large constant" :math:`M` of a model at size ``n`` (module docstring; ``nan`` for models without one).

    :math:`M = c L` with :math:`L` the forward transitions from the bottom to the top state: :math:`n`
    (sequence of dependencies), :math:`2n^2` (memorize and repeat); soft dependencies (ours, see the
    module docstring) :math:`M = c\,(2n - 1)\,n^2`.
    """
    n = check_n(name, n)
    c = check_positive(M_factor, "M_factor")
    if name == "sequence_of_dependencies":
        return c * n
    if name == "memorize_and_repeat":
        return c * 2 * n * n
    if name == "soft_dependencies":
        return c * (2 * n - 1) * n * n
    return math.nan


def make_model(name: str, n: int, *, M_factor: float = 10.0, bridge_weight: float = 1.0, max_states: int | None = DEFAULT_MAX_STATES) -> ScanOrderModel:
    r"""Build a model of Table 1 by name, with :math:`M` from :func:`model_M` (``M_factor`` = :math:`c`).

    Raises ``ValueError`` naming the key for an unknown model, ``n`` below :data:`MIN_N`,
    a non-positive ``M_factor`` or ``bridge_weight``, or a state space above ``max_states``,
    before building anything.
    """
    if name not in MODEL_NAMES:
        raise ValueError(f"model must be one of {MODEL_NAMES}, got model={name!r}")
    n = check_n(name, n)
    M = model_M(name, n, M_factor)
    _check_max_states(name, n, state_count(name, n), max_states)
    if name == "sequence_of_dependencies":
        return sequence_of_dependencies(n, M)
    if name == "two_islands":
        return two_islands(n, bridge_weight)
    if name == "discrete_pyramid":
        return discrete_pyramid(n)
    if name == "memorize_and_repeat":
        return memorize_and_repeat(n, M, max_states=max_states)
    return soft_dependencies(n, M, max_states=max_states)


def _memorize_repeat_exponent(local: np.ndarray, n: int) -> float:
    """The paper's one-cycle exponent of local values ``v`` (``-inf`` if invalid)."""
    values = np.sort(local)
    i = int(np.sum(values > 0))
    if i <= n and np.array_equal(values, np.r_[np.zeros(n - i, dtype=np.int64), np.arange(1, i + 1)]):
        return float(i)
    r = int(np.sum(values == n + 1))
    if np.array_equal(values, np.r_[np.arange(r + 1, n + 1), np.full(r, n + 1)]):
        return float(n + r)
    return -np.inf


def definition_log_weights(model: ScanOrderModel, states) -> np.ndarray:
    r"""The paper's unnormalised :math:`\log P(x)` of any states of the model's product space (``-inf`` = zero).

    Evaluated from the formulas (see each builder), independently of how the support was
    enumerated; the tests compare the two over the whole product space for small ``n``.
    """
    x = np.atleast_2d(np.asarray(states, dtype=np.int64))
    n, p = model.n, model.n_vars
    if x.shape[1] != p:
        raise ValueError(f"states must have {p} columns")
    out = np.full(len(x), -np.inf)
    name = model.name
    if name == "sequence_of_dependencies":
        bad = np.any((x[:, 1:] == 1) & (x[:, :-1] == 0), axis=1)
        out[~bad] = x[~bad].sum(axis=1) * math.log(model.parameters["M"])
    elif name == "two_islands":
        any_x, any_y = x[:, :n].any(axis=1), x[:, n:].any(axis=1)
        out[~(any_x & any_y)] = 0.0
        out[~any_x & ~any_y] = math.log(model.parameters["bridge_weight"])
    elif name == "discrete_pyramid":
        out[x.sum(axis=1) <= 1] = 0.0
    elif name == "memorize_and_repeat":
        log_m = math.log(model.parameters["M"])
        for k, row in enumerate(x):
            c = int(row.min()) // (n + 1)
            c = min(c, model.parameters["n_cycles"] - 1)
            local = row - c * (n + 1)
            if local.max() <= n + 1:
                out[k] = (2 * n * c + _memorize_repeat_exponent(local, n)) * log_m
    elif name == "soft_dependencies":
        log_m, window = math.log(model.parameters["M"]), model.parameters["window"]
        for k, row in enumerate(x):
            e = _soft_exponent(row, n, window)
            out[k] = e * log_m if np.isfinite(e) else -np.inf
    return out


def soft_prefix_accepted(prefix, n: int, window: int | None = None) -> bool:
    r"""Is ``(a_1, ..., a_i)`` (0-based variables) a prefix of a permutation the soft-dependencies model accepts?

    App. A.3: for every :math:`k`, at most ``window`` (default :math:`\lfloor\sqrt n\rfloor`) variables not
    among :math:`a_1..a_{k+1}` lie strictly between :math:`a_k` and :math:`a_{k+1}` going forward mod ``n``.
    """
    n = check_n("soft_dependencies", n)
    prefix = [int(v) for v in prefix]
    if len(set(prefix)) != len(prefix) or any(not 0 <= v < n for v in prefix):
        raise ValueError(f"prefix must list distinct variables in 0..{n - 1}, got {prefix}")
    return _soft_accepted(prefix, n, soft_window(n, window))


def _soft_accepted(perm, n, window) -> bool:
    """Is the sequence (a_1..a_i) a prefix of an accepted permutation (the paper's displayed condition)?"""
    for k in range(len(perm) - 1):
        unused = set(range(n)) - set(perm[: k + 2])
        if _skipped(perm[k], perm[k + 1], unused, n) > window:
            return False
    return True


def _soft_exponent(row, n, window) -> float:
    values = np.sort(row)
    i = int(np.sum(values > 0))
    if np.array_equal(values, np.r_[np.zeros(n - i, dtype=np.int64), np.arange(1, i + 1)]):
        prefix = [int(np.flatnonzero(row == k)[0]) for k in range(1, i + 1)]
        return float(i) if _soft_accepted(prefix, n, window) else -np.inf
    raised = np.flatnonzero(row == n)
    if raised.size < 2:
        return -np.inf
    kept = row[row != n]
    if np.any(kept < 1) or np.unique(kept).size != kept.size:
        return -np.inf
    missing = sorted(set(range(1, n + 1)) - set(kept.tolist()))
    for assignment in itertools.permutations(missing):  # which raised variable held which position
        full = row.copy()
        full[raised] = assignment
        perm = [int(np.flatnonzero(full == k)[0]) for k in range(1, n + 1)]
        if _soft_accepted(perm, n, window):
            return float(n - 1 + raised.size)
    return -np.inf
