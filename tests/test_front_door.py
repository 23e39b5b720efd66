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

#: Two families of the test runs, each with key figures; ising10 has a row beyond the papers.
RUN_FAMILIES = ("ising10", "timing")


def _claims_dir(tmp_path, families=RUN_FAMILIES):
    """Claims files of the test runs: per family two DoGS rows judged "reproduced if value <= 1", and for ising10
    a row beyond the papers."""
    rows = []
    for family in families:
        for n in range(2):
            rows.append({"id": f"{family}_{n}", "paper": "DoGS", "where": f"§{n}", "claim": f"claim {n}",
                         "paper_value": "1", "family": family, "reading": f"reading of {family} {n}",
                         "quantity": "x", "criterion": {"reproduced": [{"at_most": 1.0}]}, "ours": "{value}"})
    rows.append({"id": "ising10_ours", "paper": "Beyond the papers", "where": "DoGS §5.1", "claim": "ours",
                 "paper_value": "-", "family": "ising10", "reading": "a finding of ours", "quantity": "x",
                 "criterion": "information", "ours": "{value}"})
    folder = tmp_path / "claims"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "test.yaml").write_text(yaml.safe_dump(rows, sort_keys=False))
    return folder


def _figure(path, title, panels=2):
    from dogs.plotting import style

    fig, _ = style.subplots(1, panels, figsize=(2.0 * panels, 1.5))
    fig.suptitle(title)
    style.save_figure(fig, path)


def _run_tree(tmp_path, values=None, revision="abc123", smoke=False):
    """A paper-scale run of the test families: each family's measured claims (``values``: {family: [value of row 0,
    value of row 1]}, default reproduced and not reproduced), a sidecar made at ``revision``, each of their key
    figures titled by its paper figure."""
    from dogs.claims import measured, write_claims

    values = values or {family: [0.5, 2.0] for family in RUN_FAMILIES}
    results, figures = tmp_path / "results", tmp_path / "figures"
    for family, (first, second) in values.items():
        claims = {f"{family}_0": measured(first), f"{family}_1": measured(second)}
        if family == "ising10":
            claims["ising10_ours"] = measured(3.0)
        write_claims(results / "claims" / f"{family}.json", family, claims, smoke=smoke)
        (results / family).mkdir(parents=True, exist_ok=True)
        (results / family / "model.meta.json").write_text(json.dumps({"git_revision": revision}))
    for rel, paper, caption in published.KEY_FIGURES:
        if published.figure_family(rel) in values:
            (figures / rel).parent.mkdir(parents=True, exist_ok=True)
            _figure(figures / rel, f"{published.PAPER_IN_TITLE[paper]} {caption}")
    return results, figures


TOLD = {"allow_dirty": True, "allow_other_commit": True}


def _files(folder) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(Path(folder).rglob("*"))
            if path.is_file()}


def test_publish_judges_each_family_stamps_it_and_counts_the_rows_beyond_the_papers(tmp_path):
    results, figures = _run_tree(tmp_path)
    claims = _claims_dir(tmp_path)
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{published.BEGIN}\nstale\n{published.END}\nrest\n")
    out = tmp_path / "docs" / "results"
    provenance = published.publish(results, figures, out, claims_dir=claims, **TOLD)
    published_figures = [rel for rel, _, _ in published.KEY_FIGURES if published.figure_family(rel) in RUN_FAMILIES]
    for rel in published_figures:
        assert (out / "figures" / rel).read_bytes() == (figures / rel).read_bytes()
    assert sorted(_files(out)) == sorted([f"figures/{rel}" for rel in published_figures]
                                         + ["paper_vs_ours.csv", "paper_vs_ours.md", "provenance.json"])
    table = pd.read_csv(out / "paper_vs_ours.csv", dtype=str, keep_default_na=False)
    assert list(table["id"]) == ["ising10_0", "ising10_1", "timing_0", "timing_1", "ising10_ours"]
    assert list(table["verdict"]) == ["reproduced", "not reproduced"] * 2 + ["information"]
    # every row names its family, and every family its run
    assert set(table["family"]) == set(provenance["families"]) == set(RUN_FAMILIES)
    assert json.loads((out / "provenance.json").read_text()) == provenance
    for stamp in provenance["families"].values():
        assert stamp["run_git_revisions"] == ["abc123"] and stamp["checks_overridden"] == ["dirty", "other_commit"]
        assert stamp["machine"]["cores"] and stamp["measured"] and stamp["published"]
    assert {item["family"] for item in provenance["figures"]} == set(RUN_FAMILIES)
    page = (out / "paper_vs_ours.md").read_text()
    assert page == published.compose_markdown(out / "paper_vs_ours.csv", provenance)
    assert '<a id="run-ising10"></a>`ising10`, <a id="run-timing"></a>`timing`: run of abc123' in page
    assert "[reading](#claim-timing_1) · [run](#run-timing)" in page
    assert published.main(["readme", "--table", str(out / "paper_vs_ours.csv"), "--readme", str(readme)]) == 0
    text = readme.read_text()
    assert "stale" not in text and text.startswith("intro\n") and text.endswith("rest\n")
    assert "- **DoGS** (4 claims): 2 reproduced, 2 not reproduced\n" in text
    assert "- **All papers** (4 claims): 2 reproduced, 2 not reproduced\n" in text
    assert "- **Beyond the papers** (1 rows of ours, counted apart): 1 information\n" in text
    assert published.rewrite_readme(readme, out / "paper_vs_ours.csv") is False  # idempotent


