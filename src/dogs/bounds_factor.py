r"""Dobrushin influence of a discrete factor graph: exact by blanket enumeration, and a bound proved here.

The model is :math:`\pi(x) \propto \exp \sum_f \theta_f(x_{S_f})` with :math:`\theta_f \in [-\infty, \infty)`
(:class:`dogs.models.factor_graph.DiscreteFactorGraph`). This module computes, for every CSR slot
``(i, j)`` of the model's Markov blankets (``indptr`` / ``neighbors``), a value :math:`\bar C_{ij}` that
bounds the Dobrushin influence (DoGS Definition 6) in the sense Theorem 8 needs; :mod:`dogs.bounds` turns
the values into matrices and chooses between the two methods.

Conditionals and zero entries
-----------------------------
The conditional of ``x_i`` at a configuration ``c`` of its blanket is
:math:`\operatorname{softmax}_k L(c, k)` with :math:`L(c, k) = \sum_{f \ni i} \theta_f(x_i = k, c)`, the
Gibbs kernel's conditional, equal to :math:`\pi(x_i \mid x_{-i})` wherever :math:`\pi(x_{-i}) > 0`. It is
*undefined* where every state has weight 0 (:math:`L(c, \cdot) \equiv -\infty`). Dobrushin's coupling
argument behind Theorem 8 bounds :math:`\|\pi_i(\cdot \mid X) - \pi_i(\cdot \mid Y)\|_{TV}` by
:math:`\sum_j C_{ij} \mathbb 1[X_j \ne Y_j]` along a path from ``X`` to ``Y`` that changes one coordinate at
a time, and that path may cross configurations of probability zero, even undefined ones. So an undefined
conditional is given a fixed extension :math:`\nu` (any distribution, the same at every undefined
configuration of ``i``; the chain never uses it), and for two configurations differing only in ``x_j``
the influence counts

* the TV distance of the two conditionals when both are defined,
* 1 when exactly one is (:math:`\|p - \nu\|_{TV} \le 1` whatever :math:`\nu` is),
* 0 when neither is (both are :math:`\nu`).

Skipping the undefined configurations instead (a maximum over the pairs where both conditionals are
defined) is *not* enough for Theorem 8. Counterexample: three binary variables and one factor with weight
1 at ``(0, 0, 0)`` and ``(1, 1, 1)``, 0 elsewhere. Each variable's conditional is defined only where the
other two agree, no two defined configurations differ in one coordinate, and the skipping maximum is 0
for every pair: Theorem 8 would certify zero bias after one sweep, yet the chain started at ``(0, 0, 0)``
never moves while :math:`\pi` puts 1/2 on ``(1, 1, 1)``. The convention above gives :math:`C_{ij} = 1`
(``tests/test_factor_graph_bounds.py`` checks both). On a model without zero entries every conditional is
defined and the convention is Definition 6 itself.

Exact influence (:func:`exact_slot_values`)
-------------------------------------------
Enumerates the ``N_i`` configurations of each blanket, tabulates :math:`L`, and takes the maximum of the
rule above over all pairs differing in one blanket variable (:mod:`dogs._kernels.factor_influence`, in
parallel over variables). Work and memory grow with :math:`N_i K_i`; :data:`MAX_BLANKET_WORK` is the
default cap (:func:`blanket_work` gives it per variable).

The bound (:func:`bound_slot_values`)
-------------------------------------
Factors with the same set of variables are first added into one (the same distribution; the bound can
only shrink). For a pair ``i != j`` let :math:`S_{ij}` be the factors containing both, and for states
:math:`x \ne y` of ``j``, a factor :math:`f \in S_{ij}` and a configuration ``z`` of its other variables,
let :math:`\delta_f(k) = \theta_f(k, x, z) - \theta_f(k, y, z)` over the states ``k`` of ``i`` where the two
entries are not both :math:`-\infty`, and

.. math::

    \omega_f(x, y) = \max_z \big[\max_k \delta_f(k) - \min_k \delta_f(k)\big], \qquad
    \Omega_{ij}(x, y) = \sum_{f \in S_{ij}} \omega_f(x, y),

with :math:`\omega_f = \infty` if some state has exactly one of its two entries :math:`-\infty` (and 0 if
fewer than two states remain). For a binary ``i`` let :math:`\lambda_f(z) = \theta_f(1, z) - \theta_f(0, z)`
(the factor's part of the log-odds), the intervals :math:`I_f = [\min_z \lambda_f, \max_z \lambda_f]` over
the ``z`` where :math:`\lambda_f` is finite for :math:`f \ni i, f \not\ni j`, and
:math:`J_f(x, y) = [\min_z, \max_z]` of :math:`\tfrac12(\lambda_f(x, z) + \lambda_f(y, z))` over the ``z``
where both are finite for :math:`f \in S_{ij}`; :math:`I_{ij}(x, y) = \sum_{f \not\ni j} I_f +
\sum_{f \in S_{ij}} J_f(x, y)` (Minkowski sum: empty if one term is), and :math:`\mu_{ij}(x, y)` its
distance from 0.

**Theorem.** With the convention above,

.. math::

    C_{ij} \le \max_{x \ne y} \tanh\big(\Omega_{ij}(x, y) / 4\big), \qquad\text{and for binary } i \qquad
    C_{ij} \le \max_{x \ne y} \beta\big(\Omega_{ij}(x, y) / 2,\ \mu_{ij}(x, y)\big),
    \quad \beta(A, \mu) = \frac{\sinh A}{\cosh A + \cosh \mu},

where :math:`\beta = 1` when :math:`\Omega = \infty` and :math:`\beta = 0` when :math:`\Omega < \infty` and
:math:`I_{ij}` is empty. An infinite :math:`\Omega` gives the valid but vacuous bound 1.

*Lemma.* If ``p`` and ``q`` are softmax distributions with logits ``a`` and ``a + d`` (``d`` finite on their
common support), then :math:`\|p - q\|_{TV} \le \tanh(\operatorname{osc}(d) / 4)`,
:math:`\operatorname{osc} = \max - \min`. Proof: the ratios :math:`r_k = q_k / p_k = e^{d_k} / \sum_l p_l
e^{d_l}` lie in :math:`[m, M]` with :math:`M / m = e^s`, :math:`s = \operatorname{osc}(d)`, and
:math:`m \le 1 \le M` since :math:`\sum_k p_k r_k = 1`. With :math:`w = p(r \ge 1)`,
:math:`\|p - q\|_{TV} = \sum_{r_k \ge 1} p_k (r_k - 1) \le (M - 1) w` and also
:math:`= \sum_{r_k < 1} p_k (1 - r_k) \le (1 - m)(1 - w)`; the smaller of the two is at most
:math:`(M - 1)(1 - m) / (M - m)` (their value where they are equal). Put :math:`M = m e^s`: this is
:math:`(e^s + 1 - m e^s - 1/m) / (e^s - 1)`, largest at :math:`m = e^{-s/2}`, where it equals
:math:`(e^{s/2} - 1)^2 / (e^s - 1) = \tanh(s / 4)`. (Two-point distributions attain it.)

*Proof of the theorem.* Fix :math:`x \ne y` and configurations ``X``, ``Y`` differing only in ``x_j``
(:math:`X_j = x, Y_j = y`). Factors without ``j`` add the same to both logit vectors, so
:math:`L_X(k) - L_Y(k) = \sum_{f \in S_{ij}} \delta_f(k)` at the states finite in both. If some state ``k``
is finite in one of :math:`L_X, L_Y` and :math:`-\infty` in the other, some :math:`f \in S_{ij}` has
exactly one of :math:`\theta_f(k, x, z_f), \theta_f(k, y, z_f)` infinite, so :math:`\Omega = \infty`; this
covers every pair where exactly one conditional is defined. Pairs where neither is count 0. Otherwise
both are defined on the same support, which lies inside every factor's set of live states, so the
oscillation of the logit change over the support is at most :math:`\sum_f \omega_f = \Omega` and the
Lemma gives :math:`\tanh(\Omega / 4)`. For binary ``i`` in that last case, either both conditionals are
the same point mass (TV 0) or both log-odds :math:`\ell_X = R + u`, :math:`\ell_Y = R + v` are finite,
with :math:`R = \sum_{f \not\ni j} \lambda_f(z_f)`, :math:`u = \sum_{f \in S_{ij}} \lambda_f(x, z_f)` and
``v`` likewise with ``y``; every term is then finite, so :math:`|u - v| \le \Omega` (for two live states
the oscillation is :math:`|\lambda_f(x, z) - \lambda_f(y, z)|`) and the midpoint :math:`R + (u + v)/2`
lies in :math:`I_{ij}`. With :math:`D = u - v`,

.. math::

    |\sigma(\ell_X) - \sigma(\ell_Y)| = \frac{\sinh(|D| / 2)}{\cosh(D / 2) + \cosh(R + (u + v)/2)},

which increases in :math:`|D|` (its derivative in :math:`t = |D|/2` is :math:`(1 + \cosh t \cosh m) /
(\cosh t + \cosh m)^2 > 0`) and decreases in the distance of the midpoint from 0; so it is at most
:math:`\beta(\Omega / 2, \mu)`. If :math:`I_{ij}` is empty, no such pair has both log-odds finite and
every TV is 0. Since :math:`\beta(A, \mu) \le \beta(A, 0) = \tanh(A / 2)`, the binary form is never
above the general one. :math:`\square`

Special cases. On a pairwise model (scopes of one or two variables) the general form is DoGS Theorem 10
exactly: :math:`S_{ij}` is the one pair table and there is no ``z``. On a binary model in the parity form
of Theorem 12 (:math:`\theta_S \prod_{k \in S} s_k` with spins :math:`s = 2x - 1`, plus fields
:math:`\theta_i s_i`), :math:`\omega_S = 4|\theta_S|`, :math:`J_S = \{0\}` and
:math:`I_S = [-2|\theta_S|, 2|\theta_S|]`, so :math:`\Omega_{ij} = 4 A_{ij}`,
:math:`\mu_{ij} = 2\max(0, |\theta_i| - B_{ij})` and the binary form is
:math:`\sinh(2A_{ij}) / (\cosh(2A_{ij}) + \cosh(2g))`, Theorem 12 with Lemma 14's denominator kept
(:func:`dogs.bounds.influence_higher_order` with ``tight=True``; Theorem 11 on pairwise factors). For
any binary table, :math:`\omega_f` and the intervals lie inside those of the table's own parity expansion, so
the bound never exceeds that form of Theorem 12 applied to the factors expanded one by one. (Expanding
the whole model first lets parity terms of different factors cancel, which the factor-by-factor sums here
do not see; only factors over the same variables are added together.)

Evaluation. :math:`\beta` is computed without overflow from :math:`e^{-2A}` and :math:`e^{-|A - \mu|}`.
:math:`I_{ij}` is formed as the sum over all factors of ``i`` minus the sum over :math:`S_{ij}`, plus
:math:`J`; it is widened by a bound on the rounding of those sums, so rounding never shrinks it. The
tables are processed in groups of equal shape, vectorised, in chunks of at most :data:`CHUNK_ENTRIES`
numbers.
"""

