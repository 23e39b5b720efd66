"""Claims as data: every criterion in config/claims can fail, the table applies it and words it by its template."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from dogs.claims import (VERDICTS, WORDED_IN_CODE, ClaimsError, check_criterion, describe, load_paper_claims, measured,
                         render_ours, verdict,
                         write_claims)
from dogs.experiments.paper_vs_ours import build_table, row_verdict

ROOT = Path(__file__).resolve().parents[1]
PAPER_CLAIMS = ROOT / "config" / "claims"
OPS = ("at_least", "at_most", "greater_than", "less_than", "between", "equals")


def _violating(condition: dict) -> float:
    """A number that breaks ``condition``."""
    if "at_least" in condition:
        return condition["at_least"] - max(1e-6, abs(condition["at_least"]) * 1e-3)
    if "greater_than" in condition:
        return condition["greater_than"]
    if "at_most" in condition:
        return condition["at_most"] + max(1e-6, abs(condition["at_most"]) * 1e-3)
    if "less_than" in condition:
        return condition["less_than"]
    if "between" in condition:
        lo, hi = condition["between"]
        return hi + max(1e-6, abs(hi) * 1e-3, hi - lo)
    return condition["equals"] + condition.get("tolerance", 0.0) + max(1e-6, abs(condition["equals"]) * 1e-3)


def _satisfying(condition: dict) -> float:
    for op in ("at_least", "at_most"):
        if op in condition:
            return condition[op]
    if "greater_than" in condition:
        return condition["greater_than"] + max(1e-6, abs(condition["greater_than"]) * 1e-3)
    if "less_than" in condition:
        return condition["less_than"] - max(1e-6, abs(condition["less_than"]) * 1e-3)
    if "between" in condition:
        return sum(condition["between"]) / 2
    return condition["equals"]


def _value(conditions: list[dict], override: tuple[int, float] | None = None, base=None):
    """A measured value that satisfies ``conditions`` (with condition ``override[0]`` set to ``override[1]``)."""
    named = any("quantity" in c for c in conditions)
    value = dict(base or {}) if named else None
    for k, condition in enumerate(conditions):
        x = override[1] if override and override[0] == k else _satisfying(condition)
        if named:
            value[condition["quantity"]] = x
        else:
            value = x
    return value


def test_the_paper_claims_file_is_well_formed():
    rows = load_paper_claims(PAPER_CLAIMS)
    assert len({r["id"] for r in rows}) == len(rows)


# ---------------------------------------------------------------- the generic check of a criterion
# (the realistic readings of every row and the mutation test of its thresholds: tests/test_claim_readings.py)
@pytest.mark.parametrize("criterion", [
    {"reproduced": [{"at_least": 100}], "partly": [{"at_least": 10}]},
    {"reproduced": [{"quantity": "r", "at_least": 2}, {"quantity": "s", "between": [0.9, 1.1]}],
     "partly": [{"quantity": "r", "at_least": 1}]},
    {"reproduced": [{"equals": 16, "tolerance": 0}], "partly": [{"between": [8, 32]}]},
    {"reproduced": [{"less_than": 1.0}]},
])
def test_the_generic_check_on_examples(criterion):
    check_can_fail_and_pass("example", criterion)


def test_the_generic_check_catches_a_partly_looser_than_nothing():
    # "partly" demands something "reproduced" does not: a reproduced result could fail partly.
    with pytest.raises(AssertionError):
        check_can_fail_and_pass("bad", {"reproduced": [{"quantity": "r", "at_least": 2}],
                                        "partly": [{"quantity": "s", "at_least": 1}]})


def _outside_inconclusive(criterion, value):
    """``value`` with one ``inconclusive`` condition on a quantity that ``reproduced`` does not name broken,
    when every ``inconclusive`` condition held (else ``value`` unchanged)."""
    inconclusive = criterion.get("inconclusive") or []
    if not inconclusive or not all(_satisfies(c, value) for c in inconclusive):
        return value
    free = {c.get("quantity") for c in criterion["reproduced"]}
    for condition in inconclusive:
        if condition.get("quantity") not in free:
            return {**value, condition["quantity"]: _violating(condition)}
    return value


def _satisfies(condition, value) -> bool:
    return verdict({"reproduced": [condition]}, value) == "reproduced"


def check_can_fail_and_pass(claim_id, criterion):
    """Values satisfying every condition pass; breaking any one condition loses the verdict it guards;
    values satisfying every ``inconclusive`` condition read inconclusive."""
    reproduced = criterion["reproduced"]
    partly = criterion.get("partly") or []
    inconclusive = criterion.get("inconclusive") or []
    # Quantities named only in "partly" or "inconclusive" need values too: take them from partly's
    # satisfying values and from inconclusive's violating ones (a clear measurement).
    base = _value(partly) if partly and any("quantity" in c for c in partly) else None
    if inconclusive:
        base = {**{c["quantity"]: _violating(c) for c in inconclusive}, **(base or {})}
        assert verdict(criterion, {**base, **_value(reproduced), **_value(inconclusive)}) == "inconclusive", claim_id
    assert verdict(criterion, _outside_inconclusive(criterion, _value(reproduced, base=base))) == "reproduced", claim_id
    for k, condition in enumerate(reproduced):
        broken = _value(reproduced, (k, _violating(condition)), base=base)
        assert verdict(criterion, broken) != "reproduced", (claim_id, condition)
    # Breaking any "partly" condition must give "not reproduced" (so "reproduced" implies "partly").
    for k, condition in enumerate(partly):
        broken = _value(partly, (k, _violating(condition)), base={**base, **_value(reproduced)} if base is not None else None)
        assert verdict(criterion, _outside_inconclusive(criterion, broken)) == "not reproduced", (claim_id, condition)


def _evidence_rows():
    return [(row["id"], row["criterion"], row["paper_evidence"]) for row in load_paper_claims(PAPER_CLAIMS)
            if "paper_evidence" in row]


@pytest.mark.parametrize("claim_id, criterion, evidence", _evidence_rows(), ids=[r[0] for r in _evidence_rows()] or None)
def test_the_papers_own_evidence_passes_its_criterion(claim_id, criterion, evidence):
    """A criterion reads the paper as written: the numbers the paper prints for a claim reproduce it. Its twin,
    tests/test_claim_readings.py, feeds it realistic readings of every class. Evidence for part of the quantities (the
    paper prints nothing for the others) is judged by the conditions on those."""
    if isinstance(evidence, dict):
        criterion = {level: [c for c in criterion[level] if c.get("quantity") in evidence]
                     for level in ("reproduced", "partly", "inconclusive") if criterion.get(level)}
        criterion = {k: v for k, v in criterion.items() if v}
        assert criterion.get("reproduced"), f"{claim_id}: paper_evidence names none of the judged quantities"
    assert verdict(criterion, evidence) == "reproduced", claim_id


def test_inconclusive_is_judged_first_and_needs_every_condition():
    criterion = {"reproduced": [{"quantity": "low", "at_least": 2}],
                 "partly": [{"quantity": "low", "at_least": 1}],
                 "inconclusive": [{"quantity": "low", "less_than": 2}, {"quantity": "high", "at_least": 2}]}
    assert verdict(criterion, {"low": 2.5, "high": 3}) == "reproduced"
    assert verdict(criterion, {"low": 1.5, "high": 3}) == "inconclusive"
    assert verdict(criterion, {"low": 1.5, "high": 1.9}) == "partly"
    assert verdict(criterion, {"low": 0.1, "high": 0.9}) == "not reproduced"
    assert "inconclusive if low < 2 and high >= 2" in describe(criterion)
    check_can_fail_and_pass("interval", criterion)


def test_reading_and_paper_evidence_are_checked(tmp_path):
    row = {"id": "a", "paper": "P", "where": "§1", "claim": "c", "paper_value": "1", "family": "f",
           "reading": "how the claim is read", "quantity": "x", "criterion": {"reproduced": [{"at_most": 1.0}]},
           "ours": "{value}"}
    without_reading = {k: v for k, v in row.items() if k != "reading"}
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump([without_reading]))
    with pytest.raises(ClaimsError, match="lacks reading"):  # every row says how it reads the paper
        load_paper_claims(path)
    for extra, match in [({"reading": ""}, "reading"), ({"reading": 3}, "reading"), ({"paper_evidence": "small"}, "paper_evidence"),
                         ({"paper_evidence": 1.0, "criterion": "information"}, "no criterion")]:
        path = tmp_path / "claims.yaml"
        path.write_text(yaml.safe_dump([{**row, **extra}]))
        with pytest.raises(ClaimsError, match=match):
            load_paper_claims(path)


@pytest.mark.parametrize("op, bound, good, bad", [
    ("at_least", 2.0, 2.0, 1.999),
    ("at_most", 2.0, 2.0, 2.001),
    ("greater_than", 2.0, 2.001, 2.0),
    ("less_than", 2.0, 1.999, 2.0),
    ("between", [1.0, 3.0], 3.0, 3.001),
])
def test_each_comparison(op, bound, good, bad):
    criterion = {"reproduced": [{op: bound}]}
    assert verdict(criterion, good) == "reproduced"
    assert verdict(criterion, bad) == "not reproduced"


def test_equals_with_tolerance_and_booleans():
    assert verdict({"reproduced": [{"equals": 16, "tolerance": 0}]}, 16) == "reproduced"
    assert verdict({"reproduced": [{"equals": 16, "tolerance": 0}]}, 32) == "not reproduced"
    assert verdict({"reproduced": [{"equals": 1}]}, True) == "reproduced"
    assert verdict({"reproduced": [{"equals": 1}]}, False) == "not reproduced"
    assert verdict({"reproduced": [{"equals": 0.5, "tolerance": 0.01}]}, 0.505) == "reproduced"


def test_partly_and_named_quantities():
    criterion = {"reproduced": [{"quantity": "ratio", "at_least": 100}, {"quantity": "share", "at_least": 0.9}],
                 "partly": [{"quantity": "ratio", "at_least": 10}]}
    assert verdict(criterion, {"ratio": 150, "share": 0.95}) == "reproduced"
    assert verdict(criterion, {"ratio": 150, "share": 0.5}) == "partly"
    assert verdict(criterion, {"ratio": 5, "share": 0.95}) == "not reproduced"
    with pytest.raises(ClaimsError, match="no quantity 'share'"):
        verdict(criterion, {"ratio": 150})
    with pytest.raises(ClaimsError, match="single number"):
        verdict(criterion, 3.0)


@pytest.mark.parametrize("value", [math.nan, math.inf, None])
def test_non_finite_or_missing_values_fail(value):
    assert verdict({"reproduced": [{"at_most": 1e300}]}, value) == "not reproduced"


@pytest.mark.parametrize("criterion", [
    {}, {"partly": [{"at_least": 1}]}, {"reproduced": []}, {"reproduced": [{"at_least": "x"}]},
    {"reproduced": [{"at_least": 1, "at_most": 2}]}, {"reproduced": [{"between": [3, 1]}]},
    {"reproduced": [{"at_least": 1, "tolerance": 1}]}, {"reproduced": [{"at_least": 1}], "maybe": []},
    {"reproduced": [{"at_least": math.nan}]}, "sometimes",
])
def test_malformed_criteria_are_refused(criterion):
    with pytest.raises(ClaimsError):
        check_criterion(criterion)


def test_information_rows_and_the_table(tmp_path):
    rows = [
        {"id": "a", "paper": "P", "where": "§1", "claim": "c", "paper_value": "1", "family": "f", "reading": "r",
         "quantity": "x", "criterion": {"reproduced": [{"at_most": 1.0}], "partly": [{"at_most": 2.0}]},
         "ours": "{value}"},
        {"id": "b", "paper": "P", "where": "§1", "claim": "c", "paper_value": "1", "family": "f", "reading": "r",
         "quantity": "seconds", "criterion": "information", "ours": "{value:seconds}"},
        {"id": "c", "paper": "P", "where": "§1", "claim": "c", "paper_value": "1", "family": "g", "reading": "r"},
    ]
    got = {"a": measured(1.5), "b": measured(3.0)}
    table = build_table(rows, got, smoke=False)
    assert list(table["verdict"]) == ["partly", "information", "not yet run"]
    assert describe(rows[0]["criterion"]) == "reproduced if value <= 1; partly if value <= 2"
    with pytest.raises(ClaimsError, match="no row"):
        build_table(rows, {"z": measured(1)}, smoke=False)
    with pytest.raises(ClaimsError, match="no criterion"):
        row_verdict(rows[2], measured(1))
    write_claims(tmp_path / "c.json", "f", got, smoke=True)
    with pytest.raises(ClaimsError):
        write_claims(tmp_path / "c.json", "f", {"a": {"ours": "x"}}, smoke=True)
    assert list(table["ours"]) == ["1.5", "3 s", ""]


def test_rows_of_a_family_without_its_data_set_need_data(tmp_path):
    """A family skipped for want of its data set reads "needs data", its own class: counted in the summary, coloured
    apart, never "not reproduced"; the step takes the families from its settings and refuses malformed ones."""
    from dogs.experiments import paper_vs_ours

    rows = [
        {"id": "a", "paper": "P", "where": "§1", "claim": "c", "paper_value": "1", "family": "f", "reading": "r",
         "quantity": "x", "criterion": {"reproduced": [{"at_most": 1.0}]}, "ours": "{value}"},
        {"id": "b", "paper": "P", "where": "§2", "claim": "c", "paper_value": "1", "family": "data_family", "reading": "r",
         "quantity": "x", "criterion": {"reproduced": [{"at_most": 1.0}]}, "ours": "{value}"},
        {"id": "c", "paper": "P", "where": "§3", "claim": "c", "paper_value": "1", "family": "g", "reading": "r"},
    ]
    got = {"a": measured(0.5)}
    table = build_table(rows, got, smoke=False, needs_data={"data_family": "some_set"})
    assert list(table["verdict"]) == ["reproduced", "needs data", "not yet run"]
    assert "some_set" in table["ours"][1]
    markdown = paper_vs_ours.to_markdown(table, smoke=False)
    assert "Summary: reproduced: 1, partly: 0, inconclusive: 0, not reproduced: 0, information: 0, needs data: 1, " \
           "not yet run: 1" in markdown
    assert "Rows marked 'needs data'" in markdown
    page = paper_vs_ours.to_html(table, smoke=False)
    colours = paper_vs_ours._VERDICT_COLOURS
    assert len(set(colours.values())) == len(colours) and set(colours) == set(VERDICTS)
    assert f'<tr style="background:{colours["needs data"]}">' in page and "needs data: 1" in page
    # Without the data flag the same row reads "not yet run"; a family that has no row, or whose claims were measured
    # although it waits for data, is an error.
    assert list(build_table(rows, got, smoke=False)["verdict"]) == ["reproduced", "not yet run", "not yet run"]
    with pytest.raises(ClaimsError, match="no row"):
        build_table(rows, got, smoke=False, needs_data={"msrc_typo": "some_set"})
    with pytest.raises(ClaimsError, match="waits for its data set"):
        build_table(rows, {**got, "b": measured(0.5)}, smoke=False, needs_data={"data_family": "some_set"})
    # The step: settings {"needs_data": {...}}, checked before any work.
    claims = tmp_path / "claims.yaml"
    claims.write_text(yaml.safe_dump(rows))
    outputs = {"md": tmp_path / "t.md", "csv": tmp_path / "t.csv", "html": tmp_path / "t.html"}
    argv = ["summarise", "--input", f"claims={claims}", *sum((["--output", f"{k}={v}"] for k, v in outputs.items()), [])]
    assert paper_vs_ours.EXPERIMENT.main([*argv, "--settings", '{"needs_data": {"data_family": "some_set"}}']) == 0
    assert "needs data: 1" in outputs["md"].read_text()
    for bad in ('{"needs_data": ["data_family"]}', '{"needs_data": {"data_family": ""}}', '{"other": 1}'):
        with pytest.raises(SystemExit):
            paper_vs_ours.EXPERIMENT.main([*argv, "--settings", bad])


# ---------------------------------------------------------------- the ours templates
RECORDED = ROOT / "tests" / "data" / "claims"  # measured claims of a smoke run (the templated families)


PAPER_FILES = {"annular.yaml": "Annular augmentation", "dogs.yaml": "DoGS", "he2016.yaml": "He et al. 2016"}


def test_claims_files_are_split_by_paper_or_family_with_short_lines():
    """A paper's file holds its claims and the findings beyond the papers that sit beside them; any other file is
    a family of our own (dogs.experiments.FAMILIES), named after it, all of whose rows are beyond the papers."""
    from dogs.claims import BEYOND_THE_PAPERS, PAPER_ORDER
    from dogs.experiments import FAMILIES

    families = {experiment.config_section for experiment in FAMILIES}
    for path in sorted(PAPER_CLAIMS.glob("*.yaml")):
        long = [n for n, line in enumerate(path.read_text().splitlines(), 1) if len(line) > 120]
        assert not long, f"{path.name}: lines over 120 characters: {long}"
        rows = load_paper_claims(path)
        assert all(row["paper"] in (*PAPER_ORDER, BEYOND_THE_PAPERS) for row in rows), path.name
        if path.name in PAPER_FILES:
            assert {row["paper"] for row in rows} - {BEYOND_THE_PAPERS} == {PAPER_FILES[path.name]}, path.name
        else:
            assert path.stem in families, f"{path.name} is neither a paper's nor a family's claims file"
            assert {(row["paper"], row["family"]) for row in rows} == {(BEYOND_THE_PAPERS, path.stem)}, path.name
    assert {row["family"] for row in load_paper_claims(PAPER_CLAIMS)} <= families


def test_rows_beyond_the_papers_follow_the_papers_and_are_counted_apart():
    """A finding of our own is listed after every paper and its verdict is in no paper's count."""
    from dogs.claims import BEYOND_THE_PAPERS
    from dogs.experiments import paper_vs_ours

    def row(row_id, paper):
        return {"id": row_id, "paper": paper, "where": "§1", "claim": "c", "paper_value": "1", "family": "f",
                "reading": "r", "quantity": "x", "criterion": {"reproduced": [{"at_most": 1.0}]}, "ours": "{value}"}

    rows = [row("ours", BEYOND_THE_PAPERS), row("dogs", "DoGS"), row("other", "Another paper")]
    table = build_table(rows, {"ours": measured(2.0), "dogs": measured(0.5), "other": measured(0.5)}, smoke=False)
    assert list(table["id"]) == ["dogs", "other", "ours"] and list(table["family"]) == ["f"] * 3
    summary = paper_vs_ours._summary(table)
    assert summary.startswith("reproduced: 2, partly: 0, inconclusive: 0, not reproduced: 0,")
    assert summary.endswith("; beyond the papers (1 rows, counted apart): not reproduced: 1")


