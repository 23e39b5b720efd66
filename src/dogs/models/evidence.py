r"""Evidence: conditioning a pairwise model on observed values, and UAI evidence files.

Conditioning a pairwise MRF on observed values :math:`x_O = e` gives again a pairwise MRF over the
unobserved variables :math:`U`:

.. math::

    \pi(x_U \mid x_O = e) \propto \exp\Big(\sum_{i \in U} \big[\phi_i(x_i)
        + \sum_{j \in N(i) \cap O} \theta^{ij}(x_i, e_j)\big]
        + \sum_{(i,j) \in E,\ i, j \in U} \theta^{ij}(x_i, x_j)\Big),

the edges into observed variables folding into the unary terms of their unobserved ends (for the ±1
model of DoGS eq. (3): :math:`h_i \leftarrow h_i + \sum_{j \in N(i) \cap O} \theta_{ij} s_j`). The
terms over observed variables alone are a constant, returned as ``log_constant``:
:math:`\log Z(e) = \log Z_{reduced} + \text{log\_constant}`, where :math:`Z(e) = \sum_{x_U}
\tilde\pi(x_U, e)` is the unnormalised mass of the evidence (so :math:`P(x_O = e) = Z(e) / Z`).

Numbering. The reduced model's variable ``r`` is the original variable ``free[r]`` (the unobserved
variables in increasing order); :meth:`ConditionedModel.full_states` puts reduced states back into
original states with the evidence filled in. States are labels ``0 .. K_i - 1``; for a ±1 model label
0 is the spin -1 and label 1 the spin +1, as in the UAI files.

A factor graph (:class:`~dogs.models.factor_graph.DiscreteFactorGraph`) is conditioned by slicing the
observed variables out of every table: factor :math:`f` becomes :math:`\phi_f(x_{S_f \cap U}, e_{S_f \cap O})`
over its unobserved variables, and a factor left with no variable is a constant that joins ``log_constant``.
The reduced graph is a Markov network (kind ``"MARKOV"``: a conditioned Bayesian network is no longer one)
with the names and state names of the free variables. For a Bayesian network (rows of its tables summing to
1) :math:`Z = 1`, so :math:`\log Z_{reduced} + \text{log\_constant} = \log P(x_O = e)`.

Naming the evidence. Variables and labels are integers (indices and labels as above). A factor graph with
``names`` (one read from pgmpy, say) also takes a variable by its name and, with ``state_names``, a label by
its state's name: ``{"smoke": "yes"}``. An integer is always an index or a label, never looked up as a name.

Zero probability. A variable given two different values is refused (:func:`check_evidence`). The pairwise
models have finite log potentials, so every other evidence has positive probability. A factor graph may hold
zeros: a factor that is zero at every configuration consistent with the evidence (a deterministic table
contradicted, say) proves the evidence impossible and :func:`condition` refuses it. Evidence can also be
impossible with no single factor showing it; exact inference then finds :math:`Z(e) = 0` and says so
(:class:`dogs.exact.ZeroProbabilityError`).

UAI evidence files (``problem.uai.evid``, the UAI inference competitions' format) are whitespace
separated integers. The current form (UAI 2014 onwards) is one sample: the number ``n`` of observed
variables, then ``n`` pairs ``variable value`` (0-based indices of the model file, 0-based values).
Older competitions (2008-2012) put the number of evidence samples first; :func:`read_uai_evidence`
accepts that form when the count is ``1`` (``1 n i_1 v_1 ... i_n v_n``) and refuses several samples.
The two forms cannot be confused: the first has ``1 + 2n`` numbers, the second ``2 + 2n``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dogs.models.binary import BinaryPairwiseMRF
from dogs.models.discrete import DiscretePairwiseMRF, cardinalities
from dogs.models.factor_graph import DiscreteFactorGraph

__all__ = ["ConditionedModel", "EvidenceError", "check_evidence", "condition", "read_uai_evidence"]

_DIGITS = re.compile(r"[0-9]+")


class EvidenceError(ValueError):
    """Evidence that names an unknown variable, a state out of range, gives one variable two values, or that a
    factor graph's zeros make impossible."""


