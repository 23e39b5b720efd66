"""Model parameter objects: binary pairwise MRFs (Ising), general discrete pairwise MRFs (Potts), and their
conversions from and to pgmpy Markov networks (:mod:`dogs.models.pgmpy_interop`) and UAI files
(:mod:`dogs.models.uai`)."""

from dogs.models.binary import BinaryPairwiseMRF, grid_model
from dogs.models.discrete import DiscretePairwiseMRF
from dogs.models.graph import grid_edges
from dogs.models.pgmpy_interop import PgmpyModel, from_pgmpy, to_pgmpy

__all__ = ["BinaryPairwiseMRF", "DiscretePairwiseMRF", "PgmpyModel", "from_pgmpy", "grid_edges", "grid_model",
           "to_pgmpy"]
