r"""Summaries of measured Monte Carlo curves: bias by length, first crossing of a level, noise floors.

These turn the recorded values of many independent chains (:mod:`dogs.samplers.recording`) into the
numbers the DoGS figures and the paper-vs-ours verdicts use:

- :func:`mean_by_length`: the mean of one recorded ``±1`` variable over ``N`` chains and its standard
  error ``sd / sqrt(N)``, for every ``T`` (the measured bias of ``X_1^T`` in DoGS Figs. 5, 8, 13, where
  ``E_pi[X_1] = 0``);
- :func:`first_at_or_below`: the first ``T`` at which a measured ``|mean|`` reaches a level;
- :func:`first_sustained_at_or_below`: the first point of a noisy trace whose trailing median over a window
  reaches a level (a single lucky dip does not count);
- :func:`mean_abs_bias`: the mean of ``|mean|`` over the grid, one number per curve, and
  :func:`mean_abs_bias_with_se` with its standard error;
- :func:`ratio_interval`: the ratio of two independent estimates with its interval (delta method), and
  :func:`paired_interval`: the mean of paired differences with its Student-t interval;
- :func:`noise_floor`: the expected ``sum_i |p_hat_i - p_i|`` of ``N`` exact independent samples, below
  which no sampler's measured marginal error can be told apart from exact sampling;
- :func:`node_rmse`, :func:`pairwise_error`: the error metrics of the annular-augmentation paper's Ising
  heatmaps (AA §3.1), computed as the authors' code computes them: the root mean square over nodes of
  the error in ``p(s_i = +1)``, and the root mean square over edges of the L1 distance between
  estimated and exact 2x2 edge tables (so a pairwise error lies in ``[0, 2]``);
- :func:`predicted_speedup`, :func:`measured_speedup`: the end-to-end speed-up of DoGS over a systematic scan
  after ``n`` sample points (DoGS §5.2), from per-point times or from two measured clocks.
"""

from __future__ import annotations

from dogs.extras import require

require("workflow", "dogs.summaries")  # before the imports below: a missing package names its extra

import math

import numpy as np
import pandas as pd

__all__ = [
    "SETTLE_WINDOW",
    "bias_settles_at",
    "first_at_or_below",
    "first_staying_at_or_below",
    "first_sustained_at_or_below",
    "mean_abs_bias",
    "mean_abs_bias_with_se",
    "mean_by_length",
    "measured_speedup",
    "node_rmse",
    "noise_floor",
    "paired_interval",
    "pairwise_error",
    "predicted_speedup",
    "ratio_interval",
]


def mean_by_length(lengths, values) -> pd.DataFrame:
    """Mean and standard error over chains of one recorded variable: columns T, mean, se, n_chains.

    ``values`` has shape ``(n_chains, len(lengths))`` (one column per ``T``).
    """
    values = np.asarray(values)
    n_chains = values.shape[0]
    if n_chains < 2:
        raise ValueError("a standard error needs at least 2 chains")
    columns = [values[:, r].astype(np.float64) for r in range(values.shape[1])]
    return pd.DataFrame({
        "T": np.asarray(lengths, dtype=np.int64),
        "mean": [column.mean() for column in columns],
        "se": [column.std(ddof=1) / np.sqrt(n_chains) for column in columns],
        "n_chains": n_chains,
    })


def first_at_or_below(frame: pd.DataFrame, level: float):
    """First ``T`` of the grid at which the measured ``|mean|`` is at most ``level`` (None if never).

    ``level`` should lie well above the Monte Carlo noise (several standard errors), so that the first
    crossing marks the decay of the bias rather than a chance fluctuation.
    """
    ordered = frame.sort_values("T")
    hit = ordered[np.abs(ordered["mean"]) <= level]
    return int(hit["T"].iloc[0]) if len(hit) else None


def first_sustained_at_or_below(positions, values, level: float, window: int):
    """First position at which the median of the last ``window`` values (ending there) is at most ``level``.

    For a noisy trace (the parameter error of stochastic gradient steps, say): a crossing counts only
    when the typical value over a window has reached the level, not at the first chance dip. Returns
    ``None`` if it never happens (fewer than ``window`` points never qualify).
    """
    positions = np.asarray(positions)
    values = np.asarray(values, dtype=np.float64)
    if window < 1:
        raise ValueError(f"window must be >= 1, got {window}")
    for end in range(window, values.size + 1):
        if np.median(values[end - window:end]) <= level:
            return positions[end - 1].item()
    return None


def first_staying_at_or_below(positions, values, level: float):
    """First position from which every later value (ordered by position) is at most ``level``; None if the last
    one is above it."""
    positions = np.asarray(positions)
    order = np.argsort(positions, kind="stable")
    above = np.flatnonzero(np.asarray(values, dtype=np.float64)[order] > level)
    start = 0 if above.size == 0 else above[-1] + 1
    return positions[order[start]].item() if start < order.size else None


#: Consecutive lengths over which the median absolute bias must be at most the level for :func:`bias_settles_at`.
SETTLE_WINDOW = 3


