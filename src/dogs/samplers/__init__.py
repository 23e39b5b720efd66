"""Samplers (numba kernels behind validating wrappers), all following one contract (:mod:`dogs.samplers.base`).

Gibbs sampling with any scan (DoGS Algorithm 1):

- :func:`run_gibbs`: binary pairwise MRFs (Ising), one or many chains, checkpoint recording;
- :func:`run_discrete_gibbs`: discrete pairwise MRFs (Potts, the Markov field aspect model of DoGS §5.5),
  with per-site label counts and :func:`most_frequent_labels`;
- :func:`samples_at_lengths`, :func:`samples_by_scan`, :func:`mean_by_scan_and_length`: many independent
  chains recorded after every length of a grid (:mod:`dogs.samplers.recording`);
- :func:`sample_points`: independent sample points of a long chain (:mod:`dogs.samplers.points`).

Binary samplers of the annular-augmentation paper (Fagan, Bhandari & Cunningham 2017), compared at equal
numbers of single-flip density evaluations (:func:`equal_cost_budget`), each returning a
:class:`BinaryChainResult`:

- :func:`annular_sampler`: annular augmentation with Operator 2 = Gibbs (AAG), slice (AAS) or Suwa-Todo
  (AAST), with or without Rao-Blackwellisation, uniform (lattice) or LBP (stretched) prior;
- :func:`coordinate_metropolis` (CMH) and :func:`coordinate_metropolis_lbp` (CMH with the LBP proposal,
  discrete-event form);
- :func:`exact_hmc`: exact HMC for binary distributions (Pakman & Paninski 2013).

:class:`Work` is the work a run did, in site updates and single-flip density evaluations.

Two layers. Every binary sampler of the annular-augmentation comparison is also split in two public steps, as
blackjax splits ``init`` and ``step``: ``prepare_*(model, ...)`` checks every argument but the run length and the
seed (with the shared checks of :mod:`dogs.samplers.checks`) and returns a frozen ``Prepared*`` dataclass of
checked, read-only arrays; ``run_*(prepared, rng, n)`` trusts it and runs ``n`` recorded states from ``rng`` (a
seed, or a kernel seed word), returning ``(chain, Work)``. The public functions above are the two in a row plus
the estimates. Pairs: :func:`~dogs.samplers.metropolis.prepare_cmh` / :func:`~dogs.samplers.metropolis.run_cmh`,
:func:`~dogs.samplers.metropolis.prepare_cmh_lbp` / :func:`~dogs.samplers.metropolis.run_cmh_lbp`,
:func:`~dogs.samplers.exact_hmc.prepare_hmc` / :func:`~dogs.samplers.exact_hmc.run_hmc`,
:func:`~dogs.samplers.annular.prepare_annular` / :func:`~dogs.samplers.annular.run_annular` (then
:func:`~dogs.samplers.annular.annular_results`). For example::

    prepared = prepare_cmh(model, initial_state=np.ones(model.n_vars))   # checked once
    chain, work = run_cmh(prepared, seed, 1000)                          # run as often as needed
    result = plain_result(chain, work, prepared.edges, prepared.delta)   # == coordinate_metropolis(...)

The twelve samplers of the comparison are the table :data:`~dogs.samplers.suite.SAMPLER_SPECS` (sampler,
operator, prior, estimator per display name) and their run lengths the :class:`EqualCostBudget`.
"""

from dogs.samplers.annular import annular_results, annular_sampler, prepare_annular, run_annular
from dogs.samplers.base import Work, chain_seeds
from dogs.samplers.binary import (
    BinaryChain,
    BinaryChainResult,
    empirical_edge_tables,
    empirical_node_marginals,
    log_mean_exp_quadratic,
    plain_result,
)
from dogs.samplers.budget import EqualCostBudget, equal_cost_budget
from dogs.samplers.discrete_gibbs import DiscreteGibbsResult, most_frequent_labels, run_discrete_gibbs
from dogs.samplers.exact_hmc import exact_hmc, prepare_hmc, run_hmc
from dogs.samplers.gibbs import GibbsResult, run_gibbs
from dogs.samplers.metropolis import (coordinate_metropolis, coordinate_metropolis_lbp, prepare_cmh, prepare_cmh_lbp,
                                      run_cmh, run_cmh_lbp)
from dogs.samplers.points import SamplePointsResult, sample_points
from dogs.samplers.recording import LengthSamples, mean_by_scan_and_length, samples_at_lengths, samples_by_scan

__all__ = [
    "BinaryChain",
    "BinaryChainResult",
    "EqualCostBudget",
    "DiscreteGibbsResult",
    "GibbsResult",
    "LengthSamples",
    "SamplePointsResult",
    "Work",
    "annular_results",
    "annular_sampler",
    "chain_seeds",
    "coordinate_metropolis",
    "coordinate_metropolis_lbp",
    "empirical_edge_tables",
    "empirical_node_marginals",
    "equal_cost_budget",
    "exact_hmc",
    "log_mean_exp_quadratic",
    "mean_by_scan_and_length",
    "most_frequent_labels",
    "plain_result",
    "prepare_annular",
    "prepare_cmh",
    "prepare_cmh_lbp",
    "prepare_hmc",
    "run_annular",
    "run_cmh",
    "run_cmh_lbp",
    "run_discrete_gibbs",
    "run_gibbs",
    "run_hmc",
    "sample_points",
    "samples_at_lengths",
    "samples_by_scan",
]
