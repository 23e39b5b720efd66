"""The README's first command on a fresh clone: planned with no data directory, and with the data sets present.

Each test plans (``snakemake -n``) in a clean copy of the repository: the files git tracks, plus new files not yet
committed, without results, figures, virtual environment or data sets, run with the copy's own ``src/`` first on
the path. Without data the default target plans every data-free experiment and the paper-vs-ours table, and says
how to add each data set; with the data directory it plans the data experiments too. A data set that is present but
corrupt stops the default target at planning with the checksum message; the strict target ``all_with_data`` stops
whenever a data set is missing.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from pathlib import Path

import pytest
from repository_copy import ROOT, copy_repository

from cpu_limited import PLANNING_CPU_SECONDS, SMALL_RUN_CPU_SECONDS, run
from dogs.data import DATASETS, DatasetMissingError, require_dataset

# The rule families that read a data set (rules/msrc.smk, rules/boltzmann.smk), by data set.
DATA_RULE_PREFIXES = {"msrc_v1": "msrc_", "heart_disease": "boltzmann_"}


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A clean copy of the repository, with no data set in its data directory."""
    copy = copy_repository(tmp_path_factory.mktemp("fresh") / "repository")
    assert not any((copy / "data" / spec.folder).exists() for spec in DATASETS.values()), "a data set was copied"
    return copy


def _environment(clone: Path, data_dir: Path | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "DOGS_DATA_DIR"}
    env["PYTHONPATH"] = os.pathsep.join([str(clone / "src"), *filter(None, [env.get("PYTHONPATH")])])
    if data_dir is not None:
        env["DOGS_DATA_DIR"] = str(data_dir)
    return env


def plan(clone: Path, *args, data_dir: Path | None = None):
    """``snakemake -n ARGS`` in the copy; returns the process and its output (stdout and stderr)."""
    cmd = [sys.executable, "-m", "snakemake", *args, "-n"]
    proc = run(cmd, cwd=clone, cpu_seconds=PLANNING_CPU_SECONDS, env=_environment(clone, data_dir))
    return proc, proc.stdout + proc.stderr


def planned_jobs(text: str) -> dict[str, int]:
    """``{rule: number of jobs}`` from the first "Job stats" table of a dry run."""
    block = text.split("Job stats:", 1)[1].split("total", 1)[0]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)\s*$", block, re.MULTILINE)}


def readme_first_command() -> list[str]:
    """The arguments of ``snakemake`` in the README's first command (the first code block that runs it)."""
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```bash\n(.*?)```", readme, re.DOTALL).group(1)
    line = next(line for line in block.splitlines() if "snakemake" in line and not line.lstrip().startswith("#"))
    command = line.split("&&")[-1]
    words = shlex.split(command)
    (at,) = [k for k, word in enumerate(words) if word.endswith("snakemake")]
    return words[at + 1:]


def _data_available() -> bool:
    try:
        for name in DATASETS:
            require_dataset(name)
    except DatasetMissingError:
        return False
    return True


def test_the_readme_first_command_plans_without_data_and_says_how_to_add_it(clone):
    args = readme_first_command()
    assert "--cores" in args, args
    proc, text = plan(clone, *args)
    assert proc.returncode == 0, text[-4000:]
    jobs = planned_jobs(text)
    for name, prefix in DATA_RULE_PREFIXES.items():
        assert not [rule for rule in jobs if rule.startswith(prefix)], (name, jobs)
        # One notice per absent data set: what it enables, where to get it, where to put it.
        notice = re.search(rf"Data set '{name}' is not in the data directory: this run leaves out (.*)\n"
                           r"  Get it from (.*)\n  Put it at (.*)\n", text)
        assert notice, text[-4000:]
        assert "targets" in notice.group(1) and f"<data dir>/{DATASETS[name].folder}/" in notice.group(3)
        assert str(clone / "data") in notice.group(3)
    # Everything that needs no data: the same jobs as all_without_data, which plans as before.
    proc, without_data = plan(clone, "all_without_data")
    assert proc.returncode == 0, without_data[-4000:]
    assert {**planned_jobs(without_data), "all": 1} == {**jobs, "all_without_data": 1}
    assert jobs["paper_vs_ours_summarise"] == 1 and any(rule.endswith("plot_fig1") for rule in jobs)