from __future__ import annotations

import numpy as np

from dogs._kernels.factor_influence import exact_factor_influence
from dogs.models.factor_graph import DiscreteFactorGraph

__all__ = ["CHUNK_ENTRIES", "MAX_BLANKET_WORK", "blanket_work", "bound_slot_values", "exact_slot_values",
           "merge_repeated_scopes"]

#: Default cap of the exact influence per variable: blanket configurations times the variable's states
#: (``2**20``: 8 MB of conditional probabilities, a blanket of 19 binary variables around a binary one).
MAX_BLANKET_WORK = 2**20

#: Largest array of differences built at once by :func:`bound_slot_values` (numbers).
CHUNK_ENTRIES = 2**20


# --------------------------------------------------------------------------- exact
def blanket_work(model: DiscreteFactorGraph) -> np.ndarray:
    """Per variable, ``N_i * K_i`` (blanket configurations times states) as a float (no overflow)."""
    card = model.cardinalities.astype(np.float64)
    rows = np.repeat(np.arange(model.n_vars), np.diff(model.indptr))
    log_configs = np.bincount(rows, weights=np.log2(card[model.neighbors]), minlength=model.n_vars)
    return np.exp2(log_configs + np.log2(card))


def exact_slot_values(model: DiscreteFactorGraph, rows: np.ndarray) -> np.ndarray:
    """The exact influence (module docstring) of every slot of the variables ``rows``; other slots are 0."""
    out = np.zeros(model.neighbors.size)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    rows = rows[np.diff(model.indptr)[rows] > 0]
    if rows.size:
        exact_factor_influence(model.cardinalities, model.scope_starts, model.scope_vars, model.table_starts,
                               model.log_values, model.strides, model.factor_indptr, model.factor_ids,
                               model.indptr, model.neighbors, rows, out)
    return out


