"""The workflow end to end: the smoke DAG, planning at paper scale, lint, reproducibility, bad config.

The smoke run is the expensive part of the test suite: it regenerates every figure and table of
``config/smoke.yaml`` from scratch, as the README promises (its measured cost is in docs/performance.md; no test
asserts a time). It has no wall-clock limit, since load alone may stretch it: each of its processes has a CPU-time
limit instead (:data:`SMOKE_CPU_SECONDS`), a guard against a runaway job far above any measured need, and a job
over it fails the way any failed job does, in Snakemake's own report.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from cpu_limited import PLANNING_CPU_SECONDS, run
from dogs.claims import load_paper_claims
from dogs.workflow import published

ROOT = Path(__file__).resolve().parents[1]
SMOKE_RESULTS = ROOT / "results" / "smoke"
SMOKE_FIGURES = ROOT / "figures" / "smoke"


#: CPU seconds of each process of a smoke run (Snakemake's own and each job's): the heaviest smoke job used 44 s of
#: CPU (loose_bounds_compute_guarantees, from its Snakemake benchmark file; 580 s for the whole run), so 900 s
#: stops only a runaway job, whatever the load.
SMOKE_CPU_SECONDS = 900


def snakemake(*args, cpu_seconds=PLANNING_CPU_SECONDS):
    return run([sys.executable, "-m", "snakemake", *args], cwd=ROOT, cpu_seconds=cpu_seconds)


def _output_tail(proc) -> str:
    return (proc.stdout[-3000:] + "\n" + proc.stderr[-6000:]).strip()


# The smoke run is the README's command at smoke scale (the default target): with every data set in the data
# directory it covers the whole DAG (as CI does); without them, everything that needs no data, and the table.
# The families that read a data set, by data set (rules/msrc.smk, rules/boltzmann.smk).
DATA_FAMILIES = {"msrc_v1": "msrc", "heart_disease": "boltzmann"}


@pytest.fixture(scope="module")
def smoke_run():
    """Run the whole smoke DAG from scratch once for this module."""
    shutil.rmtree(SMOKE_RESULTS, ignore_errors=True)
    shutil.rmtree(SMOKE_FIGURES, ignore_errors=True)
    proc = snakemake("--cores", "2", "--configfile", "config/smoke.yaml", cpu_seconds=SMOKE_CPU_SECONDS)
    assert proc.returncode == 0, _output_tail(proc)
    return proc


@pytest.mark.workflow
def test_smoke_run_leaves_nothing_to_do(smoke_run):
    proc = snakemake("-n", "--configfile", "config/smoke.yaml")
    assert proc.returncode == 0, _output_tail(proc)
    assert "Nothing to be done" in proc.stdout + proc.stderr


@pytest.mark.workflow
def test_smoke_run_makes_figures_and_stamped_table(smoke_run):
    figures = sorted(SMOKE_FIGURES.rglob("*.png"))
    assert figures, "the smoke run made no figure"
    for path in figures:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", path
    table = (SMOKE_RESULTS / "paper_vs_ours" / "paper_vs_ours.md").read_text()
    assert "NOT comparable" in table
    rows = pd.read_csv(SMOKE_RESULTS / "paper_vs_ours" / "paper_vs_ours.csv")
    claims = load_paper_claims(ROOT / "config" / "claims")
    assert len(rows) == len(claims) and set(rows["comparable_with_paper"]) == {"no (smoke run)"}
    # Rows of a family whose data set is absent read "needs data", and only those; the run says so at its start and
    # end, once each per data set.
    from dogs.data import is_absent

    absent = {DATA_FAMILIES[name] for name in DATA_FAMILIES if is_absent(name)}
    family = rows["id"].map({row["id"]: row["family"] for row in claims})
    assert set(family[rows["verdict"] == "needs data"]) == absent
    assert (rows.loc[family.isin(absent), "verdict"] == "needs data").all()
    papers = rows["paper"] != "Beyond the papers"  # counted apart in the summary
    assert f"needs data: {int((family.isin(absent) & papers).sum())}" in table
    output = smoke_run.stdout + smoke_run.stderr
    for name, family in DATA_FAMILIES.items():
        assert output.count(f"Data set '{name}' is not in the data directory") == (2 if family in absent else 0)


@pytest.mark.workflow
def test_every_figure_names_the_paper_figure_it_regenerates(smoke_run):
    """Each figure's title (kept in its PNG by dogs.plotting.style.save_figure) names its paper and figure or table;
    the published ones pass docs_results' checks (title, at most four panels)."""
    from PIL import Image

    untitled = []
    for path in sorted(SMOKE_FIGURES.rglob("*.png")):
        if path.parent.name == "benchmarks":  # speed benchmarks: no paper figure
            continue
        with Image.open(path) as image:
            title = image.text.get("Title", "")
        if not (re.search(r"\b(DoGS|He et al\. 2016|Annular augmentation)\b", title)
                and re.search(r"\b(Figs?|Table)\.? \d", title)):
            untitled.append(f"{path.relative_to(SMOKE_FIGURES)}: {title!r}")
    assert not untitled, f"figures whose title names no paper figure: {untitled}"
    problems = [published.figure_problem(SMOKE_FIGURES / rel, paper, caption) for rel, paper, caption in published.KEY_FIGURES
                if (SMOKE_FIGURES / rel).is_file()]
    assert not any(problems), problems


