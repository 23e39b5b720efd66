"""Pages of the documentation site generated from the project's own sources, so they cannot drift from them.

At ``builder-inited`` (before Sphinx reads any page) this writes MyST pages into ``docs/generated/`` (git-ignored,
but for the reference pages and the figure index that the hand-written pages and the README link to, committed so that the links work on GitHub
too; ``python docs/_ext/dogs_docs.py`` rewrites them and tests/test_docs.py fails when they are stale):

* ``configuration-reference.md``: every key of the run's schema (``config/schema.yaml`` and each family file's
  ``schema:``, ``config/families/<family>.yaml``) with its type, its default (the paper-scale value), whether the
  value is the paper's or our choice (the "(paper ...)" / "(choice)" tag of the key's comment in ``config/config.yaml``
  or the family file), its description, and what it costs (whether the resource guard's memory or time estimate
  reads it, or the schema's ``x-not-scaling`` reason); and the table, per family, of the keys each estimate reads
  (:func:`dogs.workflow.keys.scaling_table`, which docs/configuration.md links to);
* ``cli-reference.md``: the ``dogs`` command, every subcommand and option, from its argparse parser;
* ``claims-<paper>.md``: each paper's rows of ``config/claims/*.yaml`` with their readings, and our value and
  verdict from the committed results table ``docs/results/paper_vs_ours.csv`` when it is there; each row is the
  target ``claim-<id>`` on its paper's page (the DoGS page for the §5.3 rows that the Liu & Domke page repeats);
  ``claims-beyond.md`` holds the rows beyond the papers (findings of our own, counted apart from every paper);
* ``verdicts-table.md``: the verdict page's table (``docs/verdicts.md``), one line per claim with its verdict as a
  coloured badge, in tabs that filter it by paper and by verdict (sphinx-design);
* ``index-papers.md``: the home page's cards, each paper's verdict counts and one key figure;
* ``figures-<paper>.md``: each paper's published figures (``docs/results/provenance.json``) with their captions,
  each linked to its full-size PNG;
* ``deviations-<paper>.md``: each paper's rows of the deviations table of ``docs/paper-vs-ours.md``;
* ``api-<package>.md``: the API reference of each public package (autodoc + numpydoc);
* ``figure-index.md`` (committed: the README links to it): every named target of the workflow, declared in its
  family's ``rules/<family>.smk`` with ``target(...)``, with the docstring of its rule (the paper figure or table it
  makes and where it writes) and the data set it needs.

The functions that find undocumented schema keys and CLI options are used by ``tests/test_docs.py`` too.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
from collections import Counter
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
GENERATED = DOCS / "generated"

#: Paper pages: (file stem, title, which claim rows belong to it).
PAPERS = [
    ("dogs", "DoGS (Mitliagkas & Mackey 2017)", lambda row: row["paper"] == "DoGS"),
    ("he2016", "He, De Sa, Mitliagkas & Ré 2016", lambda row: row["paper"].startswith("He et al")),
    ("liu-domke", "Liu & Domke 2014", lambda row: row["paper"] == "DoGS" and "§5.3" in row["where"]),
    ("annular", "Fagan, Bhandari & Cunningham 2017", lambda row: row["paper"].startswith("Annular")),
    ("beyond", "Beyond the papers", lambda row: row["paper"] == "Beyond the papers"),
]

#: Public packages and modules of the API reference: (page stem, title, modules).
API = [
    ("models", "Models", ["dogs.models", "dogs.models.boltzmann", "dogs.models.uai"]),
    ("bounds", "Influence bounds", ["dogs.bounds"]),
    ("scans", "Scans and DoGS", ["dogs.scans"]),
    ("samplers", "Samplers", ["dogs.samplers"]),
    ("sampling", "The sampling call, ArviZ output and optional packages",
     ["dogs.sampling_call", "dogs.arviz_interop", "dogs.extras"]),
    ("exact", "Exact inference", ["dogs.exact"]),
    ("inference", "Loopy belief propagation", ["dogs.inference"]),
    ("learning", "Learning", ["dogs.learning"]),
    ("summaries", "Summaries", ["dogs.summaries"]),
    ("counterexamples", "He et al. models", ["dogs.counterexamples"]),
    ("segmentation", "MSRC segmentation", ["dogs.segmentation"]),
    ("claims", "Claims and the paper-vs-ours table", ["dogs.claims"]),
]


# ------------------------------------------------------------------------------------------ configuration
def schema_keys(schema: dict, prefix: str = ""):
    """Yield ``(dotted key, schema node)`` for every key of a JSON schema, depth first (``*`` for free names,
    ``[]`` for list items that are objects)."""
    for name, node in schema.get("properties", {}).items():
        key = f"{prefix}.{name}" if prefix else name
        yield key, node
        yield from _children(node, key)


def _children(node: dict, key: str):
    if not isinstance(node, dict):
        return
    if "properties" in node:
        yield from schema_keys(node, key)
    extra = node.get("additionalProperties")
    if isinstance(extra, dict) and "properties" in extra:
        yield from schema_keys(extra, f"{key}.*")
    items = node.get("items")
    if isinstance(items, dict) and "properties" in items:
        yield from schema_keys(items, f"{key}[]")
    for alternative in node.get("oneOf", []) + node.get("anyOf", []):
        yield from _children(alternative, key)


def undocumented_schema_keys(schema: dict) -> list[str]:
    """Keys of ``schema`` without a (non-empty) ``description``."""
    return [key for key, node in schema_keys(schema) if not str(node.get("description", "")).strip()]


def _type(node: dict) -> str:
    if "enum" in node:
        return "one of " + ", ".join(f"`{v}`" for v in node["enum"])
    kind = node.get("type")
    if kind is None and (node.get("oneOf") or node.get("anyOf")):
        return " or ".join(_type(alt) for alt in node.get("oneOf", []) + node.get("anyOf", []))
    kinds = [kind] if isinstance(kind, str) else list(kind or ["any"])
    if "array" in kinds and isinstance(node.get("items"), dict):
        kinds[kinds.index("array")] = f"list of {_type(node['items'])}"
    bounds = [f"{word} {_number(node[key])}" for key, word in (("minimum", "≥"), ("exclusiveMinimum", ">"),
                                                          ("maximum", "≤"), ("exclusiveMaximum", "<"))
              if isinstance(node.get(key), (int, float))]
    return " or ".join(kinds) + (f" ({', '.join(bounds)})" if bounds else "")


def _number(x) -> str:
    if isinstance(x, int) and x >= 10**6:
        exponent = len(str(x)) - 1
        return f"10^{exponent}" if x == 10**exponent else f"{x:.4g}"
    return f"{x:g}"


def config_comments(text: str) -> dict[str, str]:
    """``{dotted key: the comment block above it}`` of a commented YAML file (mappings only; list items skipped)."""
    out, stack, comment = {}, [], []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            comment.append(stripped.lstrip("#").strip())
            continue
        match = re.match(r"^( *)([A-Za-z_][\w]*):", line)
        if not match:
            if not stripped:
                comment = []
            continue
        indent = len(match.group(1))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        stack.append((indent, match.group(2)))
        inline = re.search(r"\s#\s*(.*)$", line)  # a comment after the value (values here hold no '#')
        out[".".join(name for _, name in stack)] = " ".join(comment + ([inline.group(1)] if inline else []))
        comment = []
    return out


def provenance(comment: str) -> str:
    """"paper" (with the paper's value when the comment gives it) or "choice", from a config comment's tag."""
    paper = re.search(r"\(paper(?::\s*([^()]*(?:\([^()]*\)[^()]*)*))?\)", comment)
    if paper:
        return f"paper: {paper.group(1).strip()}" if paper.group(1) else "paper"
    if re.search(r"\(choice\b", comment):
        return "choice"
    return ""


def _lookup(config, key: str) -> tuple[object, bool]:
    node = config
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return None, False
        node = node[part]
    return node, True


def _value(value, present: bool = True) -> str:
    if not present:
        return ""
    if value is None:
        return "`null`"
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_value(v)}" for k, v in value.items()) if len(str(value)) < 80 else "(a mapping)"
    text = yaml.safe_dump(value, default_flow_style=True, width=10**6).strip().removesuffix("...").strip()
    return f"`{text}`" if len(text) < 60 else f"`{text[:57]}...`"


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def family_comments(root: Path = ROOT) -> dict[str, str]:
    """``{dotted key: comment}`` of ``config/config.yaml`` and of the paper-scale ``settings:`` of every family file
    (``settings.side`` of ``config/families/ising10.yaml`` is ``ising10.side``)."""
    comments = config_comments((root / "config" / "config.yaml").read_text())
    for path in sorted((root / "config" / "families").glob("*.yaml")):
        for key, comment in config_comments(path.read_text()).items():
            if key.startswith("settings."):
                comments[path.stem + key.removeprefix("settings")] = comment
    return comments


def configuration_reference(root: Path = ROOT) -> str:
    """The configuration reference page (MyST), from the run's schema and paper-scale config (``config/`` and the
    family files), with the table of the keys each estimate reads."""
    from dogs.experiments import FAMILIES
    from dogs.experiments.__main__ import key_table
    from dogs.workflow.cost import configured
    from dogs.workflow.families import full_schema, merged_config
    from dogs.workflow.keys import keys_read, not_scaling, numeric_schema_keys, schema_pattern

    schema = full_schema(root)
    config = merged_config([root / "config" / "config.yaml"], root)
    comments = family_comments(root)
    memory_keys, time_keys = set(), set()
    for family, settings in configured(config, FAMILIES):
        memory, work = keys_read(family, settings)
        memory_keys |= {schema_pattern(schema, key) for key in memory}
        time_keys |= {schema_pattern(schema, key) for key in work}
    quiet, numeric = not_scaling(schema), numeric_schema_keys(schema)

    def cost(key: str) -> str:
        reads = [word for word, keys in (("memory", memory_keys), ("time", time_keys)) if key in keys]
        if reads:
            return "scales the " + " and ".join(reads) + " estimate"
        for pattern in (key, key + "[]"):
            if pattern in quiet:
                return "none: " + quiet[pattern]
        return "" if key not in numeric else "?"

    lines = ["# Configuration reference", "",
             "Generated each time the site is built from `config/schema.yaml` and `config/config.yaml` (the keys "
             "every family shares) and each family's file `config/families/<family>.yaml` (its `schema:` and its "
             "paper-scale `settings:`): types, ranges and descriptions, defaults, and the \"(paper)\" / "
             "\"(choice)\" tags of the comments. *Cost* says whether the resource guard's memory or time estimate "
             "reads the key (a value twice as large costs about twice as much) or, from the schema's "
             "`x-not-scaling`, why it costs nothing. How the checks and the guard work: "
             "[configuration](../configuration.md).", "",
             "## Which keys the estimates read", "",
             "Per family, the numeric keys the memory and the time estimates read at paper and at smoke scale, and "
             "those the schema marks as not scaling (`python -m dogs.experiments table` prints the same table).",
             "", key_table(root), ""]
    sections = [(key, node) for key, node in schema.get("properties", {}).items()]
    top = [(key, node) for key, node in sections if node.get("type") != "object"]
    groups = [("Top-level keys", "", top)] + [
        (key, node.get("description", ""), [(key, node)] + list(_children(node, key)))
        for key, node in sections if node.get("type") == "object"]
    for title, description, keys in groups:
        lines += [f"## {title if title == 'Top-level keys' else '`' + title + '`'}", ""]
        if description:
            lines += [_cell(description), ""]
        lines += ["| key | type | default | paper or choice | description | cost |", "|---|---|---|---|---|---|"]
        for key, node in keys:
            if node.get("type") == "object" and key == title:
                continue
            default, present = _lookup(config, key) if "*" not in key and "[]" not in key else (None, False)
            lines.append("| " + " | ".join(_cell(x) for x in (
                f"`{key}`", _type(node), _value(default, present), provenance(comments.get(key, "")),
                node.get("description", ""), cost(key))) + " |")
        lines.append("")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------ the dogs command
def _subparsers(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                yield name, helps.get(name), sub


def _options(parser: argparse.ArgumentParser):
    return [a for a in parser._actions if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))]


def undocumented_cli_options(parser: argparse.ArgumentParser) -> list[str]:
    """Subcommands and options of ``parser`` (and its subcommands) without a help text."""
    missing = [f"{parser.prog} {'/'.join(a.option_strings) or a.dest}" for a in _options(parser)
               if not (a.help or "").strip() or a.help == argparse.SUPPRESS]
    for name, text, sub in _subparsers(parser):
        if not (text or "").strip():
            missing.append(f"{parser.prog} {name}")
        missing += undocumented_cli_options(sub)
    return missing


def _help(action: argparse.Action, parser: argparse.ArgumentParser) -> str:
    """An option's help as ``--help`` prints it (argparse's ``%(default)s`` and ``%%`` expanded)."""
    try:
        return (action.help or "") % {**vars(action), "prog": parser.prog}
    except (KeyError, TypeError, ValueError):
        return action.help or ""


def cli_reference(parser: argparse.ArgumentParser) -> str:
    """The command reference page (MyST) of ``parser``: every subcommand's usage and options."""
    lines = [f"# The `{parser.prog}` command", "",
             "Generated from the command's argument parser (`src/dogs/cli/__init__.py`) each time the site is "
             "built, so every option is here. What the command is for, with examples: "
             "[the library page](../library.md). Every subcommand prints JSON (or CSV with `--format csv`).", ""]
    if parser.description:
        lines += [_cell(parser.description), ""]
    for name, text, sub in _subparsers(parser):
        lines += [f"## `{parser.prog} {name}`", "", _cell(text or ""), "", "```text",
                  sub.format_usage().strip(), "```", "",
                  "| argument | default | values | what it is |", "|---|---|---|---|"]
        for action in _options(sub):
            names = ", ".join(f"`{s}`" for s in action.option_strings) or f"`{action.dest}` (positional)"
            default = "" if action.default in (None, False, argparse.SUPPRESS) else f"`{action.default}`"
            values = ", ".join(f"`{c}`" for c in action.choices) if action.choices else ""
            if action.required and action.option_strings:
                default = "required"
            lines.append("| " + " | ".join(_cell(x) for x in (names, default, values, _help(action, sub))) + " |")
        lines.append("")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------ the papers' claims
