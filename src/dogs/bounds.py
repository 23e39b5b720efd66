r"""Dobrushin influence bounds for Gibbs samplers (DoGS Section 4.1, Theorems 10-12).

The Dobrushin influence of variable ``j`` on variable ``i`` (DoGS Definition 6) is

.. math::

    C_{ij} = \max_{(X, Y) \in N_j} \big\| \pi(\cdot \mid X_{-i}) - \pi(\cdot \mid Y_{-i}) \big\|_{TV},

where ``(X, Y) in N_j`` means that ``X`` and ``Y`` differ at most in coordinate
``j`` and ``||.||_TV`` is half the L1 distance. DoGS needs an entrywise upper
bound ``C_bar >= C``. Every function in this module returns such a matrix as a
``scipy.sparse.csr_matrix`` of shape ``(p, p)`` whose entry ``[i, j]`` bounds
the influence of ``j`` on ``i``. The diagonal is zero and entries are stored
only for Markov-blanket pairs (for pairwise models the stored pattern is the
model's own CSR neighbour structure, ``indptr`` / ``neighbors``, explicit
zeros for zero couplings included).

Closed forms used here (derived in the docstrings below, checked against
brute force in ``tests/test_bounds.py``):

* Theorem 10 (general pairwise tables) is
  ``C_ij <= max_{x_j, y_j} tanh(osc / 4)`` with
  ``osc = max_{a,b} [(theta_{a x_j} - theta_{a y_j}) - (theta_{b x_j} - theta_{b y_j})]``
  (``2 sigma(s) - 1 = tanh(s / 2)``); it equals ``tanh|theta_ij|`` on an Ising edge.
* Theorem 11 (binary pairwise, spins +-1, each edge counted once) is
  ``C_ij <= sinh(2|theta_ij|) / (cosh(2|theta_ij|) + cosh(log b*))
  = (tanh(|theta_ij| + g) + tanh(|theta_ij| - g)) / 2`` with
  ``g = |log b*| / 2 = max(0, |theta_i| - sum_{k != j} |theta_ik|)``.
* Theorem 12 (binary higher order) as printed is
  ``sinh(2A) / (1 + cosh(log b*))``; keeping Lemma 14's denominator gives the
  tighter ``sinh(2A) / (cosh(2A) + cosh(log b*))`` (``tight=True``), which
  coincides with Theorem 11 on pairwise factors.
* Discrete factor graphs (any arity, zero entries allowed; :mod:`dogs.bounds_factor`, which proves the
  bound): the exact influence by enumerating each Markov blanket
  (:func:`exact_influence_factor_graph`), or ``max_{x_j, y_j} tanh(Omega / 4)`` with ``Omega`` the summed
  oscillations of the factors shared by ``i`` and ``j`` (Theorem 10 on pairwise tables), sharpened for
  binary ``i`` by the range of the rest of its log-odds (Theorem 12 tight on parity factors)
  (:func:`influence_factor_graph`); ``influence_bound(model, "auto")`` takes the exact value wherever the
  blanket is small.
"""

from __future__ import annotations

import itertools
import numbers
from collections.abc import Sequence

import numpy as np
from scipy import sparse

from dogs._kernels.bounds import TANH_TABLE, theorem11_values
from dogs.bounds_factor import MAX_BLANKET_WORK, blanket_work, bound_slot_values, exact_slot_values
from dogs.models.binary import BinaryPairwiseMRF
from dogs.models.discrete import DiscretePairwiseMRF
from dogs.models.factor_graph import DiscreteFactorGraph

__all__ = [
    "BOUND_METHODS",
    "check_influence_bound",
    "exact_influence",
    "exact_influence_factor_graph",
    "exact_influence_higher_order",
    "influence_binary_pairwise",
    "influence_bound",
    "influence_factor_graph",
    "influence_higher_order",
    "influence_pairwise",
    "loosen",
]

#: Names accepted by :func:`influence_bound`.
BOUND_METHODS = ("auto", "theorem10", "theorem11", "theorem12", "exact", "factor")

#: The models :func:`influence_bound` takes.
_MODEL_TYPES = (BinaryPairwiseMRF, DiscretePairwiseMRF, DiscreteFactorGraph)

#: Default cap on the number of joint Markov-blanket states enumerated by the exact influence
#: (``2**20``: a blanket of 20 binary variables).
MAX_BLANKET_STATES = 2**20


# --------------------------------------------------------------------------- helpers
def _csr_from_pattern(values: np.ndarray, indices: np.ndarray, indptr: np.ndarray, p: int) -> sparse.csr_matrix:
    """CSR matrix of ``values`` on a sorted, duplicate-free pattern, sharing the pattern's arrays (no copy).

    On a model's neighbour pattern the index arrays are the model's read-only arrays, which
    :func:`dogs.models.graph.is_symmetric_neighbour_pattern` recognises, so the scan functions skip the
    pattern checks; ``values`` becomes the (writable) data. Use ``.copy()`` before changing the pattern
    in place (``eliminate_zeros``, say).
    """
    values = np.asarray(values, dtype=np.float64)
    out = sparse.csr_matrix((p, p))
    out.data, out.indices, out.indptr = values, indices, indptr  # the model's own arrays (the constructor may copy them)
    out.has_sorted_indices = True
    out.has_canonical_format = True
    return out


def _slot_rows(indptr: np.ndarray) -> np.ndarray:
    """Row (site) index of every CSR slot."""
    return np.repeat(np.arange(indptr.size - 1, dtype=np.int64), np.diff(indptr))


def _require(model, cls, name: str = "model"):
    if not isinstance(model, cls):
        raise TypeError(f"{name} must be a {cls.__name__}, got {type(model).__name__}")


