"""Realistic readings of every judged row of config/claims/: each reads the class it should, and every threshold is
where realistic measurements fall (moved a quarter either way, it changes the class of some reading)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from claim_mutations import MOVE, classes, mutants, survivors, thresholds
from dogs.claims import load_paper_claims, verdict

ROOT = Path(__file__).resolve().parents[1]
READINGS = yaml.safe_load((ROOT / "tests" / "data" / "claim_readings.yaml").read_text())
CLASSES = ("reproduced", "partly", "inconclusive", "not reproduced")
LEVELS = ("reproduced", "partly", "inconclusive")


def _judged_rows() -> dict:
    return {row["id"]: row for row in load_paper_claims(ROOT / "config" / "claims")
            if row.get("criterion", "information") != "information"}


ROWS = _judged_rows()


def _scale(claim_id) -> dict:
    return {name: entry["size"] for name, entry in READINGS[claim_id].get("scale", {}).items()}


def _exempt(claim_id) -> dict:
    """``{label: (why, killed_at or None)}``: the row's exempted thresholds and moves."""
    out = {}
    for label, entry in READINGS[claim_id].get("exempt", {}).items():
        out[label] = (entry, None) if isinstance(entry, str) else (entry["why"], entry["killed_at"])
    return out


def _exempting(label: str, move_label: str, exempt: dict):
    """The exemption that covers a mutant: its threshold's label or its move's label (or ``None``)."""
    return next((key for key in (move_label, label) if key in exempt), None)


def test_every_judged_row_has_readings_and_nothing_else():
    """Every judged row has readings, each with its expected class and its reason; the file names no other row."""
    assert set(READINGS) == set(ROWS), (sorted(set(ROWS) - set(READINGS)), sorted(set(READINGS) - set(ROWS)))
    for claim_id, entry in READINGS.items():
        assert set(entry) <= {"readings", "scale", "exempt"} and entry["readings"], claim_id
        for item in entry["readings"]:
            assert set(item) <= {"value", "expect", "why", "holds"} and {"value", "expect", "why"} <= set(item), item
            assert item["expect"] in CLASSES, (claim_id, item)
            assert isinstance(item["why"], str) and item["why"].strip(), (claim_id, item)
            assert item.get("holds", True) is True, (claim_id, item)
        for name, entry_ in entry.get("scale", {}).items():
            assert entry_["size"] > 0 and entry_["why"].strip(), (claim_id, name)
        for label, (why, killed_at) in _exempt(claim_id).items():
            assert why.strip() and (killed_at is None or killed_at > MOVE), (claim_id, label)


@pytest.mark.parametrize("claim_id", sorted(READINGS))
def test_readings_are_valid_measurements(claim_id):
    """Each reading names every quantity its criterion judges, and every interval is one: low <= point <= high."""
    criterion = ROWS[claim_id]["criterion"]
    named = {c.get("quantity") for level in LEVELS for c in criterion.get(level) or []} - {None}
    for item in READINGS[claim_id]["readings"]:
        value = item["value"]
        if not named:
            assert not isinstance(value, dict) and math.isfinite(value), (claim_id, value)
            continue
        assert named <= set(value), (claim_id, sorted(named - set(value)))
        for name, low in value.items():
            if name.endswith("_low"):
                stem = name[:-4]
                high = value[stem + "_high"]
                assert low <= high, (claim_id, value)
                if stem in value:
                    assert low <= value[stem] <= high, (claim_id, value)


@pytest.mark.parametrize("claim_id", sorted(READINGS))
def test_every_reading_reads_its_expected_class(claim_id):
    criterion = ROWS[claim_id]["criterion"]
    for item in READINGS[claim_id]["readings"]:
        assert verdict(criterion, item["value"]) == item["expect"], (claim_id, item)


@pytest.mark.parametrize("claim_id", sorted(READINGS))
def test_every_class_a_row_can_give_has_a_reading(claim_id):
    """A reading inside every band of the criterion (reproduced, and partly and inconclusive where the row has them)
    and one that fails it."""
    criterion = ROWS[claim_id]["criterion"]
    expected = {item["expect"] for item in READINGS[claim_id]["readings"]}
    levels = {level for level in LEVELS if criterion.get(level)} | {"not reproduced"}
    assert levels <= expected, (claim_id, sorted(levels - expected))


