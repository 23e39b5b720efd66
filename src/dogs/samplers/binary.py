r"""What the binary samplers of the annular-augmentation paper return, and the plain estimators.

Target: a binary pairwise MRF :class:`~dogs.models.BinaryPairwiseMRF`,
``p(s) ∝ exp(sum_{i<j} theta_ij s_i s_j + sum_i h_i s_i)`` on ``s in {-1, +1}^d`` (each edge once). The
unit of work is the single-flip log-density difference

.. math::

    \Delta_i(s) = \log p(s^{(i)}) - \log p(s) = -2 s_i \Big(h_i + \sum_{j \in N(i)} \theta_{ij} s_j\Big),

where :math:`s^{(i)}` is ``s`` with coordinate ``i`` flipped (Fagan, Bhandari & Cunningham 2017, §3:
samplers are compared at an equal number of such evaluations).

Every sampler (annular augmentation, coordinate Metropolis-Hastings, exact HMC) returns a
:class:`BinaryChainResult`: the final state, the recorded states, the estimates of the node marginals
``p(s_i = +1)`` and of the 2x2 tables ``p(s_i = a, s_j = b)`` of the requested edges (plain averages
over the recorded states, or Rao-Blackwellised where the sampler offers it), optionally the estimate
of a log partition-function ratio, and the :class:`~dogs.samplers.base.Work` done.

Table layout: ``edge_tables[e, a, b] = p(s_i = 2a - 1, s_j = 2b - 1)`` for ``edges[e] = (i, j)``, i.e.
index 0 is the spin -1 and index 1 the spin +1.

Log partition-function ratio (AA eq. 5): for a second quadratic form
``q(s) = sum_{i<j} dtheta_ij s_i s_j + sum_i dh_i s_i`` (given as a BinaryPairwiseMRF ``delta``),
``log E_p[exp q(s)] = log Z(theta + dtheta, h + dh) - log Z(theta, h)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dogs._kernels.quadratic import quadratic_values
from dogs._kernels.tables import state_counts
from dogs.models.binary import BinaryPairwiseMRF
from dogs.samplers.base import Work

__all__ = ["BinaryChain", "BinaryChainResult", "empirical_edge_tables", "empirical_estimates",
           "empirical_node_marginals", "log_mean_exp_quadratic", "plain_result"]


@dataclass(frozen=True, eq=False)
class BinaryChain:
    """What the ``run`` layer of a single-chain binary sampler returns beside its :class:`~dogs.samplers.base.Work`:
    the chain itself, before any estimate.

    Attributes
    ----------
    samples : (N, d) int8 array
        The recorded states.
    state : (d,) int8 array
        The final state.
    sample_weights : (N,) float array or None
        As in :class:`BinaryChainResult`.
    """

    samples: np.ndarray
    state: np.ndarray
    sample_weights: np.ndarray | None = None


@dataclass(frozen=True, eq=False)
class BinaryChainResult:
    """Output of one binary sampler run (one chain).

    Attributes
    ----------
    state : (d,) int8 array
        The final state.
    samples : (N, d) int8 array
        The recorded states (one per iteration of the sampler; what "iteration" means is the sampler's).
    node_marginals : (d,) float array
        Estimate of ``p(s_i = +1)``.
    edge_tables : (E, 2, 2) float array
        Estimate of the 2x2 tables of ``edges`` (see the module docstring for the layout).
    edges : (E, 2) int64 array
    log_ratio : float or None
        Estimate of ``log E_p[exp q(s)]`` when a ``delta`` form was given.
    work : Work
        Site updates and single-flip density evaluations actually used.
    rao_blackwellised : bool
        Whether the estimates are Rao-Blackwellised.
    sample_weights : (N,) float array or None
        How many times each row of ``samples`` was recorded, when a sampler stores a state held over
        several recording points once (the proposal-budget form of CMH + LBP); ``None``: each row once.
        The plain estimates are then weighted averages.
    """

    state: np.ndarray
    samples: np.ndarray
    node_marginals: np.ndarray
    edge_tables: np.ndarray
    edges: np.ndarray
    log_ratio: float | None
    work: Work
    rao_blackwellised: bool = False
    sample_weights: np.ndarray | None = None

    @property
    def states(self) -> np.ndarray:
        """The final state as a ``(1, d)`` array (the sampler contract's ``states``)."""
        return self.state[None, :]


_CHUNK_ROWS = 1 << 15  # weighted estimates go through the rows in chunks, so no (rows x edges) float copy is made


def _mean(values, weights) -> np.ndarray:
    """Mean over axis 0, or the ``weights``-weighted mean (each row counted ``weights[n]`` times)."""
    if weights is None:
        return values.mean(axis=0)
    weights = np.asarray(weights, dtype=np.float64)
    return np.tensordot(weights / weights.sum(), values, axes=(0, 0))


def _chunked_mean(samples, weights, statistic) -> np.ndarray:
    """``_mean(statistic(samples), weights)`` computed ``_CHUNK_ROWS`` rows at a time when weighted."""
    if weights is None:
        return _mean(statistic(samples), None)
    weights = np.asarray(weights, dtype=np.float64)
    total = weights.sum()
    out = 0.0
    for start in range(0, len(samples), _CHUNK_ROWS):
        rows = slice(start, start + _CHUNK_ROWS)
        out = out + np.tensordot(weights[rows] / total, statistic(samples[rows]), axes=(0, 0))
    return out


#: Whole-number counts are summed exactly in int64 while their total stays below this (float64's exact integers).
_EXACT_TOTAL = 2.0**53


def _row_counts(weights, n_rows: int):
    """``(counts (N,) int64, total as float64)`` of the recorded states (1 each when ``weights`` is None), or
    ``None`` when the weights are not whole numbers ``>= 0`` with a total below ``2^53``."""
    if weights is None:
        return np.ones(n_rows, dtype=np.int64), float(n_rows)
    weights = np.asarray(weights, dtype=np.float64)
    if weights.shape != (n_rows,):
        raise ValueError(f"weights must have one entry per recorded state ({n_rows}), got shape {weights.shape}")
    total = weights.sum()
    if not (np.all(weights >= 0.0) and np.all(weights == np.floor(weights)) and total < _EXACT_TOTAL):
        return None
    return weights.astype(np.int64), total


def _counted_estimates(samples, edges, weights):
    """``(node marginals, edge tables)`` counted exactly by :func:`dogs._kernels.tables.state_counts` when ``samples``
    are int8 states (what every sampler records) with whole-number weights; ``None`` otherwise."""
    if samples.dtype != np.int8 or samples.ndim != 2:
        return None
    counted = _row_counts(weights, samples.shape[0])
    if counted is None:
        return None
    if len(edges) and (edges.min() < 0 or edges.max() >= samples.shape[1]):
        raise IndexError(f"edges must index the {samples.shape[1]} variables of the samples")
    counts, total = counted
    plus = np.empty(samples.shape[1], dtype=np.int64)
    table = np.empty((edges.shape[0], 2, 2), dtype=np.int64)
    state_counts(np.ascontiguousarray(samples), counts, edges, plus, table)
    return plus / total, table / total


def _edge_array(edges) -> np.ndarray:
    return np.asarray(edges, dtype=np.int64).reshape(-1, 2)


def empirical_node_marginals(samples, weights=None) -> np.ndarray:
    """Fraction of the recorded states with ``s_i = +1`` (row ``n`` counted ``weights[n]`` times if given).

    int8 states with whole-number weights (what every sampler records) are counted exactly by
    :mod:`dogs._kernels.tables`: the count over the total, the correctly rounded (weighted) mean of the indicators."""
    samples = np.asarray(samples)
    counted = _counted_estimates(samples, _edge_array([]), weights)
    if counted is not None:
        return counted[0]
    if weights is None:
        return np.count_nonzero(samples == 1, axis=0) / samples.shape[0]
    return _chunked_mean(samples, weights, lambda x: x == 1)


def empirical_edge_tables(samples, edges, weights=None) -> np.ndarray:
    """Empirical 2x2 tables ``p(s_i = a, s_j = b)`` of ``edges`` over the recorded states (optionally weighted;
    int8 states counted as in :func:`empirical_node_marginals`)."""
    samples = np.asarray(samples)
    edges = _edge_array(edges)
    if not len(edges):  # no tables asked for (a log partition-function ratio alone)
        return np.zeros((0, 2, 2))
    counted = _counted_estimates(samples, edges, weights)
    if counted is not None:
        return counted[1]

    def cells(x):
        plus_i, plus_j = x[:, edges[:, 0]] == 1, x[:, edges[:, 1]] == 1
        return np.stack([~plus_i & ~plus_j, ~plus_i & plus_j, plus_i & ~plus_j, plus_i & plus_j], axis=-1)

    return _chunked_mean(samples, weights, cells).reshape(edges.shape[0], 2, 2)


def empirical_estimates(samples, edges, weights=None) -> tuple[np.ndarray, np.ndarray]:
    """``(empirical_node_marginals(samples, weights), empirical_edge_tables(samples, edges, weights))``, the same
    numbers, counted in one pass for int8 states."""
    samples = np.asarray(samples)
    edges = _edge_array(edges)
    counted = _counted_estimates(samples, edges, weights)
    if counted is not None:
        return counted
    return empirical_node_marginals(samples, weights), empirical_edge_tables(samples, edges, weights)


def log_mean_exp_quadratic(samples, delta: BinaryPairwiseMRF, weights=None) -> float:
    """``log mean_n exp q(s_n)`` over the recorded states (optionally weighted), computed stably (AA eq. 5).

    int8 states (what every sampler records) go through :func:`dogs._kernels.quadratic.quadratic_values`,
    one pass over the CSR lists per state; other arrays through
    :meth:`~dogs.models.BinaryPairwiseMRF.log_potential`. The two agree up to floating-point rounding.
    """
    samples = np.asarray(samples)
    if samples.dtype == np.int8 and samples.ndim == 2 and samples.shape[1] == delta.n_vars:
        values = np.empty(samples.shape[0])
        quadratic_values(delta.indptr, delta.neighbors, delta.coupling, delta.h, np.ascontiguousarray(samples), values)
    else:
        values = delta.log_potential(np.asarray(samples, dtype=np.float64))
    top = float(np.max(values))
    return top + float(np.log(_mean(np.exp(values - top), weights)))


def plain_result(chain: BinaryChain, work: Work, edges: np.ndarray, delta: BinaryPairwiseMRF | None) -> BinaryChainResult:
    """The plain estimates of a chain (averages over its recorded states, weighted by ``sample_weights``) of the node
    marginals, of the 2x2 tables of ``edges`` (checked ``(E, 2)`` int64) and, given ``delta``, of
    ``log E_p[exp q]``."""
    weights = chain.sample_weights
    node_marginals, edge_tables = empirical_estimates(chain.samples, edges, weights)
    return BinaryChainResult(
        state=chain.state,
        samples=chain.samples,
        node_marginals=node_marginals,
        edge_tables=edge_tables,
        edges=edges,
        log_ratio=None if delta is None else log_mean_exp_quadratic(chain.samples, delta, weights),
        work=work,
        rao_blackwellised=False,
        sample_weights=weights,
    )
