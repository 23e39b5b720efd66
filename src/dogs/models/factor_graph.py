r"""Discrete factor graphs: any number of factors, of any arity, over variables of any cardinality.

.. math::

    \pi(x) = \frac1Z \prod_f \phi_f(x_{S_f}) = \frac1Z \exp\Big(\sum_f \theta_f(x_{S_f})\Big),
    \qquad \theta_f = \log \phi_f \in [-\infty, \infty), \quad x_i \in \{0, \dots, K_i - 1\},

the form every discrete distribution takes (DoGS §4.1, before Theorem 12: an MRF with parameters in the
extended reals). A Bayesian network is the special case of one factor per variable, its conditional
probability table :math:`\phi_i(x_i, x_{pa(i)}) = P(x_i \mid x_{pa(i)})`, with :math:`Z = 1`; a pairwise
Markov network is the case of scopes of one or two variables. Zero entries (:math:`\theta = -\infty`) are
allowed: deterministic conditional tables are common in real networks. Single-site Gibbs sampling then
needs a start of positive probability, and it can be reducible (a chain may be unable to leave a set of
states): the sampler's R-hat check is what reports such chains.

Layout. The factors are stored flat, as a UAI file lists them (:mod:`dogs.models.uai`): factor ``f`` has the
scope ``scope_vars[scope_starts[f]:scope_starts[f + 1]]`` (distinct variables, in the order of its table's
axes) and the log table ``log_values[table_starts[f]:table_starts[f + 1]]`` in C order over the scope (the
*last* scope variable changes fastest), so the entry of the configuration :math:`x_{S_f}` is at offset
:math:`\sum_{j \in S_f} x_j \, \text{stride}_f(j)` with :math:`\text{stride}_f(j)` the product of the
cardinalities after ``j`` in the scope. A Bayesian network keeps each variable's table with the child *last* in
its scope (``kind = "BAYES"``, the UAI convention), so its rows (over the parents) sum to 1.

Derived structure, built once per model: the factors containing each variable (``factor_indptr``,
``factor_ids``, ``factor_positions``: CSR over variables) and the Markov blanket of each variable (``indptr``,
``neighbors``: the variables sharing a factor with it, sorted; the same names as the pairwise models' CSR
neighbour lists, so code that reads a model's interaction graph reads both).

Names. ``names[i]`` is variable ``i``'s name (a pgmpy node, say) and ``state_names[i]`` its states' names, in
label order; both are optional and change nothing in the distribution.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["FACTOR_GRAPH_KINDS", "DiscreteFactorGraph"]

#: ``kind`` of a factor graph: a Markov network (any non-negative factors) or a Bayesian network (one
#: conditional probability table per variable, the child last in its scope).
FACTOR_GRAPH_KINDS = ("MARKOV", "BAYES")


@dataclass(frozen=True, eq=False)
class DiscreteFactorGraph:
    """A discrete distribution as a product of factors (module docstring).

    Parameters
    ----------
    cardinalities : (p,) int array
        States ``K_i >= 2`` of every variable.
    scope_starts, scope_vars : (F + 1,) and (S,) int arrays
        Factor ``f``'s variables, in the order of its table's axes (no repeats within a scope; a scope may be empty,
        a constant factor).
    table_starts, log_values : (F + 1,) int and (N,) float arrays
        Factor ``f``'s log table, C order over its scope, ``-inf`` for a zero entry (never ``+inf`` or NaN); every
        factor has at least one finite entry.
    kind : {"MARKOV", "BAYES"}
        ``"BAYES"``: factor ``f`` is the conditional table of its scope's last variable (not checked to sum to 1).
    names, state_names : sequences, optional
        Names of the variables and of each variable's states (``len(state_names[i]) == K_i``).

    Use :meth:`from_factors` to build one from ``(scope, table)`` pairs.
    """

    cardinalities: np.ndarray
    scope_starts: np.ndarray
    scope_vars: np.ndarray
    table_starts: np.ndarray
    log_values: np.ndarray
    kind: str = "MARKOV"
    names: tuple | None = None
    state_names: tuple | None = None
    factor_indptr: np.ndarray = field(init=False, repr=False)
    factor_ids: np.ndarray = field(init=False, repr=False)
    factor_positions: np.ndarray = field(init=False, repr=False)
    strides: np.ndarray = field(init=False, repr=False)
    indptr: np.ndarray = field(init=False, repr=False)
    neighbors: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        card = np.asarray(self.cardinalities)
        if card.ndim != 1 or card.size < 1 or not np.issubdtype(card.dtype, np.integer):
            raise ValueError("cardinalities must be a non-empty 1-d integer array")
        if np.any(card < 2):
            i = int(np.argmin(card))
            raise ValueError(f"every variable needs at least 2 states; variable {i} has {int(card[i])}")
        p = card.size
        card = card.astype(np.int64)
        scope_starts = _offsets(self.scope_starts, "scope_starts")
        table_starts = _offsets(self.table_starts, "table_starts")
        if table_starts.size != scope_starts.size:
            raise ValueError(f"scope_starts and table_starts must both have F + 1 entries, got {scope_starts.size} "
                             f"and {table_starts.size}")
        scope_vars = np.asarray(self.scope_vars)
        if scope_vars.ndim != 1 or (scope_vars.size and not np.issubdtype(scope_vars.dtype, np.integer)):
            raise ValueError("scope_vars must be a 1-d integer array")
        scope_vars = scope_vars.astype(np.int64)
        if scope_starts[-1] != scope_vars.size:
            raise ValueError(f"scope_starts ends at {scope_starts[-1]}, but scope_vars has {scope_vars.size} entries")
        if scope_vars.size and (scope_vars.min() < 0 or scope_vars.max() >= p):
            raise ValueError(f"scope variables must lie in 0..{p - 1}")
        log_values = np.asarray(self.log_values, dtype=np.float64)
        if log_values.ndim != 1 or table_starts[-1] != log_values.size:
            raise ValueError(f"table_starts ends at {table_starts[-1]}, but log_values has {log_values.size} entries")
        if np.any(np.isnan(log_values)) or np.any(log_values == np.inf):
            raise ValueError("log_values must be finite or -inf (a zero entry); NaN and +inf are not potentials")
        n_factors = scope_starts.size - 1
        sizes = np.diff(scope_starts)
        owner = np.repeat(np.arange(n_factors), sizes)
        expected = np.ones(n_factors, dtype=np.float64)
        np.multiply.at(expected, owner, card[scope_vars].astype(np.float64))
        actual = np.diff(table_starts)
        bad = np.flatnonzero(expected != actual)
        if bad.size:
            f = int(bad[0])
            raise ValueError(f"factor {f} over {scope_vars[scope_starts[f]:scope_starts[f + 1]].tolist()} needs "
                             f"{int(expected[f])} table entries, got {int(actual[f])}")
        for f in range(n_factors):  # scopes are short: a Python check per factor is cheap next to the tables
            scope = scope_vars[scope_starts[f]:scope_starts[f + 1]]
            if np.unique(scope).size != scope.size:
                raise ValueError(f"factor {f} lists a variable twice in its scope {scope.tolist()}")
        has_finite = np.zeros(n_factors, dtype=bool)
        finite_owner = np.repeat(np.arange(n_factors), actual)
        has_finite[finite_owner[np.isfinite(log_values)]] = True
        if not has_finite.all():
            f = int(np.argmin(has_finite))
            raise ValueError(f"factor {f} over {scope_vars[scope_starts[f]:scope_starts[f + 1]].tolist()} is zero "
                             "everywhere: the distribution would be empty")
        if self.kind not in FACTOR_GRAPH_KINDS:
            raise ValueError(f"kind must be one of {FACTOR_GRAPH_KINDS}, got {self.kind!r}")
        names = None if self.names is None else tuple(self.names)
        if names is not None and len(names) != p:
            raise ValueError(f"names must name the {p} variables, got {len(names)}")
        state_names = None if self.state_names is None else tuple(tuple(s) for s in self.state_names)
        if state_names is not None and (len(state_names) != p
                                        or any(len(s) != int(k) for s, k in zip(state_names, card))):
            raise ValueError("state_names must list K_i names for every variable i")
        for name, value in (("cardinalities", card), ("scope_starts", scope_starts), ("scope_vars", scope_vars),
                            ("table_starts", table_starts), ("log_values", log_values), ("names", names),
                            ("state_names", state_names)):
            if isinstance(value, np.ndarray):
                value.setflags(write=False)
            object.__setattr__(self, name, value)
        self._derive(card, scope_starts, scope_vars, owner)

    def _derive(self, card, scope_starts, scope_vars, owner) -> None:
        """Strides, the factors of every variable and the Markov blankets (module docstring)."""
        p = card.size
        strides = np.ones(scope_vars.size, dtype=np.int64)
        for f in range(scope_starts.size - 1):
            lo, hi = scope_starts[f], scope_starts[f + 1]
            for k in range(hi - 2, lo - 1, -1):
                strides[k] = strides[k + 1] * card[scope_vars[k + 1]]
        position = np.arange(scope_vars.size) - scope_starts[owner]
        order = np.lexsort((owner, scope_vars))  # by variable, then factor
        factor_indptr = np.zeros(p + 1, dtype=np.int64)
        np.add.at(factor_indptr, scope_vars + 1, 1)
        factor_indptr = np.cumsum(factor_indptr)
        pairs = set()
        for f in range(scope_starts.size - 1):
            scope = scope_vars[scope_starts[f]:scope_starts[f + 1]].tolist()
            pairs.update((a, b) for a in scope for b in scope if a != b)
        edges = np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)
        indptr = np.zeros(p + 1, dtype=np.int64)
        np.add.at(indptr, edges[:, 0] + 1, 1)
        indptr = np.cumsum(indptr)
        for name, value in (("strides", strides), ("factor_indptr", factor_indptr),
                            ("factor_ids", owner[order].astype(np.int64)),
                            ("factor_positions", position[order].astype(np.int64)),
                            ("indptr", indptr), ("neighbors", np.ascontiguousarray(edges[:, 1]))):
            value.setflags(write=False)
            object.__setattr__(self, name, value)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_factors(cls, cardinalities, factors, *, kind: str = "MARKOV", names=None,
                     state_names=None) -> "DiscreteFactorGraph":
        """From ``(scope, log_table)`` pairs: ``log_table`` of shape ``(K_{s_0}, K_{s_1}, ...)`` over ``scope``."""
        card = np.asarray(cardinalities, dtype=np.int64)
        scopes, tables = [], []
        for f, (scope, table) in enumerate(factors):
            scope = [int(v) for v in scope]
            table = np.asarray(table, dtype=np.float64)
            if scope and (min(scope) < 0 or max(scope) >= card.size):
                raise ValueError(f"factor {f}: scope {scope} names a variable outside 0..{card.size - 1}")
            shape = tuple(int(card[v]) for v in scope)
            if table.shape != shape:
                raise ValueError(f"factor {f} over {scope}: table of shape {table.shape}, expected {shape}")
            scopes.append(scope)
            tables.append(table.ravel())
        scope_starts = np.concatenate([[0], np.cumsum([len(s) for s in scopes])]).astype(np.int64)
        table_starts = np.concatenate([[0], np.cumsum([t.size for t in tables])]).astype(np.int64)
        return cls(card, scope_starts, np.array([v for s in scopes for v in s], dtype=np.int64), table_starts,
                   np.concatenate(tables) if tables else np.zeros(0), kind=kind, names=names, state_names=state_names)

    # ------------------------------------------------------------------ reading
    @property
    def n_vars(self) -> int:
        return self.cardinalities.size

    @property
    def n_factors(self) -> int:
        return self.scope_starts.size - 1

    @property
    def n_edges(self) -> int:
        """Pairs of variables that share a factor (the edges of the interaction graph)."""
        return self.neighbors.size // 2

    @property
    def edges(self) -> np.ndarray:
        """``(E, 2)`` pairs ``i < j`` that share a factor, in the order of the CSR slots (as a pairwise model's edges)."""
        rows = np.repeat(np.arange(self.n_vars, dtype=np.int64), np.diff(self.indptr))
        upper = rows < self.neighbors
        return np.stack([rows[upper], self.neighbors[upper]], axis=1)

    def scope(self, f: int) -> np.ndarray:
        """The variables of factor ``f``, in the order of its table's axes."""
        return self.scope_vars[self.scope_starts[f]:self.scope_starts[f + 1]]

    def table(self, f: int) -> np.ndarray:
        """The log table of factor ``f``, shaped by its scope's cardinalities."""
        shape = tuple(int(self.cardinalities[v]) for v in self.scope(f))
        return self.log_values[self.table_starts[f]:self.table_starts[f + 1]].reshape(shape)

    def factors(self) -> list[tuple[tuple[int, ...], np.ndarray]]:
        """Every factor as a ``(scope, log table)`` pair."""
        return [(tuple(int(v) for v in self.scope(f)), self.table(f)) for f in range(self.n_factors)]

    def log_potential(self, x) -> np.ndarray:
        """:math:`\\sum_f \\theta_f(x_{S_f})` of integer states ``x`` with shape ``(..., p)`` (``-inf`` off the support)."""
        x = np.asarray(x, dtype=np.int64)
        out = np.zeros(x.shape[:-1])
        for f in range(self.n_factors):
            lo, hi = self.scope_starts[f], self.scope_starts[f + 1]
            offset = self.table_starts[f] + (x[..., self.scope_vars[lo:hi]] * self.strides[lo:hi]).sum(axis=-1)
            out = out + self.log_values[offset]
        return out

    def conditional(self, x, i: int) -> np.ndarray:
        """Full conditional :math:`\\pi(X_i = \\cdot \\mid x_{-i})` of one state ``x`` (shape (p,)); raises
        ``ValueError`` where every state of ``i`` has weight 0 (the conditional is undefined)."""
        x = np.array(x, dtype=np.int64)
        logits = np.zeros(int(self.cardinalities[i]))
        for slot in range(self.factor_indptr[i], self.factor_indptr[i + 1]):
            f, position = int(self.factor_ids[slot]), int(self.factor_positions[slot])
            lo, hi = self.scope_starts[f], self.scope_starts[f + 1]
            x[i] = 0
            base = self.table_starts[f] + int((x[self.scope_vars[lo:hi]] * self.strides[lo:hi]).sum())
            logits += self.log_values[base + np.arange(logits.size) * self.strides[lo + position]]
        peak = logits.max()
        if not np.isfinite(peak):
            raise ValueError(f"every state of variable {i} has weight 0 given the others: the conditional is undefined")
        w = np.exp(logits - peak)
        return w / w.sum()


def _offsets(values, name: str) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim != 1 or array.size < 1 or not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"{name} must be a 1-d integer array of F + 1 offsets")
    array = array.astype(np.int64)
    if array[0] != 0 or np.any(np.diff(array) < 0):
        raise ValueError(f"{name} must start at 0 and never decrease")
    return array
