r"""The equal-cost budget of the annular-augmentation comparison, counted as the authors' code counts it.

Fagan, Bhandari & Cunningham (2017, §3) run every sampler for "the same number of density function
evaluations", expressed as the cost of ``N`` exact-HMC samples with travel time ``t pi``. Their
experiment code turns that into a number ``F`` of evaluations and divides it among the samplers:

.. math::

    F = N \big(d t + d + c\, d\, (t - \tfrac12)\big),

with ``c`` the clique size (4 on the 2D lattice, 2 on the 1D chain, ``d - 1`` for a fully connected
Boltzmann machine), and

- annular augmentation (Gibbs, slice, Suwa-Todo): ``round(F / (c (2d - 1)))`` iterations, each
  evaluating the ``2d - 1`` new points of the annulus at ``c`` units apiece;
- coordinate MH: ``F / (c d)`` recorded samples of ``K = d`` proposals each, one proposal at ``c`` units;
- coordinate MH with the LBP proposal: the same ``L K = F / c`` *proposed flips* (the authors'
  ``CMH_LBP_DES.m`` loops over proposals and jumps over the holding steps between them with geometric
  waiting times; a state is recorded every ``K`` steps, holds included, so the number of recorded states
  is random and at least ``L``).

For the 9x9 torus (``d = 81``, ``t = 2.5``, ``c = 4``, ``N = 1000``) this gives ``F = 931500``, 1446
annular iterations, 2875 CMH samples and 232 875 CMH + LBP proposals.

This is the authors' accounting, reproduced so the replication spends what they spent; it is not
the count our samplers report. Our :class:`~dogs.samplers.base.Work` counts single-flip log-density
differences actually computed: exact HMC reports one per wall hit, about ``N d t`` in all (each
coordinate meets a wall every ``pi``), i.e. 202 500 for the 9x9 setting, against the ``F = 931500``
charged above; an annular iteration computes ``2d - 1`` differences (232 806 for 1446 iterations) and
CMH and CMH + LBP one per proposal (232 875 for 2875 samples of 81). So under this budget HMC computes about 13%
fewer single-flip differences than the other two in our units; the returned ``single_flip_evaluations``
gives these numbers. In the authors' code the first of the ``L`` recorded CMH (and HMC) states is the
initial point itself, so they ran ``L - 1`` sweeps (trajectories) after it; our samplers record
``n_samples`` states *after* proposals, so passing ``cmh_samples - 1`` reproduces their run length.

When ``F / (c d)`` is not an integer (not the case for the paper's settings) the CMH count is rounded
down, never exceeding the budget (a ratio within ``1e-9`` relative of an integer counts as that
integer, against rounding in ``F``); ``cmh_samples_exact`` keeps the ratio.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from dataclasses import dataclass

from dogs.samplers.checks import check_int

__all__ = ["EqualCostBudget", "SingleFlipEvaluations", "equal_cost_budget"]


@dataclass(frozen=True)
class SingleFlipEvaluations:
    """The single-flip log-density differences our samplers would report for the runs of an
    :class:`EqualCostBudget` (module docstring): ``exact_hmc`` the expected ``N d t``, ``annular`` iterations times
    ``2d - 1``, ``cmh`` and ``cmh_lbp`` samples times ``d``."""

    exact_hmc: float
    annular: int
    cmh: int
    cmh_lbp: int


@dataclass(frozen=True)
class EqualCostBudget:
    """The run length of every sampler under the paper's equal-cost budget (:func:`equal_cost_budget`).

    Attributes
    ----------
    density_evaluations : float
        ``F``, the budget in the authors' units.
    hmc_samples : int
        ``N``, exact-HMC trajectories.
    hmc_travel_time : float
        ``t pi``, the duration of a trajectory.
    annular_iterations : int
        ``round(F / (c (2d - 1)))``.
    cmh_samples : int
        ``floor(F / (c d))`` CMH recorded states.
    cmh_samples_exact : float
        ``F / (c d)``.
    cmh_proposals_per_sample : int
        ``d``.
    cmh_lbp_proposals : int
        ``cmh_samples * d``, the proposed flips of CMH + LBP.
    single_flip_evaluations : SingleFlipEvaluations
        What our samplers would report for those runs.
    """

    density_evaluations: float
    hmc_samples: int
    hmc_travel_time: float
    annular_iterations: int
    cmh_samples: int
    cmh_samples_exact: float
    cmh_proposals_per_sample: int
    cmh_lbp_proposals: int
    single_flip_evaluations: SingleFlipEvaluations

    def __post_init__(self):
        for name in ("hmc_samples", "annular_iterations", "cmh_samples", "cmh_proposals_per_sample",
                     "cmh_lbp_proposals"):
            check_int(f"budget.{name}", getattr(self, name))
        if not (math.isfinite(self.hmc_travel_time) and self.hmc_travel_time > 0.0):
            raise ValueError(f"budget.hmc_travel_time must be finite and > 0, got {self.hmc_travel_time}")

    def as_dict(self) -> dict:
        """The fields as a JSON-ready dict (``single_flip_evaluations`` a nested dict), in field order: how run
        metadata records the budget."""
        return dataclasses.asdict(self)


def equal_cost_budget(d: int, *, travel_time_periods: float = 2.5, n_hmc_samples: int = 1000,
                      clique_size: int) -> EqualCostBudget:
    r"""Iterations of each sampler under the paper's equal-cost budget (module docstring).

    Parameters
    ----------
    d : int
        Number of binary variables (>= 2).
    travel_time_periods : float, default 2.5
        ``t`` of the exact-HMC travel time ``T = t pi`` (>= 0.5, so that no term of ``F`` is negative).
    n_hmc_samples : int, default 1000
        ``N``, the number of exact-HMC samples the budget is worth.
    clique_size : int
        ``c``: 4 for the 2D lattice, 2 for the 1D chain, ``d - 1`` for a fully connected model.

    Returns
    -------
    EqualCostBudget

    References
    ----------
    Fagan, Bhandari & Cunningham (2017), *Annular augmentation sampling*, §3 (equal numbers of
    density evaluations; 1000 exact-HMC samples' worth on the 9x9 Ising model).

    Examples
    --------
    >>> budget = equal_cost_budget(81, travel_time_periods=2.5, n_hmc_samples=1000, clique_size=4)
    >>> budget.density_evaluations, budget.annular_iterations, budget.cmh_samples
    (931500.0, 1446, 2875)
    """
    d = check_int("d", d, 2)
    n = check_int("n_hmc_samples", n_hmc_samples, 1)
    clique = check_int("clique_size", clique_size, 1)
    if isinstance(travel_time_periods, bool) or not isinstance(travel_time_periods, numbers.Real):
        raise TypeError(f"travel_time_periods must be a real number, got {type(travel_time_periods).__name__}")
    t = float(travel_time_periods)
    if not (math.isfinite(t) and t >= 0.5):
        raise ValueError(f"travel_time_periods must be finite and >= 0.5, got {t}")
    total = n * (d * t + d + clique * d * (t - 0.5))
    annular = round(total / (clique * (2 * d - 1)))
    cmh_exact = total / (clique * d)
    nearest = round(cmh_exact)
    cmh = nearest if abs(cmh_exact - nearest) <= 1e-9 * max(1.0, cmh_exact) else math.floor(cmh_exact)
    return EqualCostBudget(
        density_evaluations=total,
        hmc_samples=n,
        hmc_travel_time=t * math.pi,
        annular_iterations=int(annular),
        cmh_samples=int(cmh),
        cmh_samples_exact=cmh_exact,
        cmh_proposals_per_sample=d,
        cmh_lbp_proposals=int(cmh) * d,
        single_flip_evaluations=SingleFlipEvaluations(
            exact_hmc=n * d * t,
            annular=int(annular) * (2 * d - 1),
            cmh=int(cmh) * d,
            cmh_lbp=int(cmh) * d,
        ),
    )
