r"""Image patches and their discrete features for the Markov field aspect model (DoGS §5.5; Verbeek & Triggs 2007).

Patches: ``size x size`` pixels (20) on a ``stride``-pixel grid (10): on a 320 x 213 image the top-left
corners are ``x = 0, 10, ..., 300`` and ``y = 0, 10, ..., 190``, a grid of 20 rows by 31 columns = 620
patches, numbered row-major. A patch's label is the most frequent class among its non-void pixels (void,
-1, if all are void; ties to the smallest class index).

Features: one discrete "word" per feature type and patch, as Verbeek & Triggs' multi-feature PLSA has it.
What DoGS does not state is our choice (marked so in the config):

- **texture**: a DAISY descriptor (:func:`skimage.feature.daisy`, Tola, Lepetit & Fua 2010) of the grey
  image at the patch centre, quantised by a k-means codebook learned on the training images
  (:func:`learn_codebook`, :func:`quantise`);
- **colour**: each pixel's word is its hue in ``hue_bins`` equal bins when its saturation is at least
  ``saturation_floor``, else one of ``value_bins`` grey-level words; the patch's word is the most frequent
  pixel word (:func:`colour_words`; HSV from :func:`skimage.color.rgb2hsv`);
- **position**: the cell of a ``rows x cols`` grid over the patch grid (:func:`position_words`).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "colour_words",
    "kmeans_plus_plus",
    "learn_codebook",
    "patch_grid",
    "patch_labels",
    "position_words",
    "quantise",
    "texture_descriptors",
]


def patch_grid(height: int, width: int, size: int = 20, stride: int = 10) -> tuple[int, int]:
    """``(rows, cols)`` of the patch grid of a ``height x width`` image."""
    if height < size or width < size:
        raise ValueError(f"an image of {height} x {width} pixels holds no {size} x {size} patch")
    return (height - size) // stride + 1, (width - size) // stride + 1


def _windows(array: np.ndarray, size: int, stride: int) -> np.ndarray:
    """``(rows, cols, size, size, ...)`` views of every patch."""
    rows, cols = patch_grid(array.shape[0], array.shape[1], size, stride)
    windows = np.lib.stride_tricks.sliding_window_view(array, (size, size), axis=(0, 1))[::stride, ::stride]
    return windows[:rows, :cols]


def _row_counts(values: np.ndarray, n_values: int) -> np.ndarray:
    """``counts[r, v]`` = how often ``v`` occurs in row ``r`` of ``values`` (integers in ``[0, n_values)``)."""
    flat = (np.arange(values.shape[0])[:, None] * n_values + values).ravel()
    return np.bincount(flat, minlength=values.shape[0] * n_values).reshape(values.shape[0], n_values)


def patch_labels(labels: np.ndarray, n_classes: int, size: int = 20, stride: int = 10) -> np.ndarray:
    """Majority non-void class of every patch, row-major ``(rows * cols,)`` int8 (-1 where all pixels are void)."""
    windows = _windows(labels, size, stride).reshape(-1, size * size).astype(np.int64)
    counts = _row_counts(windows + 1, n_classes + 1)[:, 1:]  # drop void
    majority = counts.argmax(axis=1)
    return np.where(counts.max(axis=1) > 0, majority, -1).astype(np.int8)


def texture_descriptors(rgb: np.ndarray, size: int = 20, stride: int = 10) -> np.ndarray:
    """DAISY descriptors at (one pixel before) the patch centres: ``(rows * cols, D)`` float32."""
    from skimage.color import rgb2gray
    from skimage.feature import daisy

    rows, cols = patch_grid(rgb.shape[0], rgb.shape[1], size, stride)
    radius = size // 2 - 1  # first descriptor at pixel `radius`, then every `stride`: one per patch centre
    descriptors = daisy(rgb2gray(rgb), step=stride, radius=radius, rings=2, histograms=6, orientations=8)
    return np.ascontiguousarray(descriptors[:rows, :cols].reshape(rows * cols, -1), dtype=np.float32)


def colour_words(rgb: np.ndarray, hue_bins: int, value_bins: int, saturation_floor: float, size: int = 20,
                 stride: int = 10) -> np.ndarray:
    """The most frequent pixel colour word of every patch (module docstring): ``(rows * cols,)`` int."""
    from skimage.color import rgb2hsv

    hsv = rgb2hsv(rgb)
    hue = np.minimum((hsv[..., 0] * hue_bins).astype(np.int64), hue_bins - 1)
    grey = hue_bins + np.minimum((hsv[..., 2] * value_bins).astype(np.int64), value_bins - 1)
    words = np.where(hsv[..., 1] >= saturation_floor, hue, grey)
    windows = _windows(words, size, stride).reshape(-1, size * size)
    n_words = hue_bins + value_bins
    return _row_counts(windows, n_words).argmax(axis=1)


def position_words(grid_rows: int, grid_cols: int, cell_rows: int, cell_cols: int) -> np.ndarray:
    """The ``cell_rows x cell_cols`` position cell of every patch of a ``grid_rows x grid_cols`` grid, row-major."""
    r = np.arange(grid_rows) * cell_rows // grid_rows
    c = np.arange(grid_cols) * cell_cols // grid_cols
    return (r[:, None] * cell_cols + c[None, :]).ravel()


def learn_codebook(descriptors: np.ndarray, size: int, seed, max_points: int = 50_000) -> np.ndarray:
    """A k-means codebook of ``size`` centres (scipy's ``kmeans2``, k-means++ start) on at most ``max_points`` rows.

    The k-means++ start is :func:`kmeans_plus_plus` (the start ``kmeans2(minit="++")`` draws, in a
    fraction of its time), then 20 Lloyd iterations of ``kmeans2``.
    """
    from scipy.cluster.vq import kmeans2

    rng = np.random.default_rng(seed)
    data = np.asarray(descriptors, dtype=np.float64)
    if len(data) > max_points:
        data = data[rng.choice(len(data), max_points, replace=False)]
    if len(data) < size:
        raise ValueError(f"a codebook of {size} words needs at least {size} descriptors, got {len(data)}")
    centres, _ = kmeans2(data, kmeans_plus_plus(data, size, rng), iter=20, minit="matrix")
    return centres


def kmeans_plus_plus(data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    r"""``size`` k-means++ seeds (Arthur & Vassilvitskii 2007) among the rows of ``data`` ``(n, d)``.

    The first seed is row ``rng.integers(n)``; each next one is row ``j`` with probability
    ``D(x_j)^2 / sum_l D(x_l)^2``, ``D`` the distance to the nearest seed so far, drawn by inverse CDF
    with one ``rng.uniform()`` (``searchsorted`` of the uniform in the cumulative sum of the
    probabilities). These are the draws of ``scipy.cluster.vq.kmeans2(minit="++")``, so the seeds are
    the same for the same generator state; but ``D^2`` is kept per row and lowered by the newest seed
    only, ``O(size n d)`` work, where scipy recomputes the distances to every seed each round,
    ``O(size^2 n d)`` (48 of 50 s per MSRC codebook of 200 words on 50 000 descriptors).
    """
    from scipy.spatial.distance import cdist

    seeds = np.empty((size, data.shape[1]))
    seeds[0] = data[rng.integers(len(data))]
    nearest = np.full(len(data), np.inf)
    for i in range(1, size):
        np.minimum(nearest, cdist(seeds[i - 1 : i], data, metric="sqeuclidean")[0], out=nearest)
        cumulative = (nearest / nearest.sum()).cumsum()
        seeds[i] = data[int(np.searchsorted(cumulative, rng.uniform()))]
    return seeds


def quantise(descriptors: np.ndarray, codebook: np.ndarray) -> np.ndarray:
    """Index of the nearest codebook centre (Euclidean) of every descriptor."""
    from scipy.cluster.vq import vq

    words, _ = vq(np.asarray(descriptors, dtype=np.float64), codebook)
    return words
