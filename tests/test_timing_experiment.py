"""E4, the end-to-end timing experiment (DoGS §5.2, App. B.2): speed-up, settings, command line, result files.

The sampling machinery (independent sample points, running estimate, checkpoints, the Gibbs stream) is the
library's and is tested in ``tests/test_sample_points.py``. Timings are never asserted (they depend on the
machine and its load); only that they are recorded.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dogs.claims import load_paper_claims
from dogs.experiments import timing
from experiment_cli import assert_judged

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "config" / "families"

SETTINGS = {
    "main_side": 8,
    "small_side": 5,
    "main_trials": 2,
    "max_coupling": 0.25,
    "systematic_sweeps": 2,
    "systematic_order": "paper",
    "doubling_start": 2,
    "systematic_points": 1000,
    "dogs_points": 3000,
    "checkpoints_per_decade": 5,
    "speedup_samples": [10, 100, 1000], "settle_level": 0.1, "epsilon_factors": [1.0, 0.25], "epsilon_points": 2000,
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


def _step(step, *, inputs=(), outputs=(), wildcards=(), settings=SETTINGS, seed=11, smoke=False):
    """Run one step as its rule would (``step_args`` of rules/common.smk); returns the exit status."""
    argv = [step, "--settings", json.dumps(settings), "--seed", str(seed), "--schema", str(SCHEMA)]
    for option, pairs in (("--input", inputs), ("--output", outputs), ("--wildcard", wildcards)):
        for name, value in pairs:
            argv += [option, f"{name}={value}"]
    if smoke:
        argv.append("--smoke")
    return timing.EXPERIMENT.main(argv)


def test_steps_follow_the_shell_scheme_and_match_the_rules():
    assert set(timing.EXPERIMENT.steps) == {"compute", "compute-epsilon", "summarise", "summarise-claims", "plot-fig2",
                                            "plot-fig10", "plot-fig11"}
    rules = (ROOT / "rules" / "timing.smk").read_text()
    used = re.findall(r'\*\*step\("timing", "([\w-]+)"\)', rules)  # the params of `use rule experiment_step`
    assert set(used) == set(timing.EXPERIMENT.steps) and len(used) == len(set(used))
    assert rules.count("use rule experiment_step as timing_") == len(used)


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


@pytest.mark.parametrize("change, key", [
    ({"systematic_points": 0}, "timing.systematic_points"),
    ({"dogs_points": 999}, "timing.dogs_points = 999 is below the largest of timing.speedup_samples (1000)"),
    ({"systematic_order": "zigzag"}, "timing.systematic_order"),
    ({"main_side": None}, "main_side"),  # None: the key is left out
    ({"extra": 1}, "'extra' was unexpected"),
])
def test_settings_errors_name_the_key(change, key, capsys):
    bad = {k: v for k, v in {**SETTINGS, **change}.items() if v is not None}
    with pytest.raises(SystemExit) as exc:
        timing.EXPERIMENT.context(["summarise", "--settings", json.dumps(bad), "--schema", str(SCHEMA)])
    assert exc.value.code == 2
    assert key in capsys.readouterr().err


def test_cli_rejects_bad_settings_before_computing(tmp_path, capsys):
    run, trace = tmp_path / "r.json", tmp_path / "t.csv"
    outputs = [("run", run), ("trace", trace)]
    with pytest.raises(SystemExit) as exc:
        _step("compute", outputs=outputs, wildcards=[("side", 8), ("trial", 0)],
              settings={**SETTINGS, "checkpoints_per_decade": 0})
    assert exc.value.code == 2
    assert "timing.checkpoints_per_decade" in capsys.readouterr().err
    assert not run.exists()
    # a side that is neither grid, and a trial the grid does not have: refused before any sampling
    assert _step("compute", outputs=outputs, wildcards=[("side", 7), ("trial", 0)]) == 2
    assert "timing.main_side" in capsys.readouterr().err
    assert _step("compute", outputs=outputs, wildcards=[("side", 5), ("trial", 1)]) == 2
    assert "trial 1 does not exist" in capsys.readouterr().err
    assert not run.exists() and not trace.exists()
    # a step without the rule's wildcard or output names what is missing
    assert _step("compute", outputs=outputs, wildcards=[("side", 8)]) == 2
    assert "--wildcard trial=VALUE" in capsys.readouterr().err


def test_tiny_end_to_end_run_writes_summary_and_claims(tmp_path):
    paths = {}
    for side, trials in ((8, 2), (5, 1)):
        runs, traces = [], []
        for trial in range(trials):
            folder = tmp_path / f"L{side}" / f"trial{trial}"
            run, trace = folder / "run.json", folder / "trace.csv"
            assert _step("compute", outputs=[("run", run), ("trace", trace)],
                         wildcards=[("side", side), ("trial", trial)]) == 0
            assert run.with_name("run.meta.json").exists() and trace.with_name("trace.meta.json").exists()
            runs.append(run)
            traces.append(trace)
        summary, speedup = tmp_path / f"L{side}" / "summary.json", tmp_path / f"L{side}" / "speedup.csv"
        assert _step("summarise", inputs=[*(("runs", p) for p in runs), *(("traces", p) for p in traces)],
                     outputs=[("summary", summary), ("speedup", speedup)], wildcards=[("side", side)]) == 0
        paths[side] = (summary, speedup, traces)

    record = json.loads((tmp_path / "L8" / "trial1" / "run.json").read_text())
    assert record["seed"]["path"] == ["timing", "8", "1"] and record["trial"] == 1
    assert record["sampling"]["dogs"]["reset"] == "visited sites"
    assert record["sampling"]["systematic"]["n_points"] == 1000 and record["sampling"]["dogs"]["n_points"] == 3000
    again = tmp_path / "again" / "run.json", tmp_path / "again" / "trace.csv"
    assert _step("compute", outputs=[("run", again[0]), ("trace", again[1])], wildcards=[("side", 8), ("trial", 1)]) == 0
    numbers = ["scan", "n_samples", "sum", "estimate", "std_error"]  # a fixed number of points: only the clocks differ
    pd.testing.assert_frame_equal(pd.read_csv(again[1])[numbers], pd.read_csv(paths[8][2][1])[numbers])
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

    epsilon = tmp_path / "L8" / "epsilon_sweep.csv"
    assert _step("compute-epsilon", outputs=[("epsilon", epsilon)]) == 0
    sweep = pd.read_csv(epsilon)
    assert list(sweep["factor"]) == [1.0, 0.25] and (sweep["n_points"] == 2000).all()
    assert (sweep["dogs_variation"] <= sweep["epsilon"]).all() and sweep["dogs_length"].is_monotonic_increasing
    assert _step("compute-epsilon", outputs=[("epsilon", tmp_path / "again.csv")]) == 0
    pd.testing.assert_frame_equal(sweep, pd.read_csv(tmp_path / "again.csv"))  # fixed points: no clock in the numbers

    claims_path = tmp_path / "claims" / "timing.json"
    assert _step("summarise-claims", inputs=[("main", paths[8][0]), ("small", paths[5][0]), ("epsilon", epsilon)],
                 outputs=[("claims", claims_path)], smoke=True) == 0
    claims = json.loads(claims_path.read_text())
    assert claims["family"] == "timing" and claims["smoke"] is True
    rows = load_paper_claims(ROOT / "config" / "claims")
    assert set(claims["claims"]) == {r["id"] for r in rows if r["family"] == "timing" and "criterion" in r}
    assert_judged(claims["claims"])
    # the two summaries swapped: refused, nothing written
    swapped = tmp_path / "claims" / "swapped.json"
    assert _step("summarise-claims", inputs=[("main", paths[5][0]), ("small", paths[8][0])],
                 outputs=[("claims", swapped)]) == 2
    assert not swapped.exists()

    pytest.importorskip("dogs.plotting.style")
    for step, side, trace_input in (("plot-fig2", 8, [("trace", paths[8][2][0])]),
                                    ("plot-fig10", 8, [("traces", p) for p in paths[8][2][1:]]),
                                    ("plot-fig11", 5, [("trace", paths[5][2][0])])):
        out = tmp_path / f"{step}.png"
        assert _step(step, inputs=[("summary", paths[side][0]), ("speedup", paths[side][1]), *trace_input],
                     outputs=[("figure", out)]) == 0
        assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
