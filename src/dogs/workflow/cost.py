"""The cost engine of the workflow: the memory one job and the time all jobs of a config ask for, before anything runs.

Each experiment family declares its own cost in its :class:`~dogs.workflow.shell.Experiment` object
(``memory=``, ``work=``); this module holds what is common to all of them and checks a whole config against the
limits. Every function that looks at more than one family takes the families as an argument (the workflow passes
``dogs.experiments.FAMILIES``), so this module knows no family by name.

**Memory.** A family's memory model turns its settings into the largest allocations one job makes, each named by
the config key that drives it (the grid side, the scan lengths, the number of chains, ...). The estimates are
deliberately generous upper bounds from the array sizes the code allocates (:data:`BYTES_PER_VARIABLE`,
:data:`BYTES_PER_STEP`, per chain and recorded point), not measurements: their purpose is to refuse a config that
cannot fit long before it is tried, with a message that names the key, the estimate and the limit. The limit is
``resources.max_memory_gb`` from the config when given, else :func:`dogs.resources.memory_limit_bytes`'s share of
the machine's physical memory.

**Time.** A family's work model turns its settings into the :class:`Work` of each compute rule: a product of
factors, each named by its config key; a rate per rule (CPU seconds per unit, measured, kept in the family's own file
``config/families/<family>.yaml``: :func:`dogs.workflow.families.job_rates`) turns it into seconds, plus
:data:`JOB_OVERHEAD_SECONDS` per job and :data:`JIT_SECONDS_PER_RULE` per rule. :func:`check_config_time` refuses a
config whose estimated CPU hours, all jobs summed, exceed ``resources.max_hours`` (default :data:`DEFAULT_MAX_HOURS`),
naming the key that grew most against the shipped config. :func:`calibrate` measures the rates again from the
benchmark files of a complete run, and refuses a folder that lacks some of them.

**Keys.** Every numeric config key is read by an estimate or marked in its family's schema, beside the key, as
not scaling with the reason (``x-not-scaling``; :mod:`dogs.workflow.keys` records what the estimates read and
makes the key table of the configuration reference).

The workflow's guard (:mod:`dogs.workflow.guard`) checks every family before planning any job, and the step shell
(:mod:`dogs.workflow.shell`) checks its slice's memory again before a step runs (direct command-line use).
"""

from __future__ import annotations

import math
import os

from dogs.resources import memory_limit_bytes

__all__ = ["BYTES_PER_STEP", "BYTES_PER_VARIABLE", "CalibrationError", "DEFAULT_MAX_HOURS", "JIT_SECONDS_PER_RULE",
           "JOB_OVERHEAD_SECONDS", "ResourceError", "Work", "calibrate", "check_config_memory", "check_config_time",
           "check_memory", "configured", "estimate_hours", "family_seconds", "grid_sum", "grid_total", "rule_of",
           "time_table", "work_seconds"]

#: Bytes per variable of a model with its influence bound, sampler state and work space (generous).
BYTES_PER_VARIABLE = 256
#: Bytes per step of a stored scan (int64) with its DoGS work arrays (forward values, output).
BYTES_PER_STEP = 32


class ResourceError(ValueError):
    """A config slice whose estimated memory or time exceeds the limit; the message names the key."""


class CalibrationError(ValueError):
    """Benchmark files from which no honest rate can be measured (a partial run); the message says why."""


def configured(config: dict, families) -> list:
    """``(family, settings)`` of every family of ``families`` whose config section is in ``config``."""
    return [(family, config[family.config_section]) for family in families
            if family.config_section and isinstance(config.get(family.config_section), dict)]


def grid_sum(grid: dict) -> tuple[int, int]:
    """``(number of lengths, sum of lengths)`` of a ``{start, stop, step | per_decade}`` grid, without building it
    (a log-spaced grid counts every length as ``stop``: generous, for the memory estimate)."""
    start, stop = int(grid["start"]), int(grid["stop"])
    step, per_decade = grid.get("step"), grid.get("per_decade")
    if stop < start:
        return 0, 0
    if step:
        count = (stop - start) // int(step) + 1
        return count, count * (start + start + (count - 1) * int(step)) // 2
    decades = math.log10(max(stop, 1) / max(start, 1))
    count = int(decades * int(per_decade or 1)) + 2
    return count, count * stop


