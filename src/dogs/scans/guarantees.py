r"""Guarantee curves: the Dobrushin variation of standard and DoGS scans over a grid of lengths.

For a scan ``q`` of length ``T``, weights ``d`` and an influence bound ``C_bar``, the Dobrushin
variation ``V_d(q; C_bar)`` (DoGS Definition 7) bounds the ``d``-weighted total variation between the
law of the chain after ``T`` steps and the target (DoGS Theorem 8). The DoGS figures (Figs. 1, 4, 5, 8,
9) plot it against ``T`` for four scans, the names used in every result file:

- ``uniform``: the uniform random scan (closed form, :func:`~dogs.scans.uniform_variation_curve`);
- ``systematic``: the row-major systematic scan in a fixed phase (``phase``; the paper's, DoGS §2.1,
  visits ``1, ..., p-1, 0, 1, ...``, so every sweep ends on variable 0);
- ``systematic_aligned`` (marginal targets only): for every ``T`` the systematic scan whose last step
  updates the target (:func:`~dogs.scans.systematic_scan_ending_on`), the fair baseline at a budget
  ``T``: in the paper's phase a target at variable 0 is not updated at all for ``T < p``;
- ``dogs``: Algorithm 2 started from the systematic scan of the same length ``T``, re-optimised for
  every ``T`` of the grid;
- ``dogs_iterated``: Algorithm 2 re-run on its own output until the variation stops improving.

The budget at which a curve first reaches a level is :func:`steps_to_reach`. The DoGS scans of every ``T`` are
stored and read back by the experiments that write them (:mod:`dogs.experiments.common`).
"""

from __future__ import annotations

from dogs.extras import require

require("workflow", "dogs.scans.guarantees")  # before the imports below: a missing package names its extra

import math
from typing import Callable

import numpy as np
import pandas as pd

from dogs.scans.base import Scan, paper_systematic_scan, systematic_scan, systematic_scan_ending_on
from dogs.scans.dogs import dogs_scan, iterated_dogs
from dogs.scans.variation import dobrushin_variation, dobrushin_variation_curve, uniform_variation_curve

__all__ = [
    "GUARANTEE_SCANS",
    "STANDARD_SCANS",
    "guarantee_curves",
    "length_grid",
    "steps_to_reach",
]

#: Every scan of the guarantee curves, in plotting order.
GUARANTEE_SCANS = ("uniform", "systematic", "systematic_aligned", "dogs", "dogs_iterated")
#: The four scans of the paper's figures (``systematic_aligned`` needs a marginal target).
STANDARD_SCANS = ("uniform", "systematic", "dogs", "dogs_iterated")


#: Phases of the systematic scan: "paper" is DoGS §2.1's q_t = e_((t mod p)+1) (every sweep ends on variable 1),
#: "first" starts every sweep on variable 1.
SYSTEMATIC_PHASES = ("paper", "first")


def systematic(n_vars: int, length: int, phase: str = "paper") -> Scan:
    """The systematic scan of ``length`` steps in the given phase (:data:`SYSTEMATIC_PHASES`)."""
    if phase == "paper":
        return paper_systematic_scan(n_vars, int(length))
    if phase == "first":
        return systematic_scan(n_vars, int(length))
    raise ValueError(f"systematic phase must be one of {SYSTEMATIC_PHASES}, got {phase!r}")


def length_grid(start: int, stop: int, step: int | None = None, per_decade: int | None = None) -> np.ndarray:
    """Scan lengths of a guarantee grid.

    With ``step``: ``start, start + step, ...`` up to ``stop`` (included when on the grid). With
    ``per_decade``: about ``per_decade`` log-spaced lengths per factor of 10, rounded to distinct
    integers, ``start`` and ``stop`` included. Exactly one of the two must be given.
    """
    if (step is None) == (per_decade is None):
        raise ValueError("give exactly one of step and per_decade")
    for name, value in (("start", start), ("stop", stop), ("step", step), ("per_decade", per_decade)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1):
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if stop < start:
        raise ValueError(f"stop must be >= start, got start = {start}, stop = {stop}")
    if step is not None:
        return np.arange(start, stop + 1, step, dtype=np.int64)
    count = int(np.ceil(per_decade * np.log10(stop / start))) + 1
    return np.unique(np.round(np.geomspace(start, stop, count)).astype(np.int64))


