r"""Boltzmann machines on {0, 1} units and their spin (±1) form.

A fully visible Boltzmann machine on ``y in {0, 1}^d`` (Fagan, Bhandari & Cunningham 2017, §3.2,
written there in spins) is

.. math::

    p_{01}(y) \propto f_{01}(y) = \exp\Big(\sum_{i<j} W_{ij} y_i y_j + \sum_i b_i y_i\Big).

With ``y = (s + 1) / 2``, ``s in {-1, +1}^d``, and ``y_i y_j = (s_i s_j + s_i + s_j + 1) / 4``,

.. math::

    \log f_{01}(y) = \underbrace{\sum_{i<j} \tfrac{W_{ij}}{4} s_i s_j
        + \sum_i \Big(\tfrac{b_i}{2} + \sum_{j \ne i} \tfrac{W_{ij}}{4}\Big) s_i}_{\log f_{\pm}(s)}
        + \underbrace{\sum_{i<j} \tfrac{W_{ij}}{4} + \sum_i \tfrac{b_i}{2}}_{\text{offset}},

so the spin model is a :class:`~dogs.models.binary.BinaryPairwiseMRF` (each edge counted once) with
``theta_ij = W_ij / 4`` and ``h_i = b_i / 2 + sum_{j != i} W_ij / 4``, and

.. math::

    \log f_{01}(y) = \log f_{\pm}(s) + \text{offset}, \qquad \log Z_{01} = \log Z_{\pm} + \text{offset}.

Both forms describe the same distribution; only the unnormalised densities differ by the
constant. The log-likelihood of {0, 1} data ``Y`` (``N x d``) is therefore
``model.log_potential(zero_one_to_spin(Y)).sum() + N * offset - N * log Z_01``
``= model.log_potential(zero_one_to_spin(Y)).sum() - N * log Z_spin``.

Every conversion is exact algebra: the coupling of the {0, 1} form is exactly 4 times the spin
coupling (do not halve it again: a coupling matrix entering ``s^T M s`` over *ordered* pairs counts
each edge twice).
"""

from __future__ import annotations

import numpy as np

from dogs.models.binary import BinaryPairwiseMRF

__all__ = ["boltzmann_to_spin", "spin_to_boltzmann", "spin_to_zero_one", "zero_one_to_spin"]

SYMMETRY_RTOL = 1e-12
SYMMETRY_ATOL = 1e-12


def _check_weights(W, b) -> tuple[np.ndarray, np.ndarray]:
    """Upper triangle of a valid ``W`` (symmetric or strictly upper triangular, zero diagonal) and ``b``."""
    W = np.asarray(W)
    b = np.asarray(b)
    for name, value in (("W", W), ("b", b)):
        if not np.issubdtype(value.dtype, np.number) or np.iscomplexobj(value):
            raise TypeError(f"{name} must hold real numbers, got dtype {value.dtype}")
    W = W.astype(np.float64)
    b = b.astype(np.float64)
    if b.ndim != 1 or b.size < 1:
        raise ValueError(f"b must be a non-empty 1-d array of biases, got shape {b.shape}")
    d = b.size
    if W.shape != (d, d):
        raise ValueError(f"W must be a ({d}, {d}) matrix to match b, got shape {W.shape}")
    if not (np.all(np.isfinite(W)) and np.all(np.isfinite(b))):
        raise ValueError("W and b must be finite")
    if np.any(np.diag(W) != 0.0):
        raise ValueError(
            "W must have a zero diagonal (a unit has no self-coupling; since y_i**2 = y_i, put W_ii into b_i)"
        )
    lower = np.tril(W, -1)
    upper = np.triu(W, 1)
    if np.any(lower != 0.0) and not np.allclose(W, W.T, rtol=SYMMETRY_RTOL, atol=SYMMETRY_ATOL):
        worst = np.unravel_index(np.argmax(np.abs(W - W.T)), W.shape)
        raise ValueError(
            "W must be symmetric or strictly upper triangular (zero below the diagonal); "
            f"W[{worst[0]}, {worst[1]}] = {W[worst]} but W[{worst[1]}, {worst[0]}] = {W[worst[::-1]]}"
        )
    return upper, b


def _check_edges(edges, upper: np.ndarray) -> np.ndarray:
    d = upper.shape[0]
    if edges is None:
        return np.stack(np.triu_indices(d, 1), axis=1).astype(np.int64)
    edges = np.asarray(edges)
    if edges.size == 0:
        edges = np.zeros((0, 2), dtype=np.int64)
    if edges.ndim != 2 or edges.shape[1] != 2 or not np.issubdtype(edges.dtype, np.integer):
        raise ValueError(f"edges must be an (E, 2) integer array, got shape {edges.shape}, dtype {edges.dtype}")
    edges = np.sort(edges.astype(np.int64), axis=1)
    if edges.size and (edges.min() < 0 or edges.max() >= d):
        raise ValueError(f"edges must index units 0..{d - 1}")
    kept = np.zeros((d, d), dtype=bool)
    kept[edges[:, 0], edges[:, 1]] = True
    outside = (upper != 0.0) & ~kept
    if np.any(outside):
        i, j = np.argwhere(outside)[0]
        raise ValueError(f"W[{i}, {j}] = {upper[i, j]} is nonzero but ({i}, {j}) is not in edges")
    return edges