@pytest.mark.workflow
def test_the_report_holds_every_figure_and_the_table(smoke_run, tmp_path):
    report = tmp_path / "report.html"
    proc = snakemake("--report", str(report), "--configfile", "config/smoke.yaml")
    assert proc.returncode == 0, _output_tail(proc)
    text = report.read_text(errors="replace")
    assert "paper_vs_ours.html" in text and "Regenerates DoGS Fig. 1" in text
    for path in sorted(SMOKE_FIGURES.rglob("*.png")):
        assert path.name in text, f"{path.name} is not in the report"


@pytest.mark.workflow
def test_every_result_has_a_sidecar(smoke_run):
    skip_dirs = {"logs", "benchmarks", "paper_vs_ours", "claims"}
    results = [
        p
        for p in SMOKE_RESULTS.rglob("*")
        if p.is_file()
        and p.suffix in {".csv", ".npz", ".json"}
        and not p.name.endswith(".meta.json")
        and not skip_dirs & set(p.relative_to(SMOKE_RESULTS).parts[:1])
    ]
    assert results
    missing = [str(p.relative_to(ROOT)) for p in results if not p.with_name(p.name.split(".")[0] + ".meta.json").exists()]
    assert not missing, f"results without a .meta.json sidecar: {missing}"


@pytest.mark.workflow
def test_paper_scale_dag_plans():
    proc = snakemake("-n", "--quiet", "rules")
    assert proc.returncode == 0, _output_tail(proc)


@pytest.mark.workflow
def test_lint_is_clean():
    proc = snakemake("--lint")
    assert proc.returncode == 0, _output_tail(proc)
    text = proc.stdout + proc.stderr
    assert "Lints for" not in text, text[-4000:]


def _numeric_tables_equal(first: Path, second: Path):
    """Compare every CSV and NPZ under two result folders, ignoring timing columns (``*seconds*``)."""
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.suffix in {".csv", ".npz"})
    assert files, f"no results under {first}"
    for rel in files:
        if rel.suffix == ".csv":
            a, b = pd.read_csv(first / rel), pd.read_csv(second / rel)
            keep = [c for c in a.columns if "seconds" not in c]
            pd.testing.assert_frame_equal(a[keep], b[keep], check_exact=True, obj=str(rel))
        else:
            with np.load(first / rel) as a, np.load(second / rel) as b:
                assert sorted(a.files) == sorted(b.files), rel
                for key in a.files:
                    np.testing.assert_array_equal(a[key], b[key], err_msg=f"{rel}:{key}")
    return files


@pytest.mark.workflow
def test_same_config_and_seed_give_the_same_numbers(tmp_path):
    """Two from-scratch smoke runs of the seeded sampler experiments agree number for number."""
    runs = []
    for name in ("first", "second"):
        results = tmp_path / name
        override = tmp_path / f"{name}.yaml"
        override.write_text(yaml.safe_dump({"results_dir": str(results), "figures_dir": str(tmp_path / f"{name}_fig")}))
        targets = [f"{results}/ising10/rep0/measured_error.csv", f"{results}/ising40/torus/bias_rep0.csv"]
        proc = snakemake("--cores", "2", *targets, "--configfile", "config/smoke.yaml", str(override),
                         cpu_seconds=SMOKE_CPU_SECONDS)
        assert proc.returncode == 0, _output_tail(proc)
        runs.append(results)
    compared = _numeric_tables_equal(*runs)
    assert any("measured_error" in str(p) for p in compared) and any("bias_rep0" in str(p) for p in compared)
