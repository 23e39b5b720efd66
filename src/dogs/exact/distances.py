r"""Distances between distributions over a product space: total variation, and the weighted total variation of
DoGS Definition 4 computed exactly as a linear program (re-exported by :mod:`dogs.exact.chains`).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from dogs.exact.chain_checks import check_cardinalities, check_stationary

__all__ = ["tv_distance", "weighted_tv"]


# --------------------------------------------------------------------------------------------------
# evolution and distances


def tv_distance(p, q) -> np.ndarray | float:
    r"""Total variation :math:`\|p - q\|_{TV} = \frac12 \sum_x |p(x) - q(x)|` along the last axis."""
    p = np.asarray(p, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    out = 0.5 * np.abs(p - q).sum(axis=-1)
    return float(out) if np.ndim(out) == 0 else out


def weighted_tv(mu, nu, weights, cardinalities) -> float:
    r"""The :math:`d`-weighted total variation of DoGS Definition 4, exactly, as a linear program.

    .. math::

        \|\mu - \nu\|_{d,TV} = \sup\Big\{ |E_\mu f - E_\nu f| :
        |f(x) - f(y)| \le \sum_i d_i \mathbb{1}[x_i \ne y_i] \ \forall x, y \Big\}.

    The weighted Hamming metric is the path metric of single-coordinate moves, so it
    suffices to impose :math:`|f(x) - f(y)| \le d_i` for every pair differing only in
    coordinate :math:`i` (all value pairs :math:`a \ne b` of :math:`x_i`); :math:`d_i = 0`
    forces :math:`f` not to depend on :math:`x_i` (equality constraints). The objective
    :math:`\max_f (\mu - \nu)^\top f` equals the supremum of the absolute value because
    :math:`-f` is feasible whenever :math:`f` is; :math:`f` is pinned to 0 at the first
    state (the objective ignores constants). Solved with HiGHS (:func:`scipy.optimize.linprog`).

    Parameters
    ----------
    mu, nu : (N,) arrays
        Probability vectors over the product space of ``cardinalities`` (C order).
    weights : (p,) array
        Non-negative :math:`d`.
    cardinalities : sequence of int
        ``K_i`` of each variable.

    Returns
    -------
    float
    """
    card = check_cardinalities(cardinalities, 200_000)
    n_states = math.prod(int(k) for k in card)
    mu = check_stationary(np.asarray(mu, dtype=np.float64).reshape(-1), n_states)
    nu = check_stationary(np.asarray(nu, dtype=np.float64).reshape(-1), n_states)
    d = np.asarray(weights, dtype=np.float64)
    if d.shape != (card.size,) or np.any(~np.isfinite(d)) or np.any(d < 0):
        raise ValueError(f"weights must be {card.size} finite non-negative numbers, got {weights!r}")
    grid = np.arange(n_states).reshape(tuple(card))
    ub_rows, ub_cols, ub_vals, ub_rhs = [], [], [], []
    eq_rows, eq_cols, eq_vals = [], [], []
    n_ub = n_eq = 0
    for i, k in enumerate(card):
        if d[i] == 0:
            pairs = [(a, a + 1) for a in range(k - 1)]  # a chain of equalities ties every value together
        else:
            pairs = [(a, b) for a in range(k) for b in range(a + 1, k)]
        for a, b in pairs:
            left = np.take(grid, a, axis=i).ravel()
            right = np.take(grid, b, axis=i).ravel()
            m = left.size
            if d[i] == 0:
                r = n_eq + np.arange(m)
                eq_rows += [r, r]
                eq_cols += [left, right]
                eq_vals += [np.ones(m), -np.ones(m)]
                n_eq += m
            else:
                for sign in (1.0, -1.0):
                    r = n_ub + np.arange(m)
                    ub_rows += [r, r]
                    ub_cols += [left, right]
                    ub_vals += [np.full(m, sign), np.full(m, -sign)]
                    ub_rhs.append(np.full(m, d[i]))
                    n_ub += m
    a_ub = b_ub = a_eq = b_eq = None
    if n_ub:
        a_ub = sp.csr_matrix((np.concatenate(ub_vals), (np.concatenate(ub_rows), np.concatenate(ub_cols))), shape=(n_ub, n_states))
        b_ub = np.concatenate(ub_rhs)
    if n_eq:
        a_eq = sp.csr_matrix((np.concatenate(eq_vals), (np.concatenate(eq_rows), np.concatenate(eq_cols))), shape=(n_eq, n_states))
        b_eq = np.zeros(n_eq)
    bounds = [(0.0, 0.0)] + [(None, None)] * (n_states - 1)
    res = linprog(-(mu - nu), A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=bounds, method="highs")
    if res.status != 0:
        raise RuntimeError(f"weighted_tv: the linear program failed ({res.message})")
    return max(0.0, float(-res.fun))
