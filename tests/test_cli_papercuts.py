"""The ``dogs`` command without papercuts (issue: any --budget, one "systematic", ratios named by direction,
a summary and a not-saved notice without --out, --version, plain help, --plot maps, the UAI MAR format)."""

from __future__ import annotations

import json
from importlib.metadata import version

import numpy as np
import pytest

from dogs.cli import EXIT_BAD_INPUT, EXIT_OK, main
from dogs.cli._commands import make_scan
from dogs.cli._guard import Guard
from dogs.extras import DISTRIBUTION
from dogs.bounds import influence_bound
from dogs.models import grid_model
from dogs.models.uai import write_uai
from dogs.scans import dobrushin_variation, dogs_scan, length_doubling_dogs, systematic_scan
from dogs.uai_mar import format_uai_mar, parse_uai_mar, read_uai_mar


def run_cli(argv, capsys):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def grid_files(tmp_path_factory):
    """A 5x5 UAI grid, a 4x4 grid built in pgmpy and written as UAI, and a 4x4 dogs .npz grid."""
    from dogs.models.pgmpy_interop import from_pgmpy, to_pgmpy

    folder = tmp_path_factory.mktemp("grids")
    rng = np.random.default_rng(42)
    uai = folder / "grid5.uai"
    write_uai(grid_model(5, 5, rng.uniform(-0.25, 0.25, 40), rng.uniform(-0.2, 0.2, 25)), uai)
    pgmpy_net = to_pgmpy(grid_model(4, 4, 0.2, 0.1))  # a user's pgmpy network, read back by the library
    via_pgmpy = folder / "pgmpy4.uai"
    write_uai(from_pgmpy(pgmpy_net).model, via_pgmpy)
    npz = folder / "grid4.npz"
    np.savez(npz, **grid_model(4, 4, 0.2).to_npz_dict())
    return {"uai": uai, "pgmpy": via_pgmpy, "npz": npz}


@pytest.mark.parametrize("name", ["uai", "pgmpy", "npz"])
@pytest.mark.parametrize("budget", [2000, 777, 256])
def test_epsilon_base_works_for_any_budget_and_improves_on_the_base(grid_files, name, budget, tmp_path, capsys):
    out_file = tmp_path / "scan.txt"
    code, out, err = run_cli(["scan", grid_files[name], "--target", "0", "--budget", budget, "--epsilon", "base",
                              "--out", out_file], capsys)
    assert code == EXIT_OK, err
    r = json.loads(out)
    assert r["base_length"] == budget and r["dogs_length"] <= budget
    assert r["dogs_variation"] <= r["base_variation"] and r["dogs_variation"] < 1
    scan = np.loadtxt(out_file, dtype=np.int64, ndmin=1)
    assert scan.size == r["dogs_length"]
    base = systematic_scan(r["n_vars"], budget).indices
    assert scan.size < budget or not np.array_equal(scan, base), "the base scan came back unchanged"
    assert r["lengths_tried"][:3] == [2, 4, 8] and budget in r["lengths_tried"]  # doubling, capped at the budget


def test_length_doubling_ends_at_the_whole_input_and_bisection_shortens():
    model = grid_model(5, 5, 0.2, 0.1)
    bound, d = influence_bound(model), np.eye(25)[0]
    scan = systematic_scan(25, 300)  # not a power of two: the paper scheme used to stop at 256 and fail
    epsilon = dogs_scan(scan, d, bound).variation  # what Algorithm 2 reaches on the whole input: no prefix does
    plain = length_doubling_dogs(scan, d, bound, epsilon)
    assert plain.lengths_tried.tolist() == [2, 4, 8, 16, 32, 64, 128, 256, 300] and plain.variation <= epsilon
    refined = length_doubling_dogs(scan, d, bound, epsilon, bisect=True)
    assert refined.variation <= epsilon and 256 < refined.length <= plain.length
    assert refined.variation == pytest.approx(dobrushin_variation(refined.scan, d, bound), rel=1e-10)
    # the paper's scheme on a power-of-two multiple is unchanged (same lengths, same scan)
    power = length_doubling_dogs(systematic_scan(25, 512), d, bound, 0.01)
    again = dogs_scan(systematic_scan(25, 512).prefix(power.length), d, bound, epsilon=0.01)
    assert power.lengths_tried.tolist() == [2 ** k for k in range(1, len(power.lengths_tried) + 1)]
    np.testing.assert_array_equal(power.scan.indices, again.scan.indices)


