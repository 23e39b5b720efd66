"""Model parameter objects: binary pairwise MRFs (Ising), general discrete pairwise MRFs (Potts), discrete factor
graphs (any factors, Bayesian networks included: :mod:`dogs.models.factor_graph`), and their conversions from and
to pgmpy networks (:mod:`dogs.models.pgmpy_interop`) and UAI files (:mod:`dogs.models.uai`)."""

from dogs.models.binary import BinaryPairwiseMRF, grid_model
from dogs.models.discrete import DiscretePairwiseMRF
from dogs.models.factor_graph import DiscreteFactorGraph
from dogs.models.graph import grid_edges
from dogs.models.pgmpy_interop import PgmpyModel, from_pgmpy, to_pgmpy

__all__ = ["BinaryPairwiseMRF", "DiscreteFactorGraph", "DiscretePairwiseMRF", "PgmpyModel", "from_pgmpy", "grid_edges",
           "grid_model", "to_pgmpy"]