def bias_settles_at(frame: pd.DataFrame, level: float, window: int = SETTLE_WINDOW):
    """First ``T`` at which the median ``|mean|`` over it and the ``window - 1`` lengths before is at most ``level``.

    The sustained version of :func:`first_at_or_below`: a noisy bias curve counts as settled when its
    typical value over a few consecutive lengths has reached the level, not at its first chance dip.
    """
    ordered = frame.sort_values("T")
    return first_sustained_at_or_below(ordered["T"].to_numpy(), np.abs(ordered["mean"].to_numpy()), level, window)


def mean_abs_bias(frame: pd.DataFrame) -> float:
    """Mean of ``|mean|`` over the grid: one number per curve, lower is faster decay."""
    return float(np.abs(frame["mean"]).mean())


def mean_abs_bias_with_se(frame: pd.DataFrame) -> tuple[float, float]:
    """Mean over ``T`` of ``|mean bias|`` and its standard error (delta method: the chains of different ``T`` are
    independent, and ``|m|`` has slope ``sign(m)`` where the bias is clearly non-zero)."""
    values = frame.groupby("T").agg(mean=("mean", "mean"), se=("se", lambda x: float(np.sqrt(np.sum(x ** 2))) / len(x)))
    return float(np.abs(values["mean"]).mean()), float(np.sqrt(np.sum(values["se"] ** 2)) / len(values))


def ratio_interval(a: tuple[float, float], b: tuple[float, float], z: float = 1.96) -> tuple[float, float, float]:
    """``a / b`` of two independent estimates ``(value, se)`` with its ``z``-interval (delta method)."""
    ratio = a[0] / b[0]
    se = ratio * math.hypot(a[1] / a[0], b[1] / b[0])
    return ratio, ratio - z * se, ratio + z * se


def paired_interval(differences, level: float = 0.95) -> tuple[float, float, float]:
    """Mean of paired differences (one per data split, say) and its two-sided Student-t interval: (mean, low, high)."""
    from scipy import stats

    x = np.asarray(differences, dtype=float)
    mean = float(x.mean()) if x.size else float("nan")
    if x.size < 2:
        return mean, float("nan"), float("nan")
    half = float(stats.t.ppf(0.5 + level / 2, x.size - 1) * x.std(ddof=1) / np.sqrt(x.size))
    return mean, mean - half, mean + half


def noise_floor(p_plus, n_chains: int) -> float:
    r"""Expected ``sum_i |Bin(N, p_i)/N - p_i|`` for ``N`` exact independent samples (exact binomial sums)."""
    from scipy import stats

    k = np.arange(n_chains + 1)
    total = 0.0
    for prob in np.asarray(p_plus, dtype=np.float64):
        total += float(np.sum(stats.binom.pmf(k, n_chains, prob) * np.abs(k / n_chains - prob)))
    return total


def node_rmse(estimate, exact) -> float:
    """``sqrt(mean_i (p_hat(s_i = +1) - p(s_i = +1))^2)`` (AA §3.1, node marginals)."""
    difference = np.asarray(estimate, dtype=np.float64) - np.asarray(exact, dtype=np.float64)
    return float(np.sqrt(np.mean(difference**2)))


def pairwise_error(estimate, exact) -> float:
    """``sqrt(mean_e ||T_hat_e - T_e||_1^2)`` over ``(E, 2, 2)`` edge tables (AA §3.1, pairwise marginals)."""
    estimate = np.asarray(estimate, dtype=np.float64)
    exact = np.asarray(exact, dtype=np.float64)
    l1 = np.abs(estimate - exact).reshape(len(exact), -1).sum(axis=1)
    return float(np.sqrt(np.mean(l1**2)))


def predicted_speedup(n, *, setup_seconds: float, systematic_point_seconds: float, dogs_point_seconds: float):
    """:math:`S(n) = n\\,t^{pt}_{sys} / (t_{setup} + n\\,t^{pt}_{DoGS})` with per-sample-point times
    (:math:`t^{pt} = T\\,t_{step}`); ``n`` may be an array."""
    n = np.asarray(n, dtype=np.float64)
    return n * systematic_point_seconds / (setup_seconds + n * dogs_point_seconds)


def measured_speedup(n, *, setup_seconds: float, systematic: tuple, dogs: tuple):
    """Ratio of the two measured clocks at ``n`` points: ``t_sys(n) / (setup + t_DoGS(n))``.

    ``systematic`` and ``dogs`` are ``(counts, seconds)`` checkpoints (clock since the sampling
    start), interpolated linearly in ``n`` from ``(0, 0)``; ``nan`` where a run did not reach ``n``.
    """
    n = np.asarray(n, dtype=np.float64)

    def clock_at(counts, seconds):
        counts = np.concatenate([[0], np.asarray(counts, dtype=np.float64)])
        seconds = np.concatenate([[0.0], np.asarray(seconds, dtype=np.float64)])
        value = np.interp(n, counts, seconds)
        return np.where(n <= counts[-1], value, np.nan)

    return clock_at(*systematic) / (setup_seconds + clock_at(*dogs))