def test_the_strict_target_stops_without_data(clone):
    proc, text = plan(clone, "all_with_data")
    assert proc.returncode != 0
    assert "not found" in text and "Get it from" in text and "Put it at" in text, text[-4000:]


def test_the_targets_say_which_need_data_and_fig_aa8_plans_without_it(clone):
    """``snakemake -l`` says which targets need a data set (so "needs" is in their docstring); a target that does
    not say so plans without data: AA Fig. 8, whose data are synthetic."""
    proc, text = plan(clone, "--list-target-rules")
    listed = dict(line.split(" ", 1) for line in proc.stdout.splitlines() if " " in line)
    needing = {name for name, doc in listed.items() if re.search(r"\bneeds (MSRC v1|the heart data|both data sets)", doc)}
    assert {"fig6", "fig7", "fig16", "fig_aa6", "fig_aa7", "fig_aa_errata_b1_b2", "all_with_data"} <= needing
    assert "fig_aa8" not in needing
    proc, text = plan(clone, "fig_aa8", "--configfile", "config/smoke.yaml")
    assert proc.returncode == 0 and "boltzmann_plot_fig8" in text, text[-3000:]


def test_a_corrupt_data_set_stops_the_default_target_at_planning(clone, tmp_path):
    folder = tmp_path / "data" / DATASETS["heart_disease"].folder
    folder.mkdir(parents=True)
    (folder / "reinis_counts.csv").write_text("smoke,mental,phys,systol,protein,family,count\n")
    proc, text = plan(clone, data_dir=tmp_path / "data")
    assert proc.returncode != 0
    assert "data set 'heart_disease' is corrupt or a different version" in text, text[-4000:]
    # A target without the data experiments does not read it, so it still plans.
    proc, text = plan(clone, "all_without_data", data_dir=tmp_path / "data")
    assert proc.returncode == 0, text[-4000:]


@pytest.mark.skipif(not _data_available(), reason="the data sets are not in the data directory (README, Data)")
def test_with_the_data_directory_the_plan_holds_the_data_experiments(clone):
    from dogs.data import data_dir

    proc, text = plan(clone, *readme_first_command(), data_dir=data_dir().resolve())
    assert proc.returncode == 0, text[-4000:]
    jobs = planned_jobs(text)
    for rule in ("msrc_compute_features", "msrc_compute_split", "msrc_plot_fig6", "msrc_plot_fig7", "msrc_plot_fig16",
                 "boltzmann_compute_data", "boltzmann_plot_fig6", "boltzmann_plot_fig7", "boltzmann_plot_fig8",
                 "paper_vs_ours_summarise"):
        assert jobs.get(rule, 0) >= 1, (rule, jobs)
    assert "is not in the data directory" not in text


@pytest.mark.skipif(not _data_available(), reason="the data sets are not in the data directory (README, Data)")
def test_the_config_key_data_dir_reaches_the_jobs(clone, tmp_path):
    """With the data directory named by the config key alone, the job that reads the heart table finds it too."""
    from dogs.data import data_dir

    config = tmp_path / "where.yaml"
    config.write_text(f"results_dir: {tmp_path / 'results'}\nfigures_dir: {tmp_path / 'figures'}\n"
                      f"data_dir: {data_dir().resolve()}\n")
    target = tmp_path / "results" / "boltzmann" / "heart" / "data.npz"
    cmd = [sys.executable, "-m", "snakemake", "--cores", "1", str(target), "--configfile", "config/smoke.yaml",
           str(config)]
    proc = run(cmd, cwd=clone, cpu_seconds=SMALL_RUN_CPU_SECONDS, env=_environment(clone, None))
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    assert target.is_file()
