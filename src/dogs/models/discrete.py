r"""General discrete pairwise Markov random fields.

.. math::

    \pi(x) \propto \exp\Big(\sum_i \phi_i(x_i) + \sum_{(i,j) \in E} \theta^{ij}(x_i, x_j)\Big),
    \qquad x_i \in \{0, \dots, K_i - 1\},

the form of DoGS eq. (2) and Liu & Domke eq. (1), with each edge counted once
(``i < j``) and the unary terms kept apart from the pairwise tables. States
are integers ``0 .. K_i - 1``. A Potts model is the special case
``theta^{ij}(a, b) = sigma * [a == b]`` (DoGS eq. (4) for the Markov field
aspect model).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dogs.models.graph import check_edges, neighbour_lists

__all__ = ["DiscretePairwiseMRF", "cardinalities"]


@dataclass(frozen=True, eq=False)
class DiscretePairwiseMRF:
    """Discrete pairwise MRF with per-site unary log potentials and per-edge log-potential tables.

    Parameters
    ----------
    cardinalities : (p,) int array
        Number of states ``K_i >= 2`` of each variable.
    unary : sequence of p arrays
        ``unary[i]`` has shape ``(K_i,)``: the log potential ``phi_i``.
    edges : (E, 2) int array
        Unordered pairs with ``i < j`` (rows with ``i > j`` are flipped, and their tables transposed).
    tables : sequence of E arrays
        ``tables[e]`` has shape ``(K_i, K_j)`` for ``edges[e] = (i, j)``.
    shape : tuple, optional
        Lattice shape when the variables live on a grid (row-major numbering).
    """

    cardinalities: np.ndarray
    unary: tuple
    edges: np.ndarray
    tables: tuple
    shape: tuple[int, ...] | None = None
    indptr: np.ndarray = field(init=False, repr=False)
    neighbors: np.ndarray = field(init=False, repr=False)
    edge_of: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        card = np.asarray(self.cardinalities)
        if card.ndim != 1 or card.size < 1 or not np.issubdtype(card.dtype, np.integer):
            raise ValueError("cardinalities must be a non-empty 1-d integer array")
        if np.any(card < 2):
            raise ValueError("every variable needs at least 2 states")
        p = card.size
        if len(self.unary) != p:
            raise ValueError(f"unary must have one table per variable ({p}), got {len(self.unary)}")
        unary = []
        for i, u in enumerate(self.unary):
            u = np.asarray(u, dtype=np.float64)
            if u.shape != (card[i],):
                raise ValueError(f"unary[{i}] must have shape ({card[i]},), got {u.shape}")
            unary.append(u)
        edges = np.asarray(self.edges, dtype=np.int64).reshape(-1, 2)
        if len(self.tables) != len(edges):
            raise ValueError(f"tables must have one entry per edge ({len(edges)}), got {len(self.tables)}")
        flipped = edges[:, 0] > edges[:, 1]  # rows given as (j, i): their tables are transposed
        edges = check_edges(edges, p)
        tables = [np.asarray(t, dtype=np.float64) for t in self.tables]
        tables = [t.T if flip else t for t, flip in zip(tables, flipped)]
        for e, ((i, j), t) in enumerate(zip(edges, tables)):
            if t.shape != (card[i], card[j]):
                raise ValueError(f"tables[{e}] must have shape ({card[i]}, {card[j]}), got {t.shape}")
        if not all(np.all(np.isfinite(a)) for a in unary + tables):
            raise ValueError("log potentials must be finite")
        object.__setattr__(self, "cardinalities", card.astype(np.int64))
        object.__setattr__(self, "unary", tuple(unary))
        object.__setattr__(self, "edges", edges)
        object.__setattr__(self, "tables", tuple(tables))
        indptr, neighbors, edge_of = neighbour_lists(edges, p)
        object.__setattr__(self, "indptr", indptr)
        object.__setattr__(self, "neighbors", neighbors)
        object.__setattr__(self, "edge_of", edge_of)

    @property
    def n_vars(self) -> int:
        return self.cardinalities.size

    @property
    def n_edges(self) -> int:
        return len(self.edges)

    def pair_table(self, i: int, slot: int) -> np.ndarray:
        """Table of the CSR slot ``slot`` of site ``i``, oriented as ``(x_i, x_neighbour)``."""
        e = self.edge_of[slot]
        t = self.tables[e]
        return t if self.edges[e, 0] == i else t.T

    def log_potential(self, x) -> np.ndarray:
        """Unnormalised log density of integer states ``x`` with shape (..., p)."""
        x = np.asarray(x, dtype=np.int64)
        out = np.zeros(x.shape[:-1])
        for i, u in enumerate(self.unary):
            out = out + u[x[..., i]]
        for (i, j), t in zip(self.edges, self.tables):
            out = out + t[x[..., i], x[..., j]]
        return out

    def conditional(self, x, i: int) -> np.ndarray:
        """Full conditional ``pi(X_i = . | x_{-i})`` of one state ``x`` (shape (p,)) as a probability vector."""
        x = np.asarray(x, dtype=np.int64)
        logits = self.unary[i].copy()
        for slot in range(self.indptr[i], self.indptr[i + 1]):
            logits += self.pair_table(i, slot)[:, x[self.neighbors[slot]]]
        logits -= logits.max()
        w = np.exp(logits)
        return w / w.sum()

    @classmethod
    def potts(cls, edges, n_states: int, sigma: float, unary, shape=None) -> "DiscretePairwiseMRF":
        """Potts model ``sum_{(i,j)} sigma [x_i == x_j] + sum_i unary[i][x_i]`` (DoGS eq. (4))."""
        unary = np.asarray(unary, dtype=np.float64)
        p = unary.shape[0]
        edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
        table = sigma * np.eye(n_states)
        return cls(np.full(p, n_states), list(unary), edges, [table] * len(edges), shape=shape)


def cardinalities(model) -> np.ndarray:
    """States per variable of a binary (two each: label 0 = spin -1, label 1 = spin +1) or discrete model (a pairwise
    MRF or a factor graph: its own ``cardinalities``)."""
    card = getattr(model, "cardinalities", None)
    return np.full(model.n_vars, 2, dtype=np.int64) if card is None else card