# --------------------------------------------------------------------------- the bound
def merge_repeated_scopes(model: DiscreteFactorGraph) -> DiscreteFactorGraph:
    """The same distribution with the factors over the same set of variables added into one (``model`` if none)."""
    sizes = np.diff(model.scope_starts)
    if model.n_factors < 2:
        return model
    width = int(sizes.max(initial=0))
    keys = np.full((model.n_factors, width + 1), -1, dtype=np.int64)
    keys[:, 0] = sizes
    owner = np.repeat(np.arange(model.n_factors), sizes)
    column = 1 + np.arange(model.scope_vars.size) - model.scope_starts[owner]
    keys[owner, column] = model.scope_vars
    keys[:, 1:] = -np.sort(-keys[:, 1:], axis=1)  # each scope as a sorted set (padding last)
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    if first.size == model.n_factors:
        return model
    merged: dict[int, tuple] = {}
    for f in range(model.n_factors):
        scope, table = model.scope(f), model.table(f)
        order = np.argsort(scope)
        key = int(inverse[f])
        aligned = np.transpose(table, order)
        merged[key] = (tuple(int(v) for v in scope[order]),
                       aligned if key not in merged else merged[key][1] + aligned)
    factors = [merged[k] for k in sorted(merged)]
    return DiscreteFactorGraph.from_factors(model.cardinalities, factors, kind=model.kind, names=model.names,
                                            state_names=model.state_names)


