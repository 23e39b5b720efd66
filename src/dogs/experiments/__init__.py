"""One thin module per experiment: read settings, call the library, write results. Snakemake calls them.

Every family module holds one :class:`~dogs.workflow.shell.Experiment` object, ``EXPERIMENT``: its steps, its
cross-key checks, its memory and work models. :data:`FAMILIES` is the one list of them that the workflow reads (the
Snakefile's guard and time table, the rules' memory requests, ``python -m dogs.experiments table``); a new family is
registered by adding its module to :func:`registered_families`. The modules are imported on first use of
:data:`FAMILIES`, so a step (``python -m dogs.experiments.<family>``) imports its own family only.
"""

from __future__ import annotations

import functools

__all__ = ["FAMILIES", "estimate_memory", "family", "registered_families"]


@functools.cache
def registered_families() -> tuple:
    """The experiment object of every family, in the order of the README's key table (and of ties in the time
    table). A new family adds its module here."""
    from dogs.experiments import (annular_ising, benchmarks, boltzmann, ising10, ising40, loose_bounds, mcmc_mle, msrc,
                                  scan_order, timing)

    return tuple(module.EXPERIMENT for module in (ising10, ising40, loose_bounds, timing, benchmarks, scan_order,
                                                  mcmc_mle, annular_ising, boltzmann, msrc))


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
