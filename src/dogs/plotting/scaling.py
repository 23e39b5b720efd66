r"""Figure of the scaling benchmark: time and peak memory of each DoGS and Gibbs stage against ``p``.

Input: the JSON report of :mod:`dogs.benchmarks.scaling` (a dict). Nothing is computed here beyond reading
the report and drawing reference lines.

- left: seconds of each stage against the number of variables ``p`` (log-log), with a dashed line
  proportional to ``p`` through the ``bound`` stage's time at the largest ``p``: a linear stage runs
  parallel to it;
- right: the peak resident memory of the process in each stage (the model and the stage's inputs
  included, the interpreter excluded), with a line proportional to ``p`` through the largest peak and
  the machine's physical memory as a horizontal line; where they cross is the largest ``p`` that fits.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from dogs.plotting import style

__all__ = ["STAGE_LABELS", "plot_scaling"]

#: Legend label of every stage of :data:`dogs.benchmarks.scaling.STAGES`.
STAGE_LABELS = {
    "model": "model (grid, CSR lists)",
    "bound": "bound (Theorem 11)",
    "scan": "systematic scan, T = 2p",
    "variation": "Dobrushin variation",
    "doubling": "length doubling",
    "algorithm2": "Algorithm 2, T = p",
    "algorithm2_fixed": "Algorithm 2, T = 10^5 (its two passes)",
    "gibbs_graph": "Gibbs neighbourhood table",
    "gibbs": "Gibbs sweep",
}


def _measured(report: dict) -> list[dict]:
    return [side for side in report["sides"] if "stages" in side]


def plot_scaling(report: dict) -> Figure:
    """Two panels, time and peak memory per stage against ``p`` (module docstring)."""
    sides = _measured(report)
    fig, (ax_time, ax_memory) = style.subplots(1, 2, figsize=(11, 4.4))
    p = np.array([side["n_vars"] for side in sides], dtype=np.float64)
    for name in report["stages"]:
        seconds = [side["stages"][name]["seconds"] for side in sides]
        peak = [max(side["stages"][name]["peak_bytes"], 1) for side in sides]
        ax_time.plot(p, seconds, marker="o", label=STAGE_LABELS.get(name, name))
        ax_memory.plot(p, peak, marker="o", label=STAGE_LABELS.get(name, name))
    if len(sides):
        top = sides[-1]["stages"]
        line = p / p[-1]
        ax_time.plot(p, top["bound"]["seconds"] * line, color="0.4", linestyle="--", linewidth=1, label="∝ p")
        largest_peak = max(stage["peak_bytes"] for stage in top.values())
        ax_memory.plot(p, largest_peak * line, color="0.4", linestyle="--", linewidth=1, label="∝ p")
    physical = report["machine"].get("physical_memory_bytes")
    if physical:
        ax_memory.axhline(physical, color="k", linewidth=1)
        text = "physical memory"
        if report.get("largest_p_in_memory"):
            text += f": p ≤ {report['largest_p_in_memory']:.2g}"
        ax_memory.text(p.min() if len(p) else 1.0, physical * 1.15, text, fontsize=8)
    for ax, ylabel in ((ax_time, "seconds (best of repeats)"), (ax_memory, "peak resident memory, bytes")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("variables p (square open grid)")
        ax.set_ylabel(ylabel)
    ax_time.set_title("Time per stage")
    ax_memory.set_title("Peak memory per stage (model and inputs included)")
    ax_time.legend(fontsize=7, loc="upper left")
    skipped = [f"p = {side['n_vars']:.0e}: {side.get('skipped') or side.get('failed')}" for side in report["sides"]
               if "stages" not in side]
    cpu = report["machine"].get("cpu", "")
    fig.suptitle(f"DoGS and Gibbs from {int(p.min()) if len(p) else 0:,} to {int(p.max()) if len(p) else 0:,} "
                 f"variables ({cpu})" + ("\nnot run: " + "; ".join(skipped) if skipped else ""), fontsize=10)
    return fig
