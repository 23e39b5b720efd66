"""A new experiment family is added the way "How to add an experiment" (docs/contributing.md) says, and nothing else is edited.

The toy family ``toy`` has one object, ``EXPERIMENT = Experiment("toy", __doc__, check=..., memory=..., work=...)``,
one family file, ``config/families/toy.yaml``: its settings, smoke overrides, the rate of its compute rule and its
schema, whose keys that cost nothing say why (``x-not-scaling``), a plotting module, a rules file and its own claims
file, each following the conventions the tests of the shipped families enforce (checked here on the toy's files). ``FAMILIES`` finds the module, the Snakefile
includes its rules file and reads its family file, with no list to edit and no shared file to change; the guard then
runs its cross-key check and its memory model, the time table lists its work, the key table lists its keys, and
Snakemake plans (and runs) its rules; the paper-vs-ours table depends on its claims and words its row from the row's
template in ``config/claims/toy.yaml``. Nothing under ``dogs.workflow`` names a family.
"""

from __future__ import annotations

import copy
import os
import re
import shutil
import sys
import textwrap

import pytest
import yaml

from dogs.claims import load_measured, load_paper_claims
from dogs.config import ConfigError
from dogs.experiments import FAMILIES
from dogs.experiments.paper_vs_ours import build_table
from dogs.workflow.cost import ResourceError, check_config_time, time_table
from dogs.workflow.families import family_files, full_schema, job_rates, merged_config
from dogs.workflow.guard import check_workflow_config
from dogs.workflow.keys import keys_read, not_scaling, scaling_table
from dogs.workflow.shell import Experiment, SettingsError
from cpu_limited import SMALL_RUN_CPU_SECONDS, run
from experiment_cli import ROOT, merged_configs

FULL, SMOKE = merged_configs()

#: The toy family's module, written as a new family's module is (docs/contributing.md, "How to add an experiment").
TOY_MODULE = '''
"""A toy family: writes the sum of ``count`` numbers (the test of "How to add an experiment" (docs/contributing.md))."""

from dogs.io import write_json
from dogs.workflow.cost import Work
from dogs.workflow.shell import Experiment, SettingsError

FAMILY = "toy"


def check_settings(settings: dict) -> None:
    if settings["low"] > settings["high"]:
        raise SettingsError(f"config key toy.low: above toy.high ({settings['low']} > {settings['high']})")


def memory_needed(s: dict) -> dict[str, float]:
    return {"toy.count": s["count"] * 8.0}


def work_needed(s: dict) -> list[Work]:
    return [Work("toy_compute", {"toy.count": s["count"]})]


EXPERIMENT = Experiment(FAMILY, __doc__, check=check_settings, memory=memory_needed, work=work_needed)


@EXPERIMENT.step("compute")
def compute(ctx):
    s = ctx.settings
    write_json(ctx.output("values"), {"sum": sum(range(s["low"], s["low"] + s["count"]))})


@EXPERIMENT.step("summarise")
def summarise(ctx):
    from dogs.claims import measured
    from dogs.io import read_json

    total = read_json(ctx.input("values"))["sum"]
    ctx.write_claims({"toy_sum": measured(total, total=total, count=ctx.settings["count"])})


@EXPERIMENT.step("plot-sum")
def plot_sum(ctx):
    from dogs.io import read_json
    from dogs.plotting import toy as plots

    plots.save(plots.figure_sum(read_json(ctx.input("claims"))["claims"]["toy_sum"]["value"]), ctx.output("figure"))


if __name__ == "__main__":
    EXPERIMENT.run()
'''

#: The toy family's plotting module, ``src/dogs/plotting/toy.py``: results in, figure out.
TOY_PLOTTING = '''
"""Figure of the toy family (the test of "How to add an experiment" (docs/contributing.md))."""

from dogs.plotting import style


def figure_sum(total):
    fig, ax = style.subplots(1, 1)
    ax.bar(["sum"], [total])
    fig.suptitle("Toy Fig. 1: the sum of the toy numbers")
    return fig


def save(fig, path):
    style.save_figure(fig, path)
'''

