"""DoGS on an influence bound that does not contract can starve a targeted variable; it then says so."""

import warnings

import numpy as np

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
