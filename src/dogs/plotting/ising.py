r"""Figures of the Ising guarantee experiments (DoGS Figs. 1, 4, 5, 8, 9, 12-15): results in, figure out.

Every function takes the tidy tables written by :mod:`dogs.experiments.ising10`,
:mod:`dogs.experiments.ising40` and :mod:`dogs.experiments.loose_bounds` and returns a matplotlib
figure; nothing is computed here beyond reading columns. One colour and marker per scan across all
figures (:data:`SCAN_STYLE`); guarantee axes are logarithmic and the legend quotes every scan's best
guarantee, as the paper's legends do (:func:`plot_guarantees`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib import colors as mcolors
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from dogs.plotting import style

__all__ = [
    "SCAN_STYLE",
    "figure_bias_repetitions",
    "figure_frequency_maps",
    "figure_ising10_replicate",
    "figure_ising10_replicates",
    "figure_loose_bounds",
    "figure_open_guarantees",
    "figure_torus_guarantees_bias",
    "figure_torus_profile",
    "save",
]

#: Label, colour and marker of every scan (the same in every figure).
SCAN_STYLE = {
    "uniform": {"label": "Uniform random", "color": "#7f7f7f", "marker": "v"},
    "systematic": {"label": "Systematic", "color": "#1f77b4", "marker": "s"},
    "systematic_aligned": {"label": "Systematic, last step on $X_1$", "color": "#17becf", "marker": "x", "ls": "--"},
    "dogs": {"label": "DoGS", "color": "#d62728", "marker": "o"},
    "dogs_iterated": {"label": "Iterated DoGS", "color": "#ff7f0e", "marker": "D"},
}
SCAN_ORDER = tuple(SCAN_STYLE)
STEPS_LABEL = "Gibbs steps T"
TV_LABEL = "TV guarantee (Dobrushin variation)"
MARGINAL_LABEL = "Marginal TV guarantee for $X_1$"
BIAS_LABEL = r"Measured bias of $X_1^T$ ($\mathbb{E}_\pi[X_1] = 0$)"


def save(fig, path) -> None:
    """Write the figure as PNG (atomically, through the shared style) and close it."""
    style.save_figure(fig, path)


def _scans(frame: pd.DataFrame):
    present = set(frame["scan"])
    return [s for s in SCAN_ORDER if s in present]


def _steps_axis(ax, t_max) -> None:
    ax.set_xlabel(STEPS_LABEL)
    ax.set_xlim(0, t_max * 1.02)


def plot_guarantees(ax, frame: pd.DataFrame, *, ylabel=TV_LABEL, scans=None, markevery=None, legend=True,
                    legend_kw=None):
    """Guarantee curves (scan, T, bound) on a log axis; legend ``Scan (best 3.1e-03)``.

    As in the paper (DoGS §5: "the numbers in the legend state the best guarantee achieved for each
    algorithm plotted"), the legend quotes every curve's smallest value on the plotted axis.
    """
    for scan in scans or _scans(frame):
        part = frame[frame["scan"] == scan].sort_values("T")
        if part.empty:
            continue
        spec = SCAN_STYLE[scan]
        every = markevery or max(1, len(part) // 8)
        ax.semilogy(part["T"], part["bound"], color=spec["color"], marker=spec["marker"], markevery=every,
                    markersize=4, lw=1.6, ls=spec.get("ls", "-"), label=f"{spec['label']} (best {part['bound'].min():.1e})")
    _steps_axis(ax, frame["T"].max())
    ax.set_ylabel(ylabel)
    ax.grid(True, which="major", alpha=0.3)
    if legend:
        ax.legend(**({"loc": "best", "fontsize": "small"} | (legend_kw or {})))


def plot_bias(ax, bias: pd.DataFrame, *, title=None, legend=True):
    """Measured mean of ``X_1^T`` with ±1 standard error bars, one series per scan."""
    for scan in _scans(bias):
        part = bias[bias["scan"] == scan].sort_values("T")
        spec = SCAN_STYLE[scan]
        ax.errorbar(part["T"], part["mean"], yerr=part["se"], color=spec["color"], marker=spec["marker"],
                    markersize=3.5, lw=1.2, ls=spec.get("ls", "-"), capsize=2, elinewidth=0.8,
                    label=f"{spec['label']} (mean ± 1 s.e.)")
    ax.axhline(0.0, color="black", lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_xlim(bias["T"].min() / 1.3, bias["T"].max() * 1.3)
    ax.set_xlabel(STEPS_LABEL + " (log scale)")
    ax.set_ylabel(BIAS_LABEL)
    ax.grid(True, alpha=0.3)
    n = int(bias["n_chains"].iloc[0])
    ax.set_title(title or f"Measured bias, {n} independent chains per T")
    if legend:
        ax.legend(loc="best", fontsize="small")


# --------------------------------------------------------------------------- E1
def figure_ising10_replicate(guarantees: pd.DataFrame, measured: pd.DataFrame | None, *, side: int, n_chains: int):
    """Fig. 1: TV guarantees of the four scans; beside them, measured marginal error vs guarantee."""
    ncols = 2 if measured is not None else 1
    fig, axes = style.subplots(1, ncols, figsize=(6.2 * ncols, 4.6), squeeze=False)
    ax = axes[0, 0]
    plot_guarantees(ax, guarantees)
    ax.set_title(f"TV guarantees, {side}x{side} Ising (replicate 0), " + r"$d = \mathbf{1}$")
    if measured is not None:
        ax = axes[0, 1]
        for scan in _scans(measured):
            part = measured[measured["scan"] == scan].sort_values("T")
            spec = SCAN_STYLE[scan]
            ax.semilogy(part["T"], part["error"], color=spec["color"], marker=spec["marker"], markersize=3.5,
                        markevery=max(1, len(part) // 10), lw=1.5, label=spec["label"])
            ax.semilogy(part["T"], part["bound"], color=spec["color"], ls="--", lw=1.0, alpha=0.8)
        floor = float(measured["noise_floor"].iloc[0])
        ax.axhline(floor, color="black", ls=":", lw=1.2)
        top = float(measured["error"].max())
        ax.set_ylim(floor / 3, max(top, 1.0) * 3)
        _steps_axis(ax, measured["T"].max())
        ax.set_ylabel(r"$\Sigma_i\,|\hat p_i(+1) - p_i(+1)|$ (sum of marginal TVs)")
        n = int(measured["n_chains"].iloc[0])
        ax.set_title(f"Measured marginal error, {n} chains from all +1\n(truth: junction tree)")
        handles, labels = ax.get_legend_handles_labels()
        handles += [Line2D([], [], color="black", lw=1.5), Line2D([], [], color="black", ls="--", lw=1.0),
                    Line2D([], [], color="black", ls=":", lw=1.2)]
        labels += ["measured (solid)", "its TV guarantee (dashed)", f"noise floor of {n} exact samples ({floor:.2f})"]
        ax.legend(handles, labels, loc="upper right", fontsize="small", ncol=1)
        ax.grid(True, which="major", alpha=0.3)
    fig.suptitle(f"DoGS §5.1 (Fig. 1): Gibbs scans on a random {side}x{side} Ising model "
                 r"($\theta_i \in \{0, 1\}$, $\theta_{ij} \sim U[0, 0.25]$)", fontsize="medium")
    return fig


def figure_ising10_replicates(frames: dict, *, side: int):
    """Fig. 9: the guarantees of every other replicate, one panel each (same axes)."""
    reps = sorted(frames)
    ncols = min(3, len(reps))
    nrows = int(np.ceil(len(reps) / ncols))
    fig, axes = style.subplots(nrows, ncols, figsize=(4.6 * ncols, 3.6 * nrows), squeeze=False, sharex=True,
                               sharey=True)
    for ax, rep in zip(axes.flat, reps):
        plot_guarantees(ax, frames[rep], legend_kw={"fontsize": "x-small"})
        ax.set_title(f"Replicate {rep}")
        if not ax.get_subplotspec().is_first_col():
            ax.set_ylabel("")
        if not ax.get_subplotspec().is_last_row():
            ax.set_xlabel("")
    for ax in list(axes.flat)[len(reps):]:
        ax.set_visible(False)
    fig.suptitle(f"DoGS App. B.1 (Fig. 9): TV guarantees (d = 1) on independent random {side}x{side} Ising models",
                 fontsize="medium")
    return fig


# --------------------------------------------------------------------------- E2
def plot_distance_histogram(ax, histogram: pd.DataFrame, *, torus: bool):
    """How often the DoGS scan samples a variable, by Manhattan distance to the target."""
    spec = SCAN_STYLE["dogs"]
    ax.bar(histogram["distance"], histogram["visits_per_site"], width=0.85, color=spec["color"], alpha=0.85,
           label="DoGS: mean times sampled per variable")
    ref = float(histogram["systematic_visits_per_site"].iloc[0])
    ax.axhline(ref, color=SCAN_STYLE["systematic"]["color"], ls="--", lw=1.2,
               label=f"systematic scan of the same length ({ref:g})")
    total = int(histogram["visits"].sum())
    ax.set_xlabel("Manhattan distance to the target" + (" (on the torus)" if torus else ""))
    ax.set_ylabel("Times sampled per variable")
    ax.set_title(f"Which variables the DoGS scan (T = {total}) updates")
    reached = histogram.loc[histogram["visits"] > 0, "distance"]
    far = int(reached.max()) if len(reached) else int(histogram["distance"].max())
    ax.set_xlim(-0.8, min(far + 3, int(histogram["distance"].max())) + 0.8)
    if far < histogram["distance"].max():
        ax.text(0.98, 0.6, f"no updates beyond distance {far}\n(max distance {int(histogram['distance'].max())})",
                transform=ax.transAxes, ha="right", va="top", fontsize="small")
    ax.legend(loc="upper right", fontsize="small")
    ax.grid(True, axis="y", alpha=0.3)


def figure_open_guarantees(guarantees: pd.DataFrame, histogram: pd.DataFrame, *, side: int):
    """Fig. 4: marginal guarantees for the top-left variable (open grid), and the DoGS scan by distance."""
    fig, axes = style.subplots(1, 2, figsize=(12.4, 4.6))
    plot_guarantees(axes[0], guarantees, ylabel=MARGINAL_LABEL)
    axes[0].set_title(r"Marginal TV guarantees, target top-left, $d = e_1$")
    plot_distance_histogram(axes[1], histogram, torus=False)
    fig.suptitle(rf"DoGS §5.4 (Fig. 4): {side}x{side} open Ising grid, zero field, $\theta_{{ij}}$ = atanh(1/4) "
                 r"($\bar C_{ij}$ = 1/4)", fontsize="medium")
    return fig


def figure_torus_guarantees_bias(guarantees: pd.DataFrame, bias: pd.DataFrame, *, side: int, coupling: float):
    """Fig. 5: marginal guarantees on the torus and the measured bias of ``X_1^T``."""
    fig, axes = style.subplots(1, 2, figsize=(12.4, 4.6))
    plot_guarantees(axes[0], guarantees, ylabel=MARGINAL_LABEL)
    axes[0].set_title(r"Marginal TV guarantees, target top-left, $d = e_1$")
    plot_bias(axes[1], bias)
    fig.suptitle(rf"DoGS §5.4 (Fig. 5): {side}x{side} toroidal Ising grid, zero field, $\theta_{{ij}}$ = {coupling:g}; "
                 "chains start at all +1", fontsize="medium")
    return fig


def figure_bias_repetitions(biases: list, *, side: int):
    """Fig. 13: independent repetitions of the bias measurement (same y range)."""
    n = len(biases)
    fig, axes = style.subplots(1, n, figsize=(5.0 * n, 4.2), squeeze=False, sharey=True)
    for k, (ax, bias) in enumerate(zip(axes[0], biases), start=1):
        plot_bias(ax, bias, title=f"Repetition {k}", legend=(k == 1))
        if k > 1:
            ax.set_ylabel("")
    chains = int(biases[0]["n_chains"].iloc[0]) if biases else 0
    fig.suptitle(f"DoGS App. B.3 (Fig. 13): independent repetitions of the bias measurement, {side}x{side} torus, "
                 f"{chains} chains per T", fontsize="medium")
    return fig


def figure_frequency_maps(maps, segment_bounds, *, side: int, target: int, torus: bool):
    """Figs. 12 and 15: sampling frequency of every site over successive segments of the DoGS scan."""
    maps = np.asarray(maps, dtype=float)
    n = maps.shape[0]
    ncols = n if n <= 4 else int(np.ceil(n / 2))
    nrows = int(np.ceil(n / ncols))
    fig, axes = style.subplots(nrows, ncols, figsize=(3.5 * ncols + 1.2, 3.5 * nrows + 0.5), squeeze=False)
    positive = maps[maps > 0]
    norm = mcolors.LogNorm(vmin=max(positive.min(), 1e-3), vmax=positive.max()) if positive.size else None
    cmap = style_cmap()
    tr, tc = divmod(int(target), side)
    image = None
    for k, ax in enumerate(axes.flat):
        if k >= n:
            ax.set_visible(False)
            continue
        lo, hi = int(segment_bounds[k]), int(segment_bounds[k + 1])
        image = ax.imshow(np.ma.masked_equal(maps[k], 0.0), cmap=cmap, norm=norm, origin="upper",
                          interpolation="nearest")
        ax.set_facecolor("white")
        ax.grid(False)
        ax.plot(tc, tr, marker="x", color="red", markersize=8, mew=2.0, clip_on=False)
        total = int(segment_bounds[-1])
        ax.set_title(f"steps {lo + 1}-{hi} ({(hi - lo) / total:.1%} of the scan)", fontsize="small")
        ax.set_xlabel("column")
        ax.set_ylabel("row")
    if image is not None:
        bar = fig.colorbar(image, ax=axes.ravel().tolist(), shrink=0.9, aspect=30)
        bar.set_label("Updates per site in the segment ÷ (segment length / p)\n(systematic scan = 1; white: never updated)")
    kind = "toroidal grid (it wraps around: the four corners are the target's neighbourhood)" if torus else "open grid"
    figno = "Fig. 15" if torus else "Fig. 12"
    fig.suptitle(f"DoGS App. B.3 ({figno}): sampling frequency over successive segments of the DoGS scan "
                 f"(T = {int(segment_bounds[-1])})\n{side}x{side} {kind}, target = top-left (red x)", fontsize="medium")
    return fig


def style_cmap():
    return "viridis"


def figure_torus_profile(bias: pd.DataFrame, histogram: pd.DataFrame, distance_by_step, *, side: int):
    """Fig. 14: torus bias, DoGS histogram by distance, and the distance-time profile of the DoGS scan."""
    fig, axes = style.subplots(1, 3, figsize=(17.0, 4.6))
    plot_bias(axes[0], bias, title="Bias of systematic vs DoGS")
    plot_distance_histogram(axes[1], histogram, torus=True)
    distance = np.asarray(distance_by_step)
    ax = axes[2]
    n_bins = int(min(100, distance.size))
    edges_t = np.linspace(0, distance.size, n_bins + 1)
    edges_d = np.arange(-0.5, distance.max() + 1.5)
    counts, _, _ = np.histogram2d(np.arange(distance.size) + 0.5, distance, bins=(edges_t, edges_d))
    share = counts / np.diff(edges_t)[:, None]
    mesh = ax.pcolormesh(edges_t, edges_d, np.ma.masked_equal(share.T, 0.0), cmap=style_cmap(), shading="flat",
                         norm=mcolors.LogNorm(vmin=max(share[share > 0].min(), 1e-4), vmax=share.max()))
    bar = fig.colorbar(mesh, ax=ax)
    bar.set_label(f"Share of the steps in each window of {distance.size // n_bins} steps")
    centres = 0.5 * (edges_t[:-1] + edges_t[1:])
    mean = (counts * (edges_d[:-1] + 0.5)).sum(axis=1) / np.maximum(counts.sum(axis=1), 1)
    ax.plot(centres, mean, color="red", lw=1.6, label="mean distance in the window")
    ax.set_xlabel("Step t of the DoGS scan")
    ax.set_ylabel("Manhattan distance of the updated variable\nto the target (on the torus)")
    ax.set_title(f"Distance-time profile of the DoGS scan (T = {distance.size})")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(loc="upper right", fontsize="small")
    fig.suptitle(f"DoGS App. B.3 (Fig. 14): {side}x{side} toroidal Ising grid, target top-left", fontsize="medium")
    return fig


# --------------------------------------------------------------------------- E3
def figure_loose_bounds(guarantees: pd.DataFrame, bias: pd.DataFrame, *, side: int, coupling: float):
    """Fig. 8: per looseness factor s, guarantees computed with s * C-hat (top) and measured bias (bottom)."""
    scales = sorted(guarantees["scale"].unique())
    n = len(scales)
    fig, axes = style.subplots(2, n, figsize=(4.4 * n, 8.2), squeeze=False, sharey="row")
    for k, scale in enumerate(scales):
        ax = axes[0, k]
        part = guarantees[guarantees["scale"] == scale]
        plot_guarantees(ax, part, ylabel=MARGINAL_LABEL + r" with $\bar C = s\,\hat C$", legend=False)
        dogs = part[part["scan"] == "dogs"].sort_values("T")
        if scale != 1.0 and not dogs.empty:
            ax.semilogy(dogs["T"], dogs["bound_tight"], color=SCAN_STYLE["dogs"]["color"], ls=":", lw=1.4,
                        label=rf"DoGS scan evaluated with $\hat C$ (best {dogs['bound_tight'].min():.1e})")
        handles, labels = ax.get_legend_handles_labels()
        ax.legend(handles, labels, loc="lower left", fontsize="x-small")
        ax.set_title(rf"$\bar C$ = {scale:g} $\hat C$")
        ax.set_xlabel("")
        plot_bias(axes[1, k], bias[bias["scale"] == scale], title=rf"Measured bias, $\bar C$ = {scale:g} $\hat C$",
                  legend=(k == 0))
        if k > 0:
            ax.set_ylabel("")
            axes[1, k].set_ylabel("")
    chains = int(bias["n_chains"].iloc[0]) if len(bias) else 0
    fig.suptitle(rf"DoGS §5.6 (Fig. 8): loose influence bounds, {side}x{side} toroidal Ising grid, "
                 rf"$\theta_{{ij}}$ = {coupling:g}, target top-left; bias from {chains} chains per T started at all +1",
                 fontsize="medium")
    return fig
