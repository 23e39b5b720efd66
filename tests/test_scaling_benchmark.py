"""The scaling benchmark on tiny grids: every stage measured in a child process, skipped sides, the report, the figure.

Timings are never asserted (they depend on the machine and its load); only that they are recorded.
"""

from __future__ import annotations

import json

import pytest

from dogs.benchmarks import scaling


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("scaling") / "scaling.json"
    scaling.main(["measure", "--out", str(out), "--sides", "4", "12", "--repeats", "2", "--seed", "3"])
    return json.loads(out.read_text()), out


def test_every_stage_is_measured_on_every_side(report):
    data, _ = report
    assert data["stages"] == list(scaling.STAGES)
    assert [side["n_vars"] for side in data["sides"]] == [16, 144]
    for side in data["sides"]:
        assert set(side["stages"]) == set(scaling.STAGES)
        for name, stage in side["stages"].items():
            assert stage["seconds"] > 0 and stage["peak_bytes"] >= 0 and stage["held_bytes"] >= 0
            runs = len(stage["seconds_repeats"])
            assert runs == 1 if name in ("model", "gibbs_graph") else 2 <= runs <= scaling.MAX_REPEATS
            assert stage["seconds"] == min(stage["seconds_repeats"])
        assert side["dogs_variation"] <= side["epsilon"] and side["algorithm2_variation"] >= 0
        assert side["algorithm2_fixed_variation"] >= 0
        assert side["dogs_length"] >= 2 and -1.0 <= side["gibbs_mean_spin"] <= 1.0
    assert set(data["time_per_variable_spread"]) == set(data["time_per_variable_growth"]) == set(scaling.TIMED_STAGES)
    assert all(1 <= side["algorithm2_distinct_variables"] <= side["n_vars"] for side in data["sides"])
    assert data["largest_p_in_memory"] is None  # no extrapolation from 144 variables
    assert data["settings"] == {"sides": [4, 12], "seed": 3, "repeats": 2, "max_memory_gb": None, "max_coupling": 0.25}


def test_same_seed_same_numbers(report, tmp_path):
    data, _ = report
    again = tmp_path / "again.json"
    scaling.main(["measure", "--out", str(again), "--sides", "4", "--repeats", "1", "--seed", "3"])
    first, second = data["sides"][0], json.loads(again.read_text())["sides"][0]
    for key in ("epsilon", "dogs_length", "dogs_variation", "algorithm2_variation", "gibbs_mean_spin"):
        assert first[key] == second[key]


def test_a_side_that_does_not_fit_is_skipped_with_the_reason(tmp_path):
    out = tmp_path / "small.json"
    scaling.main(["measure", "--out", str(out), "--sides", "4", "40", "--repeats", "1", "--max-memory-gb", "1e-6"])
    sides = json.loads(out.read_text())["sides"]
    assert "stages" in sides[0]  # nothing is known before the first side: it runs
    assert "stages" not in sides[1] and "GiB allowed" in sides[1]["skipped"]


def test_spread_of_the_time_per_variable():
    sides = [{"n_vars": p, "stages": {"gibbs": {"ns_per_variable": ns}}} for p, ns in ((10**4, 50.0), (10**5, 4.0),
                                                                                       (10**6, 5.0), (10**7, 6.0))]
    assert scaling.per_variable_spread(sides, "gibbs") == pytest.approx(1.5)  # 10^4 is left out
    assert scaling.per_variable_spread(sides[:2], "gibbs") is None
    assert scaling.per_variable_growth(sides, "gibbs") == pytest.approx(1.5)
    underflowed = [{"n_vars": p, "algorithm2_variation": v, "stages": {"algorithm2": {"ns_per_variable": ns}}}
                   for p, v, ns in ((10**5, 1e-47, 200.0), (10**6, 1e-103, 260.0), (10**8, 0.0, 100.0))]
    assert scaling.per_variable_spread(underflowed, "algorithm2") == pytest.approx(1.3)  # 10^8 moved no weight
    assert scaling.spread_exclusions(underflowed) == [
        {"stage": "algorithm2", "n_vars": 10**8,
         "reason": "the Dobrushin variation underflowed to 0: the later steps move no weight"}]
    falling = [{"n_vars": p, "stages": {"doubling": {"ns_per_variable": 1e7 / p}}} for p in (10**5, 10**6, 10**7)]
    assert scaling.per_variable_spread(falling, "doubling") == pytest.approx(100.0)
    assert scaling.per_variable_growth(falling, "doubling") == 1.0


def test_figure(report, tmp_path):
    pytest.importorskip("dogs.plotting.style")
    _, path = report
    figure = tmp_path / "scaling.png"
    scaling.main(["plot", "--report", str(path), "--figure", str(figure)])
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("argv", [["measure", "--sides", "1"], ["measure", "--repeats", "0"],
                                  ["measure", "--max-memory-gb", "0"], ["plot", "--report", "x.json"]])
def test_bad_arguments_are_refused(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        scaling.main(argv)
    assert exc.value.code == 2