@pytest.mark.parametrize("claim_id", sorted(READINGS))
def test_a_row_without_printed_numbers_says_what_over_strict_is_and_holds_as_the_paper_states(claim_id):
    """Where the paper prints no number for the claim (no paper_evidence), the row's reading says what an over-strict
    criterion would demand, and one reading in which the claim holds as the paper states it must read reproduced."""
    row = ROWS[claim_id]
    holds = [item for item in READINGS[claim_id]["readings"] if item.get("holds")]
    assert all(item["expect"] == "reproduced" for item in holds), claim_id
    if "paper_evidence" not in row:
        assert holds, f"{claim_id}: no reading in which the paper's claim holds (holds: true)"
        assert "over-strict" in row["reading"].lower(), f"{claim_id}: the reading does not say what over-strict is"


@pytest.mark.parametrize("claim_id", sorted(READINGS))
def test_every_threshold_moved_a_quarter_changes_a_reading(claim_id):
    """The mutation test: each numeric threshold of the row moved by a quarter up and down (an equals also given that
    much tolerance) changes the class of some reading, unless the row exempts it with its reason; an exemption with
    killed_at must be caught at that larger move, and every exemption names a mutant that survives."""
    criterion, readings, scale = ROWS[claim_id]["criterion"], READINGS[claim_id]["readings"], _scale(claim_id)
    exempt = _exempt(claim_id)
    labels = {label for label, *_ in thresholds(criterion)}
    moves = {move_label for _, move_label, _ in mutants(criterion, scale)}
    assert set(exempt) <= labels | moves, f"{claim_id}: exemptions name no mutant: {sorted(set(exempt) - labels - moves)}"
    used = set()
    for label, move_label in survivors(criterion, readings, scale):
        key = _exempting(label, move_label, exempt)
        assert key is not None, f"{claim_id}: {move_label}: no reading changes its class; add a near miss"
        used.add(key)
    assert used == set(exempt), f"{claim_id}: exempted mutants that some reading catches: {sorted(set(exempt) - used)}"
    before = classes(criterion, readings)
    for key, (_, killed_at) in exempt.items():
        if killed_at is None:
            continue
        wider = [mutated for label, move_label, mutated in mutants(criterion, scale, killed_at)
                 if key in (label, move_label)]
        assert wider and all(classes(mutated, readings) != before for mutated in wider), (claim_id, key, killed_at)


def test_scales_are_only_given_where_a_threshold_is_zero():
    for claim_id, entry in READINGS.items():
        criterion = ROWS[claim_id]["criterion"]
        zero = set()
        for label, level, k, op, end in thresholds(criterion):
            condition = criterion[level][k]
            if (condition[op][end] if op == "between" else condition[op]) == 0:
                zero.add(condition.get("quantity") or "value")
        assert set(entry.get("scale", {})) == zero, claim_id


def test_the_mutation_test_finds_a_threshold_without_a_near_miss():
    """A criterion whose partly threshold sits where no reading falls: both its moves survive, and a near miss kills
    the one it is near; an equals on a flag survives its tolerance; a 0 needs its scale."""
    criterion = {"reproduced": [{"at_least": 2.0}], "partly": [{"at_least": 1.0}]}
    readings = [{"value": 3.0}, {"value": 2.2}, {"value": 1.7}, {"value": 0.1}]
    assert survivors(criterion, readings, {}) == [("partly[0] value at_least", "partly[0] value at_least up"),
                                                  ("partly[0] value at_least", "partly[0] value at_least down")]
    assert survivors(criterion, readings + [{"value": 1.1}], {}) == [
        ("partly[0] value at_least", "partly[0] value at_least down")]
    flag = {"reproduced": [{"quantity": "done", "equals": 1}]}
    assert survivors(flag, [{"value": {"done": 1}}, {"value": {"done": 0}}], {}) == [
        ("reproduced[0] done equals", "reproduced[0] done equals tolerance")]
    with pytest.raises(KeyError, match="scale"):
        list(mutants({"reproduced": [{"greater_than": 0}]}, {}))
    # a move of a between's end stops at the other end
    narrow = {"reproduced": [{"between": [5.0, 6.0]}]}
    ends = {move: mutated["reproduced"][0]["between"] for _, move, mutated in mutants(narrow, {})}
    assert ends["reproduced[0] value between low up"] == [6.0, 6.0]
    assert ends["reproduced[0] value between high down"] == [5.0, 5.0]