def test_systematic_means_the_same_in_command_and_library(grid_files, capsys):
    guard = Guard(None)
    for p, length in ((25, 60), (7, 3), (16, 16)):
        np.testing.assert_array_equal(make_scan("systematic", p, length, "--length", guard).indices,
                                      systematic_scan(p, length).indices)
    assert systematic_scan(5, 7).indices.tolist() == [0, 1, 2, 3, 4, 0, 1]  # sweeps start on variable 0
    code, out, _ = run_cli(["scan", grid_files["npz"], "--target", "3", "--budget", "40"], capsys)
    reported = json.loads(out)["base_variation"]
    model = grid_model(4, 4, 0.2)
    assert reported == pytest.approx(dobrushin_variation(systematic_scan(16, 40), np.eye(16)[3],
                                                         influence_bound(model)), rel=1e-12)


def test_scan_without_out_prints_a_summary_and_says_it_was_not_saved(grid_files, capsys):
    code, out, err = run_cli(["scan", grid_files["uai"], "--target", "0", "--budget", "2000", "--epsilon", "0.01"],
                             capsys)
    r = json.loads(out)
    assert code == EXIT_OK and not r["saved"] and r["out"] is None and "not saved" in err
    assert r["scan_distinct_variables"] >= 1 and r["scan_most_visited"][0]["visits"] >= 1
    assert len(r["scan_last_steps"]) == min(10, r["dogs_length"])
    # a shorter scan meeting epsilon: its variation is above the long base's by design; the ratios say which way
    assert r["dogs_length"] < r["base_length"] and r["length_ratio_dogs_over_base"] < 1
    assert r["variation_ratio_dogs_over_base"] == pytest.approx(r["dogs_variation"] / r["base_variation"])
    assert "lower is better" in r["comparison"] and "improvement" not in r


