"""Rows that carry realistic example measurements: a supporting one must read reproduced, a contradicting one must not.

A row of ``config/claims/`` may list ``supporting`` and ``contradicting`` measurements in its criterion's own
quantities: what a successful replication and a failed one would plausibly print (not values at a threshold
plus or minus a rounding step). They guard the reading: a threshold moved to a lenient value lets a
contradicting measurement read reproduced, and this test fails.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dogs.claims import load_paper_claims, verdict

PAPER_CLAIMS = Path(__file__).resolve().parents[1] / "config" / "claims"


def _examples(kind: str):
    return [(row["id"], n, row["criterion"], example) for row in load_paper_claims(PAPER_CLAIMS)
            for n, example in enumerate(row.get(kind) or [])]


def test_example_measurements_are_lists_on_judged_rows():
    for row in load_paper_claims(PAPER_CLAIMS):
        for kind in ("supporting", "contradicting"):
            if kind in row:
                assert isinstance(row[kind], list) and row[kind], (row["id"], kind)
                assert isinstance(row.get("criterion"), dict), (row["id"], "examples need a criterion")


@pytest.mark.parametrize("claim_id, n, criterion, example", _examples("supporting"),
                         ids=[f"{e[0]}-{e[1]}" for e in _examples("supporting")] or None)
def test_a_supporting_measurement_reads_reproduced(claim_id, n, criterion, example):
    assert verdict(criterion, example) == "reproduced", (claim_id, example)


@pytest.mark.parametrize("claim_id, n, criterion, example", _examples("contradicting"),
                         ids=[f"{e[0]}-{e[1]}" for e in _examples("contradicting")] or None)
def test_a_contradicting_measurement_does_not_read_reproduced(claim_id, n, criterion, example):
    assert verdict(criterion, example) != "reproduced", (claim_id, example)
