r"""Independent sample points of one variable against wall-clock time (DoGS §5.2, Fig. 2 left).

A *sample point* of a scan :math:`q_{1:T}` is one run of the Gibbs sampler (DoGS Algorithm 1) through
the whole scan from a fixed start, keeping only the target variable at the end: :math:`X_d^T` with
:math:`d = e_{\text{target}}`. Repeating it from a fresh start gives independent draws from the law
:math:`\pi_T` of the length-``T`` sampler, and their running mean

.. math::

    \hat m_n = \frac1n \sum_{k=1}^{n} X_{\text{target}}^{T,(k)} \;\to\; \mathbb E_{\pi_T}[X_{\text{target}}],

with standard error :math:`\sqrt{(1 - \hat m_n^2) / (n - 1)}` for a :math:`\pm 1` variable, is what DoGS
Fig. 2 (left) and Figs. 10, 11 plot against wall-clock time: the systematic scan of length
:math:`2\cdot10^6` against DoGS of length 16 on a :math:`10^6`-variable Ising grid. By Theorem 8 the
bias :math:`|\mathbb E_{\pi_T}[X] - \mathbb E_\pi[X]|` of a :math:`\pm 1` variable is at most twice the
scan's Dobrushin variation.

:func:`sample_points` draws such points for a wall-clock budget (or a fixed number of points) and
records the running sum at geometrically spaced counts (:func:`checkpoint_counts`). Calling
:func:`~dogs.samplers.gibbs.run_gibbs` once per point would add validation, seeding and a ``p``-vector
allocation to every point (more than a whole 16-step DoGS point), so the points are drawn in batches
by one kernel (:mod:`dogs._kernels.timing`) that runs the very step of ``run_gibbs`` and reuses one
state buffer.

Randomness. One xoshiro256** stream, started exactly where ``run_gibbs(model, scan, seed=seed,
n_chains=1)`` starts its chain, runs on through all points: the first point equals the target of that
``run_gibbs`` call's final state, and point ``k`` consumes the uniforms the ``(k+1)``-th consecutive run
of the chain kernel on the same stream would. The same seed gives the same points on every machine;
only *how many* points fit in a time budget depends on the machine.

Work follows the sampler contract of :mod:`dogs.samplers.base`: ``n_points * T`` site updates, each
one single-flip density evaluation.
"""

from __future__ import annotations

import math
import numbers
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from dogs._kernels.gibbs import field_thresholds, seed_states
from dogs._kernels.timing import draw_sample_points
from dogs.models.binary import BinaryPairwiseMRF
from dogs.samplers.base import Work, chain_seeds
from dogs.samplers.checks import check_int, check_model_and_scan
from dogs.samplers.gibbs import kernel_graph
from dogs.scans.base import Scan

__all__ = ["RESET_FULL", "RESET_VISITED", "SamplePointsResult", "checkpoint_counts", "sample_points"]

#: Largest number of sample points per kernel call (bounds the output buffer to 1 MiB).
_POINTS_PER_CALL = 1 << 20
#: Threshold tables of the exact fast Gibbs decision, the same values ``run_gibbs`` uses.
_LOW, _HIGH = field_thresholds()
#: How the state is put back to all ``+1`` between points.
RESET_VISITED, RESET_FULL = "visited sites", "full state"


