"""The workflow's guard (src/dogs/workflow/guard.py, cost.py, keys.py, dogs.config): every bad config of issue 30
is refused before Snakemake plans a single job, naming the key and the config file, and no numeric config key
escapes both the memory and the time estimate.

"Before planning" is what the run shows, not how fast it was (CI is a loaded machine; no test asserts a time): no
DAG was built, no job started, and nothing was written where the results and figures would go."""

from __future__ import annotations

import copy
import re
import sys

import pytest
import yaml

from dogs.config import ConfigError
from dogs.experiments import FAMILIES
from dogs.workflow.cost import DEFAULT_MAX_HOURS, ResourceError, check_config_time, configured
from dogs.workflow.families import family_files, full_schema, job_rates
from dogs.workflow.guard import check_workflow_config
from dogs.workflow.keys import keys_read, not_scaling, numeric_schema_keys, schema_pattern
from cpu_limited import PLANNING_CPU_SECONDS, run
from experiment_cli import ROOT, merged_configs
from test_config import HOSTILE

FULL, SMOKE = merged_configs()
SCHEMA = full_schema(ROOT)
RATES = job_rates(family_files(ROOT))


def _merge(base: dict, extra: dict) -> dict:
    out = copy.deepcopy(base)
    for key, value in extra.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


#: The bad configs of issue 30 (on top of config/smoke.yaml) and the key each refusal must name.
ISSUE_CONFIGS = {
    "fig2b horizon of 10^12 updates (a 7.28 TiB allocation)": ({"scan_order": {"fig2b": {"updates": 10**12}}},
                                                                "scan_order.fig2b.updates"),
    "M_factor 1e29 written as an integer": ({"scan_order": {"M_factor": 10**29}}, "scan_order.M_factor"),
    "10^10 epsilon points": ({"timing": {"epsilon_points": 10**10}}, "timing.epsilon_points"),
    "10^9 annular runs": ({"annular_ising": {"runs": 10**9}}, "annular_ising.runs"),
    "10^9 benchmark repeats": ({"benchmarks": {"repeats": 10**9}}, "benchmarks.repeats"),
    "speed-up read at 10^11 sample points": ({"timing": {"speedup_samples": [10, 100, 10**11]}},
                                             "timing.speedup_samples"),
    "reduced two islands at n = 34": ({"scan_order": {"reduced_two_islands_n": [2, 34]}},
                                      "scan_order.reduced_two_islands_n"),
    "a length grid with stop < start": ({"ising10": {"lengths": {"start": 360, "stop": 12, "step": 12}}},
                                        "ising10.lengths"),
    "two islands beyond max_states": ({"scan_order": {"n_values": {"two_islands": [2, 30]}}},
                                      "scan_order.n_values.two_islands"),
    "a 40x40 grid of side 10^5": ({"ising40": {"side": 100_000}}, "ising40.side"),
    "1e9 runs written as YAML text (a string)": ("annular_ising: {runs: 1e9}\n", "annular_ising.runs"),
}


def _plan(tmp_path, content):
    """``snakemake -n`` of the smoke DAG with ``content`` as a further config file; (process, output, file)."""
    bad = tmp_path / "bad.yaml"
    if isinstance(content, dict):
        content = yaml.safe_dump({"results_dir": str(tmp_path / "results"), "figures_dir": str(tmp_path / "figures"),
                                  **content})
    bad.write_bytes(content if isinstance(content, bytes) else content.encode())
    proc = run([sys.executable, "-m", "snakemake", "-n", "--configfile", "config/smoke.yaml", str(bad)], cwd=ROOT,
               cpu_seconds=PLANNING_CPU_SECONDS)
    return proc, proc.stdout + proc.stderr, bad


def _assert_nothing_started(text, tmp_path):
    """No DAG built, no job started (Snakemake prints ``rule <name>:`` or ``localrule <name>:`` for each), nothing
    written where the run's results and figures would go."""
    assert "Building DAG of jobs" not in text and "Select jobs to execute" not in text, text[-3000:]
    assert not re.search(r"^\s*(local)?rule \w+:", text, re.M), text[-3000:]
    assert not (tmp_path / "results").exists() and not (tmp_path / "figures").exists()


