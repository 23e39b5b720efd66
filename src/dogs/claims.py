"""Paper-vs-ours claims as data: experiments report measured numbers, ``config/paper_claims.yaml`` judges them.

``config/paper_claims.yaml`` holds one row per published claim: where it is, what the paper says, the
paper's value, the *quantity* we compare and the *criterion* that turns our measured value into a
verdict. Each experiment's *summarise* step only measures: it writes ``<results>/claims/<family>.json``
with, per claim id, a readable text and the measured number(s) (:func:`measured`). The renderer
(:mod:`dogs.experiments.paper_vs_ours`) joins the two and applies :func:`verdict`; a claim with no
measurement reads "needs data" when its experiment family did not run for want of its data set (the
workflow skips that family and tells the renderer so), and "not yet run" otherwise. No
threshold lives in experiment code.

Every row also carries a ``reading``: the sentence of the paper it tests, the figure convention it
follows and why each threshold is where it is, so that a reader can check that the criterion reads the
paper as written, no harsher and no softer. Where the paper prints numbers or derives the effect, the
row records them as ``paper_evidence``, in the criterion's own quantities (a number, or a mapping
``{quantity: number}``); the tests check that the paper's own evidence passes its criterion
(``verdict(criterion, paper_evidence) == "reproduced"``), beside the check that contradicting numbers
fail it.

A criterion (YAML) has the keys ``reproduced`` and, optionally, ``partly`` and ``inconclusive``; each
is a list of conditions that must all hold. A condition names the measured quantity (``quantity:``, omitted when
the experiment reports a single number) and one comparison:

``at_least: x`` / ``at_most: x``
    ``value >= x`` / ``value <= x``;
``greater_than: x`` / ``less_than: x``
    strict versions;
``between: [lo, hi]``
    ``lo <= value <= hi``;
``equals: x`` (with optional ``tolerance: t``)
    ``|value - x| <= t`` (``t = 0`` by default; booleans compare as 0/1).

The verdict is **inconclusive** when every ``inconclusive`` condition holds (the measurement cannot
separate the outcomes: an interval straddling the threshold, a quantity at chance level), else
**reproduced** when every ``reproduced`` condition holds, **partly** when every ``partly`` condition
holds, and **not reproduced** otherwise. ``inconclusive`` is judged first because data that cannot
decide must not be read as either answer. A missing or non-finite quantity fails
its condition. A row with ``criterion: information`` reports a measured value that the paper states
without a testable claim (absolute times on other hardware, say): its verdict is **information**.

Example::

    - id: dogs_s51_dogs_two_orders
      ...
      quantity: "median over replicates of log10(systematic / DoGS guarantee) where systematic <= 1e-2"
      criterion:
        reproduced: [{at_least: 2.0}]
        partly: [{at_least: 1.0}]
"""

from __future__ import annotations

import math
import numbers
from pathlib import Path

import yaml

from dogs.io import read_json, write_json

__all__ = [
    "VERDICTS",
    "ClaimsError",
    "check_criterion",
    "describe",
    "load_measured",
    "load_paper_claims",
    "measured",
    "verdict",
    "write_claims",
]

VERDICTS = ("reproduced", "partly", "inconclusive", "not reproduced", "information", "needs data", "not yet run")
NEEDS_DATA = "needs data"  # the renderer's verdicts for a claim with no measurement
NOT_YET_RUN = "not yet run"
_REQUIRED = ("id", "paper", "where", "claim", "paper_value", "family", "reading")
_LEVELS = ("inconclusive", "reproduced", "partly")  # the order in which verdict() tries them
_COMPARISONS = ("at_least", "at_most", "greater_than", "less_than", "between", "equals")
INFORMATION = "information"


class ClaimsError(ValueError):
    """A malformed claims file, criterion or measured claim; the message names the claim."""


