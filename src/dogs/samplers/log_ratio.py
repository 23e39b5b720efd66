r"""Many estimates of a log partition-function ratio on one graph (the inner runs of an MCMC over parameters).

AA eq. 5 estimates ``log E_p[exp q(s)] = log Z(theta + dtheta) - log Z(theta)`` from the states of one sampler
run on ``p``. An MCMC over the parameters (the Boltzmann-machine posterior of AA §3.2,
:mod:`dogs.learning.boltzmann_posterior`) asks for it at every step, each time for a new ``p`` and ``q`` on the same
graph, from a new seed and start. :func:`dogs.samplers.suite.run_samplers` answers with every estimate a sampler
makes (node marginals, edge tables) after checking all of its arguments; at ``d = 6`` that was about a third of an
inner run.

:class:`LogRatioEstimator` checks the graph, the budget and the sampler once and then, for every estimate, builds
the sampler's prepared arguments (:class:`~dogs.samplers.exact_hmc.PreparedHMC`,
:class:`~dogs.samplers.metropolis.PreparedCMH`, :class:`~dogs.samplers.annular.PreparedAnnular`) from the new
model, form and start (checked here, against the graph) and runs the sampler's ``run`` layer, computing the log
ratio only:

- ``HMC`` and ``CMH``: the plain estimate ``log mean_n exp q(s_n)`` over the recorded states
  (:func:`~dogs.samplers.binary.log_mean_exp_quadratic`);
- ``AAS + RB``, ``AAG + RB``, ``AAST + RB``: the Rao-Blackwellised estimate of the annular chain (uniform prior).

Its estimate, final state and number of density evaluations are those of ``run_samplers(model, budget,
names=[name], seed=seed, initial_state=start, delta=q, edges=[])`` bit for bit (tested): the same chain seed
(:func:`~dogs.samplers.suite.chain_seed`) and the samplers' own runs on checked arguments.
"""

from __future__ import annotations

import math

import numpy as np

from dogs.models.binary import BinaryPairwiseMRF
from dogs.samplers.annular import DEFAULT_SUWA_TODO_FALLBACK, OPERATORS, PreparedAnnular, prior_arrays, run_annular
from dogs.samplers.base import spawned_chain_seeds
from dogs.samplers.binary import log_mean_exp_quadratic
from dogs.samplers.budget import EqualCostBudget
from dogs.samplers.checks import check_model, frozen
from dogs.samplers.exact_hmc import PreparedHMC, run_hmc
from dogs.samplers.metropolis import PreparedCMH, run_cmh
from dogs.samplers.suite import chain_index, chain_seed, run_length, sampler_spec

__all__ = ["LOG_RATIO_SAMPLERS", "LogRatioEstimator"]

#: The samplers :class:`LogRatioEstimator` runs (the LBP ones need each model's loopy-BP prior: use run_samplers).
LOG_RATIO_SAMPLERS = ("HMC", "CMH", "AAS + RB", "AAG + RB", "AAST + RB")
_NO_EDGES = frozen(np.zeros((0, 2), dtype=np.int64))


