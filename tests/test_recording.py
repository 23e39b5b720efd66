"""Library pieces behind the measured curves: length grids, scan profiles, recorded chains, summaries."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dogs.experiments.common import scan_family
from dogs.models.binary import grid_model
from dogs.samplers.gibbs import run_gibbs
from dogs.samplers.recording import mean_by_scan_and_length, samples_at_lengths, samples_by_scan
from dogs.scans.base import systematic_scan, uniform_scan
from dogs.scans.guarantees import length_grid, steps_to_reach
from dogs.scans.profile import manhattan_distance, scan_profile
from dogs.seeds import extend_seed, seed_sequence
from dogs.summaries import (
    first_at_or_below,
    mean_abs_bias_with_se,
    mean_by_length,
    noise_floor,
    paired_interval,
    ratio_interval,
)


# --------------------------------------------------------------------------- length grids, scan profiles
def test_length_grid_includes_stop_on_the_grid():
    assert length_grid(5, 20, step=5).tolist() == [5, 10, 15, 20]
    assert length_grid(5, 22, step=5).tolist() == [5, 10, 15, 20]
    log_grid = length_grid(10, 16000, per_decade=12)
    assert log_grid[0] == 10 and log_grid[-1] == 16000 and np.all(np.diff(log_grid) > 0)
    assert 35 <= log_grid.size <= 41
    with pytest.raises(ValueError, match="exactly one of step and per_decade"):
        length_grid(1, 5, step=1, per_decade=3)
    with pytest.raises(ValueError, match="start must be a positive integer"):
        length_grid(0, 22, step=5)
    with pytest.raises(ValueError, match="stop must be >= start"):
        length_grid(10, 5, step=1)


def test_steps_to_reach_interpolates_the_log_of_a_guarantee_curve():
    # 0.1 at T = 10 and 0.001 at T = 30, linear in log: 0.01 is reached halfway, at T = 20 (lengths in any order)
    assert steps_to_reach([30, 10], [0.001, 0.1], 0.01) == pytest.approx(20.0)
    assert steps_to_reach([10, 30], [0.1, 0.001], 0.5) == 10.0  # already below the level at the first length
    assert np.isnan(steps_to_reach([10, 30], [0.1, 0.05], 0.01))  # never reached on the grid


def test_manhattan_distance_wraps_on_the_torus():
    open_d = manhattan_distance(5, 0, torus=False).reshape(5, 5)
    torus_d = manhattan_distance(5, 0, torus=True).reshape(5, 5)
    assert open_d[4, 4] == 8 and torus_d[4, 4] == 2 and torus_d[2, 3] == 4
    assert open_d[0, 0] == torus_d[0, 0] == 0


def test_scan_profile_counts_every_step():
    side, length = 4, 64
    indices = systematic_scan(side * side, length).indices
    prof = scan_profile(indices, side, 0, False, [0.0, 0.5, 1.0])
    hist = prof["histogram"]
    assert hist["visits"].sum() == length and hist["n_sites"].sum() == side * side
    assert np.allclose(hist["visits_per_site"], length / side**2)
    assert np.allclose(prof["maps"], 1.0)  # systematic = rate 1 everywhere
    assert prof["distance_by_step"].size == length


def test_scan_family_is_one_long_scan_for_prefix_scans_and_per_length_otherwise():
    assert scan_family("systematic", {}, [3, 9], 4).length == 9
    assert scan_family("uniform", {}, [3, 9], 4).length == 9
    stored = {"dogs_T3": np.array([0, 1, 0]), "dogs_T9": np.arange(9) % 4}
    family = scan_family("dogs", stored, [9, 3], 4)
    assert sorted(family) == [3, 9] and family[3].indices.tolist() == [0, 1, 0]
    with pytest.raises(KeyError, match="dogs_T5"):
        scan_family("dogs", stored, [5], 4)


# --------------------------------------------------------------------------- recorded chains
def test_extend_seed_appends_to_the_path():
    a = extend_seed(seed_sequence(3, "x", 1), "y", 2)
    b = seed_sequence(3, "x", 1, "y", 2)
    assert a.entropy == b.entropy and a.spawn_key == b.spawn_key
    with pytest.raises(TypeError):
        extend_seed(3, "y")


def test_a_prefix_family_records_what_separate_runs_of_each_length_give():
    model = grid_model(3, 3, 0.3, 0.1)
    seed = seed_sequence(0, "prefix")
    out = samples_at_lengths(model, systematic_scan(9, 30), [5, 12, 30], seed=seed, n_chains=7, record_vars=[0, 4])
    assert out.values.shape == (7, 3, 2) and out.work.site_updates == 7 * 30
    for r, t in enumerate([5, 12, 30]):
        alone = run_gibbs(model, systematic_scan(9, t), seed=seed, n_chains=7)
        assert np.array_equal(out.values[:, r, :], alone.states[:, [0, 4]])


def test_a_per_length_family_runs_each_scan_from_its_own_seed():
    model = grid_model(3, 3, 0.3)
    seed = seed_sequence(0, "per-length")
    family = {4: systematic_scan(9, 4), 11: systematic_scan(9, 11)}
    out = samples_at_lengths(model, family, [11, 4], seed=seed, n_chains=5, record_vars=[2])
    assert out.lengths.tolist() == [4, 11] and out.work.site_updates == 5 * 15
    alone = run_gibbs(model, family[11], seed=extend_seed(seed, 11), n_chains=5)
    assert np.array_equal(out.values[:, 1, 0], alone.states[:, 2])
    with pytest.raises(KeyError, match="length 7"):
        samples_at_lengths(model, family, [7], seed=seed, n_chains=2, record_vars=[0])
    with pytest.raises(ValueError, match="fewer than the longest length"):
        samples_at_lengths(model, systematic_scan(9, 4), [7], seed=seed, n_chains=2, record_vars=[0])
    with pytest.raises(TypeError, match="SeedSequence"):
        samples_at_lengths(model, family, [4], seed=1, n_chains=2, record_vars=[0])


def test_samples_by_scan_extends_the_seed_with_the_scan_name():
    model = grid_model(3, 3, 0.3)
    seed = seed_sequence(1, "by-scan")
    (name, out), = samples_by_scan(model, {"uniform": uniform_scan(9, 20)}, [20], seed=seed, n_chains=4,
                                   record_vars=np.arange(9))
    alone = run_gibbs(model, uniform_scan(9, 20), seed=extend_seed(seed, "uniform"), n_chains=4)
    assert name == "uniform" and np.array_equal(out.values[:, 0, :], alone.states)


def test_bias_of_an_uncoupled_model_vanishes_after_one_sweep():
    # independent spins with zero field: after every site is updated once, E[X_0] = 0 exactly.
    # |mean| < 4 s.e. fails with probability about 6e-5 per length (normal approximation, 4000 chains).
    model = grid_model(3, 3, 0.0)
    frame = mean_by_scan_and_length(model, {"systematic": systematic_scan(9, 9)}, [1, 9], target=0,
                                    seed=seed_sequence(0, "test"), n_chains=4000, initial_state=1)
    assert list(frame.columns) == ["scan", "T", "mean", "se", "n_chains"]
    assert np.all(np.abs(frame["mean"]) < 4 * frame["se"])


# --------------------------------------------------------------------------- summaries
def test_mean_by_length_and_first_crossing():
    values = np.array([[1, -1], [1, 1], [1, -1], [1, 1]])
    frame = mean_by_length([2, 5], values)
    assert frame["mean"].tolist() == [1.0, 0.0]
    assert frame["se"].tolist() == pytest.approx([0.0, np.sqrt(4 / 3) / 2])
    frame = pd.DataFrame({"T": [1, 2, 3, 4], "mean": [0.9, 0.5, 0.1, 0.3], "se": 0.05})
    assert first_at_or_below(frame, 0.2) == 3
    assert first_at_or_below(frame, 0.01) is None
    with pytest.raises(ValueError, match="at least 2 chains"):
        mean_by_length([1], np.ones((1, 1)))


def test_noise_floor_matches_simulation():
    # 20000 simulated floors: the relative standard error of their mean is below 0.5 %, so rel = 0.02 is 4+ s.e.
    rng = np.random.default_rng(0)
    p_plus = np.array([0.1, 0.5, 0.93])
    n = 50
    draws = rng.binomial(n, p_plus, size=(20000, 3)) / n
    simulated = np.abs(draws - p_plus).sum(axis=1).mean()
    assert noise_floor(p_plus, n) == pytest.approx(simulated, rel=0.02)


def test_the_paired_interval_is_students():
    from scipy import stats

    x = np.array([0.004, -0.001, 0.002, 0.006, 0.0, 0.003])
    mean, low, high = paired_interval(x)
    ci = stats.ttest_1samp(x, 0.0).confidence_interval(0.95)
    assert mean == pytest.approx(x.mean()) and (low, high) == pytest.approx((ci.low, ci.high))
    assert np.isnan(paired_interval([0.1])[1])


def test_mean_abs_bias_and_a_ratio_carry_their_standard_errors():
    # T = 1: two runs (means 0.1 and 0.3, se 0.02 each) average to 0.2 with se sqrt(2 * 0.02^2) / 2; T = 2: -0.2, se 0.04
    frame = pd.DataFrame({"T": [1, 1, 2], "mean": [0.1, 0.3, -0.2], "se": [0.02, 0.02, 0.04]})
    mean, se = mean_abs_bias_with_se(frame)
    assert mean == pytest.approx(0.2) and se == pytest.approx(np.sqrt(2 * 0.02**2 / 4 + 0.04**2) / 2)
    half = 2.0 * 2.0 * np.hypot(0.1 / 2.0, 0.05 / 1.0)  # z * ratio * hypot of the relative standard errors
    assert ratio_interval((2.0, 0.1), (1.0, 0.05), z=2.0) == pytest.approx((2.0, 2.0 - half, 2.0 + half))
