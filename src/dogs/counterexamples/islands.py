r"""The two-islands model of He, De Sa, Mitliagkas & Ré (2016) analysed: island masses, bridge efficiency, reduced chain.

Two islands (§3.2, eq. (3); built by :func:`dogs.counterexamples.models.two_islands`) has ``2n``
binary variables :math:`x_1..x_n, y_1..y_n`; island x (some :math:`x_i` true), island y (some
:math:`y_j` true) and the bridge (all false) between them. Here:

- :func:`island_masses` lumps distributions over the model into (island x, bridge, island y);
- :func:`island_mass_curves` is Fig. 2b: the mass on island y over single-variable updates,
  started from :math:`\pi` conditioned on island x, for random scan and the best and worst
  systematic scans;
- :func:`bridge_efficiency` is §3.2 / App. C: the probability that the chain, having just stepped
  onto the bridge, leaves it to the other island (:func:`bridge_efficiencies`: the three scans);
- :class:`ReducedTwoIslands` is the reduced chain of §4 (Fig. 2a: "islands mix instantly"), and
  :func:`reduced_mixing_rows` its exact mixing times over ``n`` and bridge weights.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np
import pandas as pd

from dogs.counterexamples.mixing import NAMED, SCANS
from dogs.counterexamples.models import ScanOrderModel, check_n, check_positive
from dogs.exact.chains import evolve, mixing_time

__all__ = [
    "REDUCED_MIN_PROBABILITY",
    "ReducedTwoIslands",
    "island_masses",
    "island_mass_curves",
    "reduced_two_islands",
    "reduced_mixing_rows",
    "bridge_efficiency",
    "bridge_efficiencies",
]

#: Smallest one-step probability kept in the reduced two-islands chain: 1 - p then keeps >= 6 digits of p.
REDUCED_MIN_PROBABILITY = 1e-10


def _require_two_islands(model: ScanOrderModel) -> None:
    if model.name != "two_islands":
        raise ValueError(f"model must be two_islands, got {model.name}")


def island_masses(model: ScanOrderModel, distributions) -> np.ndarray:
    """Mass on island x, the bridge and island y of distributions over a two-islands model: (..., 3)."""
    _require_two_islands(model)
    n = model.n
    on_x = model.states[:, :n].sum(axis=1) > 0
    on_y = model.states[:, n:].sum(axis=1) > 0
    d = np.asarray(distributions)
    return np.stack([d[..., on_x].sum(-1), d[..., ~(on_x | on_y)].sum(-1), d[..., on_y].sum(-1)], axis=-1)


def island_mass_curves(model: ScanOrderModel, updates: int) -> pd.DataFrame:
    r"""Fig. 2b of He et al. (2016): mass on island y over updates, started from :math:`\pi` conditioned on island x.

    Random scan, the best systematic scan :math:`x_1, y_1, x_2, y_2, \dots` and the worst
    :math:`x_1..x_n, y_1..y_n` (the model's ``named_orders``); the paper uses bridge weight 0.1 (§4).

    Returns
    -------
    pandas.DataFrame
        One row per scan and update ``0..updates``: ``scan, update, mass_island_x, mass_bridge,
        mass_island_y, stationary_island_y, n, bridge_weight, order``.
    """
    _require_two_islands(model)
    if isinstance(updates, bool) or not isinstance(updates, (int, np.integer)) or updates < 1:
        raise ValueError(f"updates must be a positive integer, got {updates!r}")
    n = model.n
    kernels, pi = model.kernels(), model.stationary()
    on_x = model.states[:, :n].sum(axis=1) > 0
    start = np.where(on_x, pi, 0.0)
    start /= start.sum()
    stationary_y = float(island_masses(model, pi)[2])
    frames = []
    for scan in SCANS:
        if scan == "random":
            indices = np.full(updates, -1, dtype=np.int64)
        else:
            order = model.named_orders[scan]
            indices = np.resize(order, updates)
        path = evolve(start, kernels, indices, return_path=True)
        masses = island_masses(model, path)
        frames.append(pd.DataFrame({
            "scan": scan, "update": np.arange(updates + 1), "mass_island_x": masses[:, 0],
            "mass_bridge": masses[:, 1], "mass_island_y": masses[:, 2], "stationary_island_y": stationary_y,
            "n": n, "bridge_weight": model.parameters["bridge_weight"],
            "order": "random scan" if scan == "random" else model.order_names(model.named_orders[scan]),
        }))
    return pd.concat(frames, ignore_index=True)


@dataclass(frozen=True, eq=False)
class ReducedTwoIslands:
    r"""The reduced two-islands chain of §4 (Fig. 2a): islands mix instantly, only bridge-adjacent states matter.

    Three lumped states: ``0`` = island x, ``1`` = bridge :math:`b`, ``2`` = island y. "Islands
    mix instantly" (paper, §4): whenever the chain is on an island, its position is distributed as
    :math:`\pi` conditioned on that island, independently of the past. From island x only the
    states adjacent to the bridge can reach it: :math:`e_i` (only :math:`x_i` true) each has
    conditional mass :math:`1/(2^n - 1)`, and updating :math:`x_i` there moves onto the bridge
    with probability :math:`w_b/(1 + w_b)`. Hence the site kernel of :math:`x_i` is

    .. math::

        P_{x_i}(x, b) = \frac{1}{2^n - 1}\,\frac{w_b}{1 + w_b}, \quad
        P_{x_i}(b, x) = \frac{1}{1 + w_b}, \quad P_{x_i}(b, b) = \frac{w_b}{1 + w_b}, \quad
        P_{x_i}(y, y) = 1,

    (remaining mass on the diagonal), and symmetrically for :math:`y_i`. It leaves
    :math:`\pi = (2^n - 1, w_b, 2^n - 1)/Z` invariant: the lumped stationary distribution of
    the full model. Mixing times are measured in this lumped space. Variables are ordered
    :math:`x_1..x_n, y_1..y_n` as in :func:`~dogs.counterexamples.models.two_islands`.
    """

    n: int
    bridge_weight: float
    kernels: tuple
    stationary: np.ndarray
    named_orders: Mapping


def reduced_two_islands(n: int, bridge_weight: float = 1.0) -> ReducedTwoIslands:
    """Build :class:`ReducedTwoIslands` for ``n`` variables per island."""
    n = check_n("two_islands", n)
    w_b = check_positive(bridge_weight, "bridge_weight")
    stay_on_bridge = w_b / (1.0 + w_b)
    to_bridge = stay_on_bridge / (2.0**n - 1.0)
    kernel_x = np.array([[1 - to_bridge, to_bridge, 0.0], [1 - stay_on_bridge, stay_on_bridge, 0.0], [0.0, 0.0, 1.0]])
    kernel_y = kernel_x[::-1, ::-1].copy()
    island = 2.0**n - 1.0
    pi = np.array([island, w_b, island]) / (2 * island + w_b)
    best = np.ravel(np.column_stack([np.arange(n), n + np.arange(n)]))
    return ReducedTwoIslands(
        n=n, bridge_weight=w_b, kernels=tuple([kernel_x] * n + [kernel_y] * n), stationary=pi,
        named_orders={"best_systematic": best, "worst_systematic": np.arange(2 * n)},
    )



def reduced_mixing_rows(n_values, bridge_weights, epsilon: float, *,
                        progress: Callable[[str], None] | None = None) -> list[dict]:
    """Exact mixing times of :class:`ReducedTwoIslands` for every bridge weight and ``n``.

    Random scan and the paper's named best and worst orders (§3.2, §4). Sizes whose
    island-to-bridge probability falls below :data:`REDUCED_MIN_PROBABILITY` are skipped (and
    reported to ``progress``): double precision would no longer resolve ``1 - p``.

    Returns
    -------
    list of dict
        Rows ``model ("two_islands_reduced"), n, bridge_weight, scan, t_mix, order_source``.
    """
    report = progress or (lambda message: None)
    rows = []
    for weight in bridge_weights:
        for n in n_values:
            chain = reduced_two_islands(n, weight)
            to_bridge = chain.kernels[0][0, 1]
            if to_bridge < REDUCED_MIN_PROBABILITY:
                report(f"reduced two islands, bridge weight {weight}: n={n} skipped, P(island -> bridge) = {to_bridge:.1e} "
                       f"< {REDUCED_MIN_PROBABILITY:g} would lose digits in 1 - P")
                continue
            for scan in SCANS:
                order = "random" if scan == "random" else chain.named_orders[scan]
                t = mixing_time(list(chain.kernels), chain.stationary, order, epsilon=epsilon, max_updates=10**16)
                rows.append({"model": "two_islands_reduced", "n": n, "bridge_weight": weight, "scan": scan,
                             "t_mix": int(t), "order_source": "random scan" if scan == "random" else NAMED})
        report(f"reduced two islands, bridge weight {weight}: n = {list(n_values)} done")
    return rows


def bridge_efficiency(model: ScanOrderModel, scan="random", *, tol: float = 1e-15) -> float:
    r"""Bridge efficiency (§3.2): probability that the chain, having just stepped onto the bridge, leaves it to the other island.

    Computed from the model's own site kernels: arrivals on the bridge through each
    variable are weighted by their stationary flow :math:`\sum_x \pi(x) P_v(x, b)`; from the
    bridge, the scan continues (the next variable in the sweep, or a uniformly random one)
    until the chain leaves the bridge, and the probability that it leaves to the island it did
    not come from is accumulated (the sum is cut when less than ``tol`` of the mass is left).
    Paper: random 1/2; best :math:`x_1, y_1, \dots` 1 and worst :math:`x_1..x_n, y_1..y_n`
    :math:`1/n` with negligible bridge mass; 2/3 and :math:`\approx 2/n` with bridge mass equal
    to the other states (App. C).
    """
    _require_two_islands(model)
    n = model.n
    kernels, pi = model.kernels(), model.stationary()
    bridge = int(model.index_of(np.zeros(2 * n, dtype=np.int64))[0])
    on_x = model.states[:, :n].sum(axis=1) > 0
    on_y = model.states[:, n:].sum(axis=1) > 0
    stay = np.array([kernels[v][bridge, bridge] for v in range(2 * n)])
    to_x = np.array([kernels[v][[bridge], :].toarray().ravel()[on_x].sum() for v in range(2 * n)])
    to_y = np.array([kernels[v][[bridge], :].toarray().ravel()[on_y].sum() for v in range(2 * n)])
    # stationary flow onto the bridge through variable v, from island x and from island y
    into_from_x = np.array([pi[on_x] @ kernels[v][:, [bridge]].toarray().ravel()[on_x] for v in range(2 * n)])
    into_from_y = np.array([pi[on_y] @ kernels[v][:, [bridge]].toarray().ravel()[on_y] for v in range(2 * n)])
    if isinstance(scan, str):
        if scan != "random":
            raise ValueError(f"scan must be 'random' or a permutation, got scan={scan!r}")
        leave = 1.0 - stay.mean()
        p_to_y, p_to_x = to_y.mean() / leave, to_x.mean() / leave
        total = into_from_x.sum() + into_from_y.sum()
        return float((into_from_x.sum() * p_to_y + into_from_y.sum() * p_to_x) / total)
    order = np.asarray(scan, dtype=np.int64)
    if sorted(order.tolist()) != list(range(2 * n)):
        raise ValueError(f"scan must be a permutation of the {2 * n} variables")
    length = order.size
    numerator = denominator = 0.0
    for r, v in enumerate(order):
        remaining, cross_x, cross_y = 1.0, 0.0, 0.0
        k = 1
        while remaining > tol:
            u = order[(r + k) % length]
            cross_x += remaining * to_x[u]
            cross_y += remaining * to_y[u]
            remaining *= stay[u]
            k += 1
            if k > 10**7:
                raise RuntimeError("bridge_efficiency: the chain does not leave the bridge")
        numerator += into_from_x[v] * cross_y + into_from_y[v] * cross_x
        denominator += into_from_x[v] + into_from_y[v]
    return float(numerator / denominator)


def bridge_efficiencies(model: ScanOrderModel) -> dict:
    """:func:`bridge_efficiency` of random scan and of the paper's best and worst systematic scans: ``{scan: value}``."""
    return {scan: bridge_efficiency(model, "random" if scan == "random" else model.named_orders[scan]) for scan in SCANS}
