"""Mutants of the criteria of ``config/claims/``: every numeric threshold moved by a quarter, either way.

A criterion reads the paper no harsher and no softer only if its thresholds sit where realistic measurements
fall: moving any of them a little must change the class (reproduced, partly, inconclusive, not reproduced) of some
realistic reading of its row (``tests/data/claim_readings.yaml``). This module builds the mutants and judges them
in process with :func:`dogs.claims.verdict`, so that the test (``tests/test_claim_readings.py``) runs in well
under a second.

A *threshold* is one number of one condition of one level of a row's criterion: the bound of ``at_least``,
``at_most``, ``greater_than``, ``less_than``; each end of a ``between``; the target of an ``equals``. It is
labelled ``"<level>[<k>] <quantity> <op>"`` (``"... between low"`` / ``"... between high"`` for the ends), the
quantity being ``value`` when the row judges a single number. Each threshold ``t`` moves by
``d = MOVE * |t|`` up and down (labels ``"... up"`` / ``"... down"``); a threshold 0 moves by ``MOVE`` times the
size that matters for its quantity, which the row's readings state (``scale``). An end of a ``between`` stops at
the other end. An ``equals`` also gains a tolerance of ``d`` (label ``"... tolerance"``), its lenient move. A row
that shares its criterion with others (a YAML anchor) is mutated on its own, so every row's readings must catch
every mutant of it.
"""

from __future__ import annotations

import copy

from dogs.claims import verdict

MOVE = 0.25  # a threshold moves by this share of its size
LEVELS = ("reproduced", "partly", "inconclusive")
ONE_SIDED = ("at_least", "at_most", "greater_than", "less_than")


def step(t: float, quantity, scale: dict, move: float = MOVE) -> float:
    """How far a threshold ``t`` moves: ``move * |t|``, or for ``t = 0`` ``move`` times ``scale[quantity]``."""
    if t != 0:
        return move * abs(t)
    name = quantity or "value"
    if name not in scale:
        raise KeyError(f"a threshold 0 on {name!r} needs the size that matters for it (scale: {{{name}: ...}})")
    return move * float(scale[name])


def thresholds(criterion: dict) -> list[tuple[str, str, int, str, int | None]]:
    """Every threshold of a criterion: ``(label, level, k, op, end)`` (``end`` 0 or 1 for a ``between``)."""
    out = []
    for level in LEVELS:
        for k, condition in enumerate(criterion.get(level) or []):
            op = next(op for op in (*ONE_SIDED, "between", "equals") if op in condition)
            name = f"{level}[{k}] {condition.get('quantity', 'value')} {op}"
            if op == "between":
                out += [(f"{name} low", level, k, op, 0), (f"{name} high", level, k, op, 1)]
            else:
                out.append((name, level, k, op, None))
    return out


def mutants(criterion: dict, scale: dict, move: float = MOVE):
    """Every mutant of ``criterion``: ``(threshold label, move label, mutated criterion)``."""
    for label, level, k, op, end in thresholds(criterion):
        condition = criterion[level][k]
        t = float(condition[op][end] if op == "between" else condition[op])
        d = step(t, condition.get("quantity"), scale, move)
        for direction, new in (("up", t + d), ("down", t - d)):
            if op == "between":
                bound = list(condition["between"])
                bound[end] = min(new, bound[1]) if end == 0 else max(new, bound[0])  # stops at the other end
                changed = {**condition, "between": bound}
            else:
                changed = {**condition, op: new}
            yield label, f"{label} {direction}", _replace(criterion, level, k, changed)
        if op == "equals":
            changed = {**condition, "tolerance": float(condition.get("tolerance", 0.0)) + d}
            yield label, f"{label} tolerance", _replace(criterion, level, k, changed)


def _replace(criterion: dict, level: str, k: int, condition: dict) -> dict:
    out = copy.deepcopy(criterion)
    out[level][k] = condition
    return out


def classes(criterion: dict, readings: list) -> list[str]:
    """The class of every reading under ``criterion``."""
    return [verdict(criterion, item["value"]) for item in readings]


def survivors(criterion: dict, readings: list, scale: dict, move: float = MOVE) -> list[tuple[str, str]]:
    """The mutants under which no reading changes its class: ``(threshold label, move label)``."""
    before = classes(criterion, readings)
    return [(label, move_label) for label, move_label, mutated in mutants(criterion, scale, move)
            if classes(mutated, readings) == before]
