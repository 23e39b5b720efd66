"""The front door: the README's generated verdict counts, the published results in docs/results/, the figure index
(generated from the rules' declared targets, and ``snakemake --list-target-rules``), and the files that make the work
citable and reusable."""

from __future__ import annotations

import json
import re
import sys
import tomllib
from pathlib import Path

import jsonschema
import pandas as pd
import pytest
import yaml

from cpu_limited import PLANNING_CPU_SECONDS, run
from dogs.claims import PAPER_ORDER, load_paper_claims
from dogs.workflow import published

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PUBLISHED = ROOT / "docs" / "results"


# ---- the published results and the README's verdict counts

def _table(verdicts, comparable="yes"):
    papers = ["DoGS", "He et al. 2016", "Annular augmentation"]
    return pd.DataFrame({"id": [f"c{i}" for i in range(len(verdicts))],
                         "paper": [papers[i % 3] for i in range(len(verdicts))],
                         "verdict": verdicts, "comparable_with_paper": comparable})


def _figure(path, title, panels=2):
    from dogs.plotting import style

    fig, _ = style.subplots(1, panels, figsize=(2.0 * panels, 1.5))
    fig.suptitle(title)
    style.save_figure(fig, path)


def _run_tree(tmp_path, table, revision="abc123"):
    """A run's results and figures: the table, a sidecar made at ``revision``, each key figure titled by its paper
    figure."""
    results, figures = tmp_path / "results", tmp_path / "figures"
    (results / "paper_vs_ours").mkdir(parents=True)
    table.to_csv(results / "paper_vs_ours" / "paper_vs_ours.csv", index=False)
    (results / "paper_vs_ours" / "paper_vs_ours.md").write_text(
        "# Paper vs ours\n\nThe run's table.\n\n## How each criterion reads the paper\n\n"
        + "".join(f"- `{row_id}`: reading {row_id}\n" for row_id in table["id"]))
    (results / "ising10").mkdir()
    (results / "ising10" / "model.meta.json").write_text(json.dumps({"git_revision": revision}))
    for rel, paper, caption in published.KEY_FIGURES:
        (figures / rel).parent.mkdir(parents=True, exist_ok=True)
        _figure(figures / rel, f"{published.PAPER_IN_TITLE[paper]} {caption}")
    return results, figures


def test_publish_copies_the_table_and_key_figures_and_stamps_them(tmp_path):
    verdicts = ["reproduced", "partly", "not reproduced", "information", "reproduced", "inconclusive"]
    results, figures = _run_tree(tmp_path, _table(verdicts))
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{published.BEGIN}\nstale\n{published.END}\nrest\n")
    out = tmp_path / "docs" / "results"
    # this checkout did not make the run (revision abc123): told so by the flags
    assert published.main(["publish", "--results", str(results), "--figures", str(figures), "--out", str(out),
                           "--readme", str(readme), "--allow-dirty", "--allow-other-commit"]) == 0
    for rel, _, _ in published.KEY_FIGURES:
        assert (out / "figures" / rel).read_bytes() == (figures / rel).read_bytes()
    assert (out / "paper_vs_ours.csv").read_text() == (results / "paper_vs_ours" / "paper_vs_ours.csv").read_text()
    page = (out / "paper_vs_ours.md").read_text()
    assert page.startswith("# Paper vs ours\n") and page.index(published.COMPACT_END) < page.index("The run's table.")
    stamp = json.loads((out / "provenance.json").read_text())
    assert stamp["run_git_revisions"] == ["abc123"] and stamp["checks_overridden"] == ["dirty", "other_commit"]
    assert stamp["machine"]["cores"] and stamp["table_written"] and stamp["published"]
    text = readme.read_text()
    assert "stale" not in text and text.startswith("intro\n") and text.endswith("rest\n")
    # DoGS rows are 0 and 3 of the six: reproduced and information
    assert "- **DoGS** (2 claims): 1 reproduced, 1 information" in text
    assert "- **All** (6 claims): 2 reproduced, 1 partly, 1 inconclusive, 1 not reproduced, 1 information" in text
    assert published.rewrite_readme(readme, out / "paper_vs_ours.csv") is False  # idempotent


