"""Argument checks shared by the exact-chain modules (:mod:`~dogs.exact.transitions`, :mod:`~dogs.exact.mixing`,
:mod:`~dogs.exact.distances`): cardinalities, site kernels, stationary distributions, start states, scans, epsilon.

Each check returns the validated value (as the array type the computations use) or raises ``ValueError`` naming
the argument; :func:`check_chain` validates the ``(kernels, stationary, scan)`` triple every mixing computation
takes.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["MAX_STATES", "check_cardinalities", "check_chain", "check_count", "check_epsilon", "check_kernels",
           "check_scan", "check_starts", "check_stationary"]

#: Largest number of states any function of the exact chains will enumerate or build a kernel over.
MAX_STATES = 2_000_000


def check_cardinalities(cardinalities, max_states=MAX_STATES) -> np.ndarray:
    """``K_i`` of each variable as int64, every one >= 1, their product at most ``max_states`` (``None``: no limit)."""
    card = np.asarray(cardinalities)
    if card.ndim != 1 or card.size < 1 or not np.issubdtype(card.dtype, np.integer):
        raise ValueError(f"cardinalities must be a non-empty 1-d integer sequence, got {cardinalities!r}")
    if np.any(card < 1):
        raise ValueError(f"cardinalities must all be >= 1, got {card.tolist()}")
    size = math.prod(int(k) for k in card)
    if max_states is not None and size > max_states:
        raise ValueError(
            f"cardinalities: the product space has {size} states, more than the exact-computation limit "
            f"max_states={max_states}"
        )
    return card.astype(np.int64)


def check_kernels(kernels) -> list:
    """The site kernels as a list: non-empty, every one square and of the same size."""
    kernels = list(kernels)
    if not kernels:
        raise ValueError("kernels must be a non-empty sequence of square matrices")
    n_states = kernels[0].shape[0]
    for k, kernel in enumerate(kernels):
        if kernel.ndim != 2 or kernel.shape != (n_states, n_states):
            raise ValueError(f"kernels[{k}] has shape {kernel.shape}; expected ({n_states}, {n_states})")
    return kernels


def check_stationary(stationary, n_states) -> np.ndarray:
    """A probability vector of ``n_states`` entries (non-negative, summing to 1)."""
    pi = np.asarray(stationary, dtype=np.float64)
    if pi.shape != (n_states,):
        raise ValueError(f"stationary must have shape ({n_states},), got {pi.shape}")
    if np.any(pi < 0) or not np.isclose(pi.sum(), 1.0, atol=1e-9):
        raise ValueError("stationary must be a probability vector (non-negative, summing to 1)")
    return pi


def check_starts(starts, pi) -> np.ndarray:
    """Distinct start state indices, sorted; ``None`` means every state with ``pi > 0``."""
    if starts is None:
        return np.flatnonzero(pi > 0)
    starts = np.asarray(starts)
    if starts.ndim != 1 or starts.size == 0 or not np.issubdtype(starts.dtype, np.integer):
        raise ValueError("starts must be a non-empty 1-d integer array of state indices")
    if starts.min() < 0 or starts.max() >= pi.size:
        raise ValueError(f"starts must be state indices in [0, {pi.size - 1}]")
    return np.unique(starts.astype(np.int64))


def check_epsilon(epsilon) -> float:
    """A TV threshold in (0, 1)."""
    if not isinstance(epsilon, (int, float, np.floating)) or not 0 < epsilon < 1:
        raise ValueError(f"epsilon must lie in (0, 1), got {epsilon!r}")
    return float(epsilon)


def check_count(value, name) -> int:
    """A non-negative integer (not a bool), named ``name`` in the error."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def check_scan(scan, n_sites) -> np.ndarray | None:
    """``None`` for the random scan, else the sweep as an int array (validated)."""
    if isinstance(scan, str):
        if scan != "random":
            raise ValueError(f"scan must be 'random' or a sequence of site indices, got scan={scan!r}")
        return None
    order = np.asarray(scan)
    if order.ndim != 1 or order.size == 0 or not np.issubdtype(order.dtype, np.integer):
        raise ValueError(f"scan must be 'random' or a non-empty 1-d sequence of site indices, got scan={scan!r}")
    if order.min() < 0 or order.max() >= n_sites:
        raise ValueError(f"scan: site indices must lie in [0, {n_sites - 1}]")
    return order.astype(np.int64)


def check_chain(kernels, stationary, scan) -> tuple[list, np.ndarray, np.ndarray | None]:
    """``(kernels, pi, sweep)`` validated: the site kernels (square, of one size), :math:`\\pi` over their states
    and the sweep of ``scan`` (``None`` for the random scan)."""
    kernels = check_kernels(kernels)
    pi = check_stationary(stationary, kernels[0].shape[0])
    return kernels, pi, check_scan(scan, len(kernels))
