"""The SLURM profile runs a smoke figure target on a one-node SLURM cluster started on this machine.

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


def test_a_smoke_figure_through_the_slurm_executor(tmp_path):
    pytest.importorskip("snakemake_executor_plugin_slurm")
    cluster = tmp_path / "cluster"
    start = subprocess.run(["bash", str(CLUSTER), "start", str(cluster)], capture_output=True, text=True, timeout=120)
    if start.returncode != 0:
        pytest.skip(f"SLURM cannot be started here: {start.stderr.strip()[-500:]}")
    try:
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
        subprocess.run(["bash", str(CLUSTER), "stop", str(cluster)], capture_output=True, timeout=60)