def results_table(path: Path) -> dict[str, dict]:
    """``{claim id: row}`` of a committed paper-vs-ours table (CSV), or ``{}`` when there is none."""
    if not path.is_file():
        return {}
    with path.open(newline="", encoding="utf-8") as handle:
        return {row["id"]: row for row in csv.DictReader(handle)}


def claims_page(stem: str, title: str, rows: list[dict], results: dict[str, dict], labels: bool = True) -> str:
    """The claim rows of one paper (MyST, included by ``docs/papers/<stem>.md``); with ``labels``, each row is the
    link target ``claim-<id>`` (the verdict page links there)."""
    from dogs.claims import describe

    measured = [r for r in rows if r["id"] in results]
    lines = []
    if results:
        counts: dict[str, int] = {}
        for row in measured:
            counts[results[row["id"]]["verdict"]] = counts.get(results[row["id"]]["verdict"], 0) + 1
        lines += ["Verdicts in the committed results table (`docs/results/paper_vs_ours.csv`): "
                  + ", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items(), key=lambda x: -x[1]))
                  + f" ({len(measured)} of {len(rows)} rows).", ""]
    else:
        lines += ["No results table is committed with this build (`docs/results/paper_vs_ours.csv`): the rows "
                  "below are the paper's side; `snakemake --cores 2 all` measures ours "
                  "(`results/paper_vs_ours/paper_vs_ours.md`).", ""]
    for kind, chosen in (("Findings of our own" if stem == "beyond" else "Claims",
                          [r for r in rows if "errata" not in r["id"]]),
                         ("Errata diagnostics", [r for r in rows if "errata" in r["id"]])):
        if not chosen:
            continue
        lines += [f"**{kind}**", ""]
        if kind == "Errata diagnostics":
            lines += ["Rows that reproduce a defect of the authors' code as a labelled diagnostic (verdict "
                      "\"information\"): why the paper's numbers differ from ours "
                      "([where our numbers differ](../paper-vs-ours.md#where-our-numbers-differ-from-the-papers-and-why)).",
                      ""]
        for row in chosen:
            if labels:
                lines += [f"({CLAIM_LABEL.format(id=row['id'])})=", ""]
            lines += [f"`{row['id']}`", f": **{_cell(row['claim'])}** ({_cell(row['where'])}). "
                      f"Paper: {_cell(row['paper_value'])}. Criterion: {_cell(describe(row['criterion']))}.", ""]
            lines += [f"  *Reading.* {_cell(row.get('reading', ''))}", ""]
            if row["id"] in results:
                got = results[row["id"]]
                split = f" (by draw: {got['verdict_by_seed']})" if got.get("verdict_by_seed") else ""
                lines += [f"  *Ours.* {_cell(got.get('ours', ''))} — **{got['verdict']}**{split}", ""]
    return "\n".join(lines)