def _check_max_states(max_states, name: str = "max_states") -> int:
    if isinstance(max_states, bool) or not isinstance(max_states, numbers.Integral) or max_states < 1:
        raise ValueError(f"{name} must be a positive integer, got {max_states!r}")
    return int(max_states)


def _refuse_large_blanket(i: int, blanket_size: int, n_states: int, max_states: int) -> None:
    if n_states > max_states:
        raise ValueError(
            f"exact influence enumerates the Markov blanket of each variable: variable {i} has "
            f"{blanket_size} blanket variables ({n_states} joint states), more than max_states="
            f"{max_states} (about {int(np.log2(max_states))} binary variables); use a bound "
            f"(theorem10 / theorem11 / theorem12) instead"
        )


# --------------------------------------------------------------------------- Theorem 10
def influence_pairwise(model: DiscretePairwiseMRF | BinaryPairwiseMRF) -> sparse.csr_matrix:
    r"""Influence bound of a discrete pairwise MRF (DoGS Theorem 10; Liu & Domke 2014, Lemmas 10-11).

    For the target ``pi(x) ∝ exp(sum_i phi_i(x_i) + sum_{(i,j)} theta^{ij}(x_i, x_j))`` (DoGS eq. (2))

    .. math::

        C_{ij} \le \max_{x_j, y_j} \Big| 2\,\sigma\Big(\tfrac12 \max_{a,b}
            \big[(\theta^{ij}_{a x_j} - \theta^{ij}_{a y_j}) - (\theta^{ij}_{b x_j} - \theta^{ij}_{b y_j})\big]\Big) - 1 \Big|
        = \max_{x_j, y_j} \tanh\big(\operatorname{osc}_{x_j y_j} / 4\big),

    where ``theta^{ij}`` is the pair table oriented ``(x_i, x_j)``, ``a, b`` range over the
    states of ``x_i`` and ``osc_{x_j y_j} = max_a delta_a - min_b delta_b`` is the
    oscillation of the change ``delta_a = theta_{a x_j} - theta_{a y_j}`` of the
    conditional logits of ``x_i`` when ``x_j`` moves from ``y_j`` to ``x_j``.

    The whole difference ``(.) - (.)`` sits inside ``max_{a,b}``: the extracted
    text of the paper closes the bracket after the first term, which leaves
    ``b`` unbound. The form above is the sharp one: two softmax distributions
    whose logits differ by ``delta`` are at most ``tanh(osc(delta) / 4)`` apart in
    TV, with equality approached by two-point distributions. It gives
    ``tanh|theta_ij|`` on an Ising edge ``theta_ij x_i x_j`` (``osc = 4 |theta_ij|``),
    and implies Liu & Domke's Theorem 6 ``R_ij <= max_{a,b} ||theta_.a - theta_.b||_inf / 2``
    through ``tanh(s) <= s``. Unary terms and the other neighbours do not enter.

    Parameters
    ----------
    model : DiscretePairwiseMRF or BinaryPairwiseMRF
        A :class:`BinaryPairwiseMRF` is handled in closed form, ``C_ij <= tanh|theta_ij|``
        (the same as passing ``model.to_discrete()``).

    Returns
    -------
    scipy.sparse.csr_matrix
        ``(p, p)``, entry ``[i, j]`` bounds the influence of ``j`` on ``i``; the pattern is
        the model's neighbour CSR structure.
    """
    if isinstance(model, BinaryPairwiseMRF):
        return _csr_from_pattern(np.tanh(np.abs(model.coupling)), model.neighbors, model.indptr, model.n_vars)
    _require(model, DiscretePairwiseMRF)
    n_edges = model.n_edges
    # influence of the second endpoint on the first (vary columns) and of the first on the second
    on_first = np.zeros(n_edges)
    on_second = np.zeros(n_edges)
    shapes = np.array([t.shape for t in model.tables], dtype=np.int64).reshape(-1, 2)
    for shape in np.unique(shapes, axis=0):
        group = np.flatnonzero(np.all(shapes == shape, axis=1))
        stacked = np.stack([model.tables[e] for e in group])  # (n, K_first, K_second)
        on_first[group] = _tanh_quarter_max_oscillation(stacked)
        on_second[group] = _tanh_quarter_max_oscillation(np.swapaxes(stacked, 1, 2))
    rows = _slot_rows(model.indptr)
    edge = model.edge_of
    values = np.where(model.edges[edge, 0] == rows, on_first[edge], on_second[edge])
    return _csr_from_pattern(values, model.neighbors, model.indptr, model.n_vars)


def _tanh_quarter_max_oscillation(tables: np.ndarray) -> np.ndarray:
    """``max_{x, y} tanh(osc / 4)`` for stacked tables ``(n, K_i, K_j)`` oriented ``(x_i, x_j)``."""
    delta = tables[:, :, :, None] - tables[:, :, None, :]  # (n, a, x_j, y_j)
    osc = delta.max(axis=1) - delta.min(axis=1)
    return np.tanh(osc.reshape(len(tables), -1).max(axis=1) / 4.0)


