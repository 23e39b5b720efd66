r"""Chain-vectorised Gibbs kernel for binary pairwise MRFs: one scan, many chains, one vector operation per site.

The sampler is the one of :mod:`dogs._kernels.gibbs` (DoGS Algorithm 1, Mitliagkas & Mackey 2017) for

.. math::

    \pi(x) \propto \exp\Big(\sum_{i<j} \theta_{ij} x_i x_j + \sum_i \theta_i x_i\Big), \qquad x \in \{-1, +1\}^p:

step ``t`` of the scan sets site ``i = scan[t]`` of every chain to ``+1`` with probability
``sigma(2 f_i) = 1 / (1 + exp(-2 f_i))``, ``f_i = theta_i + sum_k theta_ik x_k`` (DoGS Appendix A.4).
Chains are independent, so the same step of ``B`` chains reads the same couplings and ``B`` neighbour
spins; this kernel lays them side by side and updates site ``i`` of all chains in one pass of a loop
that LLVM turns into 256-bit vector instructions (8 ``float32`` lanes on AVX2).

Layout
------
Chains are grouped in *blocks* of ``W`` lanes (``W`` a multiple of :data:`LANE_WIDTH`); block ``b``
holds its spins as a ``(p, W)`` ``float32`` array of ``+-1.0`` (site-major, chains innermost: the
``W`` spins of one site are contiguous) and its random states as ``(4, W + padding)`` ``uint32`` (the
padding keeps blocks of different threads a cache line apart). Blocks run in parallel (``prange``);
within a block the scan runs site after site: the field is summed neighbour slot by neighbour slot
(CSR) into a ``(W,)`` buffer, one lane loop per slot, then the decision loop.

Graphs of degree at most 4 (grids, tori, chains) run the table kernel of :mod:`dogs._kernels.gibbs_table`
instead: same lanes and generators, the conditional tabulated exactly, about 3.5 times faster (64 chains on
the 300 x 300 grid: 0.75-0.91 ns per update per core, against 3.0 for this kernel's four-slot variant that it
replaced). This kernel serves every other graph.

Update equation (all in ``float32``)
------------------------------------
With ``L = log2(e)`` the wrapper stores ``w_ik = fl(-2 L theta_ik)`` and ``b_i = fl(-2 L theta_i)``.
For each lane the kernel forms ``a = b_i + sum_k w_ik x_k`` (CSR order), which approximates
``y = -2 L f_i``, so that ``exp(-2 f_i) = 2^y``. It clamps ``a`` to ``[-125, 125]``, splits it as
``a = n + r`` with ``n = rint(a)`` (nearest integer) and ``|r| <= 1/2`` (exact), and computes

.. math::

    E = P(r) \cdot 2^n, \qquad P \approx 2^r \text{ on } [-\tfrac12, \tfrac12],

``P`` the degree-:data:`EXP2_DEGREE` polynomial interpolating ``2^r`` at the Chebyshev nodes
(:func:`exp2_coefficients`), ``2^n`` applied by adding ``n`` to the exponent bits. With a uniform ``u`` on the grid
``{0, 2^-24, ..., 1 - 2^-24}`` it sets

.. math::

    x_i = +1 \iff \mathrm{fl}(\mathrm{fl}(u E) + u) < 1,

which is ``u < 1 / (1 + E)`` up to the rounding of the product and sum: no division, no ``exp``.

Error bound (the law is the Gibbs conditional up to this)
---------------------------------------------------------
Let ``q = P(x_i = +1 | x_{-i})`` under this kernel and ``sigma = sigma(2 f_i)``. Then

.. math::

    |q - \sigma| \le 2^{-24} + 2^{-23} + \tfrac14 \varepsilon_P + \tfrac{\ln 2}{4} |a - y| + 2^{-125},

where ``2^-24`` is the grid of ``u``, ``2^-23`` the two roundings in the comparison (relative error
``<= 2^-23`` of ``u (1 + E)``), ``varepsilon_P`` :data:`EXP2_RELATIVE_ERROR`, the relative error of ``E``
against ``2^a`` (interpolation plus ``float32`` Horner rounding; ``dq/dlog E = -q (1 - q) <= 1/4``),
``(ln 2 / 4) |a - y|`` the rounding of the field (``|d sigma / dy| <= ln 2 / 4``) and ``2^-125`` the clamp.
The field error is ``|a - y| <= (d + 2) 2^-24 (|b_i| + sum_k |w_ik|)`` to first order for a site of
degree ``d`` (one rounding per weight and per addition). For a site with ``sum |theta| <= 1`` the whole
bound is below ``1e-6``: far below what any of this repository's statistical tests or experiments can
see (their standard errors are ``>= 1e-3``). :func:`plus_probability` gives ``q`` exactly for a given
``a`` (the decision is monotone in ``u``, so ``q`` is a threshold count over the ``2^24`` grid), and the
tests check the bound on it.

Random numbers
--------------
Each lane runs its own xoshiro128+ generator (Blackman & Vigna, *Scrambled linear pseudorandom number
generators*, ACM TOMS 2021: the variant its authors recommend for floating-point output; period
``2^128 - 1``), the four ``uint32`` words of the state seeded from the chain's ``uint64`` seed by two
splitmix64 outputs (never all zero: splitmix64 is a bijection of its counter, so two consecutive
outputs are not both zero). ``u`` is the top 24 bits of each output times ``2^-24``. One step is shifts,
xors, a rotate and an add on 32-bit lanes, so the decision loop vectorises with it. Streams are
independent in the usual sense of random seeding: the chains' seeds are distinct children of one
:class:`numpy.random.SeedSequence` (:func:`dogs.samplers.base.chain_seeds`), and ``B`` streams of
``T`` draws overlap with probability at most ``B^2 T / 2^128``. A chain's draws depend on its seed
only, never on its lane, its block or the number of threads, so chain ``c`` gives the same spins
whether it runs with 8 or 10 000 others (same seed, same numbers). No lane operation mixes lanes,
and the kernel uses no fast-math flag, so the vector loop and its scalar remainder compute the same
IEEE operations.

Vectorisation (checked with ``inspect_asm`` on AVX2, numba 0.68, LLVM of that release)
---------------------------------------------------------------------------------------
LLVM's loop vectoriser turns each slot loop and the decision loop into 8-wide ``ymm`` loops (8 ``float32``
lanes per instruction): ``vmulps``/``vaddps`` for the field and the polynomial (no fast-math flag, so no
``vfmadd``: every lane rounds exactly as the scalar reference), ``vpxor``, ``vpslld``, ``vpsrld``,
``vpaddd`` for the generator, ``vcvtdq2ps`` for ``u``, ``vroundps`` for ``rint``, ``vmaxps``/``vminps``
for the clamp, ``vcmpltps`` and ``vblendvps`` for the decision. It guards the loops with run-time overlap
checks and keeps a scalar copy of each body. Small blocks pay for that: on a degree-6 band graph, one
thread, 8 lanes took 7.4 ns per update, 16 lanes 3.6 and 64 lanes 1.8.

Everything is private and takes arrays and scalars only; :func:`dogs.samplers.gibbs.run_gibbs`
validates, lays out and casts.
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.extending import intrinsic

from dogs._kernels.rng import splitmix64_next

__all__ = [
    "EXP2_DEGREE",
    "EXP2_RELATIVE_ERROR",
    "FIELD_SCALE",
    "LANE_WIDTH",
    "exp2_coefficients",
    "exp2_approx",
    "gibbs_lanes",
    "gibbs_lanes_block_draws",
    "gibbs_lanes_draws",
    "lane_states",
    "plus_probability",
    "spin_from_scaled_field",
    "xoshiro128plus_next",
]

#: float32 lanes of one 256-bit (AVX2) vector: the smallest useful block.
LANE_WIDTH = 8
#: Degree of the polynomial approximating ``2^r`` on ``[-1/2, 1/2]``.
EXP2_DEGREE = 5
#: Bound on ``|E / 2^a - 1|`` for the computed ``E`` of the module docstring (checked in the tests over a dense grid).
EXP2_RELATIVE_ERROR = 2.0**-21
#: ``w = FIELD_SCALE * theta`` in float64 before rounding to float32: ``-2 log2(e)``.
FIELD_SCALE = -2.0 / math.log(2.0)
_CLAMP = np.float32(125.0)
_PLUS, _MINUS = np.float32(1.0), np.float32(-1.0)
_TWO_POW_24 = np.float32(2.0**24)


def exp2_coefficients(degree: int = EXP2_DEGREE) -> np.ndarray:
    """Monomial coefficients (constant first, ``float32``) of the polynomial interpolating ``2^r`` at the
    ``degree + 1`` Chebyshev nodes of ``[-1/2, 1/2]`` (interpolation error ``<= (ln 2)^(d+1) sqrt(2) / ((d+1)! 2^(2d+1))``)."""
    nodes = 0.5 * np.cos((2 * np.arange(degree + 1) + 1) * np.pi / (2 * degree + 2))
    coefficients = np.polynomial.polynomial.polyfit(nodes, np.exp2(nodes), degree)
    return coefficients.astype(np.float32)


_C0, _C1, _C2, _C3, _C4, _C5 = (np.float32(c) for c in exp2_coefficients())


@intrinsic
def _float32_from_bits(typingctx, bits):
    """Reinterpret an ``int32`` as the ``float32`` with the same bits (an LLVM ``bitcast``)."""
    if bits != types.int32:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())

    return types.float32(types.int32), codegen


@intrinsic
def _bits_from_float32(typingctx, value):
    """The ``int32`` with the bits of a ``float32`` (an LLVM ``bitcast``)."""
    if value != types.float32:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(32))

    return types.int32(types.float32), codegen


@njit(inline="always", cache=True)
def exp2_approx(a):
    """``E ~ 2^a`` for a ``float32`` ``a``, clamped to ``[-125, 125]`` (module docstring).

    ``n = rint(y)`` (round half to even, so ``|r| <= 1/2``) and ``2^n`` enters by adding ``n`` to the exponent
    field of ``P(r)`` (``P(r)`` is in ``[0.70, 1.42]``, so the result stays a normal number): exactly ``P(r) 2^n``.
    """
    y = min(max(a, -_CLAMP), _CLAMP)
    n = np.rint(y)
    r = y - n
    poly = ((((_C5 * r + _C4) * r + _C3) * r + _C2) * r + _C1) * r + _C0
    return _float32_from_bits(np.int32(_bits_from_float32(poly) + (np.int32(n) << np.int32(23))))


@njit(inline="always", cache=True)
def spin_from_scaled_field(a, k):
    """``+1.0`` iff ``fl(fl(k E) + k) < 2^24`` with ``E = exp2_approx(a)``, else ``-1.0`` (``float32``).

    ``k`` is the ``float32`` integer ``2^24 u``; scaling by ``2^24`` is exact, so this is the decision
    ``fl(fl(u E) + u) < 1`` of the module docstring.
    """
    return _PLUS if k * exp2_approx(a) + k < _TWO_POW_24 else _MINUS


@njit(cache=True)
def plus_probability(a):
    """Exact probability that :func:`spin_from_scaled_field` gives ``+1`` for the scaled field ``a`` and
    ``u`` uniform on ``{k 2^-24}``: the decision is monotone in ``u``, so it is ``k* 2^-24`` for the
    number ``k*`` of grid points that give ``+1`` (found by bisection)."""
    a = np.float32(a)
    low, high = 0, 1 << 24  # find the first k giving -1 (or 2^24) by bisection; k = 0 gives +1 as E is finite
    if spin_from_scaled_field(a, np.float32(0.0)) < 0:
        return 0.0
    while high - low > 1:
        mid = (low + high) // 2
        if spin_from_scaled_field(a, np.float32(mid)) > 0:
            low = mid
        else:
            high = mid
    return high * 2.0**-24


@njit(inline="always", cache=True)
def xoshiro128plus_next(s0, s1, s2, s3):
    """One xoshiro128+ step on four ``uint32`` words: returns ``(output, s0, s1, s2, s3)``."""
    result = np.uint32(s0 + s3)
    shifted = np.uint32(s1 << np.uint32(9))
    s2 = np.uint32(s2 ^ s0)
    s3 = np.uint32(s3 ^ s1)
    s1 = np.uint32(s1 ^ s2)
    s0 = np.uint32(s0 ^ s3)
    s2 = np.uint32(s2 ^ shifted)
    s3 = np.uint32((s3 << np.uint32(11)) | (s3 >> np.uint32(21)))
    return result, s0, s1, s2, s3


@njit(cache=True)
def lane_states(seeds):
    """``(4, n)`` ``uint32`` xoshiro128+ states, column ``c`` from the ``uint64`` seed ``seeds[c]`` (two splitmix64 outputs, low word first)."""
    states = np.empty((4, seeds.size), dtype=np.uint32)
    mask = np.uint64(0xFFFFFFFF)
    for c in range(seeds.size):
        counter = np.uint64(seeds[c])
        for half in range(2):
            word, counter = splitmix64_next(counter)
            states[2 * half, c] = np.uint32(word & mask)
            states[2 * half + 1, c] = np.uint32(word >> np.uint64(32))
    return states


@njit(inline="always", cache=True)
def _advance_block(graph, weights, bias, scan, start, stop, spins, field, s0, s1, s2, s3):
    """Scan steps ``start <= t < stop`` on one block: ``spins`` (p, W) float32, the lanes' states ``s0..s3`` (W,);
    ``graph = (indptr, neighbors)`` (CSR), the field summed slot by slot into the buffer ``field`` (W,)."""
    indptr, neighbors = graph
    width = spins.shape[1]
    for t in range(start, stop):
        site = np.uint64(scan[t])
        start_value = bias[site]
        for c in range(width):
            field[c] = start_value
        for slot in range(indptr[site], indptr[site + np.uint64(1)]):
            weight = weights[slot]
            neighbour = spins[np.uint64(neighbors[slot])]
            for c in range(width):
                field[c] += weight * neighbour[c]
        out = spins[site]
        for c in range(width):
            _decide_lane(field[c], c, out, s0, s1, s2, s3)


@njit(inline="always", cache=True)
def _decide_lane(a, c, out, s0, s1, s2, s3):
    """Draw lane ``c``'s next uniform and write its new spin for the scaled field ``a`` into ``out[c]``."""
    bits, s0[c], s1[c], s2[c], s3[c] = xoshiro128plus_next(s0[c], s1[c], s2[c], s3[c])
    out[c] = spin_from_scaled_field(a, np.float32(np.int32(bits >> np.uint32(8))))