#: The link target of a claim row on its paper's page.
CLAIM_LABEL = "claim-{id}"
#: The sphinx-design badge of each verdict (its colour).
VERDICT_BADGES = {"reproduced": "bdg-success", "partly": "bdg-warning", "inconclusive": "bdg-secondary",
                  "not reproduced": "bdg-danger", "information": "bdg-info", "needs data": "bdg-light",
                  "not yet run": "bdg-light"}


def _badge(verdict: str, text: str | None = None) -> str:
    return f"{{{VERDICT_BADGES[verdict]}}}`{text or verdict}`"


def verdicts_table(table_csv: Path) -> str:
    """The verdict page's table (MyST, included by ``docs/verdicts.md``): one line per claim of the committed
    results table, the verdict as a coloured badge, "reading" linking to the row on its paper's page; a tab per
    filter (all rows, each paper, each verdict found)."""
    from dogs.claims import VERDICTS
    from dogs.workflow.published import compact_rows, compact_table

    if not table_csv.is_file():
        return ("No results table is committed with this build (`docs/results/paper_vs_ours.csv`): "
                "`snakemake docs_results` publishes one after a paper-scale run.\n")
    rows = compact_rows(table_csv)
    papers = list(dict.fromkeys(row["paper"] for row in rows))
    found = {row["verdict"] for row in rows}
    tabs = [("All", rows)] + [(paper, [r for r in rows if r["paper"] == paper]) for paper in papers]
    tabs += [(verdict, [r for r in rows if r["verdict"] == verdict]) for verdict in VERDICTS if verdict in found]
    lines = ["::::{tab-set}", ""]
    for label, chosen in tabs:
        table = compact_table(chosen, reading=lambda row_id: f"{{ref}}`reading <{CLAIM_LABEL.format(id=row_id)}>`",
                              verdict=_badge, run=None)
        lines += [f":::{{tab-item}} {label} ({len(chosen)})", "", table, ":::", ""]
    return "\n".join(lines + ["::::", ""])


