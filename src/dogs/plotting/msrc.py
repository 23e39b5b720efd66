"""Figures of the MSRC segmentation experiment (DoGS Figs. 6, 7, 16): results in, figure out.

- :func:`segmentation_panels`: per split, its example test image (the first whose centre region is at least
  half one object class) with the centre region outlined, the ground-truth patch labels, and the PLSA,
  systematic-scan and DoGS segmentations with each one's centre-region Hamming error, in the MSRC label
  colours, with a legend of the nine classes and void;
- :func:`error_bars`: the average Hamming error of PLSA, systematic scan and DoGS over the splits (mean ± s.d.),
  on the centre region and on the whole image, and beside it (ours) the paired differences with 95 % intervals.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import MaxNLocator

from dogs.plotting import style

__all__ = ["CLASS_COLOURS", "error_bars", "segmentation_panels"]

#: MSRC label colours of the nine classes (building ... bicycle), in class-index order; void is black.
CLASS_COLOURS = np.array([(128, 0, 0), (0, 128, 0), (128, 128, 0), (0, 0, 128), (128, 128, 128), (192, 0, 0),
                          (192, 128, 0), (64, 0, 128), (192, 0, 128)]) / 255.0
METHOD_LABELS = {"plsa": "PLSA (σ = 0)", "systematic": "MFAM, systematic scan", "dogs": "MFAM, DoGS scan"}
PATCH_STRIDE, PATCH_SIZE = 10, 20  # pixels: patch (r, c) covers rows 10r .. 10r + 19 of the image


def _colour_map(labels: np.ndarray, grid) -> np.ndarray:
    image = np.zeros((*grid, 3))
    valid = labels >= 0
    image.reshape(-1, 3)[valid] = CLASS_COLOURS[labels[valid]]
    return image


def _class_legend(fig, classes) -> None:
    handles = [Patch(facecolor=CLASS_COLOURS[k], edgecolor="0.4", label=name) for k, name in enumerate(classes)]
    handles.append(Patch(facecolor="black", edgecolor="0.4", label="void / not one of the nine"))
    fig.legend(handles=handles, loc="outside lower center", ncol=len(handles), fontsize=8, frameon=False,
               handlelength=1.2, columnspacing=1.2)


def segmentation_panels(label_files, path, title: str = "") -> None:
    """One row per ``labels.npz`` of a split: example image, ground truth, PLSA, systematic, DoGS."""
    files = [np.load(p) for p in label_files]
    columns = ["image", "truth", "plsa", "systematic", "dogs"]
    fig, axes = style.subplots(len(files), len(columns), figsize=(3.0 * len(columns), 2.3 * len(files) + 0.5),
                               squeeze=False)
    for row, data in enumerate(files):
        grid = tuple(int(x) for x in data["grid"])
        height, width = (int(x) for x in data["region"])
        name = str(data["example"])
        errors = dict(zip(data["example_methods"].tolist(), data["example_centre_errors"].tolist()))
        top, left = (grid[0] - height) // 2, (grid[1] - width) // 2
        for col, what in enumerate(columns):
            ax = axes[row, col]
            ax.grid(False)
            ax.set_xticks([])
            ax.set_yticks([])
            if what == "image":
                ax.imshow(data["example_rgb"])
                ax.add_patch(Rectangle((left * PATCH_STRIDE, top * PATCH_STRIDE),
                                       (width - 1) * PATCH_STRIDE + PATCH_SIZE, (height - 1) * PATCH_STRIDE + PATCH_SIZE,
                                       fill=False, edgecolor="white", linewidth=1.8))
                transposed = " (portrait, transposed)" if bool(data["example_transposed"]) else ""
                ax.set_title(f"test image {name}{transposed}", fontsize=9)
                continue
            ax.imshow(_colour_map(data[f"{name}/{what}"], grid), interpolation="nearest")
            ax.add_patch(Rectangle((left - 0.5, top - 0.5), width, height, fill=False, edgecolor="white", linewidth=1.5))
            if what == "truth":
                ax.set_title("ground truth (patch majority)", fontsize=9)
            else:
                ax.set_title(f"{METHOD_LABELS[what]}\ncentre error {errors[what]:.2f}", fontsize=9)
    _class_legend(fig, [str(c) for c in files[0]["classes"]])
    if title:
        fig.suptitle(title, fontsize="medium")
    style.save_figure(fig, path)


COMPARISON_LABELS = {"dogs_minus_systematic": "DoGS − systematic", "dogs_minus_aligned": "DoGS − systematic\nending on region",
                     "plsa_minus_systematic": "PLSA − systematic", "plsa_minus_dogs": "PLSA − DoGS"}


def error_bars(summary: pd.DataFrame, differences: pd.DataFrame, region, path) -> None:
    """Left: mean ± s.d. over splits of each method's split-mean error (the paper's Fig. 7; ``summary``: split,
    method, region, mean_error). Right (ours): the paired differences of the centre-region errors with their
    95 % intervals over the splits (``differences``: comparison, mean, low, high; one row per comparison)."""
    methods = ["plsa", "systematic", "dogs"]
    fig, (ax, diff_ax) = style.subplots(1, 2, figsize=(11.0, 4.0), width_ratios=(1.5, 1.0))
    width = 0.38
    height, columns = (int(x) for x in region)
    for offset, where, alpha in ((-width / 2, "centre", 1.0), (width / 2, "image", 0.45)):
        rows = summary[summary["region"] == where].groupby("method")["mean_error"].agg(["mean", "std"]).reindex(methods)
        ax.bar(np.arange(len(methods)) + offset, rows["mean"], width, yerr=rows["std"].fillna(0), capsize=4,
               color=["#7f7f7f", "#1f77b4", "#d62728"], alpha=alpha,
               label=f"centre {columns} x {height} region" if where == "centre" else "whole image")
    ax.set_xticks(range(len(methods)), [METHOD_LABELS[m] for m in methods])
    ax.set_ylabel("Hamming error: mean ± s.d. over splits")
    ax.set_ylim(0, 1.3 * ax.get_ylim()[1])
    ax.set_title(f"MSRC v1, {summary['split'].nunique()} random 90/10 splits")
    ax.legend(loc="upper center", ncol=2)
    names = [c for c in COMPARISON_LABELS if c in set(differences["comparison"])]
    rows = differences.set_index("comparison").loc[names]
    y = np.arange(len(names))[::-1]
    diff_ax.errorbar(rows["mean"], y, xerr=[rows["mean"] - rows["low"], rows["high"] - rows["mean"]], fmt="o",
                     color="black", capsize=4)
    diff_ax.axvline(0.0, color="0.5", linestyle="--", linewidth=1)
    diff_ax.set_yticks(y, [COMPARISON_LABELS[c] for c in names])
    diff_ax.set_ylim(-0.6, len(names) - 0.4)
    diff_ax.xaxis.set_major_locator(MaxNLocator(nbins=4))
    diff_ax.set_xlabel("difference of centre-region Hamming errors")
    diff_ax.set_title("paired over the splits: mean, 95 % interval (ours)")
    fig.suptitle(f"DoGS §5.5 (Fig. 7): MSRC segmentation, Hamming error of PLSA and of the MFAM with the systematic "
                 f"and the DoGS scan of the centre {region[0]} x {region[1]} region", fontsize="medium")
    style.save_figure(fig, path)