def test_republishing_one_family_leaves_the_others_byte_identical(tmp_path):
    claims = _claims_dir(tmp_path)
    out = tmp_path / "docs" / "results"
    published.publish(*_run_tree(tmp_path / "first"), out, claims_dir=claims, **TOLD)
    before = _files(out)
    provenance = json.loads((out / "provenance.json").read_text())
    # a later paper-scale run of timing alone, at another commit, whose first row now fails
    results, figures = _run_tree(tmp_path / "second", {"timing": [3.0, 0.5]}, revision="def456")
    after = published.publish(results, figures, out, families=["timing"], claims_dir=claims, **TOLD)
    assert after["families"]["ising10"] == provenance["families"]["ising10"]
    assert after["families"]["timing"]["run_git_revisions"] == ["def456"]
    lines = {line.split(",", 1)[0]: line for line in (out / "paper_vs_ours.csv").read_text().splitlines()}
    old_lines = {line.split(",", 1)[0]: line for line in before["paper_vs_ours.csv"].decode().splitlines()}
    assert list(lines) == list(old_lines)  # the claims files' order
    assert all(lines[key] == old_lines[key] for key in lines if not key.startswith("timing"))
    assert lines["timing_0"] != old_lines["timing_0"] and ",not reproduced," in lines["timing_0"]
    now = _files(out)
    for name, data in before.items():
        if name.startswith("figures/ising10/"):
            assert now[name] == data, name
    assert '"ising10": ' + json.dumps(provenance["families"]["ising10"], indent=2).replace("\n", "\n    ") \
        in (out / "provenance.json").read_text()  # the other family's entry, byte for byte
    with pytest.raises(ValueError, match="no rows in .* for nope"):
        published.publish(results, figures, out, families=["nope"], claims_dir=claims, **TOLD)


def test_a_refused_publish_leaves_the_published_files_untouched(tmp_path, monkeypatch):
    claims = _claims_dir(tmp_path)
    out = tmp_path / "docs" / "results"
    published.publish(*_run_tree(tmp_path / "good"), out, claims_dir=claims, **TOLD)
    before = _files(out)
    smoke = _run_tree(tmp_path / "smoke", smoke=True)
    with pytest.raises(ValueError, match="from a smoke run"):
        published.publish(*smoke, out, claims_dir=claims, **TOLD)
    with pytest.raises(ValueError, match="not a git checkout"):  # a run of unknown code, not told
        published.publish(*_run_tree(tmp_path / "other"), out, tmp_path / "other", claims_dir=claims)
    unmeasured = _run_tree(tmp_path / "short")
    claims_json = unmeasured[0] / "claims" / "timing.json"
    recorded = json.loads(claims_json.read_text())
    del recorded["claims"]["timing_1"]
    claims_json.write_text(json.dumps(recorded))
    with pytest.raises(ValueError, match="measured no value for timing_1"):
        published.publish(*unmeasured, out, claims_dir=claims, **TOLD)
    missing = _run_tree(tmp_path / "missing")
    (missing[1] / published.KEY_FIGURES[0][0]).unlink()
    with pytest.raises(ValueError, match="not in the run's results"):
        published.publish(*missing, out, claims_dir=claims, **TOLD)
    monkeypatch.setattr(published, "MAX_PNG_BYTES", 1000)
    with pytest.raises(ValueError, match="MB of PNG"):
        published.publish(*_run_tree(tmp_path / "big"), out, claims_dir=claims, **TOLD)
    assert _files(out) == before


def test_docs_results_declares_no_output_and_refuses_an_unknown_family_when_planned():
    """Snakemake deletes a failed job's outputs: docs_results declares none, so a refused publish cannot delete the
    published files; an unknown family in publish_families stops the planning."""
    planned = run([sys.executable, "-m", "snakemake", "-n", "docs_results", "--config", "publish_families=[timing]"],
                  cwd=ROOT, cpu_seconds=PLANNING_CPU_SECONDS)
    assert planned.returncode == 0, planned.stderr[-2000:]
    job = planned.stdout[planned.stdout.index("rule docs_results:"):].split("\n\n", 1)[0]
    assert "output:" not in job and "results/claims/timing.json" in job and "ising10" not in job
    refused = run([sys.executable, "-m", "snakemake", "-n", "docs_results", "--config", "publish_families=[nope]"],
                  cwd=ROOT, cpu_seconds=PLANNING_CPU_SECONDS)
    assert refused.returncode != 0 and "publish_families: no rows in config/claims for nope" in refused.stdout + refused.stderr