def grid_total(grid: dict) -> int:
    """Sum of the lengths of a grid, closer for a log-spaced one (the geometric series up to ``stop``)."""
    count, total = grid_sum(grid)
    if grid.get("step") or count == 0:
        return total
    ratio = 10 ** (1 / int(grid["per_decade"]))
    return min(total, int(int(grid["stop"]) * ratio / (ratio - 1)) + int(grid["start"]))


def check_memory(family, settings: dict, limit_bytes: int) -> float:
    """Raise :class:`ResourceError` naming the key when one job of ``family`` (an experiment object) would need more
    than the limit.

    Returns the estimate (bytes): the sum over the keys, as one job may hold all of them at once.
    """
    items = family.estimate_memory(settings)
    total = sum(items.values())
    if total > limit_bytes:
        ranked = sorted(items.items(), key=lambda kv: -kv[1])
        key = ranked[0][0]
        shares = ", ".join(f"{name}: {_gib(value)}" for name, value in ranked[:3] if value > 0.01 * total)
        raise ResourceError(
            f"config key {key}: these settings need an estimated {_gib(total)} of memory in one "
            f"{family.config_section} job ({shares}), more than the limit of {_gib(limit_bytes)}. Reduce {key}, or "
            "raise the limit deliberately with resources.max_memory_gb in the config.")
    return total


def _gib(n_bytes: float) -> str:
    return f"{n_bytes / 1024**3:.3g} GiB" if n_bytes < 1e30 else "astronomically many GiB"


def check_config_memory(config: dict, families) -> None:
    """Check every family's section of a whole (validated) config against its limit (the Snakefile's guard)."""
    limit = memory_limit_bytes((config.get("resources") or {}).get("max_memory_gb"))
    for family, settings in configured(config, families):
        check_memory(family, settings, limit)


# ------------------------------------------------------------------------------------------ run time
#
# The time estimate: each compute rule's work as a product of factors, each named by the config key that drives
# it, times a rate per rule measured from the benchmark files the workflow writes (the families' rates). Rules that
# only summarise or plot cost JOB_OVERHEAD_SECONDS each. The factors are counts of elementary operations (site
# updates, scan steps, matrix entries, ...): within one rule, operations of different kinds are counted alike, so
# the estimate is an order of magnitude, not a schedule; its purpose is to refuse a config that asks for days.


class Work:
    """The work of the jobs of one compute rule: ``jobs`` jobs of ``prod(factors)`` units in all, plus
    ``seconds`` of work the config gives in seconds (sampling budgets in seconds).

    ``benchmark_names``: the names (without ``.tsv``) of the benchmark files of these jobs, when they are not the rule's
    own (``<rule>[_<wildcards>]``, or ``<rule>_<part>`` for the rule ``<rule>:<part>`` that rates part of a rule's
    jobs apart), so that :func:`calibrate` can attribute every file to its work."""

    __slots__ = ("rule", "factors", "jobs", "seconds", "benchmark_names")

    def __init__(self, rule: str, factors: dict[str, float], jobs: int = 1, seconds: float = 0.0,
                 benchmark_names: tuple[str, ...] = ()):
        self.rule, self.jobs, self.seconds = rule, int(jobs), float(seconds)
        self.factors = {key: float(value) for key, value in factors.items()}
        self.benchmark_names = tuple(benchmark_names)

    @property
    def units(self) -> float:
        return math.prod(self.factors.values())

    def __repr__(self) -> str:
        return f"Work({self.rule!r}, {self.factors}, jobs={self.jobs}, seconds={self.seconds})"


#: CPU seconds of a job that does next to nothing (interpreter, imports, reading and writing a few files): every
#: job pays it. Measured with the families' rates (``calibrate``), as the least CPU time of any job of that run.
JOB_OVERHEAD_SECONDS = 0.96

#: CPU seconds the first job of a compute rule spends compiling its numba kernels in a fresh checkout (later jobs
#: load them from numba's cache). Measured in a smoke run from a fresh checkout: the first job of a rule less a
#: later one, 5 to 26 s in the five compute rules of five families measured (first jobs 6.8 to 27.5 s, later
#: ones 1.5 to 2.2 s).
JIT_SECONDS_PER_RULE = 20.0

#: Default of ``resources.max_hours``: the longest estimated job time (all jobs, summed) of one run. A choice: about
#: three times the paper-scale estimate (0.65 CPU hours with the families' rates), the headroom it had over the estimate
#: of the rates it replaced (4 hours over 1.5); settings that ask for more are refused unless the limit is raised.
DEFAULT_MAX_HOURS = 2.0




