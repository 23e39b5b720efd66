"""Argument checks shared by the samplers: each check is written once here and every sampler calls it.

Every public sampler validates its arguments before it draws a single random number (the kernels behind it
trust their inputs). The checks that several samplers make in the same way live in this module, each a public
function that takes the value and the argument's name, returns the value in the form the sampler keeps (an
``int``, a ``float``, a contiguous int8 array, ...) and raises ``TypeError`` (wrong kind of value) or
``ValueError`` (right kind, bad value) with a message naming the argument. Checks that only one sampler makes
stay in that sampler's module.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from dogs.models.binary import BinaryPairwiseMRF
from dogs.scans.base import Scan

__all__ = [
    "check_bool",
    "check_delta",
    "check_edges",
    "check_index_array",
    "check_int",
    "check_marginals",
    "check_model",
    "check_model_and_scan",
    "check_positive_real",
    "check_recording",
    "check_spin_states",
    "check_spins",
    "frozen",
    "NO_INDICES",
]


def frozen(array: np.ndarray) -> np.ndarray:
    """``array`` made read-only (in place) and returned: the arrays a prepared sampler holds cannot be changed."""
    array.setflags(write=False)
    return array


#: An empty read-only int64 index array: what the kernels get for "record nothing", of the same numba type as
#: the read-only indices :func:`check_recording` returns (one compiled specialisation).
NO_INDICES = frozen(np.zeros(0, dtype=np.int64))


def check_model(model, name: str = "model") -> BinaryPairwiseMRF:
    """``model`` if it is a :class:`~dogs.models.BinaryPairwiseMRF`."""
    if not isinstance(model, BinaryPairwiseMRF):
        raise TypeError(f"{name} must be a BinaryPairwiseMRF, got {type(model).__name__}")
    return model


def check_model_and_scan(model, scan) -> None:
    """A binary model and a :class:`~dogs.scans.Scan` over its variables (the Gibbs samplers' first two arguments)."""
    check_model(model)
    if not isinstance(scan, Scan):
        raise TypeError(f"scan must be a dogs.scans.Scan, got {type(scan).__name__}")
    if scan.n_vars != model.n_vars:
        raise ValueError(f"scan is over n_vars = {scan.n_vars} variables but the model has {model.n_vars}")


def check_int(name: str, value, minimum: int = 1) -> int:
    """``value`` as an ``int`` if it is an integer (not a bool) ``>= minimum``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def check_bool(name: str, value) -> bool:
    """``value`` as a ``bool`` if it is a Python or numpy bool."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__}")
    return bool(value)