def test_publish_refuses_a_figure_that_names_no_paper_figure_or_has_too_many_panels(tmp_path):
    claims = _claims_dir(tmp_path)
    rel, paper, caption = next(figure for figure in published.KEY_FIGURES if figure[0].startswith("timing/"))
    results, figures = _run_tree(tmp_path / "untitled")
    _figure(figures / rel, "Speed-up against samples")
    with pytest.raises(ValueError, match=f"does not name {published.PAPER_IN_TITLE[paper]} and Fig. 2"):
        published.publish(results, figures, tmp_path / "out1", claims_dir=claims, **TOLD)
    results, figures = _run_tree(tmp_path / "wide")
    _figure(figures / rel, f"{published.PAPER_IN_TITLE[paper]} {caption}", panels=6)
    with pytest.raises(ValueError, match="6 panels, more than 4"):
        published.publish(results, figures, tmp_path / "out2", claims_dir=claims, **TOLD)
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
    claims = _claims_dir(repository / "config")
    _git(repository, "init", "-q")
    _git(repository, "add", ".")
    _git(repository, "commit", "-q", "-m", "one")
    head = _git(repository, "rev-parse", "HEAD")
    results, figures = _run_tree(tmp_path / "run", revision=head)
    out = repository / "docs" / "results"
    (out / "old.md").write_text("being republished\n")  # what publishing writes is no uncommitted change
    assert published.code_problems(results, repository) == {}
    stamp = published.publish(results, figures, out, repository, claims_dir=claims)["families"]["timing"]
    assert stamp["run_git_revisions"] == [head] and stamp["published_from_git_revision"] == head + "-dirty"

    (repository / "code.py").write_text("x = 2\n")
    with pytest.raises(ValueError, match=r"uncommitted changes \(code.py\).*--allow-dirty"):
        published.publish(results, figures, out, repository, claims_dir=claims)
    told = published.publish(results, figures, out, repository, claims_dir=claims, allow_dirty=True)
    assert told["families"]["ising10"]["checks_overridden"] == ["dirty"]
    _git(repository, "commit", "-q", "-am", "two")
    with pytest.raises(ValueError, match=f"made at {head}, not at the checked-out .*--allow-other-commit"):
        published.publish(results, figures, out, repository, claims_dir=claims)
    assert published.publish(results, figures, out, repository, claims_dir=claims, allow_other_commit=True)


def test_relabel_converts_a_single_stamp_and_refreshes_words_but_never_verdicts(tmp_path):
    """A table published before per-family provenance (no family column, one stamp) is converted with the run's
    stamp carried to every family; a row moved beyond the papers moves without a run, its family's stamp says by
    which claims files; a changed criterion is refused (its family needs a run)."""
    claims = _claims_dir(tmp_path)
    out = tmp_path / "docs" / "results"
    published.publish(*_run_tree(tmp_path / "run"), out, claims_dir=claims, **TOLD)
    provenance = json.loads((out / "provenance.json").read_text())
    table = pd.read_csv(out / "paper_vs_ours.csv", dtype=str, keep_default_na=False)
    table["paper"] = table["paper"].replace({"Beyond the papers": "DoGS"})  # as before the row moved
    table.drop(columns="family").to_csv(out / "paper_vs_ours.csv", index=False)
    stamp = provenance["families"]["timing"]
    (out / "provenance.json").write_text(json.dumps({
        "run_git_revisions": stamp["run_git_revisions"], "table_written": stamp["measured"],
        "published": stamp["published"], "published_from_git_revision": stamp["published_from_git_revision"],
        "checks_overridden": stamp["checks_overridden"], "machine": stamp["machine"], "table": [],
        "figures": [{k: v for k, v in item.items() if k != "family"} for item in provenance["figures"]],
        "png_bytes": provenance["png_bytes"]}))
    converted = published.relabel(out, claims)
    again = pd.read_csv(out / "paper_vs_ours.csv", dtype=str, keep_default_na=False)
    assert list(again["verdict"]) == list(table["verdict"]) and list(again["ours"]) == list(table["ours"])
    assert again.set_index("id").at["ising10_ours", "paper"] == "Beyond the papers"
    assert converted["figures"] == provenance["figures"]
    assert converted["families"]["timing"] == stamp  # its rows' words did not change
    assert converted["families"]["ising10"]["relabelled"][0]["date"]
    assert {k: v for k, v in converted["families"]["ising10"].items() if k != "relabelled"} == stamp
    files = _files(out)
    assert published.relabel(out, claims)["families"] == converted["families"] and _files(out) == files  # idempotent
    rows = yaml.safe_load((claims / "test.yaml").read_text())
    fresh = {**rows[0], "id": "fresh_0", "family": "fresh"}  # a new family's row, before its first publish
    (claims / "test.yaml").write_text(yaml.safe_dump([*rows, fresh], sort_keys=False))
    assert published.relabel(out, claims)["families"] == converted["families"] and _files(out) == files
    rows[0]["criterion"] = {"reproduced": [{"at_most": 0.1}]}
    (claims / "test.yaml").write_text(yaml.safe_dump(rows, sort_keys=False))
    with pytest.raises(ValueError, match="criterion of ising10_0 changed: republish"):
        published.relabel(out, claims)
    assert _files(out) == files