def work_seconds(work: Work, rates: dict[str, float], overhead: float | None = None) -> float:
    """Estimated job seconds of ``work``: the start-up of every job, the seconds the config asks for, and the units
    at the rule's measured rate (``rates``, :func:`dogs.workflow.families.job_rates`; a rule without one counts its
    start-up only, and a test fails for a shipped rule without one)."""
    overhead = JOB_OVERHEAD_SECONDS if overhead is None else overhead
    return work.jobs * overhead + work.seconds + rates.get(work.rule, 0.0) * work.units


def family_seconds(works: list[Work], rates: dict[str, float]) -> float:
    """Estimated CPU seconds of all compute jobs of a family: their :func:`work_seconds` and the numba compilation
    of every rule once (:data:`JIT_SECONDS_PER_RULE`)."""
    return sum(work_seconds(w, rates) for w in works) + JIT_SECONDS_PER_RULE * len({w.rule for w in works})


def estimate_hours(family, settings: dict, rates: dict[str, float]) -> float:
    """Estimated CPU hours of all compute jobs of ``family`` (an experiment object; start-up and compilation
    included)."""
    return family_seconds(family.estimate_work(settings), rates) / 3600


def _blame(work: Work, reference: Work | None) -> str:
    """The key of ``work`` that grew most against the same work under the reference (shipped) settings."""
    def growth(key):
        base = reference.factors.get(key) if reference is not None else None
        return work.factors[key] / base if base else work.factors[key]
    return max(work.factors, key=growth) if work.factors else work.rule


def _hours(seconds: float) -> str:
    hours = seconds / 3600
    if hours >= 1e6:
        return f"{hours:.2g} hours ({hours / 24 / 365:.2g} years)"
    return f"{hours:.3g} hours" if hours >= 0.1 else f"{seconds / 60:.2g} minutes"


def check_config_time(config: dict, families, reference: dict | None = None,
                      rates: dict[str, float] | None = None) -> dict[str, float]:
    """Raise :class:`ResourceError` naming the key when the estimated job time of a whole config exceeds
    ``resources.max_hours`` (default :data:`DEFAULT_MAX_HOURS`); return the estimated hours per family.

    The key named is that of the largest compute rule which grew most against ``reference`` (the shipped paper-scale
    config, when given), so a config that multiplies one count by 10^6 is told which one. ``rates``: the rules'
    rates, by default those of the family files under the current folder (:func:`dogs.workflow.families.job_rates`).
    """
    if rates is None:
        from dogs.workflow.families import family_files, job_rates

        rates = job_rates(family_files())
    limit = (config.get("resources") or {}).get("max_hours")
    limit = DEFAULT_MAX_HOURS if limit is None else float(limit)
    objects = {family.config_section: family for family, _ in configured(config, families)}
    works = {name: family.estimate_work(config[name]) for name, family in objects.items()}
    hours = {name: family_seconds(items, rates) / 3600 for name, items in works.items()}
    total = sum(hours.values())
    if total > limit:
        name = max(hours, key=hours.get)
        work = max(works[name], key=lambda w: work_seconds(w, rates))
        base = None
        if reference is not None and isinstance(reference.get(name), dict):
            base = next((w for w in objects[name].estimate_work(reference[name]) if w.rule == work.rule), None)
        key = _blame(work, base)
        raise ResourceError(
            f"config key {key}: these settings ask for an estimated {_hours(total * 3600)} of jobs "
            f"({name}: {_hours(hours[name] * 3600)}, most of it in {work.rule}), more than the limit of "
            f"resources.max_hours = {limit:g}. Reduce {key}, or raise the limit deliberately with resources.max_hours "
            "in the config.")
    return hours


def time_table(hours: dict[str, float]) -> str:
    """The lines ``snakemake`` prints before planning: estimated job time per family and in all."""
    lines = ["Estimated job time in CPU hours of all jobs (docs/configuration.md):"]
    lines += [f"  {family:<14} {_hours(h * 3600)}" for family, h in sorted(hours.items(), key=lambda kv: -kv[1])]
    lines.append(f"  {'in all':<14} {_hours(sum(hours.values()) * 3600)}")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------ calibration


def _stems(work: Work) -> tuple[str, ...]:
    """The benchmark file names a work's jobs write: declared, else the rule's (``<rule>_<part>`` for the work
    ``<rule>:<part>``)."""
    return work.benchmark_names or (work.rule.replace(":", "_"),)