def test_every_measured_row_has_a_template_and_in_code_wording_is_listed():
    rows = load_paper_claims(PAPER_CLAIMS)
    assert all(isinstance(row["ours"], str) for row in rows if "criterion" in row)
    assert {row["id"] for row in rows if row.get("ours") == "{text}"} == WORDED_IN_CODE


def test_every_template_placeholder_is_measured_in_a_recorded_run():
    """Every placeholder of the templates of the recorded families is among the quantities the experiment wrote,
    and every template renders from them."""
    from dogs.claims import load_measured, template_fields

    got = load_measured(sorted(RECORDED.glob("*.json")))
    rows = {row["id"]: row for row in load_paper_claims(PAPER_CLAIMS)}
    families = {rows[i]["family"] for i in got}
    templated = [row for row in rows.values() if row["family"] in families]
    # Each recording is one family's claims file, named after it; a family without one (a new family) has its
    # templates rendered by the smoke workflow test (tests/test_workflow.py), whose table step refuses a template
    # that names an unmeasured quantity.
    assert {path.stem for path in RECORDED.glob("*.json")} == families <= {row["family"] for row in rows.values()}
    assert len(templated) == len(got)
    for row in templated:
        claim = got[row["id"]]
        names = {"value", *claim["quantities"], *(claim["value"] if isinstance(claim["value"], dict) else ())}
        assert template_fields(row["ours"]) <= names, row["id"]
        assert "{" not in render_ours(row, claim), row["id"]
    text = render_ours(rows["dogs_s52_estimate_settles_faster"], got["dogs_s52_estimate_settles_faster"])
    assert text.startswith("|running estimate of E[X_1]| stays <= ")


