r"""Split :math:`\hat R` of indicator draws in closed form, from label counts per half chain.

The marginal :math:`P(X_i = k)` is estimated from the indicator draws :math:`y = \mathbb 1[X_i = k]`, and its
convergence is judged by the rank-normalised split :math:`\hat R` of Vehtari, Gelman, Simpson, Carpenter &
Bürkner (2021), as ArviZ computes it (``arviz.rhat(..., method="rank")``): each of the ``C`` chains of ``D``
draws is split into its first and last ``n = floor(D / 2)`` draws (the middle draw of an odd ``D`` is left
out), giving ``J = 2C`` sequences; the pooled draws are replaced by their normal scores
:math:`z = \Phi^{-1}((r - 3/8) / (N + 1/4))` (``r`` the average rank, ``N = J n``), and

.. math::

    \hat R = \sqrt{\frac{B / W + n - 1}{n}}, \qquad
    B = n \operatorname{Var}_{j}(\bar z_j), \qquad W = \frac1J \sum_j s_j^2

(sample variances, divisor ``J - 1`` and ``n - 1``); the same is computed on the folded draws
:math:`|y - \operatorname{median}(y)|` and the larger value is reported.

For an indicator this needs no ranks. The draws take two values, so their normal scores take two values
``z_0 < z_1`` and :math:`z = z_0 + (z_1 - z_0) y`: an affine map, which multiplies :math:`B` and :math:`W` by the
same :math:`(z_1 - z_0)^2` and leaves :math:`B / W` unchanged. With :math:`p_j` the share of ones in sequence
``j``, :math:`\bar z_j - z_0 = (z_1 - z_0) p_j` and :math:`s_j^2 = (z_1 - z_0)^2 \frac{n}{n-1} p_j (1 - p_j)`, so

.. math::

    \frac BW = \frac{n \operatorname{Var}_j(p_j)}{\frac{n}{n-1} \frac1J \sum_j p_j (1 - p_j)} .

The folded draws are ``y`` (median 0), ``1 - y`` (median 1: the same :math:`\hat R`) or the constant 1/2 (median
1/2, when exactly half the draws are ones), whose :math:`\hat R` is undefined and loses to the bulk value in
ArviZ's ``max``. So the rank-normalised :math:`\hat R` of an indicator is the classic split :math:`\hat R` of its
0/1 draws, a function of the counts of ones per half chain. It is undefined (NaN) where every compared draw is
equal (:math:`B = W = 0`), infinite where every sequence is constant but they differ, and, as in ArviZ, NaN with
fewer than two chains or four draws. :func:`indicator_rhat` gives it for every state of every variable from one
pass of counting over the labels; ``tests/test_convergence.py`` checks it against ArviZ.
"""

from __future__ import annotations

import numpy as np

__all__ = ["indicator_rhat", "split_counts"]


def split_counts(labels: np.ndarray, cardinalities: np.ndarray) -> tuple[np.ndarray, int]:
    """Counts ``(2C, M)`` of each state in each half chain, and the half length ``n``.

    ``labels`` is ``(C, D, V)`` (int8 or int32); column ``m`` of the counts is state ``k`` of variable ``v`` in the
    order ``(v, k)`` for ``k < cardinalities[v]`` (``M`` = the sum of the cardinalities); rows ``0 .. C - 1`` are the
    first halves, ``C .. 2C - 1`` the second. One pass over the labels (:func:`dogs._kernels.counts.half_chain_counts`).
    """
    from dogs._kernels.counts import half_chain_counts

    labels = np.asarray(labels)
    n_chains, n_draws, n_vars = labels.shape
    cards = np.asarray(cardinalities, dtype=np.int64)
    half = n_draws // 2
    by_state = np.zeros((2 * n_chains, max(2, int(cards.max(initial=2))), n_vars), dtype=np.int32)
    if labels.dtype not in (np.int8, np.int32):
        labels = labels.astype(np.int32)
    half_chain_counts(np.ascontiguousarray(labels), by_state)
    by_state[:, 0] = half - by_state[:, 1:].sum(axis=1)
    keep = np.arange(by_state.shape[1])[None, :] < cards[:, None]
    return by_state.transpose(0, 2, 1)[:, keep].astype(np.int64), half


def indicator_rhat(labels: np.ndarray, cardinalities: np.ndarray) -> np.ndarray:
    r"""Rank-normalised split :math:`\hat R` of every indicator :math:`\mathbb 1[X_v = k]` (module docstring).

    Parameters
    ----------
    labels : (C, D, V) array of int
        Draws: the label of variable ``v`` in chain ``c`` after pass ``d``.
    cardinalities : (V,) array of int
        States per variable.

    Returns
    -------
    (M,) float array
        :math:`\hat R` in the order ``(v, k)``, ``k < cardinalities[v]``; NaN where undefined (fewer than 2 chains or
        4 draws, or every compared draw of the indicator equal), ``inf`` where each half chain is constant but they
        differ.
    """
    counts, half = split_counts(labels, cardinalities)
    n_chains, n_draws = np.asarray(labels).shape[:2]
    if n_chains < 2 or n_draws < 4:
        return np.full(counts.shape[1], np.nan)
    shares = counts / half
    between = half * shares.var(axis=0, ddof=1)
    within = (shares * (1.0 - shares)).mean(axis=0) * half / (half - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sqrt((between / within + half - 1) / half)
