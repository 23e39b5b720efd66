r"""Networks in the UAI format: a strict reader and a writer, and the models the files define.

The UAI format (UAI inference competitions, 2008 onwards; the 2014 competition's model-format page is the
reference we follow) is a whitespace-separated list: a preamble word, ``MARKOV`` or ``BAYES``; the number of
variables ``p``; their cardinalities ``K_1 .. K_p``; the number of factors (for ``BAYES``, of conditional
probability tables); each factor's scope (its size, then its variables, 0-based); then each factor's table
(its number of entries, then the entries) in the order of the scopes, with the *last* variable of the scope
changing fastest. The network is :math:`\pi(x) \propto \prod_f \phi_f(x_{S_f})`. In a ``BAYES`` file each
table is the conditional distribution :math:`P(x_c \mid x_{pa(c)})` of the *last* variable of its scope (the
child) given the others (its parents), so each run of :math:`K_c` consecutive entries (one parent
configuration) sums to 1 and :math:`Z = 1`. (pgmpy 1.1's ``UAIWriter`` lists the child last in the scope
but writes the table with the child changing *slowest*; read by the convention, such a file is a different
network, and its rows do not sum to 1, which the reader reports.)

Which model a file gives (:func:`read_uai_model`): a ``MARKOV`` network whose factors cover one or two
variables and whose entries are all positive is a pairwise model, in the log-linear form of DoGS eq. (2)

.. math::

    \log \pi(x) = \sum_i \sum_{f: S_f = \{i\}} \log \phi_f(x_i)
                + \sum_{i<j} \sum_{f: S_f = \{i, j\}} \log \phi_f(x_i, x_j) - \log Z

(several factors on the same scope are multiplied; a scope given as ``(j, i)`` is transposed; an empty scope
is a constant and only shifts :math:`\log Z`), and a ±1 model when every variable has two states
(:func:`binary_pairwise_terms`, label 0 = spin -1). Every other file (``BAYES``, a factor over three or more
variables, a zero entry) is a :class:`~dogs.models.factor_graph.DiscreteFactorGraph` holding the factors as
the file lists them (:func:`read_uai_factor_graph`), zeros as ``-inf``. Binary networks with larger positive
factors also have the parity form of DoGS Theorem 12 (:func:`parity_form`).

What the reader accepts (anything else is refused with a :class:`UAIError` naming the file, the line
and the factor, before a model is built):

- comment lines, whose first non-blank character is ``c``, anywhere (they are skipped);
- plain ASCII only, counts and indices as digit strings (no signs, ``_`` separators or non-ASCII
  digits), table entries as decimal numbers (no ``inf``, ``nan`` or hexadecimal);
- the cardinalities on one line, the line after the number of variables, so that a header that declares
  more or fewer variables than it lists is caught ("declares N variables, found k") instead of shifting
  every later number (pgmpy's writer and the competition files lay the preamble out this way);
- counts that fit the file (a declared size larger than the rest of the file could hold is refused
  before anything is allocated), at most :data:`MAX_CARDINALITY` states per variable,
  :data:`MAX_SCOPE` variables and :data:`MAX_TABLE_ENTRIES` entries per factor;
- entries that are finite and non-negative (a zero is a hard constraint; an entry like ``1e-400`` that is
  positive but reads as 0 is refused), and no factor that is zero everywhere;
- for ``BAYES``: one table per variable, the child last in its scope, parents that form no directed cycle,
  and rows that sum to 1 within :data:`BAYES_ROW_TOLERANCE`;
- for the pairwise models (:func:`read_uai_network`, :func:`read_uai`): ``MARKOV`` and positive entries only.

:func:`write_uai` writes a factor graph back in the same layout, each entry chosen so that the file reads back
to the same log tables bit for bit (:func:`potentials`).

The numbers are read by numba kernels in one pass over the bytes (:mod:`dogs._kernels.uai`; every entry
reads exactly as Python's ``float`` reads it), and the pairwise and ±1 models are assembled with array
operations, so a 10^6-variable grid file loads in about a second (``python -m dogs.benchmarks.uai``).

We parse the format ourselves instead of using pgmpy's reader: pgmpy reports a malformed file as a
parser exception at a character offset (a truncated table, a negative entry), whereas a checked
reader can say which factor is wrong and why, and it keeps the pairwise structure the samplers need.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dogs.models.discrete import DiscretePairwiseMRF
from dogs.models.factor_graph import DiscreteFactorGraph

__all__ = ["BAYES_ROW_TOLERANCE", "MAX_CARDINALITY", "MAX_SCOPE", "MAX_TABLE_ENTRIES", "UAIError", "UAINetwork",
           "UAITooLargeError", "binary_pairwise_terms", "blank_comment_lines", "factor_graph", "is_pairwise_positive",
           "pairwise_model", "parity_form", "potentials", "read_uai", "read_uai_binary_factors", "read_uai_factor_graph",
           "read_uai_factors", "read_uai_model", "read_uai_network", "to_binary_pairwise", "write_uai"]

#: Largest cardinality accepted (a Gibbs update tabulates every state of a variable).
MAX_CARDINALITY = 1 << 16
#: Largest table of one factor (entries).
MAX_TABLE_ENTRIES = 1 << 24
#: Largest scope of one factor (variables).
MAX_SCOPE = 64
#: How far from 1 a row of a ``BAYES`` table may sum (entries rounded to a few digits in a file); a table laid
#: out with the child changing slowest instead of fastest sums far from 1 (module docstring).
BAYES_ROW_TOLERANCE = 1e-2
#: Neighbouring floats tried either way when an entry's log must equal a given log potential (:func:`potentials`).
_NUDGES = 8


class UAIError(ValueError):
    """A UAI file that is malformed or outside what the package supports; the message says where."""


class UAITooLargeError(UAIError):
    """A well-formed UAI file whose tables would need more memory than the caller allows."""


@dataclass(frozen=True, eq=False)
class UAINetwork:
    """A network as read from a file, in flat arrays (``kind``: the file's ``MARKOV`` or ``BAYES``).

    Factor ``f`` has the scope ``scope_vars[scope_starts[f]:scope_starts[f + 1]]`` and the log table
    ``log_values[table_starts[f]:table_starts[f + 1]]`` (C order over the scope, the last variable
    changing fastest).
    """

    cardinalities: np.ndarray
    scope_starts: np.ndarray
    scope_vars: np.ndarray
    table_starts: np.ndarray
    log_values: np.ndarray
    source: str = "network"
    kind: str = "MARKOV"

    @property
    def n_vars(self) -> int:
        return self.cardinalities.size

    @property
    def n_factors(self) -> int:
        return self.scope_starts.size - 1

    @property
    def scope_sizes(self) -> np.ndarray:
        sizes = self.__dict__.get("_sizes")
        if sizes is None:
            sizes = np.diff(self.scope_starts)
            object.__setattr__(self, "_sizes", sizes)
        return sizes

    def factors(self) -> list[tuple[tuple[int, ...], np.ndarray]]:
        """The factors as ``(scope, log table)`` pairs, each table shaped by its scope's cardinalities."""
        out = []
        for f in range(self.n_factors):
            scope = tuple(int(v) for v in self.scope_vars[self.scope_starts[f]:self.scope_starts[f + 1]])
            shape = tuple(int(self.cardinalities[v]) for v in scope)
            out.append((scope, self.log_values[self.table_starts[f]:self.table_starts[f + 1]].reshape(shape)))
        return out


# ------------------------------------------------------------------------------------------ reading
_COMMENT_LINE = re.compile(rb"(?m)^[ \t]*c[^\n]*")


def blank_comment_lines(data: bytes) -> bytes:
    """``data`` with every comment line (first non-blank character ``c``, as in DIMACS-style files that some UAI
    tools write) blanked by spaces of the same length: no token is lost and every position and line number stays."""
    return _COMMENT_LINE.sub(lambda match: b" " * len(match.group()), data)


class _Reader:
    """The bytes of one file and the messages that point into them."""

    def __init__(self, data: bytes, source: str):
        self.data = data
        self.buf = np.frombuffer(data, dtype=np.uint8)
        self.source = source

    def line(self, position: int) -> int:
        return self.data.count(b"\n", 0, position) + 1

    def token(self, start: int, end: int) -> str:
        text = self.data[start:min(end, start + 24)].decode("ascii", "replace")
        return repr(text + ("..." if end - start > 24 else ""))

    def fail(self, message: str, position: int | None = None, error=UAIError):
        where = f" (line {self.line(position)})" if position is not None else ""
        raise error(f"{self.source}: {message}{where}")

    def tokens_on_line(self, position: int) -> tuple[int, int]:
        """``(line, number of tokens on it)`` for the line where the first token at or after ``position`` starts."""
        from dogs._kernels.uai import next_token

        start, _ = next_token(self.buf, position)
        line_start = self.data.rfind(b"\n", 0, start) + 1
        line_end = self.data.find(b"\n", start)
        line = self.buf[line_start: len(self.data) if line_end < 0 else line_end]
        space = (line == 32) | ((line >= 9) & (line <= 13))
        starts = int(np.count_nonzero(space[:-1] & ~space[1:])) + int(line.size > 0 and not space[0])
        return self.line(start), starts

    def integers(self, position: int, count: int, what) -> tuple[np.ndarray, int]:
        """``count`` counts or indices from ``position``; ``what(k)`` names the k-th for messages."""
        from dogs._kernels import uai as kernels

        out = np.empty(count, dtype=np.int64)
        position, n_read, status, start, end = kernels.read_integers(self.buf, position, out)
        if status == kernels.STATUS_END:
            self.fail(f"the file ends where {what(n_read)} was expected (truncated?)")
        if status == kernels.STATUS_TOO_LARGE:
            self.fail(f"{what(n_read)} is {self.token(start, end)}, far beyond what the package supports", start)
        if status != kernels.STATUS_OK:
            self.fail(f"{what(n_read)} must be a whole number written with the digits 0-9, got {self.token(start, end)}",
                      start)
        return out, position


def read_uai_network(path, *, max_table_entries: int | None = None) -> UAINetwork:
    """Read a ``MARKOV`` UAI file with positive entries strictly, for the pairwise models (module docstring).

    Parameters
    ----------
    path : str or Path
    max_table_entries : int, optional
        Refuse, with :class:`UAITooLargeError` and before reading any table, a file whose tables hold
        more entries than this in total (each takes 8 bytes, and a model built from it more).

    Raises
    ------
    UAIError
        A malformed or unsupported file; the message names the file, the line and the factor. A ``BAYES``
        file or a zero entry is refused here: :func:`read_uai_factor_graph` reads them.
    """
    network = _read_flat(path, max_table_entries)
    if network.kind != "MARKOV":
        raise UAIError(f"{network.source}: a BAYES network, but a MARKOV network is needed here; read it with "
                       "read_uai_factor_graph (or read_uai_model)")
    zero = np.isneginf(network.log_values)
    if zero.any():
        f = int(np.searchsorted(network.table_starts, int(np.argmax(zero)), side="right") - 1)
        raise UAIError(f"{network.source}: factor {f} has the entry 0; the pairwise models need positive entries "
                       "(read_uai_factor_graph reads zeros as hard constraints)")
    return network


def _read_flat(path, max_table_entries: int | None) -> UAINetwork:
    """A ``MARKOV`` or ``BAYES`` file as read (module docstring), zero entries as ``-inf``."""
    from dogs._kernels import uai as kernels

    path = Path(path)
    source = str(path)
    if not path.exists():
        raise UAIError(f"{source}: no such file")
    if not path.is_file():
        raise UAIError(f"{source}: not a regular file (a directory, device or pipe cannot be read as a UAI file)")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UAIError(f"{source}: cannot be read ({exc.strerror or exc})") from None
    r = _Reader(blank_comment_lines(data), source)
    data = r.data
    if data and int(r.buf.max()) >= 128:
        at = int(np.argmax(r.buf >= 128))
        r.fail(f"byte 0x{data[at]:02x} is not ASCII; UAI files are plain ASCII text (digits such as '１' are not "
               "numbers here)", at)

    start, end = kernels.next_token(r.buf, 0)
    if start == end:
        r.fail("the file is empty")
    network_kind = data[start:end].decode("ascii").upper()
    if network_kind not in ("MARKOV", "BAYES"):
        r.fail(f"a UAI file starts with MARKOV or BAYES, this one with {r.token(start, end)}", start)

    (n_vars,), position = r.integers(end, 1, lambda k: "the number of variables")
    header_line = r.line(position)
    if n_vars < 1:
        r.fail("the number of variables must be at least 1, got 0", position)
    cards_line, found = r.tokens_on_line(position)
    if found != n_vars:
        r.fail(f"declares {n_vars} variables (line {header_line}), found {found} cardinalities on line {cards_line} "
               "(the cardinalities go on one line)")
    cards, position = r.integers(position, n_vars, lambda k: f"the cardinality of variable {k} "
                                                              f"(the file declares {n_vars} variables)")
    if cards.min() < 2:
        i = int(np.argmin(cards))
        r.fail(f"variable {i} has cardinality {cards[i]}; every variable needs at least 2 states")
    if cards.max() > MAX_CARDINALITY:
        i = int(np.argmax(cards))
        r.fail(f"variable {i} has {cards[i]} states; at most {MAX_CARDINALITY} are supported")

    (n_factors,), position = r.integers(position, 1, lambda k: "the number of factors")
    if n_factors > (len(data) - position) // 4:
        r.fail(f"declares {n_factors} factors, but the rest of the file is too short for that many "
               "(each needs a scope and a table)", position)
    sizes = np.empty(n_factors, dtype=np.int64)
    position, scope_vars, f, status, start, end = kernels.read_scopes(r.buf, position, sizes, MAX_SCOPE)
    if status == kernels.STATUS_END:
        r.fail(f"the file ends inside the scope of factor {f} of {n_factors} (truncated, or fewer factors than "
               "declared?)")
    if status == kernels.STATUS_TOO_LARGE:
        r.fail(f"factor {f}'s scope has {r.token(start, end)} variables; at most {MAX_SCOPE} are supported", start)
    if status != kernels.STATUS_OK:
        r.fail(f"factor {f}'s scope must list whole numbers (its size, then variable indices), got "
               f"{r.token(start, end)}", start)
    scope_starts = np.zeros(n_factors + 1, dtype=np.int64)
    np.cumsum(sizes, out=scope_starts[1:])
    if scope_vars.size and scope_vars.max() >= n_vars:
        k = int(np.argmax(scope_vars >= n_vars))
        f = int(np.searchsorted(scope_starts, k, side="right") - 1)
        r.fail(f"factor {f} names variable {scope_vars[k]}, but there are only {n_vars} (0..{n_vars - 1})")
    _check_distinct(scope_vars, sizes, scope_starts, r)
    entries = _table_entries(cards, scope_vars, sizes, scope_starts, r)
    table_starts = np.zeros(n_factors + 1, dtype=np.int64)
    np.cumsum(entries, out=table_starts[1:])
    total = int(table_starts[-1])
    if total > (len(data) - position) // 2:
        r.fail(f"the scopes call for {total} table entries, but the rest of the file is too short to hold them "
               "(wrong scopes or cardinalities?)")
    if max_table_entries is not None and total > max_table_entries:
        r.fail(f"the tables hold {total} entries ({8 * total / 1e9:.3g} GB as numbers), more than the "
               f"{max_table_entries} allowed", error=UAITooLargeError)

    values = np.empty(total, dtype=np.float64)
    position, slow, f, status, start, end, count = kernels.read_tables(r.buf, position, entries, values)
    if status == kernels.STATUS_END:
        r.fail(f"the file ends inside the table of factor {f} (truncated?)")
    if status == kernels.STATUS_WRONG_COUNT:
        r.fail(f"factor {f} over variables {_scope(scope_vars, scope_starts, f)} needs {entries[f]} entries, "
               f"the file says {count}", start)
    if status == kernels.STATUS_TOO_LARGE:
        r.fail(f"the entry count of factor {f} is {r.token(start, end)}; it needs {entries[f]}", start)
    if status != kernels.STATUS_OK:
        what = "the entry count" if count < 0 else "an entry"
        kind = "a whole number" if count < 0 else "a decimal number such as 0.25 or 1e-3"
        r.fail(f"{what} of factor {f} must be {kind}, got {r.token(start, end)}", start)
    for at, start, end in slow.tolist():
        values[at] = float(data[start:end])
        if values[at] == 0 and re.search(rb"[1-9]", data[start:end].split(b"e")[0].split(b"E")[0]):
            f = int(np.searchsorted(table_starts, at, side="right") - 1)
            r.fail(f"factor {f} has the entry {r.token(start, end)}, which is positive but below the smallest "
                   "float64 (it would read as a hard zero)", start)
    start, end = kernels.next_token(r.buf, position)
    if start < len(data):
        r.fail(f"unexpected {r.token(start, end)} after the last table (wrong counts, or more tables than factors?)",
               start)
    good = np.isfinite(values) & (values >= 0)
    if not good.all():
        k = int(np.argmin(good))
        f = int(np.searchsorted(table_starts, k, side="right") - 1)
        r.fail(f"factor {f} has the entry {values[k]:g}; entries must be finite and non-negative")
    positive = np.ones(n_factors, dtype=bool)
    if not values.all():  # some zero: is any factor zero everywhere?
        positive[:] = False
        positive[np.searchsorted(table_starts, np.flatnonzero(values), side="right") - 1] = True
    if not positive.all():
        f = int(np.argmin(positive))
        r.fail(f"factor {f} over variables {_scope(scope_vars, scope_starts, f)} is zero everywhere: no state has "
               "positive probability")
    if network_kind == "BAYES":
        problem = _bayes_problem(cards, scope_starts, scope_vars, table_starts, values)
        if problem:
            r.fail(problem)
    with np.errstate(divide="ignore"):
        np.log(values, out=values)
    return UAINetwork(cards, scope_starts, scope_vars, table_starts, values, source, network_kind)


def _bayes_problem(cards, scope_starts, scope_vars, table_starts, values) -> str | None:
    """What makes flat tables (entries, not logs) no Bayesian network in the UAI convention, or None.

    One table per variable, whose scope ends with that variable (the child; the others are its parents),
    parents that form no directed cycle, and rows over the parents' configurations that are distributions
    over the child: within :data:`BAYES_ROW_TOLERANCE` of 1, the child changing fastest.
    """
    p, n_factors = cards.size, scope_starts.size - 1
    if n_factors != p:
        return f"a BAYES network has one table per variable, but this one has {n_factors} tables for {p} variables"
    sizes = np.diff(scope_starts)
    if sizes.min() == 0:
        return f"table {int(np.argmin(sizes))} has an empty scope; a BAYES table's scope ends with its variable"
    children = scope_vars[scope_starts[1:] - 1]
    count = np.bincount(children, minlength=p)
    if count.max() > 1:
        v = int(np.argmax(count))
        first, second = np.flatnonzero(children == v)[:2].tolist()
        return (f"variable {v} is the child (the last variable of the scope) of tables {first} and {second}; a BAYES "
                "network has one table per variable")
    parents = [scope_vars[scope_starts[f]:scope_starts[f + 1] - 1].tolist() for f in range(n_factors)]
    waiting = np.array([len(q) for q in parents])  # by table: parents not yet placed in a topological order
    below: list[list[int]] = [[] for _ in range(p)]
    for f, q in enumerate(parents):
        for v in q:
            below[v].append(f)
    ready = [int(f) for f in np.flatnonzero(waiting == 0)]
    placed = 0
    while ready:
        f = ready.pop()
        placed += 1
        for g in below[int(children[f])]:
            waiting[g] -= 1
            if waiting[g] == 0:
                ready.append(g)
    if placed < n_factors:
        v = int(children[np.flatnonzero(waiting > 0)[0]])
        return (f"the parents form a directed cycle (variable {v} lies on or below it); a Bayesian network's graph "
                "is acyclic")
    for f in range(n_factors):
        k = int(cards[children[f]])
        sums = values[table_starts[f]:table_starts[f + 1]].reshape(-1, k).sum(axis=1)
        off = np.abs(sums - 1.0)
        if off.max() > BAYES_ROW_TOLERANCE:
            row = int(np.argmax(off))
            return (f"table {f} (variable {int(children[f])} given {parents[f]}) has a row, parent configuration {row}, "
                    f"that sums to {sums[row]:.6g}, not 1: a BAYES table lists P(child | parents) with the child last "
                    "in the scope and changing fastest (a table written with the child changing slowest, as pgmpy "
                    "1.1's UAIWriter does, fails this check)")
    return None


def _scope(scope_vars, scope_starts, f) -> tuple[int, ...]:
    return tuple(int(v) for v in scope_vars[scope_starts[f]:scope_starts[f + 1]])


def _check_distinct(scope_vars, sizes, scope_starts, r: _Reader) -> None:
    """No scope names a variable twice (pairs compared directly, larger scopes sorted)."""
    pairs = np.flatnonzero(sizes == 2)
    same = scope_vars[scope_starts[pairs]] == scope_vars[scope_starts[pairs] + 1]
    if same.any():
        f = int(pairs[np.argmax(same)])
        r.fail(f"factor {f} names variable {scope_vars[scope_starts[f]]} twice in its scope")
    for f in np.flatnonzero(sizes > 2).tolist():
        scope = np.sort(scope_vars[scope_starts[f]:scope_starts[f + 1]])
        if np.any(scope[1:] == scope[:-1]):
            r.fail(f"factor {f} names variable {scope[1:][scope[1:] == scope[:-1]][0]} twice in its scope")


def _table_entries(cards, scope_vars, sizes, scope_starts, r: _Reader) -> np.ndarray:
    """Entries of every factor's table (the product of its scope's cardinalities), each at most the limit."""
    entries = np.ones(sizes.size, dtype=np.int64)
    for k in range(int(sizes.max(initial=0))):
        has = np.flatnonzero(sizes > k)
        entries[has] *= cards[scope_vars[scope_starts[has] + k]]
        if entries[has].max() > MAX_TABLE_ENTRIES:
            f = int(has[np.argmax(entries[has])])
            r.fail(f"factor {f} over variables {_scope(scope_vars, scope_starts, f)} has more than "
                   f"{MAX_TABLE_ENTRIES} entries")
    return entries


def read_uai_factors(path) -> tuple[np.ndarray, list[tuple[tuple[int, ...], np.ndarray]]]:
    """Read a ``MARKOV`` UAI file as its cardinalities and its factors ``(scope, log table)``, any scope size."""
    network = read_uai_network(path)
    return network.cardinalities, network.factors()


# ------------------------------------------------------------------------------------------ models
def _refuse_larger_factors(network: UAINetwork) -> None:
    sizes = network.scope_sizes
    if sizes.size and sizes.max() > 2:
        f = int(np.argmax(sizes > 2))
        raise UAIError(f"{network.source}: factor {f} has {sizes[f]} variables; only factors of one or two variables "
                       "(pairwise networks) are supported here (binary networks with larger factors: parity_form, "
                       "DoGS Theorem 12)")


def _pair_factors(network: UAINetwork):
    """``(factor ids, first variable, second variable)`` of the two-variable factors, as the file orders them."""
    pairs = np.flatnonzero(network.scope_sizes == 2)
    first = network.scope_vars[network.scope_starts[pairs]]
    second = network.scope_vars[network.scope_starts[pairs] + 1]
    return pairs, first, second


def _merged_edges(i: np.ndarray, j: np.ndarray, n_vars: int):
    """Edges ``(i < j)`` sorted, and the edge of each input pair (several factors may share an edge)."""
    key = i * n_vars + j
    if key.size and np.all(key[1:] > key[:-1]):
        return np.stack([i, j], axis=1), np.arange(key.size)
    unique, edge_of = np.unique(key, return_inverse=True)
    return np.stack([unique // n_vars, unique % n_vars], axis=1), edge_of.ravel()


def _tables(logs: np.ndarray, starts: np.ndarray, width: int) -> np.ndarray:
    """The tables of ``width`` entries starting at ``starts``, one per row (a view when they are adjacent)."""
    if starts.size and starts[-1] - starts[0] == width * (starts.size - 1) and np.all(np.diff(starts) == width):
        return logs[starts[0]:starts[0] + width * starts.size].reshape(-1, width)
    return logs[starts[:, None] + np.arange(width)]


def binary_pairwise_terms(network: UAINetwork):
    r"""The ±1 parameters of a pairwise network whose variables all have two states (label 0 = spin -1).

    Each table is expanded exactly in spin parities: a pairwise log table as
    :math:`L(a, b) = c + \alpha s_a + \beta s_b + \theta s_a s_b` with
    :math:`\theta = (L_{00} - L_{01} - L_{10} + L_{11}) / 4`,
    :math:`\alpha = (L_{10} + L_{11} - L_{00} - L_{01}) / 4`,
    :math:`\beta = (L_{01} + L_{11} - L_{00} - L_{10}) / 4`, :math:`c` the mean of the four entries; a unary
    one as :math:`u(a) = c + h s_a`, :math:`h = (u_1 - u_0) / 2`. All factors at once, with array operations.

    Returns
    -------
    edges : (E, 2) int array, sorted, ``i < j``
    theta : (E,) couplings (factors on the same pair summed)
    h : (p,) field
    log_offset : float
        :math:`\log Z_{\text{network}} = \log Z_{\pm 1} + \text{log\_offset}` (includes empty-scope factors).
    """
    _refuse_larger_factors(network)
    if np.any(network.cardinalities != 2):
        raise UAIError(f"{network.source}: a ±1 model needs every variable to have exactly 2 states")
    p, logs, starts, sizes = network.n_vars, network.log_values, network.table_starts, network.scope_sizes
    offset = float(logs[starts[:-1][sizes == 0]].sum())
    unary = np.flatnonzero(sizes == 1)
    u = _tables(logs, starts[unary], 2)
    v = network.scope_vars[network.scope_starts[unary]]
    # float64 even without unary factors (numpy's bincount of an empty index gives int64 zeros)
    h = np.bincount(v, weights=(u[:, 1] - u[:, 0]) / 2, minlength=p).astype(np.float64)
    offset += float(u.sum()) / 2
    pairs, a, b = _pair_factors(network)
    t = _tables(logs, starts[pairs], 4)  # L00, L01, L10, L11 of scope (a, b)
    coupling = (t[:, 0] - t[:, 1] - t[:, 2] + t[:, 3]) / 4
    h += np.bincount(a, weights=(t[:, 2] + t[:, 3] - t[:, 0] - t[:, 1]) / 4, minlength=p)
    h += np.bincount(b, weights=(t[:, 1] + t[:, 3] - t[:, 0] - t[:, 2]) / 4, minlength=p)
    offset += float(t.sum()) / 4
    edges, edge_of = _merged_edges(np.minimum(a, b), np.maximum(a, b), p)
    in_order = len(edges) == len(a) and bool(np.all(edge_of == np.arange(len(a))))
    theta = coupling if in_order else np.bincount(edge_of, weights=coupling, minlength=len(edges))
    return edges, theta, h, offset


def pairwise_model(network: UAINetwork) -> tuple[DiscretePairwiseMRF, float]:
    """The network as a pairwise model (unary and pairwise log potentials), any cardinalities.

    Returns
    -------
    model : DiscretePairwiseMRF
    log_constant : float
        The sum of the logs of the constant (empty-scope) factors: ``log Z`` of the file's network is
        ``log Z`` of ``model`` plus this.
    """
    _refuse_larger_factors(network)
    cards, logs, starts, sizes = network.cardinalities, network.log_values, network.table_starts, network.scope_sizes
    log_constant = float(logs[starts[:-1][sizes == 0]].sum())
    offsets = np.zeros(cards.size + 1, dtype=np.int64)
    np.cumsum(cards, out=offsets[1:])
    unary_flat = np.zeros(int(offsets[-1]))
    unary = np.flatnonzero(sizes == 1)
    v = network.scope_vars[network.scope_starts[unary]]
    slots = np.repeat(offsets[v], cards[v]) + _ranges(cards[v])
    np.add.at(unary_flat, slots, logs[np.repeat(starts[unary], cards[v]) + _ranges(cards[v])])
    pairs, a, b = _pair_factors(network)
    edges, edge_of = _merged_edges(np.minimum(a, b), np.maximum(a, b), cards.size)
    tables = [np.zeros((cards[i], cards[j])) for i, j in edges.tolist()]
    for f, e, first, second in zip(pairs.tolist(), edge_of.tolist(), a.tolist(), b.tolist()):
        table = logs[starts[f]:starts[f + 1]].reshape(cards[first], cards[second])
        tables[e] += table if first < second else table.T
    unary_tables = np.split(unary_flat, offsets[1:-1])
    return DiscretePairwiseMRF(cards, unary_tables, edges, tables), log_constant


def _ranges(lengths: np.ndarray) -> np.ndarray:
    """``concatenate([arange(n) for n in lengths])`` without a loop."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    return np.arange(total) - starts


def read_uai(path) -> tuple[DiscretePairwiseMRF, float]:
    """Read a pairwise ``MARKOV`` UAI file: :func:`pairwise_model` of :func:`read_uai_network`."""
    return pairwise_model(read_uai_network(path))


def read_uai_factor_graph(path, *, max_table_entries: int | None = None) -> DiscreteFactorGraph:
    """Read any ``MARKOV`` or ``BAYES`` UAI file as a :class:`~dogs.models.factor_graph.DiscreteFactorGraph`.

    The factors are kept as the file lists them (scopes in file order, zero entries as ``-inf``, empty
    scopes as constant factors); ``kind`` is the file's preamble. Raises :class:`UAIError` as
    :func:`read_uai_network` does, and for a ``BAYES`` file that is no Bayesian network in the UAI convention
    (one table per variable with the child last, no directed cycle, rows summing to 1: module docstring).
    """
    return factor_graph(_read_flat(path, max_table_entries))


def factor_graph(network: UAINetwork) -> DiscreteFactorGraph:
    """The flat network as a :class:`~dogs.models.factor_graph.DiscreteFactorGraph` (same layout, same arrays)."""
    return DiscreteFactorGraph(network.cardinalities, network.scope_starts, network.scope_vars, network.table_starts,
                               network.log_values, kind=network.kind)


def is_pairwise_positive(network) -> bool:
    """A ``MARKOV`` network with factors over at most two variables and no zero entry: one the pairwise models
    (and their fast kernels) hold exactly."""
    sizes = np.diff(network.scope_starts)
    return (network.kind == "MARKOV" and (sizes.size == 0 or int(sizes.max()) <= 2)
            and not np.isneginf(network.log_values).any())


def read_uai_model(path, *, max_table_entries: int | None = None):
    """Read any UAI file as the model it defines, and the log constant that model leaves out.

    A pairwise ``MARKOV`` network with positive entries (:func:`is_pairwise_positive`) whose variables all
    have two states gives a :class:`~dogs.models.BinaryPairwiseMRF` (label 0 = spin -1;
    :func:`binary_pairwise_terms`), and ``log Z`` of the file is ``log Z`` of the ±1 model plus the returned
    constant; another pairwise positive one gives a :class:`DiscretePairwiseMRF` (:func:`pairwise_model`).
    Every other file (``BAYES``, a factor over three or more variables, a zero entry) gives its
    :class:`~dogs.models.factor_graph.DiscreteFactorGraph` (:func:`read_uai_factor_graph`) and the constant 0.
    """
    from dogs.models.binary import BinaryPairwiseMRF

    network = _read_flat(path, max_table_entries)
    if not is_pairwise_positive(network):
        return factor_graph(network), 0.0
    if np.all(network.cardinalities == 2):
        edges, theta, h, offset = binary_pairwise_terms(network)
        return BinaryPairwiseMRF(edges, theta, h), offset
    return pairwise_model(network)


def _parity_coefficients(log_table: np.ndarray) -> dict[tuple[int, ...], float]:
    r"""Exact expansion of a log table over :math:`\{0, 1\}^k` in spin parities (label 0 = spin -1).

    :math:`L(x) = \sum_{T \subseteq \{0..k-1\}} c_T \prod_{i \in T} s_i` with
    :math:`c_T = 2^{-k} \sum_x L(x) \prod_{i \in T} s_i(x)`; returns ``{T: c_T}`` (positions in the table).
    """
    k = log_table.ndim
    if k == 0:
        return {(): float(log_table)}
    spins = 2 * np.array(list(np.ndindex(*([2] * k)))) - 1  # (2^k, k), C order as the table
    values = log_table.reshape(-1)
    return {subset: float(values @ np.prod(spins[:, list(subset)], axis=1)) / 2**k
            for size in range(k + 1) for subset in itertools.combinations(range(k), size)}


def read_uai_binary_factors(path) -> tuple[int, list[tuple[tuple[int, ...], float]], np.ndarray, float]:
    """A binary ``MARKOV`` UAI network of any factor sizes: :func:`parity_form` of :func:`read_uai_network`."""
    return parity_form(read_uai_network(path))


def parity_form(network) -> tuple[int, list[tuple[tuple[int, ...], float]], np.ndarray, float]:
    r"""The factors of a binary network (a :class:`UAINetwork` or a positive
    :class:`~dogs.models.factor_graph.DiscreteFactorGraph`) in the form of DoGS Theorem 12.

    Every log table is expanded exactly in spin parities (:func:`_parity_coefficients`); the terms
    with :math:`|T| = 1` form the field ``h`` and those with :math:`|T| \ge 2` the factors. Returns
    ``(n_vars, factors, h, log_constant)`` with ``factors = [(T, c_T), ...]`` as
    :func:`dogs.bounds.influence_higher_order` takes them.
    """
    cards = network.cardinalities
    source = getattr(network, "source", "network")
    if np.any(cards != 2):
        raise UAIError(f"{source}: factors over more than two variables are supported for binary variables "
                       "only (DoGS Theorem 12)")
    if np.isneginf(network.log_values).any():
        raise UAIError(f"{source}: a zero entry has no parity expansion (DoGS Theorem 12 needs positive factors)")
    h = np.zeros(cards.size)
    terms: dict[tuple[int, ...], float] = {}
    constant = 0.0
    for scope, log_table in network.factors():
        for subset, coefficient in _parity_coefficients(np.asarray(log_table)).items():
            if len(subset) == 0:
                constant += coefficient
            elif len(subset) == 1:
                h[scope[subset[0]]] += coefficient
            elif coefficient != 0.0:
                key = tuple(sorted(scope[i] for i in subset))
                terms[key] = terms.get(key, 0.0) + coefficient
    return cards.size, sorted(terms.items()), h, constant


# ------------------------------------------------------------------------------------------ writing
def write_uai(model, path) -> Path:
    """Write a model as a UAI file.

    A :class:`~dogs.models.factor_graph.DiscreteFactorGraph` is written as it is laid out (module
    docstring): its ``kind`` as the preamble, its factors in order with their scopes as stored (a ``BAYES``
    graph has the child last, and it must pass the checks the reader makes), every table with the last
    scope variable changing fastest, the entries :func:`potentials` of the log tables, so that reading the
    file back gives the same log tables bit for bit (names and state names are not part of the format).
    A pairwise model is written as a ``MARKOV`` file with one unary factor per variable and one per edge:
    a :class:`DiscretePairwiseMRF`, or a :class:`~dogs.models.BinaryPairwiseMRF` with label 0 = spin -1
    (unary table ``exp(-h_i), exp(h_i)``, pair table ``exp(theta s_a s_b)``), entries written with ``repr``.
    """
    path = Path(path)
    if isinstance(model, DiscreteFactorGraph):
        return _write_factor_graph(model, path)
    cards = np.asarray(model.cardinalities) if hasattr(model, "cardinalities") else np.full(model.n_vars, 2)
    if hasattr(model, "cardinalities"):
        tables = [np.exp(np.asarray(t, dtype=np.float64)).ravel() for t in list(model.unary) + list(model.tables)]
    else:
        h, theta = np.asarray(model.h)[:, None], np.asarray(model.theta)[:, None]
        tables = list(np.exp(h * [-1.0, 1.0])) + list(np.exp(theta * [1.0, -1.0, -1.0, 1.0]))
    lines = ["MARKOV", str(model.n_vars), " ".join(map(str, cards.tolist())), str(model.n_vars + model.n_edges)]
    lines += [f"1 {i}" for i in range(model.n_vars)]
    lines += [f"2 {i} {j}" for i, j in model.edges.tolist()]
    lines.append("")
    for values in tables:
        lines += [str(values.size), " ".join(map(repr, values.tolist())), ""]
    path.write_text("\n".join(lines))
    return path


def potentials(log_values) -> np.ndarray:
    r"""Entries :math:`v` whose logarithms are the given log potentials exactly: ``np.log(v) == log_values``.

    ``exp`` then ``log`` may move a number by an ulp, so each :math:`e^\theta` is nudged to the nearest
    neighbouring float whose ``np.log`` is :math:`\theta` (within :data:`_NUDGES` steps either way). One exists
    whenever :math:`\theta` is itself the log of a float, as for every model read from a file or from pgmpy;
    otherwise (near 0 the log potentials are finer-grained than the logs of floats) the closest achievable log
    is kept, within :math:`2^{-53} \approx 1.1 \times 10^{-16}` of :math:`\theta` (measured). ``-inf`` gives 0;
    a log potential above ``log`` of the largest float is refused.
    """
    theta = np.asarray(log_values, dtype=np.float64)
    if np.any(theta > np.log(np.finfo(np.float64).max)):
        raise ValueError(f"a log potential of {theta.max():g} overflows float64 as an entry (above "
                         f"{np.log(np.finfo(np.float64).max):.6g}); subtract a constant from that factor first")
    with np.errstate(divide="ignore"):
        value = np.exp(theta)
        wrong = np.flatnonzero(np.log(value) != theta)
        if wrong.size:
            target = theta[wrong]
            best = up = down = value[wrong]
            best_gap = np.abs(np.log(best) - target)
            for _ in range(_NUDGES):
                up, down = np.nextafter(up, np.inf), np.nextafter(down, 0.0)
                for candidate in (up, down):
                    gap = np.abs(np.log(candidate) - target)
                    best = np.where(gap < best_gap, candidate, best)
                    best_gap = np.minimum(gap, best_gap)
            value[wrong] = best
    return value


def _write_factor_graph(graph: DiscreteFactorGraph, path: Path) -> Path:
    from dogs.io import atomic_path

    values = potentials(graph.log_values)
    if graph.kind == "BAYES":
        problem = _bayes_problem(graph.cardinalities, graph.scope_starts, graph.scope_vars, graph.table_starts, values)
        if problem:
            raise ValueError(f"cannot write this graph as a BAYES file: {problem}")
    lines = [graph.kind, str(graph.n_vars), " ".join(map(str, graph.cardinalities.tolist())), str(graph.n_factors)]
    lines += [" ".join(map(str, [len(scope), *scope])) for scope, _ in graph.factors()]
    lines.append("")
    for f in range(graph.n_factors):
        table = values[graph.table_starts[f]:graph.table_starts[f + 1]]
        lines += [str(table.size), " ".join(map(repr, table.tolist())), ""]
    with atomic_path(path) as temporary:
        Path(temporary).write_text("\n".join(lines))
    return path


def to_binary_pairwise(model: DiscretePairwiseMRF):
    r"""The same distribution as a ±1 :class:`~dogs.models.BinaryPairwiseMRF` when every variable has 2 states.

    Label 0 is the spin :math:`-1` and label 1 the spin :math:`+1`; the parity expansion of
    :func:`binary_pairwise_terms`, on all tables at once. Returns ``(model, log_offset)`` with
    :math:`\log Z_{\text{discrete}} = \log Z_{\pm 1} + \text{log\_offset}`.
    """
    from dogs.models.binary import BinaryPairwiseMRF

    if np.any(model.cardinalities != 2):
        raise ValueError("to_binary_pairwise needs every variable to have exactly 2 states")
    u = np.array(model.unary).reshape(model.n_vars, 2)
    t = np.array(model.tables).reshape(model.n_edges, 4)  # L00, L01, L10, L11 of edge (i, j)
    i, j = model.edges[:, 0], model.edges[:, 1]
    h = (u[:, 1] - u[:, 0]) / 2
    h += np.bincount(i, weights=(t[:, 2] + t[:, 3] - t[:, 0] - t[:, 1]) / 4, minlength=model.n_vars)
    h += np.bincount(j, weights=(t[:, 1] + t[:, 3] - t[:, 0] - t[:, 2]) / 4, minlength=model.n_vars)
    theta = (t[:, 0] - t[:, 1] - t[:, 2] + t[:, 3]) / 4
    offset = float(u.sum()) / 2 + float(t.sum()) / 4
    return BinaryPairwiseMRF(model.edges, theta, h, shape=model.shape), offset
