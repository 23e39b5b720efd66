"""The SLURM profile runs a smoke figure target on a one-node SLURM cluster started on this machine, and the
cluster script starts beside another cluster, refuses to start twice and cleans up after a failed start.

Skipped, with the reason, where such a cluster cannot be started (no slurm-wlm/munge, not root).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CLUSTER = ROOT / "profiles" / "slurm" / "local_cluster.sh"

missing = [tool for tool in ("slurmctld", "slurmd", "munged", "sbatch") if shutil.which(tool) is None]
pytestmark = [
    pytest.mark.workflow,
    pytest.mark.skipif(bool(missing), reason=f"SLURM cannot be started here: {', '.join(missing)} not installed "
                                              "(Debian packages slurm-wlm and munge)"),
    pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() != 0,
                       reason="SLURM cannot be started here: the one-node cluster script needs root"),
]


def _cluster(action: str, folder: Path, **env) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(CLUSTER), action, str(folder)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env})


def _daemons(folder: Path) -> list[str]:
    """Processes started from ``folder`` that still run (the daemons' command lines name their files there)."""
    found = subprocess.run(["pgrep", "-af", str(folder)], capture_output=True, text=True)
    return [line for line in found.stdout.splitlines() if "pgrep" not in line]


def test_a_smoke_figure_through_the_slurm_executor(tmp_path):
    pytest.importorskip("snakemake_executor_plugin_slurm")
    cluster = tmp_path / "cluster"
    start = _cluster("start", cluster)
    if start.returncode != 0:
        pytest.skip(f"SLURM cannot be started here: {start.stderr.strip()[-500:]}")
    try:
        again = _cluster("start", cluster)
        assert again.returncode == 4 and "already running" in again.stderr and "stop" in again.stderr, again.stderr
        where = tmp_path / "where.yaml"
        where.write_text(f"results_dir: {tmp_path / 'results'}\nfigures_dir: {tmp_path / 'figures'}\n")
        env = {**os.environ, "SLURM_CONF": str(cluster / "slurm.conf")}
        proc = subprocess.run([sys.executable, "-m", "snakemake", "fig_he2b", "--profile", "profiles/slurm",
                               "--configfile", "config/smoke.yaml", str(where)],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        assert "SLURM" in proc.stdout + proc.stderr or "slurm" in proc.stdout + proc.stderr
        assert (tmp_path / "figures" / "scan_order" / "fig2b_two_islands_mass.png").stat().st_size > 10_000
    finally:
        _cluster("stop", cluster)
    assert not _daemons(cluster)


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
