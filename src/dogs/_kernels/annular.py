r"""numba kernels for annular augmentation sampling of binary pairwise MRFs (Fagan, Bhandari & Cunningham 2017).

Target ``p(s) = f(s) / Z`` with ``log f(s) = sum_{i<j} theta_ij s_i s_j + sum_i h_i s_i`` on
``s in {-1, +1}^d``, written as ``p(s) ∝ L(s) p̂(s)`` with a factorised prior
``p̂(s) = prod_i p̂_i(s_i)`` and the "likelihood" ``L = f / p̂`` (paper §2). All positions on the
annulus are measured in turns (fractions of the circle, ``[0, 1)``), and the rotation invariance of
the augmentation puts the current angle at ``theta = 0`` at the start of every iteration (§2.3).

One iteration (:func:`annular_chain`)
-------------------------------------
**Operator 1 (thresholds).** Walking around the circle from ``0`` each coordinate flips twice; the
kernel only needs the *order* of the ``2d`` flips, the arc lengths between them, and for each
coordinate ``i`` the two steps ``a_i < b_i`` (in ``0..2d-1``) at which it flips.

- *Lattice variant* (uniform prior, ``lattice=True``): thresholds on the lattice of spacing
  ``1/(2d)`` turn, so the ``2d`` arcs all have length ``1/(2d)`` (``pi/d`` radians). A coordinate's
  two flips are half a turn apart; the operator draws a uniformly random permutation ``k`` of the
  coordinates (Fisher-Yates on a permutation carried from iteration to iteration: for
  ``i = d-1, ..., 1``, ``j = floor(u (i+1))``, swap entries ``i`` and ``j``; ``d - 1`` uniforms), and
  the flip order is ``k(1), ..., k(d), k(1), ..., k(d)``. Given the spins, the permutation is the
  only free part of the thresholds, so a uniform permutation is the exact conditional draw.
- *Stretched variant* (mean-field prior, ``lattice=False``; the paper's eq. 2 and Algorithm 1):
  coordinate ``i`` keeps its current sign on an arc of ``p̂_i(s_i)`` turns containing ``0``, at a
  uniform position (``t_i`` uniform in a bracket of half-width ``pi p̂(s_i)`` around the current
  side). With one uniform ``u_i`` per coordinate (``i = 0..d-1`` in order) the first flip of ``i``
  is at ``alpha_i = p̂_i(s_i) u_i`` and the second at ``beta_i = alpha_i + p̂_i(-s_i)``. The ``2d``
  positions are sorted (ascending, ties by index: a counting sort into ``2d`` buckets finished by
  an insertion sort); the arc of annulus point ``k >= 1`` runs from the
  ``k``-th to the ``(k+1)``-th sorted position, and the arc of point ``0`` (the current state)
  wraps through ``0``.

**The annulus points.** Point ``0`` is the current state; point ``k + 1`` is point ``k`` with the
``k``-th flip applied (``k = 0..2d-2``). Each new point's log-likelihood is the previous one plus ONE
single-flip difference,

.. math::

    \log L(s^{(i)}) - \log L(s) = \Delta_i(s) + s_i \log\frac{\hat p_i(+1)}{\hat p_i(-1)},
    \qquad \Delta_i(s) = -2 s_i \Big(h_i + \sum_{k \in N(i)} \theta_{ik} s_k\Big),

so an iteration makes exactly ``2d - 1`` density evaluations (the ``2d``-th flip returns to point
``0``, whose value is known). Values are kept relative to point ``0`` (``log L = 0`` there). In the
lattice variant the prior is uniform and the log-odds are zero.

**Operator 2** (``operator``), from interval weights ``w_k = l_k L(s_k)`` (arc length times
likelihood, which in the lattice variant is ``∝ f(s_k)``), computed as
``l_k exp(log L(s_k) - max_m log L(s_m))`` (``l_k = 1`` in the lattice variant):

- ``GIBBS`` (AAG, §2.3): next point ``k`` with probability ``w_k / sum w``.
- ``SLICE`` (AAS, Neal 2003 on the circle): one uniform ``u`` gives the level
  ``log y = log(1 - u) + log L(s_0)`` (``1 - u`` is uniform on ``(0, 1]``); the slice is the union of
  the arcs with ``log L(s_k) >= log y`` (it always holds point ``0``) and the next angle is uniform on
  it, i.e. point ``k`` of the slice with probability ``∝ l_k``. In the lattice variant all arcs are
  equal, so this is a uniform choice among the points above the level, as the authors implemented it.
- ``SUWA_TODO`` (AAST): the Suwa-Todo (2010) weight allocation on the ``2d`` intervals in annulus
  order rotated so that a largest weight comes first (positions ``1..n``; the first point, in
  annulus order from the current one, whose weight is within a relative ``MAX_TIE_TOLERANCE = 1e-9``
  of the maximum, so that rounding in the weights of tied points cannot change the choice): with
  ``S_j = w_1 + ... + w_j`` and ``S_0 = S_n``, the flow from ``i`` to ``j`` is
  ``v_ij = max(0, min(D_ij, w_i + w_j - D_ij, w_i, w_j))``, ``D_ij = S_i - S_{j-1} + w_1``, and the
  move ``i -> j`` has probability ``v_ij / w_i``. This is the picture of the ``n`` blocks laid on a
  circle of circumference ``S_n`` and shifted by ``w_1 = max w``: the kernel depends only on the
  cyclic order and the shift, so it is the same whichever of several tied maxima is put first
  (tested): the move is a function of the thresholds alone, as invariance needs. Balance
  ``sum_i v_ij = w_j`` (and ``sum_j v_ij = w_i``) holds for any starting point; putting a maximum
  first is what minimises the rejection ``v_ii`` (so a start within ``1e-9`` of the maximum changes
  nothing but a ``1e-9``-relative amount of rejection). The move is ``w``-invariant, not reversible. *Fallback*, as the authors'
  code: when the current point's normalised weight ``w_0 / sum w`` is ``<= fallback`` (``1e-5`` in
  the paper's runs) the move uses the Gibbs probabilities instead (also when the computed flow out of
  ``0`` is not positive). ``v_0j / w_0`` loses relative precision as ``w_0`` shrinks, which is what
  the fallback avoids; its price is that the mixed kernel is ``w``-invariant only up to the
  normalised weight of the points below the threshold (at most ``2d * fallback`` in total variation
  per iteration); ``fallback = 0`` gives the exact Suwa-Todo move.

Every operator then draws its selection uniform ``u'`` and takes the first point (Gibbs and slice:
in annulus order ``0..2d-1``; Suwa-Todo: in the rotated order) whose running sum of probabilities
(unnormalised, summed left to right) exceeds ``u'`` times their total (if rounding leaves none, the
last point with a positive probability). The chain moves to that point; the state after the
iteration is recorded.

Uniforms per iteration, in order: Operator 1 (``d - 1`` lattice or ``d`` stretched), the slice
level (slice only), the selection uniform. A plain-Python reference replays them from
:func:`dogs._kernels.rng.uniform_stream`.

Rao-Blackwellisation (``rao_blackwell=True``; §2.3, Douc & Robert 2011)
----------------------------------------------------------------------
Each iteration adds ``sum_k r_k g(s_k)`` for ``g`` = the indicator of ``s_i = +1`` (every ``i``), the
four cells of every requested edge table and, with a ``delta`` form ``q``, the term
``log sum_k r_k exp q(s_k)`` of a running log-sum-exp (log space; the estimate of ``log E_p[exp q]``
is the final sum minus ``log N``). The normalised ``r_k`` are

- Gibbs: the Gibbs probabilities ``w_k / sum w`` (the paper's ``r_k``, Algorithm 1);
- slice: the slice probabilities (``∝ l_k`` on the points above the level, 0 elsewhere), i.e. the
  average over the accepted points, as the authors did; this is ``E[g(next) | thresholds, level]``;
- Suwa-Todo: the Gibbs probabilities ``w_k / sum w``, not the Suwa-Todo row. Both are unbiased at
  stationarity (the Gibbs ones are ``E[g(s) | thresholds]``, the row is
  ``E[g(next) | thresholds, current point]``), and the Gibbs ones are the conditional expectation of
  the row given the thresholds, so their variance is never larger; the same ``r_k`` are used for the
  node marginals, the edge tables and the log-ratio (the authors' code mixed the two).

Since coordinate ``i`` differs from point ``0`` exactly on the points ``a_i < k <= b_i``, the node and
edge sums come from prefix sums of ``r`` in ``O(d + E)`` per iteration (the edge ``(i, j)`` needs the
mass of the overlap of two index ranges). ``q`` is evaluated absolutely at point ``0`` once per
iteration and then by single-flip differences of ``q`` along the annulus (these are not counted as
density evaluations of the target). When ``q`` lives on the model's own neighbour lists (the inner runs of
the Boltzmann-machine chains) the two flip differences come from one pass over the row, each summed in the
same order as alone, so the numbers are bit-identical to two passes (1.8x faster at ``d = 50``).

Everything is private and takes arrays and scalars only; the public wrapper is
:func:`dogs.samplers.annular.annular_sampler`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from dogs._kernels.metropolis import flip_delta
from dogs._kernels.rng import uniform_from_bits, xoshiro_next

__all__ = [
    "GIBBS",
    "MAX_TIE_TOLERANCE",
    "SLICE",
    "SUWA_TODO",
    "annular_chain",
    "annular_chains",
    "suwa_todo_choice",
    "suwa_todo_flows",
]

GIBBS = 0
SLICE = 1
SUWA_TODO = 2
#: Suwa-Todo: weights within this relative distance of the largest count as tied for "largest first".
MAX_TIE_TOLERANCE = 1e-9


@njit(inline="always", cache=True)
def _flip_deltas(indptr, neighbors, coupling, h, d_coupling, d_h, spins, i):
    """:func:`~dogs._kernels.metropolis.flip_delta` of the model and of ``q`` at once, for a ``q`` on the model's own
    neighbour lists.

    One pass over the row: each neighbour's spin is read once for both sums; each sum is formed in the order
    of ``flip_delta``, so both values are bit-identical to two separate calls.
    """
    site = np.uint64(i)
    field = h[site]
    d_field = d_h[site]
    slot, stop = np.uint64(indptr[site]), np.uint64(indptr[site + np.uint64(1)])
    while slot < stop:
        spin = spins[np.uint64(neighbors[slot])]
        field += coupling[slot] * spin
        d_field += d_coupling[slot] * spin
        slot += np.uint64(1)
    return -2.0 * spins[site] * field, -2.0 * spins[site] * d_field


@njit(cache=True)
def _same_graph(indptr, neighbors, d_indptr, d_neighbors):
    """Whether two CSR neighbour lists are the same (then ``q``'s flip differences ride on the model's pass)."""
    if indptr.size != d_indptr.size or neighbors.size != d_neighbors.size:
        return False
    for k in range(indptr.size):
        if indptr[k] != d_indptr[k]:
            return False
    for k in range(neighbors.size):
        if neighbors[k] != d_neighbors[k]:
            return False
    return True


@njit(cache=True)
def _log_potential(indptr, neighbors, coupling, h, spins):
    """``sum_{i<j} theta_ij s_i s_j + sum_i h_i s_i`` from the CSR lists (each edge appears twice there)."""
    pair = 0.0
    unary = 0.0
    for i in range(spins.size):
        si = spins[i]
        unary += h[i] * si
        slot, stop = np.uint64(indptr[i]), np.uint64(indptr[i + 1])
        while slot < stop:  # unsigned indices: no negative-index fix-ups; the same order of terms
            pair += coupling[slot] * si * spins[np.uint64(neighbors[slot])]
            slot += np.uint64(1)
    return unary + 0.5 * pair


@njit(cache=True)
def suwa_todo_flows(weights, start, current, flows):
    """Suwa-Todo flows out of ``current`` for ``weights`` read cyclically from ``start`` (a largest weight).

    ``weights`` (n,) non-negative, in annulus order. In the rotated order ``r = (k - start) mod n``
    (positions ``1..n`` of the formula) writes ``flows[k] = v_{current, k}`` (module docstring);
    returns their sum (``w_current`` up to rounding).
    """
    n = weights.size
    w_first = weights[start]
    # one pass in rotated order (index k wraps without a modulo): S_i of the current point and S_n
    s_i = 0.0
    s_n = 0.0
    k = start
    for r in range(n):
        s_n += weights[k]
        if k == current:
            s_i = s_n
        k += 1
        if k == n:
            k = 0
    w_i = weights[current]
    total = 0.0
    s_prev = 0.0  # S_{j-1}; S_0 = S_n for the first position
    k = start
    for r in range(n):
        w_j = weights[k]
        d_ij = s_i - (s_n if r == 0 else s_prev) + w_first
        v = min(d_ij, w_i + w_j - d_ij)
        v = min(v, w_i)
        v = min(v, w_j)
        v = max(v, 0.0)
        flows[k] = v
        total += v
        s_prev += w_j
        k += 1
        if k == n:
            k = 0
    return total


@njit(cache=True)
def suwa_todo_choice(weights, current, flows, u, fallback, gibbs_total):
    """Next point of the Suwa-Todo move from ``current`` with selection uniform ``u`` (module docstring).

    ``gibbs_total`` is ``sum(weights)``. Falls back to the Gibbs choice when
    ``weights[current] / gibbs_total <= fallback`` or the flow out of ``current`` is not positive.
    """
    n = weights.size
    top = 0.0
    for k in range(n):
        if weights[k] > top:
            top = weights[k]
    start = 0
    while weights[start] < top * (1.0 - MAX_TIE_TOLERANCE):
        start += 1
    use_gibbs = weights[current] <= fallback * gibbs_total
    total = 0.0
    if not use_gibbs:
        total = suwa_todo_flows(weights, start, current, flows)
        use_gibbs = not total > 0.0
    if use_gibbs:
        return _choose(weights, gibbs_total, u)
    target = u * total
    running = 0.0
    last = -1
    k = start
    for r in range(n):
        running += flows[k]
        if flows[k] > 0.0:
            last = k
        if target < running:
            return k
        k += 1
        if k == n:
            k = 0
    return last


@njit(cache=True)
def _bucket_argsort(keys, ranked, sorted_keys, counts):
    """Sort ``keys`` (values in ``[0, 1]``) ascending, ties by index: ``ranked`` gets the indices, ``sorted_keys`` the keys.

    Counting sort into ``n`` equal buckets, then an insertion sort of the (nearly sorted) result:
    ``O(n)`` for spread-out keys, ``O(n^2)`` at worst (all keys in one bucket). ``counts`` is an
    ``(n + 1,)`` int64 work array.
    """
    n = keys.size
    for b in range(n + 1):
        counts[b] = 0
    for k in range(n):
        b = min(np.int64(keys[k] * n), n - 1)
        counts[b + 1] += 1
    for b in range(n):
        counts[b + 1] += counts[b]
    for k in range(n):
        b = min(np.int64(keys[k] * n), n - 1)
        slot = counts[b]
        ranked[slot] = k
        sorted_keys[slot] = keys[k]
        counts[b] = slot + 1
    for r in range(1, n):
        idx = ranked[r]
        key = sorted_keys[r]
        m = r - 1
        while m >= 0 and (sorted_keys[m] > key or (sorted_keys[m] == key and ranked[m] > idx)):
            ranked[m + 1] = ranked[m]
            sorted_keys[m + 1] = sorted_keys[m]
            m -= 1
        ranked[m + 1] = idx
        sorted_keys[m + 1] = key


@njit(inline="always", cache=True)
def _choose(weights, total, u):
    """First ``k`` (annulus order) whose running weight sum exceeds ``u * total``; rounding guard: last positive."""
    target = u * total
    running = 0.0
    last = -1
    for k in range(weights.size):
        running += weights[k]
        if weights[k] > 0.0:
            last = k
        if target < running:
            return k
    return last


@njit(cache=True)
def annular_chain(model, prior, operator, fallback, spins, rng_state, samples, rao_blackwell, rb_edges, node_acc,
                  edge_acc, with_delta, delta, log_ratio_acc):
    """Run one chain for ``samples.shape[0]`` annular iterations in place (module docstring).

    Parameters
    ----------
    model : tuple ``(indptr, neighbors, coupling, h)``
        The CSR model arrays (int64, int64, float64, float64), as the Gibbs kernels take the graph.
    prior : tuple ``(prior_current, log_odds, lattice)``
        ``prior_current`` (2, d) float64: ``prior_current[0, i] = p̂_i(-1)``, ``prior_current[1, i] = p̂_i(+1)``
        (stretched variant only); ``log_odds`` (d,) float64: ``log p̂_i(+1) - log p̂_i(-1)`` (zeros for the
        lattice variant); ``lattice`` bool: lattice variant (uniform prior) or stretched variant.
    operator : int
        :data:`GIBBS`, :data:`SLICE` or :data:`SUWA_TODO`.
    fallback : float
        Suwa-Todo fallback threshold on the current point's normalised weight.
    spins : (d,) int8
        Current state, advanced in place.
    rng_state : (4,) uint64
        xoshiro256** state, advanced in place.
    samples : (N, d) int8
        Receives the state after every iteration; ``N`` is the number of iterations.
    rao_blackwell : bool
        Accumulate the Rao-Blackwellised sums.
    rb_edges : (E, 2) int64
        Edges whose tables are accumulated.
    node_acc : (d,) float64, edge_acc : (E, 2, 2) float64
        Sums over iterations of the RB node marginals ``p(s_i = +1)`` and edge tables (added to).
    with_delta : bool
        Whether a ``delta`` form is given (``delta``; ignored otherwise).
    delta : tuple ``(indptr, neighbors, coupling, h)``
        The CSR arrays of the quadratic form ``q`` (a placeholder when ``with_delta`` is False).
    log_ratio_acc : (1,) float64
        Running ``log sum_n (sum_k r_k exp q(s_k))``; start it at ``-inf``.

    Returns
    -------
    int
        Density evaluations made: ``(2d - 1)`` per iteration.
    """
    indptr, neighbors, coupling, h = model
    d_indptr, d_neighbors, d_coupling, d_h = delta
    prior_current, log_odds, lattice = prior
    d = spins.size
    n = 2 * d
    n_iterations = samples.shape[0]
    s0, s1, s2, s3 = rng_state[0], rng_state[1], rng_state[2], rng_state[3]
    perm = np.arange(d)
    order = np.empty(n, dtype=np.int64)  # order[k]: coordinate of the k-th flip
    first = np.empty(d, dtype=np.int64)  # a_i
    second = np.empty(d, dtype=np.int64)  # b_i
    keys = np.empty(n, dtype=np.float64)
    ranked = np.empty(n, dtype=np.int64)
    counts = np.empty(n + 1, dtype=np.int64)
    sorted_keys = np.empty(n, dtype=np.float64)
    arc = np.ones(n, dtype=np.float64)
    log_l = np.empty(n, dtype=np.float64)
    weights = np.empty(n, dtype=np.float64)
    rb_w = np.empty(n, dtype=np.float64)
    flows = np.empty(n, dtype=np.float64)
    prefix = np.empty(n + 1, dtype=np.float64)
    q_vals = np.empty(n, dtype=np.float64)
    moved = np.empty(d, dtype=np.float64)
    walk = np.empty(d, dtype=np.int8)
    with_q = with_delta and rao_blackwell  # q is evaluated along the annulus only for the RB log-ratio
    fused = with_q and _same_graph(indptr, neighbors, d_indptr, d_neighbors)
    evaluations = 0
    for it in range(n_iterations):
        # ---------------------------------------------------------------- Operator 1
        if lattice:
            for i in range(d - 1, 0, -1):
                bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
                j = np.int64(uniform_from_bits(bits) * (i + 1))
                tmp = perm[i]
                perm[i] = perm[j]
                perm[j] = tmp
            for k in range(d):
                c = perm[k]
                order[k] = c
                order[k + d] = c
                first[c] = k
                second[c] = k + d
        else:
            for i in range(d):
                bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
                side = 1 if spins[i] > 0 else 0
                alpha = prior_current[side, i] * uniform_from_bits(bits)
                keys[i] = alpha
                keys[d + i] = alpha + prior_current[1 - side, i]
            _bucket_argsort(keys, ranked, sorted_keys, counts)
            for r in range(n):
                idx = ranked[r]
                if idx < d:
                    order[r] = idx
                    first[idx] = r
                else:
                    order[r] = idx - d
                    second[idx - d] = r
            arc[0] = sorted_keys[0] + (1.0 - sorted_keys[n - 1])
            for r in range(1, n):
                arc[r] = sorted_keys[r] - sorted_keys[r - 1]
        # ---------------------------------------------------------------- walk around the annulus
        for i in range(d):
            walk[i] = spins[i]
        log_l[0] = 0.0
        if with_q:
            q_vals[0] = _log_potential(d_indptr, d_neighbors, d_coupling, d_h, walk)
        for k in range(n - 1):
            i = order[k]
            if fused:
                delta, q_delta = _flip_deltas(indptr, neighbors, coupling, h, d_coupling, d_h, walk, i)
                q_vals[k + 1] = q_vals[k] + q_delta
            else:
                delta = flip_delta(indptr, neighbors, coupling, h, walk, i)
                if with_q:
                    q_vals[k + 1] = q_vals[k] + flip_delta(d_indptr, d_neighbors, d_coupling, d_h, walk, i)
            log_l[k + 1] = log_l[k] + (delta + walk[i] * log_odds[i])
            walk[i] = -walk[i]
        evaluations += n - 1
        # ---------------------------------------------------------------- Operator 2
        gibbs_total = 0.0
        if operator != SLICE:  # interval weights w_k = l_k L(s_k), scaled so that max w = 1
            top = -math.inf
            for k in range(n):
                if log_l[k] > top:
                    top = log_l[k]
            for k in range(n):
                weights[k] = arc[k] * math.exp(log_l[k] - top)
                gibbs_total += weights[k]
        if operator == SLICE:
            bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
            level = math.log(1.0 - uniform_from_bits(bits))
            slice_total = 0.0
            for k in range(n):
                rb_w[k] = arc[k] if log_l[k] >= level else 0.0
                slice_total += rb_w[k]
            bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
            chosen = _choose(rb_w, slice_total, uniform_from_bits(bits))
        elif operator == SUWA_TODO:
            bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
            chosen = suwa_todo_choice(weights, 0, flows, uniform_from_bits(bits), fallback, gibbs_total)
        else:
            bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
            chosen = _choose(weights, gibbs_total, uniform_from_bits(bits))
        # ---------------------------------------------------------------- Rao-Blackwellised sums
        if rao_blackwell:
            rb = rb_w if operator == SLICE else weights
            prefix[0] = 0.0
            for k in range(n):
                prefix[k + 1] = prefix[k] + rb[k]
            total = prefix[n]
            inv_total = 1.0 / total
            for i in range(d):
                mass = prefix[second[i] + 1] - prefix[first[i] + 1]
                moved[i] = mass
                node_acc[i] += ((total - mass) if spins[i] > 0 else mass) * inv_total
            for e in range(rb_edges.shape[0]):
                i = rb_edges[e, 0]
                j = rb_edges[e, 1]
                lo = max(first[i], first[j]) + 1
                hi = min(second[i], second[j])
                both = prefix[hi + 1] - prefix[lo] if lo <= hi else 0.0
                a = 1 if spins[i] > 0 else 0
                b = 1 if spins[j] > 0 else 0
                edge_acc[e, a, b] += (total - moved[i] - moved[j] + both) * inv_total
                edge_acc[e, 1 - a, b] += (moved[i] - both) * inv_total
                edge_acc[e, a, 1 - b] += (moved[j] - both) * inv_total
                edge_acc[e, 1 - a, 1 - b] += both * inv_total
            if with_delta:
                q_top = -math.inf
                for k in range(n):
                    if rb[k] > 0.0 and q_vals[k] > q_top:
                        q_top = q_vals[k]
                acc = 0.0
                for k in range(n):
                    if rb[k] > 0.0:
                        acc += rb[k] * math.exp(q_vals[k] - q_top)
                term = q_top + math.log(acc) - math.log(total)
                running = log_ratio_acc[0]
                if running == -math.inf:
                    log_ratio_acc[0] = term
                else:
                    big = max(running, term)
                    log_ratio_acc[0] = big + math.log1p(math.exp(-abs(running - term)))
        # ---------------------------------------------------------------- move to the chosen point
        for i in range(d):
            if first[i] < chosen and chosen <= second[i]:
                spins[i] = -spins[i]
        for i in range(d):
            samples[it, i] = spins[i]
    rng_state[0], rng_state[1], rng_state[2], rng_state[3] = s0, s1, s2, s3
    return evaluations


@njit(parallel=True, cache=True)
def annular_chains(model, prior, operator, fallback, spins, rng_states, samples, rao_blackwell, rb_edges, node_acc,
                   edge_acc, with_delta, delta, log_ratio_acc, evaluations):
    """Independent chains in parallel (``prange``); row ``c`` of every per-chain array belongs to chain ``c``.

    ``spins`` (C, d), ``rng_states`` (C, 4), ``samples`` (C, N, d), ``node_acc`` (C, d),
    ``edge_acc`` (C, E, 2, 2), ``log_ratio_acc`` (C, 1), ``evaluations`` (C,) int64 (written).
    See :func:`annular_chain`.
    """
    for c in prange(spins.shape[0]):
        evaluations[c] = annular_chain(
            model, prior, operator, fallback, spins[c], rng_states[c], samples[c], rao_blackwell, rb_edges,
            node_acc[c], edge_acc[c], with_delta, delta, log_ratio_acc[c],
        )