#: The paper of each home-page card: (paper in the results table, page stem, title, key figure file under
#: docs/results/figures/).
CARDS = [
    ("DoGS", "dogs", "DoGS (Mitliagkas & Mackey 2017)", "ising10/fig1_guarantees_rep0.png"),
    ("He et al. 2016", "he2016", "Scan order (He, De Sa, Mitliagkas & Ré 2016)", "scan_order/fig2a_mixing_time_vs_n.png"),
    ("Annular augmentation", "annular", "Annular augmentation (Fagan, Bhandari & Cunningham 2017)",
     "annular_ising/fig3_heatmaps.png"),
]


def index_cards(results: Path) -> str:
    """The home page's cards (MyST, included by ``docs/index.md``): per paper, its verdict counts as badges and one
    key figure of the published run (linked to its full-size PNG), and a link to its page."""
    from dogs.claims import VERDICTS
    from dogs.workflow.published import KEY_FIGURES, verdict_counts

    table_csv = results / "paper_vs_ours.csv"
    counts = verdict_counts(table_csv) if table_csv.is_file() else {}
    captions = {rel: caption for rel, _, caption in KEY_FIGURES}
    lines = [":::::{grid} 1 1 3 3", ":gutter: 2", ""]
    for paper, stem, title, figure in CARDS:
        found = counts.get(paper, Counter())
        verdicts = (" ".join(_badge(v, f"{found[v]} {v}") for v in VERDICTS if found[v])
                    or "no results table committed")
        lines += [f"::::{{grid-item-card}} {title}", "", f"{sum(found.values())} claims: {verdicts}", ""]
        if (results / "figures" / figure).is_file():  # a width links the image to its full-size PNG
            lines += [f"```{{image}} results/figures/{figure}", f":alt: {captions.get(figure, figure)}",
                      ":width: 100%", "```", "", f"{captions.get(figure, figure)}", ""]
        lines += [":::{card-footer}", f"[Claims, readings and figures](papers/{stem}.md)", ":::", "::::", ""]
    return "\n".join(lines + [":::::", ""])