def test_optional_clauses_of_aa_fig5_on_par_read_both_ways():
    """AA Fig. 5's on-par row words two optional clauses by lists of one ratio or none (ours_lists empty)."""
    from dogs.claims import load_measured

    row = {row["id"]: row for row in load_paper_claims(PAPER_CLAIMS)}["aa_fig5_hmc_cmh_on_par"]
    claim = load_measured([RECORDED / "annular_ising.json"])["aa_fig5_hmc_cmh_on_par"]
    worse = {**claim, "quantities": {**claim["quantities"], "worse_by": [1.5], "better_by": [2.0]}}
    text = render_ours(row, worse)
    assert "are never worse by more than 1.50x (worst: " in text and text.endswith(") and up to 2.0x better")
    better = {**claim, "quantities": {**claim["quantities"], "worse_by": [], "better_by": []}}
    text = render_ours(row, better)
    assert "are better everywhere (worst: " in text and text.endswith(")")


def test_render_refuses_an_unmeasured_placeholder_and_words_lists():
    row = {"id": "r", "ours": "{n} runs: {runs}; best {best:.2f}; took {t:seconds}",
           "ours_lists": {"runs": {"item": "{key} {value:.1f}", "sep": ", "}}}
    claim = measured({"best": 0.5}, n=2, runs={"a": 1.0, "b": 2.0}, t=0.0123)
    assert render_ours(row, claim) == "2 runs: a 1.0, b 2.0; best 0.50; took 12.3 ms"
    with pytest.raises(ClaimsError, match="'n'.*does not measure"):
        render_ours(row, measured({"best": 0.5}, runs={}, t=None))
    missing = {"id": "m", "ours": "{a}", "ours_lists": {"xs": {"item": "{value}", "none": "never", "sep": "/"}}}
    assert render_ours({**missing, "ours": "{xs}"}, measured(1, xs=[1, None, 3])) == "1/never/3"
    empty = {"id": "e", "ours": "above at: {xs}",
             "ours_lists": {"xs": {"item": "{value}", "sep": ", ", "empty": "none"}}}
    assert render_ours(empty, measured(1, xs=[])) == "above at: none"
    assert render_ours(empty, measured(1, xs=[2, 3])) == "above at: 2, 3"
    nested = {"id": "n", "ours": "{variants}",
              "ours_lists": {"variants": {"item": "{key}: {errors}", "sep": "; ",
                                          "lists": {"errors": {"item": "{value:.1f}", "sep": ", "}}}}}
    assert render_ours(nested, measured(1, variants={"x": {"errors": [1, 2]}})) == "x: 1.0, 2.0"
    with pytest.raises(ClaimsError, match="also a judged value"):
        measured({"a": 1}, a=2)


