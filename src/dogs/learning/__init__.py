"""Learning: MCMC maximum likelihood for binary pairwise MRFs and the fast-mixing parameter projection.

- :mod:`dogs.learning.projection`: Euclidean projection of Ising couplings onto ``{||R(theta)|| <= c}``
  (Liu & Domke 2014), for the induced ∞-norm and the spectral norm.
- :mod:`dogs.learning.mle`: exact moments by enumeration, the exact constrained optimum ``theta*``, and
  projected stochastic gradient ascent with Gibbs-sampled moments from any scan (DoGS §5.3).
"""

from dogs.learning.projection import NORMS, ProjectionResult, coupling_norm, project_couplings

__all__ = ["NORMS", "ProjectionResult", "coupling_norm", "project_couplings"]
