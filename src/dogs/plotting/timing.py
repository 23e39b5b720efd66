r"""Figures of the end-to-end timing experiment (DoGS Figs. 2, 10, 11): results in, figure out.

Inputs are the files of :mod:`dogs.experiments.timing`: the per-side ``summary.json`` (a dict), the
tidy ``trace.csv`` of a trial (running estimate of :math:`\mathbb E[X_1]` at checkpoints, per scan)
and the tidy ``speedup.csv`` (predicted, measured and paper-implied speed-up per number of sample
points). Nothing is computed here beyond reading columns and formatting labels.

Each trial is drawn as a pair of panels:

- left: the running estimate against wall-clock seconds (log axis), with a ±2 standard-error band;
  the DoGS curve starts after its measured setup time (marked); the exact value is 0 by symmetry,
  and the dotted lines at ±2 x the DoGS bound show what Theorem 8 certifies for a ±1 variable;
- right: the end-to-end speed-up of DoGS (setup included) against the number of sample points,
  from the measured mean point times (line), from the two measured clocks (dots), and implied by the
  paper's own numbers (15 s, 12.65 µs per step; grey dashes).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import LogLocator

from dogs.plotting import style

__all__ = ["SCAN_STYLE", "plot_main", "plot_trials"]

#: Colour and label per scan (systematic blue, DoGS red, as in the other DoGS figures).
SCAN_STYLE = {
    "systematic": {"label": "Systematic scan", "color": "#1f77b4"},
    "dogs": {"label": "DoGS", "color": "#d62728"},
}
_PAPER_COLOR = "#7f7f7f"


def _seconds(value: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if value >= scale or unit == "ns":
            return f"{value / scale:.3g} {unit}"
    return f"{value:.3g} s"


def _estimate_panel(ax, trace: pd.DataFrame, info: dict, min_points: int = 10) -> None:
    """Running estimate of E[X_1] vs wall-clock time for one trial (``info``: one entry of ``summary['trials']``);
    curves start at the ``min_points``-th sample point (before it the running mean of ±1 values is all noise)."""
    setup = info["setup_seconds"]
    final_se = []
    for scan in ("systematic", "dogs"):
        rows = trace[(trace["scan"] == scan) & (trace["n_samples"] >= min_points)].sort_values("n_samples")
        if rows.empty:
            continue
        x = rows["wall_clock_seconds"].to_numpy()
        y = rows["estimate"].to_numpy()
        se = rows["std_error"].to_numpy()
        final_se.append(se[-1])
        if scan == "systematic":
            label = (f"{SCAN_STYLE[scan]['label']}, T = {info['systematic_length']:,}\n"
                     f"  bound ε = {info['systematic_bound']:.2g}; {rows['n_samples'].iloc[-1]:,} points")
        else:
            label = (f"{SCAN_STYLE[scan]['label']}, T = {info['dogs_length']} (bound {info['dogs_bound']:.2g})\n"
                     f"  after {_seconds(setup)} setup; {rows['n_samples'].iloc[-1]:,} points")
        color = SCAN_STYLE[scan]["color"]
        ax.fill_between(x, y - 2 * se, y + 2 * se, color=color, alpha=0.18, linewidth=0)
        ax.plot(x, y, color=color, linewidth=1.4, label=label)
    ax.axhline(0.0, color="black", linewidth=0.8, label=r"exact $\mathbb{E}_\pi[X_1] = 0$")
    bound = 2 * info["dogs_bound"]
    for sign in (-1, 1):
        ax.axhline(sign * bound, color=SCAN_STYLE["dogs"]["color"], linewidth=0.8, linestyle=":",
                   label=r"$\pm 2\times$ DoGS bound (Thm. 8)" if sign > 0 else None)
    ax.axvline(setup, color=SCAN_STYLE["dogs"]["color"], linewidth=0.8, linestyle="--")
    ax.annotate("DoGS setup\ndone", xy=(setup, 1.0), xycoords=("data", "axes fraction"), xytext=(3, -3),
                textcoords="offset points", ha="left", va="top", fontsize=7, color=SCAN_STYLE["dogs"]["color"])
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(LogLocator(numticks=12))
    spread = max([0.03, 3 * bound] + [6 * s for s in final_se])
    ax.set_ylim(-min(spread, 1.05), min(spread, 1.05))
    ax.set_xlabel(f"wall-clock time (s), DoGS setup included; curves from the {min_points}th sample point")
    ax.set_ylabel(r"running estimate of $\mathbb{E}[X_1]$ (±2 s.e.)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncols=2, fontsize=7, frameon=False)
    ax.grid(True, which="major", alpha=0.3)


def _speedup_panel(ax, speedup: pd.DataFrame, trial: int, info: dict, limit: float | None) -> None:
    rows = speedup[speedup["trial"] == trial]
    pred = rows[rows["kind"] == "predicted"].sort_values("n_samples")
    meas = rows[rows["kind"] == "measured"].sort_values("n_samples")
    paper = rows[rows["kind"] == "paper_implied"].sort_values("n_samples")
    ax.plot(pred["n_samples"], pred["speedup"], color=SCAN_STYLE["dogs"]["color"], linewidth=1.6,
            label="ours, from measured setup and mean point times")
    if not meas.empty:
        keep = np.unique(np.round(np.geomspace(1, len(meas), min(len(meas), 40))).astype(int) - 1)
        ax.plot(meas["n_samples"].iloc[keep], meas["speedup"].iloc[keep], "o", markersize=3,
                color=SCAN_STYLE["dogs"]["color"], alpha=0.6, label="ours, ratio of the two measured clocks")
    if not paper.empty:
        ax.plot(paper["n_samples"], paper["speedup"], "--", color=_PAPER_COLOR, linewidth=1.2,
                label="implied by the paper's numbers (15 s setup,\n  12.65 µs per step, T = 2,000,000 vs 16)")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.annotate("break-even", xy=(0.01, 1.0), xycoords=("axes fraction", "data"), xytext=(0, 2),
                textcoords="offset points", fontsize=7)
    if limit:
        ax.axhline(limit, color=SCAN_STYLE["dogs"]["color"], linewidth=0.8, linestyle=":")
        ax.annotate(f"limit {limit:,.0f}x (ratio of the point times)", xy=(0.02, limit),
                    xycoords=("axes fraction", "data"), xytext=(0, -9), textcoords="offset points", fontsize=7, ha="left")
    for n, value in sorted(((int(k), v) for k, v in info["speedup"].items()), key=lambda kv: kv[0]):
        if value is None:
            continue
        ax.plot([n], [value], "s", color="black", markersize=4)
        ax.annotate(f"{value:,.3g}x at {n:,}", xy=(n, value), xytext=(5, -10), textcoords="offset points", fontsize=7)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of sample points drawn")
    ax.set_ylabel("end-to-end speed-up of DoGS (setup included)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncols=2, fontsize=7, frameon=False)
    ax.grid(True, which="major", alpha=0.3)


def _trial_info(summary: dict, trial: int) -> dict:
    for info in summary["trials"]:
        if info["trial"] == trial:
            return info
    raise KeyError(f"trial {trial} is not in the summary of side {summary['side']}")


def _limit(info: dict) -> float:
    """Speed-up as the number of sample points grows: ratio of the measured mean point times."""
    return info["seconds_per_sample_point_systematic"] / info["seconds_per_sample_point_dogs"]


def _load_text(info: dict) -> str:
    """1-minute load averages at the start of the setup and of each sampling run of one trial."""
    load = info["loadavg"]
    return (f"load average {load['setup'][0][0]:.1f} (setup), {load['systematic'][0][0]:.1f} (systematic), "
            f"{load['dogs'][0][0]:.1f} (DoGS)")


def _machine_line(summary: dict) -> str:
    machine = summary["machine"]
    return f"{machine.get('cpu', '?')}, {machine.get('cores', '?')} cores (the paper: a 2015 MacBook Pro)"


def plot_main(summary: dict, trace: pd.DataFrame, speedup: pd.DataFrame) -> Figure:
    """Fig. 2 (main grid) or Fig. 11 (small grid): one trial, estimate vs time and speed-up vs samples."""
    trial = int(trace["trial"].iloc[0])
    info = _trial_info(summary, trial)
    side = summary["side"]
    fig, (ax_est, ax_speed) = style.subplots(1, 2, figsize=(12.5, 5.2))
    _estimate_panel(ax_est, trace, info)
    _speedup_panel(ax_speed, speedup, trial, info, _limit(info))
    ax_est.set_title(r"Estimate of $\mathbb{E}[X_1]$ vs wall-clock time", fontsize=10)
    ax_speed.set_title("End-to-end speed-up vs number of sample points", fontsize=10)
    paper = summary["paper"]
    if summary["role"].startswith("main"):
        paper_setup = f"paper: {paper['setup_seconds']:g} s"
    else:
        paper_setup = (f"paper: not stated for this grid; our systematic scan T = {summary['systematic_length']:,}, "
                       f"the paper's ~{paper['systematic_length']:,}")
    figure = "§5.2 (Fig. 2)" if summary["role"].startswith("main") else "App. B.2 (Fig. 11)"
    fig.suptitle(
        f"DoGS {figure}: DoGS vs systematic scan on a {side}x{side} Ising grid ({side * side:,} variables), "
        f"trial {trial}\n"
        f"DoGS setup {_seconds(info['setup_seconds'])} ({paper_setup}) · "
        f"systematic step {_seconds(info['seconds_per_step_systematic'])} (paper: {paper['seconds_per_step'] * 1e6:g} µs) · "
        f"sample point: systematic {_seconds(info['seconds_per_sample_point_systematic'])}, "
        f"DoGS {_seconds(info['seconds_per_sample_point_dogs'])}\n{_machine_line(summary)}; {_load_text(info)}",
        fontsize=9,
    )
    return fig


def plot_trials(summary: dict, traces: list[pd.DataFrame], speedup: pd.DataFrame) -> Figure:
    """Fig. 10: independent trials on the main grid, one row (estimate, speed-up) per trial."""
    rows = len(traces)
    fig, axes = style.subplots(rows, 2, figsize=(12.5, 4.1 * rows + 0.8), squeeze=False)
    for (ax_est, ax_speed), trace in zip(axes, traces):
        trial = int(trace["trial"].iloc[0])
        info = _trial_info(summary, trial)
        _estimate_panel(ax_est, trace, info)
        _speedup_panel(ax_speed, speedup, trial, info, _limit(info))
        ax_est.set_title(f"trial {trial}: DoGS setup {_seconds(info['setup_seconds'])}, DoGS length {info['dogs_length']}",
                         fontsize=9)
        ax_speed.set_title(f"trial {trial}: speed-up; systematic step {_seconds(info['seconds_per_step_systematic'])}; "
                           f"{_load_text(info)}", fontsize=8)
    side = summary["side"]
    fig.suptitle(f"DoGS App. B.2 (Fig. 10): independent trials (new couplings each) on the {side}x{side} grid "
                 f"({side * side:,} variables)\n"
                 f"{_machine_line(summary)}", fontsize=9)
    return fig
