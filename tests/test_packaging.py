"""Packaging: the Snakefile and rules are snakefmt-clean, and the conda environment pins what the lock pins."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _lock() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "envs" / "requirements.lock").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"envs/requirements.lock: {line!r} is not an exact pin"
            pins[_name(name)] = version
    return pins


def test_snakefmt_is_clean():
    pytest.importorskip("snakefmt")
    proc = subprocess.run([sys.executable, "-m", "snakefmt", "--check", "Snakefile", "rules"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]


def test_every_dependency_is_locked_and_in_the_conda_environment():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lock = _lock()
    required = [_name(r) for r in project["dependencies"]]
    extras = project["optional-dependencies"]
    tests = [_name(r) for r in extras["test"] + extras["docs"]]
    missing = [name for name in required + tests if name not in lock]
    assert not missing, f"not pinned in envs/requirements.lock: {missing}"

    environment = yaml.safe_load((ROOT / "envs" / "environment.yaml").read_text())
    conda, pip = {}, {}
    for item in environment["dependencies"]:
        if isinstance(item, dict):
            for line in item["pip"]:
                if "==" in line:
                    name, _, version = line.partition("==")
                    pip[_name(name)] = version
        elif "=" in item:
            name, _, version = item.partition("=")
            conda[_name(name)] = version
    pinned = {**conda, **pip}
    for name in required:
        assert name in pinned, f"envs/environment.yaml does not list {name}"
        assert pinned[name] == lock[name], f"{name}: environment.yaml pins {pinned[name]}, the lock {lock[name]}"


def test_no_installed_package_of_ours_changes_snakemake_for_other_workflows(tmp_path):
    """An unrelated two-line workflow whose config is yte-templated (``__use_yte__``, ``?`` expressions), which our
    own guard would refuse for this workflow, plans in this environment, with the templated value."""
    (tmp_path / "Snakefile").write_text('rule all:\n    shell: "echo answer=" + str(config["answer"])\n')
    (tmp_path / "config.yaml").write_text("__use_yte__: true\nanswer: ?6 * 7\n")
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-n", "-p", "--cores", "1", "--configfile", "config.yaml"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    text = proc.stdout + proc.stderr
    assert proc.returncode == 0, text[-3000:]
    assert "echo answer=42" in text, text[-3000:]
    from importlib.metadata import distribution

    ours = {line.split("/")[0] for line in (distribution("dogs").read_text("top_level.txt") or "").split()}
    snakemake_plugins = {name for name in ours if name.startswith("snakemake")}
    assert not snakemake_plugins, f"the dogs distribution installs Snakemake plugin packages: {snakemake_plugins}"