class LogRatioEstimator:
    """One sampler of :data:`LOG_RATIO_SAMPLERS` at one budget, prepared for many estimates on ``graph``'s edges.

    Parameters
    ----------
    graph : BinaryPairwiseMRF
        Every model and quadratic form given to :meth:`estimate` must have this model's neighbour lists.
    budget : EqualCostBudget
        :func:`~dogs.samplers.budget.equal_cost_budget` for ``graph``.
    name : str
        One of :data:`LOG_RATIO_SAMPLERS`.
    """

    def __init__(self, graph: BinaryPairwiseMRF, budget: EqualCostBudget, name: str):
        check_model(graph, "graph")
        if name not in LOG_RATIO_SAMPLERS:
            raise ValueError(f"sampler must be one of {LOG_RATIO_SAMPLERS}, got {name!r}")
        if not isinstance(budget, EqualCostBudget):
            raise TypeError(f"budget must be an EqualCostBudget (equal_cost_budget), got {type(budget).__name__}")
        self.name, self.graph, self.spec = name, graph, sampler_spec(name)
        self.count = run_length(self.spec, budget)
        self._travel_time = budget.hmc_travel_time
        if self.spec.sampler == "annular":
            self._operator = OPERATORS[self.spec.operator]
            prior_current, log_odds, lattice = prior_arrays(None, graph.n_vars)
            self._prior = (frozen(prior_current), frozen(log_odds), lattice)

    def _same_graph(self, form: BinaryPairwiseMRF, what: str) -> None:
        if not isinstance(form, BinaryPairwiseMRF):
            raise TypeError(f"{what} must be a BinaryPairwiseMRF, got {type(form).__name__}")
        if form.indptr is self.graph.indptr and form.neighbors is self.graph.neighbors:
            return  # shared by with_parameters: the same graph without comparing
        if not (np.array_equal(form.indptr, self.graph.indptr) and np.array_equal(form.neighbors, self.graph.neighbors)):
            raise ValueError(f"{what} is not on the estimator's graph")

    def kernel_seeds(self, parent: np.random.SeedSequence, n_runs: int) -> np.ndarray:
        """``(n_runs,)`` uint64: the seed of run ``r`` seeded by child ``r`` of ``parent.spawn(n_runs)`` (a parent that
        has spawned nothing), in the form :meth:`estimate` also takes. ``estimate(..., seeds[r], ...)`` is
        ``estimate(..., children[r], ...)`` bit for bit (tested), without building two SeedSequences per run."""
        if not isinstance(parent, np.random.SeedSequence):
            raise TypeError(f"parent must be a numpy.random.SeedSequence, got {type(parent).__name__}")
        return spawned_chain_seeds(parent, n_runs, (chain_index(self.name),))

    def estimate(self, model: BinaryPairwiseMRF, delta: BinaryPairwiseMRF, seed,
                 initial_state) -> tuple[float, np.ndarray, int]:
        """``(estimate of log E_p[exp q], final state (d,) int8, density evaluations)`` of one run on ``p = model``
        and ``q = delta`` from ``initial_state`` (±1), seeded as ``run_samplers(..., seed=seed)`` seeds it.

        ``seed``: a :class:`numpy.random.SeedSequence`, or one of :meth:`kernel_seeds`' words (``numpy.uint64``)."""
        self._same_graph(model, "model")
        self._same_graph(delta, "delta")
        if isinstance(seed, np.random.SeedSequence):
            rng = chain_seed(seed, self.name)
        elif isinstance(seed, np.uint64):
            rng = seed
        else:
            raise TypeError(f"seed must be a numpy.random.SeedSequence or a numpy.uint64 from kernel_seeds, "
                            f"got {type(seed).__name__}")
        d = model.n_vars
        spins = np.array(initial_state, dtype=np.int8)
        if spins.shape != (d,) or not (np.abs(spins) == 1).all():
            raise ValueError(f"initial_state must be {d} values of -1 or +1")
        spins.setflags(write=False)
        sampler = self.spec.sampler
        if sampler == "exact_hmc":
            chain, work = run_hmc(PreparedHMC(model, spins, self._travel_time), rng, self.count)
        elif sampler == "cmh":
            chain, work = run_cmh(PreparedCMH(model, spins, d, _NO_EDGES), rng, self.count)
        else:
            prepared = PreparedAnnular(model, self._operator, self._prior, spins.reshape(1, d), _NO_EDGES, True, delta,
                                       DEFAULT_SUWA_TODO_FALLBACK)
            chains, work = run_annular(prepared, rng, self.count)
            return float(chains.log_ratio_sums[0, 0] - math.log(self.count)), chains.states[0], work.density_evaluations
        return log_mean_exp_quadratic(chain.samples, delta), chain.state, work.density_evaluations
