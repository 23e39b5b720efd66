r"""Random scan on the App. A models of He et al. (2016), lumped onto levels: memorize and repeat and soft dependencies at large n.

Both models put weight :math:`M^{\ell}` on every state of *level* :math:`\ell` (the exponent of
:math:`M`); the random-scan Gibbs chain moves between neighbouring levels. Following the chain level
by level instead of state by state takes it from the few thousand states the full space allows to
``n`` in the tens (memorize and repeat: :math:`2n^2 + 1` levels) or hundreds (soft dependencies:
:math:`2n` levels). Whether the lumping is exact is what this module states, model by model.

Memorize and repeat (App. A.2; encoding of :func:`~dogs.counterexamples.models.memorize_and_repeat`)
    Level :math:`\ell = 2nc + j` of cycle :math:`c`: :math:`j \le n` variables memorized, or
    :math:`j = n + r` with :math:`r` repeated; level :math:`2nC` is the top state (every variable
    repeated in the last cycle). Every relabelling of the variables leaves :math:`\pi` and the
    random-scan kernel invariant and acts transitively on each level, so the chain is *strongly
    lumpable*: from every state of a level, the probability of moving to each other level is the same
    (tested against the full kernel). One variable is updated, with probability :math:`1/n` each;
    with :math:`a = M/(1+M)` and :math:`b = 1/(1+M)`:

    - bottom (nothing memorized, cycle 0): each variable memorizes with probability :math:`a`;
    - :math:`i` memorized (:math:`1 \le i < n`): :math:`n - i` variables advance (:math:`a` each), the
      last memorized one falls back (:math:`b`); all others are stuck;
    - :math:`n` memorized (= nothing repeated): the first of the permutation advances (:math:`a`), the
      last falls back (:math:`b`);
    - :math:`r` repeated (:math:`1 \le r < n`): the next of the permutation advances (:math:`a`), and
      each of the :math:`r` repeated variables can fall back (:math:`b` each): the state does not record
      which of them was repeated last;
    - the state between two cycles (every variable repeated in cycle :math:`c` = nothing memorized in
      cycle :math:`c+1`) is one state with fibre weights :math:`M^{-1}, 1, M` for every variable.

    Caveat of our encoding (see :mod:`~dogs.counterexamples.models`): the repeated value of cycle
    :math:`c` is the empty value of cycle :math:`c+1`, so the last variable still to repeat in cycle
    :math:`c` (:math:`r = n - 1`) can jump *two* levels, straight to "one memorized in cycle
    :math:`c+1`" (fibre weights :math:`1, M, M^2`), and back (the first memorized variable of cycle
    :math:`c+1`, fibre weights :math:`M^{-2}, M^{-1}, 1`). These :math:`\pm 2` moves are in the chain.

Soft dependencies (App. A.3; encoding of :func:`~dogs.counterexamples.models.soft_dependencies`)
    Levels :math:`0..n` are the accepted prefixes of length :math:`i`, level :math:`n - 1 + k` the
    merge states with :math:`k` variables at value :math:`n` (:math:`k = 2..n`; top: all at ``n``).
    The prefixes form a tree in which every node at depth :math:`i \ge 1` has the same number
    :math:`\min(w + 1, n - i)` of children (the next :math:`w + 1` unused variables going forward
    mod ``n``; the root has ``n``), the only move back is the last memorized variable returning to 0,
    and a full permutation sends its other :math:`n - 1` variables to ``n``: on levels :math:`0..n+1`
    the rates are exact. In the merge phase they are not (the encoding is not strongly lumpable there):
    a variable not at ``n`` moves up with probability :math:`M/(M + 1 + s)`, where
    :math:`0 \le s \le k - 1` is its number of other values that keep the state valid, and each of the
    :math:`k` variables at ``n`` moves down with probability :math:`d/(M + d)`, :math:`0 \le d \le k - 1`.
    We *bracket* this phase between two birth-death chains, the slowest (every :math:`s = k - 1`,
    every :math:`d = k - 1`) and the fastest (:math:`s = d = 0`). Both are stochastically monotone,
    and a chain whose up-probabilities are at least (down-probabilities at most) those of the slow
    chain at every state satisfies :math:`P^t(x, \ge m) \ge P_{slow}^t(\ell(x), \ge m)` for every
    start and level :math:`m` (induction on :math:`t` with increasing functions), and the reverse
    for the fast chain: the true chain's level is bracketed at every :math:`t`.

Mixing times (:func:`random_scan_mixing_bracket`), worst case over every start of the full model:

- memorize and repeat: the bottom state is fixed by every relabelling, so its distribution at every
  :math:`t` is uniform within each level, as :math:`\pi` is: its distance to :math:`\pi` equals the
  lumped chain's, *exactly*. That gives ``lower`` (no start is better than the worst).
  For every other start, the distance is at most :math:`1 - \min(P^t(x, top), \pi(top))` (bound every
  state below the top by its :math:`\pi`), with :math:`P^t(\cdot, top)` for all levels at once from one
  backward recursion: ``upper`` is the first :math:`t` at which the bottom's exact distance and this
  bound for every other level are within :math:`\epsilon`. ``lower == upper`` is exact.
- soft dependencies: ``lower`` from :math:`\|\mu - \pi\|_{TV} \ge \pi(\ge m) - \mu(\ge m)` for every
  level :math:`m`, at the bottom start, with :math:`\mu(\ge m)` from the fast chain and :math:`\pi(\ge m)`
  from lower bounds on the merge levels' state counts (exact up to two levels below the top:
  :math:`n(n-1)` states with one variable not at ``n``; below, between the states realised by rotations
  of :math:`x_1..x_n` and :math:`\binom{n}{k}(n-1)!/(k-1)!`). ``upper`` from the slow chain at the
  bottom start, :math:`1 - \min(P^t_{slow}(0, top), \pi_{low}(top))`, which bounds every start (the slow
  chain is monotone, so the bottom is its slowest start).

Both brackets need :math:`\pi` to sit mostly on the top state, as App. A's analyses assume ("almost
all of the mass"): :math:`1 - \pi(top) \approx n/M` for memorize and repeat and :math:`n(n-1)/M` for
soft dependencies, hence :func:`~dogs.counterexamples.models.model_M`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln, logsumexp

from dogs._kernels.chains import band_steps
from dogs.counterexamples.models import ScanOrderModel, check_n, check_positive, model_M, soft_window

__all__ = [
    "LEVEL_MODELS",
    "LevelChain",
    "level_chain",
    "memorize_and_repeat_levels",
    "soft_dependencies_levels",
    "levels_of_states",
    "random_scan_mixing_bracket",
    "level_chain_memory_bytes",
    "level_chain_updates",
]

#: The models with a level chain (App. A).
LEVEL_MODELS = ("memorize_and_repeat", "soft_dependencies")
#: Steps between two checks of the mixing criteria (the distributions of a block are kept).
_BLOCK = 512


@dataclass(frozen=True, eq=False)
class LevelChain:
    r"""A random-scan chain lumped onto the levels :math:`0..L-1` of an App. A model (top = :math:`L - 1`).

    Attributes
    ----------
    name, n, M, window
        The model (``window`` only for soft dependencies).
    slow, fast : (L, L) scipy.sparse.csr_matrix
        Row-stochastic level kernels; the same matrix when ``exact``. ``slow`` has the smallest
        up-probabilities and the largest down-probabilities the model's states allow at each level.
    log_counts_low, log_counts_high : (L,) arrays
        Natural log of the number of states on each level (bounds; equal where known exactly).
    exact : bool
        True when the chain is strongly lumpable (``slow`` is ``fast``).
    """

    name: str
    n: int
    M: float
    window: int | None
    slow: sp.csr_matrix
    fast: sp.csr_matrix
    log_counts_low: np.ndarray
    log_counts_high: np.ndarray
    exact: bool

    @property
    def n_levels(self) -> int:
        return int(self.log_counts_low.size)

    def log_weights(self, counts: np.ndarray) -> np.ndarray:
        """Log of the total weight of each level, :math:`\\log N_\\ell + \\ell \\log M`."""
        return counts + np.arange(self.n_levels) * math.log(self.M)

    def stationary(self) -> np.ndarray:
        """:math:`\\pi` over the levels (exact chains only)."""
        if not self.exact:
            raise ValueError(f"{self.name}: the level counts are bounds, pi over the levels is not known exactly")
        lw = self.log_weights(self.log_counts_low)
        return np.exp(lw - logsumexp(lw))

    def upper_tail_low(self) -> np.ndarray:
        r"""Lower bounds on :math:`\pi(\text{level} \ge m)` for every :math:`m` (exact for exact chains)."""
        high_w, low_w = self.log_weights(self.log_counts_high), self.log_weights(self.log_counts_low)
        above = np.logaddexp.accumulate(low_w[::-1])[::-1]  # log of the low weight of levels >= m
        below = np.r_[-np.inf, np.logaddexp.accumulate(high_w)[:-1]]  # log of the high weight of levels < m
        return np.exp(above - np.logaddexp(above, below))


def _kernel(rates: dict, n_levels: int) -> sp.csr_matrix:
    """A row-stochastic level kernel from ``{offset: per-level probability}`` (the rest stays put)."""
    rows, cols, vals = [], [], []
    stay = np.ones(n_levels)
    for offset, probability in rates.items():
        level = np.flatnonzero(probability > 0)
        rows.append(level)
        cols.append(level + offset)
        vals.append(probability[level])
        stay[level] -= probability[level]
    if np.any(stay < -1e-12):
        raise ValueError("level rates sum to more than 1")
    rows.append(np.arange(n_levels))
    cols.append(np.arange(n_levels))
    vals.append(np.clip(stay, 0.0, 1.0))
    kernel = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n_levels, n_levels))
    kernel.sort_indices()
    return kernel


def memorize_and_repeat_levels(n: int, M: float, n_cycles: int | None = None) -> LevelChain:
    """The exact level chain of memorize and repeat (module docstring): :math:`2nC + 1` levels."""
    n = check_n("memorize_and_repeat", n)
    M = check_positive(M, "M")
    cycles = n if n_cycles is None else int(n_cycles)
    if cycles < 1:
        raise ValueError(f"n_cycles must be a positive integer, got {n_cycles!r}")
    n_levels = 2 * n * cycles + 1
    rates = {offset: np.zeros(n_levels) for offset in (-2, -1, 1, 2)}
    a, b = M / (1 + M), 1 / (1 + M)
    z = 1 + M + M * M  # a variable whose fibre weights are M^-1, 1, M (or 1, M, M^2)
    log_counts = np.zeros(n_levels)
    for level in range(n_levels):
        cycle, j = divmod(level, 2 * n)
        if level == n_levels - 1:  # top: every variable can fall back one level
            rates[-1][level] = b
        elif level == 0:
            rates[1][level] = a
        elif j == 0:  # between cycles: one state
            rates[1][level], rates[-1][level] = M * M / z, 1 / z
        elif j < n:  # j memorized
            rates[1][level] = (n - j) / n * a
            if j == 1 and cycle >= 1:  # the memorized variable may also return to the previous cycle's last repeat
                rates[-1][level], rates[-2][level] = M / z / n, 1 / z / n
            else:
                rates[-1][level] = b / n
            log_counts[level] = gammaln(n + 1) - gammaln(n - j + 1)
        elif j == n:  # all memorized, nothing repeated
            rates[1][level], rates[-1][level] = a / n, b / n
            log_counts[level] = gammaln(n + 1)
        else:  # r = j - n repeated
            r = j - n
            if r < n - 1:
                rates[1][level] = a / n
            elif cycle + 1 < cycles:  # the last variable to repeat may jump into the next cycle's memorize phase
                rates[1][level], rates[2][level] = M / z / n, M * M / z / n
            else:
                rates[1][level] = a / n
            rates[-1][level] = r * b / n
            log_counts[level] = gammaln(n + 1) - gammaln(r + 1)
    kernel = _kernel(rates, n_levels)
    return LevelChain("memorize_and_repeat", n, M, None, kernel, kernel, log_counts, log_counts.copy(), True)


def _soft_counts(n: int, window: int) -> tuple[np.ndarray, np.ndarray]:
    """Log state counts per level of soft dependencies: exact on the memorize levels, bounds on the merge levels."""
    low, high = np.zeros(2 * n), np.zeros(2 * n)
    count = math.log(n)
    low[1] = high[1] = count
    for i in range(1, n):
        count += math.log(min(window + 1, n - i))
        low[i + 1] = high[i + 1] = count
    for k in range(2, n):  # merge levels n - 1 + k; top (k = n) is one state
        low[n - 1 + k] = math.log(n) + gammaln(n) - gammaln(k) - gammaln(n - k + 1)  # rotations of x1..xn
        high[n - 1 + k] = gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1) + gammaln(n) - gammaln(k)
    return low, high


def soft_dependencies_levels(n: int, M: float, window: int | None = None) -> LevelChain:
    """The bracketing level chains of soft dependencies (module docstring): :math:`2n` levels."""
    n = check_n("soft_dependencies", n)
    M = check_positive(M, "M")
    window = soft_window(n, window)
    n_levels = 2 * n
    a, b = M / (1 + M), 1 / (1 + M)
    up_slow, up_fast = np.zeros(n_levels), np.zeros(n_levels)
    down_slow, down_fast = np.zeros(n_levels), np.zeros(n_levels)  # down_slow: the largest
    up_slow[0] = up_fast[0] = a
    for i in range(1, n):
        up_slow[i] = up_fast[i] = min(window + 1, n - i) / n * a
        down_slow[i] = down_fast[i] = b / n
    up_slow[n] = up_fast[n] = (n - 1) / n * a
    down_slow[n] = down_fast[n] = b / n
    for k in range(2, n + 1):
        level = n - 1 + k
        up_slow[level] = (n - k) / n * M / (M + k)
        up_fast[level] = (n - k) / n * M / (M + 1)
        down_slow[level] = k / n * (k - 1) / (M + k - 1)
    for up, down in ((up_slow, down_slow), (up_fast, down_fast)):
        if np.any(up[:-1] + down[1:] > 1):  # a birth-death chain is stochastically monotone iff this never happens
            raise ValueError(f"soft dependencies n={n}, M={M}: the bracketing chains are not monotone; raise M")
    slow = _kernel({1: up_slow, -1: down_slow}, n_levels)
    fast = _kernel({1: up_fast, -1: down_fast}, n_levels)
    low, high = _soft_counts(n, window)
    return LevelChain("soft_dependencies", n, M, window, slow, fast, low, high, False)


def level_chain(name: str, n: int, *, M_factor: float = 10.0) -> LevelChain:
    """The level chain of an App. A model with :math:`M` as :func:`~dogs.counterexamples.models.make_model` sets it."""
    if name not in LEVEL_MODELS:
        raise ValueError(f"model must be one of {LEVEL_MODELS} for a level chain, got model={name!r}")
    M = model_M(name, check_n(name, n), M_factor)
    return memorize_and_repeat_levels(n, M) if name == "memorize_and_repeat" else soft_dependencies_levels(n, M)


def levels_of_states(model: ScanOrderModel) -> np.ndarray:
    """The level of every state of a full App. A model (its exponent of :math:`M`): the lumping map."""
    if model.name not in LEVEL_MODELS:
        raise ValueError(f"model must be one of {LEVEL_MODELS}, got {model.name}")
    level = model.log_weights / math.log(model.parameters["M"])
    rounded = np.rint(level)
    if not np.allclose(level, rounded, atol=1e-6):
        raise ValueError(f"{model.name}: log weights are not integer multiples of log M")
    return rounded.astype(np.int64)


# ------------------------------------------------------------------------------------------------
# mixing times


def _banded(kernel: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    """``(offsets, bands)`` of a level kernel: ``bands[k, l] = P(l, l + offsets[k])`` (for :func:`band_steps`)."""
    coo = kernel.tocoo()
    offsets = np.unique(coo.col - coo.row).astype(np.int64)
    bands = np.zeros((offsets.size, kernel.shape[0]))
    bands[np.searchsorted(offsets, coo.col - coo.row), coo.row] = coo.data
    return offsets, bands


def _steps(banded, start: np.ndarray, count: int, forward: bool) -> np.ndarray:
    """``count`` successive steps from ``start`` (forward: a distribution; else a function): (count, L)."""
    out = np.empty((count, start.size))
    band_steps(banded[0], banded[1], np.ascontiguousarray(start, dtype=np.float64), forward, out)
    return out


def random_scan_mixing_bracket(chain: LevelChain, epsilon: float = 0.25, *, max_updates: int = 10**8):
    r"""Bounds ``(lower, upper)`` on the worst-case random-scan mixing time of the full model (module docstring).

    ``lower == upper`` is exact. Raises ``ValueError`` when the top state holds less than
    :math:`1 - \epsilon` of :math:`\pi` (the upper bound could never be reached).

    Returns
    -------
    (int, int)
    """
    if not 0 < epsilon < 0.5:
        raise ValueError(f"epsilon must lie in (0, 1/2), got {epsilon!r}")
    levels = chain.n_levels
    top_low = float(chain.upper_tail_low()[-1])
    if top_low < 1 - epsilon:
        raise ValueError(f"{chain.name} n={chain.n}: pi(top) >= {top_low:.3f} < 1 - epsilon; raise M")
    bottom = np.zeros(levels)
    bottom[0] = 1.0
    blocks = _exact_distances(chain, top_low, bottom) if chain.exact else _monotone_distances(chain, top_low, bottom)
    lower = None
    done = 0
    for low, high in blocks:  # per step of a block: a lower and an upper bound on the worst-case distance
        below = np.flatnonzero(low <= epsilon)
        if lower is None and below.size:
            lower = done + int(below[0]) + 1
        reached = np.flatnonzero(high <= epsilon)
        if reached.size:
            return lower, done + int(reached[0]) + 1
        done += low.size
        if done > max_updates:
            raise RuntimeError(f"{chain.name} n={chain.n}: not mixed after {max_updates} updates")


def _exact_distances(chain, pi_top, bottom):
    """Blocks of (exact distance of the bottom start, the larger of it and every other start's bound)."""
    pi = chain.stationary()
    banded = _banded(chain.slow)
    mu, h = bottom, np.zeros(chain.n_levels)
    h[-1] = 1.0
    while True:
        mus, hs = _steps(banded, mu, _BLOCK, True), _steps(banded, h, _BLOCK, False)
        mu, h = mus[-1], hs[-1]
        distance = 0.5 * np.abs(mus - pi).sum(axis=1)  # the bottom start: exact
        others = 1.0 - np.minimum(hs[:, 1:].min(axis=1), pi_top)  # every other start: a bound
        yield distance, np.maximum(distance, others)


def _monotone_distances(chain, pi_top_low, bottom):
    """Blocks of (max_m pi(>= m) - mu_fast(>= m), 1 - min(mu_slow(top), pi(top))) from the bottom start."""
    tail_low = chain.upper_tail_low()
    slow, fast = _banded(chain.slow), _banded(chain.fast)
    mu_slow, mu_fast = bottom, bottom
    while True:
        slows, fasts = _steps(slow, mu_slow, _BLOCK, True), _steps(fast, mu_fast, _BLOCK, True)
        mu_slow, mu_fast = slows[-1], fasts[-1]
        fast_tail = np.cumsum(fasts[:, ::-1], axis=1)[:, ::-1]  # mu_fast(level >= m)
        yield np.max(tail_low - fast_tail, axis=1), 1.0 - np.minimum(slows[:, -1], pi_top_low)


# ------------------------------------------------------------------------------------------------
# resources


def level_chain_memory_bytes(name: str, n: int) -> float:
    """Upper bound on the memory of one level-chain mixing time: blocks of distributions and their temporaries."""
    levels = 2 * n * n + 1 if name == "memorize_and_repeat" else 2 * n
    return float(levels * (6 * _BLOCK * 8 + 5 * 3 * 16))


def level_chain_updates(name: str, n: int) -> float:
    r"""Rough number of band updates (steps x levels x bands x vectors) of one level-chain mixing time.

    From the measured growth: memorize and repeat :math:`t_{mix} \approx 1.1 n^3` (n = 48: 122,431),
    soft dependencies :math:`t_{mix} \approx n^{3/2} + 1.5\, n \log n` (n = 1024: 43,843).
    """
    if name == "memorize_and_repeat":
        return 2.0 * (1.2 * n**3 + 2 * n * n) * (2 * n * n + 1) * 5
    return 2.0 * (n**1.5 + 2 * n * math.log(n) + 10) * 2 * n * 3
