"""Figures of the Boltzmann-machine experiment (AA Figs. 6-8): results in, figure out.

- :func:`figure6`: mean ± s.d. over chains of each chain's mean absolute error of the log partition-function
  ratio, per inner sampler, for the heart data (left) and the synthetic d = 10 data (right);
- :func:`figure7`: the posterior of the heart-data weights from the exact-ratio chains against the chains driven
  by CMH and AAS + RB estimates (second halves of all chains pooled), one panel per weight;
- :func:`figure8`: per inner sampler, the fraction of posterior samples within 20% of each true weight, weights
  sorted by that fraction (higher curves are better), for each large synthetic model.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dogs.data import HEART_DISEASE_FACTORS
from dogs.plotting import style

__all__ = ["figure6", "figure7", "figure8"]

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
    style.save_figure(fig, path)
