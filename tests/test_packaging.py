"""Packaging: the distribution and its extras, the lock and the conda environment, and the Snakefile's format.

The sdist and the wheel are built from a clean copy of the repository (``python -m build``: the wheel from the
sdist, so the sdist is complete) and checked: their metadata (name, licence, entry point, a lean core with named
extras) and the README's rendering (``twine check --strict``). The wheel alone is installed into a fresh virtual
environment, without extras and without the repository on the path, where a DoGS scan and Gibbs chains run, every
module imports or names the extra it needs, and the ``dogs`` command works.
"""

from __future__ import annotations

import email.parser
import json
import math
import os
import re
import sys
import tarfile
import tomllib
import zipfile
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
import yaml
from repository_copy import ROOT, copy_repository

import cpu_limited

from dogs.extras import DISTRIBUTION, EXTRAS

#: Core (no extra) dependencies: what ``import dogs``, the samplers, bounds and scans need.
CORE = {"numpy", "scipy", "numba", "tqdm"}
#: The extras a user installs by name; ``all`` is every one of them.
NAMED_EXTRAS = ("pgmpy", "arviz", "plot", "workflow")


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
    proc = cpu_limited.run([sys.executable, "-m", "snakefmt", "--check", "Snakefile", "rules"], cwd=ROOT,
                           cpu_seconds=cpu_limited.PLANNING_CPU_SECONDS)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _extra(name: str) -> set[str]:
    """Distribution names an extra installs, its references to other extras of this distribution expanded."""
    out = set()
    for requirement in _project()["optional-dependencies"][name]:
        if _name(requirement) == DISTRIBUTION:
            for other in re.search(r"\[(.*)\]", requirement).group(1).split(","):
                out |= _extra(other.strip())
        else:
            out.add(_name(requirement))
    return out


def test_the_core_is_lean_and_the_extras_are_named():
    assert _project()["name"] == DISTRIBUTION
    assert {_name(r) for r in _project()["dependencies"]} == CORE
    extras = _project()["optional-dependencies"]
    assert set(NAMED_EXTRAS) | {"all"} <= set(extras)
    assert _extra("all") == set().union(*(_extra(name) for name in NAMED_EXTRAS))
    assert {"snakemake", "pandas", "scikit-image", "matplotlib"} <= _extra("workflow")


def test_the_extras_table_of_the_code_matches_pyproject():
    """Every package :func:`dogs.extras.require` checks belongs to the extra it names, and every package of an extra
    is checked (h5netcdf with h5py, needed by --save-chains only, is checked there)."""
    providers = {name: {_name(d) for d in dists} for name, dists in packages_distributions().items()}
    for extra, modules in EXTRAS.items():
        checked = set().union(*(providers[module] for module in modules))
        assert checked <= _extra(extra), (extra, checked - _extra(extra))
        assert _extra(extra) - checked <= {"h5netcdf"}, (extra, _extra(extra) - checked)


def test_every_dependency_is_locked_and_in_the_conda_environment():
    project = _project()
    lock = _lock()
    required = sorted(CORE | _extra("all"))
    extras = project["optional-dependencies"]
    tests = [_name(r) for r in extras["test"] + extras["docs"] + extras["cluster"]]
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
    proc = cpu_limited.run([sys.executable, "-m", "snakemake", "-n", "-p", "--cores", "1", "--configfile", "config.yaml"],
                           cwd=tmp_path, cpu_seconds=cpu_limited.PLANNING_CPU_SECONDS)
    text = proc.stdout + proc.stderr
    assert proc.returncode == 0, text[-3000:]
    assert "echo answer=42" in text, text[-3000:]
    from importlib.metadata import distribution

    ours = {line.split("/")[0] for line in (distribution(DISTRIBUTION).read_text("top_level.txt") or "").split()}
    snakemake_plugins = {name for name in ours if name.startswith("snakemake")}
    assert not snakemake_plugins, f"the dogs distribution installs Snakemake plugin packages: {snakemake_plugins}"