@dataclass(frozen=True, eq=False)
class ConditionedModel:
    """A model conditioned on evidence (:func:`condition`).

    Attributes
    ----------
    model : BinaryPairwiseMRF, DiscretePairwiseMRF or DiscreteFactorGraph
        The distribution of the unobserved variables given the evidence, in reduced numbering.
    free : (m,) int64 array
        ``free[r]`` is the original index of reduced variable ``r`` (increasing).
    evidence : dict
        ``{original variable: observed label}``, sorted by variable.
    n_vars : int
        Number of variables of the original model.
    log_constant : float
        :math:`\\log Z(e) = \\log Z_{reduced} + \\text{log\\_constant}` (module docstring).
    """

    model: BinaryPairwiseMRF | DiscretePairwiseMRF | DiscreteFactorGraph
    free: np.ndarray
    evidence: dict
    n_vars: int
    log_constant: float

    def full_states(self, reduced_states) -> np.ndarray:
        """Original labels ``(..., n_vars)`` from reduced labels ``(..., m)``, the evidence filled in."""
        reduced = np.asarray(reduced_states)
        if reduced.shape[-1:] != (self.free.size,):
            raise ValueError(f"reduced states must have last dimension {self.free.size}, got shape {reduced.shape}")
        out = np.empty(reduced.shape[:-1] + (self.n_vars,), dtype=reduced.dtype)
        out[..., self.free] = reduced
        for i, value in self.evidence.items():
            out[..., i] = value
        return out


def check_evidence(model, evidence) -> dict:
    """``evidence`` (a mapping or ``(variable, label)`` pairs) checked against ``model``, as a sorted dict of indices.

    Raises :class:`EvidenceError` on a variable outside ``0 .. p-1``, a label outside ``0 .. K_i - 1``,
    a non-integer entry (unless it is a name of a factor graph's variable or state: module docstring), or a
    variable given two different labels (contradicting evidence, probability zero); the same pair given twice
    is accepted.
    """
    if not isinstance(model, (BinaryPairwiseMRF, DiscretePairwiseMRF, DiscreteFactorGraph)):
        raise TypeError(f"evidence needs a BinaryPairwiseMRF, DiscretePairwiseMRF or DiscreteFactorGraph, got "
                        f"{type(model).__name__}")
    pairs = evidence.items() if hasattr(evidence, "items") else evidence
    cards = cardinalities(model)
    names = getattr(model, "names", None)
    state_names = getattr(model, "state_names", None)
    index = None
    out: dict[int, int] = {}
    for pair in pairs:
        try:
            variable, value = pair
        except (TypeError, ValueError):
            raise EvidenceError(f"evidence entries are (variable, label) pairs, got {pair!r}") from None
        if not _is_integer(variable) and names is not None:
            index = {name: i for i, name in enumerate(names)} if index is None else index
            if _hashable(variable) not in index:
                raise EvidenceError(f"evidence names {variable!r}, which is neither a variable index nor the name of "
                                    f"a variable (names such as {list(names[:3])})")
            variable = index[variable]
        if _is_integer(variable) and not _is_integer(value) and state_names is not None \
                and 0 <= variable < model.n_vars:
            states = list(state_names[int(variable)])
            if _hashable(value) not in states:
                raise EvidenceError(f"evidence sets variable {int(variable)} to {value!r}, which is neither a label "
                                    f"0..{cards[int(variable)] - 1} nor one of its states {states}")
            value = states.index(value)
        for name, number in (("variable", variable), ("label", value)):
            if not _is_integer(number):
                raise EvidenceError(f"evidence {name} must be an integer, got {number!r}")
        variable, value = int(variable), int(value)
        if not 0 <= variable < model.n_vars:
            raise EvidenceError(f"evidence names variable {variable}, but the model has variables 0..{model.n_vars - 1}")
        if not 0 <= value < cards[variable]:
            raise EvidenceError(f"evidence sets variable {variable} to state {value}, but it has states "
                                f"0..{cards[variable] - 1}")
        _observe(out, variable, value, "")
    return dict(sorted(out.items()))


