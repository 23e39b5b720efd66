"""Figure 3 of DoGS §5.3: parameter error of MCMC maximum likelihood, uniform-scan against DoGS gradients.

Reads the tidy traces of :mod:`dogs.experiments.mcmc_mle` (columns model, replicate, scan, step,
site_updates, param_error) and draws one row per model: the error against gradient steps (left) and
against Gibbs site updates over all chains (right), every replicate of both scans, with the accuracy
level used by the paper-vs-ours verdict.
"""

from __future__ import annotations

import pandas as pd

from dogs.plotting import style
from dogs.plotting.ising import SCAN_STYLE

__all__ = ["figure3"]


def figure3(trace: pd.DataFrame, level: float, path) -> None:
    models = sorted(trace["model"].unique(), key=lambda name: (len(name), name))
    fig, axes = style.subplots(len(models), 2, figsize=(10.0, 3.6 * len(models)), squeeze=False)
    for row, name in enumerate(models):
        runs = trace[trace["model"] == name]
        sweeps = int(runs["mc_sweeps"].iloc[0])
        for col, x in enumerate(("step", "site_updates")):
            ax = axes[row, col]
            for scan in ("uniform", "dogs"):
                for k, (_, run) in enumerate(runs[runs["scan"] == scan].groupby("replicate")):
                    ax.plot(run[x], run["param_error"], color=SCAN_STYLE[scan]["color"], alpha=0.75, linewidth=1.1,
                            label=f"{SCAN_STYLE[scan]['label']} ({runs[runs['scan'] == scan]['replicate'].nunique()} runs)"
                            if k == 0 else None)
            ax.axhline(level, color="black", linestyle=":", linewidth=1.0, label=f"accuracy level {level:g}")
            ax.set_yscale("log")
            ax.set_xlabel("gradient step" if x == "step" else "Gibbs site updates (all chains)")
            ax.set_ylabel(r"$\|\hat\eta_k - \eta^*\|_2$")
            ax.set_title(f"{name} Ising grid, {sweeps} sweeps of site updates per gradient")
            if row == 0 and col == 0:
                ax.legend(loc="upper right")
    fig.suptitle("DoGS §5.3 (Fig. 3): MCMC maximum likelihood, parameter error of gradients from DoGS and uniform "
                 "scans (parameters kept in the fast-mixing set by Liu & Domke's projection)", fontsize="medium")
    style.save_figure(fig, path)
