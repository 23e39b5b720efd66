r"""Euclidean projection of Ising couplings onto a fast-mixing set (Liu & Domke 2014, §§4-5).

Liu & Domke bound the dependency matrix of a pairwise MRF (their Theorem 6),

.. math::

    R_{ij}(\theta) \le \max_{a, b} \tfrac12 \big\|\theta^{ij}_{\cdot a} - \theta^{ij}_{\cdot b}\big\|_\infty ,

which for a ±1 Ising edge ``theta_ij x_i x_j`` (the table ``theta_ij [[1, -1], [-1, 1]]``) is
``R_ij = |theta_ij|`` on both ``(i, j)`` and ``(j, i)``. If ``||R|| < 1`` for a sub-multiplicative norm,
univariate Gibbs sampling mixes in ``O(n log n)`` steps (their Theorem 4). Their projection (eq. 3)

.. math::

    \operatorname{proj}_c(\psi) = \arg\min_{\theta:\ \|R(\theta)\|_* \le c} \|\theta - \psi\|^2

keeps learned parameters in the set where the bound certifies fast mixing. Only couplings enter
``R``; fields are not projected (their Theorem 6: unary terms do not affect the bound).

For Ising couplings the problem reduces to the magnitudes: ``theta_e = sign(psi_e) z_e`` with

.. math::

    z = \arg\min_{z \ge 0,\ \|A(z)\|_* \le c} \tfrac12 \|z - |\psi|\|^2, \qquad A(z)_{ij} = A(z)_{ji} = z_e,

because the constraint depends on ``|theta|`` only and, for fixed magnitudes, the sign of ``psi``
minimises the distance. Both norms here are monotone on non-negative matrices, so ``0 <= z <= |psi|``.

Solvers (both are Lagrange duals maximised with scipy's L-BFGS-B, as Liu & Domke do; strong duality
holds because ``z = 0`` is strictly feasible for ``c > 0``):

- ``norm="infinity"`` (``||A||_inf = max_i sum_j |A_ij|``, their §5.3): the row constraints
  ``sum_{e ∋ i} z_e <= c`` with multipliers ``mu_i >= 0``; the inner minimiser is
  ``z_e = max(0, |psi_e| - mu_i - mu_j)`` and ``grad_mu_i = sum_{e ∋ i} z_e - c``. This is the
  specialisation of their Theorem 7 to Ising edges: their ``sigma, phi`` (the ``|.|`` in ``R``)
  are absorbed by the sign argument above, their ``Gamma`` (symmetry of ``Z``) by storing one
  ``z_e`` per edge, and with the ∞-norm ``Z`` needs no entries off the edges (their remark that
  the ∞-norm projection preserves sparsity), so no smoothing is needed: the dual is already
  differentiable and its maximiser gives the exact projection.
- ``norm="spectral"`` (``||A||_2``, the largest singular value, their §5.2): their smoothed operator
  (eq. 4) with a matrix ``Z`` on all pairs, ``Z_ij >= z_e`` on edges (multipliers ``sigma_e >= 0``),
  ``Z_ij = 0`` off the edges and on the diagonal (free multipliers ``Delta``, their ``D``),
  ``||Z||_2 <= c`` and the proximal term ``(alpha / 2) ||Z - Y||_F^2``; the inner minimisers are
  ``z_e = max(0, |psi_e| - sigma_e)`` and ``Z = P_c(Y + Lambda / alpha)``, the spectral-norm
  projection of a symmetric matrix (eigenvalues clipped to ``[-c, c]``). Repeating with ``Y``
  set to the last ``Z`` (their proximal iteration, §5) converges to the exact projection.

Tests compare both with a generic constrained solver and check feasibility and that feasible
points are returned unchanged (``tests/test_learning.py``).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from scipy import optimize

__all__ = ["NORMS", "ProjectionResult", "coupling_norm", "project_couplings"]

NORMS = ("infinity", "spectral")


@dataclass(frozen=True)
class ProjectionResult:
    """``theta`` (projected couplings), ``norm_value`` (``||R(theta)||``), ``iterations`` of the dual solver."""

    theta: np.ndarray
    norm_value: float
    iterations: int
    active: bool


def _check(edges, n_vars, psi, c, norm):
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    psi = np.asarray(psi, dtype=np.float64)
    if psi.shape != (len(edges),):
        raise ValueError(f"one coupling per edge: expected shape ({len(edges)},), got {psi.shape}")
    if not np.all(np.isfinite(psi)):
        raise ValueError("couplings must be finite")
    if isinstance(c, bool) or not isinstance(c, numbers.Real) or not np.isfinite(c) or c <= 0:
        raise ValueError(f"c must be a finite number > 0, got {c!r}")
    if norm not in NORMS:
        raise ValueError(f"norm must be one of {NORMS}, got {norm!r}")
    if len(edges) and (edges.min() < 0 or edges.max() >= n_vars):
        raise ValueError(f"edges must index variables 0..{n_vars - 1}")
    return edges, psi, float(c)


def _matrix(edges, n_vars, z):
    a = np.zeros((n_vars, n_vars))
    a[edges[:, 0], edges[:, 1]] = z
    a[edges[:, 1], edges[:, 0]] = z
    return a


def coupling_norm(edges, n_vars: int, theta, norm: str = "infinity") -> float:
    """``||R(theta)||`` with ``R_ij = R_ji = |theta_e|`` (Liu & Domke, Theorem 6 for Ising edges)."""
    edges, theta, _ = _check(edges, n_vars, theta, 1.0, norm)
    r = _matrix(edges, n_vars, np.abs(theta))
    if norm == "infinity":
        return float(r.sum(axis=1).max(initial=0.0))
    return float(np.abs(np.linalg.eigvalsh(r)).max(initial=0.0))


def project_couplings(edges, n_vars: int, psi, c: float, norm: str = "infinity", *, tol: float = 1e-12,
                      alpha: float = 1.0, max_outer: int = 500) -> ProjectionResult:
    """Euclidean projection of Ising couplings ``psi`` onto ``{theta: ||R(theta)||_norm <= c}`` (module docstring).

    Parameters
    ----------
    edges : (E, 2) int array
    n_vars : int
    psi : (E,) float array
        Couplings to project.
    c : float
        Radius of the fast-mixing set (``c = 1`` is what Theorem 4 needs; Liu & Domke use 2.5 in practice).
    norm : {"infinity", "spectral"}
    tol : float
        Dual optimality tolerance (projected-gradient norm) and, for the spectral norm, the tolerance on
        successive proximal iterates.
    alpha : float
        Proximal weight of the spectral-norm solver.

    Returns
    -------
    ProjectionResult
        ``theta`` equals ``psi`` (unchanged, ``active=False``) when ``psi`` is already in the set.
    """
    edges, psi, c = _check(edges, n_vars, psi, c, norm)
    if coupling_norm(edges, n_vars, psi, norm) <= c:
        return ProjectionResult(psi.copy(), coupling_norm(edges, n_vars, psi, norm), 0, False)
    magnitude = np.abs(psi)
    if norm == "infinity":
        z, iterations = _project_infinity(edges, n_vars, magnitude, c, tol)
    else:
        z, iterations = _project_spectral(edges, n_vars, magnitude, c, tol, alpha, max_outer)
    theta = np.sign(psi) * z
    return ProjectionResult(theta, coupling_norm(edges, n_vars, theta, norm), iterations, True)


def _project_infinity(edges, n_vars, magnitude, c, tol):
    """Dual in the row multipliers ``mu >= 0`` (module docstring), maximised with L-BFGS-B."""
    i, j = edges[:, 0], edges[:, 1]

    def z_of(mu):
        return np.maximum(0.0, magnitude - mu[i] - mu[j])

    def negative_dual(mu):
        z = z_of(mu)
        value = 0.5 * np.sum((z - magnitude) ** 2) + np.sum((mu[i] + mu[j]) * z) - c * mu.sum()
        row = np.bincount(i, z, n_vars) + np.bincount(j, z, n_vars)
        return -value, -(row - c)

    result = optimize.minimize(negative_dual, np.zeros(n_vars), jac=True, method="L-BFGS-B",
                               bounds=[(0.0, None)] * n_vars, options={"gtol": tol, "ftol": 0.0, "maxiter": 10_000})
    z = z_of(result.x)
    # the dual optimum is feasible up to the solver's tolerance: remove the last rounding by scaling rows down
    row = np.bincount(i, z, n_vars) + np.bincount(j, z, n_vars)
    excess = np.maximum(row / c, 1.0)
    z = z / np.maximum(excess[i], excess[j])
    return z, int(result.nit)


def _spectral_ball(matrix, c):
    """Frobenius projection of a symmetric matrix onto ``{||Z||_2 <= c}``: eigenvalues clipped to ``[-c, c]``."""
    values, vectors = np.linalg.eigh(matrix)
    return (vectors * np.clip(values, -c, c)) @ vectors.T


def _project_spectral(edges, n_vars, magnitude, c, tol, alpha, max_outer):
    """Liu & Domke's smoothed dual (their eq. 4 and Theorem 7, Ising edges) with proximal iterations in ``Y``."""
    n_edges = len(edges)
    i, j = edges[:, 0], edges[:, 1]
    off = np.ones((n_vars, n_vars), dtype=bool)
    off[i, j] = off[j, i] = False
    off_rows, off_cols = np.nonzero(np.triu(off))  # off-edge pairs and the diagonal, each once
    diagonal = off_rows == off_cols
    y = _matrix(edges, n_vars, magnitude)  # Y_1: any start
    iterations = 0
    start = np.zeros(n_edges + len(off_rows))  # warm start: each proximal step starts from the last dual optimum
    for _ in range(max_outer):

        def inner(x, y=y):
            sigma, delta = x[:n_edges], x[n_edges:]
            z = np.maximum(0.0, magnitude - sigma)
            lam = np.zeros((n_vars, n_vars))
            lam[i, j] = lam[j, i] = sigma / 2.0  # <Lambda, Z> = sum_e sigma_e Z_e over a symmetric Z
            weight = np.where(diagonal, 1.0, 0.5)
            lam[off_rows, off_cols] -= delta * weight
            lam[off_cols[~diagonal], off_rows[~diagonal]] -= delta[~diagonal] * 0.5
            big_z = _spectral_ball(y + lam / alpha, c)
            z_edge = big_z[i, j]
            z_off = big_z[off_rows, off_cols]
            value = (0.5 * np.sum((z - magnitude) ** 2) + 0.5 * alpha * np.sum((big_z - y) ** 2)
                     + np.sum(sigma * (z - z_edge)) + np.sum(delta * z_off))
            grad = np.concatenate([z - z_edge, z_off])
            return value, grad, z, big_z

        def negative(x):
            value, grad, _, _ = inner(x)
            return -value, -grad

        bounds = [(0.0, None)] * n_edges + [(None, None)] * len(off_rows)
        result = optimize.minimize(negative, start, jac=True, method="L-BFGS-B", bounds=bounds,
                                   options={"gtol": tol, "ftol": 0.0, "maxiter": 10_000})
        start = result.x
        iterations += int(result.nit)
        _, _, z, big_z = inner(result.x)
        change = np.abs(big_z - y).max()
        y = big_z
        if change <= tol:
            break
    # feasibility of the magnitudes themselves (the smoothed problem constrains Z >= z, ||Z|| <= c)
    scale = max(1.0, np.abs(np.linalg.eigvalsh(_matrix(edges, n_vars, z))).max() / c)
    return z / scale, iterations