@pytest.fixture(scope="module")
def dists(tmp_path_factory) -> dict[str, Path]:
    """The sdist and the wheel, built from a clean copy of the repository."""
    copy = copy_repository(tmp_path_factory.mktemp("build") / "repository")
    out = copy.parent / "dist"
    proc = cpu_limited.run([sys.executable, "-m", "build", "--outdir", str(out), str(copy)],
                           cpu_seconds=cpu_limited.SMALL_RUN_CPU_SECONDS)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (sdist,), (wheel,) = list(out.glob("*.tar.gz")), list(out.glob("*.whl"))
    return {"sdist": sdist, "wheel": wheel}


def _wheel_text(wheel: Path, name: str) -> str:
    with zipfile.ZipFile(wheel) as archive:
        (member,) = [m for m in archive.namelist() if m.endswith(f".dist-info/{name}")]
        return archive.read(member).decode()


def test_the_sdist_and_the_wheel_carry_the_metadata(dists):
    proc = cpu_limited.run([sys.executable, "-m", "twine", "check", "--strict", str(dists["sdist"]),
                           str(dists["wheel"])], cpu_seconds=cpu_limited.PLANNING_CPU_SECONDS)
    assert proc.returncode == 0, proc.stdout + proc.stderr  # the README renders as the long description
    assert dists["wheel"].name.startswith(DISTRIBUTION.replace("-", "_") + "-")
    meta = email.parser.Parser().parsestr(_wheel_text(dists["wheel"], "METADATA"))
    assert meta["Name"] == DISTRIBUTION and meta["Version"] == _project()["version"]
    assert meta["License-Expression"] == "BSD-3-Clause" and meta.get_all("License-File") == ["LICENSE"]
    assert meta["Description-Content-Type"] == "text/markdown" and "DoGS" in meta.get_payload()
    requires = meta.get_all("Requires-Dist")
    assert {_name(r) for r in requires if "extra ==" not in r} == CORE
    assert set(NAMED_EXTRAS) | {"all"} <= set(meta.get_all("Provides-Extra"))
    assert "[console_scripts]\ndogs = dogs.cli:main" in _wheel_text(dists["wheel"], "entry_points.txt")
    stem = f"{DISTRIBUTION.replace('-', '_')}-{meta['Version']}"
    with zipfile.ZipFile(dists["wheel"]) as archive:
        assert {name.split("/")[0] for name in archive.namelist()} == {"dogs", f"{stem}.dist-info"}
        assert "dogs/py.typed" in archive.namelist()
    with tarfile.open(dists["sdist"]) as archive:
        sdist = email.parser.Parser().parsestr(archive.extractfile(f"{stem}/PKG-INFO").read().decode())
        assert {f"{stem}/{name}" for name in ("LICENSE", "README.md", "pyproject.toml")} <= set(archive.getnames())
    assert (sdist["Name"], sdist["Version"], sdist["License-Expression"]) == (DISTRIBUTION, meta["Version"],
                                                                              "BSD-3-Clause")


# Runs in the fresh environment (python -I: no repository, no user site): every module imports or names its extra;
# a DoGS scan and Gibbs chains from the library, checked against the exact marginal; the extras' errors.
FRESH_CHECK = r"""
import importlib, importlib.util, json, pathlib, sys
import numpy as np
import dogs
from dogs.extras import MissingExtraError

report = {"dogs": dogs.__file__, "present": [m for m in ("snakemake", "pandas", "skimage", "matplotlib", "pgmpy",
                                                          "arviz", "yaml") if importlib.util.find_spec(m)]}
root = pathlib.Path(dogs.__file__).parent
names = sorted(".".join(("dogs",) + p.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
               for p in root.rglob("*.py") if p.stem != "__main__")
report["imports"], report["extras"], report["other_errors"] = 0, {}, {}
for name in names:
    try:
        importlib.import_module(name)
        report["imports"] += 1
    except MissingExtraError as error:
        report["extras"][name] = str(error)
    except Exception as error:
        report["other_errors"][name] = f"{type(error).__name__}: {error}"

from dogs.bounds import influence_binary_pairwise
from dogs.exact import brute_force
from dogs.models import grid_model, to_pgmpy
from dogs.models.uai import write_uai
from dogs.samplers import run_gibbs
from dogs.scans import dobrushin_variation, dogs_scan, systematic_scan

model = grid_model(3, 3, coupling=0.2, field=0.3)
bound = influence_binary_pairwise(model)
weights = np.zeros(9)
weights[0] = 1.0
base = systematic_scan(9, 27)
result = dogs_scan(base, weights, bound)
chains = run_gibbs(model, result.scan, n_chains=4000, seed=1, initial_state=1)
report["variation"] = [float(dobrushin_variation(base, weights, bound)), float(result.variation)]
report["states"] = [type(chains.states).__name__, list(chains.states.shape), sorted(np.unique(chains.states).tolist())]
report["estimate"] = float(np.mean(chains.states[:, 0] == 1))
report["exact"] = float(brute_force(model).node_marginals[0][1])
errors = {}
for extra, call in (("arviz", lambda: dogs.sample(model)), ("pgmpy", lambda: to_pgmpy(model))):
    try:
        call()
    except MissingExtraError as error:
        errors[extra] = str(error)
report["errors"] = errors
write_uai(model, "model.uai")
print(json.dumps(report))
"""


