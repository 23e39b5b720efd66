"""The documentation: the site builds with warnings as errors, every code block of the docs runs, and the generated
reference pages cannot miss a config key or a command option.

Code blocks. Every fenced ```python block of ``docs/**/*.md`` and ``README.md`` is executed, each on its own in a
fresh namespace and an empty working directory, as a reader would paste it. Every fenced shell block (```bash,
```sh, ```shell, ```console) of the docs pages is executed too when it holds only ``dogs ...`` commands: on a
small model (a 4x50 grid) written to ``model.uai``, with evidence on two variables in ``model.uai.evid``, in the working directory, through ``dogs.cli.main`` in this process
(a line ``.venv/bin/dogs scan model.uai --out scan.txt`` runs as ``main(["scan", "model.uai", "--out",
"scan.txt"])``), and it must exit 0. A block that must not run says so, with the reason, in an HTML comment on the
line right above its fence (invisible on GitHub and on the site)::

    <!-- not run: paper scale; tests/test_workflow.py runs the targets at smoke scale -->

A block written as ``{code-block}`` is shown, never run. The README's shell blocks (install, the paper-scale run,
the test command) are not held to the marker: ``.ci/run`` runs its install and test commands, and the smoke
workflow its targets.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import shlex
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "_ext"))

import dogs_docs  # noqa: E402  (docs/_ext, the generator of the site's reference pages)
from cpu_limited import SMALL_RUN_CPU_SECONDS, run  # noqa: E402
from dogs.workflow.families import full_schema  # noqa: E402

SHELL = {"bash", "sh", "shell", "console"}
FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", re.M | re.S)
NOT_RUN = re.compile(r"<!--\s*not run[^:]*:\s*(\S[^>]*?)\s*-->")


def doc_pages() -> list[Path]:
    """The hand-written Markdown pages of the site (not the generated ones, not build output)."""
    return sorted(p for p in DOCS.rglob("*.md") if not {"_build", "generated"} & set(p.relative_to(DOCS).parts))


def code_blocks(path: Path):
    """``(language, code, reason it is not run or None, line)`` of every fenced block of ``path``."""
    text = path.read_text(encoding="utf-8")
    for match in FENCE.finditer(text):
        before = text[:match.start()].rstrip("\n").splitlines()
        comments = []
        while before and before[-1].strip().startswith("<!--"):
            comments.append(before.pop())
        reason = next((m.group(1) for c in comments for m in [NOT_RUN.search(c)] if m), None)
        yield match.group(1), match.group(2), reason, text.count("\n", 0, match.start()) + 1


def _blocks(languages, files):
    return [pytest.param(path, code, id=f"{path.relative_to(ROOT)}:{line}")
            for path in files for language, code, reason, line in code_blocks(path)
            if language in languages and reason is None]


PYTHON_BLOCKS = _blocks({"python"}, doc_pages() + [ROOT / "README.md"])
SHELL_BLOCKS = _blocks(SHELL, doc_pages())


@pytest.mark.parametrize(("path", "code"), PYTHON_BLOCKS)
def test_python_block_runs(path, code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        exec(compile(code, str(path), "exec"), {"__name__": "__main__"})


def _tiny_model(path: Path, rows: int = 4, cols: int = 50) -> None:
    """A 4x50 Ising grid in the UAI format, couplings 0.25 (DoGS §5.2's largest), a small field: 200 variables, so
    the docs' 2000-step scans are 10 sweeps, their certificates are not vacuous and length doubling reaches the
    base scan's variation; treewidth 4, so ``dogs exact`` is instant; few variables, so ArviZ's diagnostics of
    ``dogs sample`` are cheap."""
    n = rows * cols
    edges = [(cols * r + c, cols * r + c + 1) for r in range(rows) for c in range(cols - 1)]
    edges += [(cols * r + c, cols * (r + 1) + c) for r in range(rows - 1) for c in range(cols)]
    agree, disagree = float(np.exp(0.25)), float(np.exp(-0.25))
    lines = ["MARKOV", str(n), " ".join(["2"] * n), str(n + len(edges))]
    lines += [f"1 {i}" for i in range(n)] + [f"2 {i} {j}" for i, j in edges]
    lines += ["", *(["2", "1.0 1.1", ""] * n), *(["4", f"{agree!r} {disagree!r} {disagree!r} {agree!r}", ""] * len(edges))]
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize(("path", "code"), SHELL_BLOCKS)
def test_shell_block_runs(path, code, tmp_path, monkeypatch):
    from dogs.cli import main

    monkeypatch.chdir(tmp_path)
    _tiny_model(tmp_path / "model.uai")
    (tmp_path / "model.uai.evid").write_text("2 0 1 7 0\n")  # evidence for the blocks that show --evidence
    commands = [line.split(" #")[0].strip() for line in code.replace("\\\n", " ").splitlines()]
    commands = [c for c in commands if c and not c.startswith("#")]
    assert commands, f"{path}: an empty shell block"
    for command in commands:
        argv = shlex.split(command)
        assert Path(argv[0]).name == "dogs", (
            f"{path}: cannot run {command!r} here; run it on tiny inputs in this test or mark the block "
            "'<!-- not run: <reason> -->' (this module's docstring)")
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as errors:
            status = main(argv[1:])
        assert status == 0, f"{path}: {command!r} exited {status}: {errors.getvalue()}"


def test_every_shell_block_of_the_docs_is_run_or_says_why_not():
    found = [(path, line) for path in doc_pages() for language, _, reason, line in code_blocks(path)
             if language in SHELL and reason is None]
    assert len(found) == len(SHELL_BLOCKS)
    assert SHELL_BLOCKS, "no shell block of the docs is run: the dogs examples of docs/library.md are gone?"
    assert PYTHON_BLOCKS, "no python block of the docs is run"


def test_the_block_finder_sees_markers_and_fences(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("text\n\n<!-- not run: needs a cluster -->\n```bash\nsnakemake --profile x\n```\n\n"
                    "<!-- a label -->\n```python\nprint(1)\n```\n\n```{code-block} python\nnever run\n```\n")
    assert [(language, reason) for language, _, reason, _ in code_blocks(page)] == [
        ("bash", "needs a cluster"), ("python", None)]


# ---------------------------------------------------------------------------------------------- generated pages
def test_every_schema_key_has_a_description():
    schema = full_schema(ROOT)
    missing = dogs_docs.undocumented_schema_keys(schema)
    assert not missing, (f"config schema keys (config/schema.yaml, config/families/*.yaml) without a description "
                         f"(the configuration reference is generated from them): {missing}")


def test_an_undocumented_schema_key_is_found():
    schema = {"properties": {"a": {"type": "object", "description": "A.", "properties": {
        "b": {"type": "integer"}, "c": {"type": "array", "description": "C.", "items": {
            "type": "object", "properties": {"d": {"type": "number", "description": " "}}}}}},
        "e": {"type": "object", "description": "E.", "additionalProperties": {
            "type": "object", "properties": {"f": {"type": "string"}}}}}}
    assert dogs_docs.undocumented_schema_keys(schema) == ["a.b", "a.c[].d", "e.*.f"]


def test_every_cli_option_has_help():
    from dogs.cli import build_parser

    missing = dogs_docs.undocumented_cli_options(build_parser())
    assert not missing, f"options of the dogs command without help (the command reference is generated from it): {missing}"


def test_an_option_without_help_is_found():
    parser = argparse.ArgumentParser(prog="tool")
    sub = parser.add_subparsers(dest="command")
    documented = sub.add_parser("go", help="go somewhere")
    documented.add_argument("--fast", action="store_true", help="quickly")
    documented.add_argument("--far")
    sub.add_parser("stay")
    assert sorted(dogs_docs.undocumented_cli_options(parser)) == ["tool go --far", "tool stay"]


def test_the_reference_pages_list_every_key_and_option():
    from dogs.cli import build_parser

    schema = full_schema(ROOT)
    page = dogs_docs.configuration_reference(ROOT)
    missing = [key for key, _ in dogs_docs.schema_keys(schema) if f"`{key}`" not in page]
    assert not missing, f"keys missing from the configuration reference: {missing}"
    parser = build_parser()
    page = dogs_docs.cli_reference(parser)
    options = {(name, s) for name, _, sub in dogs_docs._subparsers(parser) for a in dogs_docs._options(sub)
               for s in a.option_strings}
    sections = dict(re.findall(r"^## `dogs (\w+)`\n(.*?)(?=^## |\Z)", page, re.M | re.S))
    missing = [(name, s) for name, s in options if f"`{s}`" not in sections.get(name, "")]
    assert options and not missing, f"options missing from the command reference: {missing}"


def test_every_claim_row_is_on_a_paper_page():
    from dogs.claims import load_paper_claims

    rows = load_paper_claims(ROOT / "config" / "claims")
    shown = {row["id"] for _, _, belongs in dogs_docs.PAPERS for row in rows if belongs(row)}
    assert shown == {row["id"] for row in rows}, f"claim rows on no paper page: {sorted({r['id'] for r in rows} - shown)}"


def test_the_paper_pages_name_existing_targets():
    rules = set(re.findall(r"^rule (\w+):", "\n".join(
        p.read_text() for p in [ROOT / "Snakefile", *sorted((ROOT / "rules").glob("*.smk"))]), re.M))
    named = {name for page in sorted((DOCS / "papers").glob("*.md"))
             for name in re.findall(r"`((?:fig|table)\w*)`", page.read_text(encoding="utf-8"))}
    assert named and not named - rules, f"targets named on the paper pages that no rule defines: {sorted(named - rules)}"


def test_a_committed_results_table_shows_on_the_paper_pages(tmp_path):
    from dogs.claims import load_paper_claims

    rows = [row for row in load_paper_claims(ROOT / "config" / "claims") if row["paper"] == "DoGS"][:2]
    table = tmp_path / "paper_vs_ours.csv"
    table.write_text("id,ours,verdict,verdict_by_seed\n"
                     f"{rows[0]['id']},\"0.5, as measured\",reproduced,reproduced / partly\n")
    results = dogs_docs.results_table(table)
    page = dogs_docs.claims_page("dogs", "DoGS", rows, results)
    assert "1 reproduced (1 of 2 rows)" in page
    assert "*Ours.* 0.5, as measured — **reproduced** (by draw: reproduced / partly)" in page
    assert dogs_docs.results_table(tmp_path / "absent.csv") == {}
    assert "No results table is committed" in dogs_docs.claims_page("dogs", "DoGS", rows, {})


def test_every_published_figure_shows_on_its_paper_page(tmp_path):
    from dogs.workflow.published import KEY_FIGURES

    provenance = DOCS / "results" / "provenance.json"
    pages = {stem: dogs_docs.figures_page(stem, provenance) for stem in dogs_docs.FIGURE_PAPERS}
    home = {"DoGS": "dogs", "He et al. 2016": "he2016", "Annular augmentation": "annular"}
    for rel, paper, caption in KEY_FIGURES:
        shown = {stem for stem, page in pages.items() if f"../results/figures/{rel}" in page and caption in page}
        assert home[paper] in shown, f"{rel} is not on the page of its paper, {paper}"
    assert "mcmc_mle/fig3" in pages["liu-domke"]  # the projection runs inside DoGS Fig. 3
    for page in (DOCS / "papers").glob("*.md"):
        if page.stem in dogs_docs.FIGURE_PAPERS:
            assert f"../generated/figures-{page.stem}.md" in page.read_text(encoding="utf-8")
    assert "No published figures" in dogs_docs.figures_page("dogs", tmp_path / "absent.json")


def test_every_table_row_has_its_header_s_cells():
    """A ``|`` inside a cell (in code too) must be written ``\\|``: otherwise it splits the cell, and the row loses
    its end on GitHub and on the site."""
    wrong = []
    for page in doc_pages() + [ROOT / "README.md"]:
        text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
        for table in re.findall(r"(?:^\|.*\n)+", text, re.M):
            rows = [len(re.findall(r"(?<!\\)\|", line.strip())) for line in table.splitlines()]
            wrong += [f"{page.relative_to(ROOT)}: {line[:80]}" for line, n in zip(table.splitlines(), rows) if n != rows[0]]
    assert not wrong, f"table rows with more or fewer cells than their header: {wrong}"


def test_the_committed_reference_pages_are_current():
    """The reference pages that hand-written pages link to are committed (the links work on GitHub too) and must be
    what the sources make (the site build rewrites them; this runs before it)."""
    stale = [name for name, text in dogs_docs.committed_pages(ROOT).items()
             if not (DOCS / "generated" / name).is_file()
             or (DOCS / "generated" / name).read_text(encoding="utf-8") != text]
    assert not stale, f"docs/generated/{stale} are stale: run `python docs/_ext/dogs_docs.py` and commit them"


def test_every_link_of_the_hand_written_pages_works_on_github_too():
    """Every relative link of the docs pages and the README names a file of the repository, none of the generated
    pages but the committed ones (a link to a page made only by the site build is broken on GitHub)."""
    committed = {DOCS / "generated" / name for name in dogs_docs.committed_pages(ROOT)}
    broken = []
    for page in doc_pages() + [ROOT / "README.md"]:
        text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            path = target.split("#", 1)[0]
            if not path or re.match(r"[a-z]+:", path):
                continue
            resolved = (page.parent / path).resolve()
            generated = DOCS / "generated" in resolved.parents
            if not resolved.exists() or (generated and resolved not in committed):
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken, f"links that do not work on GitHub: {broken}"


# ---------------------------------------------------------------------------------------------- the site
@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The whole site built with warnings as errors, notebooks executed afresh (no cache: a library change that
    breaks a tutorial fails here). No clock: each process (Sphinx, every notebook kernel) gets a CPU-time limit,
    and the per-cell time limit is lifted (tests/cpu_limited.py)."""
    html = tmp_path_factory.mktemp("site") / "html"
    env = {**os.environ, "MPLBACKEND": "Agg", "PYDEVD_DISABLE_FILE_VALIDATION": "1"}
    proc = run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "-D", "nb_execution_mode=force",
                "-D", "nb_execution_timeout=-1", str(DOCS), str(html)], cwd=ROOT, env=env,
               cpu_seconds=SMALL_RUN_CPU_SECONDS)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return html


