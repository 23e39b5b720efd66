r"""Posterior sampling of Boltzmann-machine weights with estimated partition-function ratios (AA §3.2).

Model: a fully connected Boltzmann machine on ``y in {0, 1}^d`` with zero biases (as the paper, after
Murray & Ghahramani 2004) and weights ``w = (W_ij)_{i<j}``:

.. math::

    p(y \mid w) = \exp\big(w^\top \phi(y) - \log Z(w)\big), \qquad \phi(y) = (y_i y_j)_{i<j}.

For data ``y^(1..N)`` with statistic ``T = sum_n phi(y^(n))`` and a Gaussian prior ``N(0, sigma^2 I)``,
a random-walk Metropolis-Hastings step proposes ``w' ~ N(w, tau^2 I)`` and accepts with

.. math::

    \log a = \log p(w') - \log p(w) + (w' - w)^\top T - N \,\big[\log Z(w') - \log Z(w)\big]
    \qquad \text{(AA eq. 4)}.

``log Z(w') - log Z(w)`` is intractable in general. The *approximate* MH sampler replaces it by a Monte
Carlo estimate from samples of ``p(. | w')`` (AA eq. 5, with the sign of the exponent as the
expectation requires):

.. math::

    \frac{Z(w)}{Z(w')} = \mathbb E_{p(\cdot \mid w')}\big[\exp(-(w' - w)^\top \phi(Y))\big], \qquad
    \widehat{r} = -\log \frac1F \sum_{f} \exp\big(-(w' - w)^\top \phi(y_f)\big)

(or its Rao-Blackwellised form for the annular samplers). The inner samples come from one of the
samplers of :mod:`dogs.samplers.suite` at the paper's equal-cost budget on the spin form of the model
(:func:`dogs.models.boltzmann.boltzmann_to_spin`; the quadratic form ``-(w' - w)^T phi`` has a spin form
plus a constant, added back exactly). For small ``d`` the exact ratio by enumeration
(:func:`log_partition`) runs beside it, giving the error ``|r - r_hat|`` of every step; the *exact* MH
chain uses ``r`` itself.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from dogs.models.binary import BinaryPairwiseMRF
from dogs.models.boltzmann import boltzmann_to_spin
from dogs.samplers.budget import equal_cost_budget
from dogs.samplers.suite import run_samplers

__all__ = [
    "MAX_ENUMERATION_UNITS",
    "MHChain",
    "approximate_mh",
    "log_partition",
    "pair_statistics",
    "weights_matrix",
]

_NO_EDGES = np.zeros((0, 2), dtype=np.int64)  # no pairwise tables are needed for a log partition ratio

#: :func:`log_partition` enumerates ``2^d`` states: refuse beyond this.
MAX_ENUMERATION_UNITS = 20


def pair_statistics(y) -> np.ndarray:
    """``phi(y) = (y_i y_j)_{i<j}`` of each row of ``y`` (``{0, 1}`` units), upper-triangle order."""
    y = np.asarray(y, dtype=np.float64)
    i, j = np.triu_indices(y.shape[-1], k=1)
    return y[..., i] * y[..., j]


def weights_matrix(w, d: int) -> np.ndarray:
    """The symmetric ``(d, d)`` matrix of the upper-triangle weights ``w`` (zero diagonal)."""
    matrix = np.zeros((d, d))
    i, j = np.triu_indices(d, k=1)
    matrix[i, j] = w
    return matrix + matrix.T


def log_partition(w, d: int, states: np.ndarray | None = None) -> float:
    """``log Z(w) = log sum_y exp(w^T phi(y))`` over all ``2^d`` states of ``{0, 1}^d`` (zero biases)."""
    if states is None:
        if d > MAX_ENUMERATION_UNITS:
            raise ValueError(f"log Z by enumeration needs 2^d states; d = {d} exceeds {MAX_ENUMERATION_UNITS}")
        states = pair_statistics(np.array(list(itertools.product((0.0, 1.0), repeat=d))))
    energy = states @ np.asarray(w, dtype=np.float64)
    top = energy.max()
    return float(top + np.log(np.exp(energy - top).sum()))


@dataclass(frozen=True)
class MHChain:
    """One approximate MH chain: ``weights`` (steps, m) after each step, and per step the estimated and
    (when available) exact ``log Z(w') - log Z(w)`` of the proposal, and whether it was accepted."""

    weights: np.ndarray
    estimated: np.ndarray
    exact: np.ndarray
    accepted: np.ndarray
    density_evaluations: int


class _SpinForms:
    """Spin forms of ``w -> p(. | w)`` and of ``-(w' - w)^T phi`` on one fully connected graph (built once)."""

    def __init__(self, d: int):
        self.d = d
        self.template, _ = boltzmann_to_spin(np.zeros((d, d)), np.zeros(d))
        self.rows, self.cols = np.triu_indices(d, k=1)

    def model(self, w) -> tuple[BinaryPairwiseMRF, float]:
        """The spin model of weights ``w`` (zero biases) and its log-density offset."""
        w = np.asarray(w, dtype=np.float64)
        field = (np.bincount(self.rows, w, self.d) + np.bincount(self.cols, w, self.d)) / 4.0
        return self.template.with_parameters(w / 4.0, field), float(w.sum() / 4.0)


def approximate_mh(statistic, n_data: int, *, d: int, sampler: str, initial, n_steps: int, prior_variance: float,
                   proposal_variance: float, inner_samples: int, travel_time_periods: float, seed,
                   exact_ratios: bool = True) -> MHChain:
    """One Metropolis-Hastings chain over Boltzmann weights (module docstring).

    Parameters
    ----------
    statistic : (m,) array
        ``T = sum_n phi(y^(n))`` of the data, ``m = d (d - 1) / 2``.
    n_data : int
        ``N``.
    d : int
    sampler : str
        ``"exact"`` (the ratio by enumeration) or an inner sampler of :data:`dogs.samplers.suite.AA_SAMPLERS`.
    initial : (m,) array
        Starting weights.
    n_steps : int
        Outer MH steps.
    prior_variance, proposal_variance : float
        ``sigma^2`` and ``tau^2``.
    inner_samples : int
        ``F``: the inner budget, the cost of ``F`` exact-HMC samples (:func:`~dogs.samplers.equal_cost_budget`).
    travel_time_periods : float
        Exact HMC's travel time in units of ``pi`` (AA: 1.5 for the Boltzmann machines).
    seed : numpy.random.SeedSequence
    exact_ratios : bool
        Compute the exact ratio of every proposal (``2^d`` states; needed for ``sampler="exact"``).
    """
    statistic = np.asarray(statistic, dtype=np.float64)
    m = d * (d - 1) // 2
    if statistic.shape != (m,):
        raise ValueError(f"statistic must have shape ({m},) for d = {d}, got {statistic.shape}")
    if sampler == "exact" and not exact_ratios:
        raise ValueError("the exact chain needs exact_ratios=True")
    states = pair_statistics(np.array(list(itertools.product((0.0, 1.0), repeat=d)))) if exact_ratios else None
    forms = _SpinForms(d)
    budget = equal_cost_budget(d, travel_time_periods=travel_time_periods, n_hmc_samples=inner_samples, clique_size=d - 1)
    rng = np.random.default_rng(seed)
    inner_seeds = np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, 1)).spawn(n_steps)
    w = np.array(initial, dtype=np.float64)
    log_z = log_partition(w, d, states) if exact_ratios else np.nan
    spins = np.where(rng.random(d) < 0.5, 1, -1).astype(np.int8)  # the inner chains' persistent state
    weights = np.empty((n_steps, m))
    estimated = np.full(n_steps, np.nan)
    exact = np.full(n_steps, np.nan)
    accepted = np.zeros(n_steps, dtype=bool)
    evaluations = 0
    for step in range(n_steps):
        proposal = w + np.sqrt(proposal_variance) * rng.standard_normal(m)
        move = proposal - w
        if exact_ratios:
            log_z_new = log_partition(proposal, d, states)
            exact[step] = log_z_new - log_z
        if sampler == "exact":
            ratio = exact[step]
        else:
            model, _ = forms.model(proposal)
            delta, offset = forms.model(-move)  # q(y) = -(w' - w)^T phi(y) = delta(s) + offset
            result = run_samplers(model, budget, names=[sampler], seed=inner_seeds[step], initial_state=spins,
                                  delta=delta, edges=_NO_EDGES)[sampler]
            spins = result["state"]
            ratio = -(result["log_ratio"] + offset)  # log Z(w') - log Z(w) = -log E_{w'}[exp q]
            evaluations += result["density_evaluations"]
        estimated[step] = ratio
        log_accept = (-(proposal @ proposal - w @ w) / (2.0 * prior_variance) + move @ statistic - n_data * ratio)
        if np.log(rng.random()) < log_accept:
            w = proposal
            accepted[step] = True
            if exact_ratios:
                log_z = log_z_new
        weights[step] = w
    return MHChain(weights, estimated, exact, accepted, evaluations)
