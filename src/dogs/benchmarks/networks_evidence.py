"""The networks scoreboard's blocked sampler under several draws of the evidence, in one table.

:mod:`dogs.benchmarks.networks` observes a few variables of each network where its root seed says; a coverage
verdict on that one draw of the evidence could rest on luck. The rule ``benchmarks_networks_evidence`` reruns the
blocked sampler (elimination blocks, :func:`dogs.sampling_call.sample` with ``blocks="elimination"``) with other
root seeds, hence other evidence, and this script sets the coverage of every run side by side: per network, each
seed's coverage (the share of marginals within their reported intervals, as the scoreboard defines it), the lowest,
and the networks below :data:`COVERAGE_TARGET` in any run.

``python -m dogs.benchmarks.networks_evidence --table OUT.md SCOREBOARD.json OTHER.json ...``
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from dogs.io import atomic_path, read_json

#: The coverage every network should reach (3 standard errors: 99.7% nominal; 95% leaves room for intervals that
#: are approximate, as the scoreboard's criterion does).
COVERAGE_TARGET = 0.95
SAMPLER = "blocked"


def coverage_by_seed(runs: list[dict]) -> tuple[list[int], dict[str, dict[int, float | str]]]:
    """``(seeds, {network: {seed: coverage, or the reason it was not scored}})`` of the runs' blocked rows."""
    seeds, table = [], {}
    for run in runs:
        seed = int(run["seed"])
        seeds.append(seed)
        for row in run["rows"]:
            cell = row.get(SAMPLER)
            if "skipped" in row:
                value = "out of reach"
            elif cell is None:
                continue
            elif "error" in cell:
                value = "no start"
            else:
                value = float(cell["coverage"])
            table.setdefault(row["network"], {})[seed] = value
    return seeds, table


def _cell(value: float | str | None) -> str:
    """A coverage as a percentage, a reason as it is, nothing as an empty cell."""
    return "" if value is None else value if isinstance(value, str) else f"{value:.1%}"


def markdown(runs: list[dict]) -> str:
    """The table: one row per network, one column per seed, then the lowest coverage; the shortfalls below."""
    seeds, table = coverage_by_seed(runs)
    lines = [f"Coverage of the {SAMPLER} sampler's intervals per network, under the evidence each root seed chooses "
             "(the first column: the scoreboard's seed)", "",
             "| network | " + " | ".join(f"seed {s}" for s in seeds) + " | lowest |",
             "|---|" + "---:|" * (len(seeds) + 1)]
    short = []
    for network, cells in table.items():
        scored = {s: v for s, v in cells.items() if isinstance(v, float)}
        lowest = min(scored.values(), default=None)
        lines.append(f"| {network} | " + " | ".join(_cell(cells.get(s)) for s in seeds) + f" | {_cell(lowest)} |")
        short += [f"{network} at seed {s} ({v:.1%})" for s, v in scored.items() if v < COVERAGE_TARGET]
    lines += ["", f"Below {COVERAGE_TARGET:.0%}: " + ("; ".join(short) if short else "none") + "."]
    return "\n".join(lines) + "\n"


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--table", type=Path, required=True, help="markdown table to write")
    parser.add_argument("runs", type=Path, nargs="+", help="JSON files of dogs.benchmarks.networks, scoreboard first")
    args = parser.parse_args(argv)
    runs = []
    for path in args.runs:
        try:
            runs.append(read_json(path))
        except (OSError, json.JSONDecodeError) as exc:
            parser.error(f"cannot read {path}: {exc}")
    text = markdown(runs)
    with atomic_path(args.table) as tmp:
        tmp.write_text(text)
    print(text, file=sys.stderr)
    return text


if __name__ == "__main__":
    main()