@pytest.mark.parametrize("bad", [{"ours": 3}, {"ours": "{"}, {"ours": "{0}"}, {"ours": "{text}"},
                                 {"ours": "{a}", "ours_lists": {"a": {"sep": ","}}},
                                 {"ours": "{a}", "ours_lists": {"a": {"item": "{value}", "empty": "{"}}}])
def test_malformed_templates_are_refused(tmp_path, bad):
    row = {"id": "a", "paper": "P", "where": "§1", "claim": "c", "paper_value": "1", "family": "f",
           "reading": "r", "quantity": "x", "criterion": {"reproduced": [{"at_most": 1.0}]}, **bad}
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump([row]))
    with pytest.raises(ClaimsError):
        load_paper_claims(path)


# ---------------------------------------------------------------- verdicts over draws
def test_a_noisy_row_reads_reproduced_only_when_its_draws_agree():
    """AA Fig. 3 at paper scale: the majority of 3 bias draws won every comparison, one draw at a time 2 of 3 read
    partly; the row reads partly and shows the split."""
    from dogs.claims import seeded_verdict

    criterion = {"reproduced": [{"quantity": "node_share", "at_least": 0.9}, {"quantity": "pairwise_share", "at_least": 0.9}],
                 "partly": [{"quantity": "node_share", "at_least": 0.5}, {"quantity": "pairwise_share", "at_least": 0.5}]}
    pooled = {"node_share": 1.0, "pairwise_share": 1.0}
    draws = [{"node_share": 0.75, "pairwise_share": 0.75}, {"node_share": 0.86, "pairwise_share": 0.75},
             {"node_share": 1.0, "pairwise_share": 1.0}]
    assert seeded_verdict(criterion, pooled, draws) == ("partly", ["partly", "partly", "reproduced"])
    assert seeded_verdict(criterion, pooled, draws, "typical")[0] == "reproduced"
    assert seeded_verdict(criterion, pooled, [pooled] * 3)[0] == "reproduced"
    assert seeded_verdict(criterion, pooled, None) == ("reproduced", [])
    # a split with one supporting draw is partly; draws that all fail keep the pooled verdict
    low = {"node_share": 0.2, "pairwise_share": 0.2}
    assert seeded_verdict(criterion, low, [low, low, pooled])[0] == "partly"
    assert seeded_verdict(criterion, low, [low, low, low])[0] == "not reproduced"
    with pytest.raises(ClaimsError):
        seeded_verdict(criterion, pooled, draws, "majority")
    row = {"id": "a", "paper": "P", "where": "§1", "claim": "c", "paper_value": "1", "family": "f", "reading": "r",
           "quantity": "x", "criterion": criterion, "ours": "{node_share}", "per_seed": "all"}
    table = build_table([row], {"a": measured(pooled, by_seed=draws)}, smoke=False)
    assert table["verdict"][0] == "partly"
    assert table["verdict_by_seed"][0] == "3 seeds: 2 partly, 1 reproduced (partly, partly, reproduced)"
    with pytest.raises(ClaimsError, match="by_seed"):
        build_table([row], {"a": measured(pooled)}, smoke=False)