@dataclass(frozen=True, eq=False)
class SamplePointsResult:
    """Output of :func:`sample_points`: the running sum at checkpoints, the work done and the stream's seed.

    Attributes
    ----------
    counts : (K,) int64 array
        Numbers of sample points drawn at the checkpoints, increasing; ``counts[-1]`` is the total.
    seconds : (K,) float64 array
        Wall-clock seconds since the sampling started, read at each checkpoint.
    sums : (K,) int64 array
        Sum of the ``counts[k]`` first sample points (spins in {-1, +1}).
    points : (n_points,) int8 array or None
        Every sample point in order, when ``keep_points`` was set.
    target : int
        The recorded variable.
    reset : str
        ``"visited sites"`` (``+1`` written back to the sites the scan visited) or ``"full state"``.
    work : Work
        ``n_points * len(scan)`` site updates and as many single-flip density evaluations
        (the sampler contract of :mod:`dogs.samplers.base`).
    seed : numpy.uint64
        Kernel seed of the stream (``chain_seeds(seed, 1)[0]``), to replay the points.
    """

    counts: np.ndarray
    seconds: np.ndarray
    sums: np.ndarray
    points: np.ndarray | None
    target: int
    reset: str
    work: Work
    seed: np.uint64

    @property
    def n_points(self) -> int:
        """Number of sample points drawn."""
        return int(self.counts[-1]) if self.counts.size else 0

    @property
    def total_seconds(self) -> float:
        """Wall-clock seconds of the whole run (the clock at the last checkpoint)."""
        return float(self.seconds[-1]) if self.seconds.size else 0.0

    @property
    def estimates(self) -> np.ndarray:
        r"""Running estimate :math:`\hat m_n` of :math:`\mathbb E[X_{\text{target}}]` at every checkpoint."""
        return self.sums / self.counts

    @property
    def std_errors(self) -> np.ndarray:
        """Standard error of the running mean of ±1 points: ``sqrt((1 - m^2) / (n - 1))`` (``n = 1``: ``sqrt(1 - m^2)``)."""
        m = self.estimates
        return np.sqrt(np.maximum(1.0 - m * m, 0.0) / np.maximum(self.counts - 1, 1))


def checkpoint_counts(per_decade: int, limit: int = 10**13) -> np.ndarray:
    """Sample counts at which :func:`sample_points` records the running sum.

    Every count ``1, 2, ..., per_decade``, then about ``per_decade`` geometrically spaced counts per
    decade up to ``limit`` (the points of a log-scaled time axis, DoGS Fig. 2 left).

    Parameters
    ----------
    per_decade : int
        Checkpoints per decade of sample count, ``>= 1``.
    limit : int, default 10**13
        Largest count (far beyond any budget); ``>= per_decade``.

    Returns
    -------
    (K,) int64 array
        Increasing counts, starting at 1 and ending at ``limit``.
    """
    per_decade = check_int("per_decade", per_decade)
    limit = check_int("limit", limit)
    if limit < per_decade:
        raise ValueError(f"limit must be >= per_decade ({per_decade}), got {limit}")
    every = np.arange(1, per_decade + 1)
    decades = math.log10(limit / per_decade)
    spaced = np.round(per_decade * np.logspace(0, decades, int(per_decade * decades) + 1)).astype(np.int64)
    spaced = np.unique(spaced)
    return np.unique(np.concatenate([every, spaced[spaced > per_decade]]))


