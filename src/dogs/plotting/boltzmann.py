"""Figures of the Boltzmann-machine experiment (AA Figs. 6-8): results in, figure out.

- :func:`figure6`: mean ± s.d. over chains of each chain's mean absolute error of the log partition-function
  ratio, per inner sampler, for the heart data (left) and the synthetic d = 10 data (right);
- :func:`figure7`: the posterior of the heart-data weights from the exact-ratio chains against the chains driven
  by CMH and AAS + RB estimates (second halves of all chains pooled), one panel per weight;
- :func:`figure8`: per inner sampler, the fraction of posterior samples within 20% of each true weight, weights
  sorted by that fraction (higher curves are better), for each large synthetic model;
- :func:`errata`: the two defects of the authors' code behind Figs. 6-7, reproduced on the heart data: (B1) CMH's
  ratio divided by F instead of L inflates the outer acceptance and the posterior spread; (B2) errors measured
  against the exact ratios of another chain do not fall with F and do not separate the samplers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib import ticker

from dogs.data import HEART_DISEASE_FACTORS
from dogs.plotting import style

__all__ = ["errata", "figure6", "figure7", "figure8"]

COLORS = {"exact": "#000000", "HMC": "#7f7f7f", "CMH": "#1f77b4", "AAS + RB": "#d62728", "AAG + RB": "#ff7f0e"}
ORDER = ("HMC", "CMH", "AAS + RB", "AAG + RB")


def figure6(errors: pd.DataFrame, path) -> None:
    datasets = [d for d in ("heart", "synthetic10") if d in set(errors["dataset"])]
    fig, axes = style.subplots(1, len(datasets), figsize=(4.6 * len(datasets), 3.6), squeeze=False)
    titles = {"heart": "heart disease (d = 6, F = 1000)", "synthetic10": "synthetic (d = 10, F = 500)"}
    for ax, dataset in zip(axes[0], datasets):
        rows = errors[errors["dataset"] == dataset]
        names = [n for n in ORDER if n in set(rows["sampler"])]
        stats = rows.groupby("sampler")["mean_abs_error"].agg(["mean", "std"]).reindex(names)
        ax.bar(range(len(names)), stats["mean"], yerr=stats["std"], color=[COLORS[n] for n in names], capsize=4)
        ax.set_xticks(range(len(names)), names)
        ax.set_ylabel("|log ratio error|: mean ± s.d. over chains")
        ax.set_title(titles.get(dataset, dataset))
    fig.suptitle("Annular augmentation §3.2 (Fig. 6): error of the estimated log partition-function ratios",
                 fontsize="medium")
    style.save_figure(fig, path)


def figure7(chains: dict, dataset: str, path) -> None:
    weights = {s: c["weights"] for (d, s), c in chains.items() if d == dataset}
    names = [f"{HEART_DISEASE_FACTORS[a]}-{HEART_DISEASE_FACTORS[b]}"
             for a, b in zip(*np.triu_indices(len(HEART_DISEASE_FACTORS), 1))]
    shown = [s for s in ("exact", "cmh", "aas_rb") if s in weights]
    m = next(iter(weights.values())).shape[2]
    cols = 5
    rows = int(np.ceil(m / cols))
    fig, axes = style.subplots(rows, cols, figsize=(3.0 * cols, 2.3 * rows), squeeze=False)
    for k in range(rows * cols):
        ax = axes.flat[k]
        if k >= m:
            ax.set_visible(False)
            continue
        for s in shown:
            w = weights[s]
            samples = w[:, w.shape[1] // 2:, k].ravel()
            label = {"exact": "exact ratio", "cmh": "CMH", "aas_rb": "AAS + RB"}[s]
            ax.hist(samples, bins=40, density=True, histtype="step", linewidth=1.3,
                    color=COLORS["exact" if s == "exact" else label], label=label)
        ax.set_title(names[k], fontsize=8.5)
        ax.tick_params(labelsize=7)
        if k == 0:
            ax.legend(fontsize=7)
    fig.suptitle(f"Annular augmentation §3.2 (Fig. 7): posterior of each weight, {dataset} data, exact ratio against "
                 "CMH and AAS + RB", fontsize="medium")
    style.save_figure(fig, path)


def figure8(fractions: pd.DataFrame, path) -> None:
    datasets = [d for d in ("synthetic25", "synthetic50") if d in set(fractions["dataset"])]
    fig, axes = style.subplots(1, len(datasets), figsize=(4.8 * len(datasets), 3.6), squeeze=False)
    for ax, dataset in zip(axes[0], datasets):
        rows = fractions[fractions["dataset"] == dataset]
        for name in [n for n in ORDER if n in set(rows["sampler"])]:
            values = np.sort(rows[rows["sampler"] == name]["fraction_within"].to_numpy())[::-1]
            ax.plot(np.arange(1, values.size + 1), values, color=COLORS[name], label=name)
        ax.set_xlabel("weights, sorted by the fraction")
        ax.set_ylabel("fraction of samples within 20% of the true weight")
        ax.set_title(f"{dataset} ({rows['weight'].nunique()} weights)")
        ax.legend()
    fig.suptitle("Annular augmentation §3.2 (Fig. 8): fraction of posterior samples within 20% of the true weights",
                 fontsize="medium")
    style.save_figure(fig, path)


def errata(errors: pd.DataFrame, posterior: pd.DataFrame, b1_variant: str, series: pd.DataFrame, path) -> None:
    """``errors``: per-chain rows (variant, sampler, acceptance, mean_abs_error) of the main runs and the B1 variant;
    ``posterior``: per-weight s.d. (variant, sampler, weight, sd) of the same; ``series``: per-chain rows of the runs
    at several F (inner_samples, sampler, mean_abs_error, cross_chain_error)."""
    fig, axes = style.subplots(1, 3, figsize=(15.0, 3.9))
    labels, acceptance, error = [], [], []
    for variant, sampler in [("main", s) for s in ("exact", *ORDER)] + [(b1_variant, "CMH")]:
        rows = errors[(errors["variant"] == variant) & (errors["sampler"] == sampler)]
        if rows.empty:
            continue
        labels.append(sampler if variant == "main" else "CMH, ratio / F\n(authors' code)")
        acceptance.append(rows["acceptance"].mean())
        error.append(rows["mean_abs_error"].mean())
    colors = [COLORS.get(label, "#9467bd") for label in labels]
    axes[0].bar(range(len(labels)), acceptance, color=colors)
    for k, e in enumerate(error):
        if np.isfinite(e):
            axes[0].text(k, acceptance[k] + 0.01, f"err {e:.3f}", ha="center", fontsize=7)
    axes[0].set_xticks(range(len(labels)), labels, fontsize=7)
    axes[0].set_ylabel("outer MH acceptance rate (mean over chains)")
    axes[0].set_title("B1: CMH's ratio divided by F (heart data)")
    exact = posterior[(posterior["variant"] == "main") & (posterior["sampler"] == "exact")].set_index("weight")["sd"]
    for variant, sampler, label, style_ in (("main", "CMH", "CMH", "-"), ("main", "AAS + RB", "AAS + RB", "-"),
                                            (b1_variant, "CMH", "CMH, ratio / F (authors' code)", "--")):
        rows = posterior[(posterior["variant"] == variant) & (posterior["sampler"] == sampler)].set_index("weight")["sd"]
        if rows.empty or exact.empty:
            continue
        axes[1].plot(rows.index, rows / exact.reindex(rows.index), style_, marker="o", markersize=3,
                     color=COLORS.get(sampler, "#9467bd") if style_ == "-" else "#9467bd", label=label)
    axes[1].axhline(1.0, color="black", linewidth=0.8)
    axes[1].set_xlabel("weight (upper-triangle order)")
    axes[1].set_ylabel("posterior s.d. / the exact-ratio chain's")
    axes[1].set_title("B1: the posterior spread (Fig. 7's 'CMH is off')")
    axes[1].legend(fontsize=7)
    means = series[series["sampler"] != "exact"].groupby(["sampler", "inner_samples"])[
        ["mean_abs_error", "cross_chain_error"]].mean().reset_index()
    for sampler in [n for n in ORDER if n in set(means["sampler"])]:
        rows = means[means["sampler"] == sampler].sort_values("inner_samples")
        axes[2].plot(rows["inner_samples"], rows["mean_abs_error"], "-o", color=COLORS[sampler], markersize=3,
                     label=f"{sampler}: own exact ratios")
        axes[2].plot(rows["inner_samples"], rows["cross_chain_error"], "--x", color=COLORS[sampler], markersize=4,
                     label=f"{sampler}: another chain's (authors)")
    axes[2].set_xscale("log")
    axes[2].set_yscale("log")
    ticks = sorted(set(means["inner_samples"]))
    axes[2].set_xticks(ticks, [f"{v:g}" for v in ticks])
    axes[2].xaxis.set_minor_locator(ticker.NullLocator())
    axes[2].set_xlabel("inner samples F")
    axes[2].set_ylabel("mean |log ratio error|")
    axes[2].set_title("B2: the error against another chain's exact ratios")
    fig.suptitle("Annular augmentation §3.2 (Figs. 6–7): diagnostics of the authors' code (B1, B2)", fontsize="medium")
    axes[2].legend(fontsize=6, ncol=2)
    style.save_figure(fig, path)
