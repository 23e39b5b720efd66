r"""The segmentation read off Gibbs samples of the MFAM posterior (DoGS §5.5): the most frequent label per patch.

DoGS §5.5: "We generate a segmentation by assigning each patch the most frequent label encountered during
Gibbs sampling", with every chain started at ``X^0`` = the PLSA MAP labelling. The paper says neither how
many chains nor which labels count as "encountered". Two readings, both computed from the same chains:

- **update draws** (:func:`labels_from_updates`, our main rule): every label drawn by an update of patch
  ``i``, pooled over the first ``n`` chains; a patch that the scan never updates keeps its ``X^0`` label.
  Under the systematic scan of length ``p`` each chain updates every patch once, so the count is over
  ``n`` draws; under the DoGS scan a region patch is updated once or a few times per chain.
- **final states** (:func:`labels_from_final_states`): the label of patch ``i`` in the chains' states
  ``X^T`` after the whole scan, the draw whose law the Dobrushin variation certifies (DoGS Theorem 8),
  pooled over the first ``n`` chains (``X^0``'s label where the scan never updates ``i``).

The start ``X^0`` itself is not counted as a vote: with one update per patch and chain it would give the
PLSA label as many votes as all draws together. Ties go to the smallest class index.
"""

from __future__ import annotations

import numpy as np

__all__ = ["labels_from_final_states", "labels_from_updates"]


def _check_chains(n_chains: int, available: int) -> int:
    if isinstance(n_chains, bool) or not isinstance(n_chains, (int, np.integer)) or not 1 <= n_chains <= available:
        raise ValueError(f"n_chains must be an integer in [1, {available}], got {n_chains!r}")
    return int(n_chains)


def labels_from_updates(label_counts: np.ndarray, start: np.ndarray, n_chains: int) -> np.ndarray:
    """Most frequent drawn label per patch over the first ``n_chains`` chains (``start`` where none was drawn).

    ``label_counts`` is ``(chains, p, K)``: ``[c, i, k]`` = updates of patch ``i`` in chain ``c`` that drew
    ``k`` (:func:`dogs.samplers.discrete_gibbs.run_discrete_gibbs` with ``count_labels=True``).
    """
    label_counts = np.asarray(label_counts)
    counts = label_counts[: _check_chains(n_chains, label_counts.shape[0])].sum(axis=0)
    return np.where(counts.sum(axis=1) > 0, counts.argmax(axis=1), np.asarray(start))


def labels_from_final_states(states: np.ndarray, n_labels: int, n_chains: int) -> np.ndarray:
    """Most frequent label per patch among the final states ``states[:n_chains]`` (``(chains, p)`` labels)."""
    states = np.asarray(states)
    final = states[: _check_chains(n_chains, states.shape[0])]
    counts = (final[:, :, None] == np.arange(n_labels)).sum(axis=0)
    return counts.argmax(axis=1)
