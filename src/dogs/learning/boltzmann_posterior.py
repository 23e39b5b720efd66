r"""Posterior sampling of Boltzmann-machine weights with estimated partition-function ratios (AA §3.2).

Model: a fully connected Boltzmann machine with zero biases (as the paper, after Murray & Ghahramani 2004)
and weights ``w = (W_ij)_{i<j}``, in one of two forms:

``zero_one`` (the paper's §3.2 text: units ``y in {0, 1}^d``)
    ``p(y | w) = exp(w^T phi(y) - log Z(w))``, ``phi(y) = (y_i y_j)_{i<j}``;
``spin`` (the authors' code: units ``s in {-1, +1}^d``, zero field)
    ``p(s | w) = exp(w^T phi(s) - log Z(w))``, ``phi(s) = (s_i s_j)_{i<j}``.

The two are different models (the {0, 1} form has the spin couplings ``w / 4`` plus fields ``sum_j w_ij / 4``;
the spin form has couplings ``w`` and no field, a symmetric, bimodal target), so the same ``w`` means different
things; the data statistic is computed in the chosen form (:func:`form_statistic`). (The authors' code mixes them: its
data term uses {0, 1} rows and its partition function ±1 states with the opposite sign; we run either consistent form.)

For data with statistic ``T = sum_n phi(x^(n))`` and a Gaussian prior ``N(mu, sigma^2 I)``, a random-walk
Metropolis-Hastings step proposes ``w' ~ N(w, tau^2 I)`` and accepts with

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
samplers of :mod:`dogs.samplers.suite` at the paper's equal-cost budget, run by
:class:`dogs.samplers.log_ratio.LogRatioEstimator` (the numbers of :func:`~dogs.samplers.suite.run_samplers`, checked
once per chain instead of at every step) on the spin form of the model
(:func:`dogs.models.boltzmann.boltzmann_to_spin` for the {0, 1} form; the quadratic form ``-(w' - w)^T phi`` has a
spin form plus a constant, added back exactly). Each inner run starts either from a fresh uniformly random sign
vector (``inner_start="restart"``, the authors' code) or from the previous inner run's final state
(``"persistent"``); there is no burn-in in either case. For small ``d`` the exact ratio by enumeration
(:func:`log_partition`) runs beside it, giving the error ``|r - r_hat|`` of every step; the *exact* MH chain uses
``r`` itself.

Diagnostic of the authors' code (never a default): their CMH estimate sums ``L = F_eval / (c d)`` inner samples but
divides by ``F`` (``InnerMCMC.m`` with ``CMH.m``), which adds ``log(L / F)`` to every estimate of
``log Z(w) - log Z(w')``; ``ratio_offset = -log(L / F)`` (:func:`authors_cmh_offset`) reproduces it.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

import numpy as np

from dogs.models.binary import BinaryPairwiseMRF
from dogs.models.boltzmann import boltzmann_to_spin, spin_to_zero_one
from dogs.samplers.budget import equal_cost_budget
from dogs.samplers.exact_hmc import exact_hmc
from dogs.samplers.log_ratio import LOG_RATIO_SAMPLERS, LogRatioEstimator

__all__ = [
    "FORMS",
    "INNER_STARTS",
    "MAX_ENUMERATION_UNITS",
    "MHChain",
    "approximate_mh",
    "MAX_SPLIT_ENUMERATION_UNITS",
    "authors_cmh_offset",
    "estimate_log_ratios",
    "form_statistic",
    "log_partition",
    "log_partition_split",
    "pair_statistics",
    "synthetic_data",
    "weights_matrix",
]

#: The two forms of the Boltzmann machine (module docstring) and the two starts of the inner runs.
FORMS = ("zero_one", "spin")
INNER_STARTS = ("restart", "persistent")

#: :func:`log_partition` enumerates ``2^d`` states: refuse beyond this.
MAX_ENUMERATION_UNITS = 20
#: :func:`log_partition_split` enumerates ``2^d`` states in two halves without storing them: refuse beyond this.
MAX_SPLIT_ENUMERATION_UNITS = 28


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


def form_statistic(y, form: str = "zero_one") -> np.ndarray:
    """``sum_n phi(x^(n))`` of {0, 1} data rows ``y`` in the model's form: ``x = y`` (``zero_one``) or ``x = 2y - 1``
    (``spin``)."""
    _check_form(form)
    y = np.asarray(y, dtype=np.float64)
    return pair_statistics(y if form == "zero_one" else 2.0 * y - 1.0).sum(axis=0)


@functools.lru_cache(maxsize=1)
def _all_statistics(d: int, form: str) -> np.ndarray:
    """``phi`` of all ``2^d`` states (read-only; the last ``(d, form)``'s is kept, for the next chain: one array of
    ``2^d d (d - 1) / 2`` floats is held, as a chain needs it anyway)."""
    if d > MAX_ENUMERATION_UNITS:
        raise ValueError(f"log Z by enumeration needs 2^d states; d = {d} exceeds {MAX_ENUMERATION_UNITS}")
    values = (0.0, 1.0) if form == "zero_one" else (-1.0, 1.0)
    states = pair_statistics(np.array(list(itertools.product(values, repeat=d))))
    states.flags.writeable = False
    return states


def log_partition(w, d: int, states: np.ndarray | None = None, form: str = "zero_one") -> float:
    """``log Z(w) = log sum_x exp(w^T phi(x))`` over all ``2^d`` states of ``{0, 1}^d`` (``form="zero_one"``) or
    ``{-1, +1}^d`` (``"spin"``), zero biases; ``states``: the precomputed ``phi`` of every state."""
    if states is None:
        _check_form(form)
        states = _all_statistics(d, form)
    energy = states @ np.asarray(w, dtype=np.float64)
    top = energy.max()
    return float(top + np.log(np.exp(energy - top).sum()))


def log_partition_split(w, d: int, form: str = "zero_one", rows: int = 256) -> float:
    """:func:`log_partition` for larger ``d`` (up to :data:`MAX_SPLIT_ENUMERATION_UNITS`; about a second at d = 25).

    The state is split in halves ``x = (a, b)``; with the symmetric weight matrix ``M`` the energy is
    ``a^T M_aa a / 2 + b^T M_bb b / 2 + a^T M_ab b``, computed ``rows`` values of ``a`` at a time against every ``b``
    and summed by a running log-sum-exp, so at most ``rows 2^(d - d/2)`` energies are held."""
    _check_form(form)
    if not 2 <= d <= MAX_SPLIT_ENUMERATION_UNITS:
        raise ValueError(f"d must be between 2 and {MAX_SPLIT_ENUMERATION_UNITS}, got {d}")
    matrix = weights_matrix(np.asarray(w, dtype=np.float64), d)
    values = (0.0, 1.0) if form == "zero_one" else (-1.0, 1.0)
    h = d // 2
    a = np.array(list(itertools.product(values, repeat=h)))
    b = np.array(list(itertools.product(values, repeat=d - h)))
    energy_a = 0.5 * np.einsum("ni,ij,nj->n", a, matrix[:h, :h], a)
    energy_b = 0.5 * np.einsum("ni,ij,nj->n", b, matrix[h:, h:], b)
    coupling = a @ matrix[:h, h:]
    top, total = -np.inf, 0.0
    for start in range(0, len(a), rows):
        energy = energy_a[start:start + rows, None] + energy_b[None, :] + coupling[start:start + rows] @ b.T
        block_top = float(energy.max())
        if block_top > top:
            total, top = total * np.exp(top - block_top), block_top
        total += float(np.exp(energy - top).sum())
    return float(top + np.log(total))


def authors_cmh_offset(d: int, inner_samples: int, travel_time_periods: float) -> float:
    """``-log(L / F)``: the shift of the authors' CMH estimate of ``log Z(w') - log Z(w)`` (module docstring).

    ``L`` is the number of CMH samples of the equal-cost budget (:func:`~dogs.samplers.equal_cost_budget`, clique
    ``d - 1``), ``F = inner_samples``: ``log 1.5`` for the heart data (d = 6), ``log 1.278`` for d = 10.
    """
    budget = equal_cost_budget(d, travel_time_periods=travel_time_periods, n_hmc_samples=inner_samples,
                               clique_size=d - 1)
    return -float(np.log(budget.cmh_samples_exact / inner_samples))


def _check_form(form) -> None:
    if form not in FORMS:
        raise ValueError(f"model form must be one of {FORMS}, got {form!r}")


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
    """Spin forms of ``w -> p(. | w)`` and of ``-(w' - w)^T phi`` on one fully connected graph (built once per
    ``(d, form)``: :func:`_spin_forms`)."""

    def __init__(self, d: int, form: str = "zero_one"):
        _check_form(form)
        self.d, self.form = d, form
        self.template, _ = boltzmann_to_spin(np.zeros((d, d)), np.zeros(d))
        self.rows, self.cols = np.triu_indices(d, k=1)
        self.rows.flags.writeable = self.cols.flags.writeable = False

    def model(self, w) -> tuple[BinaryPairwiseMRF, float]:
        """The spin model of weights ``w`` (zero biases) and its log-density offset (0 in the spin form)."""
        w = np.asarray(w, dtype=np.float64)
        if self.form == "spin":
            return self.template.with_parameters(w, np.zeros(self.d)), 0.0
        field = (np.bincount(self.rows, w, self.d) + np.bincount(self.cols, w, self.d)) / 4.0
        return self.template.with_parameters(w / 4.0, field), float(w.sum() / 4.0)


@functools.lru_cache(maxsize=8)
def _spin_forms(d: int, form: str) -> _SpinForms:
    """The :class:`_SpinForms` of ``(d, form)``, shared by every chain (its arrays are read-only)."""
    return _SpinForms(d, form)


def approximate_mh(statistic, n_data: int, *, d: int, sampler: str, initial, n_steps: int, prior_variance: float,
                   proposal_variance: float, inner_samples: int, travel_time_periods: float, seed,
                   exact_ratios: bool = True, prior_mean=None, inner_start: str = "persistent",
                   model_form: str = "zero_one", ratio_offset: float = 0.0) -> MHChain:
    """One Metropolis-Hastings chain over Boltzmann weights (module docstring).

    Parameters
    ----------
    statistic : (m,) array
        ``T = sum_n phi(x^(n))`` of the data in the model's form (:func:`form_statistic`), ``m = d (d - 1) / 2``.
    n_data : int
        ``N``.
    d : int
    sampler : str
        ``"exact"`` (the ratio by enumeration) or an inner sampler of :data:`dogs.samplers.log_ratio.LOG_RATIO_SAMPLERS`.
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
    prior_mean : (m,) array, optional
        ``mu`` of the prior (default 0; the authors centred it on the true weights for their synthetic data).
    inner_start : {"persistent", "restart"}
        Where each inner run starts: the previous run's final state, or a fresh uniformly random sign vector.
    model_form : {"zero_one", "spin"}
        The form of the Boltzmann machine (module docstring); ``statistic`` must be in the same form.
    ratio_offset : float
        Added to every estimated ``log Z(w') - log Z(w)``: 0 for a correct estimate; a diagnostic of the authors'
        code otherwise (:func:`authors_cmh_offset`). Ignored by the exact chain.
    """
    statistic = np.asarray(statistic, dtype=np.float64)
    m = d * (d - 1) // 2
    if statistic.shape != (m,):
        raise ValueError(f"statistic must have shape ({m},) for d = {d}, got {statistic.shape}")
    if isinstance(n_steps, (bool, np.bool_)) or not isinstance(n_steps, (int, np.integer)) or n_steps < 1:
        raise ValueError(f"n_steps must be a positive integer, got {n_steps!r}")
    if sampler == "exact" and not exact_ratios:
        raise ValueError("the exact chain needs exact_ratios=True")
    if sampler != "exact" and sampler not in LOG_RATIO_SAMPLERS:
        raise ValueError(f"sampler must be 'exact' or one of {LOG_RATIO_SAMPLERS}, got {sampler!r}")
    if inner_start not in INNER_STARTS:
        raise ValueError(f"inner_start must be one of {INNER_STARTS}, got {inner_start!r}")
    _check_form(model_form)
    mean = np.zeros(m) if prior_mean is None else np.asarray(prior_mean, dtype=np.float64)
    if mean.shape != (m,) or not np.all(np.isfinite(mean)):
        raise ValueError(f"prior_mean must be {m} finite numbers, got shape {mean.shape}")
    if not np.isfinite(ratio_offset):
        raise ValueError(f"ratio_offset must be finite, got {ratio_offset}")
    states = _all_statistics(d, model_form) if exact_ratios else None
    forms = _spin_forms(d, model_form)
    budget = equal_cost_budget(d, travel_time_periods=travel_time_periods, n_hmc_samples=inner_samples, clique_size=d - 1)
    inner = None if sampler == "exact" else LogRatioEstimator(forms.template, budget, sampler)
    rng = np.random.default_rng(seed)
    if inner is not None:  # run k's seed: child k of the chain seed's child 1
        inner_parent = np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, 1))
        inner_seeds = inner.kernel_seeds(inner_parent, n_steps)
    w = np.array(initial, dtype=np.float64)
    log_z = log_partition(w, d, states) if exact_ratios else np.nan
    spins = np.where(rng.random(d) < 0.5, 1, -1).astype(np.int8)  # the inner chains' start
    weights = np.empty((n_steps, m))
    estimated = np.full(n_steps, np.nan)
    exact = np.full(n_steps, np.nan)
    accepted = np.zeros(n_steps, dtype=bool)
    evaluations = 0
    scale = np.sqrt(proposal_variance)
    prior_distance = (w - mean) @ (w - mean)  # of the current weights, kept with them
    for step in range(n_steps):
        proposal = w + scale * rng.standard_normal(m)
        move = proposal - w
        if exact_ratios:
            log_z_new = log_partition(proposal, d, states)
            exact[step] = log_z_new - log_z
        if sampler == "exact":
            ratio = exact[step]
        else:
            if inner_start == "restart" and step > 0:
                spins = np.where(rng.random(d) < 0.5, 1, -1).astype(np.int8)
            ratio, spins, inner_evaluations = _estimated_ratio(inner, forms, proposal, move, inner_seeds[step], spins)
            ratio = ratio + ratio_offset
            evaluations += inner_evaluations
        estimated[step] = ratio
        proposal_distance = (proposal - mean) @ (proposal - mean)
        log_accept = (-(proposal_distance - prior_distance) / (2.0 * prior_variance)
                      + move @ statistic - n_data * ratio)
        if np.log(rng.random()) < log_accept:
            w, prior_distance = proposal, proposal_distance
            accepted[step] = True
            if exact_ratios:
                log_z = log_z_new
        weights[step] = w
    return MHChain(weights, estimated, exact, accepted, evaluations)


def _estimated_ratio(inner: LogRatioEstimator, forms: _SpinForms, proposal, move, seed, spins):
    """``(estimate of log Z(w') - log Z(w), final inner state, density evaluations)`` of one inner run on ``p(. | w')``
    from ``spins``, with ``move = w' - w``."""
    model, _ = forms.model(proposal)
    delta, offset = forms.model(-move)  # q(y) = -(w' - w)^T phi(y) = delta(s) + offset
    log_ratio, spins, evaluations = inner.estimate(model, delta, seed, spins)
    return -(log_ratio + offset), spins, evaluations  # log Z(w') - log Z(w) = -log E_{w'}[exp q]


def estimate_log_ratios(weights, proposals, *, d: int, sampler: str, inner_samples: int, travel_time_periods: float,
                        seed: np.random.SeedSequence, model_form: str = "zero_one") -> np.ndarray:
    """The inner sampler's estimates of ``log Z(w'_k) - log Z(w_k)`` for the rows ``w_k`` of ``weights`` and ``w'_k`` of
    ``proposals``, as :func:`approximate_mh` makes them (budget ``inner_samples``, each inner run from uniformly random
    signs: ``inner_start="restart"``); run ``k`` from its own child of ``seed``."""
    weights, proposals = np.atleast_2d(weights).astype(np.float64), np.atleast_2d(proposals).astype(np.float64)
    m = d * (d - 1) // 2
    if weights.shape != proposals.shape or weights.shape[1] != m:
        raise ValueError(f"weights and proposals must both have shape (n, {m}), got {weights.shape}, {proposals.shape}")
    if sampler not in LOG_RATIO_SAMPLERS:
        raise ValueError(f"sampler must be one of {LOG_RATIO_SAMPLERS}, got {sampler!r}")
    forms = _spin_forms(d, model_form)
    budget = equal_cost_budget(d, travel_time_periods=travel_time_periods, n_hmc_samples=inner_samples, clique_size=d - 1)
    inner = LogRatioEstimator(forms.template, budget, sampler)
    starts, runs = seed.spawn(2)
    rng = np.random.default_rng(starts)
    seeds = inner.kernel_seeds(runs, len(weights))
    out = np.empty(len(weights))
    for k, (w, proposal) in enumerate(zip(weights, proposals)):
        spins = np.where(rng.random(d) < 0.5, 1, -1).astype(np.int8)
        out[k] = _estimated_ratio(inner, forms, proposal, proposal - w, seeds[k], spins)[0]
    return out


def synthetic_data(units: int, points: int, bias_range: float, sweeps: int | None, seed: np.random.SeedSequence,
                   form: str = "zero_one"):
    """``(y, W_true, b_true)``: ``W_ij ~ N(0, 1)``, ``b_i ~ U[-bias_range, bias_range]``, ``points`` {0, 1} rows.

    The data come from ``exp(sum_{i<j} W_ij x_i x_j + sum_i b_i x_i)`` with ``x = y`` (``form="zero_one"``) or
    ``x = 2y - 1`` (``"spin"``). Exact draws by enumeration when ``2^units`` states can be listed; otherwise the final
    states of ``points`` independent exact-HMC chains of ``sweeps`` trajectories (travel time ``1.5 pi``) from uniform
    random starts.
    """
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.standard_normal((units, units)), 1)
    weights = upper + upper.T
    bias = rng.uniform(-bias_range, bias_range, units)
    if units <= MAX_ENUMERATION_UNITS:
        states = np.array(list(itertools.product((0, 1), repeat=units)), dtype=np.int8)
        x = states if form == "zero_one" else 2 * states - 1
        energy = pair_statistics(x) @ upper[np.triu_indices(units, 1)] + x @ bias
        probabilities = np.exp(energy - energy.max())
        probabilities /= probabilities.sum()
        y = states[rng.choice(len(states), size=points, p=probabilities)]
    else:
        model = boltzmann_to_spin(weights, bias)[0] if form == "zero_one" else BinaryPairwiseMRF.dense(weights, bias)
        starts = np.where(rng.random((points, units)) < 0.5, 1, -1)
        children = np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, 1)).spawn(points)
        y = np.stack([spin_to_zero_one(exact_hmc(model, n_samples=sweeps, travel_time=1.5 * np.pi, seed=children[n],
                                                 initial_state=starts[n], edges=np.zeros((0, 2), dtype=np.int64)).state)
                      for n in range(points)])
    return y.astype(np.int8), weights, bias
