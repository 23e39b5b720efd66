"""The cost tables of every experiment family.

``python -m dogs.experiments table`` prints the table of the config keys each cost model reads (the docs build
generates it into docs/configuration.md the same way). ``python -m dogs.experiments calibrate FOLDER [CONFIG ...]``
prints the overhead and the rates measured from the benchmark files under FOLDER (``results/.../benchmarks``) of a
complete run of the CONFIG files (default: config/config.yaml and config/smoke.yaml; the family files under them as
in the workflow), one block per family to copy into the ``rates:`` of ``config/families/<family>.yaml``; it refuses,
with the reason and exit status 2, a folder that is not that of a complete run. ``--family NAME`` (repeatable)
calibrates those families from a complete run of theirs alone (``snakemake <their targets> ...``), with the shipped
per-job overhead instead of one measured from the run."""

from __future__ import annotations

import argparse
import glob
import os
import sys

from dogs.experiments import FAMILIES
from dogs.workflow.cost import JOB_OVERHEAD_SECONDS, CalibrationError, calibrate, configured
from dogs.workflow.families import family_files, full_schema, merged_config
from dogs.workflow.keys import scaling_table


def key_table(root=".") -> str:
    """The table of docs/configuration.md: the keys each estimate reads, at paper scale and at smoke scale."""
    paper = merged_config([os.path.join(root, "config", "config.yaml")], root)
    smoke = merged_config([os.path.join(root, "config", name) for name in ("config.yaml", "smoke.yaml")], root)
    return scaling_table(full_schema(root), [paper, smoke], FAMILIES)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dogs.experiments", description=__doc__)
    parser.add_argument("command", choices=["table", "calibrate"])
    parser.add_argument("folder", nargs="?", help="benchmark files (calibrate): results/.../benchmarks")
    parser.add_argument("configs", nargs="*", help="config files of the run, in merge order")
    parser.add_argument("--family", action="append", default=[],
                        help="calibrate only this family (repeatable), from a complete run of its rules")
    args = parser.parse_args(argv)
    if args.command == "table":
        print(key_table())
        return 0
    if not args.folder:
        parser.error("calibrate needs the folder of benchmark files")
    if not os.path.isdir(args.folder):
        parser.error(f"no folder {args.folder}")
    config = merged_config(args.configs or ["config/config.yaml", "config/smoke.yaml"])
    files = family_files()
    measured = {rule for data in files.values() for rule in data.get("rates") or {}}
    benchmark_files = sorted(glob.glob(os.path.join(args.folder, "**", "*.tsv"), recursive=True))
    families, overhead = FAMILIES, None
    if args.family:
        known = {family.config_section for family in FAMILIES}
        if set(args.family) - known:
            parser.error(f"unknown family {', '.join(sorted(set(args.family) - known))} (known: {', '.join(sorted(known))})")
        families = [family for family in FAMILIES if family.config_section in args.family]
        overhead = JOB_OVERHEAD_SECONDS
    try:
        overhead, rates = calibrate(benchmark_files, config, families, measured, overhead)
    except CalibrationError as exc:
        print(f"calibrate: {args.folder}: {exc}", file=sys.stderr)
        return 2
    if not args.family:
        print(f"# JOB_OVERHEAD_SECONDS (src/dogs/workflow/cost.py) = {overhead:.3g}")
    for family, settings in configured(config, families):
        mine = {w.rule for w in family.estimate_work(settings)}
        found = {rule: rate for rule, rate in rates.items() if rule in mine}
        if found:
            print(f"# config/families/{family.config_section}.yaml\nrates:")
            for rule, rate in found.items():
                print(f'  "{rule}": {rate:.3g}' if ":" in rule else f"  {rule}: {rate:.3g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
