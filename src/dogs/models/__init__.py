"""Model parameter objects: binary pairwise MRFs (Ising), general discrete pairwise MRFs (Potts)."""

from dogs.models.binary import BinaryPairwiseMRF, grid_model
from dogs.models.discrete import DiscretePairwiseMRF
from dogs.models.graph import grid_edges

__all__ = ["BinaryPairwiseMRF", "DiscretePairwiseMRF", "grid_edges", "grid_model"]