# ---------------------------------------------------------------- the experiment side
def measured(ours: str, value, *, by_seed=None, **details) -> dict:
    """One measured claim: readable text ``ours`` and the measured ``value`` that the criterion judges.

    ``value`` is a number or bool, or a dict ``{quantity: number or bool}`` when the criterion names
    several quantities. ``by_seed``, for a claim read from noisy numbers, is the same value computed from
    each independent seed (repetition) alone: the table judges each too, so a reader sees whether the
    verdict holds at every seed or rests on one lucky run. ``details`` are extra numbers kept in the
    claims file for the reader.
    """
    if not isinstance(ours, str):
        raise ClaimsError(f"ours must be a readable string, got {type(ours).__name__}")
    _check_value(value)
    claim = {"ours": ours, "value": value, "details": details}
    if by_seed is not None:
        if not isinstance(by_seed, (list, tuple)) or not by_seed:
            raise ClaimsError("by_seed must be a non-empty list of values, one per seed")
        for item in by_seed:
            _check_value(item)
        claim["by_seed"] = list(by_seed)
    return claim


def write_claims(path, family: str, claims: dict, *, smoke: bool) -> Path:
    """Write ``{claim id: measured(...)}`` for one experiment family."""
    for key, value in claims.items():
        if not isinstance(value, dict) or not {"ours", "value", "details"} <= set(value) <= {"ours", "value", "details",
                                                                                            "by_seed"}:
            raise ClaimsError(f"claim {key!r} must be built with dogs.claims.measured(...)")
    return write_json(path, {"family": family, "smoke": bool(smoke), "claims": claims})


def load_measured(paths) -> dict:
    """Merge the claims JSON files of all families: ``{claim id: measured claim}``."""
    merged = {}
    for path in paths:
        for key, value in read_json(path)["claims"].items():
            if key in merged:
                raise ClaimsError(f"claim {key!r} is measured by two families ({path})")
            merged[key] = value
    return merged


# ---------------------------------------------------------------- the paper side
def load_paper_claims(path) -> list[dict]:
    """Read and check ``config/paper_claims.yaml``: unique ids, the required keys, well-formed criteria."""
    rows = yaml.safe_load(Path(path).read_text())
    if not isinstance(rows, list):
        raise ClaimsError(f"{path}: expected a list of claims")
    seen = set()
    for n, row in enumerate(rows):
        if not isinstance(row, dict):
            raise ClaimsError(f"{path}: claim #{n} is not a mapping")
        missing = [k for k in _REQUIRED if k not in row]
        if missing:
            raise ClaimsError(f"{path}: claim #{n} ({row.get('id', '?')}) lacks {', '.join(missing)}")
        if row["id"] in seen:
            raise ClaimsError(f"{path}: duplicate claim id {row['id']!r}")
        seen.add(row["id"])
        if not (isinstance(row["reading"], str) and row["reading"].strip()):
            raise ClaimsError(f"{path}: claim {row['id']!r}: 'reading' must be a non-empty text")
        if "criterion" in row:
            if "quantity" not in row:
                raise ClaimsError(f"{path}: claim {row['id']!r} has a criterion but no 'quantity' (what is compared)")
            check_criterion(row["criterion"], row["id"])
        if "paper_evidence" in row:
            if not isinstance(row.get("criterion"), dict):
                raise ClaimsError(f"{path}: claim {row['id']!r} has paper_evidence but no criterion to judge it")
            try:
                _check_value(row["paper_evidence"])
            except ClaimsError as exc:
                raise ClaimsError(f"{path}: claim {row['id']!r}: paper_evidence: {exc}") from None
    return rows


def check_criterion(criterion, claim_id: str = "?") -> None:
    """Raise :class:`ClaimsError` unless ``criterion`` is ``"information"`` or a well-formed mapping."""
    if criterion == INFORMATION:
        return
    if not isinstance(criterion, dict) or "reproduced" not in criterion:
        raise ClaimsError(f"claim {claim_id!r}: criterion must be 'information' or a mapping with 'reproduced'")
    unknown = set(criterion) - set(_LEVELS)
    if unknown:
        raise ClaimsError(f"claim {claim_id!r}: unknown criterion keys {sorted(unknown)}")
    for level in _LEVELS:
        conditions = criterion.get(level)
        if conditions is None and level != "reproduced":
            continue
        if not isinstance(conditions, list) or not conditions:
            raise ClaimsError(f"claim {claim_id!r}: criterion.{level} must be a non-empty list of conditions")
        for condition in conditions:
            _check_condition(condition, f"claim {claim_id!r}: criterion.{level}")


