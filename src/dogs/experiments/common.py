"""Shared plumbing of the experiment command lines: settings parsing, timing, seeds recorded in sidecars.

Every experiment module is run as ``python -m dogs.experiments.<name> <step> --settings JSON ...``
from a Snakemake rule; ``--settings`` carries the rule's slice of the (validated) config.
"""

from __future__ import annotations

import argparse
import json
import time


def settings_argument(text: str) -> dict:
    """Parse ``--settings``: a JSON object (Snakemake passes the config slice as JSON)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"--settings is not valid JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("--settings must be a JSON object")
    return value


def base_parser(description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--settings", type=settings_argument, default={}, help="JSON object: this rule's config slice")
    parser.add_argument("--seed", type=int, default=0, help="root seed of the run")
    return parser


class Stopwatch:
    """``with Stopwatch() as sw: ...; sw.seconds``"""

    def __enter__(self):
        self._start = time.perf_counter()
        self.seconds = None
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self._start
        return False
