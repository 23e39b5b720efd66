r"""Orders of growth of mixing times in ``n``, as He, De Sa, Mitliagkas & Ré (2016), Table 1 states them.

Table 1 gives every mixing time as an order :math:`2^{\alpha n} n^{\beta}` (``n``, ``n^2``,
``n^(3/2)``, ``2^n``, ``n 2^n``): big-O statements, titled "approximate mixing times". :func:`parse_order`
reads such a string into :math:`(\alpha, \beta)`; :func:`fit_exponents` estimates the same two numbers
from exact mixing times at several ``n``; :func:`interval_errors` measures how far the estimate's
interval lies from the paper's order; :func:`order_text` writes a fitted order back.

Exact mixing times carry no noise, so the uncertainty of an exponent is that of extrapolating to
large ``n``: lower-order terms (:math:`3n^2 - 3n + 1`; :math:`n^{3/2} + O(n \log n)`; a cubic with a
large :math:`n^2` term) bend every finite-``n`` slope. :func:`fit_exponents` therefore returns two
estimates and the interval between them:

- *local*: the pure power law (times :math:`2^{\alpha n}`) through the largest ``n`` only (the two
  largest; three for the exponential form), the effective exponent where the computation ends;
- *corrected*: least squares of :math:`\log t = c + \alpha n \log 2 + \beta \log n + d/n` on the largest
  ``fraction`` of the ``n`` values, i.e. :math:`t = a\,2^{\alpha n} n^{\beta}(1 + d/n)`, the paper's
  order with a relative lower-order term :math:`n^{\beta - 1}` (to first order
  :math:`a n^\beta + b n^{\beta - 1}`), with its least-squares standard error.

The interval of each exponent spans both, the corrected one widened by two standard errors. When the
lower-order term is of relative order :math:`1/n` the corrected fit is close to the limit and the local
slope lies near it; when it is larger (:math:`\log n / \sqrt n`, as for soft dependencies' random
scan) the two separate and the interval says so. With too few values of ``n`` for the corrected fit
(:data:`MIN_CORRECTED_POINTS`), nothing bounds the lower-order terms: the pure power law is fitted on
every point and the interval widened by :data:`UNCORRECTED_WIDTH` on each side, the spacing of
Table 1's neighbouring orders.

Where the paper's own derivation names the lower-order terms, :func:`fit_with_lower_terms` fits them instead:
App. A.2's random scan of memorize and repeat pays a coupon collector (:math:`n \log n`) in each of its
``n`` chains, :math:`t = a n^3 + b n^2 \log n + c n^2`; App. A.3's soft dependencies pay
:math:`n \log n` for the last :math:`\sqrt n` transitions (a harmonic sum of :math:`n/k`),
:math:`t = a n^{3/2} + b n \log n + c n`; §3.1's sequence of dependencies waits for ``n`` transitions, each
a geometric wait of mean ``n``, whose sum has mean :math:`n^2`, spread :math:`n^{3/2}` and a skew of order
:math:`n`, :math:`t = a n^2 + b n^{3/2} + c n`. Each is :math:`t = a n^\beta (1 + b u_1(n) + c u_2(n))` with
two relative terms :math:`u(n) = n^{-g} \log^k n` (``terms``: ``((1, 1), (1, 0))``, ``((1/2, 1), (1/2, 0))``
and ``((1/2, 0), (1, 0))``), fitted by nonlinear least squares of ``log t``.
The residuals of exact values are not noise but the terms still left out, so a single fit's standard
error says little: the interval is the union, over the fit on every fitted point and the fits that leave
one point out (a jackknife over ``n``), of the estimate plus or minus two of its standard errors; the
spread between leave-one-out fits is what the omitted terms move the exponent by.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

__all__ = ["parse_order", "fit_exponents", "fit_with_lower_terms", "interval_errors", "order_text",
           "MIN_LOWER_TERMS_POINTS"]

_ORDER_PATTERN = re.compile(r"^\s*(?:n\^\(?(?P<num>\d+)(?:/(?P<den>\d+))?\)?|(?P<lin>n))?\s*(?:\*?\s*(?P<exp>2\^n))?\s*$")
#: Smallest number of points of the corrected fit (one more than its parameters, for a standard error).
MIN_CORRECTED_POINTS = {False: 4, True: 5}
#: Smallest number of points of :func:`fit_with_lower_terms` (four parameters, a standard error when one is left out).
MIN_LOWER_TERMS_POINTS = 6
#: Half-width added to an exponent's interval when there are too few points for the corrected fit.
UNCORRECTED_WIDTH = 0.5


def parse_order(text: str) -> tuple[float, float]:
    r"""Parse an order of growth ``n``, ``n^2``, ``n^(3/2)``, ``2^n``, ``n 2^n`` into :math:`(\alpha, \beta)`.

    The order is :math:`2^{\alpha n} n^{\beta}`. Raises ``ValueError`` for anything else.
    """
    m = _ORDER_PATTERN.match(str(text))
    if not m or not (m.group("num") or m.group("lin") or m.group("exp")):
        raise ValueError(f"cannot parse the order of growth {text!r}")
    if m.group("num"):
        beta = int(m.group("num")) / int(m.group("den") or 1)
    else:
        beta = 1.0 if m.group("lin") else 0.0
    return (1.0 if m.group("exp") else 0.0), beta


def _least_squares(columns: list, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Coefficients and their standard errors (zero with no degrees of freedom left)."""
    x = np.column_stack(columns)
    coef, *_ = np.linalg.lstsq(x, y, rcond=None)
    dof = len(y) - x.shape[1]
    residual = y - x @ coef
    variance = float(residual @ residual) / dof if dof > 0 else 0.0
    se = np.sqrt(np.maximum(np.diag(variance * np.linalg.pinv(x.T @ x)), 0.0))
    return coef, se