#: Which published figures (``docs/results/provenance.json``: their "paper" and "figure" fields) each paper page shows;
#: Liu & Domke's projection runs inside DoGS Fig. 3 (§5.3), which its page shows too.
FIGURE_PAPERS = {
    "dogs": lambda figure: figure["paper"] == "DoGS",
    "he2016": lambda figure: figure["paper"] == "He et al. 2016",
    "liu-domke": lambda figure: figure["paper"] == "DoGS" and "§5.3" in figure["figure"],
    "annular": lambda figure: figure["paper"] == "Annular augmentation",
}


def figures_page(stem: str, provenance_path: Path) -> str:
    """The published figures of paper ``stem`` with their captions and stamp (MyST, included by its paper page)."""
    if not provenance_path.is_file():
        return "No published figures are committed with this build (`snakemake docs_results` publishes them).\n"
    provenance = json.loads(provenance_path.read_text(encoding="utf-8"))
    chosen = [f for f in provenance["figures"] if FIGURE_PAPERS[stem](f)]
    if not chosen:
        return "None of the published figures belongs to this paper: its results are the claim rows above.\n"
    runs = sorted({provenance["families"][figure["family"]]["measured"][:10] for figure in chosen})
    lines = [f"From the paper-scale run{'s' if len(runs) > 1 else ''} of {', '.join(runs)} "
             "(`docs/results/provenance.json` gives each family's commits and machine); "
             "`snakemake` regenerates each of them and the rest (targets above).", ""]
    for figure in chosen:
        # a width makes Sphinx link the image to its full-size PNG (html_scaled_image_link)
        lines += [f"```{{figure}} ../results/{figure['file']}", f":alt: {figure['figure']}", ":width: 100%", "",
                  f"{figure['figure']} (click for full size)", "```", ""]
    return "\n".join(lines)