TOY_SCHEMA = {"type": "object", "additionalProperties": False, "required": ["count", "low", "high"],
              "properties": {"count": {"type": "integer", "minimum": 1, "maximum": 10**15},
                             "low": {"type": "integer", "minimum": 0, "maximum": 10**6, "x-not-scaling": "a level"},
                             "high": {"type": "integer", "minimum": 0, "maximum": 10**6, "x-not-scaling": "a level"}}}
TOY_SETTINGS = {"count": 10, "low": 1, "high": 5}
#: The toy family's file, ``config/families/toy.yaml``: all of its configuration (docs/contributing.md, step 1).
TOY_FILE = {"settings": TOY_SETTINGS, "smoke": {"count": 3}, "rates": {"toy_compute": 1e-6}, "schema": TOY_SCHEMA}

TOY_RULES = '''
use rule experiment_step as toy_compute with:
    output:
        values=result("toy/values.json"),
    log:
        result("logs/toy/compute.log"),
    benchmark:
        result("benchmarks/snakemake/toy_compute.tsv")
    resources:
        mem_mb=memory_mb("toy"),
    params:
        **step("toy", "compute"),


use rule experiment_step as toy_summarise with:
    input:
        values=result("toy/values.json"),
    output:
        claims=result("claims/toy.json"),
    log:
        result("logs/toy/summarise.log"),
    params:
        **step("toy", "summarise"),


use rule experiment_step as toy_plot_sum with:
    input:
        claims=result("claims/toy.json"),
    output:
        figure=report(
            figure("toy/fig1_sum.png"),
            caption=caption("Toy Fig. 1: the sum of the toy numbers (a test)."),
            category="5. Beyond the papers",
            subcategory="toy",
            labels={"paper": "none (ours)", "figure": "Toy Fig. 1", "panels": "the sum"},
        ),
    log:
        result("logs/toy/plot_sum.log"),
    params:
        **step("toy", "plot-sum"),


CLAIM_FILES.append(result("claims/toy.json"))


rule toy:
    """Toy Fig. 1: the sum of the toy numbers (a test); figures/toy/."""
    input:
        figure("toy/fig1_sum.png"),


target("toy")
'''

#: The toy family's claims row (``config/claims/toy.yaml``): the paper's side, the criterion and the ``ours`` template.
TOY_CLAIMS = [{"id": "toy_sum", "paper": "Beyond the papers", "where": "the toy test", "claim": "the numbers sum to 6",
               "paper_value": "6", "family": "toy", "reading": "the sum of the first count numbers from low",
               "quantity": "sum", "criterion": {"reproduced": [{"equals": 6}]},
               "ours": "sum {total} of {count} numbers"}]


