"""Results you can see without running: the paper-vs-ours table and a few key figures, published in ``docs/results/``.

``snakemake docs_results`` (``rules/paper_vs_ours.smk``) runs :func:`publish`: from the results and
figures folders of a paper-scale run, it judges the rows of each published experiment family (the family's measured
claims, ``<results>/claims/<family>.json``, against ``config/claims/``), copies that family's figures of
:data:`KEY_FIGURES` (the ones that show each paper's main claims, at most :data:`MAX_PNG_BYTES` of PNG in all) into
``docs/results/`` and stamps the family in ``docs/results/provenance.json`` (:data:`PROVENANCE`): the git revision(s)
its results' sidecars record, the date it was measured, the machine and the revision of the repository that
published it. Every row of the published table names its family (column ``family``), so every row has a run.

By default every family with rows in ``config/claims/`` is published; ``--families`` (Snakemake: ``--config
publish_families=[name,...]``) republishes only those, from a paper-scale run of those families alone: the other
families' rows, figures and provenance entries stay as they are, byte for byte. It refuses a smoke run's claims,
whose numbers are not comparable with the papers', a family whose run left a row unmeasured, and, unless told
(``--allow-dirty``, ``--allow-other-commit``; Snakemake: ``--config publish_allow_dirty=True
publish_allow_other_commit=True``), a repository with uncommitted changes (outside ``docs/results/`` and
``README.md``, which it writes) or a family whose results were made at another commit than the one checked out, so
that the stamp always names the code that made them. Every check runs before anything is written, and each file is
replaced whole (:func:`dogs.io.atomic_path`): a refused publish leaves the published files as they were.

A change of ``config/claims/`` that does not change how a row is judged (a row moved between a paper and
:data:`dogs.claims.BEYOND_THE_PAPERS`, a reworded claim or reading) needs no run: :func:`relabel` (``python -m
dogs.workflow.published relabel``) refreshes the published rows' words from the claims files, refuses a row whose
criterion changed (that needs its family republished), and records the commit whose claims files it applied in each
family's provenance entry. It also converts a table published before per-family provenance (one stamp for the whole
run) into this layout, the run's stamp carried over to every family.

The published ``paper_vs_ours.md`` leads with a compact table, one line per claim (:func:`compact_table`: paper,
where, a short claim, the verdict, the paper's value against ours, links to the row's reading and to its family's
run), then the runs that produced the rows, then the full table (:func:`compose_markdown`; ``python -m
dogs.workflow.published table`` recomposes it from the published CSV and provenance). The short forms
(:func:`compact_rows`) are cut from the table's own cells: parentheses dropped, first clause kept, long text cut at a
word; the full row and the reading are one link away. The site's verdict page (``docs/_ext/dogs_docs.py``) shows
the same rows.

The README's verdict counts are not written by hand: :func:`rewrite_readme` replaces the block between
:data:`BEGIN` and :data:`END` of ``README.md`` with one line per paper counted from the published table, a total over
the papers and, apart, the rows beyond the papers (``python -m dogs.workflow.published readme``; ``docs_results``
does it too), and the tests fail when the two disagree (:func:`readme_block` of the committed table is compared with
the README's block).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pandas as pd

from dogs.claims import (BEYOND_THE_PAPERS, PAPER_ORDER, VERDICTS, category_key, describe, is_beyond_the_papers,
                         load_measured, load_paper_claims)
from dogs.io import atomic_path, git_revision, machine_info, read_json

__all__ = [
    "BEGIN",
    "END",
    "KEY_FIGURES",
    "MAX_PNG_BYTES",
    "PAPER_ORDER",
    "PROVENANCE",
    "compact_rows",
    "compact_table",
    "compose_markdown",
    "main",
    "publish",
    "publish_families",
    "readme_block",
    "relabel",
    "rewrite_readme",
    "verdict_counts",
]

#: The published figures, ``(path under the figures folder, paper, figure)``: each paper's main claims, one or two
#: figures each (the rest are one ``snakemake`` target away, README's figure index).
KEY_FIGURES = (
    ("ising10/fig1_guarantees_rep0.png", "DoGS", "Fig. 1 (§5.1): guarantees of the four scans"),
    ("timing/fig2_L1000.png", "DoGS", "Fig. 2 (§5.2): end-to-end speed-up on 10^6 variables"),
    ("mcmc_mle/fig3_parameter_error.png", "DoGS", "Fig. 3 (§5.3): MCMC maximum likelihood"),
    ("ising40/fig5_torus_guarantees_bias.png", "DoGS", "Fig. 5 (§5.4): marginal guarantees and bias"),
    ("msrc/fig7_hamming_error.png", "DoGS", "Fig. 7 (§5.5): MSRC segmentation error"),
    ("scan_order/fig2a_mixing_time_vs_n.png", "He et al. 2016", "Fig. 2a: mixing time against n"),
    ("annular_ising/fig3_heatmaps.png", "Annular augmentation", "Fig. 3: 9x9 Ising heatmaps (multimodal)"),
    ("boltzmann/fig8_fraction_within.png", "Annular augmentation", "Fig. 8: Boltzmann-machine posteriors"),
)
#: At most this many bytes of PNG are published (the repository carries them in every clone).
MAX_PNG_BYTES = 3 * 2**20
#: The markers of the README's generated block.
BEGIN = "<!-- verdicts: generated by `python -m dogs.workflow.published readme` from docs/results/paper_vs_ours.csv -->"
END = "<!-- /verdicts -->"
TABLE = "paper_vs_ours.csv"
PAGE = "paper_vs_ours.md"
#: The provenance file of the published results: ``{"families": {family: its run's stamp}, "figures": [...],
#: "png_bytes": n}``; a stamp holds ``run_git_revisions``, ``measured``, ``published``,
#: ``published_from_git_revision``, ``checks_overridden``, ``machine`` (the publishing one, where the run's results
#: are) and, when the rows' words were refreshed from later claims files without a run (:func:`relabel`),
#: ``relabelled``. A converted stamp of a whole-run publish gives the table's date as ``measured``.
PROVENANCE = "provenance.json"
#: The columns of a published row that come from the claims files, not from the run (:func:`relabel` refreshes them).
WORDED_COLUMNS = ("paper", "where", "claim", "paper_value", "quantity", "reading", "paper_evidence")


def figure_family(rel: str) -> str:
    """The experiment family of a key figure: the first folder of its path under the figures folder."""
    return rel.split("/", 1)[0]


def verdict_counts(table_csv: str | os.PathLike) -> dict[str, Counter]:
    """``{paper: Counter(verdict)}`` of a paper-vs-ours CSV, papers in :data:`PAPER_ORDER` (others after, by name),
    the rows beyond the papers last (:func:`dogs.claims.category_key`)."""
    table = pd.read_csv(table_csv, dtype=str, keep_default_na=False)
    missing = {"paper", "verdict"} - set(table.columns)
    if missing:
        raise ValueError(f"{table_csv}: not a paper-vs-ours table (no column {sorted(missing)})")
    unknown = sorted(set(table["verdict"]) - set(VERDICTS))
    if unknown:
        raise ValueError(f"{table_csv}: unknown verdicts {unknown} (known: {', '.join(VERDICTS)})")
    papers = sorted(set(table["paper"]), key=category_key)
    return {paper: Counter(table.loc[table["paper"] == paper, "verdict"]) for paper in papers}


def _count_text(counts: Counter) -> str:
    return ", ".join(f"{counts[v]} {v}" for v in VERDICTS if counts[v])


def _papers_total(counts: dict[str, Counter]) -> Counter:
    return sum((c for paper, c in counts.items() if not is_beyond_the_papers(paper)), Counter())


def readme_block(table_csv: str | os.PathLike) -> str:
    """The README's verdict block (markers included) for the table ``table_csv``: one line per paper, the total over
    the papers and, counted apart, the rows beyond the papers."""
    counts = verdict_counts(table_csv)
    lines = [BEGIN]
    for paper, paper_counts in counts.items():
        if not is_beyond_the_papers(paper):
            lines.append(f"- **{paper}** ({sum(paper_counts.values())} claims): {_count_text(paper_counts)}")
    total = _papers_total(counts)
    lines.append(f"- **All papers** ({sum(total.values())} claims): {_count_text(total)}")
    if BEYOND_THE_PAPERS in counts:
        beyond = counts[BEYOND_THE_PAPERS]
        lines.append(f"- **{BEYOND_THE_PAPERS}** ({sum(beyond.values())} rows of ours, counted apart): "
                     f"{_count_text(beyond)}")
    lines.append(END)
    return "\n".join(lines)


#: How each verdict shows in the compact table on GitHub (a coloured mark, then the word).
VERDICT_MARKS = {"reproduced": "🟢", "partly": "🟡", "inconclusive": "🟣", "not reproduced": "🔴",
                 "information": "🔵", "needs data": "⚪", "not yet run": "⚪"}
#: The markers around the compact table of the published ``paper_vs_ours.md``.
COMPACT_BEGIN = ("<!-- compact table: generated by `python -m dogs.workflow.published table` from paper_vs_ours.csv; "
                 "the runs and the full table follow -->")
COMPACT_END = "<!-- /compact table -->"
FULL_HEADING = "## The full table"
#: Longest short form of each compact column, in characters (a cut one ends with "…").
SHORT_LIMITS = {"where": 40, "claim": 110, "paper_value": 45, "ours": 90}


def _drop_parentheses(text: str) -> str:
    previous = None
    while previous != text:
        previous, text = text, re.sub(r"\s*\([^()]*\)", "", text)
    return text


def shorten(text: str, limit: int, *, first_clause: bool = False) -> str:
    """``text`` without its parenthesised parts (and, with ``first_clause``, only up to its first ``;``), cut at a
    word to at most ``limit`` characters (a cut text ends with "…"); "—" when nothing is left."""
    text = _drop_parentheses(str(text))
    if first_clause:
        text = text.split(";", 1)[0]
    text = " ".join(text.split()).strip(" ,;:")
    if len(text) > limit:
        text = text[:limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:") + "…"
    return text if text.strip("-—") else "—"


def compact_rows(table_csv: str | os.PathLike) -> list[dict]:
    """The rows of a paper-vs-ours CSV in short form, in the table's order: ``id``, ``paper``, ``verdict``,
    ``family`` (empty in a table without it) as they are, ``where``, ``claim``, ``paper_value`` and ``ours`` cut by
    :func:`shorten` (:data:`SHORT_LIMITS`)."""
    verdict_counts(table_csv)  # refuses a file that is no paper-vs-ours table, and unknown verdicts
    table = pd.read_csv(table_csv, dtype=str, keep_default_na=False)
    return [{"id": row["id"], "paper": row["paper"], "verdict": row["verdict"], "family": row.get("family", ""),
             "where": shorten(row.get("where", ""), SHORT_LIMITS["where"]),
             "claim": shorten(row.get("claim", ""), SHORT_LIMITS["claim"]),
             "paper_value": shorten(row.get("paper_value", ""), SHORT_LIMITS["paper_value"], first_clause=True),
             "ours": shorten(row.get("ours", ""), SHORT_LIMITS["ours"], first_clause=True)}
            for _, row in table.iterrows()]


def markdown_text(text: str) -> str:
    """``text`` with every character that Markdown (GitHub's or MyST's, whose ``$`` starts math) could read as
    markup backslash-escaped, so that it shows as written, in a table cell too."""
    return re.sub(r"([\\`*_\[\]<>|$~{}])", r"\\\1", text)


def compact_table(rows: list[dict], reading=lambda row_id: f"[reading](#claim-{row_id})",
                  verdict=lambda v: f"{VERDICT_MARKS.get(v, '')} {v}".strip(),
                  run=lambda family: f"[run](#run-{family})") -> str:
    """The compact table (Markdown) of ``rows`` (:func:`compact_rows`): one line per claim, the verdict as
    ``verdict(v)`` shows it (default: a coloured mark and the word, for GitHub), the last cell ``reading(id)``
    (default: a link to the reading's anchor that :func:`compose_markdown` writes) and, for a row that names its
    family, ``run(family)`` (default: a link to its family's run; None: no link)."""
    lines = ["| paper | where | claim | verdict | paper → ours | row |", "|---|---|---|---|---|---|"]
    for row in rows:
        links = reading(row["id"]) + (f" · {run(row['family'])}" if run and row.get("family") else "")
        cells = [markdown_text(row["paper"]), markdown_text(row["where"]), markdown_text(row["claim"]),
                 verdict(row["verdict"]),
                 f"{markdown_text(row['paper_value'])} → {markdown_text(row['ours'])}", links]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


#: Where the rows of the published table come from (the full table's preamble).
PUBLISHED_SOURCE = ("Published by `snakemake docs_results` from each experiment family's paper-scale run (section "
                    "*Runs*; the column `family` of `paper_vs_ours.csv` names each row's run); do not edit by hand.")


def runs_markdown(provenance: dict) -> str:
    """The section *Runs* of the published page: the run that produced each family's rows, one line per stamp
    (families published together share one), each family with the anchor that the compact table's links point to."""
    lines = ["## Runs", "", "Each family's rows and figures come from one paper-scale run (`provenance.json`):", ""]
    shared: dict[str, list[str]] = {}
    for family, stamp in provenance["families"].items():
        shared.setdefault(json.dumps(stamp, sort_keys=True), []).append(family)
    for text, families in shared.items():
        stamp = json.loads(text)
        machine = stamp.get("machine", {})
        revisions = ", ".join(stamp["run_git_revisions"]) or "an unrecorded commit"
        overridden = f" (checks overridden: {', '.join(stamp['checks_overridden'])})" if stamp.get("checks_overridden") else ""
        relabelled = "".join(f"; words refreshed from the claims files of {item['git_revision']} on {item['date'][:10]}"
                             for item in stamp.get("relabelled", []))
        names = ", ".join(f'<a id="run-{family}"></a>`{family}`' for family in families)
        lines.append(f'- {names}: run of {revisions}, measured {stamp["measured"][:10]} on {machine.get("cores", "?")} '
                     f'cores ({machine.get("cpu", "?")}), published {stamp["published"][:10]} from '
                     f'{stamp["published_from_git_revision"]}{overridden}{relabelled}')
    return "\n".join(lines)


def compose_markdown(table_csv: str | os.PathLike, provenance: dict) -> str:
    """The published ``paper_vs_ours.md`` of ``table_csv`` and its ``provenance``: the compact table, the runs that
    produced the rows (:func:`runs_markdown`), then the full table, each reading of its list "How each criterion
    reads the paper" with the anchor that the compact table's links point to."""
    from dogs.experiments.paper_vs_ours import to_markdown

    table = pd.read_csv(table_csv, dtype=str, keep_default_na=False)
    counts = verdict_counts(table_csv)
    total = _papers_total(counts)
    beyond = counts.get(BEYOND_THE_PAPERS, Counter())
    title, _, body = to_markdown(table, smoke=False, source=PUBLISHED_SOURCE).partition("\n")
    body = re.sub(r"^- `([^`]+)`:", lambda m: f'- <a id="claim-{m.group(1)}"></a>`{m.group(1)}`:', body.strip("\n"),
                  flags=re.M)
    shown = total + beyond
    return "\n".join([
        title, "", COMPACT_BEGIN,
        f"One line per claim (the papers' {sum(total.values())}: {_count_text(total)}"
        + (f"; beyond the papers, counted apart, {sum(beyond.values())}: {_count_text(beyond)}" if beyond else "")
        + "); the paper's value and ours are cut short here (the full row is in the table below, *reading* links to "
        "how its criterion reads the paper and *run* to the run that produced it). "
        "Verdicts: " + ", ".join(f"{VERDICT_MARKS[v]} {v}" for v in VERDICTS if shown[v]) + ".", "",
        compact_table(compact_rows(table_csv)), COMPACT_END, "", runs_markdown(provenance), "", FULL_HEADING, "", body,
        ""])


def _current_block(readme_text: str, readme: str | os.PathLike) -> tuple[int, int]:
    start, end = readme_text.find(BEGIN), readme_text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"{readme}: no generated verdict block (a line {BEGIN!r} ... {END!r})")
    return start, end + len(END)


def readme_verdict_block(readme: str | os.PathLike) -> str:
    """The generated block as it stands in ``readme``."""
    text = Path(readme).read_text(encoding="utf-8")
    start, end = _current_block(text, readme)
    return text[start:end]


def rewrite_readme(readme: str | os.PathLike, table_csv: str | os.PathLike) -> bool:
    """Replace the verdict block of ``readme`` by :func:`readme_block` of ``table_csv``; whether the file changed."""
    text = Path(readme).read_text(encoding="utf-8")
    start, end = _current_block(text, readme)
    new = text[:start] + readme_block(table_csv) + text[end:]
    if new != text:
        Path(readme).write_text(new, encoding="utf-8")
    return new != text


def _run_revisions(results_dir: Path, families=None) -> list[str]:
    """The git revisions recorded by the results' sidecars (``*.meta.json``) of ``families`` (their folders and their
    measured claims; all of the results folder when None), most frequent first (a smoke run's ``smoke/`` folder,
    which the default paper-scale results folder holds, left out)."""
    if families is None:
        sidecars = list(results_dir.rglob("*.meta.json"))
    else:
        sidecars = [path for family in families
                    for path in [*(results_dir / family).rglob("*.meta.json"),
                                 *(results_dir / "claims").glob(f"{family}.meta.json")]]
    found = Counter()
    for sidecar in sidecars:
        if "smoke" in sidecar.relative_to(results_dir).parts[:1]:  # a smoke run's results/smoke/, not this run's
            continue
        try:
            revision = json.loads(sidecar.read_text()).get("git_revision")
        except (OSError, ValueError):
            continue
        if revision:
            found[revision] += 1
    return [revision for revision, _ in found.most_common()]


#: How a figure's title names its paper (the figure token comes from its caption in :data:`KEY_FIGURES`).
PAPER_IN_TITLE = {"DoGS": "DoGS", "He et al. 2016": "He et al.", "Annular augmentation": "Annular augmentation"}


#: Most panels a published figure may have: more make its text too small to read at the site's page width.
MAX_PANELS = 4


def figure_metadata(path: str | os.PathLike) -> dict:
    """The text a PNG written by :func:`dogs.plotting.style.save_figure` carries: its ``Title`` (the suptitle)
    and its number of ``Panels``."""
    from PIL import Image

    with Image.open(path) as image:
        return dict(getattr(image, "text", {}))


def figure_problem(path, paper: str, caption: str) -> str | None:
    """Why the PNG ``path`` may not be published as the figure of ``caption``: its title does not name the paper
    figure it regenerates (its paper and the ``Fig. N`` that starts ``caption``), or it has more than
    :data:`MAX_PANELS` panels; None when neither."""
    text = figure_metadata(path)
    title = " ".join(str(text.get("Title", "")).split())
    figure = re.match(r"Figs?\. [\w.–-]+", caption).group(0).rstrip(".")
    missing = [name for name in (PAPER_IN_TITLE.get(paper, paper), figure)
               if not re.search(re.escape(name) + r"(?![\w])", title)]
    if missing:
        return f"{path}: its title {title!r} does not name {' and '.join(missing)}"
    if int(text.get("Panels", 0)) > MAX_PANELS:
        return f"{path}: {text['Panels']} panels, more than {MAX_PANELS} (split it: its text is too small on the site)"
    return None


def _git(repository, *args) -> str | None:
    try:
        out = subprocess.run(["git", *args], capture_output=True, text=True, timeout=60, cwd=repository)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout if out.returncode == 0 else None


def code_problems(results_dir, repository=".", families=None) -> dict[str, str]:
    """Why the stamp would not name the code that made the run's results, by check: ``dirty`` (uncommitted changes
    in ``repository`` outside ``docs/results/`` and ``README.md``, which publishing writes) and ``other_commit``
    (results of ``families``, all when None, made at another commit than the one checked out: the sidecars' git
    revisions, :func:`_run_revisions`; or no checkout at all)."""
    head = (_git(repository, "rev-parse", "HEAD") or "").strip()
    if not head:
        return {"other_commit": f"{Path(repository).resolve()} is not a git checkout: which code made the results "
                                "is unknown (--allow-other-commit publishes anyway)"}
    problems = {}
    changed = _git(repository, "status", "--porcelain", "--untracked-files=no", "--", ":/",
                   ":(top,exclude)docs/results", ":(top,exclude)README.md")
    if changed and changed.strip():
        files = [line[3:] for line in changed.splitlines() if line.strip()]
        problems["dirty"] = (f"the repository has uncommitted changes ({', '.join(files[:5])}"
                             f"{', ...' if len(files) > 5 else ''}): commit them, rerun, then publish "
                             "(--allow-dirty publishes anyway)")
    revisions = _run_revisions(Path(results_dir), families)
    if revisions != [head]:
        made = ", ".join(revisions) or "no recorded revision"
        problems["other_commit"] = (f"the run's results were made at {made}, not at the checked-out {head}: rerun at "
                                    "this commit (--allow-other-commit publishes anyway)")
    return problems


def publish_families(families=None, claims_dir="config/claims") -> list[str]:
    """The families ``snakemake docs_results`` publishes: ``families`` (config key ``publish_families``), checked
    against the families with rows in ``claims_dir`` when the workflow is planned, or all of those when None."""
    known = list(dict.fromkeys(row["family"] for row in load_paper_claims(claims_dir)))
    if families is None:
        return known
    if isinstance(families, str) or not all(isinstance(family, str) for family in families):
        raise ValueError(f"publish_families: a list of family names, got {families!r}")
    unknown = sorted(set(families) - set(known))
    if not families or unknown:
        raise ValueError(f"publish_families: no rows in {claims_dir} for {', '.join(unknown) or '(an empty list)'} "
                         f"(families with rows: {', '.join(known)})")
    return list(dict.fromkeys(families))


def _machine() -> dict:
    return {"hostname": platform.node(), "cpu": machine_info()["cpu"], "cores": os.cpu_count(),
            "system": f"{platform.system()} {platform.release()}", "python": platform.python_version()}


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def read_provenance(out_dir, claims_dir=None) -> dict:
    """The provenance of the results published in ``out_dir`` (:data:`PROVENANCE`); empty when nothing is published.

    A stamp written before per-family publishing (one for the whole run, with ``table_written``) is read as that
    stamp for every family of the published table (the families of its rows: their ``family`` column, else what
    ``claims_dir``, by default the repository's ``config/claims/``, gives their ids), its figures assigned to their
    families."""
    path = Path(out_dir) / PROVENANCE
    if not path.is_file():
        return {"families": {}, "figures": [], "png_bytes": 0}
    stamp = json.loads(path.read_text(encoding="utf-8"))
    if "families" in stamp:
        return stamp
    run = {"run_git_revisions": stamp["run_git_revisions"], "measured": stamp["table_written"],
           "published": stamp["published"], "published_from_git_revision": stamp["published_from_git_revision"],
           "checks_overridden": stamp["checks_overridden"], "machine": stamp["machine"]}
    families = _published_families(out_dir, claims_dir)
    return {"families": {family: dict(run) for family in families},
            "figures": [{**item, "family": figure_family(item["file"].removeprefix("figures/"))}
                        for item in stamp["figures"]],
            "png_bytes": stamp["png_bytes"]}


def _published_families(out_dir, claims_dir=None) -> list[str]:
    """The families of the published table's rows, in the table's order (a table published before its rows named
    their family: the families the claims files give its ids)."""
    table = pd.read_csv(Path(out_dir) / TABLE, dtype=str, keep_default_na=False)
    if "family" in table.columns:
        return list(dict.fromkeys(table["family"]))
    rows = {row["id"]: row["family"] for row in load_paper_claims(claims_dir or _claims_dir(out_dir))}
    unknown = sorted(set(table["id"]) - set(rows))
    if unknown:
        raise ValueError(f"{Path(out_dir) / TABLE}: rows with no family in the claims files: {', '.join(unknown)}")
    return list(dict.fromkeys(rows[row_id] for row_id in table["id"]))


def _claims_dir(out_dir) -> Path:
    """``config/claims/`` of the repository whose ``docs/results/`` is ``out_dir``."""
    return Path(out_dir).resolve().parents[1] / "config" / "claims"


def _ordered(table: pd.DataFrame, claim_rows: list[dict]) -> pd.DataFrame:
    """``table``'s rows in the claims files' order (:func:`dogs.claims.category_key`, then the files' order), rows
    that the claims files no longer hold last."""
    position = {row["id"]: n for n, row in enumerate(claim_rows)}
    keys = [(category_key(paper), position.get(row_id, len(position)))
            for paper, row_id in zip(table["paper"], table["id"])]
    return table.iloc[sorted(range(len(table)), key=keys.__getitem__)].reset_index(drop=True)


def _write_published(out_dir: Path, table: pd.DataFrame, provenance: dict, figures: dict[str, bytes]) -> None:
    """Write the published files, each replaced whole: the figures, the table, its page and the provenance."""
    for rel, data in figures.items():
        with atomic_path(out_dir / "figures" / rel) as tmp:
            tmp.write_bytes(data)
    with atomic_path(out_dir / TABLE) as tmp:
        table.to_csv(tmp, index=False)
    with atomic_path(out_dir / PROVENANCE) as tmp:
        tmp.write_text(json.dumps(provenance, indent=2) + "\n", encoding="utf-8")
    with atomic_path(out_dir / PAGE) as tmp:
        tmp.write_text(compose_markdown(out_dir / TABLE, provenance), encoding="utf-8")


def publish(results_dir, figures_dir, out_dir, repository=".", *, families=None, claims_dir=None,
            allow_dirty: bool = False, allow_other_commit: bool = False) -> dict:
    """Judge the rows of ``families`` (all with rows in ``claims_dir`` when None) from a paper-scale run, publish
    them with their :data:`KEY_FIGURES` in ``out_dir`` and stamp each family; the provenance.

    The other families' published rows, figures and stamps are kept as they are. Refuses (``ValueError``) before
    writing anything when a family's measured claims or a figure is missing, when the claims come from a smoke run or
    leave a row of the family unmeasured, when a figure's title does not name the paper figure it regenerates or it
    has more than :data:`MAX_PANELS` panels (:func:`figure_problem`), when the figures exceed :data:`MAX_PNG_BYTES`,
    and, unless ``allow_dirty`` / ``allow_other_commit``, when ``repository`` has uncommitted changes or the
    families' results were made at another commit (:func:`code_problems`).
    """
    from dogs.experiments.paper_vs_ours import build_table

    results_dir, figures_dir, out_dir = Path(results_dir), Path(figures_dir), Path(out_dir)
    claims_dir = Path(claims_dir) if claims_dir else Path(repository) / "config" / "claims"
    claim_rows = load_paper_claims(claims_dir)
    families = publish_families(families, claims_dir)
    measured_files = {family: results_dir / "claims" / f"{family}.json" for family in families}
    figures = [(rel, paper, caption) for rel, paper, caption in KEY_FIGURES if figure_family(rel) in families]
    missing = [str(path) for path in [*measured_files.values(), *(figures_dir / rel for rel, _, _ in figures)]
               if not path.is_file()]
    if missing:
        raise ValueError(f"not in the run's results (run the families at paper scale first): {', '.join(missing)}")
    smoke = [family for family, path in measured_files.items() if read_json(path).get("smoke", True)]
    if smoke:
        raise ValueError(f"the measured claims of {', '.join(smoke)} are from a smoke run: publish a paper-scale "
                         "run's results")
    rows = [row for row in claim_rows if row["family"] in families]
    new = build_table(rows, load_measured(list(measured_files.values())), smoke=False)
    unmeasured = list(new.loc[new["verdict"] == "not yet run", "id"])
    if unmeasured:
        raise ValueError(f"the run measured no value for {', '.join(unmeasured)}: rerun its family at this commit")
    unfit = [problem for rel, paper, caption in figures if (problem := figure_problem(figures_dir / rel, paper, caption))]
    if unfit:
        raise ValueError("; ".join(unfit))
    provenance = read_provenance(out_dir, claims_dir)
    key_files = [f"figures/{rel}" for rel, _, _ in KEY_FIGURES]
    kept_figures = [item for item in provenance["figures"] if item["family"] not in families and item["file"] in key_files]
    png_bytes = (sum((figures_dir / rel).stat().st_size for rel, _, _ in figures)
                 + sum((out_dir / item["file"]).stat().st_size for item in kept_figures))
    if png_bytes > MAX_PNG_BYTES:
        raise ValueError(f"the key figures hold {png_bytes / 2**20:.2f} MB of PNG, more than {MAX_PNG_BYTES / 2**20:.0f} MB")
    overridden = {"dirty": allow_dirty, "other_commit": allow_other_commit}
    problems = [text for check, text in code_problems(results_dir, repository, families).items()
                if not overridden[check]]
    if problems:
        raise ValueError("; ".join(problems))

    table = new
    if (out_dir / TABLE).is_file():
        old = pd.read_csv(out_dir / TABLE, dtype=str, keep_default_na=False)
        if "family" not in old.columns:
            raise ValueError(f"{out_dir / TABLE} names no family per row: convert it first (python -m "
                             "dogs.workflow.published relabel)")
        table = pd.concat([old[~old["family"].isin(families)], new], ignore_index=True)
    stamps = {family: {"run_git_revisions": _run_revisions(results_dir, [family]),
                       "measured": _dt.datetime.fromtimestamp(measured_files[family].stat().st_mtime,
                                                              _dt.timezone.utc).isoformat(timespec="seconds"),
                       "published": _now(), "published_from_git_revision": git_revision(repository),
                       "checks_overridden": [name for name, given in overridden.items() if given],
                       "machine": _machine()} for family in families}
    table = _ordered(table, sorted(claim_rows, key=lambda row: category_key(row["paper"])))
    order = list(dict.fromkeys(table["family"]))
    provenance = {
        "families": {family: stamps.get(family) or provenance["families"][family] for family in order},
        "figures": sorted(kept_figures + [{"file": f"figures/{rel}", "paper": paper, "figure": caption,
                                           "family": figure_family(rel)} for rel, paper, caption in figures],
                          key=lambda item: key_files.index(item["file"])),
        "png_bytes": png_bytes,
    }
    _write_published(out_dir, table, provenance, {rel: (figures_dir / rel).read_bytes() for rel, _, _ in figures})
    return provenance


def relabel(out_dir, claims_dir=None, repository=".") -> dict:
    """Refresh the words of the published rows (:data:`WORDED_COLUMNS` and ``family``) from ``claims_dir`` (default:
    the repository's ``config/claims/``) without a run; the provenance.

    The verdicts stay the run's: refused (``ValueError``) when a published row's criterion differs from its claims
    file's (its family must be republished from a run), or when the claims files hold a row of a published family
    that is not published or lost one that is (the rows of a family never published wait for its first publish).
    Each family whose rows changed records the commit whose claims files were applied (``relabelled`` in its stamp).
    A table published before per-family provenance is converted to this layout."""
    out_dir = Path(out_dir)
    claims_dir = Path(claims_dir) if claims_dir else _claims_dir(out_dir)
    provenance = read_provenance(out_dir, claims_dir)
    claim_rows = load_paper_claims(claims_dir)
    by_id = {row["id"]: row for row in claim_rows}
    old = pd.read_csv(out_dir / TABLE, dtype=str, keep_default_na=False)
    # a family never published (no stamp: a new family before its first paper-scale run) has no rows to refresh
    mine = {row_id for row_id, row in by_id.items() if row["family"] in provenance["families"]}
    added, lost = sorted(mine - set(old["id"])), sorted(set(old["id"]) - set(by_id))
    if added or lost:
        raise ValueError(f"the claims files add {', '.join(added) or 'no row'} and drop {', '.join(lost) or 'no row'}: "
                         "republish their families from a paper-scale run")
    judged = [row_id for row_id, criterion in zip(old["id"], old["criterion"])
              if criterion != (describe(by_id[row_id]["criterion"]) if "criterion" in by_id[row_id] else "")]
    if judged:
        raise ValueError(f"the criterion of {', '.join(judged)} changed: republish their families from a paper-scale run")
    from dogs.experiments.paper_vs_ours import COLUMNS, build_table

    words = build_table(claim_rows, {}, smoke=False).set_index("id")
    table = old.copy()
    for column in ("family", *WORDED_COLUMNS):
        table[column] = [words.at[row_id, column] for row_id in table["id"]]
    table = table[[*COLUMNS, *(c for c in old.columns if c not in COLUMNS)]]
    reworded = [column for column in WORDED_COLUMNS if column in old.columns]
    changed = set(table.loc[(table[reworded] != old[reworded]).any(axis=1), "family"])
    table = _ordered(table, sorted(claim_rows, key=lambda row: category_key(row["paper"])))
    stamp = {"git_revision": git_revision(repository), "date": _now()}
    provenance["families"] = {family: ({**provenance["families"][family],
                                        "relabelled": [*provenance["families"][family].get("relabelled", []), stamp]}
                                       if family in changed else provenance["families"][family])
                              for family in dict.fromkeys(table["family"])}
    _write_published(out_dir, table, provenance, {})
    return provenance


def main(argv: list[str] | None = None) -> int:
    """``publish --results R --figures F --out docs/results [--families f ...] [--readme README.md] [--allow-dirty]
    [--allow-other-commit]``, ``relabel [--out docs/results]``, ``readme [--table T]`` or ``table [--out
    docs/results]``."""
    parser = argparse.ArgumentParser(prog="python -m dogs.workflow.published", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    publish_cmd = commands.add_parser("publish", help="publish families' rows and key figures of a run in docs/results/")
    publish_cmd.add_argument("--results", required=True, help="the run's results folder (config key results_dir)")
    publish_cmd.add_argument("--figures", required=True, help="the run's figures folder (config key figures_dir)")
    publish_cmd.add_argument("--out", default="docs/results", help="where to publish (default docs/results)")
    publish_cmd.add_argument("--families", nargs="*", default=None,
                             help="the families to publish (default: every family with rows in config/claims/)")
    publish_cmd.add_argument("--readme", default="README.md", help="README whose verdict block is regenerated")
    publish_cmd.add_argument("--allow-dirty", action="store_true",
                             help="publish although the repository has uncommitted changes (the stamp says so)")
    publish_cmd.add_argument("--allow-other-commit", action="store_true",
                             help="publish a run made at another commit than the checked-out one (the stamp says so)")
    relabel_cmd = commands.add_parser("relabel", help="refresh the published rows' words from config/claims/ "
                                                      "(no verdict changes; converts an older published layout)")
    relabel_cmd.add_argument("--out", default="docs/results")
    relabel_cmd.add_argument("--readme", default="README.md")
    readme_cmd = commands.add_parser("readme", help="regenerate the README's verdict block from the published table")
    readme_cmd.add_argument("--table", default="docs/results/paper_vs_ours.csv")
    readme_cmd.add_argument("--readme", default="README.md")
    table_cmd = commands.add_parser("table", help="recompose the published paper_vs_ours.md from the published CSV "
                                                  "and provenance")
    table_cmd.add_argument("--out", default="docs/results")
    args = parser.parse_args(argv)
    try:
        if args.command == "table":
            page = Path(args.out) / PAGE
            with atomic_path(page) as tmp:
                tmp.write_text(compose_markdown(Path(args.out) / TABLE, read_provenance(args.out)), encoding="utf-8")
            print(f"{page}: written from {Path(args.out) / TABLE} and {Path(args.out) / PROVENANCE}")
            return 0
        if args.command == "publish":
            stamp = publish(args.results, args.figures, args.out, families=args.families,
                            allow_dirty=args.allow_dirty, allow_other_commit=args.allow_other_commit)
            table = Path(args.out) / TABLE
            print(f"published {', '.join(args.families or stamp['families'])} in {args.out} "
                  f"({stamp['png_bytes'] / 2**20:.2f} MB of figures in all)")
        elif args.command == "relabel":
            relabel(args.out)
            table = Path(args.out) / TABLE
            print(f"{table}: rows relabelled from config/claims/")
        else:
            table = Path(args.table)
        changed = rewrite_readme(args.readme, table)
        print(f"{args.readme}: verdict block {'rewritten' if changed else 'already agrees'} with {table}")
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
