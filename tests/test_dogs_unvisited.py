"""DoGS on an influence bound that does not contract can starve a targeted variable; it then says so."""

import warnings

import numpy as np
import pytest

from dogs.scans import UnvisitedVariablesWarning, dogs_scan, systematic_scan


def _dropped(input_scan, result, d):
    before = np.bincount(input_scan.indices, minlength=input_scan.n_vars) > 0
    after = np.bincount(result.scan.indices, minlength=input_scan.n_vars) > 0
    return np.flatnonzero(before & ~after & (d > 0))


def test_the_warning_fires_exactly_when_a_targeted_variable_is_dropped():
    rng = np.random.default_rng(0)
    fired = silent = 0
    for _ in range(200):
        n = int(rng.integers(3, 8))
        scale = rng.choice([0.1, 3.0])  # contracting and vacuous bounds alike
        influence = rng.uniform(0, scale / n, (n, n)) * (rng.uniform(size=(n, n)) < 0.6)
        np.fill_diagonal(influence, 0.0)
        d = (rng.uniform(size=n) < 0.7).astype(float)
        d[0] = 1.0
        base = systematic_scan(n, n * int(rng.integers(1, 3)))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = dogs_scan(base, d, influence)
        warned = [w for w in caught if issubclass(w.category, UnvisitedVariablesWarning)]
        dropped = _dropped(base, result, d)
        assert bool(warned) == bool(dropped.size), (influence, d, dropped)
        if warned:
            assert f"never updates {dropped.size} of the variables" in str(warned[0].message)
            fired += 1
        else:
            silent += 1
    # both branches are exercised (the counts are deterministic: fixed generator, no sampling noise)
    assert fired and silent


def _random_cases(n_cases, seed):
    """Small random influence bounds, contracting and vacuous alike, with weights of two scales and early stopping
    now and then (a fixed generator: the cases, and so the counts below, are deterministic)."""
    rng = np.random.default_rng(seed)
    for _ in range(n_cases):
        n = int(rng.integers(3, 9))
        scale = rng.choice([0.1, 3.0])
        influence = rng.uniform(0, scale / n, (n, n)) * (rng.uniform(size=(n, n)) < 0.6)
        np.fill_diagonal(influence, 0.0)
        d = (rng.uniform(size=n) < 0.7).astype(float) * rng.choice([1.0, 0.1])
        d[0] = 1.0
        epsilon = None if rng.uniform() < 0.7 else float(rng.uniform(0, 2))
        yield systematic_scan(n, n * int(rng.integers(1, 3))), d, influence, epsilon


def test_keep_targets_updates_every_target_and_never_raises_the_variation():
    from dogs.scans.variation import dobrushin_variation

    outcomes = {"unchanged": 0, "repaired": 0, "input": 0}
    for base, d, influence, epsilon in _random_cases(1000, 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnvisitedVariablesWarning)
            plain = dogs_scan(base, d, influence, epsilon)
        with warnings.catch_warnings():
            warnings.simplefilter("error", UnvisitedVariablesWarning)  # keep_targets never warns
            kept = dogs_scan(base, d, influence, epsilon, keep_targets=True)
        assert _dropped(base, kept, d).size == 0
        assert kept.input_variation == plain.input_variation
        assert kept.variation <= kept.input_variation * (1 + 1e-12)  # Algorithm 2's own sums round
        assert np.isclose(kept.variation, dobrushin_variation(kept.scan, d, influence), rtol=1e-9, atol=1e-12)
        assert np.array_equal(kept.restored, _dropped(base, plain, d))
        if not kept.restored.size:
            assert np.array_equal(kept.scan.indices, plain.scan.indices) and kept.variation == plain.variation
            outcomes["unchanged"] += 1
        elif kept.kept_input:
            assert np.array_equal(kept.scan.indices, base.indices)
            outcomes["input"] += 1
        else:
            # every variable Algorithm 2 updated is still updated: a restored step replaced a repeated one
            assert set(plain.scan.indices.tolist()) <= set(kept.scan.indices.tolist())
            outcomes["repaired"] += 1
    assert all(outcomes.values()), outcomes  # every branch exercised


def test_keep_targets_must_be_a_bool():
    with pytest.raises(TypeError, match="keep_targets"):
        dogs_scan(systematic_scan(3, 3), np.ones(3), np.zeros((3, 3)), keep_targets="yes")


def test_iterated_dogs_keeps_targets_in_every_run():
    from dogs.scans import iterated_dogs

    restored_somewhere = 0
    for base, d, influence, epsilon in _random_cases(200, 2):
        result = iterated_dogs(base, d, influence, epsilon, max_iterations=5, keep_targets=True)
        assert _dropped(base, result, d).size == 0
        assert np.all(np.diff(result.variations) <= 1e-12 * result.variations[:-1])  # never worse than before
        restored_somewhere += bool(result.restored.size)
    assert restored_somewhere  # the repair ran in some of the cases (deterministic: fixed generator)
