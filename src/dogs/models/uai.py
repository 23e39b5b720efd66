r"""Pairwise Markov networks in the UAI format, read into :class:`~dogs.models.DiscretePairwiseMRF`.

The UAI format (UAI inference competitions) for a ``MARKOV`` network is a whitespace-separated list:
the word ``MARKOV``; the number of variables ``p``; their cardinalities ``K_1 .. K_p``; the number of
factors; each factor's scope (its size, then its variables, 0-based); then each factor's table (its
number of entries, then the entries), with the *last* variable of the scope changing fastest. The
network is :math:`\pi(x) \propto \prod_f \phi_f(x_{S_f})`, so in the log-linear form of DoGS eq. (2)

.. math::

    \log \pi(x) = \sum_i \sum_{f: S_f = \{i\}} \log \phi_f(x_i)
                + \sum_{i<j} \sum_{f: S_f = \{i, j\}} \log \phi_f(x_i, x_j) - \log Z .

Factors over one or two variables give a pairwise model (several on the same scope are multiplied; a
scope given as ``(j, i)`` is transposed); an empty scope is a constant and only shifts :math:`\log Z`.
Binary networks with larger factors are read in the parity form of DoGS Theorem 12
(:func:`read_uai_binary_factors`).
Entries must be positive and finite: Gibbs sampling and the influence bounds of DoGS Theorems 10-12
need positive potentials. Anything else is refused with a message that names the factor, rather than
read in part.

We parse the format ourselves instead of using pgmpy's reader: pgmpy reports a malformed file as a
parser exception at a character offset (a truncated table, a negative entry), whereas a checked
reader can say which factor is wrong and why, and it keeps the pairwise structure the samplers need.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np

from dogs.models.discrete import DiscretePairwiseMRF

__all__ = ["UAIError", "pairwise_model", "parity_form", "read_uai", "read_uai_binary_factors", "read_uai_factors",
           "to_binary_pairwise", "write_uai"]

#: Largest cardinality accepted (a Gibbs update tabulates every state of a variable).
MAX_CARDINALITY = 1 << 16
#: Largest table of one factor (entries).
MAX_TABLE_ENTRIES = 1 << 24


class UAIError(ValueError):
    """A UAI file that is malformed or outside what the package supports; the message says where."""


class _Tokens:
    def __init__(self, text: str, source: str):
        self.items = text.split()
        self.position = 0
        self.source = source

    def next(self, what: str) -> str:
        if self.position >= len(self.items):
            raise UAIError(f"{self.source}: the file ends where {what} was expected (truncated?)")
        self.position += 1
        return self.items[self.position - 1]

    def integer(self, what: str, minimum: int = 0) -> int:
        token = self.next(what)
        try:
            value = int(token)
        except ValueError:
            raise UAIError(f"{self.source}: {what} must be an integer, got {token!r}") from None
        if value < minimum:
            raise UAIError(f"{self.source}: {what} must be at least {minimum}, got {value}")
        return value

    def number(self, what: str) -> float:
        token = self.next(what)
        try:
            return float(token)
        except ValueError:
            raise UAIError(f"{self.source}: {what} must be a number, got {token!r}") from None


def read_uai_factors(path) -> tuple[np.ndarray, list[tuple[tuple[int, ...], np.ndarray]]]:
    """Read a ``MARKOV`` UAI file as its cardinalities and its factors ``(scope, log table)``, any scope size."""
    path = Path(path)
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise UAIError(f"{path}: cannot be read as a UAI text file ({exc})") from None
    tokens = _Tokens(text, str(path))
    kind = tokens.next("the network type")
    if kind.upper() != "MARKOV":
        raise UAIError(f"{path}: only MARKOV networks are supported, the file is a {kind!r} network")
    n_vars = tokens.integer("the number of variables", 1)
    cards = np.array([tokens.integer(f"the cardinality of variable {i}", 2) for i in range(n_vars)], dtype=np.int64)
    if cards.max() > MAX_CARDINALITY:
        i = int(cards.argmax())
        raise UAIError(f"{path}: variable {i} has {cards[i]} states; at most {MAX_CARDINALITY} are supported")
    n_factors = tokens.integer("the number of factors")
    scopes = []
    for f in range(n_factors):
        size = tokens.integer(f"the scope size of factor {f}")
        scope = tuple(tokens.integer(f"variable {k} of factor {f}'s scope") for k in range(size))
        if any(v >= n_vars for v in scope):
            raise UAIError(f"{path}: factor {f} names variable {max(scope)}, but there are only {n_vars}")
        if len(set(scope)) != len(scope):
            raise UAIError(f"{path}: factor {f} names a variable twice: {scope}")
        if math.prod(int(cards[v]) for v in scope) > MAX_TABLE_ENTRIES:
            raise UAIError(f"{path}: factor {f} over variables {scope} has more than {MAX_TABLE_ENTRIES} entries")
        scopes.append(scope)
    factors = []
    for f, scope in enumerate(scopes):
        shape = tuple(int(cards[v]) for v in scope)
        expected = math.prod(shape)
        count = tokens.integer(f"the number of entries of factor {f}")
        if count != expected:
            raise UAIError(f"{path}: factor {f} over variables {scope} needs {expected} entries, the file says {count}")
        values = np.array([tokens.number(f"entry {k} of factor {f}") for k in range(count)])
        if not np.all(np.isfinite(values)) or np.any(values <= 0):
            bad = float(values[~(np.isfinite(values) & (values > 0))][0])
            raise UAIError(f"{path}: factor {f} has the entry {bad:g}; entries must be positive and finite "
                           "(zeros are hard constraints, which Gibbs sampling and the influence bounds do not support)")
        factors.append((scope, np.log(values).reshape(shape)))
    if tokens.position != len(tokens.items):
        raise UAIError(f"{path}: {len(tokens.items) - tokens.position} tokens after the last table (wrong counts?)")
    return cards, factors


def read_uai(path) -> tuple[DiscretePairwiseMRF, float]:
    """Read a pairwise ``MARKOV`` UAI file: :func:`pairwise_model` of :func:`read_uai_factors`."""
    return pairwise_model(*read_uai_factors(path), source=path)


def pairwise_model(cards, factors, source="network") -> tuple[DiscretePairwiseMRF, float]:
    """The factors of :func:`read_uai_factors` as a pairwise model.

    Returns
    -------
    model : DiscretePairwiseMRF
        Unary and pairwise log potentials (the logs of the tables).
    log_constant : float
        The sum of the logs of the constant (empty-scope) factors: ``log Z`` of the file's network is
        ``log Z`` of ``model`` plus this.
    """
    for f, (scope, _) in enumerate(factors):
        if len(scope) > 2:
            raise UAIError(f"{source}: factor {f} has {len(scope)} variables; only factors of one or two variables "
                           "(pairwise networks) are supported here (binary networks with larger factors: "
                           "read_uai_binary_factors)")
    unary = [np.zeros(k) for k in cards]
    pairs: dict[tuple[int, int], np.ndarray] = {}
    log_constant = 0.0
    for scope, log_table in factors:
        if len(scope) == 0:
            log_constant += float(log_table)
        elif len(scope) == 1:
            unary[scope[0]] = unary[scope[0]] + log_table
        else:
            i, j = scope
            if i > j:
                i, j, log_table = j, i, log_table.T
            pairs[(i, j)] = pairs.get((i, j), 0.0) + log_table
    edges = np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)
    model = DiscretePairwiseMRF(cards, unary, edges, [pairs[tuple(e)] for e in edges.tolist()])
    return model, log_constant


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
    """A binary ``MARKOV`` UAI network of any factor sizes: :func:`parity_form` of :func:`read_uai_factors`."""
    return parity_form(*read_uai_factors(path), source=path)


def parity_form(cards, factors, source="network") -> tuple[int, list[tuple[tuple[int, ...], float]], np.ndarray, float]:
    r"""The factors of a binary network in the form of DoGS Theorem 12.

    Every log table is expanded exactly in spin parities (:func:`_parity_coefficients`); the terms
    with :math:`|T| = 1` form the field ``h`` and those with :math:`|T| \ge 2` the factors. Returns
    ``(n_vars, factors, h, log_constant)`` with ``factors = [(T, c_T), ...]`` as
    :func:`dogs.bounds.influence_higher_order` takes them.
    """
    if np.any(cards != 2):
        raise UAIError(f"{source}: factors over more than two variables are supported for binary variables only "
                       "(DoGS Theorem 12)")
    h = np.zeros(cards.size)
    terms: dict[tuple[int, ...], float] = {}
    constant = 0.0
    for scope, log_table in factors:
        for subset, coefficient in _parity_coefficients(np.asarray(log_table)).items():
            if len(subset) == 0:
                constant += coefficient
            elif len(subset) == 1:
                h[scope[subset[0]]] += coefficient
            elif coefficient != 0.0:
                key = tuple(sorted(scope[i] for i in subset))
                terms[key] = terms.get(key, 0.0) + coefficient
    return cards.size, sorted(terms.items()), h, constant


def write_uai(model: DiscretePairwiseMRF, path) -> Path:
    """Write ``model`` as a pairwise ``MARKOV`` UAI file (one unary factor per variable, one per edge)."""
    path = Path(path)
    lines = ["MARKOV", str(model.n_vars), " ".join(str(int(k)) for k in model.cardinalities),
             str(model.n_vars + model.n_edges)]
    lines += [f"1 {i}" for i in range(model.n_vars)]
    lines += [f"2 {i} {j}" for i, j in model.edges.tolist()]
    lines.append("")
    for table in list(model.unary) + list(model.tables):
        values = np.exp(np.asarray(table, dtype=np.float64)).ravel()
        lines += [str(values.size), " ".join(repr(float(v)) for v in values), ""]
    path.write_text("\n".join(lines))
    return path


def to_binary_pairwise(model: DiscretePairwiseMRF):
    r"""The same distribution as a ±1 :class:`~dogs.models.BinaryPairwiseMRF` when every variable has 2 states.

    Label 0 is the spin :math:`-1` and label 1 the spin :math:`+1`. Each table is expanded in spin parities
    (:func:`_parity_coefficients`): a pairwise one as :math:`L(a, b) = c + \alpha s_a + \beta s_b + \theta
    s_a s_b`, e.g. :math:`\theta = (L_{11} + L_{00} - L_{10} - L_{01})/4`, a unary one as
    :math:`u(a) = c + h s_a`, :math:`h = (u_1 - u_0)/2`. Returns ``(model, log_offset)`` with
    :math:`\log Z_{\text{discrete}} = \log Z_{\pm 1} + \text{log\_offset}`.
    """
    from dogs.models.binary import BinaryPairwiseMRF

    if np.any(model.cardinalities != 2):
        raise ValueError("to_binary_pairwise needs every variable to have exactly 2 states")
    h = np.zeros(model.n_vars)
    offset = 0.0
    for i, u in enumerate(model.unary):
        c = _parity_coefficients(u)
        h[i] += c[(0,)]
        offset += c[()]
    theta = np.empty(model.n_edges)
    for e, ((i, j), t) in enumerate(zip(model.edges.tolist(), model.tables)):
        c = _parity_coefficients(t)
        theta[e] = c[(0, 1)]
        h[i] += c[(0,)]
        h[j] += c[(1,)]
        offset += c[()]
    return BinaryPairwiseMRF(model.edges, theta, h, shape=model.shape), offset
