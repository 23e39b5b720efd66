r"""numba kernels for coordinate Metropolis-Hastings on binary pairwise MRFs (one chain per call).

Target: ``p(s) ∝ exp(sum_{i<j} theta_ij s_i s_j + sum_i h_i s_i)`` on ``s in {-1, +1}^d`` (each edge
once). Every kernel evaluates single-flip log-density differences from the local field,

.. math::

    f_i = h_i + \sum_{k \in N(i)} \theta_{ik} s_k, \qquad
    \Delta_i = \log p(s^{(i)}) - \log p(s) = -2 s_i f_i,

accumulated left to right (``h[i]`` first, then the CSR slots of ``i`` in order), and counts every
such evaluation. Uniforms come from the per-chain xoshiro256** stream of :mod:`dogs._kernels.rng`
in the order stated for each kernel, so a plain-Python reference that reads
:func:`dogs._kernels.rng.uniform_stream` replays a kernel bit for bit. :func:`cmh_chain` sums every field once
and then keeps them, updating the neighbours' after each accepted flip (:func:`flip_and_update`): its
``Delta_i`` differ from the fresh sums by rounding only, so it replays its reference decision for decision
unless a uniform lies within about ``1e-15`` of ``exp(Delta_i)``.

Kernels
-------
:func:`cmh_chain` (coordinate MH). Per proposal: index uniform ``u1`` gives ``i = floor(u1 d)``;
acceptance uniform ``u2``; flip iff ``Delta_i >= 0`` or ``u2 < exp(Delta_i)`` (the ``exp`` is skipped
when it cannot matter: ``u2 < 1 <= exp(Delta_i)``). The state is recorded after every
``per_sample`` proposals.

:func:`cmh_lbp_steps` (coordinate MH with a factorised proposal, step by step). The flip propensity
of site ``j`` is ``w_j(s) = q(-s_j)``, the prior probability of the *opposite* spin
(``q(+1) = prior_plus[j]``, ``q(-1) = prior_minus[j]``). Per step: ``i = floor(u1 d)``; proposal
uniform ``u2``; if ``u2 < w_i(s)`` a flip is proposed: evaluate ``Delta_i``, acceptance uniform
``u3``, flip iff ``u3 < exp(Delta_i + s_i logit_i)`` with ``logit_i = log q(+1) - log q(-1)`` (the
proposal ratio ``q(s_i) / q(-s_i)``); otherwise the step holds. Recorded every ``per_sample`` steps.

:func:`cmh_lbp_events` (the same chain, discrete-event form). On the step axis above, a flip is
proposed at each step independently with probability ``alpha(s) = sum_j w_j(s) / d`` while the state
is ``s``, and, given that it is, site ``i`` with probability ``w_i(s) / sum_j w_j(s)``. So from step
``t`` the next proposal happens at step ``t + G``, ``G ~ Geometric(alpha)`` on ``{1, 2, ...}``; a
rejected proposal leaves ``s`` (hence ``alpha``) unchanged and by memorylessness a fresh ``G`` is
drawn from the proposal step. Per event: geometric uniform ``u1`` (drawn even when ``alpha = 1``),
``G = 1 + floor(r)`` with ``r = log1p(-u1) / log1p(-alpha)`` (``r = 0`` when ``alpha >= 1``); if step
``t + G`` lies beyond the run (``not r < steps left``, which also catches an infinite ``r``), stop; every
checkpoint ``c < t + G`` records the current state; then selection uniform ``u2`` picks the first
``i`` whose running sum of ``w`` exceeds ``u2 * W`` (``W`` = the same left-to-right sum; if rounding
leaves none, the last ``i`` with ``w_i > 0``); evaluate ``Delta_i``; acceptance uniform ``u3`` with the
rule above; after an accepted flip ``w_i`` and ``W`` are recomputed. Remaining checkpoints record the
final state; once every propensity is 0 the chain is frozen and no further uniform is drawn.
The recorded sequence has exactly the law of :func:`cmh_lbp_steps`; only flips are simulated.

:func:`cmh_lbp_proposals` (the same chain run for a fixed number of *proposed flips*, the budget of the
annular-augmentation authors' discrete-event sampler, instead of a fixed number of steps). Per event,
with the same uniforms and rules as :func:`cmh_lbp_events`: geometric uniform ``u1`` and the event step
``t + 1 + floor(r)``; the checkpoints ``c < t + 1 + floor(r)`` not yet recorded all see the current
state, which is written once with their number in ``counts``; selection uniform ``u2``; evaluation;
acceptance uniform ``u3``. After the ``n_proposals``-th event the checkpoints up to and including its
step are recorded with the final state. Steps are counted in float64 (exact up to ``2^53``; a
geometric gap can be astronomically long when every propensity is tiny). If every propensity is 0 the
chain can never propose again: it holds that state for ever, so the rows written so far are dropped
and the frozen state is the single row (count 1), the limit of the recorded sequence.

Everything is private and takes arrays and scalars only; the public wrappers are in
:mod:`dogs.samplers.metropolis`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from dogs._kernels.rng import uniform_from_bits, xoshiro_next

__all__ = ["flip_delta", "flip_and_update", "local_field", "local_fields", "cmh_chain", "cmh_lbp_steps",
           "cmh_lbp_events", "cmh_lbp_proposals"]


@njit(inline="always", cache=True)
def local_field(indptr, neighbors, coupling, h, spins, i):
    """``f_i = h_i + sum_slots theta * s_neighbour``, summed left to right, ``h[i]`` first.

    Indices are cast to unsigned so numba emits no negative-index fix-ups (about twice as fast).
    """
    site = np.uint64(i)
    field = h[site]
    slot, stop = np.uint64(indptr[site]), np.uint64(indptr[site + np.uint64(1)])
    while slot < stop:
        field += coupling[slot] * spins[np.uint64(neighbors[slot])]
        slot += np.uint64(1)
    return field


@njit(inline="always", cache=True)
def flip_delta(indptr, neighbors, coupling, h, spins, i):
    """``log p(s with s_i flipped) - log p(s) = -2 s_i f_i`` (:func:`local_field`)."""
    return -2.0 * spins[np.uint64(i)] * local_field(indptr, neighbors, coupling, h, spins, i)


@njit(cache=True)
def local_fields(indptr, neighbors, coupling, h, spins, fields):
    """``fields[i] = f_i`` (:func:`local_field`) of every site."""
    for i in range(spins.size):
        fields[i] = local_field(indptr, neighbors, coupling, h, spins, i)


@njit(inline="always", cache=True)
def flip_and_update(indptr, neighbors, coupling, spins, fields, i):
    """Flip ``s_i`` and add the change ``2 theta_ik s_i`` to the kept field of each neighbour ``k`` (one rounding)."""
    site = np.uint64(i)  # unsigned, as in local_field: no negative-index fix-ups
    spins[site] = -spins[site]
    change = 2.0 * spins[site]
    slot, stop = np.uint64(indptr[site]), np.uint64(indptr[site + np.uint64(1)])
    while slot < stop:
        fields[np.uint64(neighbors[slot])] += coupling[slot] * change
        slot += np.uint64(1)


@njit(cache=True)
def cmh_chain(indptr, neighbors, coupling, h, spins, rng_state, n_samples, per_sample, samples):
    """Coordinate MH: ``n_samples * per_sample`` proposals, ``samples[n]`` = state after ``(n + 1) * per_sample``.

    ``spins`` (d,) int8 and ``rng_state`` (4,) uint64 are advanced in place; ``samples`` is an
    ``(n_samples, d)`` int8 buffer. Returns the number of density evaluations (one per proposal).

    The local fields are summed once (:func:`local_fields`) and then kept: an accepted flip updates its
    neighbours' (:func:`flip_and_update`), so a proposal reads ``Delta_i = -2 s_i f_i`` instead of summing
    ``f_i`` (at ``d = 50`` a sum of 49 terms, most of a proposal's time). A kept field differs from the fresh
    left-to-right sum by rounding only (about ``1e-16`` relative per update); a decision can differ from
    the reference's only when ``exp(Delta_i)`` lies within that of its uniform.
    """
    d = spins.size
    fields = np.empty(d)
    local_fields(indptr, neighbors, coupling, h, spins, fields)
    s0, s1, s2, s3 = rng_state[0], rng_state[1], rng_state[2], rng_state[3]
    for n in range(n_samples):
        for _ in range(per_sample):
            bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
            i = np.int64(uniform_from_bits(bits) * d)
            delta = -2.0 * spins[i] * fields[i]
            bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
            if delta >= 0.0 or uniform_from_bits(bits) < math.exp(delta):
                flip_and_update(indptr, neighbors, coupling, spins, fields, i)
        samples[n, :] = spins
    rng_state[0], rng_state[1], rng_state[2], rng_state[3] = s0, s1, s2, s3
    return n_samples * per_sample


@njit(cache=True)
def cmh_lbp_steps(indptr, neighbors, coupling, h, prior_plus, prior_minus, prior_logit, spins, rng_state,
                  n_samples, per_sample, samples):
    """CMH with the factorised proposal, step by step (module docstring). Returns density evaluations.

    ``prior_plus[j] = q(s_j = +1)``, ``prior_minus[j] = q(s_j = -1)``,
    ``prior_logit[j] = log q(+1) - log q(-1)`` (``+-inf`` allowed).
    """
    d = spins.size
    s0, s1, s2, s3 = rng_state[0], rng_state[1], rng_state[2], rng_state[3]
    evaluations = 0
    for n in range(n_samples):
        for _ in range(per_sample):
            bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
            i = np.int64(uniform_from_bits(bits) * d)
            propensity = prior_minus[i] if spins[i] > 0 else prior_plus[i]
            bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
            if uniform_from_bits(bits) < propensity:
                log_ratio = flip_delta(indptr, neighbors, coupling, h, spins, i) + spins[i] * prior_logit[i]
                evaluations += 1
                bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
                if uniform_from_bits(bits) < math.exp(log_ratio):
                    spins[i] = -spins[i]
        samples[n, :] = spins
    rng_state[0], rng_state[1], rng_state[2], rng_state[3] = s0, s1, s2, s3
    return evaluations


@njit(inline="always", cache=True)
def _running_sums(weights, running, start):
    """``running[j] = weights[0] + ... + weights[j]`` summed left to right, rewritten from ``start`` on (the entries
    before it are kept); returns the whole sum."""
    total = 0.0 if start == 0 else running[start - 1]
    for j in range(start, weights.size):
        total += weights[j]
        running[j] = total
    return total


@njit(inline="always", cache=True)
def _proposed_flip(indptr, neighbors, coupling, h, prior_plus, prior_minus, prior_logit, spins, weights, running,
                   s0, s1, s2, s3):
    """One proposed flip of the discrete-event CMH + LBP chain: the site by its propensity (``weights``; ``running``
    their running sums, :func:`_running_sums`), then the MH test (a second uniform). Returns the new total
    propensity and generator state.

    The site is the first whose running sum exceeds ``u * total``. The running sums never decrease (the weights are
    probabilities), so a bisection finds the site the left-to-right scan would; after an accepted flip of ``i`` only
    the sums from ``i`` on are redone, each the same left-to-right sum as before.
    """
    d = spins.size
    total = running[d - 1]
    bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
    target = uniform_from_bits(bits) * total
    low, high = 0, d
    while low < high:
        middle = (low + high) >> 1
        if target < running[middle]:
            high = middle
        else:
            low = middle + 1
    i = low if low < d else -1
    if i < 0:  # rounding guard: the last site with positive propensity
        for j in range(d - 1, -1, -1):
            if weights[j] > 0.0:
                i = j
                break
    log_ratio = flip_delta(indptr, neighbors, coupling, h, spins, i) + spins[i] * prior_logit[i]
    bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
    if uniform_from_bits(bits) < math.exp(log_ratio):
        spins[i] = -spins[i]
        weights[i] = prior_minus[i] if spins[i] > 0 else prior_plus[i]
        total = _running_sums(weights, running, i)
    return total, s0, s1, s2, s3


@njit(cache=True)
def cmh_lbp_events(indptr, neighbors, coupling, h, prior_plus, prior_minus, prior_logit, spins, rng_state,
                   n_samples, per_sample, samples):
    """The chain of :func:`cmh_lbp_steps` in discrete-event form (module docstring). Returns density evaluations."""
    d = spins.size
    s0, s1, s2, s3 = rng_state[0], rng_state[1], rng_state[2], rng_state[3]
    total_steps = n_samples * per_sample
    weights = np.empty(d, dtype=np.float64)
    running = np.empty(d, dtype=np.float64)
    for j in range(d):
        weights[j] = prior_minus[j] if spins[j] > 0 else prior_plus[j]
    total = _running_sums(weights, running, 0)
    log_stay = math.log1p(-total / d)  # log(1 - alpha), redone when the total changes
    step = 0  # steps of the step-by-step chain simulated so far
    recorded = 0  # checkpoints written; checkpoint r is step (r + 1) * per_sample
    evaluations = 0
    while total > 0.0:
        bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
        alpha = total / d
        ratio = 0.0 if alpha >= 1.0 else math.log1p(-uniform_from_bits(bits)) / log_stay
        # the gap is 1 + floor(ratio) (ratio >= 0); it fits in the run iff ratio < steps left
        if not ratio < total_steps - step:  # also stops on inf or nan, before any integer conversion
            break
        event = step + 1 + np.int64(ratio)
        while recorded < n_samples and (recorded + 1) * per_sample < event:
            samples[recorded, :] = spins
            recorded += 1
        step = event
        new_total, s0, s1, s2, s3 = _proposed_flip(indptr, neighbors, coupling, h, prior_plus, prior_minus,
                                                   prior_logit, spins, weights, running, s0, s1, s2, s3)
        if new_total != total:
            total = new_total
            log_stay = math.log1p(-total / d)
        evaluations += 1
    while recorded < n_samples:
        samples[recorded, :] = spins
        recorded += 1
    rng_state[0], rng_state[1], rng_state[2], rng_state[3] = s0, s1, s2, s3
    return evaluations


@njit(cache=True)
def cmh_lbp_proposals(indptr, neighbors, coupling, h, prior_plus, prior_minus, prior_logit, spins, rng_state,
                      n_proposals, per_sample, samples, counts):
    """The chain of :func:`cmh_lbp_steps` until ``n_proposals`` flips are proposed (module docstring).

    ``samples`` is an ``(n_proposals + 1, d)`` int8 buffer and ``counts`` an ``(n_proposals + 1,)`` float64
    buffer: row ``r`` is a state recorded at ``counts[r]`` consecutive checkpoints (every ``per_sample``
    steps, holds included). Returns ``(rows written, steps simulated, density evaluations)``.
    """
    d = spins.size
    s0, s1, s2, s3 = rng_state[0], rng_state[1], rng_state[2], rng_state[3]
    weights = np.empty(d, dtype=np.float64)
    running = np.empty(d, dtype=np.float64)
    for j in range(d):
        weights[j] = prior_minus[j] if spins[j] > 0 else prior_plus[j]
    total = _running_sums(weights, running, 0)
    log_stay = math.log1p(-total / d)  # log(1 - alpha), redone when the total changes
    every = float(per_sample)
    step = 0.0
    checkpoint = every  # the next checkpoint not yet recorded
    rows = 0
    evaluations = 0
    frozen = False
    for _ in range(n_proposals):
        if not total > 0.0:
            frozen = True
            break
        bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
        alpha = total / d
        ratio = 0.0 if alpha >= 1.0 else math.log1p(-uniform_from_bits(bits)) / log_stay
        event = step + 1.0 + math.floor(ratio)
        if checkpoint < event:  # checkpoints checkpoint, checkpoint + every, ... < event hold the current state
            seen = math.floor((event - 1.0 - checkpoint) / every) + 1.0
            samples[rows, :] = spins
            counts[rows] = seen
            rows += 1
            checkpoint += seen * every
        step = event
        new_total, s0, s1, s2, s3 = _proposed_flip(indptr, neighbors, coupling, h, prior_plus, prior_minus,
                                                   prior_logit, spins, weights, running, s0, s1, s2, s3)
        if new_total != total:
            total = new_total
            log_stay = math.log1p(-total / d)
        evaluations += 1
    if frozen:
        samples[0, :] = spins
        counts[0] = 1.0
        rows = 1
    elif checkpoint <= step:  # checkpoints up to the last proposal's step see the state after it
        samples[rows, :] = spins
        counts[rows] = math.floor((step - checkpoint) / every) + 1.0
        rows += 1
    rng_state[0], rng_state[1], rng_state[2], rng_state[3] = s0, s1, s2, s3
    return rows, step, evaluations
