"""Figures of the MSRC segmentation experiment (DoGS Figs. 6, 7, 16): results in, figure out.

- :func:`segmentation_panels`: per split, its first test image with the centre region outlined, the
  ground-truth patch labels, and the PLSA, systematic-scan and DoGS segmentations (MSRC label colours);
- :func:`error_bars`: the average Hamming error of PLSA, systematic scan and DoGS over the splits (mean ± s.d.),
  on the centre region and on the whole image.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.patches import Rectangle

from dogs.plotting import style

__all__ = ["error_bars", "segmentation_panels"]

#: MSRC label colours of the nine classes (building ... bicycle), void black.
CLASS_COLOURS = np.array([(128, 0, 0), (0, 128, 0), (128, 128, 0), (0, 0, 128), (128, 128, 128), (192, 0, 0),
                          (192, 128, 0), (64, 0, 128), (192, 0, 128)]) / 255.0
METHOD_LABELS = {"plsa": "PLSA (σ = 0)", "systematic": "MFAM, systematic scan", "dogs": "MFAM, DoGS scan"}


def _colour_map(labels: np.ndarray, grid) -> np.ndarray:
    image = np.zeros((*grid, 3))
    valid = labels >= 0
    image.reshape(-1, 3)[valid] = CLASS_COLOURS[labels[valid]]
    return image


def segmentation_panels(label_files, region, path) -> None:
    files = [np.load(p) for p in label_files]
    columns = ["image", "truth", "plsa", "systematic", "dogs"]
    fig, axes = style.subplots(len(files), len(columns), figsize=(3.0 * len(columns), 2.3 * len(files)), squeeze=False)
    for row, data in enumerate(files):
        grid = tuple(int(x) for x in data["grid"])
        name = str(data["example"])
        height, width = region
        top, left = (grid[0] - height) // 2, (grid[1] - width) // 2
        for col, what in enumerate(columns):
            ax = axes[row, col]
            ax.grid(False)
            ax.set_xticks([])
            ax.set_yticks([])
            if what == "image":
                ax.imshow(data["example_rgb"])
                scale = (10, 10)  # patches on a 10-pixel stride, 20 pixels wide: region in pixels
                ax.add_patch(Rectangle((left * scale[1], top * scale[0]), width * scale[1] + 10, height * scale[0] + 10,
                                       fill=False, edgecolor="white", linewidth=1.8))
                ax.set_title(f"test image {name}", fontsize=9)
                continue
            ax.imshow(_colour_map(data[f"{name}/{what}"], grid), interpolation="nearest")
            ax.add_patch(Rectangle((left - 0.5, top - 0.5), width, height, fill=False, edgecolor="white", linewidth=1.5))
            ax.set_title("ground truth (patches)" if what == "truth" else METHOD_LABELS[what], fontsize=9)
    style.save_figure(fig, path)


def error_bars(summary: pd.DataFrame, path) -> None:
    methods = ["plsa", "systematic", "dogs"]
    fig, ax = style.subplots(1, 1, figsize=(6.0, 3.8))
    width = 0.38
    for offset, region, alpha in ((-width / 2, "centre", 1.0), (width / 2, "image", 0.45)):
        rows = summary[summary["region"] == region].groupby("method")["mean_error"].agg(["mean", "std"]).reindex(methods)
        ax.bar(np.arange(len(methods)) + offset, rows["mean"], width, yerr=rows["std"].fillna(0), capsize=4,
               color=["#7f7f7f", "#1f77b4", "#d62728"], alpha=alpha,
               label="centre 12 x 8 region" if region == "centre" else "whole image")
    ax.set_xticks(range(len(methods)), [METHOD_LABELS[m] for m in methods])
    ax.set_ylabel("Hamming error: mean ± s.d. over splits")
    ax.set_title(f"MSRC v1, {summary['split'].nunique()} random 90/10 splits")
    ax.legend()
    style.save_figure(fig, path)