def _toy_module(tmp_path):
    """The toy module, imported from a file as a family module is (``EXPERIMENT`` at its top level)."""
    import importlib.util

    path = tmp_path / "toy.py"
    path.write_text(TOY_MODULE)
    spec = importlib.util.spec_from_file_location("toy_family_module", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _config_with_toy(tmp_path, toy_file=TOY_FILE):
    """A copy of ``config/`` with the toy's family file added (the folder a run reads its config from)."""
    root = tmp_path / "root"
    shutil.copytree(ROOT / "config", root / "config")
    (root / "config" / "families" / "toy.yaml").write_text(yaml.safe_dump(toy_file, sort_keys=False))
    return root


@pytest.fixture
def toy(tmp_path):
    """``(families with the toy registered, the folder holding config/ with its family file, smoke config with its
    section)``."""
    experiment = _toy_module(tmp_path).EXPERIMENT
    assert isinstance(experiment, Experiment)
    root = _config_with_toy(tmp_path)
    config = {**copy.deepcopy(SMOKE), "toy": {**TOY_SETTINGS, "count": 3}}
    return (*FAMILIES, experiment), root, config


def _check(config, families, root, tmp_path):
    mine = tmp_path / "toy_config.yaml"
    mine.write_text(yaml.safe_dump({"toy": config["toy"]}))
    files = [root / "config" / "config.yaml", root / "config" / "smoke.yaml", mine]
    return check_workflow_config(config, files, families, root), mine


def test_the_guard_checks_the_toy_family_and_the_time_table_lists_it(toy, tmp_path):
    families, root, config = toy
    hours, _ = _check(config, families, root, tmp_path)
    assert "toy" in hours and hours["toy"] > 0
    assert "toy" in time_table(hours)
    # its cross-key check, its schema and its memory model, each refusal naming the key and the file that set it
    for change, message in (({"low": 9}, "config key toy.low \\(set in .*toy_config.yaml\\): above toy.high"),
                            ({"count": "ten"}, "config key toy.count \\(set in .*toy_config.yaml\\)"),
                            ({"count": 10**14}, "config key toy.count \\(set in .*toy_config.yaml\\): .* GiB")):
        bad = {**config, "toy": {**config["toy"], **change}}
        with pytest.raises(ConfigError, match=message):
            _check(bad, families, root, tmp_path)
    # a bad value of its family file is named with that file
    bad_root = _config_with_toy(tmp_path / "bad", {**TOY_FILE, "smoke": {"count": 3, "low": 9}})
    files = [bad_root / "config" / "config.yaml", bad_root / "config" / "smoke.yaml"]
    with pytest.raises(ConfigError, match="config key toy.low \\(set in .*families/toy.yaml\\): above toy.high"):
        check_workflow_config(merged_config(files, bad_root), files, families, bad_root)
    # with the rate of its family file, its work model's count is what the time limit sees; without one its rule would
    # count its start-up only (a test of the shipped families fails for that, docs/contributing.md)
    huge = {**config, "toy": {**TOY_SETTINGS, "count": 10**15}}
    with pytest.raises(ResourceError, match="config key toy.count: .* \\(toy: .* most of it in toy_compute\\)"):
        check_config_time(huge, families, rates=job_rates(family_files(root)))
    assert check_config_time(huge, families, rates={})["toy"] == check_config_time(config, families, rates={})["toy"]


def test_the_toy_family_is_unknown_without_its_module_and_refused_without_its_file(toy, tmp_path):
    families, root, config = toy
    hours = check_config_time(config, FAMILIES, rates={})
    assert "toy" not in hours  # the section alone is not a family: the guard reads FAMILIES only
    assert "toy" in check_config_time(config, families, rates={})
    (root / "config" / "families" / "toy.yaml").unlink()
    with pytest.raises(ConfigError, match="the experiment family toy has no family file config/families/toy.yaml"):
        check_workflow_config(config, [root / "config" / "config.yaml"], families, root)


def test_the_key_table_lists_the_toy_keys(toy):
    families, root, config = toy
    experiment = families[-1]
    memory, work = keys_read(experiment, config["toy"])
    assert memory == work == {"toy.count"}
    schema = full_schema(root)
    assert not_scaling(schema)["toy.low"] == not_scaling(schema)["toy.high"] == "a level"
    table = scaling_table(schema, [config], families)
    assert "| toy | `count` | `count` | `high`, `low` |" in table


def test_the_toy_step_refuses_bad_settings_on_its_command_line(toy, capsys):
    families, root, config = toy
    schema_path = root / "config" / "families"
    for settings, message in (('{"count": 3, "low": 9, "high": 5}', "toy.low: above toy.high"),
                              ('{"count": 100000000000000, "low": 1, "high": 5}', "config key toy.count: .* GiB")):
        with pytest.raises(SystemExit) as exc:
            families[-1].main(["compute", "--settings", settings, "--schema", str(schema_path), "--output",
                               "values=never_written.json"])
        assert exc.value.code == 2
        assert re.search(message, capsys.readouterr().err)
    with pytest.raises(SettingsError):
        families[-1].check({"count": 3, "low": 9, "high": 5})


def _documented_copy(tmp_path):
    """A copy of the workflow and the package with the toy family added by the steps of docs/contributing.md, and only them."""
    work = tmp_path / "repo"
    work.mkdir()
    for name in ("Snakefile", "rules", "config", "envs"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, work / name)
    shutil.copytree(ROOT / "src" / "dogs", work / "src" / "dogs", ignore=shutil.ignore_patterns("__pycache__"))
    # 1. its family file: settings, smoke overrides, the rate of its compute rule and its schema (no shared file)
    (work / "config" / "families" / "toy.yaml").write_text(yaml.safe_dump(TOY_FILE, sort_keys=False))
    # 2. the module: FAMILIES finds it (no list of families to edit)
    (work / "src" / "dogs" / "experiments" / "toy.py").write_text(TOY_MODULE)
    # 3. the rules file: the Snakefile includes every rules/*.smk (no include line to add)
    (work / "rules" / "toy.smk").write_text(textwrap.dedent(TOY_RULES))
    # 4. its plotting module
    (work / "src" / "dogs" / "plotting" / "toy.py").write_text(TOY_PLOTTING)
    # 5. its claims rows, in its own claims file (a family of our own): the table reads every config/claims/*.yaml
    (work / "config" / "claims" / "toy.yaml").write_text(yaml.safe_dump(TOY_CLAIMS, sort_keys=False, width=110))
    # (6. its tests: this file)
    return work


def test_the_toy_files_follow_the_conventions_the_tests_enforce(tmp_path):
    """The toy's rules file passes the naming rules of tests/test_names.py (rule names, result, log and benchmark
    paths, report category and labels) and its claims file the rules of tests/test_claims.py (a family's own file:
    every row beyond the papers and of that family, lines of at most 120 characters)."""
    from dogs.claims import BEYOND_THE_PAPERS
    from test_names import check_rules_file

    work = _documented_copy(tmp_path)
    check_rules_file("toy", (work / "rules" / "toy.smk").read_text())
    claims = work / "config" / "claims" / "toy.yaml"
    assert all(len(line) <= 120 for line in claims.read_text().splitlines())
    assert {(row["paper"], row["family"]) for row in load_paper_claims(claims)} == {(BEYOND_THE_PAPERS, "toy")}


def _snakemake(work, *args, configs=("config/smoke.yaml",)):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(work / "src"), os.environ.get("PYTHONPATH", "")])}
    return run([sys.executable, "-m", "snakemake", *args, "--configfile", *configs], cwd=work, env=env,
               cpu_seconds=SMALL_RUN_CPU_SECONDS)