# ---- the compact table

def test_short_forms_drop_parentheses_keep_the_first_clause_and_cut_at_a_word():
    assert published.shorten("DoGS setup (bound, epsilon (nested)) on 10^6 variables", 80) == "DoGS setup on 10^6 variables"
    assert published.shorten("mode 16 over 4 grids (3 of 4); Fig. 2 grid: bound", 80, first_clause=True) == "mode 16 over 4 grids"
    assert published.shorten("one two three four", 12) == "one two…"
    assert published.shorten("-", 10) == published.shorten("(only a note)", 10) == "—"
    assert published.markdown_text("|bias| of X_1 <= 2*s, $5") == "\\|bias\\| of X\\_1 \\<= 2\\*s, \\$5"


def test_the_compact_table_has_one_line_per_claim_each_linked_to_its_reading_and_run(tmp_path):
    out = tmp_path / "out"
    published.publish(*_run_tree(tmp_path), out, claims_dir=_claims_dir(tmp_path), **TOLD)
    page = (out / "paper_vs_ours.md").read_text()
    compact = page[page.index(published.COMPACT_BEGIN):page.index(published.COMPACT_END)]
    lines = [line for line in compact.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert len(lines) == 5 and "🔴 not reproduced" in lines[1] and all(line.count(" | ") == 5 for line in lines)
    for row_id in ("ising10_0", "timing_1", "ising10_ours"):
        family = row_id.split("_")[0]
        assert f"(#claim-{row_id}) · [run](#run-{family})" in compact
        assert f'<a id="claim-{row_id}"></a>`{row_id}`: reading of' in page or row_id == "ising10_ours"
    assert "beyond the papers, counted apart, 1: 1 information" in compact
    provenance = json.loads((out / "provenance.json").read_text())
    assert published.compose_markdown(out / "paper_vs_ours.csv", provenance) == page  # recomposing changes nothing


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
    stamp = json.loads((PUBLISHED / "provenance.json").read_text())
    # every row of a published family is published; a family never published (a new one, no paper-scale run yet:
    # no stamp and no row) enters when its run is (docs/contributing.md, "How to add an experiment")
    claim_rows = load_paper_claims(ROOT / "config" / "claims")
    claim_ids = [row["id"] for row in claim_rows if row["family"] in stamp["families"]]
    assert sorted(table["id"]) == sorted(claim_ids), "docs/results/paper_vs_ours.csv is stale: run `snakemake docs_results`"
    assert published.readme_verdict_block(README) == published.readme_block(table_csv), (
        "README.md's verdict counts disagree with docs/results/paper_vs_ours.csv: run "
        "`python -m dogs.workflow.published readme`")
    page = (PUBLISHED / "paper_vs_ours.md").read_text(encoding="utf-8")
    assert published.compose_markdown(table_csv, stamp) == page, (
        "docs/results/paper_vs_ours.md is not the page of docs/results/paper_vs_ours.csv and provenance.json: run "
        "`python -m dogs.workflow.published table`")
    # every row names the family whose run produced it, and every family has its stamp; so does every figure
    assert set(table["family"]) == set(stamp["families"]), "a published row's family has no provenance entry"
    for family, run in stamp["families"].items():
        assert run["run_git_revisions"] and run["measured"] and run["machine"], family
    assert stamp["png_bytes"] <= published.MAX_PNG_BYTES
    for item in stamp["figures"]:
        assert (PUBLISHED / item["file"]).is_file(), item["file"]
        assert item["family"] in stamp["families"] and item["family"] == published.figure_family(item["file"][8:])
    rows = {row["id"]: row for row in load_paper_claims(ROOT / "config" / "claims")}
    assert all(rows[row_id]["family"] == family for row_id, family in zip(table["id"], table["family"]))
    assert all(rows[row_id]["paper"] == paper for row_id, paper in zip(table["id"], table["paper"])), (
        "a row moved between a paper and beyond the papers: `python -m dogs.workflow.published relabel`")


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
