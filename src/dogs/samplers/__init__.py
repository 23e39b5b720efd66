"""Samplers (numba kernels behind validating wrappers), all following one contract (:mod:`dogs.samplers.base`).

- :func:`run_gibbs`: Gibbs sampling of binary pairwise MRFs with any scan (DoGS Algorithm 1);
- :func:`samples_at_lengths`, :func:`samples_by_scan`, :func:`mean_by_scan_and_length`: many independent
  chains recorded after every length of a grid (:mod:`dogs.samplers.recording`);
- :class:`Work`: the work a run did, in site updates and single-flip density evaluations.
"""

from dogs.samplers.base import Work, chain_seeds
from dogs.samplers.gibbs import GibbsResult, run_gibbs
from dogs.samplers.recording import LengthSamples, mean_by_scan_and_length, samples_at_lengths, samples_by_scan

__all__ = [
    "GibbsResult",
    "LengthSamples",
    "Work",
    "chain_seeds",
    "mean_by_scan_and_length",
    "run_gibbs",
    "samples_at_lengths",
    "samples_by_scan",
]
