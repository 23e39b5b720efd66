"""Approximate inference for pairwise MRFs.

- :func:`loopy_belief_propagation`: undamped sum-product loopy BP for binary (spin ±1) models, the
  mean-field approximation used by annular augmentation's LBP pseudo-prior.
"""

from dogs.inference.loopy_bp import SCHEDULES, LBPResult, loopy_belief_propagation

__all__ = ["SCHEDULES", "LBPResult", "loopy_belief_propagation"]
