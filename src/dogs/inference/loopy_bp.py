r"""Loopy belief propagation (sum-product) for binary pairwise MRFs with spins in {-1, +1}.

The target is :class:`~dogs.models.binary.BinaryPairwiseMRF`,

.. math::

    p(s) \propto \exp\Big(\sum_{(i,j) \in E} \theta_{ij} s_i s_j + \sum_i h_i s_i\Big),
    \qquad s \in \{-1, +1\}^d,

each edge counted once. Its LBP node marginals are the mean-field approximation ``\hat p``
that annular augmentation (Fagan, Bhandari & Cunningham 2017, Section 2.1) uses as its
pseudo-prior; the paper ran Schmidt's UGM loopy BP, whose settings are followed here:
sequential node-order updates, no damping, uniform initial messages, normalised messages,
stop when the summed absolute message change of an iteration is below ``1e-4`` or after
100 iterations.

LBP reads the couplings of the same model object the samplers target (each edge once), so the
approximation and the exact truth (:mod:`dogs.exact`) always refer to one distribution.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from dogs._kernels.loopy_bp import PARALLEL, SEQUENTIAL, loopy_bp_fields
from dogs.models.binary import BinaryPairwiseMRF

__all__ = ["LBPResult", "SCHEDULES", "loopy_belief_propagation"]

SCHEDULES = {"sequential": SEQUENTIAL, "parallel": PARALLEL}


@dataclass(frozen=True, eq=False)
class LBPResult:
    """Beliefs and convergence record of a loopy belief propagation run.

    Parameters
    ----------
    node_marginals : (d,) float array
        Node beliefs ``b_i(s_i = +1)``.
    edge_beliefs : (E, 2, 2) float array
        ``edge_beliefs[e, a, b] = b_ij(s_i = 2a - 1, s_j = 2b - 1)`` for ``model.edges[e] = (i, j)``,
        ``i < j`` (so ``[e, 0, 0]`` is ``(-1, -1)`` and ``[e, 1, 1]`` is ``(+1, +1)``); each table sums to 1.
    converged : bool
        Whether an iteration's summed absolute message change fell below ``tolerance``.
    iterations : int
        Iterations run (one iteration recomputes every directed message once).
    final_change : float
        Summed absolute message change of the last iteration (NaN if no iteration ran).
    change_history : (iterations,) float array
        The summed absolute message change of every iteration.
    messages : (2E, 2) float array
        Final normalised messages by CSR slot of the model: for slot ``t`` of row ``i``
        (``model.indptr[i] <= t < model.indptr[i + 1]``) and ``k = model.neighbors[t]``,
        ``messages[t, a] = m_{k->i}(s_i = 2a - 1)``, the message *into* ``i`` from ``k``.
    schedule : str
        ``"sequential"`` or ``"parallel"``.
    tolerance : float
    max_iterations : int
    """

    node_marginals: np.ndarray
    edge_beliefs: np.ndarray
    converged: bool
    iterations: int
    final_change: float
    change_history: np.ndarray
    messages: np.ndarray
    schedule: str
    tolerance: float
    max_iterations: int


def _check_tolerance(tolerance) -> float:
    if isinstance(tolerance, bool) or not isinstance(tolerance, numbers.Real):
        raise TypeError(f"tolerance must be a real number, got {type(tolerance).__name__}")
    tolerance = float(tolerance)
    if not (np.isfinite(tolerance) and tolerance > 0.0):
        raise ValueError(f"tolerance must be a finite number > 0, got {tolerance}")
    return tolerance


def _check_max_iterations(max_iterations) -> int:
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, (int, np.integer)):
        raise TypeError(f"max_iterations must be an integer, got {type(max_iterations).__name__}")
    if max_iterations < 0:
        raise ValueError(f"max_iterations must be >= 0, got {max_iterations}")
    return int(max_iterations)


def _reverse_slots(model: BinaryPairwiseMRF) -> np.ndarray:
    """``reverse[t]``: the CSR slot of the opposite direction of slot ``t`` (same edge, other endpoint)."""
    by_edge = np.argsort(model.edge_of, kind="stable").reshape(-1, 2)  # the two slots of each edge
    reverse = np.empty(model.neighbors.size, dtype=np.int64)
    reverse[by_edge[:, 0]] = by_edge[:, 1]
    reverse[by_edge[:, 1]] = by_edge[:, 0]
    return reverse


def loopy_belief_propagation(
    model: BinaryPairwiseMRF,
    *,
    tolerance: float = 1e-4,
    max_iterations: int = 100,
    schedule: str = "sequential",
) -> LBPResult:
    r"""Sum-product loopy belief propagation, undamped, from uniform messages.

    Messages are normalised distributions over the receiving spin,

    .. math::

        m_{i \to j}(s_j) \propto \sum_{s_i \in \{-1, +1\}} e^{h_i s_i + \theta_{ij} s_i s_j}
        \prod_{k \in N(i) \setminus \{j\}} m_{k \to i}(s_i), \qquad
        \sum_{s_j} m_{i \to j}(s_j) = 1,

    all starting at ``m = (1/2, 1/2)``. In terms of the message field ``u_{i->j}``,
    ``m_{i->j}(s) ∝ exp(u_{i->j} s)``, the update is
    ``u_{i->j} = (log cosh(c + theta_ij) - log cosh(c - theta_ij)) / 2`` with the cavity field
    ``c = h_i + sum_{k in N(i) \ j} u_{k->i}``; it is evaluated in a form that cannot overflow for
    any coupling strength. The beliefs are

    .. math::

        b_i(s_i) \propto e^{h_i s_i} \prod_{k \in N(i)} m_{k \to i}(s_i), \qquad
        b_{ij}(s_i, s_j) \propto e^{\theta_{ij} s_i s_j + h_i s_i + h_j s_j}
        \prod_{k \in N(i) \setminus j} m_{k \to i}(s_i) \prod_{l \in N(j) \setminus i} m_{l \to j}(s_j).

    On a tree (forest) the beliefs are the exact marginals once converged.

    Parameters
    ----------
    model : BinaryPairwiseMRF
    tolerance : float, default 1e-4
        Stop after the first iteration whose change ``sum_{i->j} sum_{s} |m_new(s) - m_old(s)|``
        (over all ``2E`` directed messages and both states, between the start and the end of the
        iteration) is ``< tolerance``.
    max_iterations : int, default 100
        Cap on the number of iterations (``0`` returns the beliefs of the uniform messages, i.e.
        the local fields alone, with ``converged=False``).
    schedule : {"sequential", "parallel"}, default "sequential"
        ``"sequential"``: in every iteration, for ``i = 0, 1, ..., d-1`` in node order, recompute all
        messages *out of* node ``i`` (to its neighbours in increasing order) from the current messages
        into ``i``, each new message used at once by later nodes of the same iteration (the node-wise
        Gauss-Seidel schedule of Schmidt's UGM ``LoopyBP``; since messages out of one node do not depend
        on each other, it is the same as per-directed-edge updates in (source, target) order).
        ``"parallel"``: every message computed from the previous iteration's messages (flooding).

    Returns
    -------
    LBPResult
        Node beliefs ``b_i(+1)``, edge beliefs aligned with ``model.edges``, convergence record.

    Raises
    ------
    TypeError
        If ``model`` is not a ``BinaryPairwiseMRF``, or a parameter has the wrong type.
    ValueError
        If ``tolerance`` is not finite and positive, ``max_iterations`` is negative, or ``schedule``
        is unknown.

    Notes
    -----
    Non-convergence is reported (``converged=False``), not raised: with strong frustrated couplings
    undamped LBP can oscillate forever; the beliefs returned are then those of the last iteration.
    With zero field every ``u = 0`` is a fixed point, so from uniform messages LBP stops after one
    iteration with ``b_i(+1) = 1/2`` for any couplings.
    """
    if not isinstance(model, BinaryPairwiseMRF):
        raise TypeError(f"model must be a BinaryPairwiseMRF, got {type(model).__name__}")
    tolerance = _check_tolerance(tolerance)
    max_iterations = _check_max_iterations(max_iterations)
    if not isinstance(schedule, str) or schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {sorted(SCHEDULES)}, got {schedule!r}")

    indptr, neighbors, coupling = model.indptr, model.neighbors, model.coupling
    u_in = np.zeros(neighbors.size, dtype=np.float64)
    changes = np.empty(max_iterations, dtype=np.float64)
    iterations, converged = loopy_bp_fields(
        indptr, neighbors, coupling, _reverse_slots(model), model.h, u_in,
        SCHEDULES[schedule], tolerance, max_iterations, changes,
    )  # fmt: skip
    iterations = int(iterations)

    # node beliefs: total field F_i = h_i + sum_k u_{k->i}
    owner = np.repeat(np.arange(model.n_vars), np.diff(indptr))
    total = model.h + np.bincount(owner, weights=u_in, minlength=model.n_vars)
    node_marginals = expit(2.0 * total)

    # edge beliefs: cavity fields of both endpoints with the edge's own message removed
    slot_i = np.empty(model.n_edges, dtype=np.int64)  # slot of row i (i < j) pointing at j: holds u_{j->i}
    slot_j = np.empty(model.n_edges, dtype=np.int64)  # slot of row j pointing at i: holds u_{i->j}
    lower = owner < neighbors
    slot_i[model.edge_of[lower]] = np.flatnonzero(lower)
    slot_j[model.edge_of[~lower]] = np.flatnonzero(~lower)
    c_i = total[model.edges[:, 0]] - u_in[slot_i]
    c_j = total[model.edges[:, 1]] - u_in[slot_j]
    spins = np.array([-1.0, 1.0])
    log_b = (
        model.theta[:, None, None] * spins[None, :, None] * spins[None, None, :]
        + c_i[:, None, None] * spins[None, :, None]
        + c_j[:, None, None] * spins[None, None, :]
    )
    edge_beliefs = np.exp(log_b - log_b.max(axis=(1, 2), keepdims=True, initial=-np.inf))
    edge_beliefs /= edge_beliefs.sum(axis=(1, 2), keepdims=True)

    messages = np.stack([expit(-2.0 * u_in), expit(2.0 * u_in)], axis=1)
    history = changes[:iterations].copy()
    for a in (node_marginals, edge_beliefs, messages, history):
        a.setflags(write=False)
    return LBPResult(
        node_marginals=node_marginals,
        edge_beliefs=edge_beliefs,
        converged=bool(converged),
        iterations=iterations,
        final_change=float(history[-1]) if iterations else float("nan"),
        change_history=history,
        messages=messages,
        schedule=schedule,
        tolerance=tolerance,
        max_iterations=max_iterations,
    )
