"""Samplers: Gibbs sampling with any scan (numba kernels behind validating wrappers)."""

from dogs.samplers.gibbs import GibbsResult, chain_seeds, run_gibbs

__all__ = ["GibbsResult", "chain_seeds", "run_gibbs"]