def boltzmann_to_spin(W, b, *, edges=None) -> tuple[BinaryPairwiseMRF, float]:
    r"""The spin model of a {0, 1} Boltzmann machine, and the log-density offset between the two.

    Parameters
    ----------
    W : (d, d) array
        Couplings ``W_ij`` of ``exp(sum_{i<j} W_ij y_i y_j + sum_i b_i y_i)``. Either symmetric
        (entries ``W_ij = W_ji``; only the upper triangle is read; asymmetry beyond a relative
        ``1e-12`` is an error) or strictly upper triangular (everything below the diagonal zero).
        The diagonal must be zero.
    b : (d,) array
        Biases.
    edges : (E, 2) int array, optional
        Pairs to keep as edges of the spin model. Default: every pair ``i < j`` (a fully connected
        model, as for the BM experiment, whatever the values of ``W``). ``W`` must be zero on the
        pairs left out.

    Returns
    -------
    model : BinaryPairwiseMRF
        ``theta_ij = W_ij / 4`` on ``edges`` (in the given order, ``i < j``) and
        ``h_i = b_i / 2 + sum_{j != i} W_ij / 4``.
    offset : float
        ``sum_{i<j} W_ij / 4 + sum_i b_i / 2``, so that ``log f01(y) = model.log_potential(2y - 1) + offset``
        at every ``y`` and ``log Z_01 = log Z_spin + offset``.

    Raises
    ------
    TypeError
        If ``W`` or ``b`` is not real-valued.
    ValueError
        On a shape mismatch, non-finite values, a nonzero diagonal, an asymmetric ``W`` that is not
        upper triangular, or a nonzero ``W_ij`` outside ``edges``.
    """
    upper, b = _check_weights(W, b)
    edges = _check_edges(edges, upper)
    sym = upper + upper.T
    theta = upper[edges[:, 0], edges[:, 1]] / 4.0
    h = b / 2.0 + sym.sum(axis=1) / 4.0
    offset = float(upper.sum() / 4.0 + b.sum() / 2.0)
    return BinaryPairwiseMRF(edges, theta, h), offset


def spin_to_boltzmann(model: BinaryPairwiseMRF) -> tuple[np.ndarray, np.ndarray, float]:
    r"""The {0, 1} Boltzmann machine of a spin model: ``(W, b, offset)``.

    ``W`` is the symmetric ``(d, d)`` matrix with ``W_ij = W_ji = 4 theta_ij`` on the model's edges and
    zeros elsewhere (zero diagonal), ``b_i = 2 h_i - 2 sum_{j in N(i)} theta_ij``, and
    ``offset = sum_i h_i - sum_e theta_e`` is the same constant as in :func:`boltzmann_to_spin`:
    ``log f01(y) = model.log_potential(2y - 1) + offset``. ``boltzmann_to_spin(W, b, edges=model.edges)``
    gives back ``model``'s ``theta`` exactly and its ``h`` to rounding.
    """
    if not isinstance(model, BinaryPairwiseMRF):
        raise TypeError(f"model must be a BinaryPairwiseMRF, got {type(model).__name__}")
    d = model.n_vars
    W = np.zeros((d, d))
    i, j = model.edges[:, 0], model.edges[:, 1]
    W[i, j] = 4.0 * model.theta
    W[j, i] = 4.0 * model.theta
    neighbour_sum = np.bincount(i, weights=model.theta, minlength=d) + np.bincount(j, weights=model.theta, minlength=d)
    b = 2.0 * model.h - 2.0 * neighbour_sum
    offset = float(model.h.sum() - model.theta.sum())
    return W, b, offset


def _check_values(x, allowed: tuple[int, int], name: str) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype == bool:
        x = x.astype(np.int8)
    if not np.issubdtype(x.dtype, np.number) or np.iscomplexobj(x):
        raise TypeError(f"{name} must hold numbers, got dtype {x.dtype}")
    bad = (x != allowed[0]) & (x != allowed[1])
    if np.any(bad):
        raise ValueError(f"{name} must hold only {allowed[0]} and {allowed[1]}; found {x[bad].flat[0]!r}")
    return x


def zero_one_to_spin(y) -> np.ndarray:
    """``s = 2y - 1`` for an array of {0, 1} values (any shape; bool accepted), as int8 ±1."""
    y = _check_values(y, (0, 1), "y")
    return (2 * (y == 1) - 1).astype(np.int8)


def spin_to_zero_one(s) -> np.ndarray:
    """``y = (s + 1) / 2`` for an array of ±1 values (any shape), as int8 {0, 1}."""
    s = _check_values(s, (-1, 1), "s")
    return (s == 1).astype(np.int8)
