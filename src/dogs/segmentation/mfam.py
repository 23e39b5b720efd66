r"""The Markov field aspect model posterior (DoGS eq. 4) as a Potts model, its region of interest and the error.

For test image ``k`` with PLSA mixture ``theta_k`` and word likelihoods ``beta`` (:mod:`dogs.learning.plsa`), the
patch labels ``X`` have the posterior

.. math::

    \pi(X \mid y; k) \propto \exp\Big(\sum_{(i,j)} \sigma\, \mathbb I\{X_i = X_j\}
        + \sum_i \log\big(\theta_{k, X_i} \textstyle\prod_f \beta_f(y_{i,f} \mid X_i)\big)\Big)

over the 4-neighbour patch grid (DoGS eq. 4, with the product over feature types of Verbeek & Triggs'
multi-feature model in place of the single ``beta_{a, y_i}``): a discrete pairwise MRF
(:class:`~dogs.models.DiscretePairwiseMRF`) with unary log potentials ``log theta + log-likelihoods`` and the
Potts table ``sigma I`` on every edge. ``sigma = 0`` is PLSA. Its Theorem 10 influence bound is
``tanh(sigma / 2)`` on every edge whatever the image (the Potts table's oscillation is ``2 sigma``), so one DoGS
scan serves every test image (DoGS §5.5).
"""

from __future__ import annotations

import numpy as np

from dogs.models.discrete import DiscretePairwiseMRF
from dogs.models.graph import grid_edges

__all__ = ["centre_weights", "hamming_error", "mfam_model"]


def mfam_model(unary: np.ndarray, grid: tuple[int, int], sigma: float) -> DiscretePairwiseMRF:
    """The MFAM posterior on a ``rows x cols`` patch grid: ``unary`` is ``(rows * cols, K)`` log potentials."""
    rows, cols = grid
    unary = np.asarray(unary, dtype=np.float64)
    if unary.shape[0] != rows * cols:
        raise ValueError(f"unary has {unary.shape[0]} rows for a {rows} x {cols} grid")
    k = unary.shape[1]
    edges = grid_edges(rows, cols)
    potts = sigma * np.eye(k)
    return DiscretePairwiseMRF(np.full(rows * cols, k), list(unary), edges, [potts] * len(edges), shape=(rows, cols))


def centre_weights(grid: tuple[int, int], region: tuple[int, int]) -> np.ndarray:
    """``d``: 1 on the centred ``region = (height, width)`` rectangle of patches, 0 elsewhere (row-major)."""
    rows, cols = grid
    height, width = region
    if height > rows or width > cols:
        raise ValueError(f"a {height} x {width} region does not fit a {rows} x {cols} grid")
    top, left = (rows - height) // 2, (cols - width) // 2
    d = np.zeros((rows, cols))
    d[top:top + height, left:left + width] = 1.0
    return d.ravel()


def hamming_error(predicted, truth, mask=None) -> float:
    """Fraction of patches with a label (truth not void, -1) in ``mask`` whose predicted class differs; NaN if none."""
    predicted, truth = np.asarray(predicted), np.asarray(truth)
    keep = truth >= 0
    if mask is not None:
        keep &= np.asarray(mask, dtype=bool)
    if not keep.any():
        return float("nan")
    return float(np.mean(predicted[keep] != truth[keep]))