def _checked_values(frame: pd.DataFrame, fraction: float, need: int) -> tuple[np.ndarray, np.ndarray, int]:
    """``n`` and ``t_mix`` sorted by ``n`` (checked positive, at distinct ``n``) and how many of the largest to fit."""
    if not 0 < fraction <= 1:
        raise ValueError(f"fraction must lie in (0, 1], got {fraction!r}")
    data = frame.sort_values("n")
    n_all = data["n"].to_numpy(dtype=float)
    t_all = data["t_mix"].to_numpy(dtype=float)
    if np.any(t_all <= 0) or np.unique(n_all).size != n_all.size:
        raise ValueError("fitting an exponent needs positive t_mix at distinct n")
    return n_all, t_all, min(len(n_all), max(need, math.ceil(fraction * len(n_all))))


def fit_exponents(frame: pd.DataFrame, exponential: bool, fraction: float) -> dict:
    r"""Exponents of :math:`t_{mix} \sim 2^{\alpha n} n^{\beta}` from exact mixing times at several ``n`` (module docstring).

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns ``n`` and ``t_mix``, one row per ``n`` (at least two rows; three for ``exponential``).
    exponential : bool
        Fit :math:`2^{\alpha n} n^{\beta}` rather than :math:`n^{\beta}` (:math:`\alpha = 0`).
    fraction : float
        Fraction of the largest ``n`` values used by the corrected fit, in (0, 1] (at least
        :data:`MIN_CORRECTED_POINTS` points when there are that many).

    Returns
    -------
    dict
        ``alpha``, ``beta`` (the corrected fit) with standard errors ``alpha_se``, ``beta_se``;
        ``local_alpha``, ``local_beta``; the intervals ``alpha_low``, ``alpha_high``, ``beta_low``,
        ``beta_high``; ``n_min``, ``n_max``, ``points`` of the corrected fit. With too few points for
        the corrected fit, it is the pure power law on every point (``corrected`` is False) and the
        intervals are widened by :data:`UNCORRECTED_WIDTH`.
    """
    if len(frame) < (3 if exponential else 2):
        raise ValueError(f"fitting an exponent needs t_mix at {3 if exponential else 2} or more values of n, got {len(frame)}")
    need = MIN_CORRECTED_POINTS[exponential]
    n_all, t_all, k = _checked_values(frame, fraction, need)
    n, y = n_all[-k:], np.log(t_all[-k:])
    corrected = k >= need
    columns = [np.ones_like(n), np.log(n)] + ([n * math.log(2)] if exponential else []) + ([1.0 / n] if corrected else [])
    coef, se = _least_squares(columns, y)
    out = {"n_min": int(n.min()), "n_max": int(n.max()), "points": int(k), "corrected": corrected,
           "beta": float(coef[1]), "beta_se": float(se[1]),
           "alpha": float(coef[2]) if exponential else 0.0, "alpha_se": float(se[2]) if exponential else 0.0}
    last = 3 if exponential else 2  # the pure law through the largest n only
    n_l, y_l = n_all[-last:], np.log(t_all[-last:])
    local, _ = _least_squares([np.ones_like(n_l), np.log(n_l)] + ([n_l * math.log(2)] if exponential else []), y_l)
    out["local_beta"] = float(local[1])
    out["local_alpha"] = float(local[2]) if exponential else 0.0
    widen = 0.0 if corrected else UNCORRECTED_WIDTH
    for name in ("alpha", "beta"):
        if name == "alpha" and not exponential:
            out["alpha_low"] = out["alpha_high"] = 0.0
            continue
        ends = [out[name] - 2 * out[f"{name}_se"], out[name] + 2 * out[f"{name}_se"], out[f"local_{name}"]]
        out[f"{name}_low"], out[f"{name}_high"] = float(min(ends)) - widen, float(max(ends)) + widen
    return out


def _relative_terms(n: np.ndarray, terms) -> list[np.ndarray]:
    """The relative lower-order terms ``n^-g log^k n`` of ``terms`` at ``n``."""
    return [np.log(n) ** k / n**g for g, k in terms]


