"""Figures of the annular-augmentation Ising experiment (AA Figs. 3-5): results in, figure out.

- :func:`heatmaps`: one figure per group, the node RMSE (left) and pairwise error (right), samplers in rows (the
  paper's order) and settings in columns, each cell annotated with its value: the median over bias draws of the mean
  over runs. As in the paper, a higher error is lighter (yellow) and a lower one darker (red); each panel has its own
  colour scale.
- :func:`errata_half_coupling`: the diagnostic of Fig. 5: node RMSE of HMC, CMH and the annular + LBP samplers against
  the bias scale, scored against the truth at W (ours) and at W/2 (what the authors' code scored against), the
  paper's Table 8 beside the latter.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib import ticker

from dogs.plotting import style

__all__ = ["errata_half_coupling", "heatmaps"]


def heatmaps(medians: dict, samplers, path, *, draws: int, runs: int, figure: str = "") -> None:
    """``medians``: ``{"node_rmse": frame, "pairwise_error": frame}``, each with columns sampler, W, c, median;
    ``figure``: the paper figure it regenerates ("Fig. 3"), named in the title."""
    first = next(iter(medians.values()))
    varying = "W" if first["W"].nunique() > 1 else "c"
    fixed = "c" if varying == "W" else "W"
    settings = sorted(first[varying].unique())
    rows = [s for s in samplers if s in set(first["sampler"])]
    fig, axes = style.subplots(1, 2, figsize=(5.2 + 0.75 * len(settings) * 2, 0.42 * len(rows) + 1.8))
    for ax, metric, title in zip(axes, ("node_rmse", "pairwise_error"), ("RMSE of node marginals",
                                                                          "RMS L1 error of pairwise marginals")):
        grid = medians[metric].pivot_table(index="sampler", columns=varying, values="median")
        values = grid.reindex(index=rows, columns=settings).to_numpy()
        image = ax.imshow(values, cmap="YlOrRd_r", aspect="auto")
        ax.set_xticks(range(len(settings)), [f"{v:g}" for v in settings])
        ax.set_yticks(range(len(rows)), rows)
        ax.set_xlabel("strength W" if varying == "W" else "bias scale c")
        ax.set_title(f"{title} ({fixed} = {first[fixed].iloc[0]:g})")
        ax.grid(False)
        top = np.nanmax(values)
        for i in range(values.shape[0]):
            for j in range(values.shape[1]):
                if np.isfinite(values[i, j]):
                    ax.text(j, i, f"{values[i, j]:.3f}", ha="center", va="center", fontsize=6.5,
                            color="black" if values[i, j] > 0.45 * top else "white")
        fig.colorbar(image, ax=ax, shrink=0.85, label=f"median over {draws} bias draws of the mean over {runs} runs")
    fig.suptitle(f"Annular augmentation §3.1{f' ({figure})' if figure else ''}: the twelve samplers on 9x9 Ising "
                 f"models, {fixed} = {first[fixed].iloc[0]:g}, {'strength W' if varying == 'W' else 'bias scale c'} "
                 f"from {settings[0]:g} to {settings[-1]:g}", fontsize="medium")
    style.save_figure(fig, path)


def errata_half_coupling(scored: dict, printed: pd.DataFrame, samplers, path) -> None:
    """``scored``: ``{"W": frame, "W/2": frame}`` (columns sampler, c, median, low, high); ``printed``: sampler, c, paper."""
    fig, axes = style.subplots(1, 2, figsize=(10.0, 3.8), sharey=True)
    colors = dict(zip(samplers, ["#7f7f7f", "#1f77b4", "#d62728", "#ff7f0e", "#2ca02c"]))
    for ax, (label, frame) in zip(axes, scored.items()):
        for sampler in samplers:
            rows = frame[frame["sampler"] == sampler].sort_values("c")
            ax.errorbar(rows["c"], rows["median"], yerr=[rows["median"] - rows["low"], rows["high"] - rows["median"]],
                        color=colors[sampler], marker="o", markersize=3, capsize=2, label=f"{sampler} (ours)")
            if label == "W/2":
                paper = printed[printed["sampler"] == sampler].sort_values("c")
                ax.plot(paper["c"], paper["paper"], color=colors[sampler], linestyle="--", marker="x", markersize=4,
                        label=f"{sampler} (paper, Table 8)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ticks = sorted(set(frame["c"]) | (set(printed["c"]) if label == "W/2" else set()))
        ax.set_xticks(ticks, [f"{v:g}" for v in ticks])
        ax.xaxis.set_minor_locator(ticker.NullLocator())
        ax.set_xlabel("bias scale c (W = 0.2)")
        ax.set_title(f"node RMSE scored against the truth at {label}"
                     + (" (ours)" if label == "W" else " (the authors' code)"))
    axes[0].set_ylabel("node RMSE: median [range] over bias draws")
    axes[1].legend(fontsize=6.5, ncol=2)
    fig.suptitle("Annular augmentation §3.1 (Fig. 5, Table 8): diagnostic of the authors' code, the truth at W/2",
                 fontsize="medium")
    style.save_figure(fig, path)