@njit(inline="always", cache=True)
def _run_block(graph, weights, bias, scan, spins, states, record_vars, record_times, recorded):
    """One block through the scan, recording at checkpoints."""
    field = np.empty(spins.shape[1], dtype=np.float32)
    s0, s1, s2, s3 = states[0], states[1], states[2], states[3]
    done = 0
    for r in range(record_times.size):
        stop = record_times[r]
        _advance_block(graph, weights, bias, scan, done, stop, spins, field, s0, s1, s2, s3)
        done = stop
        for v in range(record_vars.size):
            row = spins[record_vars[v]]
            for c in range(spins.shape[1]):
                recorded[c, r, v] = np.int8(row[c])
    _advance_block(graph, weights, bias, scan, done, scan.size, spins, field, s0, s1, s2, s3)


@njit(parallel=True, cache=True)
def gibbs_lanes(indptr, neighbors, weights, bias, scan, spins, states, record_vars, record_times, recorded):
    """Run every block of lanes through the whole scan, in place, recording at checkpoints.

    Parameters
    ----------
    indptr, neighbors : (p+1,) and (S,) int64
        CSR neighbourhoods of the model (neighbours sorted per row).
    weights : (S,) float32
        ``fl(FIELD_SCALE * theta)`` per CSR slot.
    bias : (p,) float32
        ``fl(FIELD_SCALE * theta_i)``.
    scan : (T,) int64
        Site indices in ``[0, p)`` (no uniform ``-1`` steps: every lane updates the same site).
    spins : (n_blocks, p, W) float32
        ``+-1.0``; overwritten with the states after ``T`` steps.
    states : (n_blocks, 4, W + padding) uint32
        xoshiro128+ states of the lanes (:func:`lane_states`) in the first ``W`` columns, advanced in place.
    record_vars, record_times : (V,) and (R,) int64
        As in :func:`dogs._kernels.gibbs.gibbs_chain`.
    recorded : (n_blocks, W, R, V) int8
        Output buffer: ``recorded[b, c, r, v]`` is ``record_vars[v]`` of lane ``c`` of block ``b`` after ``record_times[r]`` steps.
    """
    for b in prange(spins.shape[0]):
        _run_block((indptr, neighbors), weights, bias, scan, spins[b], states[b], record_vars, record_times,
                   recorded[b])