def test_publish_refuses_a_smoke_table_a_missing_figure_and_too_many_bytes(tmp_path, monkeypatch):
    told = {"allow_dirty": True, "allow_other_commit": True}
    results, figures = _run_tree(tmp_path / "smoke", _table(["reproduced"], comparable="no (smoke run)"))
    with pytest.raises(ValueError, match="smoke run"):
        published.publish(results, figures, tmp_path / "out1", **told)
    results, figures = _run_tree(tmp_path / "missing", _table(["reproduced"]))
    (figures / published.KEY_FIGURES[0][0]).unlink()
    with pytest.raises(ValueError, match="not in the run's results"):
        published.publish(results, figures, tmp_path / "out2", **told)
    results, figures = _run_tree(tmp_path / "big", _table(["reproduced"]))
    monkeypatch.setattr(published, "MAX_PNG_BYTES", 1000)
    with pytest.raises(ValueError, match="MB of PNG"):
        published.publish(results, figures, tmp_path / "out3", **told)
    assert not any((tmp_path / name).exists() for name in ("out1", "out2", "out3"))


def test_publish_refuses_a_figure_that_names_no_paper_figure_or_has_too_many_panels(tmp_path):
    told = {"allow_dirty": True, "allow_other_commit": True}
    rel, paper, caption = published.KEY_FIGURES[-1]
    results, figures = _run_tree(tmp_path / "untitled", _table(["reproduced"]))
    _figure(figures / rel, "Posteriors of the weights")
    with pytest.raises(ValueError, match=f"does not name {published.PAPER_IN_TITLE[paper]} and Fig. 8"):
        published.publish(results, figures, tmp_path / "out1", **told)
    results, figures = _run_tree(tmp_path / "wide", _table(["reproduced"]))
    _figure(figures / rel, f"{published.PAPER_IN_TITLE[paper]} {caption}", panels=6)
    with pytest.raises(ValueError, match="6 panels, more than 4"):
        published.publish(results, figures, tmp_path / "out2", **told)
    assert not (tmp_path / "out1").exists() and not (tmp_path / "out2").exists()


def _git(repository, *args):
    proc = run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repository,
               cpu_seconds=PLANNING_CPU_SECONDS)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_publish_refuses_a_dirty_checkout_and_a_run_of_another_commit_unless_told(tmp_path):
    repository = tmp_path / "repository"
    (repository / "docs" / "results").mkdir(parents=True)
    (repository / "code.py").write_text("x = 1\n")
    (repository / "docs" / "results" / "old.md").write_text("old\n")
    _git(repository, "init", "-q")
    _git(repository, "add", ".")
    _git(repository, "commit", "-q", "-m", "one")
    head = _git(repository, "rev-parse", "HEAD")
    results, figures = _run_tree(tmp_path / "run", _table(["reproduced"]), revision=head)
    out = repository / "docs" / "results"
    (out / "old.md").write_text("being republished\n")  # what publishing writes is no uncommitted change
    assert published.code_problems(results, repository) == {}
    stamp = published.publish(results, figures, out, repository)
    assert stamp["run_git_revisions"] == [head] and stamp["published_from_git_revision"] == head + "-dirty"

    (repository / "code.py").write_text("x = 2\n")
    with pytest.raises(ValueError, match=r"uncommitted changes \(code.py\).*--allow-dirty"):
        published.publish(results, figures, out, repository)
    assert published.publish(results, figures, out, repository, allow_dirty=True)["checks_overridden"] == ["dirty"]
    _git(repository, "commit", "-q", "-am", "two")
    with pytest.raises(ValueError, match=f"made at {head}, not at the checked-out .*--allow-other-commit"):
        published.publish(results, figures, out, repository)
    assert published.publish(results, figures, out, repository, allow_other_commit=True)
    with pytest.raises(ValueError, match="not a git checkout"):
        published.publish(results, figures, tmp_path / "elsewhere", tmp_path / "run")


# ---- the compact table

def test_short_forms_drop_parentheses_keep_the_first_clause_and_cut_at_a_word():
    assert published.shorten("DoGS setup (bound, epsilon (nested)) on 10^6 variables", 80) == "DoGS setup on 10^6 variables"
    assert published.shorten("mode 16 over 4 grids (3 of 4); Fig. 2 grid: bound", 80, first_clause=True) == "mode 16 over 4 grids"
    assert published.shorten("one two three four", 12) == "one two…"
    assert published.shorten("-", 10) == published.shorten("(only a note)", 10) == "—"
    assert published.markdown_text("|bias| of X_1 <= 2*s, $5") == "\\|bias\\| of X\\_1 \\<= 2\\*s, \\$5"