#: Which rows of the "Deviations and choices" table of docs/paper-vs-ours.md each paper page shows (by its "where").
DEVIATION_PREFIX = {"dogs": ("DoGS",), "he2016": ("He et al.",), "liu-domke": ("DoGS §5.3",), "annular": ("AA",)}


def deviations_page(stem: str, paper_vs_ours: str) -> str:
    """The rows of the deviations table of ``docs/paper-vs-ours.md`` whose "where" names paper ``stem``."""
    text = paper_vs_ours.split("## Deviations and choices", 1)[-1]
    table = [line for line in text.splitlines() if line.startswith("|")]
    if len(table) < 2:
        raise ValueError("docs/paper-vs-ours.md lost its table of deviations and choices")
    rows = [line for line in table[2:] if line.split("|")[1].strip().startswith(DEVIATION_PREFIX[stem])]
    if not rows:
        return "None of the deviations table's rows is specific to this paper.\n"
    # links of paper-vs-ours.md, made relative to docs/papers/ (where the rows are included)
    rows = [re.sub(r"\]\((?!https?:|\.\./)([^)]*)\)",
                   lambda m: f"](../paper-vs-ours.md{m.group(1)})" if m.group(1).startswith("#") else f"](../{m.group(1)})",
                   row) for row in rows]
    return "\n".join(table[:2] + rows) + "\n"


# ------------------------------------------------------------------------------------------ figure index
#: The papers of the figure index, in the report's order, by how a target's docstring starts (others come last).
INDEX_PAPERS = [("DoGS", "DoGS (Mitliagkas & Mackey 2017)"), ("He et al.", "He, De Sa, Mitliagkas & Ré 2016"),
                ("Annular augmentation", "Annular augmentation (Fagan, Bhandari & Cunningham 2017)")]


def declared_targets(root: Path = ROOT) -> list[dict]:
    """Every target declared in ``rules/*.smk`` (``target("name", needs=..., in_all=...)`` after its rule), in the
    order the Snakefile includes them: ``{"name", "doc", "needs", "in_all", "file"}``."""
    targets = []
    for path in sorted((root / "rules").glob("*.smk")):
        text = path.read_text(encoding="utf-8")
        docs = dict(re.findall(r'^rule (\w+):\n    """(.*?)"""', text, flags=re.M | re.S))
        for name, args in re.findall(r'^target\("(\w+)"(.*)\)$', text, flags=re.M):
            if name not in docs:
                raise ValueError(f"{path.name}: target {name!r} has no rule with a docstring above it")
            needs = re.search(r'needs="(\w+)"', args)
            targets.append({"name": name, "doc": " ".join(docs[name].split()), "needs": needs and needs.group(1),
                            "in_all": "in_all=False" not in args, "file": f"rules/{path.name}"})
    return targets