# --------------------------------------------------------------------------- Theorem 11
def influence_binary_pairwise(model: BinaryPairwiseMRF) -> sparse.csr_matrix:
    r"""Influence bound of a binary pairwise MRF using the fields (DoGS Theorem 11, Appendix A.4).

    For ``pi(x) ∝ exp(sum_{i<j} theta_ij x_i x_j + sum_i theta_i x_i)`` on ``{-1, +1}^p``
    (each edge counted once, the convention of the proof),

    .. math::

        C_{ij} \le \frac{|e^{2\theta_{ij}} - e^{-2\theta_{ij}}|\, b^*}
                        {(1 + b^* e^{2\theta_{ij}})(1 + b^* e^{-2\theta_{ij}})},
        \qquad
        b^* = \max\Big(e^{-2\sum_{k\ne j}|\theta_{ik}| - 2\theta_i},
              \min\big(e^{2\sum_{k\ne j}|\theta_{ik}| - 2\theta_i}, 1\big)\Big).

    With ``t = 2|theta_ij|`` and ``beta = log b*`` the right-hand side equals
    ``sinh(t) / (cosh(t) + cosh(beta))``, and ``|beta| = 2 g`` with
    ``g = max(0, |theta_i| - sum_{k != j} |theta_ik|)``, so

    .. math::

        C_{ij} \le \tfrac12\big[\tanh(|\theta_{ij}| + g) + \tanh(|\theta_{ij}| - g)\big],

    which is what is evaluated (``tanh`` by an addition theorem on a table, within 2 units in
    the last place, no overflow for any finite parameters: :mod:`dogs._kernels.bounds`); it is
    ``tanh|theta_ij|`` at zero field.
    The bound is the exact influence whenever ``b* != 1`` (``|theta_i| > sum_{k != j}
    |theta_ik|``; also when ``=``), because the extreme neighbour configuration
    ``x_k = ±sign(theta_ik)`` that puts ``b`` at ``b*`` is attainable.
    It never exceeds Theorem 10's ``tanh|theta_ij|`` (Lemma 14: the expression is
    maximised over ``b`` at ``b = 1``, where it equals ``tanh|theta_ij|``).

    One parallel numba pass over the CSR slots of ``model``
    (:func:`dogs._kernels.bounds.theorem11_values`), about 3-5 ns per stored entry on 2 cores (the
    benchmark ``dogs.benchmarks.dogs`` reports it); the result shares the model's index arrays.

    Parameters
    ----------
    model : BinaryPairwiseMRF

    Returns
    -------
    scipy.sparse.csr_matrix
        ``(p, p)`` with the pattern of ``model.indptr`` / ``model.neighbors``.
    """
    _require(model, BinaryPairwiseMRF)
    values = np.empty(model.coupling.size)
    theorem11_values(model.indptr, model.coupling, model.edge_of, model.theta, model.h, values, TANH_TABLE)
    return _csr_from_pattern(values, model.neighbors, model.indptr, model.n_vars)


# --------------------------------------------------------------------------- Theorem 12
def _check_higher_order(n_vars, factors, h):
    """Validate ``(n_vars, factors, h)``; return ``(p, list of int arrays, thetas, h)``."""
    if isinstance(n_vars, bool) or not isinstance(n_vars, numbers.Integral):
        raise TypeError(f"n_vars must be an integer, got {type(n_vars).__name__}")
    if n_vars < 1:
        raise ValueError(f"n_vars must be >= 1, got {n_vars}")
    p = int(n_vars)
    h_arr = np.asarray(h)
    if h_arr.ndim == 0 and np.issubdtype(h_arr.dtype, np.number):
        h_arr = np.full(p, h_arr, dtype=np.float64)
    if not np.issubdtype(h_arr.dtype, np.number) or np.iscomplexobj(h_arr):
        raise TypeError(f"h must be real numbers, got dtype {h_arr.dtype}")
    h_arr = h_arr.astype(np.float64)
    if h_arr.shape != (p,):
        raise ValueError(f"h must have shape (n_vars,) = ({p},), got {h_arr.shape}")
    if not np.all(np.isfinite(h_arr)):
        raise ValueError("h must be finite")
    if isinstance(factors, (str, bytes)) or not isinstance(factors, (Sequence, np.ndarray)):
        raise TypeError(f"factors must be a sequence of (variables, theta_S) pairs, got {type(factors).__name__}")
    scopes, thetas = [], []
    for f, item in enumerate(factors):
        try:
            variables, theta_s = item
        except (TypeError, ValueError):
            raise TypeError(f"factors[{f}] must be a (variables, theta_S) pair, got {item!r}") from None
        scope = np.asarray(variables)
        if scope.ndim != 1 or (scope.size and not np.issubdtype(scope.dtype, np.integer)):
            raise TypeError(f"factors[{f}] variables must be a 1-d sequence of integers, got {variables!r}")
        scope = scope.astype(np.int64)
        if scope.size < 2:
            raise ValueError(
                f"factors[{f}] must involve at least 2 variables (put single-site terms in h), got {variables!r}"
            )
        if scope.min() < 0 or scope.max() >= p:
            raise ValueError(f"factors[{f}] variables must lie in 0..{p - 1}, got {variables!r}")
        if np.unique(scope).size != scope.size:
            raise ValueError(f"factors[{f}] variables must be distinct, got {variables!r}")
        if isinstance(theta_s, bool) or not isinstance(theta_s, numbers.Real):
            raise TypeError(f"factors[{f}] theta_S must be a real number, got {theta_s!r}")
        if not np.isfinite(theta_s):
            raise ValueError(f"factors[{f}] theta_S must be finite, got {theta_s!r}")
        scopes.append(scope)
        thetas.append(float(theta_s))
    return p, scopes, np.asarray(thetas, dtype=np.float64), h_arr


