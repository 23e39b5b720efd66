r"""Coordinate Metropolis-Hastings (CMH) for binary pairwise MRFs, plain and with an LBP-guided proposal.

These are baselines of the annular-augmentation paper (Fagan, Bhandari & Cunningham 2017, §3 and
appendix A.3). Target: :class:`~dogs.models.BinaryPairwiseMRF`,
``p(s) ∝ exp(sum_{i<j} theta_ij s_i s_j + sum_i h_i s_i)`` on ``s in {-1, +1}^d``, with the
single-flip log-density difference

.. math::

    \Delta_i(s) = \log p(s^{(i)}) - \log p(s) = -2 s_i \Big(h_i + \sum_{k \in N(i)} \theta_{ik} s_k\Big).

**CMH** (:func:`coordinate_metropolis`): pick ``i`` uniformly, propose ``s^{(i)}``, accept with
probability ``min(1, exp Delta_i)``. The proposal is symmetric, so this is Metropolis-Hastings
with target ``p``.

**CMH + LBP** (:func:`coordinate_metropolis_lbp`, appendix A.3): given a factorised approximation
``q(s) = prod_j q_j(s_j)`` (loopy BP marginals in the paper), each step picks ``i`` uniformly and
proposes the flip with probability ``q_i(-s_i)`` (otherwise it holds). The probability of proposing
``s -> s^{(i)}`` is ``q_i(-s_i) / d`` and of the reverse move ``q_i(s_i) / d``, so the MH acceptance is

.. math::

    \min\Big(1, e^{\Delta_i(s)} \frac{q_i(s_i)}{q_i(-s_i)}\Big)
    = \min\Big(1, \exp\big(\Delta_i(s) + s_i \operatorname{logit} q_i(+1)\big)\Big).

Near a mode where the ``q_i(-s_i)`` are small most steps hold. The discrete-event form (the paper's
device, and the default here) skips them: while the state is ``s`` each step proposes *some* flip
with probability ``alpha(s) = (1/d) sum_j q_j(-s_j)``, independently of the other steps, and the
proposed site is ``j`` with probability ``q_j(-s_j) / sum_k q_k(-s_k)``. So the number of steps to
the next proposal is geometric on ``{1, 2, ...}`` with success probability ``alpha(s)``; after a
rejected proposal the state, hence ``alpha``, is unchanged, and by memorylessness a fresh geometric
from that step is again exact. The discrete-event chain therefore has exactly the law of the
step-by-step chain on the same step axis, including the states recorded every
``proposals_per_sample`` steps; it only computes the proposed flips (tested against the step-by-step
form, ``discrete_event=False``). The exact in-kernel rules are in :mod:`dogs._kernels.metropolis`.

Work (:mod:`dogs.samplers.base`): CMH does one site update and one density evaluation per proposal.
CMH + LBP counts, in either form, one site update per step of the step-by-step chain (holds included)
and one density evaluation per *proposed flip* (the holds need none), so the two forms report the same
work in law. Its run length is either a number of steps (``n_samples`` recorded states) or, as in the
authors' code, a number of proposed flips (``n_proposals``: the equal-cost budget is then spent
exactly; near a mode the steps between proposals, and the recorded states, can be many times more).

Estimates are plain averages over the recorded states (:func:`~dogs.samplers.binary.empirical_node_marginals`,
:func:`~dogs.samplers.binary.empirical_edge_tables`, :func:`~dogs.samplers.binary.log_mean_exp_quadratic`).
The initial state is not among the recorded states.

Two layers
----------
Each sampler is also available as a checked preparation and a run (:mod:`dogs.samplers`):
:func:`prepare_cmh` checks the model, the start and the recording interval once and returns a frozen
:class:`PreparedCMH`; :func:`run_cmh` runs ``n`` recorded states of it from a seed and returns the chain
(:class:`~dogs.samplers.binary.BinaryChain`) and its :class:`~dogs.samplers.base.Work`. Likewise
:func:`prepare_cmh_lbp` / :func:`run_cmh_lbp` (:class:`PreparedCMHLBP`). :func:`coordinate_metropolis` is
``plain_result(run_cmh(prepare_cmh(...), seed, n_samples))`` with the estimates of
:func:`~dogs.samplers.binary.plain_result`, and so for :func:`coordinate_metropolis_lbp`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dogs._kernels.metropolis import cmh_chain, cmh_lbp_events, cmh_lbp_proposals, cmh_lbp_steps
from dogs.models.binary import BinaryPairwiseMRF
from dogs.samplers.base import Work, kernel_rng_state
from dogs.samplers.binary import BinaryChain, BinaryChainResult, plain_result
from dogs.samplers.checks import (check_bool, check_delta, check_edges, check_int, check_marginals, check_model,
                                  check_spins, frozen)

__all__ = ["PreparedCMH", "PreparedCMHLBP", "check_cmh_lbp_count", "coordinate_metropolis", "coordinate_metropolis_lbp",
           "prepare_cmh", "prepare_cmh_lbp", "run_cmh", "run_cmh_lbp"]


@dataclass(frozen=True, eq=False)
class PreparedCMH:
    """Checked arguments of coordinate Metropolis-Hastings (:func:`prepare_cmh`), ready for :func:`run_cmh`.

    Attributes
    ----------
    model : BinaryPairwiseMRF
    initial_state : (d,) int8 array, read-only
    proposals_per_sample : int
        Proposals between recorded states.
    edges : (E, 2) int64 array, read-only
        Pairs whose 2x2 tables the estimates give.
    delta : BinaryPairwiseMRF or None
        Quadratic form ``q`` whose ``log E_p[exp q]`` the estimates give.
    """

    model: BinaryPairwiseMRF
    initial_state: np.ndarray
    proposals_per_sample: int
    edges: np.ndarray
    delta: BinaryPairwiseMRF | None = None


@dataclass(frozen=True, eq=False)
class PreparedCMHLBP:
    """Checked arguments of CMH with the LBP proposal (:func:`prepare_cmh_lbp`), ready for :func:`run_cmh_lbp`.

    Attributes
    ----------
    model, initial_state, proposals_per_sample, edges, delta
        As in :class:`PreparedCMH` (``proposals_per_sample`` counts steps, holds included).
    prior_plus, prior_minus, prior_logit : (d,) float64 arrays, read-only
        ``q_j(+1)``, ``q_j(-1)`` and ``log q_j(+1) - log q_j(-1)``.
    count_unit : {"n_samples", "n_proposals"}
        What the ``n`` of :func:`run_cmh_lbp` counts: recorded states or proposed flips.
    discrete_event : bool
        Simulate only the proposed flips.
    """

    model: BinaryPairwiseMRF
    initial_state: np.ndarray
    proposals_per_sample: int
    edges: np.ndarray
    delta: BinaryPairwiseMRF | None
    prior_plus: np.ndarray
    prior_minus: np.ndarray
    prior_logit: np.ndarray
    count_unit: str
    discrete_event: bool


def coordinate_metropolis(
    model: BinaryPairwiseMRF,
    *,
    n_samples: int,
    proposals_per_sample: int | None = None,
    seed,
    initial_state,
    edges=None,
    delta: BinaryPairwiseMRF | None = None,
) -> BinaryChainResult:
    r"""Coordinate Metropolis-Hastings: one chain, ``n_samples`` states recorded every ``proposals_per_sample`` proposals.

    Each proposal draws ``i`` uniformly from ``{0, ..., d-1}`` and flips ``s_i`` with probability
    ``min(1, exp Delta_i(s))`` (module docstring). The ``n``-th recorded state is the state after
    ``(n + 1) * proposals_per_sample`` proposals.

    Parameters
    ----------
    model : BinaryPairwiseMRF
    n_samples : int
        Number of recorded states (>= 1).
    proposals_per_sample : int, optional
        Proposals between recorded states; default ``d`` (the paper's choice, ``K = d``).
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Seed of the chain's stream (:func:`~dogs.samplers.base.chain_seeds`, one chain).
    initial_state : (d,) array of -1/+1
    edges : (E, 2) int array, optional
        Pairs whose 2x2 tables are estimated; default ``model.edges``.
    delta : BinaryPairwiseMRF, optional
        A quadratic form ``q`` on the same variables; the result then carries
        ``log mean_n exp q(s_n)``, the estimate of ``log Z(theta + dtheta, h + dh) - log Z(theta, h)``.

    Returns
    -------
    BinaryChainResult
        Plain estimates; ``work`` has ``n_samples * proposals_per_sample`` site updates and as many
        density evaluations.

    Raises
    ------
    TypeError, ValueError
        On a bad model, count, seed, initial state, edge list or ``delta``, before any sampling.

    References
    ----------
    Fagan, Bhandari & Cunningham (2017), *Annular augmentation sampling*, §3 (the CMH baseline,
    ``K = d`` proposals between recorded samples).

    Examples
    --------
    >>> from dogs.models import grid_model
    >>> model = grid_model(3, 3, 0.3, 0.1, torus=True)
    >>> result = coordinate_metropolis(model, n_samples=50, seed=0, initial_state=np.ones(9))
    >>> result.samples.shape, result.work
    ((50, 9), Work(site_updates=450, density_evaluations=450))
    """
    prepared = prepare_cmh(model, proposals_per_sample=proposals_per_sample, initial_state=initial_state, edges=edges,
                           delta=delta)
    n_samples = check_int("n_samples", n_samples)
    return plain_result(*run_cmh(prepared, seed, n_samples), prepared.edges, prepared.delta)


def prepare_cmh(model: BinaryPairwiseMRF, *, proposals_per_sample: int | None = None, initial_state, edges=None,
                delta: BinaryPairwiseMRF | None = None) -> PreparedCMH:
    """The checked, frozen arguments of :func:`coordinate_metropolis` but the run length and the seed."""
    model = check_model(model)
    spins = check_spins(initial_state, model.n_vars)
    per_sample = model.n_vars if proposals_per_sample is None else check_int("proposals_per_sample",
                                                                             proposals_per_sample)
    return PreparedCMH(model, frozen(spins), per_sample, frozen(check_edges(edges, model)), check_delta(delta, model))


def run_cmh(prepared: PreparedCMH, rng, n: int) -> tuple[BinaryChain, Work]:
    """``n`` recorded states (``n >= 1``, not checked) of the chain of :func:`coordinate_metropolis` from ``rng``
    (a seed of :func:`~dogs.samplers.base.chain_seeds` or a kernel seed word,
    :func:`~dogs.samplers.base.kernel_rng_state`): the chain and its work."""
    model, per_sample = prepared.model, prepared.proposals_per_sample
    rng_state = kernel_rng_state(rng)
    spins = prepared.initial_state.copy()
    samples = np.empty((n, model.n_vars), dtype=np.int8)
    evaluations = cmh_chain(model.indptr, model.neighbors, model.coupling, model.h, spins, rng_state, n, per_sample,
                            samples)
    return BinaryChain(samples, spins), Work(n * per_sample, int(evaluations))


def coordinate_metropolis_lbp(
    model: BinaryPairwiseMRF,
    prior,
    *,
    n_samples: int | None = None,
    n_proposals: int | None = None,
    proposals_per_sample: int | None = None,
    seed,
    initial_state,
    edges=None,
    delta: BinaryPairwiseMRF | None = None,
    discrete_event: bool = True,
) -> BinaryChainResult:
    r"""CMH with the flip proposal guided by factorised marginals (CMH + LBP, the paper's appendix A.3).

    Step by step: pick ``i`` uniformly; with probability ``q_i(-s_i)`` propose flipping it, and accept
    with probability ``min(1, exp(Delta_i + s_i logit q_i(+1)))``; otherwise hold. With
    ``discrete_event=True`` (default) the holds are skipped by drawing the number of steps to the next
    proposed flip from a geometric law with success probability ``alpha(s) = (1/d) sum_j q_j(-s_j)``
    and the proposed site with probability ``∝ q_j(-s_j)``: the same chain in law (module docstring).
    A state is recorded every ``proposals_per_sample`` steps (holds included).

    The length of the run is given in one of two units:

    ``n_samples``
        a fixed number of recorded states, i.e. ``n_samples * proposals_per_sample`` steps; the number
        of proposed flips (density evaluations) is random;
    ``n_proposals``
        a fixed number of *proposed flips*, the budget of the authors' discrete-event sampler (their
        ``CMH_LBP_DES.m`` makes ``L K`` proposals and jumps over the holds between them); the number of
        steps, hence of recorded states, is random and can be far larger than ``n_proposals`` near a
        mode. Discrete-event form only. Each state is stored once with the number of recording points
        it was seen at (``sample_weights``); the estimates are the correspondingly weighted averages,
        i.e. exactly the plain averages over the recorded sequence. If every propensity becomes 0 the
        chain is frozen for ever and its state is the only row.

    Parameters
    ----------
    model : BinaryPairwiseMRF
    prior : (d,) array of float in [0, 1], or an object with ``node_marginals`` (e.g. an LBP result)
        ``q_j(+1)``, the approximate marginal ``p(s_j = +1)``. A value of exactly 0 or 1 is allowed
        (that spin is then never proposed, resp. never left), but the chain is then not irreducible.
    n_samples, n_proposals : int
        Exactly one of them (see above); ``n_proposals >= proposals_per_sample``, so that at least one
        state is recorded.
    proposals_per_sample, seed, initial_state, edges, delta
        As in :func:`coordinate_metropolis`; ``proposals_per_sample`` counts steps (holds included).
    discrete_event : bool, default True
        Simulate only the proposed flips (``False``: every step, the plain form; not with ``n_proposals``).

    Returns
    -------
    BinaryChainResult
        Plain estimates; ``work``: the steps simulated as site updates (holds included) and one density
        evaluation per proposed flip (exactly ``n_proposals`` unless the chain froze).

    Raises
    ------
    TypeError, ValueError
        As :func:`coordinate_metropolis`, on a prior of the wrong shape, non-finite or outside [0, 1],
        and unless exactly one of ``n_samples`` and ``n_proposals`` is given.

    References
    ----------
    Fagan, Bhandari & Cunningham (2017), *Annular augmentation sampling*, appendix A.3 (CMH + LBP and
    its discrete-event simulation).
    """
    if (n_samples is None) == (n_proposals is None):
        raise TypeError("give exactly one of n_samples (recorded states) and n_proposals (proposed flips)")
    count_unit, count = ("n_samples", n_samples) if n_proposals is None else ("n_proposals", n_proposals)
    count = check_int(count_unit, count)
    prepared = prepare_cmh_lbp(model, prior, count_unit=count_unit, proposals_per_sample=proposals_per_sample,
                               initial_state=initial_state, edges=edges, delta=delta, discrete_event=discrete_event)
    check_cmh_lbp_count(prepared, count)
    return plain_result(*run_cmh_lbp(prepared, seed, count), prepared.edges, prepared.delta)


def prepare_cmh_lbp(model: BinaryPairwiseMRF, prior, *, count_unit: str = "n_samples",
                    proposals_per_sample: int | None = None, initial_state, edges=None,
                    delta: BinaryPairwiseMRF | None = None, discrete_event: bool = True) -> PreparedCMHLBP:
    """The checked, frozen arguments of :func:`coordinate_metropolis_lbp` but the run length and the seed;
    ``count_unit`` names what the run length will count (``"n_samples"`` or ``"n_proposals"``)."""
    if count_unit not in ("n_samples", "n_proposals"):
        raise ValueError(f"count_unit must be 'n_samples' or 'n_proposals', got {count_unit!r}")
    cmh = prepare_cmh(model, proposals_per_sample=proposals_per_sample, initial_state=initial_state, edges=edges,
                      delta=delta)
    plus = check_marginals(prior, cmh.model.n_vars, open_interval=False)
    minus = 1.0 - plus
    with np.errstate(divide="ignore"):
        logit = np.log(plus) - np.log(minus)
    discrete_event = check_bool("discrete_event", discrete_event)
    if count_unit == "n_proposals" and not discrete_event:
        raise ValueError("a budget of n_proposals proposed flips is simulated in discrete-event form only")
    return PreparedCMHLBP(cmh.model, cmh.initial_state, cmh.proposals_per_sample, cmh.edges, cmh.delta, frozen(plus),
                          frozen(minus), frozen(logit), count_unit, discrete_event)


def check_cmh_lbp_count(prepared: PreparedCMHLBP, n) -> int:
    """The run length ``n`` of :func:`run_cmh_lbp` checked: an integer ``>= 1``, and a budget of proposed flips
    that records at least one state."""
    n = check_int(prepared.count_unit, n)
    if prepared.count_unit == "n_proposals" and n < prepared.proposals_per_sample:
        raise ValueError(f"n_proposals = {n} records no state: it must be >= proposals_per_sample = "
                         f"{prepared.proposals_per_sample}")
    return n


def run_cmh_lbp(prepared: PreparedCMHLBP, rng, n: int) -> tuple[BinaryChain, Work]:
    """The chain of :func:`coordinate_metropolis_lbp` for ``n`` recorded states or proposed flips
    (``prepared.count_unit``; :func:`check_cmh_lbp_count` says which ``n`` are valid) from ``rng`` (as in
    :func:`run_cmh`): the chain and its work."""
    model, per_sample = prepared.model, prepared.proposals_per_sample
    rng_state = kernel_rng_state(rng)
    spins = prepared.initial_state.copy()
    arrays = (model.indptr, model.neighbors, model.coupling, model.h, prepared.prior_plus, prepared.prior_minus,
              prepared.prior_logit, spins, rng_state)
    if prepared.count_unit == "n_proposals":
        samples = np.empty((n + 1, model.n_vars), dtype=np.int8)
        counts = np.empty(n + 1, dtype=np.float64)
        rows, steps, evaluations = cmh_lbp_proposals(*arrays, n, per_sample, samples, counts)
        chain = BinaryChain(samples[:rows].copy(), spins, counts[:rows].copy())
        return chain, Work(int(steps), int(evaluations))
    samples = np.empty((n, model.n_vars), dtype=np.int8)
    kernel = cmh_lbp_events if prepared.discrete_event else cmh_lbp_steps
    evaluations = kernel(*arrays, n, per_sample, samples)
    return BinaryChain(samples, spins), Work(n * per_sample, int(evaluations))
