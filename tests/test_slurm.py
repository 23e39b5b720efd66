"""The SLURM profile on a one-node SLURM cluster started on this machine (``profiles/slurm/local_cluster.sh``).

A smoke figure target (He et al. Fig. 2b: two jobs) goes through ``profiles/slurm``: every job Snakemake submits
ends ``COMPLETED`` in ``sacct --completion`` (the cluster's job-completion log), and the result table, its seed and
settings and the figure are byte for byte those of a local run of the same target. The cluster script starts beside
another cluster, refuses to start twice and cleans up after a failed start.

Where such a cluster cannot be started (Debian's slurm-wlm and munge not installed, not root, the daemons do not
come up) the tests say so in one line and skip; with ``DOGS_REQUIRE_SLURM=1`` (set by ``.ci/run``, which installs
the packages) they fail instead. ``DOGS_SLURM_CLUSTER_DIR`` puts the cluster's folder where ``.ci/run`` can stop
it whatever happens to the tests.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import cpu_limited

ROOT = Path(__file__).resolve().parents[1]
CLUSTER = ROOT / "profiles" / "slurm" / "local_cluster.sh"
REQUIRED = os.environ.get("DOGS_REQUIRE_SLURM") == "1"
TARGET = "fig_he2b"
OUTPUTS = ("results/scan_order/fig2b_island_mass.csv", "figures/scan_order/fig2b_two_islands_mass.png")

pytestmark = pytest.mark.workflow


def _unavailable(reason: str):
    """Skip with ``reason``, or fail with it where SLURM is required (CI)."""
    reason = "SLURM cannot be started here: " + " ".join(reason.split())
    if REQUIRED:
        pytest.fail(reason + " (DOGS_REQUIRE_SLURM=1: .ci/run installs slurm-wlm and munge)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(autouse=True)
def slurm_tools():
    missing = [tool for tool in ("slurmctld", "slurmd", "munged", "sbatch", "sacct") if shutil.which(tool) is None]
    if missing:
        _unavailable(f"{', '.join(missing)} not installed (Debian packages slurm-wlm and munge)")
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        _unavailable("the one-node cluster script needs root")


def _cluster(action: str, folder: Path, **env) -> subprocess.CompletedProcess:
    return cpu_limited.run(["bash", str(CLUSTER), action, str(folder)], cpu_seconds=cpu_limited.PLANNING_CPU_SECONDS,
                           env={**os.environ, **env})


def _daemons(folder: Path) -> list[str]:
    """Processes started from ``folder`` that still run (the daemons' command lines name their files there)."""
    found = subprocess.run(["pgrep", "-af", str(folder)], capture_output=True, text=True)
    return [line for line in found.stdout.splitlines() if "pgrep" not in line]


def _run_target(where: Path, *options: str, env: dict | None = None) -> str:
    """``snakemake TARGET OPTIONS`` on the smoke configuration, results and figures under ``where``; its output."""
    config = where / "where.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"results_dir: {where / 'results'}\nfigures_dir: {where / 'figures'}\n")
    proc = cpu_limited.run([sys.executable, "-m", "snakemake", TARGET, *options, "--configfile", "config/smoke.yaml",
                            str(config)], cwd=ROOT, env=env or dict(os.environ),
                           cpu_seconds=cpu_limited.SMALL_RUN_CPU_SECONDS)
    text = proc.stdout + proc.stderr
    assert proc.returncode == 0, text[-4000:]
    return text


def _completed_jobs(env: dict, run_id: str) -> dict[str, str]:
    """``{SLURM job id: state}`` of the run's jobs in the cluster's job-completion log."""
    proc = cpu_limited.run(["sacct", "--completion", "--parsable2", "--noheader", "--format", "JobID,JobName,State"],
                           env=env, cpu_seconds=cpu_limited.PLANNING_CPU_SECONDS)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split("|") for line in proc.stdout.splitlines() if line.strip()]
    return {job: state for job, name, state in rows if name == run_id}


def test_a_smoke_figure_through_the_slurm_executor_completes_as_a_local_run(tmp_path):
    try:
        import snakemake_executor_plugin_slurm  # noqa: F401
    except ImportError:
        _unavailable("snakemake-executor-plugin-slurm not installed (the 'cluster' extra, pinned in the lock)")
    cluster = Path(os.environ.get("DOGS_SLURM_CLUSTER_DIR") or tmp_path / "cluster")
    start = _cluster("start", cluster)
    if start.returncode != 0:
        _unavailable(start.stderr.strip().splitlines()[-1] if start.stderr.strip() else "local_cluster.sh failed")
    try:
        again = _cluster("start", cluster)
        assert again.returncode == 4 and "already running" in again.stderr and "stop" in again.stderr, again.stderr
        env = {**os.environ, "SLURM_CONF": str(cluster / "slurm.conf")}
        # status checks every 2 s instead of 10: the two jobs run one after the other
        text = _run_target(tmp_path / "slurm", "--profile", "profiles/slurm", "--seconds-between-status-checks", "2",
                           env=env)
        run_id = re.search(r"SLURM run ID: (\S+)", text)
        submitted = re.findall(r"has been submitted with SLURM jobid (\d+)", text)
        assert run_id and len(submitted) == 2, text[-4000:]
        assert _completed_jobs(env, run_id.group(1)) == {job: "COMPLETED" for job in submitted}
    finally:
        _cluster("stop", cluster)
    assert not _daemons(cluster)

    _run_target(tmp_path / "local", "--cores", "1")
    for name in OUTPUTS:
        slurm, local = tmp_path / "slurm" / name, tmp_path / "local" / name
        assert slurm.stat().st_size > 10_000 and slurm.read_bytes() == local.read_bytes(), name
    slurm, local = (json.loads((tmp_path / run / OUTPUTS[0]).with_suffix(".meta.json").read_text())
                    for run in ("slurm", "local"))
    assert (slurm["seed"], slurm["settings"]) == (local["seed"], local["settings"])


def test_a_failed_start_stops_what_it_started(tmp_path):
    """A ``sinfo`` that never reports the node idle makes the start fail; nothing it started may keep running."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "sinfo").write_text("#!/bin/sh\nexit 0\n")
    (fake / "sinfo").chmod(0o755)
    cluster = tmp_path / "cluster"
    start = _cluster("start", cluster, PATH=f"{fake}:{os.environ['PATH']}", LOCAL_CLUSTER_WAIT_SECONDS="3")
    try:
        assert start.returncode != 0
        assert "did not come up" in start.stderr and "stopped what it had started" in start.stderr, start.stderr
        assert not _daemons(cluster), _daemons(cluster)
        link = Path("/etc/slurm/slurm.conf")
        assert not link.is_symlink() or os.readlink(link) != str(cluster / "slurm.conf")
    finally:
        _cluster("stop", cluster)