def test_the_compact_table_has_one_line_per_claim_each_linked_to_its_reading(tmp_path):
    verdicts = ["reproduced", "not reproduced", "information"]
    results, _ = _run_tree(tmp_path, _table(verdicts))
    table_csv = results / "paper_vs_ours" / "paper_vs_ours.csv"
    page = published.compose_markdown(table_csv, (results / "paper_vs_ours" / "paper_vs_ours.md").read_text())
    compact = page[page.index(published.COMPACT_BEGIN):page.index(published.COMPACT_END)]
    lines = [line for line in compact.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert len(lines) == 3 and "🔴 not reproduced" in lines[1] and all(line.count(" | ") == 5 for line in lines)
    for row_id in ("c0", "c1", "c2"):
        assert f"(#claim-{row_id})" in compact and f'<a id="claim-{row_id}"></a>`{row_id}`: reading {row_id}' in page
    assert published.compose_markdown(table_csv, page) == page  # recomposing a published page changes nothing
    assert published.run_markdown(page) == (results / "paper_vs_ours" / "paper_vs_ours.md").read_text()


def test_the_key_figures_exist_as_workflow_outputs():
    targets = "\n".join(re.findall(r'^rule \w+:\n(?:    .*\n)*', "\n".join(
        path.read_text() for path in sorted((ROOT / "rules").glob("*.smk"))), flags=re.M))
    for rel, paper, _ in published.KEY_FIGURES:
        assert f'figure("{rel}")' in targets, f"{rel} is no target's figure in rules/*.smk"
        assert paper in PAPER_ORDER


def test_readme_has_the_generated_block_and_stays_small():
    assert README.stat().st_size <= 12 * 1024, f"README.md is {README.stat().st_size} bytes, over 12 KB"
    block = published.readme_verdict_block(README)
    assert block.startswith(published.BEGIN) and block.endswith(published.END)


def test_committed_table_matches_the_claims_config_and_the_readme():
    table_csv = PUBLISHED / "paper_vs_ours.csv"
    if not table_csv.is_file():
        pytest.skip("docs/results/ is not committed yet: `snakemake docs_results` after a paper-scale run publishes it")
    table = pd.read_csv(table_csv, dtype=str, keep_default_na=False)
    claim_ids = [row["id"] for row in load_paper_claims(ROOT / "config" / "claims")]
    assert sorted(table["id"]) == sorted(claim_ids), "docs/results/paper_vs_ours.csv is stale: run `snakemake docs_results`"
    assert published.readme_verdict_block(README) == published.readme_block(table_csv), (
        "README.md's verdict counts disagree with docs/results/paper_vs_ours.csv: run "
        "`python -m dogs.workflow.published readme`")
    page = (PUBLISHED / "paper_vs_ours.md").read_text(encoding="utf-8")
    assert published.compose_markdown(table_csv, page) == page, (
        "docs/results/paper_vs_ours.md does not lead with the compact table of docs/results/paper_vs_ours.csv: run "
        "`python -m dogs.workflow.published table`")
    stamp = json.loads((PUBLISHED / "provenance.json").read_text())
    assert stamp["png_bytes"] <= published.MAX_PNG_BYTES
    for item in stamp["figures"]:
        assert (PUBLISHED / item["file"]).is_file(), item["file"]


# ---- the figure index

def _declared_targets() -> list[dict]:
    """Every target the rules files declare (``target(...)``), with its rule's docstring (docs/_ext/dogs_docs.py)."""
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    import dogs_docs

    return dogs_docs.declared_targets(ROOT)


def test_the_figure_index_lists_every_declared_target_and_no_hand_kept_list_remains():
    targets = _declared_targets()
    names = [t["name"] for t in targets]
    assert len([n for n in names if n.startswith(("fig", "table"))]) >= 30 and len(set(names)) == len(names)
    index = (ROOT / "docs" / "generated" / "figure-index.md").read_text(encoding="utf-8")
    assert all(f"| `{name}` |" in index for name in names)
    readme = README.read_text()
    assert "(docs/generated/figure-index.md)" in readme
    # the README names a few targets as examples, never a list of them; the Snakefile names no family and defines
    # no target of a family (its aggregate targets are derived from the declarations)
    named = {name for name in names if re.search(rf"`{name}`|snakemake .*\b{name}\b", readme)}
    assert len(named) <= 5, f"README.md names the targets {sorted(named)}: link the figure index instead"
    snakefile = (ROOT / "Snakefile").read_text()
    defined = set(re.findall(r"^rule (\w+):", snakefile, flags=re.M))
    assert defined == {"experiment_step", "all_without_data", "all_with_data", "all"}, defined
    families = {path.stem for path in (ROOT / "rules").glob("*.smk")} - {"common"}
    mentioned = {f for f in families if re.search(rf"\b{f}\b", snakefile)}
    assert not mentioned, f"the Snakefile names the families {sorted(mentioned)}"
    assert len({name for name in names if re.search(rf"\b{name}\b", snakefile)}) <= 1


def test_every_target_rule_says_which_paper_figure_or_table_it_makes():
    proc = run([sys.executable, "-m", "snakemake", "--list-target-rules"], cwd=ROOT, cpu_seconds=PLANNING_CPU_SECONDS)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    assert len(lines) > 40
    bare = [line for line in lines if not re.match(r"^\w+ \(.+\)$", line)]
    assert not bare, f"target rules without a docstring: {bare}"
    listed = {line.split(" ", 1)[0] for line in lines}
    for target in _declared_targets():
        assert target["name"] in listed, f"declared target {target['name']} is no target rule"
        if target["name"].startswith(("fig", "table")):
            assert re.search(r"(Fig|Figs|Table|Tables)\.? ?\d|table", target["doc"]), (
                f"rule {target['name']}: {target['doc']!r} names no figure or table")


# ---- reuse and citation

#: The part of the Citation File Format 1.2.0 this repository uses, as a JSON schema: the required keys, the
#: types, identifier patterns and the reference types we cite with.
_PERSON_OR_ENTITY = {"type": "object", "minProperties": 1, "additionalProperties": False, "properties": {
    "family-names": {"type": "string"}, "given-names": {"type": "string"}, "name": {"type": "string"},
    "orcid": {"type": "string", "pattern": r"^https://orcid\.org/[0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9X]$"}}}
_DOI = {"type": "string", "pattern": r"^10\.\d{4,9}(\.\d+)?/[A-Za-z0-9:/_;\-\.\(\)\[\]\\]+$"}
_CFF_SUBSET = {
    "type": "object",
    "required": ["cff-version", "message", "title", "authors"],
    "properties": {
        "cff-version": {"const": "1.2.0"},
        "message": {"type": "string", "minLength": 1},
        "title": {"type": "string", "minLength": 1},
        "type": {"enum": ["software", "dataset"]},
        "authors": {"type": "array", "minItems": 1, "items": _PERSON_OR_ENTITY},
        "version": {"type": "string"},
        "license": {"type": "string"},
        "doi": _DOI,
        "keywords": {"type": "array", "items": {"type": "string"}},
        "references": {"type": "array", "items": {
            "type": "object",
            "required": ["type", "title", "authors"],
            "properties": {
                "type": {"enum": ["article", "conference-paper", "proceedings", "report", "generic"]},
                "title": {"type": "string", "minLength": 1},
                "authors": {"type": "array", "minItems": 1, "items": _PERSON_OR_ENTITY},
                "year": {"type": "integer", "minimum": 1900},
                "doi": _DOI,
                "identifiers": {"type": "array"},
                "conference": {"type": "object", "required": ["name"]},
            },
        }},
    },
}


def test_citation_file_is_valid_and_agrees_with_the_package():
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    jsonschema.validate(citation, _CFF_SUBSET)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert citation["version"] == project["version"] and citation["title"].startswith(f"{project['name']}: ")
    assert citation["license"] == project["license"] == "BSD-3-Clause"
    assert "BSD 3-Clause License" in (ROOT / "LICENSE").read_text()
    titles = {reference["title"] for reference in citation["references"]}
    assert {"Improving Gibbs Sampler Scan Quality with DoGS", "Annular Augmentation Sampling",
            "Projecting Markov Random Field Parameters for Fast Mixing"} <= titles and len(titles) == 4


def test_the_schema_subset_rejects_a_broken_citation():
    broken = {"cff-version": "1.2.0", "message": "m", "title": "t", "authors": [{"names": "x"}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, _CFF_SUBSET)


def test_declared_package_data_exists():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    for package, files in declared.items():
        for name in files:
            assert (ROOT / "src" / package / name).is_file(), f"pyproject declares {package}/{name}, which is missing"
