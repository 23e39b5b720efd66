"""The step shell: one object per experiment family, with its command line, its checks and its cost.

Every experiment module builds one :class:`Experiment`, ``Experiment(family, __doc__, check=..., memory=...,
work=...)``, registers its steps and calls :meth:`Experiment.run`. The object is all the workflow knows of a family:
the guard (:mod:`dogs.workflow.guard`) runs its ``check`` and the cost engine (:mod:`dogs.workflow.cost`) its
``memory`` and ``work`` models, for every family of ``dogs.experiments.FAMILIES``. A Snakemake rule runs one step::

    python -m dogs.experiments.<family> <step> --settings JSON --seed ROOT
        [--input NAME=PATH ...] [--output NAME=PATH ...] [--wildcard NAME=VALUE ...]
        [--threads N] [--smoke]

- Step names follow one scheme: ``compute`` or ``compute-<what>`` (runs samplers or solvers and writes
  raw results), ``summarise`` (reads results, writes tables and the family's measured claims) and
  ``plot-<figure>`` (reads results, writes one figure; never computes).
- ``--settings`` is the rule's config slice. It is validated once, here, against the family's schema (the
  ``schema:`` of ``config/families/<family>.yaml``; the Snakefile validated the whole config already; this repeats
  it for direct command-line use). Checks that span several keys stay in the experiment.
- Every path comes from the rule: ``--input``/``--output`` carry the rule's *named* inputs and outputs
  (an input name may repeat: a list of files). A step reads them as ``ctx.input("name")`` /
  ``ctx.inputs("name")`` and ``ctx.output("name")``; asking for a name the rule did not pass is an
  error, and after the step every output the rule declared must exist. The ``*.meta.json`` sidecar of
  an output is the writer's convention (:func:`dogs.io.write_meta`), not a new file name.
- ``--wildcard`` carries the rule's wildcards (for example the replicate number), so no step parses
  numbers out of paths.
- ``--threads`` is the rule's ``threads:``; the shell hands it to numba and BLAS before the step runs.

The rule side of this contract is the ``experiment_step`` rule of the ``Snakefile`` (every step rule is ``use rule
experiment_step as <family>_<step>``) and ``step``, ``step_args`` in ``rules/common.smk``.
"""

from __future__ import annotations

import argparse
import json
import logging
import resource
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import yaml

from dogs.config import ConfigError, check_strict_types
from dogs.resources import memory_limit_bytes
from dogs.workflow.cost import ResourceError, Work, check_memory

__all__ = ["Experiment", "StepContext", "SettingsError", "load_schema_slice", "validate_settings", "STEP_KINDS"]

STEP_KINDS = ("compute", "summarise", "plot")
#: Where a step finds its family's schema by default: the folder of the family files (run from the repository root).
DEFAULT_SCHEMA = Path("config/families")


class SettingsError(ValueError):
    """A config slice that does not satisfy the schema or a cross-key check; the message names the key."""


def load_schema_slice(schema_path, family: str) -> dict:
    """The JSON schema of ``config[family]``: from the folder of family files (``config/families``: the ``schema:``
    of ``<family>.yaml``), from one family file, or from a whole config schema (its ``properties``)."""
    path = Path(schema_path)
    if path.is_dir():
        path = path / f"{family}.yaml"
        if not path.is_file():
            raise SettingsError(f"{path} not found: the family {family!r} has no family file") from None
    schema = yaml.safe_load(path.read_text())
    try:
        return schema["schema"] if "settings" in schema else schema["properties"][family]
    except (KeyError, TypeError):
        raise SettingsError(f"{schema_path} has no schema for the config section {family!r}") from None


def validate_settings(settings: dict, schema: dict, family: str) -> dict:
    """Validate ``settings`` against ``schema`` (JSON schema); the first error names the full key."""
    import jsonschema

    validator_class = jsonschema.validators.validator_for(schema)
    errors = sorted(validator_class(schema).iter_errors(settings), key=lambda e: list(e.absolute_path))
    if errors:
        error = errors[0]
        key = ".".join([family, *(str(p) for p in error.absolute_path)])
        raise SettingsError(f"config key {key}: {error.message}")
    return settings


