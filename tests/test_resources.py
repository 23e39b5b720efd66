"""The resource guard: a config that asks for more memory than the machine has is refused before any
allocation, naming the key, in every experiment family (and by the workflow before planning)."""

from __future__ import annotations

import copy
import importlib
import sys

import pytest
import yaml

from dogs.experiments import FAMILIES, family
from dogs.workflow.cost import ResourceError, check_config_memory, check_memory
from cpu_limited import PLANNING_CPU_SECONDS, run
from experiment_cli import ROOT, merged_configs

FULL, SMOKE = merged_configs()

#: (family, a step of its command line, the key to blow up, its value within the schema's bounds): each asks for
#: hundreds of GiB at least.
TOO_MUCH = [
    ("ising10", "compute-guarantees", ("lengths",), {"start": 12, "stop": 1_000_000_000, "step": 12}),
    ("ising10", "compute-guarantees", ("side",), 100_000),
    ("ising40", "compute-bias", ("bias", "n_chains"), 10**9),
    ("loose_bounds", "compute-guarantees", ("lengths",), {"start": 1, "stop": 10**9, "step": 1}),
    ("timing", "compute", ("main_side",), 10**6),
    ("scan_order", "compute-mixing", ("max_states",), 10**9),
    ("mcmc_mle", "compute-optimum", ("chains",), 10**9),
    ("annular_ising", "compute", ("hmc_samples",), 10**9),
    ("boltzmann", "compute-data", ("datasets", "heart", "chains"), 10**9),
    ("msrc", "compute-features", ("chains",), 10**9),
]


def _with(settings: dict, path: tuple, value) -> dict:
    out = copy.deepcopy(settings)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


def test_paper_and_smoke_configs_pass_the_guard():
    check_config_memory(FULL, FAMILIES)
    check_config_memory(SMOKE, FAMILIES)


@pytest.mark.parametrize("family, step, path, value", TOO_MUCH, ids=[f"{f}-{'.'.join(p)}" for f, _, p, _ in TOO_MUCH])
def test_every_family_refuses_a_config_that_asks_for_too_much(family, step, path, value, capsys, tmp_path):
    """Refused before the step computes anything: exit 2 naming the key, and nothing written (no time is
    asserted: CI is a loaded machine)."""
    settings = _with(FULL[family], path, value)
    module = importlib.import_module(f"dogs.experiments.{family}")
    with pytest.raises(SystemExit) as exc:
        module.EXPERIMENT.main([step, "--settings", __import__("json").dumps(settings), "--seed", "1",
                                "--output", f"x={tmp_path / 'never_written'}"])
    err = capsys.readouterr().err
    assert exc.value.code == 2
    assert f"{family}.{path[0]}" in err and "GiB" in err, err
    assert not list(tmp_path.iterdir()), "the refused step wrote output"


def test_the_benchmark_section_is_guarded_too():
    with pytest.raises(ResourceError, match="benchmarks.gibbs_side"):
        check_memory(family("benchmarks"), _with(FULL["benchmarks"], ("gibbs_side",), 10**6), 2**34)


def test_the_limit_can_be_raised_deliberately():
    settings = _with(FULL["ising10"], ("measure", "n_chains"), 10**7)
    need = sum(family("ising10").estimate_memory(settings).values())
    with pytest.raises(ResourceError, match="resources.max_memory_gb"):
        check_memory(family("ising10"), settings, int(need / 2))
    assert check_memory(family("ising10"), settings, int(need * 2)) == need
    config = _with(_with(FULL, ("ising10",), settings), ("resources",), {"max_memory_gb": need * 2 / 1024**3})
    check_config_memory(config, FAMILIES)


def test_the_workflow_refuses_before_planning(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({"results_dir": str(tmp_path / "r"), "figures_dir": str(tmp_path / "f"),
                                   "ising40": {"bias": {"n_chains": 10**9}}}))
    proc = run([sys.executable, "-m", "snakemake", "-n", "fig5", "--configfile", "config/smoke.yaml", str(bad)],
               cwd=ROOT, cpu_seconds=PLANNING_CPU_SECONDS)
    assert proc.returncode != 0
    assert "ising40.bias.n_chains" in proc.stdout + proc.stderr
    assert not (tmp_path / "r").exists()
