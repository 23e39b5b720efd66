"""One thin module per experiment: read settings, call the library, write results. Snakemake calls them.

Every family module holds one :class:`~dogs.workflow.shell.Experiment` object, ``EXPERIMENT``: its steps, its
cross-key checks, its memory and work models. :data:`FAMILIES` is the one list of them that the workflow reads (the
Snakefile's guard and time table, the rules' memory requests, ``python -m dogs.experiments table``). It is found,
not kept by hand: every module of this package whose ``EXPERIMENT`` has a config section, in the alphabetical order
of the module names (the order of the key table in docs/configuration.md and of ties in the time table). A new family is a new
module; nothing here names it. The modules are imported on first use of :data:`FAMILIES`, so a step
(``python -m dogs.experiments.<family>``) imports its own family only.
"""

from __future__ import annotations

from dogs.extras import require

require("workflow", "dogs.experiments")  # before the imports below: a missing package names its extra

import functools
import importlib
import pkgutil

__all__ = ["FAMILIES", "estimate_memory", "family", "registered_families"]


@functools.cache
def registered_families() -> tuple:
    """The experiment object of every family: the ``EXPERIMENT`` of each module of this package that has one with a
    config section (the paper-vs-ours table's has none: it reads the families' claims, not a config section), in
    the alphabetical order of the module names."""
    from dogs.workflow.shell import Experiment

    found = []
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda info: info.name):
        if module_info.name.startswith("_") or module_info.ispkg:
            continue
        experiment = getattr(importlib.import_module(f"{__name__}.{module_info.name}"), "EXPERIMENT", None)
        if isinstance(experiment, Experiment) and experiment.config_section is not None:
            found.append(experiment)
    return tuple(found)


def __getattr__(name: str):
    """``FAMILIES``: :func:`registered_families`, imported on first use (PEP 562)."""
    if name == "FAMILIES":
        return registered_families()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def family(name: str):
    """The experiment object of the family whose config section is ``name``."""
    for experiment in registered_families():
        if experiment.config_section == name:
            return experiment
    raise KeyError(f"no experiment family has the config section {name!r}")


def estimate_memory(name: str, settings: dict) -> dict[str, float]:
    """``{config key: bytes}`` of one job of the family ``name`` (the rules' ``mem_mb``, ``rules/common.smk``)."""
    return family(name).estimate_memory(settings)
