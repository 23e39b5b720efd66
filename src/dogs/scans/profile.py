r"""Where a deterministic scan spends its steps, relative to a target variable on a square grid.

DoGS Figs. 4 (right), 12, 14 and 15 show how the DoGS scan for the marginal of one variable
``X_target`` concentrates its updates near the target: how often each variable is updated by
Manhattan distance to the target (on a torus the distance wraps around), the spatial sampling
frequency over successive segments of the scan, and the distance of the updated variable at every
step (the distance-time profile). Rates are relative to the systematic scan, which updates every
variable ``T / p`` times.
"""

from __future__ import annotations

from dogs.extras import require

require("workflow", "dogs.scans.profile")  # before the imports below: a missing package names its extra

import numpy as np
import pandas as pd

__all__ = ["manhattan_distance", "scan_profile"]


def manhattan_distance(side: int, target: int, torus: bool) -> np.ndarray:
    """Manhattan distance of every variable (row-major) to ``target`` on a ``side x side`` grid (wrapping on a torus)."""
    r, c = np.divmod(np.arange(side * side), side)
    tr, tc = divmod(int(target), side)
    dr, dc = np.abs(r - tr), np.abs(c - tc)
    if torus:
        dr, dc = np.minimum(dr, side - dr), np.minimum(dc, side - dc)
    return (dr + dc).astype(np.int64)


def scan_profile(indices, side: int, target: int, torus: bool, segments) -> dict:
    """Where a deterministic scan spends its steps, relative to the systematic scan's rate ``T / p``.

    Parameters
    ----------
    indices : (T,) int array
        The scan's variable indices (row-major on the grid).
    side : int
    target : int
        Row-major index of the target variable.
    torus : bool
        Whether distances wrap around.
    segments : increasing fractions from 0 to 1
        Segment bounds of the frequency maps, as fractions of the scan.

    Returns
    -------
    dict with the per-distance ``histogram`` (DataFrame: distance, n_sites, visits, visits_per_site,
    systematic_visits_per_site), the segment ``maps`` ``(n_segments, side, side)`` of
    ``visits * p / segment length`` (1 = the systematic scan's rate), the ``segment_bounds`` in steps,
    the ``distance_by_step`` of the updated variable, and the ``mean_distance_by_segment``.
    """
    indices = np.asarray(indices, dtype=np.int64)
    p, length = side * side, indices.size
    distance = manhattan_distance(side, target, torus)
    visits = np.bincount(indices, minlength=p)
    by_d = pd.DataFrame({"distance": distance, "visits": visits}).groupby("distance")
    histogram = pd.DataFrame({
        "distance": by_d.size().index.astype(np.int64),
        "n_sites": by_d.size().to_numpy(),
        "visits": by_d["visits"].sum().to_numpy(),
    })
    histogram["visits_per_site"] = histogram["visits"] / histogram["n_sites"]
    histogram["systematic_visits_per_site"] = length / p
    bounds = np.unique(np.round(np.asarray(segments) * length).astype(np.int64))
    maps = np.zeros((bounds.size - 1, side, side))
    for k, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:])):
        counts = np.bincount(indices[lo:hi], minlength=p)
        maps[k] = (counts * p / max(hi - lo, 1)).reshape(side, side)
    return {"histogram": histogram, "maps": maps, "segment_bounds": bounds, "distance_by_step": distance[indices],
            "mean_distance_by_segment": np.array([distance[indices[lo:hi]].mean() if hi > lo else np.nan
                                                  for lo, hi in zip(bounds[:-1], bounds[1:])])}
