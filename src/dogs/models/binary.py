r"""Binary pairwise Markov random fields with spins in {-1, +1}.

The target distribution is

.. math::

    \pi(x) \propto \exp\Big(\sum_{(i,j) \in E} \theta_{ij} x_i x_j + \sum_i \theta_i x_i\Big),
    \qquad x \in \{-1, +1\}^p,

with **each edge counted once** (``i < j``). This is DoGS eq. (3) with the
sum over unordered pairs: the paper writes ``i != j``, which would count every
coupling twice, but its proof of Theorem 11 (Appendix A.4) uses the full
conditional

.. math::

    \pi(X_i = 1 \mid X_{-i}) = \sigma\big(2 \textstyle\sum_k \theta_{ik} X_k + 2 \theta_i\big),

which is the single-count convention. Under it Theorem 11 gives the influence
``tanh|theta_ij|`` at zero field (tested in ``tests/test_bounds.py``).

Neighbour lists are stored in CSR form (``indptr``, ``neighbors``,
``coupling``) so that numba kernels can walk a site's Markov blanket with two
array reads; ``edge_of`` maps each CSR slot back to its edge. The graph helpers
(:func:`neighbour_lists`, :func:`grid_edges`) live in :mod:`dogs.models.graph`
and are re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from dogs.models.graph import check_edges, grid_edges, neighbour_lists

__all__ = ["BinaryPairwiseMRF", "grid_edges", "grid_model", "neighbour_lists"]


@dataclass(frozen=True, eq=False)
class BinaryPairwiseMRF:
    r"""Binary pairwise MRF ``pi(x) ∝ exp(sum_{i<j} theta_ij x_i x_j + sum_i h_i x_i)``, spins in {-1, +1}.

    Parameters
    ----------
    edges : (E, 2) int array
        Unordered pairs, stored with ``i < j``; no self-loops, no duplicates.
    theta : (E,) float array
        Coupling of each edge, aligned with ``edges``; counted once.
    h : (p,) float array
        Unary parameters ``theta_i`` (the field).
    shape : tuple of int, optional
        Lattice shape ``(rows, cols)`` when the model lives on a grid (row-major numbering).
    """

    edges: np.ndarray
    theta: np.ndarray
    h: np.ndarray
    shape: tuple[int, ...] | None = None
    indptr: np.ndarray = field(init=False, repr=False)
    neighbors: np.ndarray = field(init=False, repr=False)
    coupling: np.ndarray = field(init=False, repr=False)
    edge_of: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        h = np.asarray(self.h, dtype=np.float64)
        if h.ndim != 1 or h.size < 1:
            raise ValueError(f"h must be a non-empty 1-d array of unary parameters, got shape {h.shape}")
        p = h.size
        edges = check_edges(self.edges, p)
        theta = np.asarray(self.theta)
        if not np.issubdtype(theta.dtype, np.number) or np.iscomplexobj(theta):
            raise TypeError(f"theta (couplings) must be real numbers, got dtype {theta.dtype}")
        theta = np.broadcast_to(theta.astype(np.float64), (len(edges),)).copy() if theta.ndim == 0 else theta.astype(np.float64)
        if theta.shape != (len(edges),):
            raise ValueError(f"theta must have one coupling per edge: expected shape ({len(edges)},), got {theta.shape}")
        if not (np.all(np.isfinite(theta)) and np.all(np.isfinite(h))):
            raise ValueError("theta and h must be finite")
        if self.shape is not None and int(np.prod(self.shape)) != p:
            raise ValueError(f"shape {self.shape} does not match p = {p} variables")
        for name, value in (("edges", edges), ("theta", theta), ("h", h)):
            value.setflags(write=False)
            object.__setattr__(self, name, value)
        object.__setattr__(self, "shape", None if self.shape is None else tuple(int(s) for s in self.shape))
        self._build_csr()

    def _build_csr(self):
        indptr, neighbors, edge_of = neighbour_lists(self.edges, self.n_vars)
        for name, value in (
            ("indptr", indptr),
            ("neighbors", neighbors),
            ("coupling", self.theta[edge_of]),
            ("edge_of", edge_of),
        ):
            value.setflags(write=False)
            object.__setattr__(self, name, value)

    def with_parameters(self, theta, h) -> "BinaryPairwiseMRF":
        """The same graph with new couplings ``theta`` (one per edge) and field ``h``, without rebuilding it.

        The edge list, CSR neighbour lists and ``edge_of`` are shared (they are read-only); only the
        parameters are checked. Much cheaper than the constructor when the same graph is re-parameterised
        many times (an MCMC over parameters, say).
        """
        theta = np.array(theta, dtype=np.float64)
        h = np.array(h, dtype=np.float64)
        if theta.shape != (self.n_edges,) or h.shape != (self.n_vars,):
            raise ValueError(f"theta must have shape ({self.n_edges},) and h ({self.n_vars},), "
                             f"got {theta.shape} and {h.shape}")
        if not (np.isfinite(theta).all() and np.isfinite(h).all()):
            raise ValueError("theta and h must be finite")
        coupling = theta[self.edge_of]
        for value in (theta, h, coupling):  # the shared arrays are read-only already
            value.flags.writeable = False
        new = object.__new__(BinaryPairwiseMRF)
        for name, value in (("edges", self.edges), ("theta", theta), ("h", h), ("shape", self.shape),
                            ("indptr", self.indptr), ("neighbors", self.neighbors), ("coupling", coupling),
                            ("edge_of", self.edge_of)):
            object.__setattr__(new, name, value)
        return new

    # ------------------------------------------------------------------ basics
    @property
    def n_vars(self) -> int:
        return self.h.size

    @property
    def n_edges(self) -> int:
        return len(self.edges)

    @property
    def max_degree(self) -> int:
        return int(np.diff(self.indptr).max(initial=0))

    def neighbors_of(self, i: int) -> np.ndarray:
        return self.neighbors[self.indptr[i] : self.indptr[i + 1]]

    def coupling_matrix(self) -> sparse.csr_matrix:
        """Symmetric sparse matrix ``J`` with ``J[i, j] = J[j, i] = theta_ij``."""
        p = self.n_vars
        return sparse.csr_matrix((self.coupling, self.neighbors, self.indptr), shape=(p, p))

    # ------------------------------------------------------------ densities
    def log_potential(self, x) -> np.ndarray:
        """Unnormalised log density ``sum_e theta_e x_i x_j + sum_i h_i x_i`` of states ``x`` (..., p)."""
        x = self._check_states(x)
        pair = (x[..., self.edges[:, 0]] * x[..., self.edges[:, 1]]) @ self.theta
        return pair + x @ self.h

    def local_field(self, x) -> np.ndarray:
        """``f_i(x) = sum_k theta_ik x_k + h_i`` for every site (shape like ``x``)."""
        x = self._check_states(x)
        flat = x.reshape(-1, self.n_vars)
        return (self.coupling_matrix() @ flat.T).T.reshape(x.shape) + self.h

    def conditional_plus(self, x, i: int) -> np.ndarray:
        """``pi(X_i = +1 | x_{-i}) = sigma(2 f_i(x))`` (the value of ``x_i`` itself is ignored)."""
        x = self._check_states(x)
        nb = self.indptr[i], self.indptr[i + 1]
        f = x[..., self.neighbors[nb[0] : nb[1]]] @ self.coupling[nb[0] : nb[1]] + self.h[i]
        return 1.0 / (1.0 + np.exp(-2.0 * f))

    def flip_delta(self, x, i: int) -> np.ndarray:
        """Change of the log potential when ``x_i`` is flipped: ``-2 x_i f_i(x)``."""
        x = self._check_states(x)
        nb = self.indptr[i], self.indptr[i + 1]
        f = x[..., self.neighbors[nb[0] : nb[1]]] @ self.coupling[nb[0] : nb[1]] + self.h[i]
        return -2.0 * x[..., i] * f

    def _check_states(self, x) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        if x.shape[-1] != self.n_vars:
            raise ValueError(f"states must have last dimension p = {self.n_vars}, got shape {x.shape}")
        return x

    # ------------------------------------------------------------ conversion
    def to_discrete(self):
        """The same distribution as a :class:`~dogs.models.DiscretePairwiseMRF`, state 0 = -1, state 1 = +1."""
        from dogs.models.discrete import DiscretePairwiseMRF

        spins = np.array([-1.0, 1.0])
        unary = [self.h[i] * spins for i in range(self.n_vars)]
        tables = [t * np.outer(spins, spins) for t in self.theta]
        return DiscretePairwiseMRF(np.full(self.n_vars, 2), unary, self.edges, tables, shape=self.shape)

    def to_npz_dict(self) -> dict:
        """The arrays of the ``model.npz`` result format: ``shape``, ``edges``, ``theta``, ``h``."""
        shape = np.array(self.shape if self.shape is not None else (self.n_vars,), dtype=np.int64)
        return {"shape": shape, "edges": np.asarray(self.edges), "theta": np.asarray(self.theta), "h": np.asarray(self.h)}

    @classmethod
    def from_npz(cls, path) -> "BinaryPairwiseMRF":
        with np.load(path) as data:
            shape = tuple(int(s) for s in data["shape"])
            return cls(data["edges"], data["theta"], data["h"], shape=shape if len(shape) > 1 else None)

    @classmethod
    def dense(cls, coupling_matrix, h) -> "BinaryPairwiseMRF":
        """Fully connected model from a symmetric ``p x p`` matrix (upper triangle used; every pair is an edge)."""
        w = np.asarray(coupling_matrix, dtype=np.float64)
        if w.ndim != 2 or w.shape[0] != w.shape[1]:
            raise ValueError(f"coupling matrix must be square, got shape {w.shape}")
        if not np.allclose(w, w.T):
            raise ValueError("coupling matrix must be symmetric")
        iu = np.triu_indices(w.shape[0], k=1)
        return cls(np.stack(iu, axis=1), w[iu], h)


def grid_model(rows: int, cols: int, coupling, field=0.0, torus: bool = False) -> BinaryPairwiseMRF:
    """Ising model on an ``rows x cols`` lattice (open or toroidal).

    ``coupling`` is a scalar or one value per edge in :func:`grid_edges` order;
    ``field`` a scalar or one value per site (row-major).
    """
    edges = grid_edges(rows, cols, torus)
    h = _site_values("field", field, rows * cols)
    return BinaryPairwiseMRF(edges, coupling, h, shape=(rows, cols))


def _site_values(name: str, value, n_sites: int) -> np.ndarray:
    """A scalar or one real number per site, as a float array of length ``n_sites``; errors name ``name``."""
    array = np.asarray(value)
    if array.dtype == object or array.dtype == bool or not np.issubdtype(array.dtype, np.number) \
            or np.iscomplexobj(array):
        raise TypeError(f"{name} must be a real number or one real number per site, got {value!r:.60}")
    if array.ndim > 1 or (array.ndim == 1 and array.size != n_sites):
        raise ValueError(f"{name} must be a scalar or have one value per site ({n_sites}), got shape {array.shape}")
    array = np.broadcast_to(array.astype(np.float64), (n_sites,)).copy()
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite")
    return array
