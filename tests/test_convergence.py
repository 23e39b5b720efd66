"""The closed-form split R-hat of indicator draws (dogs.convergence) is ArviZ's rank-normalised R-hat."""

from __future__ import annotations

import numpy as np
import pytest

from dogs.convergence import indicator_rhat, split_counts
from dogs.sampling_call import diagnose, import_arviz


def _arviz_rhat(labels, cards):
    az = import_arviz()
    out = []
    for v, k_states in enumerate(cards):
        for k in range(k_states):
            out.append(az.rhat((labels[:, :, v] == k).astype(float), method="rank") if labels.shape[0] > 1 else np.nan)
    return np.array(out, dtype=float)


def _cases():
    rng = np.random.default_rng(11)
    for _ in range(120):
        chains, draws, n_vars = int(rng.integers(2, 6)), int(rng.integers(4, 41)), int(rng.integers(1, 4))
        cards = rng.integers(2, 5, n_vars)
        labels = np.empty((chains, draws, n_vars), dtype=np.int8)
        for v in range(n_vars):
            shares = rng.dirichlet(np.ones(cards[v]) * rng.choice([0.1, 1.0, 10.0]))
            labels[:, :, v] = rng.choice(cards[v], size=(chains, draws), p=shares)
        yield labels, cards
    # the edge cases: a constant indicator, constant half chains that differ, exactly half ones, an odd middle draw
    yield np.zeros((3, 10, 1), dtype=np.int8), np.array([2])
    yield np.repeat(np.array([0, 1, 0, 1], dtype=np.int8)[:, None], 8, axis=1)[:, :, None], np.array([2])
    yield np.tile(np.array([0, 1], dtype=np.int8), (4, 6))[:, :, None], np.array([2])
    odd = np.zeros((2, 9, 1), dtype=np.int8)
    odd[:, 4] = 1  # only the middle draw differs: left out of the split halves
    yield odd, np.array([2])


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning", "ignore:invalid value:RuntimeWarning")  # ArviZ's 0/0
def test_closed_form_equals_arviz_on_random_and_edge_cases():
    for labels, cards in _cases():
        ours, reference = indicator_rhat(labels, cards), _arviz_rhat(labels, cards)
        np.testing.assert_array_equal(np.isnan(ours), np.isnan(reference))
        np.testing.assert_array_equal(np.isinf(ours), np.isinf(reference))
        finite = np.isfinite(reference)
        np.testing.assert_allclose(ours[finite], reference[finite], rtol=1e-12)


def test_one_chain_gives_nan_and_counts_are_per_half_chain():
    labels = np.array([[[0], [1], [1], [2], [2]]], dtype=np.int8)  # one chain, 5 draws: halves [0, 1] and [2, 2]
    counts, half = split_counts(labels, np.array([3]))
    assert half == 2 and counts.tolist() == [[1, 1, 0], [0, 0, 2]]
    assert np.isnan(indicator_rhat(labels, np.array([3]))).all()


@pytest.mark.parametrize("chains", [1, 3])
def test_diagnose_keeps_arviz_quiet_and_agrees(chains, capfd):
    rng = np.random.default_rng(4)
    labels = rng.integers(0, 2, (chains, 30, 4)).astype(np.int8)
    stats = diagnose(labels)
    np.testing.assert_allclose(stats["r_hat"], indicator_rhat(labels, np.full(4, 2))[1::2], rtol=1e-12, equal_nan=True)
    assert capfd.readouterr().err == ""  # ArviZ logs "Shape validation failed" on one chain through its own logger


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_counts_kernel_equals_numpy(dtype):
    rng = np.random.default_rng(6)
    labels = rng.integers(0, 5, (3, 11, 4)).astype(dtype)
    cards = np.array([5, 5, 5, 5])
    counts, half = split_counts(labels, cards)
    for side, part in enumerate((labels[:, :half], labels[:, 11 - half:])):
        for v in range(4):
            for k in range(5):
                np.testing.assert_array_equal(counts[side * 3:(side + 1) * 3, v * 5 + k], (part[:, :, v] == k).sum(axis=1))