def test_the_site_builds_with_warnings_as_errors(site):
    tutorial = (site / "tutorials" / "dogs-on-your-model.html").read_text(encoding="utf-8")
    assert "E[X_1] =" in tutorial, "the tutorial's cells did not run"
    assert "r_hat" in (site / "tutorials" / "pgmpy-arviz.html").read_text(encoding="utf-8")
    assert "dogs.scans.dogs_scan" in (site / "generated" / "api-scans.html").read_text(encoding="utf-8")
    for stem, _, _ in dogs_docs.PAPERS:
        assert (site / "papers" / f"{stem}.html").is_file()


def _pages(site: Path) -> dict[str, str]:
    return {str(path.relative_to(site)): path.read_text(encoding="utf-8") for path in sorted(site.rglob("*.html"))}


#: Tags by which a page loads something (scripts, styles, images, frames, media) and the URL they load.
_LOADS = re.compile(r"<(?:script|img|iframe|source|link|embed)\b[^>]*?\b(?:src|href)=[\"']([^\"']*)[\"']", re.I)


def test_the_built_site_fetches_nothing_from_the_network(site):
    """Offline math and no external script: every URL a page loads is a file of the site (MathJax included)."""
    external = sorted({(name, url) for name, text in _pages(site).items() for url in _LOADS.findall(text)
                       if re.match(r"(https?:)?//", url)})
    assert not external, f"pages load from the network: {external[:10]}"
    bounds = (site / "generated" / "api-bounds.html").read_text(encoding="utf-8")
    assert 'class="math' in bounds and "_static/mathjax/tex-chtml.js" in bounds
    assert (site / "_static" / "mathjax" / "tex-chtml.js").is_file()


