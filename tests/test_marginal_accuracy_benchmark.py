"""The marginal-accuracy benchmark with evidence (``python -m dogs.benchmarks.marginal_accuracy``) runs end to end: every
sampler on every grid, pgmpy only on the small ones, errors against exact marginals of the conditioned model."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dogs.benchmarks.marginal_accuracy import hellinger, main


def test_hellinger_distance_of_binary_marginals():
    assert hellinger(np.array([0.3]), np.array([0.3]))[0] == 0
    assert np.isclose(hellinger(np.array([0.0]), np.array([1.0]))[0], 1.0)  # disjoint supports
    p, q = 0.2, 0.6
    expected = np.sqrt(0.5 * ((np.sqrt(p) - np.sqrt(q)) ** 2 + (np.sqrt(1 - p) - np.sqrt(1 - q)) ** 2))
    assert np.isclose(hellinger(np.array([p]), np.array([q]))[0], expected)


def test_every_sampler_runs_on_every_grid_and_writes_table_and_figure(tmp_path, capsys):
    out, figure = tmp_path / "uai_mar.json", tmp_path / "uai_mar.png"
    main(["--out", str(out), "--figure", str(figure), "--sides", "3", "4", "--seconds", "0.05",
          "--pgmpy-max-side", "3", "--seed", "5"])
    rows = json.loads(out.read_text())["rows"]
    assert [(r["side"], r["sampler"]) for r in rows] == [(3, "systematic"), (3, "dogs"), (3, "pgmpy"),
                                                         (4, "systematic"), (4, "dogs")]
    for r in rows:
        assert r["variables"] == r["side"] ** 2 - len(r["evidence"]) and len(r["evidence"]) == 3
        assert 0 <= r["mean_hellinger"] <= 1 and 0 <= r["max_marginal_error"] <= 1
        assert r["passes"] >= 1
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "mean Hellinger" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["--sides", "20"], ["--seconds", "0"], ["--seconds", "nan"], ["--chains", "0"],
                                  ["--coupling", "-1"]])
def test_bad_settings_are_refused_before_any_work(argv, tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--out", str(tmp_path / "x.json"), *argv])
    assert stop.value.code == 2 and "must" in capsys.readouterr().err and not (tmp_path / "x.json").exists()
