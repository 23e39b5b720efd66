"""The ``dogs`` command's resource guard: the memory a request needs, estimated before anything is allocated.

Like the workflow's guard (:mod:`dogs.workflow.cost`), whose limit it shares (:mod:`dogs.resources`: 80 % of the
machine's physical memory unless ``--max-memory-gb`` says otherwise), the estimates are generous upper
bounds from the sizes of the arrays the code allocates, not measurements; their purpose is to refuse a
request that cannot fit, with a message that names the option or file responsible, long before it is
tried. The per-item sizes below are our choices, read off the code (and, for the junction tree, off
pgmpy's measured footprint of about 6 KB per variable on grid models).
"""

from __future__ import annotations

import math

from dogs.resources import DEFAULT_FRACTION, TooLargeError, format_bytes, memory_limit_bytes

__all__ = ["BYTES_PER_TABLE_ENTRY", "Guard"]

#: Bytes per variable of a model with its neighbour lists, influence bound and sampler state.
BYTES_PER_VARIABLE = 256
#: Bytes per edge of a model (edge list, couplings, two CSR slots, the bound's two entries).
BYTES_PER_EDGE = 128
#: Bytes per scan step: the stored index and the DoGS work arrays (the workflow guard's figure).
BYTES_PER_STEP = 32
#: Bytes per table entry read from a UAI file, while the model is assembled from it.
BYTES_PER_TABLE_ENTRY = 64
#: Bytes per variable and per edge of pgmpy's junction tree objects (measured about 6 KB per variable).
BYTES_PER_JUNCTION_VARIABLE = 16_384
BYTES_PER_JUNCTION_EDGE = 4_096
#: Bytes per recorded draw of one marginal during the ArviZ diagnostics (float64 copies, ranks, splits).
BYTES_PER_DIAGNOSED_DRAW = 48


class Guard:
    """The memory limit of one ``dogs`` invocation and the checks against it."""

    def __init__(self, max_memory_gb: float | None):
        self.limit = memory_limit_bytes(max_memory_gb)
        self.origin = (f"--max-memory-gb {max_memory_gb:g}" if max_memory_gb is not None
                       else f"{DEFAULT_FRACTION:.0%} of this machine's memory")

    def check(self, what: str, n_bytes: float) -> None:
        """Refuse (``TooLargeError``) when ``what`` needs more than the limit; ``what`` names the option or file."""
        if not math.isfinite(n_bytes) or n_bytes > self.limit:
            raise TooLargeError(f"{what} needs about {format_bytes(n_bytes)} of memory, more than the limit of "
                                f"{format_bytes(self.limit)} ({self.origin}; raise it with --max-memory-gb)")

    # ------------------------------------------------------------------ estimates
    def model(self, what: str, n_vars: int, n_edges: int) -> None:
        self.check(what, float(n_vars) * BYTES_PER_VARIABLE + float(n_edges) * BYTES_PER_EDGE)

    def table_entries(self) -> int:
        """The most UAI table entries a model may have."""
        return max(1, self.limit // BYTES_PER_TABLE_ENTRY)

    def scan(self, option: str, length: int) -> None:
        self.check(f"{option} {length} (scan steps)", float(length) * BYTES_PER_STEP)

    def theorem10(self, tables_shapes) -> None:
        """Theorem 10 compares every pair of columns of every pair table: ``K_i K_j^2`` numbers per table, x3."""
        total = sum(float(a) * b * b + float(b) * a * a for a, b in tables_shapes) * 8 * 3
        self.check("the influence bound of DoGS Theorem 10 on this model's pair tables", total)

    def junction_tree(self, n_vars: int, n_edges: int) -> None:
        self.check(f"exact inference on {n_vars} variables (pgmpy junction tree objects)",
                   float(n_vars) * BYTES_PER_JUNCTION_VARIABLE + float(n_edges) * BYTES_PER_JUNCTION_EDGE)

    def sampling(self, n_vars: int, chains: int, draws: int, recorded_cardinalities, marginals: int, saved: bool) -> None:
        """The library's estimate for the draws (:func:`dogs.sampling_call.sampling_memory_bytes`, which
        :func:`dogs.sampling_call.sample` checks too) plus the command's ArviZ diagnostics of ``marginals`` indicators."""
        from dogs.sampling_call import sampling_memory_bytes

        self.check(f"--chains {chains} (chain states of {n_vars} variables)",
                   sampling_memory_bytes(n_vars, chains, 0, []))
        traces = float(chains) * draws * marginals
        self.check(f"--chains {chains} x --draws {draws} x {marginals} reported marginals (choose fewer with "
                   "--vars)", sampling_memory_bytes(n_vars, chains, draws, recorded_cardinalities)
                   + traces * (BYTES_PER_DIAGNOSED_DRAW + (16 if saved else 0)))