def test_every_noisy_row_is_judged_per_draw():
    """A row measured from independent draws (``by_seed``: annular bias draws, Boltzmann chains, torus and 10x10
    replicates) declares its rule over draws, and a row that declares one is measured per draw: either lack is an
    error of the table step, not a silently pooled verdict, so any family's noisy rows are checked by every run (the
    smoke workflow test) and here by the recorded smoke claims; a row read at the typical draw says why."""
    from dogs.claims import load_measured

    rows = load_paper_claims(PAPER_CLAIMS)
    got = load_measured(sorted(RECORDED.glob("*.json")))
    noisy = [row for row in rows if "by_seed" in got.get(row["id"], {})]
    assert noisy and all(row.get("per_seed") in ("all", "typical") for row in noisy)
    for row in rows:
        if row.get("per_seed") == "typical":
            assert "typical" in row["reading"], row["id"]
    row = {"id": "a", "paper": "P", "where": "§1", "claim": "c", "paper_value": "1", "family": "f", "reading": "r",
           "quantity": "x", "criterion": {"reproduced": [{"at_most": 1.0}]}, "ours": "{value}"}
    with pytest.raises(ClaimsError, match="declare its rule over draws"):
        build_table([row], {"a": measured(0.5, by_seed=[0.5, 0.7])}, smoke=False)


def test_the_table_lists_the_papers_in_paper_order():
    """DoGS first, then He et al., then annular augmentation, whatever the claims files' order; within a paper the
    files' order stays."""
    from dogs.claims import PAPER_ORDER

    rows = [{"id": f"{paper}-{k}", "paper": paper, "where": "§1", "claim": "c", "paper_value": "1", "family": "f",
             "reading": "r"} for paper in ("Beyond the papers", "Annular augmentation", "DoGS", "He et al. 2016")
            for k in (2, 1)]
    table = build_table(rows, {}, smoke=False)
    assert list(table["id"]) == ["DoGS-2", "DoGS-1", "He et al. 2016-2", "He et al. 2016-1",
                                 "Annular augmentation-2", "Annular augmentation-1", "Beyond the papers-2",
                                 "Beyond the papers-1"]
    assert PAPER_ORDER[0] == "DoGS"