def test_snakemake_plans_and_runs_the_toy_family_added_the_documented_way(tmp_path):
    work = _documented_copy(tmp_path)
    planned = _snakemake(work, "-n", "toy")
    assert planned.returncode == 0, (planned.stdout + planned.stderr)[-3000:]
    # its declared target is in the figure index, generated from the rules files (no README to edit)
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    import dogs_docs

    assert "| `toy` | Toy Fig. 1: the sum" in dogs_docs.figure_index(work)
    table = planned.stderr[planned.stderr.index("Estimated job time"):]
    assert "\n  toy " in table, table[:2000]
    assert "toy_compute" in planned.stdout + planned.stderr
    ran = _snakemake(work, "--cores", "1", "toy")
    assert ran.returncode == 0, (ran.stdout + ran.stderr)[-3000:]
    values = list((work / "results").rglob("toy/values.json"))
    assert len(values) == 1 and yaml.safe_load(values[0].read_text())["sum"] == 1 + 2 + 3
    assert len(list((work / "figures").rglob("toy/fig1_sum.png"))) == 1
    # the paper-vs-ours table depends on its claims and words its row from its template
    table_plan = _snakemake(work, "-n", "--forceall", "results/smoke/paper_vs_ours/paper_vs_ours.md")
    assert table_plan.returncode == 0, (table_plan.stdout + table_plan.stderr)[-3000:]
    assert "toy_summarise" in table_plan.stdout + table_plan.stderr
    claims = list((work / "results").rglob("claims/toy.json"))
    assert len(claims) == 1
    rows = build_table(load_paper_claims(work / "config" / "claims"), load_measured(claims), smoke=False)
    toy_row = rows.set_index("id").loc["toy_sum"]
    assert toy_row["ours"] == "sum 6 of 3 numbers" and toy_row["verdict"] == "reproduced"
    # the guard runs the registered family's check before any job
    (work / "bad.yaml").write_text(yaml.safe_dump({"toy": {**TOY_SETTINGS, "low": 9}}))
    refused = _snakemake(work, "-n", "toy", configs=("config/smoke.yaml", "bad.yaml"))
    assert refused.returncode != 0
    assert re.search(r"config key toy.low \(set in \S*bad.yaml\): above toy.high", refused.stdout + refused.stderr)