def _live_oscillation(diff: np.ndarray) -> np.ndarray:
    """``max - min`` over the last axis of differences of log entries: NaN (both ``-inf``) skipped, any ``±inf``
    gives ``inf``, fewer than two finite values give 0."""
    finite = np.isfinite(diff)
    spread = np.where(finite, diff, -np.inf).max(axis=-1) - np.where(finite, diff, np.inf).min(axis=-1)
    spread = np.where(spread < 0, 0.0, spread)  # no finite value: -inf - inf
    return np.where(np.isinf(diff).any(axis=-1), np.inf, spread)


def _finite_range(values: np.ndarray, axis: int):
    """``(lo, hi, empty)`` of the finite entries along ``axis`` (``lo = hi = 0`` where there are none)."""
    finite = np.isfinite(values)
    empty = ~finite.any(axis=axis)
    lo = np.where(finite, values, np.inf).min(axis=axis)
    hi = np.where(finite, values, -np.inf).max(axis=axis)
    return np.where(empty, 0.0, lo), np.where(empty, 0.0, hi), empty


def _shape_groups(model: DiscreteFactorGraph):
    """``(shape, factors)`` for every distinct table shape with a non-empty scope."""
    sizes = np.diff(model.scope_starts)
    width = int(sizes.max(initial=0))
    shapes = np.zeros((model.n_factors, width + 1), dtype=np.int64)
    shapes[:, 0] = sizes
    owner = np.repeat(np.arange(model.n_factors), sizes)
    shapes[owner, 1 + np.arange(model.scope_vars.size) - model.scope_starts[owner]] = (
        model.cardinalities[model.scope_vars])
    unique, inverse = np.unique(shapes, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    for g, row in enumerate(unique):
        if row[0] > 0:
            yield tuple(int(k) for k in row[1:1 + row[0]]), np.flatnonzero(inverse == g)


def beta(a: np.ndarray, mu: np.ndarray) -> np.ndarray:
    r""":math:`\sinh a / (\cosh a + \cosh \mu)` for :math:`a \in [0, \infty]`, finite :math:`\mu \ge 0`, without overflow."""
    a, mu = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(mu, dtype=np.float64))
    gap = np.exp(-np.abs(a - mu))  # 0 when a is infinite
    up = -np.expm1(-2.0 * a)  # 1 - e^{-2a}
    down = 1.0 + np.exp(-2.0 * a)
    tail = 1.0 + np.exp(-2.0 * mu)
    return np.where(a >= mu, up / (down + gap * tail), gap * up / (gap * down + tail))


