"""Heatmaps of the annular-augmentation Ising experiment (AA Figs. 3-5): results in, figure out.

One figure per group: the mean node RMSE (left) and pairwise error (right) over runs, samplers in rows
(the paper's order) and settings in columns, each cell annotated with its value. As in the paper, a
higher error is lighter (yellow) and a lower one darker (red); each panel has its own colour scale.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dogs.plotting import style

__all__ = ["heatmaps"]


def heatmaps(stats: pd.DataFrame, samplers, path) -> None:
    varying = "W" if stats["W"].nunique() > 1 else "c"
    fixed = "c" if varying == "W" else "W"
    settings = sorted(stats[varying].unique())
    rows = [s for s in samplers if s in set(stats["sampler"])]
    fig, axes = style.subplots(1, 2, figsize=(5.2 + 0.75 * len(settings) * 2, 0.42 * len(rows) + 1.8))
    for ax, metric, title in zip(axes, ("node_rmse", "pairwise_error"), ("RMSE of node marginals",
                                                                          "RMS L1 error of pairwise marginals")):
        grid = stats.pivot_table(index="sampler", columns=varying, values=metric).reindex(index=rows, columns=settings)
        values = grid.to_numpy()
        image = ax.imshow(values, cmap="YlOrRd_r", aspect="auto")
        ax.set_xticks(range(len(settings)), [f"{v:g}" for v in settings])
        ax.set_yticks(range(len(rows)), rows)
        ax.set_xlabel("strength W" if varying == "W" else "bias scale c")
        ax.set_title(f"{title} ({fixed} = {stats[fixed].iloc[0]:g})")
        ax.grid(False)
        top = np.nanmax(values)
        for i in range(values.shape[0]):
            for j in range(values.shape[1]):
                if np.isfinite(values[i, j]):
                    ax.text(j, i, f"{values[i, j]:.3f}", ha="center", va="center", fontsize=6.5,
                            color="black" if values[i, j] > 0.45 * top else "white")
        fig.colorbar(image, ax=ax, shrink=0.85, label="mean over runs")
    style.save_figure(fig, path)
