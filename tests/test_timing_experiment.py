"""E4, the end-to-end timing experiment (DoGS §5.2, App. B.2): kernel, running estimate, speed-up, CLI.

Timings are never asserted (they depend on the machine and its load); only that they are recorded.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from dogs._kernels.gibbs import gibbs_chain
from dogs._kernels.timing import draw_sample_points
from dogs.claims import load_paper_claims
from dogs.experiments import timing
from dogs.models.binary import grid_model
from dogs.samplers.gibbs import _HIGH_THRESHOLDS, _LOW_THRESHOLDS, run_gibbs
from dogs.scans.base import explicit_scan, systematic_scan

SETTINGS = {
    "main_side": 8,
    "small_side": 5,
    "main_trials": 2,
    "max_coupling": 0.25,
    "systematic_sweeps": 2,
    "systematic_order": "paper",
    "doubling_start": 2,
    "budget_seconds": 0.05,
    "checkpoints_per_decade": 5,
    "speedup_samples": [10, 100, 1000],
    "full_reset_probe_seconds": 0.01,
    "target_setup_seconds": 1.0,
    "target_step_seconds": 1.5e-8,
    "target_point_seconds": 0.05,
}

REQUIRED_SUMMARY_KEYS = {
    "dogs_length", "dogs_bound", "systematic_length", "systematic_bound", "setup_seconds", "setup_parts",
    "seconds_per_step_systematic", "seconds_per_step_dogs", "seconds_per_sample_point_systematic",
    "seconds_per_sample_point_dogs", "machine", "paper", "speedup", "loadavg", "trials",
}


def _model(side=5, field=0.3, seed=0):
    rng = np.random.default_rng(seed)
    n_edges = 2 * side * (side - 1)
    return grid_model(side, side, rng.uniform(-0.6, 0.6, n_edges), field=rng.uniform(-field, field, side * side))


def _kernel_args(model):
    return model.indptr, model.neighbors, model.coupling.view(np.uint64), model.h


def _points(model, scan, seed, n, target, sparse):
    spins = np.ones(model.n_vars, dtype=np.int8)
    state = timing.kernel_state(np.random.SeedSequence(seed))
    out = np.empty(n, dtype=np.int8)
    total = draw_sample_points(*_kernel_args(model), scan.indices, spins, state, _LOW_THRESHOLDS, _HIGH_THRESHOLDS,
                               target, sparse, out)
    return out, total, spins, state


@pytest.mark.parametrize("sparse", [True, False])
def test_first_point_is_run_gibbs_state_for_every_target(sparse):
    model = _model()
    scan = explicit_scan(np.random.default_rng(1).integers(0, model.n_vars, 40), model.n_vars)
    expected = run_gibbs(model, scan, seed=np.random.SeedSequence(7), initial_state=1).states[0]
    got = [_points(model, scan, 7, 1, v, sparse)[0][0] for v in range(model.n_vars)]
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("length, sparse", [(12, True), (12, False), (60, False)])
def test_points_match_repeated_gibbs_chain_from_plus_one(length, sparse):
    """Point k consumes what the k-th consecutive gibbs_chain call on the same RNG state consumes."""
    model = _model()
    scan = systematic_scan(model.n_vars, length) if length > model.n_vars else \
        explicit_scan(np.random.default_rng(2).integers(0, model.n_vars, length), model.n_vars)
    target = 6
    out, total, spins, state = _points(model, scan, 3, 200, target, sparse)

    ref_state = timing.kernel_state(np.random.SeedSequence(3))
    empty = np.zeros(0, dtype=np.int64)
    reference = []
    for _ in range(200):
        chain = np.ones(model.n_vars, dtype=np.int8)
        gibbs_chain(*_kernel_args(model), scan.indices, chain, ref_state, _LOW_THRESHOLDS, _HIGH_THRESHOLDS,
                    empty, empty, np.zeros((0, 0), dtype=np.int8))
        reference.append(chain[target])
    np.testing.assert_array_equal(out, reference)
    assert total == int(out.astype(np.int64).sum())
    assert np.all(spins == 1), "the state buffer must be back to all +1"
    np.testing.assert_array_equal(state, ref_state)
    assert len(set(out.tolist())) == 2  # both spins occur: the comparison is not vacuous


def test_running_estimate_is_the_mean_of_the_points_drawn():
    model = _model(side=6)
    scan = systematic_scan(model.n_vars, 2 * model.n_vars)
    run = timing.sample_points(model, scan, timing.kernel_state(np.random.SeedSequence(5)), budget_seconds=60,
                               per_decade=4, max_points=3000, keep_points=True)
    assert run.points.size == run.n_points == 3000
    cumulative = np.cumsum(run.points.astype(np.int64))
    np.testing.assert_array_equal(run.sums, cumulative[run.counts - 1])
    np.testing.assert_allclose(run.estimates, cumulative[run.counts - 1] / run.counts)
    assert np.all(np.diff(run.counts) > 0) and np.all(np.diff(run.seconds) >= 0)
    assert run.reset == "full state"
    # the same seed draws the same points; the stream runs on across batches
    again = timing.sample_points(model, scan, timing.kernel_state(np.random.SeedSequence(5)), budget_seconds=60,
                                 per_decade=1, max_points=3000, keep_points=True)
    np.testing.assert_array_equal(again.points, run.points)


def test_sample_points_stops_near_the_budget():
    model = _model(side=6)
    scan = explicit_scan([0, 1, 2], model.n_vars)
    run = timing.sample_points(model, scan, timing.kernel_state(np.random.SeedSequence(0)), budget_seconds=0.05,
                               per_decade=10)
    assert run.reset == "visited sites"
    assert 0.03 < run.total_seconds < 0.5 and run.n_points > 100


def test_speedup_formula():
    n = np.array([1, 10, 100, 1000])
    got = timing.predicted_speedup(n, setup_seconds=2.0, systematic_point_seconds=0.5, dogs_point_seconds=0.001)
    np.testing.assert_allclose(got, n * 0.5 / (2.0 + n * 0.001))
    big = timing.predicted_speedup(1e12, setup_seconds=2.0, systematic_point_seconds=0.5, dogs_point_seconds=0.001)
    assert big == pytest.approx(500.0, rel=1e-6)  # the limit: ratio of the point times
    # measured: clocks interpolated in n from (0, 0); nan where a run did not get that far
    got = timing.measured_speedup([5, 10, 20], setup_seconds=1.0, systematic=([10], [4.0]), dogs=([100], [1.0]))
    np.testing.assert_allclose(got[:2], [2.0 / (1.0 + 0.05), 4.0 / (1.0 + 0.1)])
    assert np.isnan(got[2])


def test_checkpoint_counts_every_count_then_geometric():
    counts = timing.checkpoint_counts(5, limit=10**4)
    np.testing.assert_array_equal(counts[:5], [1, 2, 3, 4, 5])
    assert np.all(np.diff(counts) > 0) and counts[-1] == 10**4
    ratios = counts[6:] / counts[5:-1]
    assert ratios.max() < 1.7


def test_settings_errors_name_the_key():
    with pytest.raises(ValueError, match="timing.budget_seconds"):
        timing.check_settings({**SETTINGS, "budget_seconds": -1})
    with pytest.raises(ValueError, match="timing.systematic_order"):
        timing.check_settings({**SETTINGS, "systematic_order": "zigzag"})
    with pytest.raises(ValueError, match="timing.main_side"):
        timing.check_settings({k: v for k, v in SETTINGS.items() if k != "main_side"})
    with pytest.raises(ValueError, match="timing.extra"):
        timing.check_settings({**SETTINGS, "extra": 1})


def test_cli_rejects_bad_settings_before_computing(tmp_path, capsys):
    bad = json.dumps({**SETTINGS, "checkpoints_per_decade": 0})
    with pytest.raises(SystemExit) as exc:
        timing.main(["run", "--settings", bad, "--seed", "1", "--side", "8", "--trial", "0",
                     "--run", str(tmp_path / "r.json"), "--trace", str(tmp_path / "t.csv")])
    assert exc.value.code == 2
    assert "timing.checkpoints_per_decade" in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()
    with pytest.raises(SystemExit):
        timing.main(["run", "--settings", json.dumps(SETTINGS), "--seed", "1", "--side", "7", "--trial", "0",
                     "--run", str(tmp_path / "r.json"), "--trace", str(tmp_path / "t.csv")])
    assert "timing.main_side" in capsys.readouterr().err


def test_tiny_end_to_end_run_writes_summary_and_claims(tmp_path):
    args = ["--settings", json.dumps(SETTINGS), "--seed", "11"]
    paths = {}
    for side, trials in ((8, 2), (5, 1)):
        runs, traces = [], []
        for trial in range(trials):
            run, trace = tmp_path / f"L{side}" / f"trial{trial}" / "run.json", tmp_path / f"L{side}" / f"trial{trial}" / "trace.csv"
            timing.main(["run", *args, "--side", str(side), "--trial", str(trial), "--run", str(run), "--trace", str(trace)])
            assert run.with_name("run.meta.json").exists() and trace.with_name("trace.meta.json").exists()
            runs.append(str(run))
            traces.append(str(trace))
        summary, speedup = tmp_path / f"L{side}" / "summary.json", tmp_path / f"L{side}" / "speedup.csv"
        timing.main(["summarise", *args, "--side", str(side), "--runs", *runs, "--traces", *traces,
                     "--summary", str(summary), "--speedup", str(speedup)])
        paths[side] = (summary, speedup, traces)

    summary = json.loads(paths[8][0].read_text())
    assert REQUIRED_SUMMARY_KEYS <= set(summary)
    assert summary["side"] == 8 and summary["systematic_length"] == 2 * 64
    assert summary["dogs_bound"] <= summary["systematic_bound"]
    assert summary["dogs_length"] <= summary["systematic_length"]
    assert summary["setup_seconds"] == pytest.approx(sum(summary["setup_parts"].values()))
    assert set(summary["setup_parts"]) == {"bound_seconds", "systematic_scan_seconds", "epsilon_seconds",
                                           "doubling_seconds"}
    assert summary["paper"]["setup_seconds"] == 15.0 and summary["paper"]["seconds_per_step"] == 12.65e-6
    assert {"cpu", "cores"} <= set(summary["machine"])
    assert len(summary["trials"]) == 2 and set(summary["speedup"]) == {"10", "100", "1000"}
    for row in summary["speedup"].values():
        assert row["predicted"] > 0 and row["paper_implied"] > 0

    claims_path = tmp_path / "claims" / "timing.json"
    timing.main(["claims", *args, "--main-summary", str(paths[8][0]), "--small-summary", str(paths[5][0]),
                 "--claims", str(claims_path), "--smoke"])
    claims = json.loads(claims_path.read_text())
    assert claims["family"] == "timing" and claims["smoke"] is True
    rows = load_paper_claims(Path(__file__).resolve().parents[1] / "config" / "paper_claims.yaml")
    assert set(claims["claims"]) == {r["id"] for r in rows if r["family"] == "timing"}
    assert all(c["verdict"] in ("reproduced", "partly", "not reproduced") for c in claims["claims"].values())

    pytest.importorskip("dogs.plotting.style")
    for kind, side, traces in (("main", 8, paths[8][2][:1]), ("trials", 8, paths[8][2][1:]), ("small", 5, paths[5][2])):
        out = tmp_path / f"{kind}.png"
        timing.main(["plot", *args, "--kind", kind, "--summary", str(paths[side][0]), "--speedup", str(paths[side][1]),
                     "--traces", *traces, "--out", str(out)])
        assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
