"""Commands run by the tests, limited in CPU time instead of wall-clock time.

CI is a 2-core machine shared with other work: a command that needs a minute of CPU may take ten minutes of wall
clock there and is still fine, so no test passes ``timeout=`` to :mod:`subprocess` and no test asserts a time
(speed lives in the benchmarks). What a test must still stop is a runaway command. :func:`run` gives the command a
CPU-time limit (``RLIMIT_CPU``, per process; every process it starts inherits it, so every Snakemake job has its
own): load does not use it up, only the command's own work does. A process over its limit is stopped by the
kernel (``SIGXCPU``): Snakemake reports the job as failed, and the test fails with the command's output.
A command that hangs without computing is left to CI's own time limit.
"""

from __future__ import annotations

import resource
import signal
import subprocess

#: CPU seconds of a command that plans or refuses (``snakemake -n``, ``--list-target-rules``, a refused config):
#: 3-6 s measured (Snakemake's start-up and the DAG), so 120 s only stops a runaway.
PLANNING_CPU_SECONDS = 120
#: CPU seconds of one process of a small run (a fresh clone's one smoke target, one figure through SLURM, the
#: documentation site with its notebook kernels): each process used under 70 s measured (numba's compilation
#: included, with an empty kernel cache), so 900 s only stops a runaway.
SMALL_RUN_CPU_SECONDS = 900


def run(cmd, *, cpu_seconds: float, cwd=None, env=None, input=None) -> subprocess.CompletedProcess:
    """Run ``cmd`` to its end, output captured as text, each of its processes limited to ``cpu_seconds`` of CPU."""
    limit = int(cpu_seconds)
    with subprocess.Popen(cmd, cwd=cwd, env=env, text=True, stdin=subprocess.PIPE if input is not None else None,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        # after exec, before the interpreter has started anything: its children inherit the limit
        resource.prlimit(proc.pid, resource.RLIMIT_CPU, (limit, limit + 10))
        stdout, stderr = proc.communicate(input)
    if proc.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        stderr += f"\n[tests/cpu_limited.py: stopped after its CPU limit of {limit} s, or killed]"
    return subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr)
