"""Running experiment steps in tests as a Snakemake rule would, and the merged configs (shared by the tests)."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: What a step's ``--schema`` takes: the folder of the family files (each step reads its family's ``schema:``).
SCHEMA = ROOT / "config" / "families"


def merged_configs() -> tuple[dict, dict]:
    """``(paper-scale config, smoke config)`` as every job sees them: config/config.yaml (and config/smoke.yaml) with
    every family file under them (:func:`dogs.workflow.families.merged_config`)."""
    from dogs.workflow.families import merged_config

    config = ROOT / "config"
    return (merged_config([config / "config.yaml"], ROOT),
            merged_config([config / "config.yaml", config / "smoke.yaml"], ROOT))


def run(module, step, settings, seed, *, inputs=None, outputs=None, wildcards=None, threads=1, smoke=False):
    """Run one experiment step through its command line, as a Snakemake rule would."""
    argv = [step, "--settings", json.dumps(settings), "--seed", str(seed), "--threads", str(threads),
            "--schema", str(SCHEMA)]
    for option, named in (("--input", inputs), ("--output", outputs), ("--wildcard", wildcards)):
        for name, value in (named or {}).items():
            for item in value if isinstance(value, (list, tuple)) else [value]:
                argv += [option, f"{name}={item}"]
    if smoke:
        argv.append("--smoke")
    assert module.EXPERIMENT.main(argv) == 0


def outputs_in(folder, **names):
    """``{name: folder / file}`` for the outputs of a step."""
    return {name: Path(folder) / file for name, file in names.items()}


def assert_judged(claims: dict) -> None:
    """Every measured claim has a row with a criterion and an ours template in config/claims that words it and yields a verdict."""
    from dogs.claims import VERDICTS, load_paper_claims, render_ours, verdict

    rows = {row["id"]: row for row in load_paper_claims(ROOT / "config" / "claims")}
    for claim_id, measured in claims.items():
        assert claim_id in rows, claim_id
        assert "criterion" in rows[claim_id], claim_id
        assert verdict(rows[claim_id]["criterion"], measured["value"]) in VERDICTS, claim_id
        assert render_ours(rows[claim_id], measured), claim_id  # every placeholder of its template is measured
