"""One place per fact: each family's configuration lives in its own file, ``config/families/<family>.yaml``
(:mod:`dogs.workflow.families`), and every run's config and schema are derived from those files.

No shared config file and no module of the workflow names a family (a hand-kept copy of a family's settings, schema,
rules or rates would drift from its file); the layers merge in the documented order (the Snakemake side is planned in
``tests/test_toy_family.py``); a broken family file is refused naming it."""

from __future__ import annotations

import re

import pytest
import yaml

from dogs.config import ConfigError
from dogs.experiments import FAMILIES
from dogs.workflow.families import family_files, full_schema, merged_config, with_family_defaults
from experiment_cli import ROOT

SECTIONS = sorted(family.config_section for family in FAMILIES)
#: The files shared by every family: what they hold is the same for all of them.
SHARED = [ROOT / "config" / name for name in ("config.yaml", "smoke.yaml", "calibration.yaml", "schema.yaml")]


def _family_mentions(text: str, section: str) -> list[str]:
    """Where ``text`` names the family ``section`` as configuration does: its section (``section:`` as a key, a
    dotted key ``section.x``, the quoted name) or a rule of it (``section_x``); plain words (the timing of a job, a
    speed benchmark), file names (``rules/section.smk``), folders (``section_v1/``) and figure paths
    (``section/fig1.png``) are not."""
    name = re.escape(section)
    pattern = (rf"(?m)^\s*{name}:|(?<![\w/.]){name}\.(?!smk\b|py\b|yaml\b|md\b)\w|[\"']{name}[\"']"
               rf"|(?<![\w/.]){name}_\w+(?![\w/])")
    return [match.group(0) for match in re.finditer(pattern, text)]


def test_the_family_files_are_the_registered_families():
    assert sorted(family_files(ROOT)) == SECTIONS


@pytest.mark.parametrize("path", SHARED + sorted((ROOT / "src" / "dogs" / "workflow").glob("*.py")),
                         ids=lambda path: str(path.relative_to(ROOT)))
def test_no_shared_file_names_a_family(path):
    """A family's settings, smoke and calibration values, schema, rules and rates live in its own file only: this
    fails when a hand-kept copy reappears in a file every family shares."""
    text = path.read_text()
    found = {section: _family_mentions(text, section) for section in SECTIONS}
    found = {section: hits for section, hits in found.items() if hits}
    assert not found, (f"{path.relative_to(ROOT)} names families {found}: keep a family's configuration in "
                       "config/families/<family>.yaml (docs/configuration.md)")


def test_the_mention_finder_sees_sections_keys_rules_and_quoted_names():
    assert _family_mentions("scan_order:\n  side: 3\n", "scan_order") == ["scan_order:"]
    assert _family_mentions("reads timing.main_side and timing_compute", "timing") == ["timing.m", "timing_compute"]
    assert _family_mentions('Experiment("ising10")', "ising10") == ['"ising10"']
    assert not _family_mentions("the timing of a job; rules/timing.smk; timing/fig2.png; speed benchmarks", "timing")
    assert not _family_mentions("speed benchmarks of the library", "benchmarks")
    assert not _family_mentions("msrc_v1/ in the data directory", "msrc")


def test_the_key_table_is_generated_not_pasted():
    text = (ROOT / "docs" / "configuration.md").read_text()
    pasted = [line for line in text.splitlines() if re.match(rf"\| ({'|'.join(SECTIONS)}) \|", line)]
    assert not pasted, "docs/configuration.md holds a pasted copy of the key table (docs/generated/ makes it)"


def _root(tmp_path, family: dict, core: str = "results_dir: r\nsmoke: false\n"):
    """A folder with config/config.yaml, config/schema.yaml and one family file ``fam``."""
    (tmp_path / "config" / "families").mkdir(parents=True)
    (tmp_path / "config" / "config.yaml").write_text(core)
    (tmp_path / "config" / "schema.yaml").write_text("type: object\nproperties: {}\nrequired: [results_dir]\n")
    (tmp_path / "config" / "families" / "fam.yaml").write_text(yaml.safe_dump(family))
    return tmp_path


FAMILY = {"settings": {"a": 1, "b": 1, "c": 1, "d": 1, "grid": {"x": 1, "y": 1}, "order": {"p": 1, "q": 1}},
          "smoke": {"b": 2, "c": 2, "d": 2, "grid": {"x": 2}, "order": {"q": 2}},
          "calibration": {"c": 3, "d": 3},
          "schema": {"type": "object"}}


def test_the_layers_merge_in_the_documented_order(tmp_path):
    """settings < smoke (smoke: true) < calibration (calibration: true) < the run's config files in their order;
    mappings merge key by key, lists are replaced, and keys come in Snakemake's order."""
    root = _root(tmp_path, FAMILY)
    config = root / "config"
    (config / "smoke.yaml").write_text("smoke: true\n")
    (config / "calibration.yaml").write_text("calibration: true\n")
    (config / "mine.yaml").write_text("fam: {d: 4, grid: {y: [4]}}\n")
    paper = merged_config([config / "config.yaml"], root)["fam"]
    assert paper == FAMILY["settings"]
    smoke = merged_config([config / "config.yaml", config / "smoke.yaml"], root)["fam"]
    assert smoke == {"a": 1, "b": 2, "c": 2, "d": 2, "grid": {"x": 2, "y": 1}, "order": {"p": 1, "q": 2}}
    assert list(smoke["order"]) == ["q", "p"]  # as Snakemake merges config.yaml into the command line's files
    files = [config / name for name in ("config.yaml", "smoke.yaml", "calibration.yaml", "mine.yaml")]
    run = merged_config(files, root)["fam"]
    assert run == {"a": 1, "b": 2, "c": 3, "d": 4, "grid": {"x": 2, "y": [4]}, "order": {"p": 1, "q": 2}}
    # without smoke: true the calibration layer sits right on the settings; --config (the last word) wins over all
    assert with_family_defaults({"calibration": True, "fam": {"a": 5}}, root=root)["fam"] == {
        **FAMILY["settings"], "a": 5, "c": 3, "d": 3}


def test_the_run_schema_is_the_shared_one_with_each_family_section(tmp_path):
    root = _root(tmp_path, FAMILY)
    schema = full_schema(root)
    assert schema["properties"]["fam"] == {"type": "object"} and schema["required"] == ["results_dir", "fam"]
    shipped = full_schema(ROOT)
    assert set(SECTIONS) <= set(shipped["properties"]) and set(SECTIONS) <= set(shipped["required"])


@pytest.mark.parametrize("family, message", [
    ({**FAMILY, "smok": {"a": 2}}, "unknown: smok"),
    ({"settings": {"a": 1}}, "missing: schema"),
    ({**FAMILY, "smoke": {"a": 1}, "rates": {"r": 1}, "other_rates": {"r": 2}}, None),
])
def test_a_broken_family_file_is_refused_naming_it(tmp_path, family, message):
    root = _root(tmp_path, family)
    if message is None:  # a rule rated twice (in one file or two)
        from dogs.workflow.families import job_rates

        with pytest.raises(ConfigError, match="the rate of r is given twice"):
            job_rates(family_files(root))
        return
    with pytest.raises(ConfigError, match=f"fam.yaml: a family file has the parts .*; {message}"):
        family_files(root)