def test_the_wheel_alone_in_a_fresh_venv_runs_dogs_and_sampling(dists, tmp_path):
    venv = tmp_path / "venv"
    assert cpu_limited.run([sys.executable, "-m", "venv", str(venv)],
                           cpu_seconds=cpu_limited.PLANNING_CPU_SECONDS).returncode == 0
    python, command = venv / "bin" / "python", venv / "bin" / "dogs"
    # the lock's versions, which the main environment's install has already fetched
    proc = cpu_limited.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-c",
                            str(ROOT / "envs" / "requirements.lock"), str(dists["wheel"])],
                           cpu_seconds=cpu_limited.SMALL_RUN_CPU_SECONDS)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NUMBA_CACHE_DIR")}
    run = cpu_limited.run([str(python), "-I", "-c", FRESH_CHECK], cwd=tmp_path, env=env,
                          cpu_seconds=cpu_limited.SMALL_RUN_CPU_SECONDS)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])

    assert Path(report["dogs"]).is_relative_to(venv) and report["present"] == []
    assert report["other_errors"] == {}, report["other_errors"]
    core = {"dogs.sampling_call", "dogs.samplers", "dogs.scans", "dogs.bounds", "dogs.cli"}
    assert report["imports"] > 60 and core.isdisjoint(report["extras"])
    one_line = re.compile(rf".* needs the '(\w+)' extra \(.*\): pip install '{DISTRIBUTION}\[\w+\]'")
    for name, message in report["extras"].items():  # one line naming the extra, for every module that needs one
        assert one_line.fullmatch(message), (name, message)
    assert "'plot' extra" in report["extras"]["dogs.plotting"]
    assert "'workflow' extra" in report["extras"]["dogs.experiments"]
    assert "'arviz' extra" in report["errors"]["arviz"] and "'pgmpy' extra" in report["errors"]["pgmpy"]
    # DoGS never worsens the base scan's variation, which bounds the bias of the target's marginal after one pass:
    # |P(X_0 = +1) after the scan - exact| <= variation; the estimate from 4000 chains adds at most 4.9 standard
    # errors (false-failure rate 1e-6)
    base_variation, dogs_variation = report["variation"]
    assert dogs_variation <= base_variation < 1
    assert report["states"] == ["ndarray", [4000, 9], [-1, 1]]
    se = math.sqrt(report["exact"] * (1 - report["exact"]) / 4000)
    assert abs(report["estimate"] - report["exact"]) <= dogs_variation + 4.9 * se, report

    def run_dogs(*args):
        return cpu_limited.run([str(command), *args], cwd=tmp_path, env=env,
                               cpu_seconds=cpu_limited.SMALL_RUN_CPU_SECONDS)

    assert run_dogs("--version").stdout.strip() == f"dogs {_project()['version']}"
    scan = run_dogs("scan", "model.uai", "--target", "0", "--budget", "27")
    assert scan.returncode == 0, scan.stderr
    assert json.loads(scan.stdout)["dogs_variation"] == pytest.approx(dogs_variation)
    for args, extra in ((["sample", "model.uai", "--scan", "systematic", "--length", "9"], "arviz"),
                        (["exact", "model.uai"], "pgmpy"),
                        (["scan", "model.uai", "--target", "0", "--budget", "27", "--plot", "map.png"], "plot")):
        refused = run_dogs(*args)
        assert refused.returncode == 2 and refused.stdout == "", refused
        assert len(refused.stderr.strip().splitlines()) == 1 and f"'{extra}' extra" in refused.stderr, refused.stderr