def check_positive_real(name: str, value) -> float:
    """``value`` as a ``float`` if it is a finite real number ``> 0``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    value = float(value)
    if not (math.isfinite(value) and value > 0.0):
        raise ValueError(f"{name} must be finite and > 0, got {value}")
    return value


def _numbers(name: str, values, what: str) -> np.ndarray:
    """``values`` as an array of integers or floats (not bools, not strings); ``what`` says what they should be."""
    array = np.asarray(values)
    if array.dtype == bool or not (np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)):
        raise TypeError(f"{name} must hold {what}, got dtype {array.dtype}")
    return array


def _check_plus_minus_one(values: np.ndarray) -> None:
    if values.size and np.issubdtype(values.dtype, np.integer) and values.min() >= -1 and values.max() <= 1 \
            and np.count_nonzero(values) == values.size:  # the common case in three passes without temporaries
        return
    if not np.all((values == 1) | (values == -1)):
        bad = values[~((values == 1) | (values == -1))].ravel()[:3] if values.ndim else values
        raise ValueError(f"initial_state values must be -1 or +1 (spins), found {bad!r}")


def check_spins(initial_state, n_vars: int) -> np.ndarray:
    """A new int8 ``(n_vars,)`` array from a state of -1/+1 values (one chain's start)."""
    if initial_state is None:
        raise TypeError("initial_state is required: a (d,) array of -1 and +1")
    values = _numbers("initial_state", initial_state, "the numbers -1 and +1")
    if values.shape != (n_vars,):
        raise ValueError(f"initial_state must have shape ({n_vars},), got {values.shape}")
    _check_plus_minus_one(values)
    return values.astype(np.int8)


def check_spin_states(initial_state, n_vars: int, n_chains: int, *, single_spin: bool) -> np.ndarray:
    """A new contiguous int8 ``(n_chains, n_vars)`` array of -1/+1 starts, one row per chain.

    Accepted: a ``(n_vars,)`` state shared by every chain, a ``(n_chains, n_vars)`` array and, with
    ``single_spin``, one spin for every site of every chain."""
    if initial_state is None:
        raise TypeError("initial_state is required: a (d,) array of -1 and +1")
    values = _numbers("initial_state", initial_state, "the numbers -1 and +1")
    allowed = ((n_vars,), (n_chains, n_vars))
    if not (values.shape in allowed or (single_spin and values.ndim == 0)):
        spin = "a spin, " if single_spin else ""
        raise ValueError(f"initial_state must be {spin}a ({n_vars},) state or a ({n_chains}, {n_vars}) array, "
                         f"got shape {values.shape}")
    _check_plus_minus_one(values)
    return np.ascontiguousarray(np.broadcast_to(values.astype(np.int8), (n_chains, n_vars))).copy()


def check_edges(edges, model: BinaryPairwiseMRF) -> np.ndarray:
    """A new ``(E, 2)`` int64 array of variable pairs (default: the model's edges)."""
    if edges is None:
        return np.array(model.edges, dtype=np.int64).reshape(-1, 2)
    array = np.asarray(edges)
    if array.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if array.dtype == bool or not np.issubdtype(array.dtype, np.integer):
        raise TypeError(f"edges must hold integers, got dtype {array.dtype}")
    if array.ndim != 2 or array.shape[1] != 2:
        raise ValueError(f"edges must be an (E, 2) array of variable pairs, got shape {array.shape}")
    if array.min() < 0 or array.max() >= model.n_vars:
        raise ValueError(f"edges must index variables 0..{model.n_vars - 1}")
    return array.astype(np.int64)


def check_delta(delta, model: BinaryPairwiseMRF) -> BinaryPairwiseMRF | None:
    """``delta`` (the quadratic form ``q`` of a log partition-function ratio) if ``None`` or a model on the same
    variables as ``model``."""
    if delta is None:
        return None
    if not isinstance(delta, BinaryPairwiseMRF):
        raise TypeError(f"delta must be a BinaryPairwiseMRF (the quadratic form q), got {type(delta).__name__}")
    if delta.n_vars != model.n_vars:
        raise ValueError(f"delta is over {delta.n_vars} variables but the model has {model.n_vars}")
    return delta


def check_marginals(prior, n_vars: int, *, open_interval: bool) -> np.ndarray:
    """``p(s_i = +1)`` per variable as a new float64 ``(n_vars,)`` array, from an array or an object with
    ``node_marginals`` (a loopy-BP result). ``open_interval``: every value strictly inside ``(0, 1)`` (the
    annular prior); otherwise in ``[0, 1]`` (the CMH proposal)."""
    values = _numbers("prior", getattr(prior, "node_marginals", prior), "probabilities p(s_i = +1)")
    if values.shape != (n_vars,):
        raise ValueError(f"prior must have shape ({n_vars},) (one p(s_i = +1) per variable), got {values.shape}")
    plus = values.astype(np.float64)
    inside = (plus > 0.0) & (plus < 1.0) if open_interval else (plus >= 0.0) & (plus <= 1.0)
    if not (np.all(np.isfinite(plus)) and np.all(inside)):
        where = "strictly inside (0, 1)" if open_interval else "in [0, 1]"
        raise ValueError(f"prior probabilities p(s_i = +1) must be finite and {where}")
    return plus


def check_index_array(name: str, values) -> np.ndarray:
    """A contiguous int64 1-d array from a sequence of integers (or one integer)."""
    array = np.atleast_1d(np.asarray(values))
    if array.ndim != 1:
        raise ValueError(f"{name} must be a 1-d sequence of integers, got shape {array.shape}")
    if array.size and (array.dtype == bool or not np.issubdtype(array.dtype, np.integer)):
        raise TypeError(f"{name} must hold integers, got dtype {array.dtype}")
    return np.ascontiguousarray(array, dtype=np.int64)


def check_recording(record_vars, record_times, n_vars: int, n_steps: int):
    """``(record_vars, record_times)`` as read-only int64 arrays (or ``(None, None)``): variables in ``[0, n_vars)``
    recorded after non-decreasing step counts in ``[0, n_steps]``; both or neither."""
    if record_vars is None and record_times is None:
        return None, None
    if record_vars is None or record_times is None:
        missing = "record_vars" if record_vars is None else "record_times"
        raise ValueError(f"record_vars and record_times go together: {missing} is missing")
    rec_vars = check_index_array("record_vars", record_vars)
    rec_times = check_index_array("record_times", record_times)
    if rec_vars.size and (rec_vars.min() < 0 or rec_vars.max() >= n_vars):
        raise ValueError(f"record_vars must index variables 0..{n_vars - 1}")
    if rec_times.size and (rec_times.min() < 0 or rec_times.max() > n_steps):
        raise ValueError(f"record_times must lie in [0, {n_steps}] (the scan length)")
    if np.any(np.diff(rec_times) < 0):
        raise ValueError("record_times must be non-decreasing")
    return frozen(rec_vars), frozen(rec_times)
