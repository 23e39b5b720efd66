"""Results of the ``dogs`` command: JSON or CSV on standard output, files written atomically.

Output paths are checked before any computation (:func:`dogs.cli._checks.output_path`); the files are
written through :func:`dogs.io.atomic_path`, so a failed or interrupted write leaves no partial file.
"""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import numpy as np

from dogs.io import atomic_path

__all__ = ["print_result", "write_bound", "write_scan"]


def _clean(value):
    """JSON has no NaN or infinity: they print as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def _mar_tables(result: dict) -> list[list[float]]:
    """Every variable's marginal in the model's order: observed variables (``--evidence``) as point masses, and a
    binary variable reported by its state 1 only as ``[1 - p, p]``."""
    tables: dict[int, dict[int, float]] = {}
    for row in result["marginals"]:
        tables.setdefault(row["variable"], {})[row["state"]] = row["probability"]
    for observed in result.get("evidence", []):
        tables[observed["variable"]] = {k: float(k == observed["state"]) for k in range(observed["cardinality"])}
    out = []
    for variable in range(result["n_vars"]):
        states = tables[variable]
        if set(states) == {1}:
            states = {0: 1.0 - states[1], 1: states[1]}
        out.append([states[k] for k in sorted(states)])
    return out


def print_result(result: dict, fmt: str, stream) -> None:
    """JSON (everything); CSV: the marginals when there are any, else one row of the summary fields; or UAI MAR."""
    result = _clean(result)
    if fmt == "uai-mar":  # the UAI competition's MAR result format (dogs.uai_mar)
        from dogs.uai_mar import format_uai_mar

        stream.write(format_uai_mar(_mar_tables(result)))
        return
    if fmt == "json":
        json.dump(result, stream, indent=2)
        stream.write("\n")
        return
    rows = result.get("marginals")
    if rows is None:
        rows = [{k: (json.dumps(v) if isinstance(v, (list, dict)) else v) for k, v in result.items()}]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    stream.write(buffer.getvalue())


def write_bound(bound, path: Path) -> None:
    """The influence bound as a scipy sparse ``.npz``, at exactly ``path``."""
    from scipy import sparse

    with atomic_path(path) as tmp, open(tmp, "wb") as stream:
        sparse.save_npz(stream, bound)


def write_scan(indices: np.ndarray, path: Path) -> None:
    """Scan indices as ``.npy`` or as text, one index per line."""
    with atomic_path(path) as tmp, open(tmp, "wb") as stream:
        if path.name.lower().endswith(".npy"):
            np.save(stream, indices)
        else:
            np.savetxt(stream, indices, fmt="%d")