def _check_condition(condition, where: str) -> None:
    if not isinstance(condition, dict):
        raise ClaimsError(f"{where}: a condition must be a mapping, got {condition!r}")
    ops = [k for k in condition if k in _COMPARISONS]
    extra = set(condition) - set(_COMPARISONS) - {"quantity", "tolerance"}
    if len(ops) != 1 or extra:
        raise ClaimsError(f"{where}: a condition needs exactly one of {_COMPARISONS} (and optionally "
                          f"'quantity', 'tolerance'), got {sorted(condition)}")
    (op,) = ops
    bound = condition[op]
    if op == "between":
        if not (isinstance(bound, list) and len(bound) == 2 and all(_is_number(b) for b in bound) and bound[0] <= bound[1]):
            raise ClaimsError(f"{where}: 'between' takes [lo, hi] with lo <= hi, got {bound!r}")
    elif not _is_number(bound):
        raise ClaimsError(f"{where}: {op!r} takes a finite number, got {bound!r}")
    if "tolerance" in condition and (op != "equals" or not _is_number(condition["tolerance"]) or condition["tolerance"] < 0):
        raise ClaimsError(f"{where}: 'tolerance' is a non-negative number and goes with 'equals' only")
    if "quantity" in condition and not isinstance(condition["quantity"], str):
        raise ClaimsError(f"{where}: 'quantity' must be a name")


# ---------------------------------------------------------------- the judgement
def verdict(criterion, value) -> str:
    """The verdict of a measured ``value`` under ``criterion`` (module docstring)."""
    check_criterion(criterion)
    if criterion == INFORMATION:
        return INFORMATION
    for level in _LEVELS:
        if criterion.get(level) and all(_holds(c, value) for c in criterion[level]):
            return level
    return "not reproduced"


def _holds(condition: dict, value) -> bool:
    name = condition.get("quantity")
    if name is None:
        if isinstance(value, dict):
            raise ClaimsError(f"the measured value has quantities {sorted(value)}; the condition must name one")
        x = value
    else:
        if not isinstance(value, dict):
            raise ClaimsError(f"the condition names quantity {name!r} but the measured value is a single number")
        if name not in value:
            raise ClaimsError(f"the measured value has no quantity {name!r} (it has {sorted(value)})")
        x = value[name]
    if x is None:
        return False
    x = float(x)
    if not math.isfinite(x):
        return False
    if "at_least" in condition:
        return x >= condition["at_least"]
    if "at_most" in condition:
        return x <= condition["at_most"]
    if "greater_than" in condition:
        return x > condition["greater_than"]
    if "less_than" in condition:
        return x < condition["less_than"]
    if "between" in condition:
        lo, hi = condition["between"]
        return lo <= x <= hi
    return abs(x - float(condition["equals"])) <= float(condition.get("tolerance", 0.0))


def describe(criterion) -> str:
    """The criterion in words, for the table: ``reproduced if ratio >= 100; partly if ratio >= 10``."""
    if criterion == INFORMATION:
        return "information only"
    parts = []
    for level in ("reproduced", "partly", "inconclusive"):
        if criterion.get(level):
            parts.append(f"{level} if " + " and ".join(_describe_condition(c) for c in criterion[level]))
    return "; ".join(parts)


_SYMBOLS = {"at_least": ">=", "at_most": "<=", "greater_than": ">", "less_than": "<"}


def _describe_condition(condition: dict) -> str:
    name = condition.get("quantity", "value")
    for op, symbol in _SYMBOLS.items():
        if op in condition:
            return f"{name} {symbol} {condition[op]:g}"
    if "between" in condition:
        lo, hi = condition["between"]
        return f"{lo:g} <= {name} <= {hi:g}"
    tolerance = condition.get("tolerance", 0)
    return f"{name} = {condition['equals']:g}" + (f" ± {tolerance:g}" if tolerance else "")


def _is_number(x) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(x)


def _check_value(value) -> None:
    if isinstance(value, dict):
        if not value:
            raise ClaimsError("a measured value dict needs at least one quantity")
        for name, item in value.items():
            if not isinstance(name, str):
                raise ClaimsError(f"quantity names must be strings, got {name!r}")
            _check_value(item)
        return
    if value is None or isinstance(value, (bool, numbers.Real)) or (hasattr(value, "item") and getattr(value, "ndim", 1) == 0):
        return
    raise ClaimsError(f"a measured value is a number, a bool, None or a dict of them, got {type(value).__name__}")
