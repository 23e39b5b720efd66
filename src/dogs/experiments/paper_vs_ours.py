"""Render the paper-vs-ours table (``paper_vs_ours/paper_vs_ours.md`` and ``.csv``) from the claims files.

Step ``summarise`` (see :mod:`dogs.workflow.shell`): inputs ``claims`` (the files of ``config/claims/``, one per paper) and
``measured`` (every family's measured claims), outputs ``md`` and ``csv`` (and optionally ``html``, the page of
the Snakemake report). Its settings are not a config slice but what the workflow found in the data directory:
``{"needs_data": {family: data set}}`` names the experiment families it skipped for want of their data set;
their rows read "needs data" (never "not reproduced"), counted in the summary line.

Each measured row's ``ours`` text is its template in ``config/claims/`` worded with the quantities the
experiment measured (:func:`dogs.claims.render_ours`). Never hand-edit the output: it is regenerated from
``config/claims/`` and the measured claims that the experiments write.
"""

from __future__ import annotations

import html
import json

import pandas as pd

from dogs.claims import (NEEDS_DATA, NOT_YET_RUN, VERDICTS, ClaimsError, category_key, describe, is_beyond_the_papers,
                         load_measured, load_paper_claims, render_ours, seeded_verdict)
from dogs.io import atomic_path, write_csv
from dogs.workflow.shell import Experiment, SettingsError

COLUMNS = ["id", "paper", "family", "where", "claim", "paper_value", "quantity", "criterion", "ours", "verdict",
           "verdict_by_seed", "reading", "paper_evidence"]


SETTINGS_SCHEMA = {
    "type": "object",
    "properties": {
        "needs_data": {
            "type": "object",
            "additionalProperties": {"type": "string", "minLength": 1},
            "description": "experiment family -> the absent data set it needs (rules/common.smk, data_claims)",
        },
    },
    "additionalProperties": False,
}


def _judged(row: dict, got: dict) -> tuple[str, list[str]]:
    """``(row verdict, verdict of each draw)`` of a measured row (:func:`dogs.claims.seeded_verdict`)."""
    if "criterion" not in row:
        raise ClaimsError(f"claim {row['id']!r} is measured but config/claims gives it no criterion")
    if "by_seed" in got and "per_seed" not in row:
        raise ClaimsError(f"claim {row['id']!r} is measured per draw (by_seed): declare its rule over draws in "
                          "config/claims (per_seed: all, or typical with the reading saying why)")
    if "per_seed" in row and "by_seed" not in got:
        raise ClaimsError(f"claim {row['id']!r} is judged per seed (per_seed: {row['per_seed']}) but its experiment "
                          "measured no by_seed values; rerun its summarise step")
    try:
        return seeded_verdict(row["criterion"], got["value"], got.get("by_seed"), row.get("per_seed", "all"))
    except ClaimsError as exc:
        raise ClaimsError(f"claim {row['id']!r}: {exc}") from None


def row_verdict(row: dict, got: dict | None, needs_data: dict | None = None) -> str:
    """The verdict of one row: the criterion applied to the measured value and to each of its draws (reproduced only
    when they agree, unless the row reads the typical draw: ``per_seed``), or "needs data" when the row's family
    waits for an absent data set, or "not yet run"."""
    return _verdict_and_split(row, got, needs_data)[0]


def _verdict_and_split(row: dict, got: dict | None, needs_data: dict | None) -> tuple[str, str]:
    """``(row verdict, its split over the independent draws)``, the split as "3 seeds: 2 reproduced, 1 partly
    (reproduced, partly, reproduced)", empty when the claim has no draws; each row is judged once."""
    if got is None:
        return (NEEDS_DATA if row["family"] in (needs_data or {}) else NOT_YET_RUN), ""
    verdict_of_row, seeds = _judged(row, got)
    if "by_seed" not in got:
        return verdict_of_row, ""
    counts = ", ".join(f"{seeds.count(v)} {v}" for v in dict.fromkeys(seeds))
    return verdict_of_row, f"{len(seeds)} seeds: {counts} ({', '.join(seeds)})"


