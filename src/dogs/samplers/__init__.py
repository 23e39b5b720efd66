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
"""

from dogs.samplers.annular import annular_sampler
from dogs.samplers.base import Work, chain_seeds
from dogs.samplers.binary import (
    BinaryChainResult,
    empirical_edge_tables,
    empirical_node_marginals,
    log_mean_exp_quadratic,
)
from dogs.samplers.budget import equal_cost_budget
from dogs.samplers.discrete_gibbs import DiscreteGibbsResult, most_frequent_labels, run_discrete_gibbs
from dogs.samplers.exact_hmc import exact_hmc
from dogs.samplers.gibbs import GibbsResult, run_gibbs
from dogs.samplers.metropolis import coordinate_metropolis, coordinate_metropolis_lbp
from dogs.samplers.points import SamplePointsResult, sample_points
from dogs.samplers.recording import LengthSamples, mean_by_scan_and_length, samples_at_lengths, samples_by_scan

__all__ = [
    "BinaryChainResult",
    "DiscreteGibbsResult",
    "GibbsResult",
    "LengthSamples",
    "SamplePointsResult",
    "Work",
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
    "run_discrete_gibbs",
    "run_gibbs",
    "sample_points",
    "samples_at_lengths",
    "samples_by_scan",
]