@njit(cache=True)
def gibbs_lanes_block_draws(indptr, neighbors, weights, bias, scan, block, block_states, record_vars, labels, first_chain,
                            first, count):
    """Run one block of lanes through ``count`` passes of the scan, in place, writing a draw after each pass.

    Each lane is one dependent sequence (pass ``k + 1`` continues pass ``k``). After pass ``k`` lane ``c`` writes the
    labels (1 for a spin ``+1``, 0 for ``-1``) of ``record_vars`` to ``labels[first_chain + c, first + k]`` when
    ``first_chain + c`` is a chain (``< labels.shape[0]``). ``block`` is one block of :func:`gibbs_lanes`'s ``spins``
    (``(p, W)``), ``block_states`` its random states; ``labels`` is ``(C, D, V)`` int8 with ``first + count <= D``.
    """
    width = block.shape[1]
    field = np.empty(width, dtype=np.float32)
    s0, s1, s2, s3 = block_states[0], block_states[1], block_states[2], block_states[3]
    chains = min(width, labels.shape[0] - first_chain)
    for k in range(count):
        _advance_block((indptr, neighbors), weights, bias, scan, 0, scan.size, block, field, s0, s1, s2, s3)
        for c in range(chains):
            row = labels[first_chain + c, first + k]
            for v in range(record_vars.size):
                row[v] = np.int8(block[record_vars[v], c] > 0)


@njit(parallel=True, cache=True)
def gibbs_lanes_draws(indptr, neighbors, weights, bias, scan, spins, states, record_vars, labels, first, count):
    """:func:`gibbs_lanes_block_draws` for every block in parallel (``prange``): block ``b`` holds the chains from
    ``b W``; ``spins`` and ``states`` as in :func:`gibbs_lanes`."""
    for b in prange(spins.shape[0]):
        gibbs_lanes_block_draws(indptr, neighbors, weights, bias, scan, spins[b], states[b], record_vars, labels,
                                b * spins.shape[2], first, count)