def bound_slot_values(model: DiscreteFactorGraph, *, fields: bool = True, rows=None) -> np.ndarray:
    """The bound of the module docstring's theorem for every slot of ``model`` (the binary form on rows of binary
    variables when ``fields``, the general form elsewhere); with ``rows`` (a boolean mask over the variables), for
    the slots of those variables only (the others are 0)."""
    graph = merge_repeated_scopes(model)
    p, card = graph.n_vars, graph.cardinalities
    wanted = np.ones(p, dtype=bool) if rows is None else np.asarray(rows, dtype=bool)
    n_slots = graph.neighbors.size
    slot_rows = np.repeat(np.arange(p, dtype=np.int64), np.diff(graph.indptr))
    slot_keys = slot_rows * p + graph.neighbors
    k_j = card[graph.neighbors]
    offsets = np.concatenate([[0], np.cumsum(k_j * k_j)])
    omega = np.zeros(offsets[-1])
    binary = fields and bool(np.any(card[wanted] == 2))
    if binary:
        mid_lo, mid_hi, mid_scale = (np.zeros(offsets[-1]) for _ in range(3))
        mid_empty = np.zeros(offsets[-1], dtype=np.int64)
        sub_lo, sub_hi = np.zeros(n_slots), np.zeros(n_slots)
        sub_empty = np.zeros(n_slots, dtype=np.int64)
        tot_lo, tot_hi, tot_scale = np.zeros(p), np.zeros(p), np.zeros(p)
        tot_empty, tot_count = np.zeros(p, dtype=np.int64), np.zeros(p, dtype=np.int64)
    for shape, members in _shape_groups(graph):
        size = int(np.prod(shape))
        chunk = max(1, CHUNK_ENTRIES // size)
        for start in range(0, members.size, chunk):
            fs = members[start:start + chunk]
            scopes = graph.scope_vars[graph.scope_starts[fs][:, None] + np.arange(len(shape))]
            keep = wanted[scopes].any(axis=1)
            fs, scopes = fs[keep], scopes[keep]
            n = fs.size
            if n == 0:
                continue
            tables = graph.log_values[graph.table_starts[fs][:, None] + np.arange(size)].reshape((n, *shape))
            odds = {}  # position a -> (lo, hi, empty) of the factor's log-odds range, for binary positions
            for a, k_a in enumerate(shape):
                if binary and k_a == 2:
                    with np.errstate(invalid="ignore"):
                        lam = (tables.take(1, axis=1 + a) - tables.take(0, axis=1 + a)).reshape(n, -1)
                    odds[a] = lo, hi, empty = _finite_range(lam, axis=1)
                    i = scopes[:, a]
                    np.add.at(tot_lo, i, lo)
                    np.add.at(tot_hi, i, hi)
                    np.add.at(tot_scale, i, np.abs(lo) + np.abs(hi))
                    np.add.at(tot_empty, i, empty)
                    np.add.at(tot_count, i, 1)
            for a, b in ((a, b) for a in range(len(shape)) for b in range(len(shape)) if a != b):
                on = wanted[scopes[:, a]]
                if not on.any():
                    continue
                k_i, k_b = shape[a], shape[b]
                slots = np.searchsorted(slot_keys, scopes[on, a] * p + scopes[on, b])
                # (factor, state of j, other variables z, state of i): i last, for fast reductions over it
                moved = np.moveaxis(tables[on], (1 + b, 1 + a), (1, -1)).reshape(slots.size, k_b, -1, k_i)
                if a in odds:
                    with np.errstate(invalid="ignore"):
                        lam = moved[..., 1] - moved[..., 0]  # (factor, state of j, z): NaN or inf unless finite
                    f_lo, f_hi, f_empty = (values[on] for values in odds[a])
                    np.add.at(sub_lo, slots, f_lo)
                    np.add.at(sub_hi, slots, f_hi)
                    np.add.at(sub_empty, slots, f_empty)
                for x in range(k_b):  # the cells (x, y) for every y at once
                    cells = offsets[slots][:, None] + x * k_b + np.arange(k_b)
                    with np.errstate(invalid="ignore"):
                        diff = moved[:, x:x + 1] - moved  # (factor, y, z, state of i)
                    np.add.at(omega, cells, _live_oscillation(diff).max(axis=-1))
                    if a in odds:
                        with np.errstate(invalid="ignore"):
                            mid = 0.5 * (lam[:, x:x + 1] + lam)  # (factor, y, z), finite where both are
                        lo, hi, empty = _finite_range(mid, axis=-1)
                        np.add.at(mid_lo, cells, lo)
                        np.add.at(mid_hi, cells, hi)
                        np.add.at(mid_scale, cells, np.abs(lo) + np.abs(hi))
                        np.add.at(mid_empty, cells, empty)
    cell_slot = np.repeat(np.arange(n_slots), k_j * k_j)
    values = np.tanh(omega / 4.0)
    if binary:
        cell_rows = slot_rows[cell_slot]
        on = (card[cell_rows] == 2) & wanted[cell_rows]
        r, s = cell_rows[on], cell_slot[on]
        m_lo = (tot_lo[r] - sub_lo[s]) + mid_lo[on]
        m_hi = (tot_hi[r] - sub_hi[s]) + mid_hi[on]
        slack = 4.0 * np.finfo(np.float64).eps * (tot_count[r] + 2) * (tot_scale[r] + mid_scale[on])
        mu = np.maximum(0.0, np.maximum(m_lo - slack, -(m_hi + slack)))
        empty = (tot_empty[r] - sub_empty[s] + mid_empty[on]) > 0
        w = omega[on]
        values[on] = np.where(np.isinf(w), 1.0, np.where(empty, 0.0, beta(w / 2.0, mu)))
    if n_slots == 0:
        return np.zeros(0)
    return np.where(wanted[slot_rows], np.maximum.reduceat(values, offsets[:-1]), 0.0)
