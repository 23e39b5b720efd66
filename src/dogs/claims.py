"""Paper-vs-ours claims: experiments report measured values, the table renderer joins them with the paper's.

``config/paper_claims.yaml`` holds one row per published claim (the paper's
side: where, what, the published value). Each experiment's *summarise* step
writes ``<results>/claims/<family>.json`` with, per claim id, what we
measured and a verdict computed from it by code (never typed in). The
renderer (:mod:`dogs.experiments.paper_vs_ours`) joins the two; a claim with
no measurement reads "not yet run".
"""

from __future__ import annotations

from pathlib import Path

import yaml

from dogs.io import read_json, write_json

__all__ = ["VERDICTS", "claim", "write_claims", "load_paper_claims"]

VERDICTS = ("reproduced", "partly", "not reproduced", "not yet run")
_REQUIRED = ("id", "paper", "where", "claim", "paper_value", "family")


def claim(ours: str, verdict: str, **details) -> dict:
    """One measured claim: a readable value ``ours``, a verdict from :data:`VERDICTS`, optional numbers."""
    if verdict not in VERDICTS[:3]:
        raise ValueError(f"verdict must be one of {VERDICTS[:3]}, got {verdict!r}")
    return {"ours": ours, "verdict": verdict, "details": details}


def write_claims(path, family: str, claims: dict, *, smoke: bool) -> Path:
    """Write ``{claim id: claim(...)}`` for one experiment family."""
    for key, value in claims.items():
        if set(value) != {"ours", "verdict", "details"}:
            raise ValueError(f"claim {key!r} must be built with dogs.claims.claim(...)")
    return write_json(path, {"family": family, "smoke": bool(smoke), "claims": claims})


def load_paper_claims(path) -> list[dict]:
    """Read and check ``config/paper_claims.yaml``: a list of rows with unique ids and the required keys."""
    rows = yaml.safe_load(Path(path).read_text())
    if not isinstance(rows, list):
        raise ValueError(f"{path}: expected a list of claims")
    seen = set()
    for n, row in enumerate(rows):
        missing = [k for k in _REQUIRED if k not in row]
        if missing:
            raise ValueError(f"{path}: claim #{n} ({row.get('id', '?')}) lacks {', '.join(missing)}")
        if row["id"] in seen:
            raise ValueError(f"{path}: duplicate claim id {row['id']!r}")
        seen.add(row["id"])
    return rows


def load_measured(paths) -> dict:
    """Merge the claims JSON files of all families: ``{claim id: measured claim}``."""
    measured = {}
    for path in paths:
        measured.update(read_json(path)["claims"])
    return measured
