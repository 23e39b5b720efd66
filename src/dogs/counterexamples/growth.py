r"""Orders of growth of mixing times in ``n``, as He, De Sa, Mitliagkas & Ré (2016), Table 1 states them.

Table 1 gives every mixing time as an order :math:`2^{\alpha n} n^{\beta}` (``n``, ``n^2``,
``n^(3/2)``, ``2^n``, ``n 2^n``). :func:`parse_order` reads such a string into
:math:`(\alpha, \beta)`; :func:`fit_exponents` fits the same two numbers to exact mixing times
measured at several ``n``; :func:`order_text` writes a fitted order back.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
from scipy import stats

__all__ = ["parse_order", "fit_exponents", "order_text"]

_ORDER_PATTERN = re.compile(r"^\s*(?:n\^\(?(?P<num>\d+)(?:/(?P<den>\d+))?\)?|(?P<lin>n))?\s*(?:\*?\s*(?P<exp>2\^n))?\s*$")


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


def _fit_points(frame: pd.DataFrame, fraction: float) -> pd.DataFrame:
    frame = frame.sort_values("n")
    k = max(3, math.ceil(fraction * len(frame)))
    return frame.tail(min(k, len(frame)))


def fit_exponents(frame: pd.DataFrame, exponential: bool, fraction: float) -> dict:
    r"""Fitted growth of ``t_mix`` against ``n`` on the largest ``fraction`` of the ``n`` values (at least 3).

    Polynomial: slope :math:`\beta` of :math:`\log t` on :math:`\log n`, and the local slope between
    the two largest ``n``. Exponential (``exponential=True``): :math:`\alpha` = slope of
    :math:`\log_2 t` on ``n``, and :math:`\beta` = slope of :math:`\log(t / 2^n)` on :math:`\log n`.

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns ``n`` and ``t_mix``, one row per ``n`` (at least two rows).
    exponential : bool
        Fit :math:`2^{\alpha n} n^{\beta}` rather than :math:`n^{\beta}`.
    fraction : float
        Fraction of the largest ``n`` values used, in (0, 1].

    Returns
    -------
    dict
        ``alpha``, ``beta`` with their standard errors ``alpha_se``, ``beta_se`` (least squares), ``local_beta``, and ``n_min``, ``n_max``, ``points`` of the fit.
    """
    if len(frame) < 2:
        raise ValueError(f"fitting an exponent needs t_mix at two or more values of n, got {len(frame)}")
    if not 0 < fraction <= 1:
        raise ValueError(f"fraction must lie in (0, 1], got {fraction!r}")
    pts = _fit_points(frame, fraction)
    n = pts["n"].to_numpy(dtype=float)
    t = pts["t_mix"].to_numpy(dtype=float)
    out = {"n_min": int(n.min()), "n_max": int(n.max()), "points": len(n)}
    if exponential:
        out["alpha"], out["alpha_se"] = _slope(n, np.log2(t))
        out["beta"], out["beta_se"] = _slope(np.log(n), np.log(t) - n * math.log(2))
        out["local_beta"] = float(np.log((t[-1] / 2 ** n[-1]) / (t[-2] / 2 ** n[-2])) / np.log(n[-1] / n[-2]))
    else:
        out["alpha"], out["alpha_se"] = 0.0, 0.0
        out["beta"], out["beta_se"] = _slope(np.log(n), np.log(t))
        out["local_beta"] = float(np.log(t[-1] / t[-2]) / np.log(n[-1] / n[-2]))
    return out


def _slope(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Least-squares slope of ``y`` on ``x`` and its standard error (``nan`` with only two points)."""
    fit = stats.linregress(x, y)
    return float(fit.slope), float(fit.stderr) if len(x) > 2 else math.nan


def order_text(alpha: float, beta: float) -> str:
    r"""A fitted order :math:`2^{\alpha n} n^{\beta}` as text, e.g. ``n^1.52`` or ``2^(1.00 n) n^0.98``."""
    if alpha:
        return f"2^({alpha:.2f} n) n^{beta:.2f}"
    return f"n^{beta:.2f}"