def _shared_strength(p: int, scopes, thetas) -> sparse.csr_matrix:
    """``A[i, j] = sum_{S ∋ i, j} |theta_S|`` (sorted CSR, pattern = co-occurring pairs, zero diagonal)."""
    rows, cols, vals = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)], [np.zeros(0)]
    sizes = np.array([s.size for s in scopes], dtype=np.int64)
    for size in np.unique(sizes):
        members = np.flatnonzero(sizes == size)
        block = np.stack([scopes[m] for m in members])  # (n, size)
        first, second = np.array(list(itertools.permutations(range(size), 2))).T
        rows.append(block[:, first].ravel())
        cols.append(block[:, second].ravel())
        vals.append(np.repeat(np.abs(thetas[members]), first.size))
    shared = sparse.coo_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(p, p)
    ).tocsr()  # sums duplicates; keeps explicit zeros of zero-strength factors
    shared.sum_duplicates()
    shared.sort_indices()
    return shared


def influence_higher_order(n_vars: int, factors, h, *, tight: bool = False) -> sparse.csr_matrix:
    r"""Influence bound of a binary MRF with higher-order interactions (DoGS Theorem 12, Appendix A.5).

    For ``pi(x) ∝ exp(sum_S theta_S prod_{k in S} x_k + sum_i theta_i x_i)`` on ``{-1, +1}^p``,
    with ``A_ij = sum_{S ∋ i, j} |theta_S|`` and ``B_ij = sum_{S ∋ i, S ∌ j} |theta_S|``,

    .. math::

        C_{ij} \le \frac{|e^{2A_{ij}} - e^{-2A_{ij}}|\, b^*}{(1 + b^*)^2}
               = \frac{\sinh(2A_{ij})}{1 + \cosh(\log b^*)},
        \qquad b^* = \max\big(e^{-2B_{ij} - 2\theta_i}, \min(e^{2B_{ij} - 2\theta_i}, 1)\big).

    ``|log b*| = 2 g`` with ``g = max(0, |theta_i| - B_ij)``. This is the statement
    as printed (``tight=False``). Its last step relaxes Lemma 14's denominator
    ``(1 + b e^{2q})(1 + b e^{-2q}) >= (1 + b)^2`` (``q`` the coefficient of ``x_j``
    in the conditional logit); that is valid but loose and lets the bound exceed 1
    (e.g. ``sinh(2A) / 2`` at zero field). For pairwise factors it equals
    Theorem 11 times ``(cosh 2|theta_ij| + cosh 2g) / (1 + cosh 2g) >= 1``.

    With ``tight=True`` the denominator is kept:

    .. math::

        C_{ij} \le \frac{\sinh(2A_{ij})}{\cosh(2A_{ij}) + \cosh(2g)}
               = \tfrac12\big[\tanh(A_{ij} + g) + \tanh(A_{ij} - g)\big],

    still a valid bound (the expression increases in ``|q| <= A_ij`` and decreases
    in the distance ``>= g`` of the rest of the logit from 0), always ``< 1``, never
    larger than the printed form, and equal to Theorem 11 on pairwise factors.

    Parameters
    ----------
    n_vars : int
        Number of variables ``p``.
    factors : sequence of (sequence of int, float)
        Pairs ``(S, theta_S)``; ``S`` holds >= 2 distinct variable indices. The same
        scope may appear more than once (parameters add up).
    h : float or (p,) array
        Unary parameters ``theta_i``.
    tight : bool, default False
        Keep Lemma 14's denominator instead of the printed ``(1 + b*)^2``.

    Returns
    -------
    scipy.sparse.csr_matrix
        ``(p, p)``; entries stored for every pair sharing a factor.
    """
    p, scopes, thetas, h_arr = _check_higher_order(n_vars, factors, h)
    if not isinstance(tight, (bool, np.bool_)):
        raise TypeError(f"tight must be a bool, got {type(tight).__name__}")
    shared = _shared_strength(p, scopes, thetas)
    incident = np.zeros(p)  # sum_{S ∋ i} |theta_S|
    for scope, theta_s in zip(scopes, thetas):
        incident[scope] += abs(theta_s)
    rows = _slot_rows(shared.indptr)
    strength = shared.data  # A_ij
    g = np.maximum(0.0, np.abs(h_arr)[rows] - (incident[rows] - strength))
    if tight:
        values = 0.5 * (np.tanh(strength + g) + np.tanh(strength - g))
    else:
        values = _sinh_over_one_plus_cosh(2.0 * strength, 2.0 * g)
    return _csr_from_pattern(values, shared.indices, shared.indptr, p)