def sample_points(
    model: BinaryPairwiseMRF,
    scan: Scan,
    *,
    seed,
    target: int,
    budget_seconds: float | None,
    per_decade: int = 10,
    max_points: int | None = None,
    keep_points: bool = False,
    sparse_reset: bool | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> SamplePointsResult:
    r"""Draw independent sample points :math:`X_{\text{target}}^T` for a wall-clock budget (DoGS §5.2, Fig. 2 left).

    Each point runs the whole ``scan`` (DoGS Algorithm 1, the step of
    :func:`~dogs.samplers.gibbs.run_gibbs`) from the all ``+1`` state and keeps ``target``. The running
    sum is recorded at the counts of :func:`checkpoint_counts`; near the end of the budget the last batch
    is shortened, at the measured rate, to land close to it. The clock starts before the state buffer is
    allocated and is read after every batch, so it covers the state reset, every kernel call and the
    bookkeeping between batches: everything a user waits for.

    Parameters
    ----------
    model : BinaryPairwiseMRF
    scan : Scan
        As in :func:`~dogs.samplers.gibbs.run_gibbs` (``-1`` entries are uniform steps).
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Root of the stream (:func:`~dogs.samplers.base.chain_seeds`, one chain): the first point is the
        target of ``run_gibbs(model, scan, seed=seed, initial_state=1)``'s final state.
    target : int
        The recorded variable, in ``[0, p)``.
    budget_seconds : float or None
        Wall-clock budget, ``> 0``; ``None`` for no budget (then ``max_points`` is required).
    per_decade : int, default 10
        Checkpoints per decade of sample count (:func:`checkpoint_counts`).
    max_points : int, optional
        Stop after this many points (the last checkpoint); ``>= 1``.
    keep_points : bool, default False
        Keep every point (``n_points`` bytes) in the result.
    sparse_reset : bool, optional
        Reset only the sites the scan visited (``T`` stores) instead of the whole state (``p`` stores).
        Default: sparse when the scan is deterministic and shorter than ``p``. Needs a deterministic scan.
    clock : callable, default time.perf_counter
        Seconds as a float; read before sampling and after every batch.

    Returns
    -------
    SamplePointsResult
        Running sums at the checkpoints, clock readings, work and the stream's seed.

    Raises
    ------
    TypeError, ValueError
        On a non-model, a non-scan, a scan over a different number of variables, a target outside
        ``[0, p)``, a bad budget, ``per_decade`` or ``max_points``, no budget and no ``max_points``,
        or ``sparse_reset`` with uniform steps; raised before any sampling.

    Examples
    --------
    >>> from dogs.models import grid_model
    >>> from dogs.scans import systematic_scan
    >>> model = grid_model(3, 3, coupling=0.2)
    >>> run = sample_points(model, systematic_scan(9, 18), seed=0, target=0, budget_seconds=None, max_points=100)
    >>> run.n_points, run.work.site_updates
    (100, 1800)
    """
    check_model_and_scan(model, scan)
    if isinstance(target, (bool, np.bool_)) or not isinstance(target, numbers.Integral):
        raise TypeError(f"target must be an integer, got {type(target).__name__}")
    if not 0 <= target < model.n_vars:
        raise ValueError(f"target must index a variable in [0, {model.n_vars}), got {target}")
    if budget_seconds is not None:
        if isinstance(budget_seconds, (bool, np.bool_)) or not isinstance(budget_seconds, numbers.Real):
            raise TypeError(f"budget_seconds must be a number or None, got {type(budget_seconds).__name__}")
        if not (0 < budget_seconds < math.inf):
            raise ValueError(f"budget_seconds must be a finite number > 0, got {budget_seconds}")
    per_decade = check_int("per_decade", per_decade)
    if max_points is not None:
        max_points = check_int("max_points", max_points)
    if budget_seconds is None and max_points is None:
        raise ValueError("give budget_seconds or max_points (or both): without either the sampling never stops")
    if sparse_reset is None:
        sparse_reset = scan.is_deterministic and scan.length < model.n_vars
    elif sparse_reset and not scan.is_deterministic:
        raise ValueError("sparse_reset needs a deterministic scan (uniform steps visit unknown sites)")
    if not callable(clock):
        raise TypeError("clock must be a callable returning seconds")

    grid = checkpoint_counts(per_decade)
    if max_points is not None:
        grid = np.append(grid[grid < max_points], max_points)
    kernel_seed = chain_seeds(seed, 1)[0]
    rng_state = seed_states(np.array([kernel_seed], dtype=np.uint64))[0].copy()
    model_arrays = (kernel_graph(model), model.h)
    indices = scan.indices
    counts, seconds, sums, kept = [], [], [], []

    start = clock()
    spins = np.ones(model.n_vars, dtype=np.int8)
    buffer = np.empty(_POINTS_PER_CALL, dtype=np.int8)
    n, total, k = 0, 0, 0
    while k < grid.size:
        goal, last = int(grid[k]), False
        if n and budget_seconds is not None:
            elapsed = clock() - start
            if elapsed > 0:
                fit = int((budget_seconds - elapsed) / (elapsed / n))  # points that still fit at the rate so far
                if fit < goal - n:
                    goal, last = n + max(fit, 1), True
        while n < goal:
            size = min(goal - n, _POINTS_PER_CALL)
            out = buffer[:size]
            total += draw_sample_points(*model_arrays, indices, spins, rng_state, _LOW, _HIGH, target, sparse_reset, out)
            if keep_points:
                kept.append(out.copy())
            n += size
        elapsed = clock() - start
        counts.append(n)
        seconds.append(elapsed)
        sums.append(total)
        while k < grid.size and grid[k] <= n:
            k += 1
        if last or (budget_seconds is not None and elapsed >= budget_seconds):
            break
    return SamplePointsResult(
        counts=np.asarray(counts, dtype=np.int64),
        seconds=np.asarray(seconds, dtype=np.float64),
        sums=np.asarray(sums, dtype=np.int64),
        points=np.concatenate(kept) if keep_points and kept else None,
        target=int(target),
        reset=RESET_VISITED if sparse_reset else RESET_FULL,
        work=Work(site_updates=n * scan.length, density_evaluations=n * scan.length),
        seed=kernel_seed,
    )
