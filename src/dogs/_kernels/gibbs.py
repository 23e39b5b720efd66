r"""numba kernels for Gibbs sampling of binary pairwise MRFs with an arbitrary scan.

One step of the Gibbs sampler (DoGS Algorithm 1, Mitliagkas & Mackey 2017) for

.. math::

    \pi(x) \propto \exp\Big(\sum_{i<j} \theta_{ij} x_i x_j + \sum_i \theta_i x_i\Big),
    \qquad x \in \{-1, +1\}^p,

picks ``i = scan[t]`` (or, when ``scan[t] == -1``, ``i = floor(u' p)`` for a
fresh uniform ``u'``), forms the local field over the CSR slots of ``i``

.. math::

    f_i = \Big(\theta_i + \sum_{k \in N(i),\, k > i} \theta_{ik} x_k\Big)
          + \sum_{k \in N(i),\, k < i} \theta_{ik} x_k

(each partial sum accumulated in CSR order, i.e. increasing ``k``; the two are added
last). The order is chosen for speed: in a scan that visits variables in increasing
order the spins of the lower neighbours were written by the steps just before, so
the kernel sums everything else while those writes complete, and the last-written
spin (the largest lower neighbour) enters last (the kernels decide for both of its
values before reading it; see "Two layouts" below). Any fixed order gives the same
sampler; the reference and the kernels share this one. Then,
with a fresh uniform ``u``, sets

.. math::

    x_i = +1 \text{ if } u < \sigma(2 f_i) = \frac{1}{1 + e^{-2 f_i}}, \text{ else } -1,
    \tag{R}

the full conditional ``pi(X_i = +1 | x_{-i})`` (DoGS Appendix A.4).
Uniforms come from the per-chain xoshiro256** stream of
:mod:`dogs._kernels.rng`, in the order: index uniform (only on ``-1`` steps),
then acceptance uniform. Plain-Python references replay that order on
:func:`dogs._kernels.rng.uniform_stream` and match bit for bit.

Exact fast decision
-------------------
Rule (R) is evaluated in floating point as ``u < 1.0 / (1.0 + exp(-2.0 * f))``
(the *reference rule*). On a systematic scan each step reads the spin
written by the step before, so an ``exp`` on that dependency chain costs its
full latency. The kernels instead compare ``f`` with two thresholds that
depend on ``u`` only (so they are computed off the chain) and fall back to
the reference rule when undecided; **the output is identical to the
reference rule**, it is not an approximation.

Split ``[0, 1)`` into ``B = 2^10`` bins; ``u`` lies in bin ``j`` = the top 10
bits of its 64-bit draw, i.e. ``j/B <= u < (j+1)/B``. With
``logit(v) = log(v / (1 - v))`` and margin ``delta = 2^-20``, the tables hold
thresholds on the field ``f`` (halves of thresholds on ``g = 2f``; halving is exact)

.. math::

    t^-_j = \tfrac12\big(\operatorname{logit}(j/B) - \delta\big) \;(-\infty \text{ for } j=0),\qquad
    t^+_j = \tfrac12\big(\operatorname{logit}((j+1)/B) + \delta\big) \;(+\infty \text{ for } j=B-1).

If ``f >= t+_j`` the kernel sets ``+1``, if ``f <= t-_j`` it sets ``-1``,
otherwise it evaluates the reference rule. Why this agrees with the
reference rule: for ``g = 2f`` the computed ``p = fl(1/(1+fl(exp(-g))))``
satisfies ``|p / sigma(g) - 1| <= eps = 2^-51`` for any ``exp`` with error below
one ulp (``p`` only gets smaller when ``exp`` overflows). For
``v = (j+1)/B <= 1 - 1/B`` and ``g >= logit(v) + delta'`` (``delta'`` is ``delta``
minus the ``< 1e-14`` error of the tabulated logit),
``sigma(g) / v >= 1 / (v + (1-v) e^{-delta'}) >= 1 + (1-v) delta' / 2 >= 1 + 2^-31``,
so ``p >= sigma(g)(1 - eps) > v > u``: the reference rule also gives ``+1``.
Symmetrically, ``g <= logit(j/B) - delta'`` gives ``p <= sigma(g)(1 + eps) < j/B <= u``:
the reference rule gives ``-1``. The undecided band has probability about
``1/B``, so ``exp`` runs on roughly 0.1% of steps. Undecided is tested as
``(f - t-)(f - t+) < 0`` (one comparison, no unpredictable branch); NaN or
infinite ``f`` decide to the same spin as the reference rule.

The products ``theta_ik * x_k`` with ``x_k = +-1`` are formed by flipping the
sign bit of ``theta_ik`` (bit-identical to the multiplication, ``-0.0``
included), which takes the int-to-float conversion and the multiply off the
dependency chain.

Two layouts of the neighbourhoods
---------------------------------
The kernels read the model's neighbourhoods (the ``graph`` argument) in one of two layouts,
chosen per model by :func:`padded_neighbourhoods`; both give the same spins.

* **CSR**: the tuple ``(indptr, neighbors, coupling_bits)`` of the model; a site's slots run
  between ends read from ``indptr``, split where the neighbour indices pass ``i``.
* **Padded**: one record per site holding ``L`` lower and ``U`` upper neighbours and their
  coupling bits, ``L`` and ``U`` the largest counts over the sites (a numpy structured
  array; the record type carries ``L`` and ``U``, so numba compiles one kernel per pair, with
  fixed loop counts and no ``indptr``). Used for bounded-degree graphs whose padding adds at
  most ``MAX_PADDING_RATIO - 1`` to the stored slots (grids, chains). Padding slots point at
  the site itself with coupling ``-0.0``. A site's lower pads come *first*: they are added to
  the starting ``+0.0`` of the lower sum, and ``+0.0 + (+-0.0) = +0.0``, so the lower sum is
  bit-identical to the CSR one. Upper pads come last and add ``+-0.0``; adding a zero changes
  at most the sign of a zero sum, and the field enters rule (R) only through comparisons with
  the (non-zero) thresholds and through ``exp(-2 f)``, which do not see the sign of a zero, so
  the spins are the same.

Both kernels take the last lower slot (the largest lower neighbour ``k*``) off the dependency
chain: in a scan that visits sites in increasing order ``x_{k*}`` was written by the step just
before. With ``r`` the lower sum without it and ``c`` its coupling, the kernel forms both candidate
fields ``f+ = upper + (r + c)`` and ``f- = upper + (r + (-c))`` (each bit-identical to the field
for ``x_{k*} = +1`` and ``-1``: the sign flip is exact), decides both, and only then reads
``x_{k*}`` to pick one. When either candidate is undecided it applies the reference rule to the
picked field. A site without lower neighbours splits off a ``-0.0`` term, so ``f+ = f-``.

Everything is private and takes arrays and scalars only; the public wrapper
:func:`dogs.samplers.gibbs.run_gibbs` validates, chooses the layout and casts.
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.extending import intrinsic, overload

from dogs._kernels.rng import seed_state, uniform_from_bits, xoshiro_next

__all__ = [
    "MAX_PADDED_WIDTH",
    "MAX_PADDING_RATIO",
    "THRESHOLD_BIN_BITS",
    "THRESHOLD_MARGIN",
    "field_thresholds",
    "padded_neighbourhoods",
    "seed_states",
    "spin_from_field",
    "gibbs_chain",
    "gibbs_chain_draws",
    "gibbs_chains",
    "gibbs_chains_draws",
]

THRESHOLD_BIN_BITS = 10
THRESHOLD_MARGIN = 2.0**-20
#: The padded layout is used when its slots number at most this many times the stored ones ...
MAX_PADDING_RATIO = 1.5
#: ... and a site record holds at most this many slots (one compiled kernel per (L, U) pair).
MAX_PADDED_WIDTH = 16


def field_thresholds(bin_bits: int = THRESHOLD_BIN_BITS, margin: float = THRESHOLD_MARGIN):
    """Threshold tables ``(low, high)`` on the field ``f`` for the exact fast decision (module docstring).

    ``low[j] = (logit(j / B) - margin) / 2`` and ``high[j] = (logit((j + 1) / B) + margin) / 2``
    for ``B = 2**bin_bits``, with ``low[0] = -inf`` and ``high[B - 1] = +inf``; read-only arrays.
    """
    n_bins = 1 << bin_bits
    edges = np.arange(n_bins + 1, dtype=np.float64) / n_bins  # exact
    logit = np.empty(n_bins + 1)
    logit[0], logit[-1] = -np.inf, np.inf
    logit[1:-1] = [math.log(v) - math.log1p(-v) for v in edges[1:-1]]
    low = np.ascontiguousarray((logit[:-1] - margin) / 2.0)
    high = np.ascontiguousarray((logit[1:] + margin) / 2.0)
    low.setflags(write=False)
    high.setflags(write=False)
    return low, high


def padded_neighbourhoods(indptr, neighbors, coupling_bits):
    """The padded layout of the module docstring, or ``None`` where the CSR layout is kept.

    Returns a read-only ``(p,)`` structured array with fields ``lower_coupling`` ``(L,)`` and
    ``upper_coupling`` ``(U,)`` uint64 (coupling bits), ``lower`` ``(L,)`` and ``upper`` ``(U,)`` of
    the type of ``neighbors`` (``int32`` for any model below ``2^31`` slots: a grid site takes 48 bytes
    instead of 64): site ``i``'s neighbours ``k < i`` in increasing order after
    ``L - (their count)`` padding slots, then its neighbours ``k > i`` in increasing order
    followed by padding. Padding slots hold the neighbour ``i`` and the bits of ``-0.0``.
    ``None`` when the graph has no edge, when ``L + U > MAX_PADDED_WIDTH`` or when the
    padded slots exceed ``MAX_PADDING_RATIO`` times the stored ones. ``indptr``,
    ``neighbors`` and ``coupling_bits`` are the CSR arrays (neighbours sorted per row).
    """
    n_vars, n_slots = indptr.size - 1, neighbors.size
    if n_slots == 0:
        return None
    n_lower = _lower_counts(indptr, neighbors)
    n_upper = np.diff(indptr) - n_lower
    width_lower, width_upper = int(n_lower.max()), int(n_upper.max())
    if width_lower + width_upper > MAX_PADDED_WIDTH or n_vars * (width_lower + width_upper) > MAX_PADDING_RATIO * n_slots:
        return None
    table = np.empty(  # couplings first and an aligned record: every uint64 lies on an 8-byte boundary
        n_vars,
        dtype=np.dtype([
            ("lower_coupling", np.uint64, (width_lower,)),
            ("upper_coupling", np.uint64, (width_upper,)),
            ("lower", neighbors.dtype, (width_lower,)),
            ("upper", neighbors.dtype, (width_upper,)),
        ], align=True),
    )
    _fill_padded(indptr, neighbors, coupling_bits, n_lower, table["lower"], table["upper"], table["lower_coupling"], table["upper_coupling"])
    table.setflags(write=False)
    return table


@njit(cache=True)
def _lower_counts(indptr, neighbors):
    """Number of neighbours ``k < i`` of every site ``i``."""
    counts = np.zeros(indptr.size - 1, dtype=np.int64)
    for site in range(indptr.size - 1):
        for slot in range(indptr[site], indptr[site + 1]):
            counts[site] += neighbors[slot] < site
    return counts


@njit(cache=True)
def _fill_padded(indptr, neighbors, coupling_bits, n_lower, lower, upper, lower_coupling, upper_coupling):
    """Fill the fields of :func:`padded_neighbourhoods` (lower pads first, upper pads last)."""
    width_lower, width_upper = lower.shape[1], upper.shape[1]
    for site in range(indptr.size - 1):
        first_upper = indptr[site] + n_lower[site]
        pads = width_lower - n_lower[site]
        for k in range(width_lower):
            slot = indptr[site] + k - pads
            lower[site, k] = site if k < pads else neighbors[slot]
            lower_coupling[site, k] = _NEGATIVE_ZERO_BITS if k < pads else coupling_bits[slot]
        for k in range(width_upper):
            slot = first_upper + k
            real = slot < indptr[site + 1]
            upper[site, k] = neighbors[slot] if real else site
            upper_coupling[site, k] = coupling_bits[slot] if real else _NEGATIVE_ZERO_BITS


_SIGN_BIT = np.uint64(1 << 63)
_NEGATIVE_ZERO_BITS = _SIGN_BIT  # the bits of -0.0 (sign bit only): the coupling of a padding slot


@intrinsic
def _float_from_bits(typingctx, bits):
    """Reinterpret a ``uint64`` as the ``float64`` with the same bits (an LLVM ``bitcast``, no conversion)."""
    if bits != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(types.uint64), codegen


@njit(cache=True)
def seed_states(seeds):
    """``(n, 4)`` ``uint64`` xoshiro256** states, one per ``uint64`` seed (splitmix64 seeding)."""
    states = np.empty((seeds.size, 4), dtype=np.uint64)
    for c in range(seeds.size):
        states[c, :] = seed_state(seeds[c])
    return states


@njit(inline="always", cache=True)
def spin_from_field(field, bits, low, high):
    """New spin for the local field ``f`` and the 64-bit draw ``bits`` of ``u``: rule (R), decided exactly.

    Returns ``+1`` iff ``u < 1 / (1 + exp(-2 f))`` with ``u = (bits >> 11) * 2**-53``;
    ``low``/``high`` are the tables of :func:`field_thresholds` (``THRESHOLD_BIN_BITS`` bins).
    The kernels' two-candidate decision with both candidates equal to ``field``.
    """
    return _spin_from_candidates(field, field, True, bits, low, high)


@njit(inline="always", cache=True)
def _signed_coupling(coupling_bits, spin):
    """``theta * x`` for ``theta`` given by its bits and ``x = spin`` in {-1, +1}: the sign bit flipped when ``x = -1``."""
    return _float_from_bits(coupling_bits ^ (np.uint64(np.int64(spin)) & _SIGN_BIT))


@njit(inline="always", cache=True)
def _step_site(step_site, n_vars, s0, s1, s2, s3):
    """Site of a step whose scan entry is ``step_site``: itself, or a uniform draw when it is ``-1``.

    Returns ``site, s0, s1, s2, s3`` with ``site`` unsigned (no negative-index fix-ups).
    """
    if step_site < 0:
        bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
        step_site = np.int64(uniform_from_bits(bits) * n_vars)
    return np.uint64(step_site), s0, s1, s2, s3


@njit(inline="always", cache=True)
def _fields_csr(graph, site, h, spins):
    """The field of ``site`` for both values of its largest lower neighbour: ``(f+, f-, k*)``, CSR layout.

    ``graph = (indptr, neighbors, coupling_bits)``; the row's neighbours ``k < i`` come first, in
    increasing order. Without any, the split-off term is ``-0.0`` (an exact identity on the lower
    sum ``+0.0``), so ``f+ = f-``, and ``k* = i``.
    """
    indptr, neighbors, coupling_bits = graph
    one = np.uint64(1)
    slot, slot_end = np.uint64(indptr[site]), np.uint64(indptr[site + one])
    first_upper = slot
    while first_upper < slot_end and np.uint64(neighbors[first_upper]) < site:
        first_upper += one
    last_coupling, last, lower_end = _NEGATIVE_ZERO_BITS, site, slot
    if first_upper > slot:
        lower_end = first_upper - one
        last_coupling, last = coupling_bits[lower_end], np.uint64(neighbors[lower_end])
    upper = h[site]  # the field, then neighbours k > i
    for upper_slot in range(first_upper, slot_end):
        upper += _signed_coupling(coupling_bits[upper_slot], spins[np.uint64(neighbors[upper_slot])])
    lower = 0.0
    for lower_slot in range(slot, lower_end):
        lower += _signed_coupling(coupling_bits[lower_slot], spins[np.uint64(neighbors[lower_slot])])
    field_plus = upper + (lower + _float_from_bits(last_coupling))
    field_minus = upper + (lower + _float_from_bits(last_coupling ^ _SIGN_BIT))
    return field_plus, field_minus, last


@njit(inline="always", cache=True)
def _fields_padded(graph, site, h, spins):
    """:func:`_fields_csr` on the padded layout: ``graph`` is the record array of :func:`padded_neighbourhoods`.

    The loop counts are the record's sub-array lengths, constants of the compiled kernel.
    """
    row = graph[site]
    upper = h[site]  # the field, then neighbours k > i (pads last)
    for k in range(row.upper.shape[0]):
        upper += _signed_coupling(row.upper_coupling[k], spins[np.uint64(row.upper[k])])
    last = row.lower.shape[0] - 1  # the largest lower neighbour (pads first); L >= 1 as the graph has an edge
    lower = 0.0
    for k in range(last):
        lower += _signed_coupling(row.lower_coupling[k], spins[np.uint64(row.lower[k])])
    last_coupling = row.lower_coupling[last]
    field_plus = upper + (lower + _float_from_bits(last_coupling))
    field_minus = upper + (lower + _float_from_bits(last_coupling ^ _SIGN_BIT))
    return field_plus, field_minus, np.uint64(row.lower[last])


@njit(inline="always", cache=True)
def _spin_from_candidates(field_plus, field_minus, last_is_plus, bits, low, high):
    """Rule (R) for ``field_plus`` if ``last_is_plus`` else ``field_minus``, both decided before the pick.

    Thresholds as in :func:`spin_from_field`; the reference rule runs on the picked field when
    either candidate is undecided (about twice as often as for one field).
    """
    j = bits >> np.uint64(64 - THRESHOLD_BIN_BITS)
    below, above = low[j], high[j]
    if ((field_plus - below) * (field_plus - above) < 0.0) | ((field_minus - below) * (field_minus - above) < 0.0):
        field = field_plus if last_is_plus else field_minus
        return np.int8(1) if uniform_from_bits(bits) < 1.0 / (1.0 + math.exp(-2.0 * field)) else np.int8(-1)
    spin_plus = np.int8(2 * np.int8(field_plus >= above) - 1)
    spin_minus = np.int8(2 * np.int8(field_minus >= above) - 1)
    return spin_plus if last_is_plus else spin_minus


@njit(inline="always", cache=True)
def _advance_with(site_fields, graph, h, scan, start, stop, spins, low, high, s0, s1, s2, s3):
    """Run scan steps ``start <= t < stop`` on ``spins`` (int8, in place); returns the new RNG state.

    ``site_fields`` is :func:`_fields_csr` or :func:`_fields_padded`, whichever reads the layout of
    ``graph`` (numba compiles this loop once for each). Indices and the step counter are unsigned,
    so numba emits no negative-index fix-ups.
    """
    n_vars = spins.size
    one = np.uint64(1)
    t, end = np.uint64(start), np.uint64(stop)
    while t < end:
        site, s0, s1, s2, s3 = _step_site(scan[t], n_vars, s0, s1, s2, s3)
        t += one
        field_plus, field_minus, last = site_fields(graph, site, h, spins)
        bits, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
        spins[site] = _spin_from_candidates(field_plus, field_minus, spins[last] > 0, bits, low, high)
    return s0, s1, s2, s3


def advance(graph, h, scan, start, stop, spins, low, high, s0, s1, s2, s3):
    """:func:`_advance_with` the field function of ``graph``'s layout (chosen by numba from its type).

    Compiled code only.
    """
    raise TypeError("advance runs inside numba kernels only")


@overload(advance)
def _advance_for_layout(graph, h, scan, start, stop, spins, low, high, s0, s1, s2, s3):
    if isinstance(graph, types.Array) and isinstance(graph.dtype, types.Record):
        return lambda graph, h, scan, start, stop, spins, low, high, s0, s1, s2, s3: _advance_with(
            _fields_padded, graph, h, scan, start, stop, spins, low, high, s0, s1, s2, s3
        )
    if isinstance(graph, types.BaseTuple):
        return lambda graph, h, scan, start, stop, spins, low, high, s0, s1, s2, s3: _advance_with(
            _fields_csr, graph, h, scan, start, stop, spins, low, high, s0, s1, s2, s3
        )
    return None


@njit(cache=True)
def gibbs_chain(graph, h, scan, spins, rng_state, low, high, record_vars, record_times, recorded):
    """Run one chain through the whole scan, in place, recording at checkpoints.

    Parameters
    ----------
    graph : tuple or (p,) record array
        The neighbourhoods in one of the two layouts of the module docstring: the CSR tuple
        ``(indptr, neighbors, coupling_bits)`` ((p+1,) and (S,) int32 or int64, and the couplings
        viewed as ``uint64``), or the table of :func:`padded_neighbourhoods`.
    h : (p,) float64
        Unary parameters.
    scan : (T,) int32 or int64
        Scan indices in ``[-1, p)``; ``-1`` draws the site uniformly.
    spins : (p,) int8
        State in {-1, +1}, overwritten with the state after ``T`` steps.
    rng_state : (4,) uint64
        xoshiro256** state, advanced in place.
    low, high : (2**THRESHOLD_BIN_BITS,) float64
        Tables of :func:`field_thresholds`.
    record_vars : (V,) int64
        Variables to record.
    record_times : (R,) int64
        Non-decreasing step counts in ``[0, T]``; ``recorded[r]`` receives the
        values of ``record_vars`` after ``record_times[r]`` steps.
    recorded : (R, V) int8
        Output buffer.
    """
    s0, s1, s2, s3 = rng_state[0], rng_state[1], rng_state[2], rng_state[3]
    done = 0
    for r in range(record_times.size):
        stop = record_times[r]
        s0, s1, s2, s3 = advance(graph, h, scan, done, stop, spins, low, high, s0, s1, s2, s3)
        done = stop
        for v in range(record_vars.size):
            recorded[r, v] = spins[record_vars[v]]
    s0, s1, s2, s3 = advance(graph, h, scan, done, scan.size, spins, low, high, s0, s1, s2, s3)
    rng_state[0], rng_state[1], rng_state[2], rng_state[3] = s0, s1, s2, s3


@njit(parallel=True, cache=True)
def gibbs_chains(graph, h, scan, spins, rng_states, low, high, record_vars, record_times, recorded):
    """Independent chains in parallel (``prange`` over chains).

    Row ``c`` of ``spins`` (C, p), ``rng_states`` (C, 4) and ``recorded``
    (C, R, V) belongs to chain ``c``; every other argument is shared and read
    only. See :func:`gibbs_chain`.
    """
    for c in prange(spins.shape[0]):
        gibbs_chain(graph, h, scan, spins[c], rng_states[c], low, high, record_vars, record_times, recorded[c])


@njit(cache=True)
def gibbs_chain_draws(graph, h, scan, spins, rng_state, low, high, record_vars, labels, first, count):
    """Run ``count`` passes of the whole scan on one chain, in place, writing a draw after each pass.

    One dependent sequence: pass ``k + 1`` starts from the state and the stream position where pass ``k``
    ended, so ``count`` passes are the scan repeated ``count`` times. After pass ``k`` the labels
    ``(x_v + 1) / 2`` (0 for the spin -1, 1 for +1) of ``record_vars`` go to ``labels[first + k]``.
    Arguments as in :func:`gibbs_chain`; ``labels`` is a ``(D, V)`` int8 array with ``first + count <= D``.
    """
    s0, s1, s2, s3 = rng_state[0], rng_state[1], rng_state[2], rng_state[3]
    for k in range(count):
        s0, s1, s2, s3 = advance(graph, h, scan, 0, scan.size, spins, low, high, s0, s1, s2, s3)
        row = labels[first + k]
        for v in range(record_vars.size):
            row[v] = (spins[record_vars[v]] + 1) >> 1
    rng_state[0], rng_state[1], rng_state[2], rng_state[3] = s0, s1, s2, s3


@njit(parallel=True, cache=True)
def gibbs_chains_draws(graph, h, scan, spins, rng_states, low, high, record_vars, labels, first, count):
    """:func:`gibbs_chain_draws` for independent chains in parallel (``prange`` over chains): row ``c`` of
    ``spins`` (C, p), ``rng_states`` (C, 4) and ``labels`` (C, D, V) belongs to chain ``c``."""
    for c in prange(spins.shape[0]):
        gibbs_chain_draws(graph, h, scan, spins[c], rng_states[c], low, high, record_vars, labels[c], first, count)
