"""Bad input fails fast, names the offending key, and leaves no partial result behind.

Config errors are caught by Snakemake's schema validation before any job runs;
library errors by the package's own checks before any long computation.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from cpu_limited import PLANNING_CPU_SECONDS, run
from dogs.data import DatasetMissingError, require_dataset
from dogs.io import atomic_path, remove_stale_temporaries, write_csv
from dogs.models import BinaryPairwiseMRF, grid_model
from dogs.scans import Scan, make_scan, systematic_scan

ROOT = Path(__file__).resolve().parents[1]


def _plan_with(tmp_path, overrides: dict):
    """Plan the smoke DAG with extra config on top; results would go under tmp_path."""
    extra = {"results_dir": str(tmp_path / "results"), "figures_dir": str(tmp_path / "figures"), **overrides}
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(extra))
    cmd = [sys.executable, "-m", "snakemake", "--cores", "1", "--configfile", "config/smoke.yaml", str(path)]
    proc = run(cmd, cwd=ROOT, cpu_seconds=PLANNING_CPU_SECONDS)
    return proc, proc.stdout + proc.stderr


BAD_CONFIGS = {
    "misspelt top-level key": ({"root_sed": 3}, "root_sed"),
    "negative root seed": ({"root_seed": -1}, "root_seed"),
    "seed of the wrong type": ({"root_seed": "abc"}, "root_seed"),
    "grid side below 2": ({"benchmarks": {"gibbs_side": 1, "dogs_side": 10, "repeats": 1}}, "gibbs_side"),
    "zero repeats": ({"benchmarks": {"gibbs_side": 10, "dogs_side": 10, "repeats": 0}}, "repeats"),
    "smoke flag not a boolean": ({"smoke": "sometimes"}, "smoke"),
    "NaN coupling": ({"loose_bounds": {"coupling": float("nan")}}, "loose_bounds.coupling"),
    "infinite coupling range": ({"timing": {"max_coupling": float("inf")}}, "max_coupling"),
    "integer written as a float": ({"ising10": {"n_replicates": 4.0}}, "ising10.n_replicates"),
    "float grid side": ({"benchmarks": {"dogs_side": 100.0}}, "benchmarks.dogs_side"),
}


@pytest.mark.parametrize("case", sorted(BAD_CONFIGS))
def test_bad_config_stops_before_any_job(tmp_path, case):
    overrides, key = BAD_CONFIGS[case]
    proc, text = _plan_with(tmp_path, overrides)
    assert proc.returncode != 0
    assert key in text, text[-2000:]
    assert not (tmp_path / "results").exists() and not (tmp_path / "figures").exists()


def test_duplicate_config_key_names_the_file_and_lines(tmp_path):
    path = tmp_path / "twice.yaml"
    path.write_text(f"results_dir: {tmp_path / 'results'}\nroot_seed: 1\nroot_seed: 2\n")
    cmd = [sys.executable, "-m", "snakemake", "-n", "--configfile", "config/smoke.yaml", str(path)]
    proc = run(cmd, cwd=ROOT, cpu_seconds=PLANNING_CPU_SECONDS)
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "duplicate key 'root_seed' at line 3 (first at line 2)" in text and str(path) in text, text[-2000:]


def test_planning_commands_need_no_cores():
    proc = run([sys.executable, "-m", "snakemake", "--summary", "--configfile", "config/smoke.yaml"], cwd=ROOT,
               cpu_seconds=PLANNING_CPU_SECONDS)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-2000:]


def test_unknown_scan_name():
    with pytest.raises(ValueError, match="unknown scan name 'zigzag'"):
        make_scan("zigzag", 4, 10)


def test_negative_and_non_integer_lengths():
    with pytest.raises(ValueError, match="length must be >= 0"):
        systematic_scan(4, -1)
    with pytest.raises(TypeError, match="length must be an integer"):
        systematic_scan(4, 2.5)


def test_scan_index_out_of_range():
    with pytest.raises(ValueError, match=r"\[-1, 3\]"):
        Scan(np.array([0, 4]), 4)


def test_grid_side_below_two():
    with pytest.raises(ValueError, match="rows must be >= 2"):
        grid_model(1, 5, 0.1)
    with pytest.raises(ValueError, match="torus needs both sides >= 3"):
        grid_model(2, 5, 0.1, torus=True)


def test_couplings_of_the_wrong_type_and_length():
    edges = np.array([[0, 1], [1, 2]])
    with pytest.raises(TypeError, match="theta"):
        BinaryPairwiseMRF(edges, np.array(["a", "b"]), np.zeros(3))
    with pytest.raises(ValueError, match="one coupling per edge"):
        BinaryPairwiseMRF(edges, np.zeros(3), np.zeros(3))
    with pytest.raises(ValueError, match="self-loops"):
        BinaryPairwiseMRF(np.array([[1, 1]]), np.zeros(1), np.zeros(3))


def test_missing_data_set_says_where_to_get_and_put_it(tmp_path, monkeypatch):
    monkeypatch.setenv("DOGS_DATA_DIR", str(tmp_path))
    with pytest.raises(DatasetMissingError) as info:
        require_dataset("heart_disease")
    message = str(info.value)
    assert "gRbase" in message and "heart_disease/reinis_counts.csv" in message and "DOGS_DATA_DIR" in message
    with pytest.raises(DatasetMissingError, match="Microsoft"):
        require_dataset("msrc_v1")


def test_corrupt_data_file_is_refused(tmp_path, monkeypatch):
    folder = tmp_path / "heart_disease"
    folder.mkdir()
    (folder / "reinis_counts.csv").write_text("smoke,count\ny,1\n")
    monkeypatch.setenv("DOGS_DATA_DIR", str(tmp_path))
    with pytest.raises(DatasetMissingError, match="corrupt"):
        require_dataset("heart_disease")


def test_atomic_writer_leaves_nothing_on_failure(tmp_path):
    target = tmp_path / "out" / "table.csv"
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            tmp.write_text("half a result")
            raise RuntimeError("computation failed")
    assert not target.exists() and list(target.parent.iterdir()) == []


@pytest.mark.parametrize("signal_name", ["SIGKILL", "SIGTERM"])
def test_a_killed_writer_leaves_no_temporary_after_the_next_write(tmp_path, signal_name):
    target = tmp_path / "table.csv"
    script = ("import sys, time; from dogs.io import atomic_path\n"
              "with atomic_path(sys.argv[1]) as tmp:\n"
              "    tmp.write_text('half'); print('ready', flush=True); time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", script, str(target)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    proc.send_signal(getattr(signal, signal_name))
    proc.wait()  # either signal ends it (SIGTERM's default action)
    assert not target.exists()
    write_csv(pd.DataFrame({"a": [1]}), target)  # the rerun of the rule
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.csv"]


def test_a_running_writer_keeps_its_temporary(tmp_path):
    target = tmp_path / "table.csv"
    with atomic_path(target) as mine:
        mine.write_text("in progress")
        assert remove_stale_temporaries(target) == [] and mine.exists()


def test_field_errors_name_field():
    with pytest.raises(TypeError, match="field must be a real number"):
        grid_model(3, 3, 0.1, "abc")
    with pytest.raises(ValueError, match=r"field must be a scalar or have one value per site \(9\)"):
        grid_model(3, 3, 0.1, np.zeros(5))


def test_weights_must_be_a_vector():
    from dogs.bounds import influence_binary_pairwise
    from dogs.scans import dobrushin_variation

    model = grid_model(3, 3, 0.1)
    bound = influence_binary_pairwise(model)
    for shape in [(9, 1), (3, 3)]:
        with pytest.raises(ValueError, match="weights must be a 1-d array"):
            dobrushin_variation(systematic_scan(9, 20), np.ones(shape), bound)


def test_junction_tree_at_huge_coupling_is_silent_and_right():
    import warnings

    from dogs.exact import brute_force, junction_tree_marginals

    model = grid_model(3, 3, 400.0, 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        exact = junction_tree_marginals(model)
    np.testing.assert_allclose(exact.node_marginals, brute_force(model).node_marginals, atol=1e-12)


def test_experiment_cli_rejects_malformed_settings(tmp_path):
    out = tmp_path / "table.md"
    cmd = [sys.executable, "-m", "dogs.experiments.paper_vs_ours", "summarise", "--input",
           f"claims={tmp_path / 'none.yaml'}", "--output", f"md={out}", "--output", f"csv={tmp_path / 't.csv'}"]
    proc = run(cmd, cpu_seconds=PLANNING_CPU_SECONDS)
    assert proc.returncode != 0 and "none.yaml" in proc.stderr
    assert not out.exists()


@pytest.mark.skipif("DOGS_DATA_DIR" not in os.environ, reason="no data directory configured")
def test_configured_data_sets_pass_their_checksums():
    assert (require_dataset("heart_disease") / "reinis_counts.csv").is_file()
    assert (require_dataset("msrc_v1") / "MSRC_ObjCategImageDatabase_v1.zip").is_file()


def test_workflow_stops_at_once_when_a_rule_needs_a_missing_data_set(tmp_path):
    """A rule whose input is ``dataset(name)`` (rules/common.smk) stops the DAG before any job runs."""
    snakefile = tmp_path / "Snakefile"
    snakefile.write_text(
        f'include: "{ROOT}/rules/common.smk"\n\n'
        "rule uses_heart_disease:\n"
        '    input: lambda wildcards: dataset("heart_disease")\n'
        '    output: "made.txt"\n'
        '    shell: "touch {output}"\n'
    )
    empty = tmp_path / "no_data"
    empty.mkdir()
    cmd = [sys.executable, "-m", "snakemake", "-s", str(snakefile), "-d", str(tmp_path), "--cores", "1",
           "--config", "results_dir=r", "figures_dir=f"]
    proc = run(cmd, cpu_seconds=PLANNING_CPU_SECONDS, env={**os.environ, "DOGS_DATA_DIR": str(empty)})
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "heart_disease/reinis_counts.csv" in text and "gRbase" in text, text[-2000:]
    assert not (tmp_path / "made.txt").exists()


def test_weight_vector_of_the_wrong_length():
    from dogs.bounds import influence_binary_pairwise
    from dogs.scans import dobrushin_variation, dogs_scan

    model = grid_model(2, 2, 0.1)
    bound = influence_binary_pairwise(model)
    scan = systematic_scan(4, 8)
    with pytest.raises(ValueError, match="weights"):
        dobrushin_variation(scan, np.ones(3), bound)
    with pytest.raises(ValueError, match="weights"):
        dogs_scan(scan, -np.ones(4), bound)


def test_unknown_scan_name_in_the_config_stops_before_any_job(tmp_path):
    proc, text = _plan_with(tmp_path, {"ising10": {"measure": {"scans": ["systematic", "zigzag"]}}})
    assert proc.returncode != 0 and "zigzag" in text, text[-2000:]
    assert not (tmp_path / "results").exists()
