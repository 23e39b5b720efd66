r"""Multi-feature probabilistic latent semantic analysis (PLSA; Hofmann 2001) with image-level supervision.

The aspect model behind the Markov field aspect model of DoGS §5.5 (Verbeek & Triggs 2007): every patch ``i``
of image ``k`` has a latent class ``z`` drawn from the image's mixture ``theta_k``, and one word per feature
type ``f`` (texture, colour, position) drawn independently from ``beta_f(. | z)``:

.. math::

    p(w_i \mid k) = \sum_z \theta_{k,z} \prod_f \beta_f(w_{i,f} \mid z).

Fitting maximises ``sum_k sum_{i in k} log p(w_i | k)`` by EM. E-step: the responsibility
``r_i(z) ∝ theta_{k,z} prod_f beta_f(w_{i,f} | z)``. M-step:
``beta_f(w | z) ∝ alpha + sum_i r_i(z) [w_{i,f} = w]`` and ``theta_{k,z} ∝ sum_{i in k} r_i(z)``. With
``alpha = 0`` every EM step does not decrease the log-likelihood; ``alpha > 0`` (a small Dirichlet smoothing of
the word distributions, our choice) makes it a MAP EM that does not decrease the smoothed objective.

Weak supervision (Verbeek & Triggs): in a training image ``theta_k`` is restricted to the classes present in the
image (its image-level labels): ``theta_{k,z} = 0`` elsewhere, kept so by EM. At test time ``beta`` is fixed and
``theta_k`` of the new image is fitted by the same EM over ``theta`` alone ("fold-in"), all classes allowed.
The PLSA labelling of a patch is ``argmax_z r_i(z)`` (the MFAM with ``sigma = 0``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dogs._kernels.plsa import add_rows

__all__ = ["PLSAModel", "fit_plsa", "fold_in", "patch_log_likelihoods"]

_TINY = 1e-300


@dataclass(frozen=True)
class PLSAModel:
    """``beta[f]`` is ``(n_words_f, n_classes)``: column ``z`` the word distribution of feature ``f`` given ``z``."""

    beta: tuple
    log_likelihoods: np.ndarray  # after every EM iteration of the fit

    @property
    def n_classes(self) -> int:
        return self.beta[0].shape[1]


def patch_log_likelihoods(model: PLSAModel, words: np.ndarray) -> np.ndarray:
    """``log prod_f beta_f(w_{i,f} | z)`` for every patch and class: ``(n_patches, n_classes)``.

    ``words`` is ``(n_patches, n_features)``, column ``f`` the word of feature ``f``.
    """
    words = np.asarray(words)
    out = np.zeros((words.shape[0], model.n_classes))
    for f, beta in enumerate(model.beta):
        out += np.log(np.maximum(beta[words[:, f]], _TINY))
    return out


def _responsibilities(log_lik: np.ndarray, log_theta: np.ndarray):
    """Row-normalised ``theta_z * lik`` and the per-patch log ``sum_z theta_z lik`` (stable)."""
    joint = log_lik + log_theta
    top = joint.max(axis=1, keepdims=True)
    weights = np.exp(joint - top)
    total = weights.sum(axis=1, keepdims=True)
    return weights / total, (top + np.log(total)).ravel()


def fit_plsa(words: list, allowed: list, n_words: tuple, n_classes: int, *, iterations: int, smoothing: float,
             seed) -> tuple[PLSAModel, list]:
    """EM on training images.

    Parameters
    ----------
    words : list of (n_patches_k, n_features) int arrays
        One array per image.
    allowed : list of boolean (n_classes,) arrays
        The classes each image's mixture may use (its image-level labels).
    n_words : tuple of int
        Vocabulary size of each feature.
    iterations : int
        EM iterations.
    smoothing : float
        ``alpha``, the Dirichlet smoothing of every word distribution.
    seed
        Random start of ``beta`` (near uniform).

    Returns
    -------
    (PLSAModel, thetas)
        ``thetas[k]`` is image ``k``'s fitted mixture.
    """
    words = [np.asarray(w) for w in words]
    for k, w in enumerate(words):
        if w.ndim != 2 or w.shape[1] != len(n_words) or not np.issubdtype(w.dtype, np.integer):
            raise ValueError(f"image {k}: words must be an integer (n_patches, {len(n_words)}) array, got "
                             f"{w.dtype} {w.shape}")
        if w.size and ((w.min(axis=0) < 0).any() or (w.max(axis=0) >= np.asarray(n_words)).any()):
            raise ValueError(f"image {k}: a word outside its feature's vocabulary {tuple(n_words)}")
    rng = np.random.default_rng(seed)
    beta = [rng.dirichlet(np.full(n, 50.0), size=n_classes).T for n in n_words]  # (n_words, n_classes), near uniform
    masks = [np.asarray(a, dtype=bool) for a in allowed]
    if any(not m.any() for m in masks):
        raise ValueError("every training image needs at least one allowed class")
    thetas = [m / m.sum() for m in masks]
    history = []
    for _ in range(iterations):
        counts = [np.full(b.shape, smoothing) for b in beta]
        total = 0.0
        model = PLSAModel(tuple(beta), np.empty(0))
        for k, w in enumerate(words):
            log_theta = np.where(masks[k], np.log(np.maximum(thetas[k], _TINY)), -np.inf)
            r, log_p = _responsibilities(patch_log_likelihoods(model, w), log_theta)
            total += log_p.sum()
            thetas[k] = r.sum(axis=0) / len(w)
            for f in range(len(beta)):
                add_rows(counts[f], w[:, f], r)
        history.append(total)
        beta = [c / c.sum(axis=0, keepdims=True) for c in counts]
    return PLSAModel(tuple(beta), np.array(history)), thetas


def fold_in(model: PLSAModel, words: np.ndarray, *, iterations: int) -> tuple[np.ndarray, np.ndarray]:
    """``(theta, responsibilities)`` of a new image: EM over its mixture with ``beta`` fixed, every class allowed."""
    log_lik = patch_log_likelihoods(model, words)
    theta = np.full(model.n_classes, 1.0 / model.n_classes)
    for _ in range(iterations):
        r, _ = _responsibilities(log_lik, np.log(np.maximum(theta, _TINY)))
        theta = r.mean(axis=0)
    r, _ = _responsibilities(log_lik, np.log(np.maximum(theta, _TINY)))
    return theta, r
