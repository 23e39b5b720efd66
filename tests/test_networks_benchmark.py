"""The networks scoreboard (``python -m dogs.benchmarks.networks``) runs end to end on a small bundled network,
writes its table, figure and JSON, and reports a sampler that cannot run instead of stopping."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

pytest.importorskip("pgmpy")

from dogs.benchmarks import networks  # noqa: E402


def test_scoreboard_on_cancer_writes_table_figure_and_scores(tmp_path):
    out, table, figure = tmp_path / "n.json", tmp_path / "n.md", tmp_path / "n.png"
    result = networks.main(["--out", str(out), "--table", str(table), "--figure", str(figure), "--networks",
                            "cancer", "--seconds", "0.3", "--chains", "2", "--evidence", "1", "--seed", "3"])
    row = json.loads(out.read_text())["rows"][0]
    assert row == json.loads(json.dumps(result["rows"][0]))
    assert row["network"] == "cancer" and row["variables"] == 5 and len(row["evidence"]) == 1
    for sampler in networks.OURS:
        cell = row[sampler]
        assert cell["marginals"] == 2 * 4  # four unobserved binary variables
        assert 0 <= cell["mean_error"] <= cell["max_error"] <= 1 and 0 <= cell["coverage"] <= 1
        assert cell["coverage_unseen_exact"] <= cell["coverage"] and 0 <= cell["unseen"] <= cell["marginals"]
        assert cell["converged_coverage"] is None or 0 <= cell["converged_coverage"] <= 1
        assert cell["draws"] >= 4
    assert row["DoGS_scan"]["unvisited"] == 0  # keep_targets: every unobserved variable is updated
    assert row["DoGS_scan"]["restored"] == row["DoGS-alg2_scan"]["unvisited"]  # what Algorithm 2 dropped came back
    assert row["blocked"]["blocks"] == 1 and row["blocked"]["blocked_variables"] == 4  # one block: exact draws
    assert "error" in row["pgmpy"] or 0 <= row["pgmpy"]["mean_error"] <= 1
    text = table.read_text()
    assert all(f"| cancer | 5 | 1 | {sampler} |" in text for sampler in networks.SAMPLERS)
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_samplers_option_runs_only_those_and_the_table_lists_them(tmp_path):
    out, table = tmp_path / "n.json", tmp_path / "n.md"
    networks.main(["--out", str(out), "--table", str(table), "--figure", str(tmp_path / "n.png"), "--networks",
                   "cancer", "--seconds", "0.2", "--chains", "2", "--samplers", "systematic"])
    row = json.loads(out.read_text())["rows"][0]
    assert "systematic" in row and "DoGS" not in row and "pgmpy" not in row
    lines = [line for line in table.read_text().splitlines() if line.startswith("| cancer |")]
    assert len(lines) == 1 and "| systematic |" in lines[0]
    assert lines[0].count("|") == table.read_text().splitlines()[2].count("|")  # every column filled


def test_exact_inference_out_of_reach_is_listed_not_scored(tmp_path):
    out, table = tmp_path / "n.json", tmp_path / "n.md"
    networks.main(["--out", str(out), "--table", str(table), "--figure", str(tmp_path / "n.png"), "--networks",
                   "child", "--seconds", "0.1", "--max-table-entries", "4"])
    row = json.loads(out.read_text())["rows"][0]
    assert "exact inference out of reach" in row["skipped"] and "DoGS" not in row
    assert "Out of reach of exact inference" in table.read_text()


def _stuck(conditioned, seconds, seed, start_labels, results):
    time.sleep(60)


def test_a_pgmpy_run_over_its_limit_is_stopped_and_reported():
    model, _ = networks.load_network("cancer")
    from dogs.models.evidence import condition

    conditioned = condition(model, {})
    out = networks._pgmpy(conditioned, 0.01, 0, np.zeros(5, dtype=np.int64), run=_stuck)
    assert out == {"error": "GibbsSampling did not finish within 10.02 s (setup over the budget; stopped)"}


@pytest.mark.parametrize("argv", [["--networks", "nonesuch"], ["--seconds", "0"], ["--chains", "1"],
                                  ["--evidence", "-1"]])
def test_bad_settings_are_refused_before_any_work(argv, tmp_path):
    with pytest.raises(SystemExit):
        networks.main(["--out", str(tmp_path / "n.json"), "--table", str(tmp_path / "n.md"), "--figure",
                       str(tmp_path / "n.png"), *argv])
    assert not list(tmp_path.iterdir())


def test_coverage_counts_unseen_states_by_their_bound_and_exact_zeros_always():
    """Five marginals: inside 3 SE; outside; unseen within its bound; unseen beyond it; unseen of a variable that
    never changed (NaN bound) and exactly right (probability 0). The old rule covers the unseen ones only when
    exact."""
    nan = np.nan
    errors = np.array([0.02, 0.05, 1e-4, 0.3, 0.0])
    std_errors = np.array([0.01, 0.01, nan, nan, nan])
    bounds = np.array([nan, nan, 1e-3, 1e-3, nan])
    within, exact_only = networks.covered(errors, std_errors, bounds, np.zeros(5))
    assert within.tolist() == [True, False, True, False, True]
    assert exact_only.tolist() == [True, False, False, False, True]


def test_coverage_by_interval_widens_it_by_the_bias_and_without_one_asks_for_exact():
    """Four marginals: inside; outside by less than the bias; outside by more; no interval (NaN) and exact."""
    nan = np.nan
    exact = np.array([0.3, 0.52, 0.6, 0.0])
    lower, upper = np.array([0.2, 0.3, 0.3, nan]), np.array([0.4, 0.5, 0.5, nan])
    errors = np.array([0.01, 0.1, 0.2, 0.0])
    within = networks.covered_by_interval(exact, lower, upper, errors, np.array([0.0, 0.03, 0.03, 0.0]))
    assert within.tolist() == [True, True, False, True]


def test_the_evidence_summary_sets_each_seeds_coverage_side_by_side_and_names_the_shortfalls(tmp_path):
    """One row per network, one column per run's seed (the scoreboard's first), the lowest coverage, and every run
    below 95% named; a network out of exact reach or without a start says so; an unreadable run is refused."""
    from dogs.benchmarks.networks_evidence import main

    def run(seed, rows):
        path = tmp_path / f"run{seed}.json"
        path.write_text(json.dumps({"seed": seed, "rows": rows}))
        return path

    first = run(7, [{"network": "asia", "blocked": {"coverage": 1.0}},
                    {"network": "munin2", "blocked": {"coverage": 0.954}}])
    second = run(1, [{"network": "asia", "blocked": {"coverage": 0.99}},
                     {"network": "munin2", "blocked": {"coverage": 0.931}},
                     {"network": "link", "skipped": "exact inference out of reach"},
                     {"network": "child", "blocked": {"error": "no start: ..."}}])
    text = main(["--table", str(tmp_path / "out.md"), str(first), str(second)])
    assert (tmp_path / "out.md").read_text() == text
    assert "| network | seed 7 | seed 1 | lowest |" in text
    assert "| asia | 100.0% | 99.0% | 99.0% |" in text
    assert "| munin2 | 95.4% | 93.1% | 93.1% |" in text
    assert "| link |  | out of reach |  |" in text and "| child |  | no start |  |" in text
    assert text.rstrip().endswith("Below 95%: munin2 at seed 1 (93.1%).")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(SystemExit):
        main(["--table", str(tmp_path / "bad.md"), str(tmp_path / "bad.json")])
    assert not (tmp_path / "bad.md").exists()


def test_standard_errors_benchmark_compares_every_rule_with_the_runs_spread(tmp_path):
    """``python -m dogs.benchmarks.standard_errors`` on a tiny case: every rule gets ratio quantiles over the
    marginals that vary between runs and a coverage per run; the table has a row per rule."""
    from dogs.benchmarks import standard_errors

    out, table = tmp_path / "s.json", tmp_path / "s.md"
    result = standard_errors.main(["--out", str(out), "--table", str(table), "--cases", "asia:1:20", "--runs", "3",
                                   "--chains", "2", "--evidence", "2"])
    case = json.loads(out.read_text())["cases"][0]
    assert case == json.loads(json.dumps(result["cases"][0]))
    assert (case["network"], case["evidence_seed"], case["draws"], case["runs"]) == ("asia", 1, 20, 3)
    assert case["independent_draws"] and 0 < case["marginals_varying"] <= case["marginals"] == 2 * 6
    for rule in standard_errors.RULES:
        cell = case["rules"][rule]
        assert len(cell["coverage_per_run"]) == 3 and 0 <= cell["coverage_lowest"] <= cell["coverage_mean"] <= 1
        quantiles = list(cell["ratio_quantiles"].values())
        assert quantiles == sorted(quantiles) and quantiles[0] > 0
    assert sum(f"| asia | 1 | 20 | independent draws | {rule} |" in table.read_text()
               for rule in standard_errors.RULES) == 3


@pytest.mark.parametrize("case", ["asia:1", "asia:x:20", "asia:1:2", "nowhere:1:20"])
def test_standard_errors_benchmark_refuses_a_malformed_case(case, tmp_path, capsys):
    from dogs.benchmarks import standard_errors

    with pytest.raises(SystemExit):
        standard_errors.main(["--out", str(tmp_path / "s.json"), "--table", str(tmp_path / "s.md"), "--cases", case])
    assert "case" in capsys.readouterr().err and not (tmp_path / "s.json").exists()


def test_the_budget_thins_costly_passes_and_grows_the_draws_where_passes_are_free(monkeypatch):
    """A fake clock, advanced by a fake run: a pass of 1e-5 s is thinned to fill 5 s in at most MAX_DRAWS draws;
    where passes cost nothing more than one (one block drawing the model, ``thinning=False``) every pass is a draw,
    sized by the draws' cost and capped at MAX_DRAWS, never thinned."""
    from types import SimpleNamespace

    clock = [0.0]
    monkeypatch.setattr(networks, "time", SimpleNamespace(perf_counter=lambda: clock[0]))

    def thinned(draws, passes):
        clock[0] += 0.01 + draws * passes * 1e-5

    draws, thin = networks._budgeted(5.0, thinned)
    assert thin > 1 and draws <= networks.MAX_DRAWS and draws * thin * 1e-5 == pytest.approx(5.0 - 0.01, rel=0.01)

    def free_passes(draws, passes):  # a pass's cost does not depend on passes
        clock[0] += 0.01 + draws * 2e-3

    draws, thin = networks._budgeted(5.0, free_passes, thinning=False)
    assert thin == 1 and draws * 2e-3 == pytest.approx(5.0 - 0.01, rel=0.01)
    draws, thin = networks._budgeted(50.0, free_passes, thinning=False)
    assert (draws, thin) == (networks.MAX_DRAWS, 1)
