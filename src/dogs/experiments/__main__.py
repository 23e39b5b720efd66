"""The cost tables of every experiment family: ``python -m dogs.experiments table`` prints the table (docs/configuration.md) of
the config keys each cost model reads; ``python -m dogs.experiments calibrate FOLDER [CONFIG ...]`` prints the
overhead and rates measured from the benchmark files under FOLDER (``results/.../benchmarks``) of a complete run of
the merged CONFIG files (default: config/config.yaml and config/smoke.yaml), to paste into
:data:`dogs.workflow.cost.JOB_RATES`."""

from __future__ import annotations

import argparse
import glob
import os

import yaml

from dogs.experiments import FAMILIES
from dogs.workflow.cost import calibrate
from dogs.workflow.keys import scaling_table


def merged(paths) -> dict:
    """The config files ``paths`` merged as Snakemake merges them."""
    from snakemake.utils import update_config

    out: dict = {}
    for path in paths:
        with open(path) as handle:
            update_config(out, yaml.safe_load(handle))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dogs.experiments", description=__doc__)
    parser.add_argument("command", choices=["table", "calibrate"])
    parser.add_argument("folder", nargs="?", help="benchmark files (calibrate): results/.../benchmarks")
    parser.add_argument("configs", nargs="*", help="config files of the run, in merge order")
    args = parser.parse_args(argv)
    if args.command == "table":
        with open("config/schema.yaml") as handle:
            schema = yaml.safe_load(handle)
        full = merged(["config/config.yaml"])
        print(scaling_table(schema, [full, merged(["config/config.yaml", "config/smoke.yaml"])], FAMILIES))
        return 0
    if not args.folder:
        parser.error("calibrate needs the folder of benchmark files")
    config = merged(args.configs or ["config/config.yaml", "config/smoke.yaml"])
    files = sorted(glob.glob(os.path.join(args.folder, "**", "*.tsv"), recursive=True))
    rules = {w.rule for family in FAMILIES for w in family.estimate_work(config[family.config_section])}
    overhead, rates = calibrate(files, config, rules, FAMILIES)
    print(f"JOB_OVERHEAD_SECONDS = {overhead:.3g}")
    print("JOB_RATES = {")
    for rule, rate in rates.items():
        print(f'    "{rule}": {rate:.3g},')
    print("}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