def build_table(paper_rows: list[dict], measured: dict, smoke: bool, needs_data: dict | None = None) -> pd.DataFrame:
    """One row per claim, the papers in :data:`dogs.claims.PAPER_ORDER` and then the rows beyond the papers
    (:func:`dogs.claims.category_key`); ``needs_data`` maps the families skipped for want of data to their data set."""
    needs_data = needs_data or {}
    unknown = sorted(set(measured) - {row["id"] for row in paper_rows})
    if unknown:
        raise ClaimsError(f"measured claims with no row in config/claims: {', '.join(unknown)}")
    unknown = sorted(set(needs_data) - {row["family"] for row in paper_rows})
    if unknown:
        raise ClaimsError(f"families said to need data have no row in config/claims: {', '.join(unknown)}")
    contradicted = sorted(row["id"] for row in paper_rows if row["family"] in needs_data and row["id"] in measured)
    if contradicted:
        raise ClaimsError(f"claims measured although their family waits for its data set: {', '.join(contradicted)}")
    records = []
    by_paper = sorted(paper_rows, key=lambda row: category_key(row["paper"]))  # stable: the files' order within a paper
    for row in by_paper:
        got = measured.get(row["id"])
        missing = needs_data.get(row["family"])
        verdict_of_row, split = _verdict_and_split(row, got, needs_data)
        records.append(
            {
                **{k: str(row[k]).strip() for k in COLUMNS[:6]},
                "quantity": str(row.get("quantity", "")).strip(),
                "criterion": describe(row["criterion"]) if "criterion" in row else "",
                "ours": render_ours(row, got) if got else (f"needs data set {missing} (docs/data.md)" if missing else ""),
                "verdict": verdict_of_row,
                "verdict_by_seed": split,
                "reading": " ".join(str(row.get("reading", "")).split()),
                "paper_evidence": json.dumps(row["paper_evidence"]) if "paper_evidence" in row else "",
            }
        )
    table = pd.DataFrame.from_records(records, columns=COLUMNS)
    table["comparable_with_paper"] = "no (smoke run)" if smoke else "yes"
    return table


def _cells(row) -> list:
    """One table row as shown: paper, where, claim, paper's value, what is compared, ours, verdict."""
    compared = "; ".join(x for x in (row["quantity"], row["criterion"]) if x) or "—"
    paper_value = row["paper_value"] + (f" (as the criterion's quantities: {row['paper_evidence']})"
                                        if row["paper_evidence"] else "")
    shown = row["verdict"] + (f" ({row['verdict_by_seed']})" if row["verdict_by_seed"] else "")
    return [row["paper"], row["where"], row["claim"], paper_value, compared, row["ours"] or "—", shown]


#: Where the run's own table comes from (the published one says where its rows come from instead).
RUN_SOURCE = ("Generated by `snakemake table_paper_vs_ours` from `config/claims/` and the measured claims\n"
              "under `claims/`; do not edit by hand.")


