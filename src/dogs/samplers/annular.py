r"""Annular augmentation samplers (AAG, AAS, AAST) for binary pairwise MRFs (Fagan, Bhandari & Cunningham 2017).

Target: :class:`~dogs.models.BinaryPairwiseMRF`, ``p(s) = f(s) / Z`` with
``log f(s) = sum_{i<j} theta_ij s_i s_j + sum_i h_i s_i`` on ``s in {-1, +1}^d``.

The augmentation (paper §2.1-2.2)
---------------------------------
Split ``p(s) ∝ L(s) p̂(s)`` with a factorised prior ``p̂(s) = prod_i p̂_i(s_i)`` and ``L = f / p̂``.
With auxiliary variables ``theta`` (an angle) and thresholds ``t_i``, all uniform on the circle,

.. math::

    s_i = \operatorname{sgn}\big[\cos(t_i - \theta) - \cos(\pi \hat p_i(+1))\big]
    \tag{eq. 2; eq. 1 when } \hat p_i(+1) = 1/2,

makes ``s_i = +1`` on an arc of ``p̂_i(+1)`` of the circle, so the uniform ``(theta, t)`` induce the
prior ``p̂`` on ``s``, and the target on the auxiliary space is ``p(theta, t) ∝ L(h(theta, t))``
(eq. 3). For fixed ``t`` the circle is cut by the ``2d`` threshold edges into ``2d`` arcs on each of
which ``s`` is constant (the *annulus points*, a great circle on the hypercube). One iteration is

- **Operator 1**: redraw ``t`` given ``s`` (uniform on the thresholds that keep ``s``): for
  ``s_i = ±1``, ``t_i`` uniform in a bracket of half-width ``pi p̂_i(s_i)`` around the current side;
- **Operator 2**: move ``theta`` given ``t`` by a ``p(theta | t)``-invariant operator over the
  annulus points, whose interval weights are ``w_k = (arc length)_k × L(s_k)``, with
  ``L(s_k) = f(s_k) / p̂(s_k)``.

Both leave ``p(theta, t)`` invariant, so ``s`` is a Markov chain with stationary law ``p``.
Rotation invariance puts ``theta = 0`` at the start of each iteration (§2.3), and the annulus points
are reached by flipping coordinates one at a time in threshold-edge order, each point's
log-density being the previous one plus ONE single-flip difference.

Variants of Operator 1 (``prior``)
----------------------------------
- ``prior=None``: uniform prior, **lattice variant** (§2.3: thresholds constrained to a lattice of
  spacing ``pi/d``, which avoids sorting): a uniformly random permutation ``k`` of the coordinates
  gives the flip order ``k(1), ..., k(d), k(1), ..., k(d)`` and all ``2d`` arcs have length ``pi/d``,
  so the weights are ``∝ f(s_k)``. This is the variant the authors ran for the uniform-prior
  samplers.
- ``prior = p̂(s_i = +1)``: **stretched variant** (eq. 2, Algorithm 1), e.g. loopy-BP marginals:
  thresholds drawn continuously, the ``2d`` edges sorted, weights ``arc length × f(s)/p̂(s)``. An
  all-``0.5`` array gives the continuous (non-lattice) uniform-prior sampler.

Operator 2 (``operator``)
-------------------------
- ``"gibbs"`` (AAG, §2.3, Algorithm 1): pick an interval with probability ``∝`` arc length × ``L``.
- ``"slice"`` (AAS; Neal 2003 on the circle): level ``y = u L(s_current)``, then ``theta`` uniform on
  ``{L >= y}``: a point above the level with probability ``∝`` its arc length (uniform among them
  in the lattice variant, as the authors implemented it).
- ``"suwa_todo"`` (AAST; Suwa & Todo 2010): the non-reversible weight-allocation move on the
  interval weights in annulus order, rotated so that a largest weight comes first; with the authors'
  fallback to the Gibbs probabilities when the current point's normalised weight is
  ``<= suwa_todo_fallback`` (``1e-5``). The fallback makes the move invariant only up to the total
  normalised weight of the points below the threshold (at most ``2d × 1e-5`` in total variation per
  iteration); ``suwa_todo_fallback=0`` is the exact Suwa-Todo move.

The exact rules (uniform order, tie handling, floating-point steps) are in :mod:`dogs._kernels.annular`.

Estimates (§2.3)
----------------
With ``rao_blackwell=True`` the node marginals ``p(s_i = +1)``, the 2x2 tables of ``edges`` and, given
``delta``, ``log E_p[exp q(s)]`` (AA eq. 5, :mod:`dogs.samplers.binary`) are Rao-Blackwellised:
``(1/N) sum_n sum_k r_k^n g(s_k^n)`` over the ``2d`` annulus points of every iteration, with ``r`` the
Gibbs probabilities for AAG and AAST (for AAST the Gibbs probabilities, ``E[g | t]``, rather than the
Suwa-Todo row, ``E[g(next) | t, current]``: both are unbiased at stationarity and the former has the
smaller variance) and the slice probabilities (the average over the points above the level, as the
authors did) for AAS. The log-ratio estimate is ``log((1/N) sum_n sum_k r_k^n exp q(s_k^n))``,
accumulated in log space. With ``rao_blackwell=False`` they are the plain averages over the recorded
states (:func:`~dogs.samplers.binary.empirical_node_marginals`, ...). The chain itself, hence
``samples`` and ``state``, does not depend on ``rao_blackwell``. The recorded states are the states
after iterations ``1..N`` (the initial state is not recorded), and the RB term of iteration ``n`` is
the conditional expectation of the state after iteration ``n``, so both estimators average the same
``N`` states.

Work (:mod:`dogs.samplers.base`)
--------------------------------
Per iteration: ``2d`` site updates (the coordinate flips of one walk around the annulus) and
``2d - 1`` density evaluations (single-flip log-density differences; the last flip returns to the
current state, whose density is known). The authors' budget (their §3.3 accounting) charges each
annulus point the clique size ``c`` (the number of neighbours a single-flip difference touches, 4 on
the 2D torus), i.e. ``c (2d - 1)`` per iteration in their units; we report ``2d - 1`` per iteration in
the single-flip unit shared by every sampler here (CMH: one per proposal), which is their count
divided by ``c``. On the 9x9 torus their 1446 iterations are ``1446 × 161 = 232 806`` evaluations,
against their CMH budget of ``232 875`` proposals.

Two layers (:mod:`dogs.samplers`)
---------------------------------
:func:`prepare_annular` checks everything but the run length and the seed once and returns a frozen
:class:`PreparedAnnular`; :func:`run_annular` runs ``n`` iterations of every chain from a seed and returns
the chains (:class:`AnnularChains`: recorded states, final states and the Rao-Blackwellised sums) and their
total :class:`~dogs.samplers.base.Work`; :func:`annular_results` turns them into one
:class:`~dogs.samplers.binary.BinaryChainResult` per chain. :func:`annular_sampler` is the three in a row.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from dogs._kernels.annular import GIBBS, SLICE, SUWA_TODO, annular_chains
from dogs.models.binary import BinaryPairwiseMRF
from dogs.samplers.base import Work, check_n_chains, kernel_rng_states
from dogs.samplers.binary import BinaryChainResult, empirical_estimates, log_mean_exp_quadratic
from dogs.samplers.checks import (check_bool, check_delta, check_edges, check_int, check_marginals, check_model,
                                  check_spin_states, check_spins, frozen)

__all__ = ["DEFAULT_SUWA_TODO_FALLBACK", "OPERATORS", "AnnularChains", "PreparedAnnular", "annular_results",
           "annular_sampler", "model_arrays", "prepare_annular", "prior_arrays", "run_annular"]

#: Operator-2 names accepted by :func:`annular_sampler` and their kernel codes.
OPERATORS = {"gibbs": GIBBS, "slice": SLICE, "suwa_todo": SUWA_TODO}

#: The authors' Suwa-Todo fallback threshold on the current point's normalised weight.
DEFAULT_SUWA_TODO_FALLBACK = 1e-5


@dataclass(frozen=True, eq=False)
class PreparedAnnular:
    """Checked arguments of annular augmentation sampling (:func:`prepare_annular`), ready for :func:`run_annular`.

    Attributes
    ----------
    model : BinaryPairwiseMRF
    operator : int
        Kernel code of Operator 2 (:data:`OPERATORS`).
    prior : tuple ``(prior_current (2, d), log_odds (d,), lattice)``
        The prior as the kernel reads it (:func:`prior_arrays`), arrays read-only.
    initial_states : (C, d) int8 array, read-only
        The start of every chain.
    edges : (E, 2) int64 array, read-only
        Pairs whose 2x2 tables are estimated.
    rao_blackwell : bool
        Accumulate the Rao-Blackwellised sums (the chain does not depend on it).
    delta : BinaryPairwiseMRF or None
        Quadratic form ``q`` whose ``log E_p[exp q]`` is estimated.
    suwa_todo_fallback : float
    """

    model: BinaryPairwiseMRF
    operator: int
    prior: tuple
    initial_states: np.ndarray
    edges: np.ndarray
    rao_blackwell: bool = True
    delta: BinaryPairwiseMRF | None = None
    suwa_todo_fallback: float = DEFAULT_SUWA_TODO_FALLBACK

    @property
    def n_chains(self) -> int:
        return self.initial_states.shape[0]


@dataclass(frozen=True, eq=False)
class AnnularChains:
    """What :func:`run_annular` returns beside the work: ``C`` chains of ``N`` iterations.

    Attributes
    ----------
    samples : (C, N, d) int8 array
        The state after every iteration.
    states : (C, d) int8 array
        The final states.
    node_sums, edge_sums, log_ratio_sums : (C, d), (C, E, 2, 2), (C, 1) float arrays
        Sums over the iterations of the Rao-Blackwellised node marginals, edge tables and (in log space)
        ``sum_k r_k exp q(s_k)`` (zeros and ``-inf`` when not Rao-Blackwellised or without ``delta``).
    evaluations : (C,) int64 array
        Density evaluations of every chain.
    """

    samples: np.ndarray
    states: np.ndarray
    node_sums: np.ndarray
    edge_sums: np.ndarray
    log_ratio_sums: np.ndarray
    evaluations: np.ndarray


def annular_sampler(
    model: BinaryPairwiseMRF,
    *,
    operator: str = "gibbs",
    prior=None,
    n_iterations: int,
    seed,
    initial_state,
    edges=None,
    rao_blackwell: bool = True,
    delta: BinaryPairwiseMRF | None = None,
    n_chains: int | None = None,
    suwa_todo_fallback: float = DEFAULT_SUWA_TODO_FALLBACK,
):
    r"""Annular augmentation sampling: ``n_iterations`` two-operator iterations, one recorded state each.

    Iteration (paper §2.2, Algorithm 1): Operator 1 redraws the thresholds ``t`` given the current
    ``s`` (lattice permutation for the uniform prior, uniform brackets of half-width ``pi p̂(s_i)``
    otherwise); the ``2d`` annulus points are visited by single flips in threshold-edge order
    (``2d - 1`` new density evaluations); Operator 2 moves to one of them (Gibbs, slice or
    Suwa-Todo; module docstring). Rao-Blackwellised estimates use the interval probabilities ``r_k``.

    Parameters
    ----------
    model : BinaryPairwiseMRF
    operator : {"gibbs", "slice", "suwa_todo"}, default "gibbs"
        Operator 2: AAG, AAS or AAST.
    prior : None, (d,) array of float in (0, 1), or an object with ``node_marginals``
        ``None``: uniform prior, lattice variant. Otherwise ``p̂(s_i = +1)`` (e.g. loopy-BP
        marginals): stretched variant (eq. 2). Values must lie strictly inside ``(0, 1)``.
    n_iterations : int
        Number of iterations ``N`` (>= 1); the state after each is recorded.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Chain ``c`` uses child ``c`` of ``SeedSequence(seed)`` (:func:`~dogs.samplers.base.chain_seeds`),
        so chain 0 of a multi-chain run is the single-chain run with the same seed.
    initial_state : (d,) array of -1/+1, or (n_chains, d) when ``n_chains`` is given
        A ``(d,)`` state is shared by all chains.
    edges : (E, 2) int array, optional
        Pairs whose 2x2 tables are estimated; default ``model.edges``.
    rao_blackwell : bool, default True
        Rao-Blackwellised (``True``) or plain (``False``) estimates; the chain is the same.
    delta : BinaryPairwiseMRF, optional
        A quadratic form ``q`` on the same variables; the result then carries the estimate of
        ``log E_p[exp q(s)] = log Z(theta + dtheta, h + dh) - log Z(theta, h)`` (AA eq. 5).
    n_chains : int, optional
        ``None`` (default): one chain, one result. An int: that many independent chains (run in
        parallel), a list of results.
    suwa_todo_fallback : float in [0, 1), default 1e-5
        Suwa-Todo only: use the Gibbs probabilities when the current point's normalised weight is at
        most this (the authors' value; 0 gives the exact Suwa-Todo move).

    Returns
    -------
    BinaryChainResult, or a list of them (one per chain) when ``n_chains`` is given
        ``samples`` (N, d) int8, final ``state``, estimates (``rao_blackwellised`` says which kind),
        ``work = Work(site_updates=2 d N, density_evaluations=(2 d - 1) N)`` per chain.

    Raises
    ------
    TypeError, ValueError
        On a bad model, operator, prior, count, seed, initial state, edge list, ``delta``, flag or
        fallback, naming the argument, before any sampling.

    References
    ----------
    Fagan, Bhandari & Cunningham (2017), *Annular augmentation sampling*, UAI: eqs. 1-3, Operators 1-2
    (§2.1-2.2), Rao-Blackwellised Gibbs and Algorithm 1 (§2.3), slice and Suwa-Todo operators (§2.3),
    the choice of prior (§2.4). Neal (2003), *Slice sampling*, Ann. Statist. Suwa & Todo (2010),
    *Markov chain Monte Carlo method without detailed balance*, PRL 105, 120603.

    Examples
    --------
    >>> from dogs.models import grid_model
    >>> model = grid_model(3, 3, 0.3, 0.1, torus=True)
    >>> result = annular_sampler(model, operator="gibbs", n_iterations=50, seed=0, initial_state=np.ones(9))
    >>> result.samples.shape, result.work
    ((50, 9), Work(site_updates=900, density_evaluations=850))
    """
    prepared = prepare_annular(model, operator=operator, prior=prior, initial_state=initial_state, edges=edges,
                               rao_blackwell=rao_blackwell, delta=delta, n_chains=n_chains,
                               suwa_todo_fallback=suwa_todo_fallback)
    n_iterations = check_int("n_iterations", n_iterations)
    results = annular_results(prepared, run_annular(prepared, seed, n_iterations)[0])
    return results[0] if n_chains is None else results


def prepare_annular(model: BinaryPairwiseMRF, *, operator: str = "gibbs", prior=None, initial_state, edges=None,
                    rao_blackwell: bool = True, delta: BinaryPairwiseMRF | None = None, n_chains: int | None = None,
                    suwa_todo_fallback: float = DEFAULT_SUWA_TODO_FALLBACK) -> PreparedAnnular:
    """The checked, frozen arguments of :func:`annular_sampler` but the number of iterations and the seed
    (``n_chains=None``: one chain, whose ``initial_state`` must be a ``(d,)`` state)."""
    model = check_model(model)
    d = model.n_vars
    code = _check_operator(operator)
    prior_current, log_odds, lattice = prior_arrays(prior, d)
    if n_chains is None:
        spins = check_spins(initial_state, d).reshape(1, d)
    else:
        spins = check_spin_states(initial_state, d, check_n_chains(n_chains), single_spin=False)
    edges = check_edges(edges, model)
    rao_blackwell = check_bool("rao_blackwell", rao_blackwell)
    delta = check_delta(delta, model)
    fallback = _check_fallback(suwa_todo_fallback)
    return PreparedAnnular(model, code, (frozen(prior_current), frozen(log_odds), lattice), frozen(spins),
                           frozen(edges), rao_blackwell, delta, fallback)


def run_annular(prepared: PreparedAnnular, rng, n: int) -> tuple[AnnularChains, Work]:
    """``n`` iterations (``n >= 1``, not checked) of every chain of ``prepared`` from ``rng`` (a seed of
    :func:`~dogs.samplers.base.chain_seeds`, chain ``c`` on its child ``c``, or one kernel seed word per chain,
    :func:`~dogs.samplers.base.kernel_rng_states`): the chains and their total work.

    Even one chain goes through the multi-chain kernel: called directly, the single-chain kernel runs about 20%
    slower at d = 50 (2.8 against 2.3 ms for a Boltzmann-machine inner run), as compiled."""
    model, delta = prepared.model, prepared.delta
    chains, d = prepared.initial_states.shape
    rng_states = kernel_rng_states(rng, chains)
    spins = prepared.initial_states.copy()
    prior_current, log_odds, lattice = prepared.prior
    edges = np.array(prepared.edges)  # writable copies: the kernel is compiled for writable arrays only
    samples = np.empty((chains, n, d), dtype=np.int8)
    node_acc = np.zeros((chains, d))
    edge_acc = np.zeros((chains, len(edges), 2, 2))
    log_ratio_acc = np.full((chains, 1), -np.inf)
    evaluations = np.zeros(chains, dtype=np.int64)
    annular_chains(
        model_arrays(model), (np.array(prior_current), np.array(log_odds), lattice), prepared.operator,
        prepared.suwa_todo_fallback, spins, rng_states, samples, prepared.rao_blackwell, edges, node_acc, edge_acc,
        delta is not None, model_arrays(delta) if delta is not None else _empty_form(d), log_ratio_acc, evaluations,
    )
    work = Work(2 * d * n * chains, sum(evaluations.tolist()))
    return AnnularChains(samples, spins, node_acc, edge_acc, log_ratio_acc, evaluations), work


def annular_results(prepared: PreparedAnnular, chains: AnnularChains) -> list[BinaryChainResult]:
    """One :class:`~dogs.samplers.binary.BinaryChainResult` per chain of :func:`run_annular`: Rao-Blackwellised
    estimates when ``prepared.rao_blackwell``, else the plain averages over the recorded states."""
    n_iterations, d = chains.samples.shape[1:]
    edges, delta = prepared.edges, prepared.delta
    results = []
    for c in range(chains.states.shape[0]):
        work = Work(2 * d * n_iterations, int(chains.evaluations[c]))
        samples = chains.samples[c]
        if prepared.rao_blackwell:
            log_ratio = None if delta is None else float(chains.log_ratio_sums[c, 0] - math.log(n_iterations))
            node_marginals, edge_tables = chains.node_sums[c] / n_iterations, chains.edge_sums[c] / n_iterations
        else:
            log_ratio = None if delta is None else log_mean_exp_quadratic(samples, delta)
            node_marginals, edge_tables = empirical_estimates(samples, edges)
        results.append(BinaryChainResult(
            state=chains.states[c].copy(),
            samples=samples,
            node_marginals=node_marginals,
            edge_tables=edge_tables,
            edges=edges,
            log_ratio=log_ratio,
            work=work,
            rao_blackwellised=prepared.rao_blackwell,
        ))
    return results


# ---------------------------------------------------------------- kernel arguments (also used by the tests)
def model_arrays(model: BinaryPairwiseMRF):
    """``(indptr, neighbors, coupling, h)`` as writable contiguous int64/int64/float64/float64 copies: the model
    tuple the annular kernels take.

    Always the same array types, so the kernels are compiled once.
    """
    return (
        np.array(model.indptr, dtype=np.int64),
        np.array(model.neighbors, dtype=np.int64),
        np.array(model.coupling, dtype=np.float64),
        np.array(model.h, dtype=np.float64),
    )


def _empty_form(d: int):
    """CSR arrays of the zero quadratic form on ``d`` variables (the kernel's placeholder when ``delta`` is None)."""
    return (np.zeros(d + 1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(d))


def prior_arrays(prior, d: int):
    """``(prior_current (2, d), log_odds (d,), lattice)`` for the kernel from a validated ``prior``.

    ``prior_current[1, i] = p̂(s_i = +1)``, ``prior_current[0, i] = 1 - p̂(s_i = +1)``;
    ``log_odds = log p̂(+1) - log p̂(-1)``. ``prior=None``: the lattice variant (halves, zero log-odds).
    """
    if prior is None:
        return np.full((2, d), 0.5), np.zeros(d), True
    plus = check_marginals(prior, d, open_interval=True)
    minus = 1.0 - plus
    return np.ascontiguousarray(np.stack([minus, plus])), np.log(plus) - np.log(minus), False


# ---------------------------------------------------------------- checks of this sampler only
def _check_operator(operator) -> int:
    if not isinstance(operator, str):
        raise TypeError(f"operator must be one of {sorted(OPERATORS)}, got {type(operator).__name__}")
    if operator not in OPERATORS:
        raise ValueError(f"operator must be one of {sorted(OPERATORS)}, got {operator!r}")
    return OPERATORS[operator]


def _check_fallback(value) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"suwa_todo_fallback must be a real number, got {type(value).__name__}")
    value = float(value)
    if not (0.0 <= value < 1.0):
        raise ValueError(f"suwa_todo_fallback must be in [0, 1), got {value}")
    return value