def figure_index(root: Path = ROOT) -> str:
    """The figure index page: every declared target by paper, with what it makes and the data set it needs."""
    targets = declared_targets(root)
    lines = ["# Figure index", "",
             "Every figure and table has a named target: `snakemake --cores 2 <target>` makes it at paper scale, "
             "`snakemake --cores 2 <target> --configfile config/smoke.yaml` at tiny scale (targets before "
             "`--configfile`). Generated from the rules (`python docs/_ext/dogs_docs.py`): each target is declared "
             "in its family's `rules/<family>.smk`, and its text is its rule's docstring. `snakemake` alone makes "
             "every target marked \"all\" whose data set is present ([data](../data.md)).", ""]
    groups = [(title, lambda t, key=key: t["doc"].startswith(key)) for key, title in INDEX_PAPERS]
    groups.append(("All four papers, and beyond them",
                   lambda t: not any(t["doc"].startswith(key) for key, _ in INDEX_PAPERS)))
    for title, belongs in groups:
        rows = [t for t in targets if belongs(t)]
        if not rows:
            continue
        lines += [f"## {title}", "", "| target | what it makes | data set | in `all` |", "|---|---|---|---|"]
        lines += [f"| `{t['name']}` | {_cell(t['doc'])} | {t['needs'] or ''} | {'yes' if t['in_all'] else 'no'} |"
                  for t in rows]
        lines.append("")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------ API reference
def api_page(title: str, modules: list[str]) -> str:
    lines = [f"# {title}", ""]
    for i, module in enumerate(modules):
        if i:
            lines += [f"## `{module}`", ""]
        lines += ["```{eval-rst}", f".. automodule:: {module}", "   :members:", "```", ""]
    return "\n".join(lines)


def api_index() -> str:
    lines = ["# API reference", "",
             "Generated from the numpy-style docstrings (autodoc + numpydoc). The library is organised by idea "
             "(the table on [the library page](../library.md)); the experiment modules, the workflow and the "
             "private numba kernels (`dogs._kernels`) are not part of the API.", "",
             "```{toctree}", ":maxdepth: 1", ""]
    lines += [f"api-{stem}" for stem, _, _ in API]
    return "\n".join(lines + ["```", ""])


# ------------------------------------------------------------------------------------------ Sphinx hook
def _write(path: Path, text: str) -> None:
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def generate(root: Path = ROOT) -> None:
    """Write every generated page into ``docs/generated/``."""
    from dogs.claims import load_paper_claims

    out = root / "docs" / "generated"
    out.mkdir(exist_ok=True)
    for name, text in committed_pages(root).items():
        _write(out / name, text)
    rows = load_paper_claims(root / "config" / "claims")
    results = results_table(root / "docs" / "results" / "paper_vs_ours.csv")
    for stem, title, belongs in PAPERS:
        _write(out / f"claims-{stem}.md", claims_page(stem, title, [r for r in rows if belongs(r)], results,
                                                      labels=stem != "liu-domke"))  # its rows are the DoGS page's
    _write(out / "verdicts-table.md", verdicts_table(root / "docs" / "results" / "paper_vs_ours.csv"))
    _write(out / "index-papers.md", index_cards(root / "docs" / "results"))
    paper_vs_ours = (root / "docs" / "paper-vs-ours.md").read_text(encoding="utf-8")
    for stem in DEVIATION_PREFIX:
        _write(out / f"deviations-{stem}.md", deviations_page(stem, paper_vs_ours))
    for stem in FIGURE_PAPERS:
        _write(out / f"figures-{stem}.md", figures_page(stem, root / "docs" / "results" / "provenance.json"))
    for stem, title, modules in API:
        _write(out / f"api-{stem}.md", api_page(title, modules))


def committed_pages(root: Path = ROOT) -> dict[str, str]:
    """``{file name: text}`` of the generated pages that are committed (the hand-written pages link to them, on
    GitHub too), as the sources make them now."""
    from dogs.cli import build_parser

    return {"cli-reference.md": cli_reference(build_parser()),
            "configuration-reference.md": configuration_reference(root), "api.md": api_index(),
            "figure-index.md": figure_index(root)}


def _on_builder_inited(app) -> None:
    generate(Path(app.srcdir).parent)


def setup(app):
    app.connect("builder-inited", _on_builder_inited)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":  # python docs/_ext/dogs_docs.py: rewrite docs/generated/ (the committed pages too)
    generate()
    print(f"wrote {GENERATED}")
