"""Model parameter objects: binary pairwise MRFs (Ising), general discrete pairwise MRFs (Potts)."""

from dogs.models.binary import BinaryPairwiseMRF, grid_edges, grid_model
from dogs.models.discrete import DiscretePairwiseMRF

__all__ = ["BinaryPairwiseMRF", "DiscretePairwiseMRF", "grid_edges", "grid_model"]
