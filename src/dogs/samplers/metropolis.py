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
"""

from __future__ import annotations

import numbers

import numpy as np

from dogs._kernels.metropolis import cmh_chain, cmh_lbp_events, cmh_lbp_proposals, cmh_lbp_steps
from dogs._kernels.rng import seed_state
from dogs.models.binary import BinaryPairwiseMRF
from dogs.samplers.base import Work, chain_seeds
from dogs.samplers.binary import (
    BinaryChainResult,
    empirical_estimates,
    log_mean_exp_quadratic,
)

__all__ = ["coordinate_metropolis", "coordinate_metropolis_lbp"]


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
    model, spins, n_samples, per_sample, edges = _check_common(model, initial_state, n_samples, proposals_per_sample, edges, delta)
    samples, evaluations = _cmh_samples(model, spins, _rng_state(seed), n_samples, per_sample)
    return _chain_result(spins, samples, edges, delta, Work(n_samples * per_sample, evaluations))


def _cmh_samples(model: BinaryPairwiseMRF, spins: np.ndarray, rng_state: np.ndarray, n_samples: int,
                 per_sample: int) -> tuple[np.ndarray, int]:
    """The chain of :func:`coordinate_metropolis` on checked arguments: ``(samples, density evaluations)``; ``spins``
    and ``rng_state`` are advanced in place."""
    samples = np.empty((n_samples, model.n_vars), dtype=np.int8)
    evaluations = cmh_chain(model.indptr, model.neighbors, model.coupling, model.h, spins, rng_state, n_samples,
                            per_sample, samples)
    return samples, int(evaluations)


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
    count_name, count = ("n_samples", n_samples) if n_proposals is None else ("n_proposals", n_proposals)
    model, spins, count, per_sample, edges = _check_common(model, initial_state, count, proposals_per_sample, edges,
                                                           delta, count_name=count_name)
    prior_plus, prior_minus, prior_logit = _check_prior(prior, model.n_vars)
    if not isinstance(discrete_event, (bool, np.bool_)):
        raise TypeError(f"discrete_event must be a bool, got {type(discrete_event).__name__}")
    rng_state = _rng_state(seed)
    if n_proposals is not None:
        return _cmh_lbp_proposal_budget(model, prior_plus, prior_minus, prior_logit, spins, rng_state, count, per_sample,
                                        edges, delta, discrete_event)
    samples = np.empty((count, model.n_vars), dtype=np.int8)
    kernel = cmh_lbp_events if discrete_event else cmh_lbp_steps
    evaluations = kernel(
        model.indptr, model.neighbors, model.coupling, model.h, prior_plus, prior_minus, prior_logit,
        spins, rng_state, count, per_sample, samples,
    )
    return _chain_result(spins, samples, edges, delta, Work(count * per_sample, int(evaluations)))


def _cmh_lbp_proposal_budget(model, prior_plus, prior_minus, prior_logit, spins, rng_state, n_proposals, per_sample,
                             edges, delta, discrete_event) -> BinaryChainResult:
    """:func:`coordinate_metropolis_lbp` with a budget of ``n_proposals`` proposed flips (its docstring), on checked
    arguments."""
    if not discrete_event:
        raise ValueError("a budget of n_proposals proposed flips is simulated in discrete-event form only")
    if n_proposals < per_sample:
        raise ValueError(f"n_proposals = {n_proposals} records no state: it must be >= proposals_per_sample = {per_sample}")
    samples = np.empty((n_proposals + 1, model.n_vars), dtype=np.int8)
    counts = np.empty(n_proposals + 1, dtype=np.float64)
    rows, steps, evaluations = cmh_lbp_proposals(
        model.indptr, model.neighbors, model.coupling, model.h, prior_plus, prior_minus, prior_logit,
        spins, rng_state, n_proposals, per_sample, samples, counts,
    )
    samples, counts = samples[:rows].copy(), counts[:rows].copy()
    return _chain_result(spins, samples, edges, delta, Work(int(steps), int(evaluations)), sample_weights=counts)


# ---------------------------------------------------------------- shared validation (also used by exact_hmc)
def _check_model(model) -> BinaryPairwiseMRF:
    if not isinstance(model, BinaryPairwiseMRF):
        raise TypeError(f"model must be a BinaryPairwiseMRF, got {type(model).__name__}")
    return model


def _check_positive_int(name: str, value) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    return int(value)


def _check_spins(initial_state, n_vars: int) -> np.ndarray:
    """A writable int8 copy of a ``(d,)`` state of -1/+1."""
    if initial_state is None:
        raise TypeError("initial_state is required: a (d,) array of -1 and +1")
    values = np.asarray(initial_state)
    if values.dtype == bool or not (np.issubdtype(values.dtype, np.integer) or np.issubdtype(values.dtype, np.floating)):
        raise TypeError(f"initial_state must hold the numbers -1 and +1, got dtype {values.dtype}")
    if values.shape != (n_vars,):
        raise ValueError(f"initial_state must have shape ({n_vars},), got {values.shape}")
    if not np.all((values == 1) | (values == -1)):
        bad = values[~((values == 1) | (values == -1))][:3]
        raise ValueError(f"initial_state values must be -1 or +1 (spins), found {bad!r}")
    return values.astype(np.int8)


def _check_edges(edges, model: BinaryPairwiseMRF) -> np.ndarray:
    if edges is None:
        return np.asarray(model.edges)
    array = np.asarray(edges)
    if array.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if array.dtype == bool or not np.issubdtype(array.dtype, np.integer):
        raise TypeError(f"edges must hold integers, got dtype {array.dtype}")
    if array.ndim != 2 or array.shape[1] != 2:
        raise ValueError(f"edges must be an (E, 2) array of variable pairs, got shape {array.shape}")
    if array.min() < 0 or array.max() >= model.n_vars:
        raise ValueError(f"edges must index variables 0..{model.n_vars - 1}")
    return array.astype(np.int64)


def _check_delta(delta, model: BinaryPairwiseMRF):
    if delta is None:
        return None
    if not isinstance(delta, BinaryPairwiseMRF):
        raise TypeError(f"delta must be a BinaryPairwiseMRF (the quadratic form q), got {type(delta).__name__}")
    if delta.n_vars != model.n_vars:
        raise ValueError(f"delta is over {delta.n_vars} variables but the model has {model.n_vars}")
    return delta


def _check_common(model, initial_state, n_samples, per_sample, edges, delta, count_name="n_samples"):
    model = _check_model(model)
    spins = _check_spins(initial_state, model.n_vars)
    n_samples = _check_positive_int(count_name, n_samples)
    per_sample = model.n_vars if per_sample is None else _check_positive_int("proposals_per_sample", per_sample)
    edges = _check_edges(edges, model)
    _check_delta(delta, model)
    return model, spins, n_samples, per_sample, edges


def _check_prior(prior, n_vars: int):
    """``(q(+1), q(-1), log q(+1) - log q(-1))`` as float64 arrays from marginals ``q(+1)``."""
    values = getattr(prior, "node_marginals", prior)
    values = np.asarray(values)
    if values.dtype == bool or not (np.issubdtype(values.dtype, np.integer) or np.issubdtype(values.dtype, np.floating)):
        raise TypeError(f"prior must hold probabilities q(s_j = +1), got dtype {values.dtype}")
    if values.shape != (n_vars,):
        raise ValueError(f"prior must have shape ({n_vars},) (one marginal q(s_j = +1) per variable), got {values.shape}")
    plus = values.astype(np.float64)
    if not (np.all(np.isfinite(plus)) and np.all((plus >= 0.0) & (plus <= 1.0))):
        raise ValueError("prior marginals must be finite and in [0, 1]")
    minus = 1.0 - plus
    with np.errstate(divide="ignore"):
        logit = np.log(plus) - np.log(minus)
    return plus, minus, logit


def _rng_state(seed) -> np.ndarray:
    """The xoshiro256** state of the single chain seeded by ``seed`` (child 0 of ``SeedSequence(seed)``)."""
    return seed_state(chain_seeds(seed, 1)[0])


def _chain_result(spins, samples, edges, delta, work: Work, rao_blackwellised: bool = False,
                  sample_weights=None) -> BinaryChainResult:
    node_marginals, edge_tables = empirical_estimates(samples, edges, sample_weights)
    return BinaryChainResult(
        state=spins,
        samples=samples,
        node_marginals=node_marginals,
        edge_tables=edge_tables,
        edges=edges,
        log_ratio=None if delta is None else log_mean_exp_quadratic(samples, delta, sample_weights),
        work=work,
        rao_blackwellised=rao_blackwellised,
        sample_weights=sample_weights,
    )