def test_every_figure_opens_at_full_size(site):
    """Every image of the site links to its own file (Sphinx's link to the full-size image, for a figure shown
    scaled to the page): clicking shows it at full size."""
    found, unlinked = 0, []
    for name, text in _pages(site).items():
        for match in re.finditer(r"(<a\b[^>]*href=\"([^\"]*)\"[^>]*>\s*)?<img\b[^>]*src=\"([^\"]*)\"", text):
            source = match.group(3)
            if not source.endswith(".png") or "_static/" in source:
                continue
            found += 1
            if match.group(2) != source:
                unlinked.append((name, source))
    assert found >= 8 and not unlinked, f"{found} figures; not linked to their full size: {unlinked}"


def test_the_tutorials_show_no_warning(site):
    for page in sorted((site / "tutorials").glob("*.html")):
        errors = re.findall(r'<div class="output stderr.*?</div>', page.read_text(encoding="utf-8"), re.S)
        assert not [e for e in errors if "Warning" in e], f"{page.name} shows a warning: {errors}"


def test_the_verdict_page_has_every_claim_in_its_tabs(site):
    from dogs.workflow.published import compact_rows

    rows = compact_rows(ROOT / "docs" / "results" / "paper_vs_ours.csv")
    page = (site / "verdicts.html").read_text(encoding="utf-8")
    for row in rows:
        assert f"#claim-{row['id'].replace('_', '-').lower()}" in page, row["id"]
    assert page.count("sd-badge") >= 3 * len(rows)  # each row in "All", in its paper's tab and its verdict's tab
    assert "sidebar-secondary" not in page  # the whole width for the table
