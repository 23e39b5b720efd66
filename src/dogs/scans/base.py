r"""Scans: the sequence of variable-selection distributions :math:`q_1, \dots, q_T` (DoGS §2.1).

A scan is stored as an integer array ``indices`` of length ``T`` (``int32``, or ``int64`` from ``2^31``
variables on: :func:`dogs.models.graph.index_dtype`):

- ``indices[t] = i >= 0`` means :math:`q_{t+1} = e_i` (update variable ``i``);
- ``indices[t] = UNIFORM (-1)`` means :math:`q_{t+1} = (1/p, \dots, 1/p)` (update a variable
  drawn uniformly at random when the chain runs).

This covers the three scans the papers use — uniform random
(all ``-1``), systematic (``t mod p``, DoGS §2.1: row-major on grids) and
explicit index sequences — and also the output of DoGS Algorithm 2 started
from a uniform scan, whose early-stopped prefix stays uniform while the
optimised suffix is deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dogs.models.graph import index_dtype

__all__ = ["UNIFORM", "SCAN_NAMES", "Scan", "systematic_scan", "paper_systematic_scan", "uniform_scan", "explicit_scan", "make_scan"]

UNIFORM = -1
SCAN_NAMES = ("uniform", "systematic")


def _check_length(length) -> int:
    if isinstance(length, bool) or not isinstance(length, (int, np.integer)):
        raise TypeError(f"scan length must be an integer, got {type(length).__name__}")
    if length < 0:
        raise ValueError(f"scan length must be >= 0, got {length}")
    return int(length)


def _check_n_vars(n_vars) -> int:
    if isinstance(n_vars, bool) or not isinstance(n_vars, (int, np.integer)) or n_vars < 1:
        raise ValueError(f"n_vars must be a positive integer, got {n_vars!r}")
    return int(n_vars)


@dataclass(frozen=True, eq=False)
class Scan:
    """A scan of length ``T`` over ``n_vars`` variables (see the module docstring for the encoding)."""

    indices: np.ndarray
    n_vars: int

    def __post_init__(self):
        n_vars = _check_n_vars(self.n_vars)
        idx = np.asarray(self.indices)
        if idx.ndim != 1:
            raise ValueError(f"scan indices must be 1-d, got shape {idx.shape}")
        if idx.size and not np.issubdtype(idx.dtype, np.integer):
            raise TypeError(f"scan indices must be integers, got dtype {idx.dtype}")
        if idx.size and (idx.min() < UNIFORM or idx.max() >= n_vars):  # before the cast, which would wrap
            raise ValueError(f"scan indices must lie in [-1, {n_vars - 1}] (-1 = uniform random choice)")
        idx = np.ascontiguousarray(idx, dtype=index_dtype(n_vars))
        idx.setflags(write=False)
        object.__setattr__(self, "indices", idx)
        object.__setattr__(self, "n_vars", n_vars)

    @property
    def length(self) -> int:
        return self.indices.size

    def __len__(self) -> int:
        return self.indices.size

    @property
    def is_deterministic(self) -> bool:
        return bool(self.indices.size == 0 or self.indices.min() >= 0)

    def prefix(self, length: int) -> "Scan":
        """The first ``length`` steps."""
        length = _check_length(length)
        if length > self.length:
            raise ValueError(f"prefix length {length} exceeds scan length {self.length}")
        return Scan(self.indices[:length], self.n_vars)

    def visit_counts(self) -> np.ndarray:
        """How often each variable is selected by the deterministic steps."""
        det = self.indices[self.indices >= 0]
        return np.bincount(det, minlength=self.n_vars)


def systematic_scan(n_vars: int, length: int, order=None) -> Scan:
    r"""Systematic scan: step ``t = 0, 1, ..., T - 1`` updates variable ``t mod p`` (or ``order[t mod len(order)]``).

    In the paper's 1-based notation :math:`q_t = e_{((t - 1) \bmod p) + 1}` for ``t = 1..T``: every sweep
    *starts* on variable 0 and ends on variable ``p - 1`` (row-major on a grid). This is the meaning of
    "systematic" throughout the library and the ``dogs`` command (``--scan systematic``,
    ``--base systematic``). DoGS §2.1 writes :math:`q_t = e_{(t \bmod p) + 1}`, whose sweeps end on
    variable 0 instead; that phase is :func:`paper_systematic_scan`, kept for the experiments that
    reproduce the paper's figures.
    """
    n_vars, length = _check_n_vars(n_vars), _check_length(length)
    if order is None:
        order = np.arange(n_vars)
    order = np.asarray(order)
    if order.ndim != 1 or order.size < 1 or not np.issubdtype(order.dtype, np.integer):
        raise ValueError("order must be a non-empty 1-d array of variable indices")
    if order.min() < UNIFORM or order.max() >= n_vars:  # as Scan checks it, before the cast
        raise ValueError(f"scan indices must lie in [-1, {n_vars - 1}] (-1 = uniform random choice)")
    # order repeated cyclically (order[t mod len(order)]) straight into the scan's type: no index arrays of length T
    return Scan(np.resize(order.astype(index_dtype(n_vars)), length), n_vars)


def paper_systematic_scan(n_vars: int, length: int) -> Scan:
    r"""The paper-convention systematic scan, exactly as DoGS §2.1 writes it: :math:`q_t = e_{(t \bmod p) + 1}`.

    For ``t = 1..T`` in 0-based indices this visits ``1, 2, ..., p - 1, 0, 1, ...``: every sweep *ends*
    on variable 0, one step later than the library's :func:`systematic_scan` (which the ``dogs``
    command uses). It exists for the experiments that reproduce the paper's numbers: for a target at
    variable 0 (``d = e_1``) the phase matters -- with it the §5.2 length-doubling search stops at length
    16, as the paper reports; with :func:`systematic_scan` it stops at length 4. Use
    :func:`systematic_scan` elsewhere.
    """
    n_vars = _check_n_vars(n_vars)
    return systematic_scan(n_vars, length, order=np.roll(np.arange(n_vars), -1))


def systematic_scan_ending_on(n_vars: int, length: int, target: int) -> Scan:
    r"""The row-major systematic scan of ``length`` steps whose *last* step updates ``target``.

    ``q_t = e_{((target + t - T) \bmod p) + 1}`` for ``t = 1..T`` (0-based: the indices
    ``target - T + 1, ..., target`` modulo ``p``). It is the systematic scan in the phase that suits a
    marginal target ``d = e_target`` at the budget ``T``; for ``target = 0`` and ``T`` a multiple of
    ``p`` it equals :func:`paper_systematic_scan`. For ``T < p`` the paper's phase never updates
    variable 0 at all (its marginal guarantee is exactly 1), while this one ends on it, so a comparison
    with DoGS at such a budget is fair only against this scan (on the 40x40 grids of DoGS §5.4 and §5.6
    its Dobrushin variation is the smallest over all ``p`` phases at every ``T`` we checked; a test
    checks it on small grids).
    """
    n_vars, length = _check_n_vars(n_vars), _check_length(length)
    if isinstance(target, bool) or not isinstance(target, (int, np.integer)) or not 0 <= target < n_vars:
        raise ValueError(f"target must be a variable index 0..{n_vars - 1}, got {target!r}")
    return Scan((np.arange(length, dtype=np.int64) + (int(target) - length + 1)) % n_vars, n_vars)


def uniform_scan(n_vars: int, length: int) -> Scan:
    """Uniform random scan ``q_t = (1/p, ..., 1/p)``; indices are drawn when the chain runs."""
    n_vars, length = _check_n_vars(n_vars), _check_length(length)
    return Scan(np.full(length, UNIFORM, dtype=index_dtype(n_vars)), n_vars)


def explicit_scan(indices, n_vars: int) -> Scan:
    """A user-given index sequence."""
    return Scan(indices, n_vars)


def make_scan(name: str, n_vars: int, length: int) -> Scan:
    """Build a standard scan by name: one of :data:`SCAN_NAMES`."""
    if name not in SCAN_NAMES:
        raise ValueError(f"unknown scan name {name!r}; expected one of {', '.join(SCAN_NAMES)}")
    return systematic_scan(n_vars, length) if name == "systematic" else uniform_scan(n_vars, length)