def _sinh_over_one_plus_cosh(t: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """``sinh(t) / (1 + cosh(beta)) = sinh(t) / (2 cosh(beta/2)^2)`` for ``t, beta >= 0``, in log space.

    Returns ``inf`` only when the true value exceeds the float range (a vacuous bound).
    """
    with np.errstate(divide="ignore", over="ignore"):
        log_sinh = t + np.log(-np.expm1(-2.0 * t)) - np.log(2.0)  # -inf at t = 0
        log_cosh_half = beta / 2.0 + np.log1p(np.exp(-beta)) - np.log(2.0)
        return np.exp(log_sinh - np.log(2.0) - 2.0 * log_cosh_half)


# --------------------------------------------------------------------------- exact influence
_SPINS = np.array([-1.0, 1.0])


def _on_axes(values: np.ndarray, axes, ndim: int) -> np.ndarray:
    """View ``values`` (one dimension per entry of ``axes``) broadcastable over ``ndim`` blanket axes."""
    order = np.argsort(axes)
    values = np.transpose(values, order)  # dimensions in increasing target-axis order
    shape = [1] * ndim
    for axis, size in zip(np.asarray(axes)[order], values.shape):
        shape[axis] = size
    return values.reshape(shape)


def _max_tv_along_axes(probs: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """Max TV between conditionals that differ in one blanket variable, per blanket axis.

    ``probs`` has shape ``(*cards, K_i)``: the conditional of ``x_i`` at every blanket state.
    """
    out = np.zeros(cards.size)
    for axis, k in enumerate(cards):
        best = 0.0
        for a, b in itertools.combinations(range(int(k)), 2):
            tv = 0.5 * np.abs(probs.take(a, axis=axis) - probs.take(b, axis=axis)).sum(axis=-1)
            best = max(best, float(tv.max()))
        out[axis] = best
    return out


def _binary_max_tv(prob_plus: np.ndarray, m: int) -> np.ndarray:
    """Binary case: ``prob_plus`` is ``P(x_i = +1)`` on the blanket cube (index 0 = spin -1 on every axis)."""
    cube = np.broadcast_to(prob_plus, (2,) * m)
    return np.array([np.abs(cube.take(1, axis=a) - cube.take(0, axis=a)).max() for a in range(m)])


def exact_influence(model, *, max_states: int = MAX_BLANKET_STATES) -> sparse.csr_matrix:
    r"""Exact Dobrushin influence (DoGS Definition 6) by enumerating each variable's Markov blanket.

    .. math::

        C_{ij} = \max_{(X, Y) \in N_j} \tfrac12 \sum_{x_i} \big| \pi(x_i \mid X_{-i}) - \pi(x_i \mid Y_{-i}) \big|.

    The conditional of ``x_i`` depends only on its Markov blanket, so the maximum
    runs over the joint blanket states and the pairs of values of ``x_j``; ``C_ij = 0``
    outside the blanket. For binary variables TV is ``|P(+1 | X) - P(+1 | Y)|``.
    Cost ``O(sum_i m_i prod_{k in blanket(i)} K_k)``: meant for ground truth on small
    models.

    Parameters
    ----------
    model : BinaryPairwiseMRF or DiscretePairwiseMRF
        (For higher-order binary models use :func:`exact_influence_higher_order`.)
    max_states : int, default 2**20
        Refuse (``ValueError``) any variable whose blanket has more joint states.

    Returns
    -------
    scipy.sparse.csr_matrix
        ``(p, p)`` with the model's neighbour CSR pattern.
    """
    max_states = _check_max_states(max_states)
    if isinstance(model, BinaryPairwiseMRF):
        values = np.zeros(model.neighbors.size)
        for i in range(model.n_vars):
            lo, hi = model.indptr[i], model.indptr[i + 1]
            m = hi - lo
            if m == 0:
                continue
            _refuse_large_blanket(i, m, 2**m, max_states)
            # local field f = h_i + sum_k theta_ik x_k on the cube of blanket states (axis k: x_k = -1, +1)
            field = np.full((1,) * m, model.h[i])
            for axis, theta_ik in enumerate(model.coupling[lo:hi]):
                field = field + _on_axes(theta_ik * _SPINS, [axis], m)
            values[lo:hi] = _binary_max_tv(0.5 * (1.0 + np.tanh(field)), m)  # P(+1) = sigma(2 f)
        return _csr_from_pattern(values, model.neighbors, model.indptr, model.n_vars)
    if isinstance(model, DiscretePairwiseMRF):
        values = np.zeros(model.neighbors.size)
        for i in range(model.n_vars):
            lo, hi = model.indptr[i], model.indptr[i + 1]
            if hi == lo:
                continue
            blanket = model.neighbors[lo:hi]
            cards = model.cardinalities[blanket]
            n_states = int(np.prod(cards, dtype=np.float64)) if cards.size else 1
            _refuse_large_blanket(i, cards.size, n_states, max_states)
            m = cards.size
            # logits of x_i (last axis) at every joint blanket state (axes 0..m-1)
            logits = _on_axes(model.unary[i], [m], m + 1)
            for axis, slot in enumerate(range(lo, hi)):
                logits = logits + _on_axes(model.pair_table(i, slot), [m, axis], m + 1)
            logits = logits - logits.max(axis=-1, keepdims=True)
            probs = np.exp(logits)
            probs /= probs.sum(axis=-1, keepdims=True)
            values[lo:hi] = _max_tv_along_axes(probs, cards)
        return _csr_from_pattern(values, model.neighbors, model.indptr, model.n_vars)
    raise TypeError(
        f"model must be a BinaryPairwiseMRF or DiscretePairwiseMRF, got {type(model).__name__} "
        "(for higher-order binary models use exact_influence_higher_order, for factor graphs "
        "exact_influence_factor_graph)"
    )


def exact_influence_higher_order(n_vars: int, factors, h, *, max_states: int = MAX_BLANKET_STATES) -> sparse.csr_matrix:
    r"""Exact Dobrushin influence of a binary higher-order MRF (the target of DoGS Theorem 12).

    ``pi(x) ∝ exp(sum_S theta_S prod_{k in S} x_k + sum_i theta_i x_i)``, spins ``±1``. The
    conditional is ``P(x_i = +1 | x_{-i}) = sigma(2 r_i(x))`` with
    ``r_i(x) = sum_{S ∋ i} theta_S prod_{k in S, k != i} x_k + theta_i``, a function of the
    blanket ``union_{S ∋ i} S \ {i}``, which is enumerated; ``C_ij`` is the largest change of
    that probability when only ``x_j`` flips (Definition 6).

    Parameters
    ----------
    n_vars, factors, h
        As in :func:`influence_higher_order`.
    max_states : int, default 2**20
        Refuse (``ValueError``) any blanket with more joint states.

    Returns
    -------
    scipy.sparse.csr_matrix
        ``(p, p)`` with the pattern of :func:`influence_higher_order`.
    """
    max_states = _check_max_states(max_states)
    p, scopes, thetas, h_arr = _check_higher_order(n_vars, factors, h)
    pattern = _shared_strength(p, scopes, thetas)
    values = np.zeros(pattern.nnz)
    touching = [[] for _ in range(p)]
    for f, scope in enumerate(scopes):
        for i in scope:
            touching[i].append(f)
    for i in range(p):
        lo, hi = pattern.indptr[i], pattern.indptr[i + 1]
        blanket = pattern.indices[lo:hi]  # sorted union of S \ {i}
        m = blanket.size
        if m == 0:
            continue
        _refuse_large_blanket(i, m, 2**m, max_states)
        # r_i = theta_i + sum_{S ∋ i} theta_S prod_{k in S \ i} x_k on the cube of blanket states
        field = np.full((1,) * m, h_arr[i])
        for f in touching[i]:
            others = np.searchsorted(blanket, scopes[f][scopes[f] != i])
            product = np.ones((1,) * m)
            for axis in others:
                product = product * _on_axes(_SPINS, [axis], m)
            field = field + thetas[f] * product
        values[lo:hi] = _binary_max_tv(0.5 * (1.0 + np.tanh(field)), m)  # P(+1) = sigma(2 r_i)
    return _csr_from_pattern(values, pattern.indices, pattern.indptr, p)


# --------------------------------------------------------------------------- factor graphs
def exact_influence_factor_graph(model: DiscreteFactorGraph, *, max_work: int = MAX_BLANKET_WORK) -> sparse.csr_matrix:
    r"""Exact Dobrushin influence of a discrete factor graph by enumerating every Markov blanket.

    .. math::

        C_{ij} = \max_{(X, Y) \in N_j} \big\| \pi_i(\cdot \mid X) - \pi_i(\cdot \mid Y) \big\|_{TV},

    the conditional of ``x_i`` computed from the factors containing ``i`` at every configuration of its
    blanket (:mod:`dogs._kernels.factor_influence`, parallel over variables). With zero entries a
    configuration may give every state of ``i`` weight 0 (no conditional): a pair where exactly one
    conditional exists counts 1 and a pair where neither does counts 0. That is what Theorem 8 needs (its
    coupling path may cross such configurations); merely skipping them is not enough (the counterexample
    and the proof are in :mod:`dogs.bounds_factor`). On a model without zero entries this is Definition 6.

    Parameters
    ----------
    model : DiscreteFactorGraph
    max_work : int, default 2**20
        Refuse (``ValueError``) any variable whose blanket configurations times its states exceed it
        (:data:`dogs.bounds_factor.MAX_BLANKET_WORK`: 8 MB of conditionals per variable being enumerated).

    Returns
    -------
    scipy.sparse.csr_matrix
        ``(p, p)`` on the model's blanket pattern (``indptr`` / ``neighbors``).
    """
    _require(model, DiscreteFactorGraph)
    max_work = _check_max_states(max_work, "max_work")
    work = blanket_work(model)
    if np.any(work > max_work):
        i = int(np.argmax(work))
        raise ValueError(f"exact influence enumerates the Markov blanket of each variable: variable {i} has "
                         f"{int(model.indptr[i + 1] - model.indptr[i])} blanket variables and {work[i]:.4g} "
                         f"configurations x states, more than max_work={max_work}; use method 'factor' (or "
                         "'auto', which is exact only where the blanket is small)")
    return _csr_from_pattern(exact_slot_values(model, np.arange(model.n_vars)), model.neighbors, model.indptr,
                             model.n_vars)


def influence_factor_graph(model: DiscreteFactorGraph, *, fields: bool = True) -> sparse.csr_matrix:
    r"""Influence bound of a discrete factor graph from its factor tables (theorem and proof in :mod:`dogs.bounds_factor`).

    .. math::

        C_{ij} \le \max_{x \ne y} \tanh\big(\Omega_{ij}(x, y) / 4\big), \qquad
        \Omega_{ij}(x, y) = \sum_{f \ni i, j} \max_z \operatorname{osc}_k
            \big[\theta_f(k, x, z) - \theta_f(k, y, z)\big],

    Theorem 10 exactly when the factors are pairwise. With ``fields`` a binary ``i`` gets the sharper
    :math:`\max_{x \ne y} \sinh(\Omega/2) / (\cosh(\Omega/2) + \cosh\mu)`, :math:`\mu` the least
    distance from 0 of the midpoint of its log-odds, bounded factor by factor (Theorem 11 on binary
    pairwise factors, Theorem 12 with Lemma 14's denominator on parity factors, never above
    ``tanh(Omega / 4)``). A zero entry that one of the two values of ``x_j`` allows and the other forbids
    makes :math:`\Omega` infinite, and the bound 1 (valid, vacuous). Cost: ``O(sum_f |S_f|^2 |table_f|
    max K)`` vectorised over factors of equal shape.

    Parameters
    ----------
    model : DiscreteFactorGraph
    fields : bool, default True
        Use the log-odds range on rows of binary variables.

    Returns
    -------
    scipy.sparse.csr_matrix
        ``(p, p)`` on the model's blanket pattern.
    """
    _require(model, DiscreteFactorGraph)
    if not isinstance(fields, (bool, np.bool_)):
        raise TypeError(f"fields must be a bool, got {type(fields).__name__}")
    return _csr_from_pattern(bound_slot_values(model, fields=bool(fields)), model.neighbors, model.indptr,
                             model.n_vars)


def _factor_graph_auto(model: DiscreteFactorGraph) -> sparse.csr_matrix:
    """Exact rows where the blanket work is at most :data:`MAX_BLANKET_WORK`, the field-aware bound elsewhere.

    Each row is valid on its own (Theorem 8's coupling argument bounds one row at a time), so mixing is sound.
    """
    small = blanket_work(model) <= MAX_BLANKET_WORK
    values = exact_slot_values(model, np.flatnonzero(small))
    if not small.all():
        large_slots = ~small[_slot_rows(model.indptr)]
        values[large_slots] = bound_slot_values(model, rows=~small)[large_slots]
    return _csr_from_pattern(values, model.neighbors, model.indptr, model.n_vars)


def _pairwise_as_factor_graph(model) -> DiscreteFactorGraph:
    """A pairwise model as unary and pair factors (a ±1 model over labels 0 = spin -1, 1 = spin +1)."""
    if isinstance(model, BinaryPairwiseMRF):
        spins = np.array([-1.0, 1.0])
        factors = [((i,), h_i * spins) for i, h_i in enumerate(model.h)]
        factors += [(tuple(e), t * np.outer(spins, spins)) for e, t in zip(model.edges.tolist(), model.theta)]
        return DiscreteFactorGraph.from_factors(np.full(model.n_vars, 2), factors)
    factors = [((i,), u) for i, u in enumerate(model.unary)]
    factors += [(tuple(e), t) for e, t in zip(model.edges.tolist(), model.tables)]
    return DiscreteFactorGraph.from_factors(model.cardinalities, factors)


def _factor_graph_theorem12(model: DiscreteFactorGraph) -> sparse.csr_matrix:
    """Theorem 12 as printed on the parity expansion of a binary factor graph without zero entries."""
    from dogs.models.uai import UAINetwork, parity_form

    if np.any(model.cardinalities != 2):
        raise ValueError("method 'theorem12' needs a binary factor graph (every variable with 2 states); use "
                         "'factor', which is Theorem 12 (with Lemma 14's denominator) on binary parity factors")
    if not np.all(np.isfinite(model.log_values)):
        raise ValueError("method 'theorem12' needs finite log potentials (Theorem 12's parameters are real); this "
                         "model has zero entries: use 'factor' or 'exact'")
    network = UAINetwork(model.cardinalities, model.scope_starts, model.scope_vars, model.table_starts,
                         model.log_values)
    n_vars, factors, h, _ = parity_form(network)
    return influence_higher_order(n_vars, factors, h)


# --------------------------------------------------------------------------- utilities
def loosen(bound, factor: float) -> sparse.csr_matrix:
    r"""Loosened influence bound ``C_bar = s * C_hat`` (DoGS Section 5.4, Figure 8: ``s in {1, 1.1, 1.3, 1.5}``).

    Parameters
    ----------
    bound : scipy.sparse matrix or array-like, shape (p, p)
        An influence bound ``C_hat`` (nonnegative).
    factor : float
        ``s >= 1``; a factor below 1 would no longer bound the influence.

    Returns
    -------
    scipy.sparse.csr_matrix
        ``s * C_hat`` with the same sparsity pattern (a new matrix).
    """
    if isinstance(factor, bool) or not isinstance(factor, numbers.Real):
        raise TypeError(f"factor must be a real number, got {type(factor).__name__}")
    if not np.isfinite(factor) or factor < 1.0:
        raise ValueError(
            f"factor must be a finite number >= 1 (a smaller factor is no longer an upper bound), got {factor}"
        )
    if sparse.issparse(bound):
        mat = sparse.csr_matrix(bound, dtype=np.float64, copy=True)
    else:
        arr = np.asarray(bound)
        if not np.issubdtype(arr.dtype, np.number) or np.iscomplexobj(arr):
            raise TypeError(f"bound must be a real matrix, got dtype {arr.dtype}")
        mat = sparse.csr_matrix(arr.astype(np.float64))
    if mat.ndim != 2 or mat.shape[0] != mat.shape[1]:
        raise ValueError(f"bound must be a square (p, p) matrix, got shape {mat.shape}")
    if mat.nnz and (not np.all(np.isfinite(mat.data)) or mat.data.min() < 0):
        raise ValueError("bound must hold finite nonnegative influence bounds")
    mat.data *= float(factor)
    return mat


def influence_bound(model, method: str = "auto") -> sparse.csr_matrix:
    """Influence bound ``C_bar`` for a model, by method name.

    Parameters
    ----------
    model : BinaryPairwiseMRF, DiscretePairwiseMRF or DiscreteFactorGraph
    method : {"auto", "theorem10", "theorem11", "theorem12", "exact", "factor"}
        Pairwise models: ``"auto"`` is Theorem 11 for a :class:`BinaryPairwiseMRF` (what DoGS uses for
        binary MRFs, Section 5), Theorem 10 for a :class:`DiscretePairwiseMRF`.
        ``"theorem10"``: :func:`influence_pairwise`. ``"theorem11"``:
        :func:`influence_binary_pairwise` (binary models only). ``"theorem12"``:
        :func:`influence_higher_order` on the edges as size-2 factors, as printed (binary
        models only). ``"exact"``: :func:`exact_influence` (small blankets only).

        A :class:`DiscreteFactorGraph`: ``"auto"`` is the exact influence of every variable whose blanket
        configurations times states are at most :data:`dogs.bounds_factor.MAX_BLANKET_WORK` and
        :func:`influence_factor_graph` for the others (row by row). ``"exact"``:
        :func:`exact_influence_factor_graph`. ``"factor"``: :func:`influence_factor_graph`.
        ``"theorem10"``: the same without the binary log-odds refinement (Theorem 10 on pairwise factors).
        ``"theorem12"``: Theorem 12 as printed on the parity expansion of a binary model without zero
        entries. ``"theorem11"`` is refused (on binary pairwise factors ``"factor"`` equals it).
        ``"factor"`` on a pairwise model is the same bound on its unary and pair factors: Theorem 10 on rows of
        variables with more than two states, the binary refinement (Theorem 11 on a ±1 model) on the others.

    Returns
    -------
    scipy.sparse.csr_matrix
    """
    if not isinstance(method, str) or method not in BOUND_METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(map(repr, BOUND_METHODS))}")
    if not isinstance(model, _MODEL_TYPES):
        raise TypeError("model must be a BinaryPairwiseMRF, DiscretePairwiseMRF or DiscreteFactorGraph, got "
                        f"{type(model).__name__}")
    if isinstance(model, DiscreteFactorGraph):
        if method == "theorem11":
            raise ValueError("method 'theorem11' is for BinaryPairwiseMRF models; on a factor graph use 'factor' "
                             "(equal to Theorem 11 on binary pairwise factors) or 'auto'")
        return {"auto": _factor_graph_auto, "exact": exact_influence_factor_graph, "factor": influence_factor_graph,
                "theorem10": lambda m: influence_factor_graph(m, fields=False),
                "theorem12": _factor_graph_theorem12}[method](model)
    if method == "factor":  # the same values on the model's own pattern
        return _csr_from_pattern(bound_slot_values(_pairwise_as_factor_graph(model)), model.neighbors, model.indptr,
                                 model.n_vars)
    is_binary = isinstance(model, BinaryPairwiseMRF)
    if method == "auto":
        method = "theorem11" if is_binary else "theorem10"
    if method == "theorem10":
        return influence_pairwise(model)
    if method == "exact":
        return exact_influence(model)
    if not is_binary:
        raise TypeError(f"method {method!r} needs a BinaryPairwiseMRF, got {type(model).__name__}")
    if method == "theorem11":
        return influence_binary_pairwise(model)
    factors = [(tuple(e), float(t)) for e, t in zip(model.edges.tolist(), model.theta)]
    return influence_higher_order(model.n_vars, factors, model.h)


def check_influence_bound(influence, model) -> sparse.csr_matrix:
    r"""A user's influence bound :math:`\bar C` for ``model``, checked against what any bound of it must satisfy.

    Every Dobrushin influence is a total-variation distance, so :math:`0 \le C_{ij} \le 1`; it is 0 unless ``j``
    is in the Markov blanket of ``i`` (a neighbour, for a pairwise model; a variable sharing a factor, for a factor
    graph), and positive wherever ``i`` and ``j`` interact (a non-zero coupling; Theorem 10's and 11's bounds are
    positive exactly there; for a factor graph, wherever ``influence_bound(model)`` is positive, which is the
    exact influence where the blanket is small). So a matrix

    - of another shape than ``(p, p)``, with an entry outside ``[0, 1]`` or not finite, is refused;
    - with a non-zero entry off the model's edges is refused: it was made for another model or another
      numbering (with evidence, the bound must be the conditioned model's, over the unobserved variables);
    - with a zero entry where ``influence_bound(model)`` is positive is refused: it is no bound at all (an
      all-zero matrix would certify zero bias on any model).

    Returns the bound as a CSR matrix (float64).
    """
    if not isinstance(model, _MODEL_TYPES):
        raise TypeError("model must be a BinaryPairwiseMRF, DiscretePairwiseMRF or DiscreteFactorGraph, got "
                        f"{type(model).__name__}")
    p = model.n_vars
    if sparse.issparse(influence):
        matrix = sparse.csr_matrix(influence, dtype=np.float64, copy=True)
    else:
        array = np.asarray(influence)
        if array.dtype == object or not np.issubdtype(array.dtype, np.number) or np.iscomplexobj(array):
            raise TypeError(f"influence must be a real (p, p) matrix, got dtype {array.dtype}")
        if array.ndim != 2:
            raise ValueError(f"influence must be a ({p}, {p}) matrix, got shape {array.shape}")
        matrix = sparse.csr_matrix(array.astype(np.float64))
    if matrix.shape != (p, p):
        raise ValueError(f"influence must be a ({p}, {p}) matrix for this model of {p} variables, got shape "
                         f"{matrix.shape}")
    matrix.sum_duplicates()
    matrix.eliminate_zeros()
    data = matrix.data
    if data.size and (not np.all(np.isfinite(data)) or data.min() < 0.0 or data.max() > 1.0):
        raise ValueError("influence entries must lie in [0, 1]: each bounds a Dobrushin influence, a total-variation "
                         "distance")
    edges = sparse.csr_matrix((np.ones(model.neighbors.size), model.neighbors, model.indptr), shape=(p, p))
    off = matrix - matrix.multiply(edges)
    off.eliminate_zeros()
    if off.nnz:
        coo = off.tocoo()
        i, j = int(coo.row[0]), int(coo.col[0])
        raise ValueError(f"influence[{i}, {j}] = {matrix[i, j]:.3g} but variables {i} and {j} are not neighbours in the "
                         "model: the matrix belongs to another model or numbering (with evidence, give the bound of "
                         "the conditioned model)")
    ours = influence_bound(model)
    missing = ours.multiply(ours > 0) - ours.multiply(matrix > 0)
    missing.eliminate_zeros()
    if missing.nnz:
        coo = missing.tocoo()
        i, j = int(coo.row[0]), int(coo.col[0])
        raise ValueError(f"influence[{i}, {j}] is 0 but variables {i} and {j} interact (the package's bound there is "
                         f"{ours[i, j]:.3g}): a zero is no bound on a positive influence")
    return matrix