def _pairs(values, option: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for text in values or ():
        name, sep, value = text.partition("=")
        if not sep or not name:
            raise SettingsError(f"{option} takes NAME=VALUE, got {text!r}")
        out.setdefault(name, []).append(value)
    return out


@dataclass
class StepContext:
    """What a step sees: validated settings, the root seed, the rule's paths, wildcards and threads."""

    family: str
    step: str
    settings: dict
    seed: int
    smoke: bool
    threads: int
    log: logging.Logger
    _inputs: dict = field(default_factory=dict)
    _outputs: dict = field(default_factory=dict)
    _wildcards: dict = field(default_factory=dict)
    started: float = field(default_factory=time.perf_counter)

    def inputs(self, name: str) -> list[Path]:
        """Every file the rule passed as input ``name`` (in the rule's order)."""
        if name not in self._inputs:
            raise SettingsError(f"step {self.step} needs --input {name}=PATH (the rule's input named {name!r})")
        return [Path(p) for p in self._inputs[name]]

    def input(self, name: str) -> Path:
        """The single file the rule passed as input ``name``."""
        paths = self.inputs(name)
        if len(paths) != 1:
            raise SettingsError(f"step {self.step}: input {name!r} must be one file, got {len(paths)}")
        return paths[0]

    def has_input(self, name: str) -> bool:
        return name in self._inputs

    def outputs(self, name: str) -> list[Path]:
        """Every file the rule declared as output ``name`` (in the rule's order)."""
        if name not in self._outputs:
            raise SettingsError(f"step {self.step} needs --output {name}=PATH (the rule's output named {name!r})")
        return [Path(p) for p in self._outputs[name]]

    def output(self, name: str) -> Path:
        """The file the rule declared as output ``name``."""
        if name not in self._outputs:
            raise SettingsError(f"step {self.step} needs --output {name}=PATH (the rule's output named {name!r})")
        paths = self._outputs[name]
        if len(paths) != 1:
            raise SettingsError(f"step {self.step}: output {name!r} must be one file, got {len(paths)}")
        return Path(paths[0])

    def has_output(self, name: str) -> bool:
        return name in self._outputs

    def wildcard(self, name: str, kind=int):
        """The rule's wildcard ``name``, converted with ``kind`` (``int`` by default)."""
        if name not in self._wildcards:
            raise SettingsError(f"step {self.step} needs --wildcard {name}=VALUE")
        (value,) = self._wildcards[name][-1:]
        try:
            return kind(value)
        except ValueError:
            raise SettingsError(f"wildcard {name}={value!r} is not a valid {kind.__name__}") from None

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def write_claims(self, claims: dict) -> None:
        """Write the family's measured claims to the output ``claims`` and log every verdict."""
        from dogs.claims import write_claims

        write_claims(self.output("claims"), self.family, claims, smoke=self.smoke)
        for key, value in claims.items():
            self.log.info("%s: %s", key, value["value"])


Step = Callable[[StepContext], None]


class Experiment:
    """One experiment family: ``Experiment("<family>", __doc__, check=..., memory=..., work=...)``, then
    ``@EXPERIMENT.step(...)`` for each step.

    - ``check(settings)``: the checks that span several keys of the family's config section (the schema checks
      each key alone); raises :class:`SettingsError` naming the key.
    - ``memory(settings) -> {config key: bytes}``: the largest allocations of one job, each named by the key that
      drives it (generous upper bounds; :mod:`dogs.workflow.cost`).
    - ``work(settings) -> [Work, ...]``: the work of each compute rule, as factors named by their keys.

    A numeric key that neither model reads is marked in the family's schema (``config/families/<family>.yaml``) with
    the reason (``x-not-scaling``, :mod:`dogs.workflow.keys`).
    """

    def __init__(self, family: str, doc: str | None, *, config_section: str | None = "",
                 check: Callable[[dict], None] | None = None, settings_schema: dict | None = None,
                 memory: Callable[[dict], dict[str, float]] | None = None,
                 work: Callable[[dict], list[Work]] | None = None):
        """``config_section`` is the config key of the settings (default: the family); ``None``: settings that
        are not a config slice, checked against ``settings_schema`` (a JSON schema; ``None``: no settings)."""
        self.family = family
        self.config_section = family if config_section == "" else config_section
        self.settings_schema = settings_schema
        self.description = (doc or family).strip().splitlines()[0]
        self.check = check
        self.memory = memory
        self.work = work
        self.steps: dict[str, Step] = {}

    def estimate_memory(self, settings: dict) -> dict[str, float]:
        """``{config key: bytes}``: the estimated memory each key's allocations need in one job of the family."""
        return {} if self.memory is None else {key: float(value) for key, value in self.memory(settings).items()}

    def estimate_work(self, settings: dict) -> list[Work]:
        """The :class:`~dogs.workflow.cost.Work` of every compute rule of the family under ``settings``."""
        return [] if self.work is None else self.work(settings)

    def step(self, name: str):
        """Register a step; its name is ``compute``, ``summarise``, ``plot`` or one of them plus ``-<what>``."""
        kind = name.split("-", 1)[0]
        if kind not in STEP_KINDS:
            raise ValueError(f"step {name!r} must start with one of {STEP_KINDS}")

        def register(function: Step) -> Step:
            self.steps[name] = function
            return function

        return register

    def parser(self) -> argparse.ArgumentParser:
        parser = argparse.ArgumentParser(prog=f"python -m dogs.experiments.{self.family}", description=self.description)
        parser.add_argument("step", choices=sorted(self.steps))
        parser.add_argument("--settings", default="{}", help="JSON object: the rule's config slice")
        parser.add_argument("--seed", type=int, default=0, help="root seed of the run (non-negative)")
        parser.add_argument("--input", action="append", default=[], metavar="NAME=PATH", help="a named input of the rule")
        parser.add_argument("--output", action="append", default=[], metavar="NAME=PATH", help="a named output of the rule")
        parser.add_argument("--wildcard", action="append", default=[], metavar="NAME=VALUE", help="a wildcard of the rule")
        parser.add_argument("--threads", type=int, default=1, help="the rule's threads (numba threads)")
        parser.add_argument("--smoke", action="store_true", help="a smoke run: claims are stamped not comparable")
        parser.add_argument("--schema", default=str(DEFAULT_SCHEMA), help="the config schema (default %(default)s)")
        parser.add_argument("--max-memory-gb", type=float, default=None,
                            help="memory limit of the resource guard (default: 80%% of physical memory)")
        return parser

    def context(self, argv=None) -> StepContext:
        """Parse and validate the command line; every error exits with status 2 before any computation."""
        parser = self.parser()
        args = parser.parse_args(argv)
        try:
            try:
                settings = json.loads(args.settings)
            except json.JSONDecodeError as exc:
                raise SettingsError(f"--settings is not valid JSON: {exc}") from None
            if not isinstance(settings, dict):
                raise SettingsError("--settings must be a JSON object")
            if args.seed < 0:
                raise SettingsError(f"--seed must be a non-negative integer, got {args.seed}")
            if args.threads < 1:
                raise SettingsError(f"--threads must be >= 1, got {args.threads}")
            if self.config_section is None:
                if self.settings_schema is not None:
                    validate_settings(settings, self.settings_schema, self.family)
                elif settings:
                    raise SettingsError(f"{self.family} takes no settings, got {sorted(settings)}")
            else:
                schema_path = Path(args.schema)
                if not schema_path.exists():
                    raise SettingsError(f"config schema {schema_path} not found (run from the repository root or "
                                        "pass --schema)")
                schema = load_schema_slice(schema_path, self.config_section)
                validate_settings(settings, schema, self.config_section)
                try:
                    check_strict_types(settings, schema, self.config_section)
                except ConfigError as exc:
                    raise SettingsError(f"config key {exc}") from None
            if self.check is not None:
                self.check(settings)
            if self.config_section:
                try:
                    check_memory(self, settings, memory_limit_bytes(args.max_memory_gb))
                except ResourceError as exc:
                    raise SettingsError(str(exc)) from None
            inputs = _pairs(args.input, "--input")
            outputs = _pairs(args.output, "--output")
            wildcards = _pairs(args.wildcard, "--wildcard")
        except SettingsError as exc:
            parser.error(str(exc))
        return StepContext(family=self.family, step=args.step, settings=settings, seed=args.seed, smoke=args.smoke,
                           threads=args.threads, log=_logger(self.family), _inputs=inputs, _outputs=outputs,
                           _wildcards=wildcards)

    def main(self, argv=None) -> int:
        ctx = self.context(argv)
        _set_numba_threads(ctx.threads)
        ctx.log.info("%s %s: start", self.family, ctx.step)
        try:
            self.steps[ctx.step](ctx)
        except SettingsError as exc:
            ctx.log.error("%s", exc)
            return 2
        missing = [str(p) for paths in ctx._outputs.values() for p in paths if not Path(p).exists()]
        if missing:
            ctx.log.error("step %s did not write the outputs %s", ctx.step, ", ".join(missing))
            return 1
        ctx.log.info("%s %s: done in %.1f s, %.1f CPU s", self.family, ctx.step, ctx.elapsed(), _cpu_seconds())
        return 0

    def run(self) -> None:
        """``if __name__ == "__main__": EXPERIMENT.run()``"""
        sys.exit(self.main())


class _CurrentStderr(logging.StreamHandler):
    """A handler that writes to whatever ``sys.stderr`` is at the time of the message, not at its creation (a
    redirected or captured stderr, as in tests or notebooks, gets the messages)."""

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value):
        pass


def _logger(family: str) -> logging.Logger:
    """The one progress logger: time-stamped lines on stderr, flushed at once (rules send them to the log)."""
    logger = logging.getLogger(f"dogs.experiments.{family}")
    if not logger.handlers:
        handler = _CurrentStderr()
        handler.setFormatter(logging.Formatter("[%(asctime)s] %(message)s", datefmt="%H:%M:%S"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
    return logger


def _cpu_seconds() -> float:
    """User + system CPU time of this process and of its finished child processes (a step that runs worker
    processes shuts them down before it returns, so their time is in it; Snakemake's benchmark files sample the
    process tree and miss part of it)."""
    usages = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    return sum(usage.ru_utime + usage.ru_stime for usage in usages)


def _set_numba_threads(threads: int) -> None:
    """Use at most ``threads`` numba and BLAS threads (the rule's ``threads:``), so rules never oversubscribe."""
    import numba
    from threadpoolctl import threadpool_limits

    numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
    threadpool_limits(limits=int(threads))