@pytest.mark.parametrize("case", sorted(ISSUE_CONFIGS))
def test_each_bad_config_of_the_issue_is_refused_before_planning(tmp_path, case):
    content, key = ISSUE_CONFIGS[case]
    proc, text, bad = _plan(tmp_path, content)
    assert proc.returncode != 0, text[-3000:]
    assert key in text and str(bad) in text, text[-3000:]
    assert "Traceback" not in text, text[-3000:]
    _assert_nothing_started(text, tmp_path)


#: What stops a broken ``--configfile`` (docs/configuration.md, "Hostile config files"): Snakemake's own loader, before the Snakefile.
SNAKEMAKE_REFUSALS = {
    "random bytes": "UnicodeDecodeError: 'utf-8' codec can't decode byte 0x80",
    "empty file": "Config file must be given as JSON or YAML with keys at top level.",
    "top-level list": "Config file must be given as JSON or YAML with keys at top level.",
    "syntax error": "Config file is not valid JSON or YAML.",
    "tab indentation": "Config file is not valid JSON or YAML.",
}


def _run_with_hostile_file(tmp_path, content):
    """``snakemake --cores 1`` (a real run, not a plan) of the smoke DAG with results under ``tmp_path`` and then
    the file ``content`` as the last ``--configfile``; (process, output, hostile file)."""
    where = tmp_path / "where.yaml"
    where.write_text(f"results_dir: {tmp_path / 'results'}\nfigures_dir: {tmp_path / 'figures'}\n")
    bad = tmp_path / "hostile.yaml"
    bad.write_bytes(content if isinstance(content, bytes) else content.encode())
    proc = run([sys.executable, "-m", "snakemake", "--cores", "1", "--configfile", "config/smoke.yaml", str(where),
                str(bad)], cwd=ROOT, cpu_seconds=PLANNING_CPU_SECONDS)
    return proc, proc.stdout + proc.stderr, bad


@pytest.mark.parametrize("case", sorted(SNAKEMAKE_REFUSALS))
def test_broken_config_files_stop_snakemake_itself_before_any_job(tmp_path, case):
    proc, text, _ = _run_with_hostile_file(tmp_path, HOSTILE[case][0])
    assert proc.returncode != 0
    assert SNAKEMAKE_REFUSALS[case] in text, text[-3000:]
    assert "Estimated job time" not in text, text[-3000:]
    _assert_nothing_started(text, tmp_path)


def test_an_alias_bomb_that_snakemake_accepts_is_refused_by_the_guard_naming_the_file(tmp_path):
    content, expected = HOSTILE["billion laughs"]
    proc, text, bad = _run_with_hostile_file(tmp_path, content)
    assert proc.returncode != 0
    assert f"{bad}" in text and expected in text, text[-3000:]
    _assert_nothing_started(text, tmp_path)


def test_the_shipped_configs_pass_and_the_estimate_is_printed(tmp_path):
    where = tmp_path / "where.yaml"
    where.write_text(f"results_dir: {tmp_path / 'results'}\nfigures_dir: {tmp_path / 'figures'}\n")
    proc = run([sys.executable, "-m", "snakemake", "-n", "fig_he2b", "--configfile", "config/smoke.yaml", str(where)],
               cwd=ROOT, cpu_seconds=PLANNING_CPU_SECONDS)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert "Estimated job time" in proc.stderr and "scan_order" in proc.stderr, proc.stderr[-3000:]
    for config in (FULL, SMOKE):
        hours = check_config_time(config, FAMILIES, FULL, RATES)
        assert set(hours) >= {"ising10", "scan_order", "boltzmann", "msrc"} and sum(hours.values()) < DEFAULT_MAX_HOURS


def test_in_process_refusals_name_the_file(tmp_path):
    bad = tmp_path / "mine.yaml"
    bad.write_text("timing: {epsilon_points: 10000000000}\n")
    files = [ROOT / "config" / "config.yaml", ROOT / "config" / "smoke.yaml", bad]
    config = _merge(SMOKE, {"timing": {"epsilon_points": 10**10}})
    with pytest.raises(ConfigError, match=f"config key timing.epsilon_points \\(set in {bad}\\): .* hours"):
        check_workflow_config(config, files, FAMILIES, ROOT)


