"""What one job of the scan-order experiment needs, from its config slice alone: memory (bytes) and run time (seconds).

For the workflow's resource guard (the scan-order family's memory model, :mod:`dogs.experiments.scan_order`):
:func:`scan_order_memory` has the guard's estimator signature, ``settings -> {config key: bytes}``, deliberately
generous upper bounds from the arrays the code allocates; :func:`scan_order_seconds` gives rough run times per key on an unloaded
2-core machine (orders of magnitude, for planning, not a limit).

Measured peaks (resident memory of the whole process, on a loaded 2-core machine): memorize and repeat
n = 8 (1,431,049 states, 8 variables) about 1.3 GB and 35 s; soft dependencies n = 8 (101,474 states) about
0.35 GB and 6 s, n = 9 (1,590,617 states) 1.6 GB and 55 s; the level chain of memorize and repeat at n = 48
(4609 levels, 122,437 updates) a few MB and 30 s.
"""

from __future__ import annotations

from dogs.counterexamples.levels import LEVEL_MODELS, level_chain_memory_bytes, level_chain_updates
from dogs.counterexamples.models import MODEL_NAMES, state_count

__all__ = ["scan_order_memory", "scan_order_seconds", "BYTES_PER_STATE_AND_VARIABLE"]

#: A full model's states (int64 per variable), one sparse kernel per variable, one recursion vector per
#: variable and the temporaries of building them, per state and variable (generous: 1.3 GB measured at
#: 1.43 million states and 8 variables, against 1.47 GB estimated).
BYTES_PER_STATE_AND_VARIABLE = 128
#: The dense batches of exact systematic mixing times (:mod:`dogs.exact.chains` bounds them itself).
DENSE_BATCH_BYTES = 768 * 2**20
#: Seconds per level-vector update of a level chain, and per state and variable of a full model (unloaded).
_SECONDS_PER_LEVEL_UPDATE = 1.5e-9
_SECONDS_PER_STATE_AND_VARIABLE = 2.0e-6


def _variables(name: str, n: int) -> int:
    return 2 * n if name == "two_islands" else n


def scan_order_memory(settings: dict) -> dict[str, float]:
    """``{config key: bytes}`` of one scan-order job: the largest full model ``max_states`` admits (with the most
    variables any model of ``n_values`` has among those near that size), the dense batches, and the level chains."""
    limit = int(settings["max_states"])
    variables = 1
    for name in MODEL_NAMES:
        for n in settings["n_values"][name]:
            if state_count(name, n) * 8 >= limit:  # models within a factor 8 of the cap set the width
                variables = max(variables, _variables(name, n))
    if variables == 1:
        variables = max(_variables(name, n) for name in MODEL_NAMES for n in settings["n_values"][name])
    out = {
        "scan_order.max_states": float(limit) * variables * BYTES_PER_STATE_AND_VARIABLE,
        "scan_order.enumerate_max_states": float(DENSE_BATCH_BYTES),
    }
    chains = settings.get("level_chain_n") or {}
    out["scan_order.level_chain_n"] = max((level_chain_memory_bytes(name, n) for name in LEVEL_MODELS
                                           for n in chains.get(name, [])), default=0.0)
    return out


def scan_order_seconds(settings: dict) -> dict[str, float]:
    """``{config key: seconds}``: rough run times of the full models of every ``n_values`` entry and of the level chains."""
    out = {}
    for name in MODEL_NAMES:
        states = sum(min(state_count(name, n), int(settings["max_states"])) * _variables(name, n)
                     for n in settings["n_values"][name])
        out[f"scan_order.n_values.{name}"] = states * _SECONDS_PER_STATE_AND_VARIABLE
    for name in LEVEL_MODELS:
        work = sum(level_chain_updates(name, n) for n in (settings.get("level_chain_n") or {}).get(name, []))
        out[f"scan_order.level_chain_n.{name}"] = work * _SECONDS_PER_LEVEL_UPDATE
    return out
