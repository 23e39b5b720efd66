r"""The DoGS scan of DoGS §5.5: one scan for every test image, targeting the centred patch rectangle.

Setup as the paper states it: the input scan is the systematic scan of length ``T = p = 620`` in the
paper's phase (:func:`dogs.scans.base.paper_systematic_scan`, ``q_t = e_{(t mod p) + 1}``: patches
``1, 2, ..., 619`` then ``0``, row-major from the top-left of the 20 x 31 grid, so the region's rows are
swept top to bottom); ``d`` is the indicator of the region; :math:`\bar C` is the Theorem 10 bound of the
MFAM, ``tanh(sigma / 2)`` on every grid edge whatever the image's unary terms; ``epsilon`` is the
systematic scan's Dobrushin variation :math:`\mathcal V = d^\top B(q_T) \cdots B(q_1) \mathbf 1`; the
§5.2 length doubling then runs Algorithm 2 on the first ``2, 4, 8, ...`` steps of the systematic scan
until :math:`\mathcal V \le \epsilon`.

**What the certificate says.** With ``d`` the indicator of the 96-patch region, :math:`\mathcal V` bounds
the ``d``-weighted total variation (DoGS Definition 4), which ranges over ``[0, 96]``: it dominates the
marginal TV of the region (at most 1) and the sum of the 96 per-patch marginal TVs. At ``sigma = 0.48``
every row of :math:`\bar C` sums to ``4 tanh(0.24) = 0.94``, so one sweep barely contracts: the
systematic scan's ``epsilon`` is 85.5, vacuous for the region's marginal TV and a bound of 0.89 on the
mean per-patch marginal TV.

**The idle steps.** Length doubling accepts Algorithm 2's output of length 128. Algorithm 2 stops
early once :math:`\mathcal V \le \epsilon`, so the first 18 steps are the systematic scan's patches
``1..18`` of the top row, untouched. No later step updates a patch between the top row and the region,
so these steps never reach ``d``: their backward weight is 0 and dropping them leaves
:math:`\mathcal V` exactly unchanged (:func:`drop_idle_steps`; no other step is idle). The remaining 110
steps, all in the region, are the paper's "DoGS sequence of length 110" (620 / 110 = 5.6; the paper
writes "5.5x").

**Direction.** The systematic scan updates the region's rows (grid rows 6-13, columns 9-20) from top to
bottom, once each. The DoGS scan makes 14 scattered updates in the region's middle rows, then updates the
region row by row from the bottom (grid row 13) to the top (row 6): each row's last update comes after
those of every row below it. This is the order Algorithm 2 returns (it chooses the steps from the last one
backwards); the paper states neither direction.

**Phase.** Of the 620 phases of one systematic sweep, the one ending on the region's last patch (grid
row 13, column 20) has the smallest variation for the region, 85.17 against the paper's 85.47; with it as
the input and ``epsilon``, length doubling again returns 128 steps, 114 of them not idle (5.4x shorter).
The experiment samples it beside the paper's phase as the fair systematic baseline.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from dogs.bounds import influence_pairwise
from dogs.scans.base import Scan, paper_systematic_scan, systematic_scan_ending_on
from dogs.scans.dogs import length_doubling_dogs
from dogs.scans.variation import dobrushin_variation
from dogs.segmentation.mfam import centre_weights, mfam_model

__all__ = ["PHASES", "RegionScan", "drop_idle_steps", "region_scan", "region_systematic_scan"]

#: Largest relative change of the Dobrushin variation accepted when idle steps are dropped (a guard: the
#: change is exactly 0 in exact arithmetic).
IDLE_TOLERANCE = 1e-12


@dataclass(frozen=True)
class RegionScan:
    """The §5.5 DoGS scan and its certificate.

    ``doubling_scan`` is the length-doubling output (Algorithm 2 on a systematic prefix); ``scan`` is the
    same without its idle steps (:func:`drop_idle_steps`), the scan that is sampled; ``variation`` is the
    Dobrushin variation of both; ``epsilon`` the systematic scan's; ``bound_value`` the largest entry of
    :math:`\bar C`; ``lengths_tried`` / ``variations_tried`` the doubling search; ``idle_steps`` the positions in
    ``doubling_scan`` of the dropped steps.
    """

    scan: Scan
    doubling_scan: Scan
    systematic_length: int
    epsilon: float
    variation: float
    bound_value: float
    region_size: int
    steps_in_region: int
    lengths_tried: np.ndarray
    variations_tried: np.ndarray
    idle_steps: np.ndarray


def drop_idle_steps(scan: Scan, weights, influence) -> tuple[Scan, float, np.ndarray]:
    r"""``scan`` without the steps whose value never reaches a weighted variable; :math:`\mathcal V` unchanged.

    Going backwards from the last step, a variable is *live* when its current value is read, through later
    updates, by the final value of a variable with ``d_i > 0`` (at the end: exactly those). A step updating a
    live variable ``i`` is kept; before it, ``i``'s older value is no longer read by it (:math:`\bar C_{ii} = 0`)
    but its neighbours' values are (:math:`\bar C_{ij} > 0`). A step updating a variable that is not live is
    idle: its row of ``B(q_t)`` only changes an entry of ``b_t`` with backward weight 0, so removing it changes
    the Dobrushin variation by exactly 0, and removing it leaves every earlier backward weight as it was.
    Returns the shorter scan, the variation of the whole scan (checked to agree with the shorter one's within
    :data:`IDLE_TOLERANCE`) and the positions of the dropped steps. Deterministic scans only.
    """
    if not scan.is_deterministic:
        raise ValueError("drop_idle_steps needs a deterministic scan (no uniform random steps)")
    matrix = sparse.csr_matrix(influence)
    live = np.asarray(weights, dtype=float) > 0
    keep = np.zeros(scan.length, dtype=bool)
    for t in range(scan.length - 1, -1, -1):
        i = scan.indices[t]
        if live[i]:
            keep[t] = True
            live[i] = False
            row = slice(matrix.indptr[i], matrix.indptr[i + 1])
            live[matrix.indices[row][matrix.data[row] > 0]] = True
    shorter = Scan(scan.indices[keep], scan.n_vars)
    full = dobrushin_variation(scan, weights, influence)
    if abs(dobrushin_variation(shorter, weights, influence) - full) > IDLE_TOLERANCE * max(full, 1.0):
        raise ArithmeticError("dropping idle steps changed the Dobrushin variation")
    return shorter, full, np.flatnonzero(~keep)


PHASES = ("paper", "ending_on_region")


def region_systematic_scan(grid: tuple[int, int], region: tuple[int, int], phase: str = "paper") -> Scan:
    """One systematic sweep of the ``grid``: the paper's phase, or the one ending on the region's last patch.

    ``"paper"``: :func:`~dogs.scans.base.paper_systematic_scan` (patches ``1..p-1`` then ``0``).
    ``"ending_on_region"``: :func:`~dogs.scans.base.systematic_scan_ending_on` the region's last patch in
    row-major order (the sweep starts just after it): of the ``p`` phases of one sweep it has the smallest
    Dobrushin variation for the region (checked for the 12 x 8 region at ``sigma = 0.48``), the fair
    systematic baseline for a marginal target.
    """
    p = grid[0] * grid[1]
    if phase == "paper":
        return paper_systematic_scan(p, p)
    if phase == "ending_on_region":
        return systematic_scan_ending_on(p, p, int(np.flatnonzero(centre_weights(grid, region))[-1]))
    raise ValueError(f"phase must be one of {PHASES}, got {phase!r}")


def region_scan(sigma: float, grid: tuple[int, int], region: tuple[int, int], phase: str = "paper") -> RegionScan:
    """The DoGS scan of the centred ``region`` of a ``grid`` of patches (module docstring).

    ``phase`` picks the systematic scan that gives ``epsilon`` and seeds length doubling
    (:func:`region_systematic_scan`); the paper's is the default.
    """
    p = grid[0] * grid[1]
    model = mfam_model(np.zeros((p, 2)), grid, sigma)  # the Theorem 10 bound depends on sigma and the grid only
    bound = influence_pairwise(model)
    weights = centre_weights(grid, region)
    systematic = region_systematic_scan(grid, region, phase)
    epsilon = dobrushin_variation(systematic, weights, bound)
    doubling = length_doubling_dogs(systematic, weights, bound, epsilon)
    scan, variation, idle = drop_idle_steps(doubling.scan, weights, bound)
    inside = weights[scan.indices] > 0
    return RegionScan(scan=scan, doubling_scan=doubling.scan, systematic_length=systematic.length, epsilon=epsilon,
                      variation=variation, bound_value=float(bound.data.max()), region_size=int(weights.sum()),
                      steps_in_region=int(inside.sum()), lengths_tried=doubling.lengths_tried,
                      variations_tried=doubling.variations_tried, idle_steps=idle)