def _lower_terms_fit(n: np.ndarray, y: np.ndarray, terms) -> tuple[float, float, float]:
    """Exponent, its standard error and the largest absolute residual of ``log t = c + beta log n + log(1 + b u_1 + d u_2)``."""
    from scipy.optimize import curve_fit  # imported here: scipy is slow to import and only this fit needs it

    def model(x, c, beta, b, d):
        u1, u2 = _relative_terms(x, terms)
        return c + beta * np.log(x) + np.log(np.maximum(1.0 + b * u1 + d * u2, 1e-300))

    # start from the linearised model (log(1 + u) ~ u), which is a linear least-squares problem
    start, _ = _least_squares([np.ones_like(n), np.log(n), *_relative_terms(n, terms)], y)
    coef, cov = curve_fit(model, n, y, p0=start, maxfev=20000)
    se = float(np.sqrt(cov[1, 1])) if np.all(np.isfinite(cov)) else math.inf
    return float(coef[1]), se, float(np.max(np.abs(y - model(n, *coef))))


def fit_with_lower_terms(frame: pd.DataFrame, terms, fraction: float) -> dict:
    r"""Exponent of :math:`t_{mix} = a n^\beta (1 + b u_1(n) + c u_2(n))`, the paper's lower-order terms included.

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns ``n`` and ``t_mix`` (positive, distinct ``n``), one row per ``n``.
    terms : pair of (float, int)
        The two relative lower-order terms :math:`u(n) = n^{-g} \log^k n` as ``(g, k)`` with ``g > 0``: how
        much smaller in exponent each is than the leading term, and its power of ``log n`` (module docstring).
    fraction : float
        Fraction of the largest ``n`` values fitted, in (0, 1]; at least 6 points (four parameters, and
        a standard error for every fit that leaves one out).

    Returns
    -------
    dict
        The keys of :func:`fit_exponents` (``alpha`` is 0): ``beta`` and ``beta_se`` of the fit on every
        fitted point, ``beta_low`` / ``beta_high`` the union of estimate +- 2 standard errors over that
        fit and every leave-one-out fit (module docstring), ``local_beta`` the pure power law through the
        two largest ``n`` (reported, not part of the interval: the lower-order terms bend it), and
        ``max_residual``, the largest absolute residual of ``log t`` of the full fit.
    """
    terms = tuple((float(g), int(k)) for g, k in terms)
    if len(terms) != 2 or not all(g > 0 and k >= 0 for g, k in terms) or len(set(terms)) != 2:
        raise ValueError(f"terms must be two distinct (g > 0, k >= 0) pairs, got {terms!r}")
    need = MIN_LOWER_TERMS_POINTS
    if len(frame) < need:
        raise ValueError(f"the fit with lower-order terms needs t_mix at {need} or more values of n, got {len(frame)}")
    n_all, t_all, k = _checked_values(frame, fraction, need)
    n, y = n_all[-k:], np.log(t_all[-k:])
    beta, se, residual = _lower_terms_fit(n, y, terms)
    ends = [beta - 2 * se, beta + 2 * se]
    for drop in range(k):
        keep = np.arange(k) != drop
        b_i, se_i, _ = _lower_terms_fit(n[keep], y[keep], terms)
        ends += [b_i - 2 * se_i, b_i + 2 * se_i]
    local, _ = _least_squares([np.ones(2), np.log(n_all[-2:])], np.log(t_all[-2:]))
    return {"n_min": int(n.min()), "n_max": int(n.max()), "points": int(k), "corrected": True,
            "beta": beta, "beta_se": se, "alpha": 0.0, "alpha_se": 0.0, "local_beta": float(local[1]),
            "local_alpha": 0.0, "alpha_low": 0.0, "alpha_high": 0.0, "beta_low": float(min(ends)),
            "beta_high": float(max(ends)), "max_residual": residual}


def interval_errors(fit: dict, paper_alpha: float, paper_beta: float) -> tuple[float, float]:
    r"""How far the exponents' intervals lie from the paper's :math:`(\alpha, \beta)`: ``(low, high)``.

    ``low``: the largest, over :math:`\alpha` and :math:`\beta`, distance from the paper's value to
    the interval (0 when the interval contains it); ``high``: the largest distance from the paper's
    value to either end of an interval. ``low <= high``; the point estimates lie between them.
    """
    low = high = 0.0
    for name, paper in (("alpha", paper_alpha), ("beta", paper_beta)):
        lo, hi = fit[f"{name}_low"], fit[f"{name}_high"]
        low = max(low, max(lo - paper, paper - hi, 0.0))
        high = max(high, abs(lo - paper), abs(hi - paper))
    return float(low), float(high)


def order_text(alpha: float, beta: float) -> str:
    r"""A fitted order :math:`2^{\alpha n} n^{\beta}` as text, e.g. ``n^1.52`` or ``2^(1.00 n) n^0.98``."""
    if alpha:
        return f"2^({alpha:.2f} n) n^{beta:.2f}"
    return f"n^{beta:.2f}"