def test_version_and_plain_help(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out.strip() == f"dogs {version(DISTRIBUTION)}"
    for argv in ([], ["scan"], ["sample"], ["bound"], ["exact"]):
        with pytest.raises(SystemExit):
            main(argv + ["--help"])
        text = capsys.readouterr().out
        assert "usage: dogs" in text and "``" not in text and ":math:" not in text and ":func:" not in text


def test_plot_maps_for_grid_models_and_a_clear_refusal_otherwise(grid_files, tmp_path, capsys):
    scan_png, sample_png = tmp_path / "visits.png", tmp_path / "marginals.png"
    code, _, err = run_cli(["scan", grid_files["uai"], "--target", "12", "--budget", "100", "--plot", scan_png],
                           capsys)
    assert code == EXIT_OK, err
    code, _, err = run_cli(["sample", grid_files["npz"], "--scan", "systematic", "--length", "16", "--draws", "8",
                            "--plot", sample_png], capsys)
    assert code == EXIT_OK, err
    for png in (scan_png, sample_png):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    chain = tmp_path / "chain.uai"  # 9 variables in a path 0-1-...-8: edge (2, 3) is no 3x3 lattice edge
    from dogs.models import BinaryPairwiseMRF

    write_uai(BinaryPairwiseMRF(np.array([[i, i + 1] for i in range(8)]), 0.2, np.zeros(9)), chain)
    for argv in (["scan", chain, "--target", "0", "--budget", "20"], ["sample", chain, "--scan", "systematic",
                                                                        "--length", "9", "--draws", "4"]):
        code, out, err = run_cli(argv + ["--plot", tmp_path / "no.png"], capsys)
        assert code == EXIT_BAD_INPUT and out == "" and "grid" in err and not (tmp_path / "no.png").exists()


def test_sample_writes_the_uai_mar_format(grid_files, tmp_path, capsys):
    argv = ["sample", grid_files["pgmpy"], "--scan", "systematic", "--length", "32", "--draws", "10", "--seed", "3"]
    code, out, _ = run_cli(argv + ["--format", "uai-mar"], capsys)
    assert code == EXIT_OK and out.startswith("MAR\n")
    tables = parse_uai_mar(out)
    code, js, _ = run_cli(argv, capsys)
    rows = json.loads(js)["marginals"]
    assert len(tables) == 16 and all(t.size == 2 for t in tables)
    for row in rows:  # same seed, same numbers, in the model file's variable and state order
        assert tables[row["variable"]][row["state"]] == row["probability"]
    path = tmp_path / "x.MAR"
    path.write_text(out)
    assert all(np.array_equal(a, b) for a, b in zip(read_uai_mar(path), tables))
    code, _, err = run_cli(argv + ["--format", "uai-mar", "--vars", "1"], capsys)
    assert code == EXIT_BAD_INPUT and "every variable" in err


def test_uai_mar_with_evidence_lists_every_variable_observed_ones_as_point_masses(grid_files, tmp_path, capsys):
    evidence = tmp_path / "grid.evid"
    evidence.write_text("2 5 1 10 0\n")
    code, out, err = run_cli(["sample", grid_files["pgmpy"], "--scan", "systematic", "--length", "32", "--draws", "10",
                              "--evidence", evidence, "--format", "uai-mar"], capsys)
    assert code == EXIT_OK, err
    tables = parse_uai_mar(out)
    assert len(tables) == 16 and all(t.size == 2 for t in tables)
    assert tables[5].tolist() == [0.0, 1.0] and tables[10].tolist() == [1.0, 0.0]
    assert all(abs(t.sum() - 1) < 1e-12 for t in tables)


def test_mar_round_trip_and_malformed_text():
    tables = [np.array([0.25, 0.75]), np.array([0.1, 0.2, 0.7])]
    text = format_uai_mar(tables)
    assert text.splitlines()[0] == "MAR" and text.split()[1:4] == ["2", "2", "0.25"]
    assert all(np.array_equal(a, b) for a, b in zip(parse_uai_mar(text), tables))
    for bad, match in (("PR\n1 2 0.5 0.5", "starts with the word MAR"), ("MAR\n2 2 0.5 0.5", "ends early"),
                       ("MAR\n1 2 0.5 x", "not a number"), ("MAR\n1 2 0.5 0.5 9", "left over"),
                       ("MAR\n0", "positive whole number")):
        with pytest.raises(ValueError, match=match):
            parse_uai_mar(bad)
    with pytest.raises(ValueError, match="non-negative"):
        format_uai_mar([np.array([0.5, -0.1])])


def test_scan_keeps_every_target_updated_unless_told_not_to(tmp_path, capsys):
    """On the cancer network (deterministic-like tables: its influence bound does not contract) one run of
    Algorithm 2 on one sweep drops two of the five targets; the command puts them back by default and says so,
    and ``--no-keep-targets`` gives Algorithm 2's own scan (the library's default) with the library's warning."""
    import warnings

    from dogs.benchmarks.networks import load_network

    model, _ = load_network("cancer")
    uai = write_uai(model, tmp_path / "cancer.uai")
    targets = ",".join(map(str, range(model.n_vars)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = dogs_scan(systematic_scan(model.n_vars, model.n_vars), np.ones(model.n_vars), influence_bound(model))
    dropped = int(np.sum(np.bincount(plain.scan.indices, minlength=model.n_vars) == 0))
    assert dropped == 2  # the premise: Algorithm 2 alone drops targets here

    code, out, err = run_cli(["scan", uai, "--target", targets, "--budget", model.n_vars, "--out",
                              tmp_path / "kept.txt"], capsys)
    assert code == EXIT_OK, err
    kept = json.loads(out)
    assert kept["keep_targets"] and kept["restored_targets"] == dropped and "dropped 2 target variables" in err
    assert kept["dogs_variation"] <= kept["base_variation"]
    assert set(np.loadtxt(tmp_path / "kept.txt", dtype=np.int64).tolist()) == set(range(model.n_vars))

    with pytest.warns(UserWarning, match="never updates 2 of the variables"):
        code, out, err = run_cli(["scan", uai, "--target", targets, "--budget", model.n_vars, "--no-keep-targets",
                                  "--out", tmp_path / "alone.txt"], capsys)
    alone = json.loads(out)
    assert code == EXIT_OK and not alone["keep_targets"] and alone["restored_targets"] == 0
    np.testing.assert_array_equal(np.loadtxt(tmp_path / "alone.txt", dtype=np.int64), plain.scan.indices)