def rule_of(benchmark_file: str, works) -> str | None:
    """The compute rule of a benchmark file ``.../<name>.tsv`` among ``works``: the work that declares ``<name>``
    (:attr:`Work.benchmark_names`), else the rule with the longest name that ``<name>`` is, or starts with followed by
    ``_`` or a number (``<rule>_rep3``, ``<rule>7``); ``None`` when none does."""
    stem = os.path.basename(str(benchmark_file)).removesuffix(".tsv")
    for work in works:
        if stem in work.benchmark_names:
            return work.rule
    found = [(len(name), work.rule) for work in works if not work.benchmark_names for name in _stems(work)
             if stem == name or stem.startswith(name + "_") or stem.removeprefix(name).isdigit()]
    return max(found)[1] if found else None


def calibrate(benchmark_files, config: dict, families, measured, overhead: float | None = None) -> tuple[float, dict[str, float]]:
    """``(overhead, rates)`` measured from the benchmark files of a complete run of ``config`` (its ``families``), for
    the compute rules ``measured`` (those whose rates the family files say calibrate measures).

    Times are the CPU seconds Snakemake records (column ``cpu_time``), which a machine shared with other work
    inflates far less than wall-clock seconds (Snakemake samples them every second for the first 30 s of a job,
    then every 30 s, so the last seconds of a long job can be missed). The overhead is the least CPU time of any
    job (one with next to no work); the rate of a compute rule is its jobs' total CPU seconds, less their
    overhead and the seconds the config fixes, per unit of its estimated work (at least 5% of its seconds).

    A rate is its jobs' seconds over their units, so it is honest only when every job of the rule was timed: a
    :class:`CalibrationError` refuses, with the reason, benchmark files of a partial run (a rule of ``measured``
    with fewer files than its jobs under ``config``, a file of one of them without a CPU time) and a folder with
    none. Files of rules without an estimate (targets outside ``all``) are not read.

    ``overhead``, when given, is used instead of the least CPU time of the run's jobs: calibrating one family from
    a run of that family alone, whose fastest job may still do work, takes the shipped
    :data:`JOB_OVERHEAD_SECONDS` (measured on a whole run) so that its rates are not biased low.
    """
    import csv

    works = [w for family, settings in configured(config, families) for w in family.estimate_work(settings)]
    seconds: dict[str, float] = {}
    found: dict[str, int] = {}
    job_seconds = []
    problems = []
    for path in benchmark_files:
        rule = rule_of(path, works)
        if rule is None:
            continue  # a rule without an estimate (a target outside `all`)
        with open(path) as handle:
            rows = list(csv.DictReader(handle, delimiter="\t"))
        if not rows or rows[-1].get("cpu_time") in (None, "", "NA"):
            problems.append(f"{path} records no CPU time (an interrupted job?)")
            continue
        seconds[rule] = seconds.get(rule, 0.0) + float(rows[-1]["cpu_time"])
        found[rule] = found.get(rule, 0) + 1
        job_seconds.append(float(rows[-1]["cpu_time"]))
    absent = []
    for rule in sorted({w.rule for w in works} & set(measured)):
        expected = sum(len(w.benchmark_names) if w.benchmark_names else w.jobs for w in works if w.rule == rule)
        if not found.get(rule):
            absent.append(rule)
        elif found[rule] < expected:
            problems.append(f"{rule} has the benchmark files of {found[rule]} of its {expected} jobs")
    if absent:
        rules = ", ".join(absent[:6]) + (", ..." if len(absent) > 6 else "")
        problems.append(f"no benchmark file of {len(absent)} compute rule{'s' * (len(absent) > 1)} ({rules})")
    if problems:
        raise CalibrationError(
            "these benchmark files are not those of a complete run of this config, so no rate would be honest (a rate "
            "is all of a rule's CPU seconds over all of its work; the overhead the least CPU time of any job): "
            + "; ".join(problems) + ". Run the whole config first, with the same config files (and DOGS_DATA_DIR set "
            "for the data experiments; docs/configuration.md, \"Run time\").")
    overhead = min(job_seconds) if overhead is None else overhead
    rates = {}
    for rule in sorted({w.rule for w in works} & set(measured) & set(seconds)):
        mine = [w for w in works if w.rule == rule]
        fixed = sum(w.jobs * overhead + w.seconds for w in mine)
        units = sum(w.units for w in mine)
        rates[rule] = max(seconds[rule] - fixed, 0.05 * seconds[rule]) / units if units else 0.0
    return overhead, rates