def test_the_time_limit_can_be_raised_deliberately():
    config = _merge(SMOKE, {"timing": {"epsilon_points": 10**10}})
    with pytest.raises(ResourceError, match="resources.max_hours"):
        check_config_time(config, FAMILIES, FULL, RATES)
    need = sum(check_config_time(_merge(config, {"resources": {"max_hours": 10**6}}), FAMILIES, FULL, RATES).values())
    check_config_time(_merge(config, {"resources": {"max_hours": need * 1.01}}), FAMILIES, FULL, RATES)


def test_every_compute_rule_has_a_measured_rate_in_its_family_file():
    """A rate is required (docs/contributing.md): without one a rule's estimate would count its start-up only. Each
    family file rates its own rules, and only rules its work model has (a stale rate of a renamed rule fails)."""
    files = family_files(ROOT)
    for family, settings in configured(FULL, FAMILIES):
        rules = {w.rule for w in family.estimate_work(settings)}
        mine = files[family.config_section]
        rated = {rule for part in ("rates", "other_rates", "rate_from") for rule in mine.get(part) or {}}
        assert rules <= rated, f"config/families/{family.config_section}.yaml has no rate for {sorted(rules - rated)}"
        assert rated <= rules, f"config/families/{family.config_section}.yaml rates rules it has not: {rated - rules}"
    assert all(rate > 0 for rate in RATES.values())


def _patterns_read() -> set[str]:
    read = set()
    for config in (FULL, SMOKE):
        for family, settings in configured(config, FAMILIES):
            memory, time_ = keys_read(family, settings)
            read |= {schema_pattern(SCHEMA, key) for key in memory | time_}
    return read


def test_every_numeric_key_is_read_by_an_estimate_or_marked_as_not_scaling():
    """A new numeric config key fails here until it is classified. What to do: if the key multiplies memory or
    run time (a count, a length, a size), read it in the family's ``memory_needed`` (memory) and/or ``work_needed``
    (run time) function of src/dogs/experiments/<family>.py, as a factor named by the key; if it does not (a
    model parameter, a level, a cap that never binds), mark it in config/schema.yaml, beside its ``description``,
    with ``x-not-scaling: "<the reason>"`` (on a list of numbers, the list's schema).
    Then regenerate the table of docs/configuration.md: ``python -m dogs.experiments table``."""
    read = _patterns_read()
    covered = read | set(not_scaling(SCHEMA)) | {key + "[]" for key in read}
    missing = sorted(numeric_schema_keys(SCHEMA) - covered)
    assert not missing, (f"numeric config keys that neither the memory nor the time estimate reads: {missing}; "
                         "see this test's docstring for what to do")


def test_keys_marked_as_not_scaling_exist_and_are_not_read():
    numeric = numeric_schema_keys(SCHEMA)
    marked = not_scaling(SCHEMA)
    unknown = sorted(set(marked) - numeric)
    assert not unknown, f"x-not-scaling marks keys that are not numeric: {unknown}"
    read = _patterns_read()
    both = sorted(key for key in marked if key in read)
    assert not both, f"keys marked as not scaling that an estimate reads: {both}"


def test_every_integer_key_has_a_maximum():
    unbounded = []

    def walk(node, key):
        if not isinstance(node, dict):
            return
        kind = node.get("type")
        kinds = {kind} if isinstance(kind, str) else set(kind or ())
        if "integer" in kinds and "maximum" not in node and "enum" not in node:
            unbounded.append(key)
        for name, sub in node.get("properties", {}).items():
            walk(sub, f"{key}.{name}" if key else name)
        for word in ("items", "additionalProperties"):
            walk(node.get(word), f"{key}[]" if word == "items" else f"{key}.*")
        for alternative in node.get("oneOf", []) + node.get("anyOf", []):
            walk(alternative, key)

    walk(SCHEMA, "")
    assert not unbounded, f"integer keys without a maximum in config/schema.yaml: {unbounded}"