def guarantee_curves(n_vars: int, weights, influence, lengths, max_iterations: int, scans=STANDARD_SCANS,
                     progress: Callable[[str], None] | None = None, phase: str = "paper", target: int | None = None):
    """Dobrushin-variation guarantees of the standard and DoGS scans for every length in ``lengths``.

    Parameters
    ----------
    n_vars : int
        Number of variables ``p``.
    weights : (p,) array
        The weights ``d`` (``1`` for full TV, ``e_i`` for the marginal of ``X_i``).
    influence : sparse (p, p)
        The influence bound ``C_bar`` (e.g. DoGS Theorem 11).
    lengths : array of int
        The grid of ``T``.
    max_iterations : int
        Cap on the further runs of Algorithm 2 in iterated DoGS.
    scans : subset of :data:`GUARANTEE_SCANS`
    progress : callable, optional
        Called with a line of text about every tenth length.
    phase : {"paper", "first"}
        Phase of the systematic scan (:func:`systematic`), which is also DoGS's input scan.
    target : int, optional
        The target variable of a marginal ``d = e_target``; needed for ``systematic_aligned``.

    Returns
    -------
    guarantees : DataFrame with columns scan, T, bound (long format, ``scans`` only)
    per_length : dict ``{scan: {T: Scan}}`` for the DoGS scans (every ``T``)
    runs : DataFrame, one row per ``T``: timings and iteration counts of Algorithm 2
    """
    unknown = sorted(set(scans) - set(GUARANTEE_SCANS))
    if unknown:
        raise ValueError(f"unknown scan names {unknown}; choose from {', '.join(GUARANTEE_SCANS)}")
    if "systematic_aligned" in scans and target is None:
        raise ValueError("the systematic_aligned scan ends on a target variable: give target")
    lengths = np.unique(np.asarray(lengths, dtype=np.int64))
    p = int(n_vars)
    rows = []
    if "uniform" in scans:
        values = uniform_variation_curve(p, lengths, weights, influence)
        rows += [("uniform", int(t), float(v)) for t, v in zip(lengths, values)]
    if "systematic" in scans:
        values = dobrushin_variation_curve(systematic(p, int(lengths.max()), phase), weights, influence, lengths)
        rows += [("systematic", int(t), float(v)) for t, v in zip(lengths, values)]
    if "systematic_aligned" in scans:
        rows += [("systematic_aligned", int(t), float(dobrushin_variation(systematic_scan_ending_on(p, int(t), target),
                                                                          weights, influence))) for t in lengths]
    per_length = {name: {} for name in ("dogs", "dogs_iterated") if name in scans}
    run_rows = []
    if per_length:
        for k, length in enumerate(lengths):
            t = int(length)
            single = dogs_scan(systematic(p, t, phase), weights, influence)
            row = {"T": t, "systematic": single.input_variation, "dogs": single.variation,
                   "dogs_seconds": single.elapsed_seconds}
            if "dogs" in per_length:
                per_length["dogs"][t] = single.scan
                rows.append(("dogs", t, float(single.variation)))
            if "dogs_iterated" in per_length:
                again = iterated_dogs(single.scan, weights, influence, max_iterations=max_iterations)
                per_length["dogs_iterated"][t] = again.scan
                rows.append(("dogs_iterated", t, float(again.variation)))
                row.update(dogs_iterated=again.variation, iterated_runs=1 + again.n_iterations,
                           iterated_converged=bool(again.converged), iterated_seconds=again.elapsed_seconds)
            run_rows.append(row)
            if progress and (k % max(1, len(lengths) // 10) == 0 or k == len(lengths) - 1):
                progress(f"DoGS for T = {t} ({k + 1}/{len(lengths)}): systematic {row['systematic']:.3e}, "
                         f"DoGS {row['dogs']:.3e}" + (f", iterated {row['dogs_iterated']:.3e} "
                                                      f"after {row['iterated_runs']} runs" if "dogs_iterated" in row else ""))
    frame = pd.DataFrame(rows, columns=["scan", "T", "bound"])
    frame["scan"] = pd.Categorical(frame["scan"], categories=list(GUARANTEE_SCANS), ordered=True)
    frame = frame.sort_values(["scan", "T"]).reset_index(drop=True)
    frame["scan"] = frame["scan"].astype(str)
    return frame, per_length, pd.DataFrame(run_rows)


def steps_to_reach(lengths, guarantees, level: float) -> float:
    """The budget ``T`` at which a guarantee curve first reaches ``level``, interpolating ``log(guarantee)``
    linearly between the grid's lengths (``nan`` if it never does on the grid)."""
    lengths, logs = np.asarray(lengths, dtype=np.float64), np.log(np.asarray(guarantees, dtype=np.float64))
    order = np.argsort(lengths)
    lengths, logs = lengths[order], logs[order]
    hit = np.flatnonzero(logs <= np.log(level))
    if hit.size == 0:
        return math.nan
    k = hit[0]
    if k == 0:
        return float(lengths[0])
    t0, t1, g0, g1 = lengths[k - 1], lengths[k], logs[k - 1], logs[k]
    return float(t0 + (t1 - t0) * (np.log(level) - g0) / (g1 - g0))