def _is_integer(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _hashable(value):
    """``value`` itself if it can be a dict key, else a key no name equals."""
    try:
        hash(value)
    except TypeError:
        return object()
    return value


def _observe(evidence: dict, variable: int, value: int, where: str) -> None:
    """Add ``variable = value`` to ``evidence``, refusing a second, different value (probability zero)."""
    if evidence.get(variable, value) != value:
        raise EvidenceError(f"{where}contradicting evidence: variable {variable} is observed as {evidence[variable]} "
                            f"and as {value} (evidence of probability zero)")
    evidence[variable] = value


def condition(model, evidence) -> ConditionedModel:
    """``model`` conditioned on ``evidence`` (``{variable: label}``): the reduced model and the map back.

    A :class:`BinaryPairwiseMRF` stays binary (labels 0/1 are the spins -1/+1), a
    :class:`DiscretePairwiseMRF` stays discrete, a :class:`DiscreteFactorGraph` gives a factor graph of kind
    ``"MARKOV"`` (module docstring). Empty evidence gives the model itself. Raises :class:`EvidenceError` (see
    :func:`check_evidence`), also when the evidence fixes every variable or a factor is zero everywhere given it.
    """
    observed = check_evidence(model, evidence)
    p = model.n_vars
    if len(observed) == p:
        raise EvidenceError(f"the evidence fixes all {p} variables: nothing is left to sample or infer")
    if not observed:
        return ConditionedModel(model, np.arange(p, dtype=np.int64), {}, p, 0.0)
    is_observed = np.zeros(p, dtype=bool)
    value = np.zeros(p, dtype=np.int64)
    is_observed[list(observed)] = True
    value[list(observed)] = list(observed.values())
    free = np.flatnonzero(~is_observed)
    reduced_index = np.full(p, -1, dtype=np.int64)
    reduced_index[free] = np.arange(free.size)
    if isinstance(model, DiscreteFactorGraph):
        return _condition_factor_graph(model, observed, is_observed, value, free, reduced_index)
    i, j = model.edges[:, 0], model.edges[:, 1]
    both_free = ~is_observed[i] & ~is_observed[j]
    edges = reduced_index[model.edges[both_free]]
    if isinstance(model, BinaryPairwiseMRF):
        spin = 2.0 * value - 1.0
        h = model.h.copy()
        theta = model.theta
        to_i = ~is_observed[i] & is_observed[j]  # edge (i, j) with j observed: theta s_j joins h_i
        to_j = is_observed[i] & ~is_observed[j]
        h += np.bincount(i[to_i], weights=theta[to_i] * spin[j[to_i]], minlength=p)
        h += np.bincount(j[to_j], weights=theta[to_j] * spin[i[to_j]], minlength=p)
        both_observed = is_observed[i] & is_observed[j]
        constant = float(np.sum(model.h[is_observed] * spin[is_observed])
                         + np.sum(theta[both_observed] * spin[i[both_observed]] * spin[j[both_observed]]))
        reduced = BinaryPairwiseMRF(edges, theta[both_free], h[free])
    else:
        unary = [u.copy() for u in model.unary]
        constant = float(sum(model.unary[k][value[k]] for k in observed))
        for e, (a, b) in enumerate(model.edges.tolist()):
            table = model.tables[e]
            if is_observed[a] and is_observed[b]:
                constant += float(table[value[a], value[b]])
            elif is_observed[b]:
                unary[a] += table[:, value[b]]
            elif is_observed[a]:
                unary[b] += table[value[a], :]
        tables = [model.tables[e] for e in np.flatnonzero(both_free)]
        reduced = DiscretePairwiseMRF(model.cardinalities[free], [unary[k] for k in free], edges, tables)
    return ConditionedModel(reduced, free, observed, p, constant)


def _condition_factor_graph(model: DiscreteFactorGraph, observed: dict, is_observed, value, free,
                            reduced_index) -> ConditionedModel:
    """Slice the observed variables out of every table (module docstring)."""
    factors, constant = [], 0.0
    for f, (scope, table) in enumerate(model.factors()):
        sliced = table[tuple(int(value[v]) if is_observed[v] else slice(None) for v in scope)]
        kept = [int(reduced_index[v]) for v in scope if not is_observed[v]]
        if not np.isfinite(sliced).any():
            names = [model.names[v] for v in scope] if model.names is not None else list(scope)
            raise EvidenceError(f"the evidence has probability zero: factor {f} over {names} is zero at every "
                                "configuration that agrees with it")
        if kept:
            factors.append((kept, sliced))
        else:
            constant += float(sliced)
    pick = (lambda items: None if items is None else [items[v] for v in free.tolist()])
    reduced = DiscreteFactorGraph.from_factors(model.cardinalities[free], factors, names=pick(model.names),
                                               state_names=pick(model.state_names))
    return ConditionedModel(reduced, free, observed, model.n_vars, constant)


def read_uai_evidence(path, n_vars: int | None = None) -> dict:
    """The evidence of a UAI ``.evid`` file as ``{variable: label}`` (format in the module docstring).

    Accepts ``n i_1 v_1 ... i_n v_n`` and the older ``1 n i_1 v_1 ... i_n v_n`` (one sample), with comment lines
    (first non-blank character ``c``) skipped as in model files. Refuses
    anything else (non-ASCII, non-integer tokens, a count that does not match the pairs, several samples)
    with an :class:`EvidenceError` naming the file; with ``n_vars``, also variables outside ``0 .. n_vars - 1``.
    Values are checked against the model's cardinalities by :func:`check_evidence` (or :func:`condition`).
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise EvidenceError(f"evidence file {path} cannot be read ({exc.strerror or exc})") from None
    from dogs.models.uai import blank_comment_lines

    data = blank_comment_lines(data)
    try:
        tokens = data.decode("ascii").split()
    except UnicodeDecodeError as exc:
        raise EvidenceError(f"evidence file {path}: byte 0x{data[exc.start]:02x} is not ASCII") from None
    for k, token in enumerate(tokens):
        if not _DIGITS.fullmatch(token):
            raise EvidenceError(f"evidence file {path}: entry {k} is {token[:24]!r}, not a non-negative integer")
    numbers = [int(t) for t in tokens]
    if not numbers:
        raise EvidenceError(f"evidence file {path} is empty; a file without evidence holds the single number 0")
    if len(numbers) == 1 + 2 * numbers[0]:
        pairs = numbers[1:]
    elif len(numbers) >= 2 and numbers[0] == 1 and len(numbers) == 2 + 2 * numbers[1]:
        pairs = numbers[2:]
    else:
        raise EvidenceError(f"evidence file {path}: the first number says {numbers[0]} observed variables, which "
                            f"needs {1 + 2 * numbers[0]} numbers, but the file holds {len(numbers)}; the file must be "
                            "'n' then n variable/value pairs, or '1 n' then n pairs (several evidence samples are "
                            "not supported)")
    evidence: dict[int, int] = {}
    for variable, value in zip(pairs[0::2], pairs[1::2]):
        if n_vars is not None and variable >= n_vars:
            raise EvidenceError(f"evidence file {path} names variable {variable}, but the model has variables "
                                f"0..{n_vars - 1}")
        _observe(evidence, variable, value, f"evidence file {path}: ")
    return dict(sorted(evidence.items()))
