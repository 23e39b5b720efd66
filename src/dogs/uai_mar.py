"""Marginals in the UAI inference competition's MAR result format, written and read back.

A MAR result file is plain text: the line ``MAR``, then one line holding the number of variables
``n`` followed, for each variable ``i = 0..n-1`` in the model file's order, by its cardinality
``K_i`` and its ``K_i`` marginal probabilities :math:`P(X_i = 0), \\dots, P(X_i = K_i - 1)` (states
in the model file's order). Tokens are separated by white space, so readers tokenise the whole
file; scorers compare the probabilities with exact marginals (e.g. by Hellinger distance). This is
what ``dogs sample --format uai-mar`` writes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["format_uai_mar", "parse_uai_mar", "read_uai_mar"]


def format_uai_mar(marginals) -> str:
    """The MAR text of ``marginals``: a sequence of 1-d arrays, one per variable (its state probabilities).

    Probabilities are written with 17 significant digits (exactly representable back as float64).
    """
    tables = [np.asarray(m, dtype=np.float64).ravel() for m in marginals]
    if not tables:
        raise ValueError("no marginals to write: the MAR format needs at least one variable")
    parts = [str(len(tables))]
    for i, table in enumerate(tables):
        if table.size < 1 or not np.all(np.isfinite(table)) or np.any(table < 0):
            raise ValueError(f"marginal of variable {i} must be a non-empty array of finite non-negative "
                             f"probabilities, got {table.tolist()[:5]}")
        parts.append(str(table.size))
        parts.extend(repr(float(v)) for v in table)
    return "MAR\n" + " ".join(parts) + "\n"


def parse_uai_mar(text: str) -> list[np.ndarray]:
    """The per-variable marginals of MAR text (the inverse of :func:`format_uai_mar`); ``ValueError`` if malformed."""
    tokens = text.split()
    if not tokens or tokens[0] != "MAR":
        raise ValueError(f"a MAR file starts with the word MAR, got {tokens[0] if tokens else 'an empty file'!r}")
    position = 1

    def take(what: str) -> str:
        nonlocal position
        if position >= len(tokens):
            raise ValueError(f"MAR text ends early: {what} expected after token {position}")
        position += 1
        return tokens[position - 1]

    def integer(what: str) -> int:
        token = take(what)
        if not token.isdigit() or int(token) < 1:
            raise ValueError(f"MAR text: {what} must be a positive whole number, got {token!r}")
        return int(token)

    n_vars = integer("the number of variables")
    out = []
    for i in range(n_vars):
        card = integer(f"the cardinality of variable {i}")
        try:
            values = np.array([float(take(f"probability {k} of variable {i}")) for k in range(card)])
        except ValueError as exc:
            if "MAR text" in str(exc):
                raise
            raise ValueError(f"MAR text: variable {i} has a probability that is not a number ({exc})") from None
        out.append(values)
    if position != len(tokens):
        raise ValueError(f"MAR text: {len(tokens) - position} tokens left over after {n_vars} variables")
    return out


def read_uai_mar(path) -> list[np.ndarray]:
    """The per-variable marginals of a MAR result file."""
    return parse_uai_mar(Path(path).read_text(encoding="ascii"))