def to_markdown(table: pd.DataFrame, smoke: bool, source: str = RUN_SOURCE) -> str:
    """The table as a Markdown page: title, ``source`` (where its rows come from), the summary, the rows, and
    how each criterion reads the paper."""
    lines = ["# Paper vs ours", ""]
    if smoke:
        lines += [
            "**SMOKE RUN: tiny settings, NOT comparable with the paper.** The verdicts below only show that",
            "the pipeline runs end to end; run the full configuration for real numbers.",
            "",
        ]
    lines += [source, ""]
    lines.append("Summary: " + _summary(table))
    lines.append("")
    if (table["verdict"] == NEEDS_DATA).any():
        lines += [_NEEDS_DATA_NOTE, ""]
    header = ["paper", "where", "claim", "paper", "compared", "ours", "verdict"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    for _, r in table.iterrows():
        lines.append("| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in _cells(r)) + " |")
    lines += ["", "## How each criterion reads the paper", ""]
    lines += [f"- `{r['id']}`: {r['reading']}" for _, r in table.iterrows() if r["reading"]]
    return "\n".join(lines) + "\n"


def _summary(table: pd.DataFrame) -> str:
    """The verdict counts of the papers' claims and, apart, of the rows beyond the papers (when there are any)."""
    beyond = table["paper"].map(is_beyond_the_papers)
    parts = [", ".join(f"{v}: {n}" for v, n in _counts(table.loc[~beyond, "verdict"]))]
    if beyond.any():
        parts.append(f"beyond the papers ({int(beyond.sum())} rows, counted apart): "
                     + ", ".join(f"{v}: {n}" for v, n in _counts(table.loc[beyond, "verdict"]) if n))
    return "; ".join(parts)


def _counts(verdicts: pd.Series) -> list[tuple[str, int]]:
    counts = verdicts.value_counts()
    return [(v, int(counts.get(v, 0))) for v in VERDICTS]


_NEEDS_DATA_NOTE = ("Rows marked 'needs data' belong to experiments that did not run for want of their data set (absent "
                    "from the data directory, or failing its checksum), which is not 'not reproduced'; docs/paper-vs-ours.md's "
                    "Data section says how to add it.")

_VERDICT_COLOURS = {"reproduced": "#d8f0d8", "partly": "#fff2c8", "inconclusive": "#ece0f4",
                    "not reproduced": "#f8d4d4", "information": "#e4ecf8", NEEDS_DATA: "#dff2f2",
                    NOT_YET_RUN: "#eeeeee"}


def to_html(table: pd.DataFrame, smoke: bool) -> str:
    """The table as a self-contained HTML page (for the Snakemake report), one colour per verdict."""
    rows = []
    for _, r in table.iterrows():
        rows.append(f'<tr style="background:{_VERDICT_COLOURS[r["verdict"]]}">'
                    + "".join(f"<td>{html.escape(str(c))}</td>" for c in [*_cells(r), r["reading"] or "—"]) + "</tr>")
    warning = ("<p><strong>SMOKE RUN: tiny settings, NOT comparable with the paper.</strong></p>" if smoke else "")
    needs_data = f"<p>{html.escape(_NEEDS_DATA_NOTE)}</p>" if (table["verdict"] == NEEDS_DATA).any() else ""
    header = "".join(f"<th>{h}</th>" for h in ("paper", "where", "claim", "paper's value", "compared", "ours", "verdict",
                                              "how the criterion reads the paper"))
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>Paper vs ours</title><style>"
        "body{font-family:sans-serif;font-size:13px} table{border-collapse:collapse} "
        "td,th{border:1px solid #bbb;padding:4px;vertical-align:top;text-align:left}</style></head><body>"
        f"<h1>Paper vs ours</h1>{warning}<p>Summary: {html.escape(_summary(table))}</p>{needs_data}"
        f"<table><thead><tr>{header}</tr></thead><tbody>{''.join(rows)}</tbody></table></body></html>\n"
    )


EXPERIMENT = Experiment("paper_vs_ours", __doc__, config_section=None, settings_schema=SETTINGS_SCHEMA)


@EXPERIMENT.step("summarise")
def summarise(ctx):
    claims = ctx.inputs("claims")
    absent = [str(path) for path in claims if not path.is_file()]
    if not claims or absent:
        raise SettingsError(f"the paper's claims files {', '.join(absent) or '(none given)'} do not exist")
    measured = ctx.inputs("measured") if ctx.has_input("measured") else []
    table = build_table(load_paper_claims(claims), load_measured(measured), ctx.smoke,
                        ctx.settings.get("needs_data"))
    write_csv(table, ctx.output("csv"))
    with atomic_path(ctx.output("md")) as tmp:
        tmp.write_text(to_markdown(table, ctx.smoke))
    if ctx.has_output("html"):
        with atomic_path(ctx.output("html")) as tmp:
            tmp.write_text(to_html(table, ctx.smoke))
    counts = table["verdict"].value_counts()
    ctx.log.info("%d claims: %s", len(table), ", ".join(f"{k} {v}" for k, v in counts.items()))


if __name__ == "__main__":
    EXPERIMENT.run()
