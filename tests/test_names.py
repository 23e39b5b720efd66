"""One name per experiment (docs/running.md, "Results layout"): a family's config section, module, rules file, result, figure,
log and benchmark files all carry the family's name; its report items are filed by paper."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dogs.workflow.cost import rule_of
from experiment_cli import merged_configs

ROOT = Path(__file__).resolve().parents[1]
RULE_FILES = {path.stem: path.read_text() for path in sorted((ROOT / "rules").glob("*.smk")) if path.stem != "common"}
#: Families without a config section: the paper-vs-ours table reads every family's claims.
NO_CONFIG = {"paper_vs_ours"}
#: The speed benchmarks' rules predate the <family>_<step> naming; renaming them would change their targets.
OLDER_RULE_NAMES = {"benchmark_gibbs", "benchmark_dogs", "benchmark_binary_samplers", "benchmark_scaling",
                    "plot_benchmark_scaling", "summarise_benchmarks"}
#: A path given to result() or figure() (plain or f-string, on one line or the next).
PATH = re.compile(r'\b(result|figure)\(\s*f?"([^"]+)"')


#: A rule's first line: ``rule NAME:`` or ``use rule experiment_step as NAME with:`` (the Snakefile's step rule).
RULE = re.compile(r"^(?:rule |use rule \w+ as )(\w+)(?: with)?:", flags=re.M)


def _rules(text: str) -> list[str]:
    return RULE.findall(text)


def _targets(text: str) -> set[str]:
    """The named targets a rules file declares (``target("name", ...)``, rules/common.smk)."""
    return set(re.findall(r'^target\("(\w+)"', text, flags=re.M))


def test_every_rules_file_is_one_family_with_its_config_section_and_module():
    config = merged_configs()[0]
    assert "ising" not in RULE_FILES  # one file per family (ising10, ising40, loose_bounds)
    for family in RULE_FILES:
        assert family in config or family in NO_CONFIG, f"rules/{family}.smk has no config section {family}"
        module = ROOT / "src" / "dogs" / "experiments" / f"{family}.py"
        package = ROOT / "src" / "dogs" / family
        assert module.is_file() or package.is_dir(), f"rules/{family}.smk has no module dogs.experiments.{family}"
    sections = {key for key, value in config.items() if isinstance(value, dict) and key != "resources"}
    assert sections <= set(RULE_FILES), f"config sections without a rules file: {sections - set(RULE_FILES)}"


@pytest.mark.parametrize("family", sorted(RULE_FILES))
def test_rules_outputs_logs_and_report_categories_carry_the_family_name(family):
    check_rules_file(family, RULE_FILES[family])


def check_rules_file(family: str, text: str) -> None:
    """The naming rules of ``rules/<family>.smk`` (docs/contributing.md; tests/test_toy_family.py checks the toy's)."""
    rules = _rules(text)
    assert rules, f"rules/{family}.smk defines no rule"
    for rule in rules:  # a family's rules, and the named targets it declares
        assert rule.startswith(family + "_") or rule in OLDER_RULE_NAMES | _targets(text), f"rules/{family}.smk: rule {rule}"
    paths = [path for _, path in PATH.findall(text)]
    assert paths
    allowed = (f"{family}/", f"logs/{family}/", f"claims/{family}.json")
    if family == "paper_vs_ours":  # the table and its publishing read every family's measured claims
        allowed += ("claims/{family}.json",)
    for path in paths:
        benchmark = path.startswith("benchmarks/snakemake/") and any(
            path.removeprefix("benchmarks/snakemake/").startswith(rule) for rule in rules)
        assert path.startswith(allowed) or benchmark, f"rules/{family}.smk writes {path!r}, outside {family}/"
    # the report is ordered by paper (categories sort by name: "0. Paper vs ours", "1. DoGS", "2. He et al.", ...),
    # and every item is labelled with its paper, section, figure or table and panels
    categories = re.findall(r'\bcategory="([^"]+)"', text)
    assert categories and all(re.match(r"^\d\. ", c) for c in categories), f"rules/{family}.smk: report categories {set(categories)}"
    labelled = len(re.findall(r"labels=(?:\{|lambda wildcards: \{)", text))  # a dict, or one per wildcard value
    assert text.count("report(") == len(categories) == labelled, f"rules/{family}.smk: a report item without labels"


def test_the_snakefile_names_no_path_and_includes_every_rules_file():
    text = (ROOT / "Snakefile").read_text()
    assert not PATH.findall(text), "the Snakefile names result files: a family's targets belong in its rules file"
    # every rules file is included, common.smk first, by one loop over rules/*.smk (no line per family)
    assert re.search(r'^include: "rules/common\.smk"', text, flags=re.M)
    assert 'glob.glob(os.path.join(workflow.basedir, "rules", "*.smk"))' in text
    assert not re.findall(r'^include: "rules/(?!common\.smk)', text, flags=re.M)


def test_every_benchmark_file_is_read_back_as_its_rule():
    """Every benchmark file a compute rule writes is attributed to the work of that rule (its rate), by the names the
    work models declare (``Work.benchmark_names``), ``<rule>_<part>`` for the work ``<rule>:<part>``, or else by the
    rule's name."""
    from dogs.experiments import FAMILIES
    from dogs.workflow.cost import configured

    declared = {}
    for config in merged_configs():  # a data set may be small at smoke scale and large at paper scale
        works = [w for family, settings in configured(config, FAMILIES) for w in family.estimate_work(settings)]
        named = [(name, w.rule) for w in works for name in w.benchmark_names]
        named += [(w.rule.replace(":", "_"), w.rule) for w in works if ":" in w.rule and w.jobs]  # rule:<part>
        for name, rule in named:
            assert rule_of(f"results/benchmarks/snakemake/{name}.tsv", works) == rule, name
            declared[name] = rule
    checked = 0
    for text in RULE_FILES.values():
        for block in re.split(r"^(?=rule |use rule )", text, flags=re.M)[1:]:
            rule = RULE.match(block).group(1)
            found = re.search(r'benchmark:\s*result\(\s*"([^"]+)"', block)
            if not found:
                continue
            checked += 1
            pattern = re.sub(r"\\\{[^}]+\\\}", ".+", re.escape(Path(found.group(1)).stem))
            if any(re.fullmatch(pattern, name) for name in declared):
                continue  # named by its work model, or one name per part of the rule: checked above
            path = "results/" + re.sub(r"\{[^}]+\}", "1", found.group(1))
            if rule not in {w.rule.split(":")[0] for w in works}:
                assert rule_of(path, works) is None, path  # no estimate (benchmark_scaling: not part of `all`)
                continue
            assert rule_of(path, works) is not None, path
            assert rule_of(path, works).split(":")[0] == rule, path
    assert checked >= 20
