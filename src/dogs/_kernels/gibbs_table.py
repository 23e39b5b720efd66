r"""Chain-vectorised Gibbs kernel with tabulated conditionals, for binary pairwise MRFs of degree at most 4.

The sampler is the one of :mod:`dogs._kernels.gibbs` (DoGS Algorithm 1, Mitliagkas & Mackey 2017) for

.. math::

    \pi(x) \propto \exp\Big(\sum_{i<j} \theta_{ij} x_i x_j + \sum_i \theta_i x_i\Big), \qquad x \in \{-1, +1\}^p:

step ``t`` of the scan sets site ``i = scan[t]`` of every chain to ``+1`` with probability
``sigma(2 f_i)``, ``f_i = theta_i + sum_k theta_ik x_k`` (DoGS Appendix A.4). On a graph of degree at most 4
(grids, tori, chains: every Ising model of the papers) the neighbours of ``i`` take at most ``2^4 = 16``
configurations, so the conditional is a table: no ``exp`` and no floating point in the kernel at all.

Table (built once per model, :func:`slot_table`)
------------------------------------------------
Site ``i`` has four neighbour *slots* (its neighbours in CSR order, then padding slots pointing at a row of
spins that is always ``-1``, with weight 0). For the 4-bit configuration ``c`` (bit ``k`` set iff slot ``k``
holds ``+1``)

.. math::

    T_{i,c} = \min\big(\operatorname{rint}(2^{31} \sigma(2 f_i(c))),\ 2^{31} - 1\big),
    \qquad f_i(c) = \theta_i + \sum_{k<4} \theta_{i,k} (2 c_k - 1),

with ``sigma`` evaluated in float64 (:func:`scipy.special.expit`). A lane takes the next 32-bit output ``r`` of its
generator and sets ``x_i = +1`` iff ``r >> 1 < T_{i,c}``: with ``r >> 1`` uniform on ``{0, ..., 2^31 - 1}``
that has probability exactly ``T_{i,c} / 2^31``, so

.. math::

    |P(x_i = +1 \mid x_{-i}) - \sigma(2 f_i)| \le 2^{-31} + \delta_{64},

``2^-31`` the rounding to the grid (half of it) and the top entry's cap, ``delta_64 < 1e-15`` the float64
evaluation of ``sigma``: below anything a statistical test or an experiment of this repository can see (their
standard errors are ``>= 1e-4``). The kernel is integer arithmetic only, so the spins are the same on every
CPU and in the plain-Python reference of the tests, bit for bit.

Layout
------
Spins are bytes, ``-1`` for a spin ``+1`` and ``0`` for ``-1``, site-major with the chains innermost: block ``b``
of ``W`` lanes (``W`` a multiple of :data:`~dogs._kernels.gibbs_lanes.LANE_WIDTH`) is a ``(p + 1, W)`` int8 array
whose row ``p`` is the padding row (all 0, never written). The random states of a block are
``(4, W + STATE_PADDING)`` ``uint32`` rows (lanes in the first ``W`` columns): the padding keeps the blocks of
different threads at least a cache line apart, as two threads writing the same line would serialise on it
(measured before the padding: 2 threads on 64 chains ran at the speed of one). Blocks run in parallel
(``prange``); a block runs the scan in chunks of ``_CHUNK`` steps.

A chunk (explicit LLVM vector code, 8 lanes per ``<8 x i32>`` vector)
--------------------------------------------------------------------
:func:`_draw_outputs` steps each 8 lanes' generators through the chunk with the state in registers and stores
the outputs (10 vector instructions and one store per 8 outputs, instead of loading and storing the 4 state
words at every update). :func:`_update_site` then updates site after site, every 8 lanes: load the 4 neighbour
rows (``vpmovsxbd``: 0 or ``-1``), form ``x_0 + 2 x_1 + 4 x_2 = -(c mod 8)``, look up ``T_{i,c}`` - on AVX2
with two ``vpermd`` (the site's 16 entries, read once per site, are two 8-lane vectors; the low 3 bits of
``-(c mod 8)`` index them, :func:`stored_entry`) and a ``vblendvps`` on slot 3's sign, elsewhere with LLVM's
generic gather (``llvm.masked.gather``, which LLVM lowers to a gather instruction or to scalar loads as its cost
model for the CPU prefers; both give the same spins) - compare the output's top 31 bits (``vpsrld``,
``vpcmpgtd``) and store the 8 bytes (``vpackssdw``, ``vpacksswb``, ``vmovq``). The generated assembly (numba
0.68, AVX2, ``inspect_asm``) has 18 vector instructions per 8 lanes and no scalar remainder. The vectors are
written out rather than left to LLVM's loop vectoriser, which on the same loop (the float32 kernel of
:mod:`dogs._kernels.gibbs_lanes`) emits run-time overlap checks and a scalar copy that a block of 8 lanes runs.

Random numbers
--------------
Each lane runs xoshiro128+ seeded from its chain's seed, as in :mod:`dogs._kernels.gibbs_lanes`
(:func:`dogs._kernels.gibbs_lanes.lane_states`, which says how the streams stay independent): a chain's spins
depend on its seed only, never on its lane, its block, the other chains or the number of threads. The
comparison uses the top 31 bits of each output.

Everything is private and takes arrays and scalars only; :func:`dogs.samplers.gibbs.run_gibbs` validates,
lays out and casts.
"""

from __future__ import annotations

import numpy as np
from llvmlite import binding as llvm_binding
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.core import config as numba_config
from numba.extending import intrinsic

from dogs._kernels.gibbs_lanes import LANE_WIDTH

__all__ = ["STATE_PADDING", "TABLE_SLOTS", "bits_to_spins", "gibbs_table", "gibbs_table_block_draws", "gibbs_table_draws",
           "slot_table", "spins_to_bits", "stored_entry"]

#: Neighbour slots per site: graphs of degree at most 4 (grids, tori, chains).
TABLE_SLOTS = 4
#: Extra uint32 words after each lane row of the random states: 16 words = one 64-byte cache line.
STATE_PADDING = 16
_ENTRIES = 1 << TABLE_SLOTS
#: Scan steps whose random outputs a block draws at once (64 x W uint32: 8 KiB at 32 lanes).
_CHUNK = 64
_TOP = 2**31 - 1
#: Sites per tile of the layout copies (:func:`spins_to_bits`, :func:`bits_to_spins`).
_TILE = 256


def stored_entry(configuration):
    """Column of ``T_{i,c}`` in :func:`slot_table`'s thresholds: ``8 h + ((-c) mod 8)`` for ``c = 8 h + (c mod 8)``.

    The kernel holds a spin ``+1`` as the byte ``-1``, so the sum ``x_0 + 2 x_1 + 4 x_2`` of the first three
    slots is ``-(c mod 8)``, whose low 3 bits ``vpermd`` reads: storing the halves in that order saves a negation.
    """
    return (configuration & 8) | (-(configuration & 7) & 7)


def slot_table(indptr, neighbors, coupling, field):
    """``(slots, thresholds)`` for a graph of degree at most 4, else ``None`` (module docstring).

    ``slots`` is ``(p, 4)`` int64: site ``i``'s neighbours in CSR order, then ``p`` (the padding row);
    ``thresholds`` is ``(p, 16)`` int32, ``T_{i,c}`` of the module docstring in column :func:`stored_entry` ``(c)``,
    built in float64 chunk by chunk.
    """
    from scipy.special import expit  # here, not at import: scipy.special costs every sampling process 0.1 s

    degrees = np.diff(indptr)
    n_vars = degrees.size
    if n_vars == 0 or degrees.max() > TABLE_SLOTS:
        return None
    slots = np.full((n_vars, TABLE_SLOTS), n_vars, dtype=np.int64)
    weights = np.zeros((n_vars, TABLE_SLOTS))
    rank = np.arange(neighbors.size) - np.repeat(indptr[:-1], degrees)
    site = np.repeat(np.arange(n_vars), degrees)
    slots[site, rank] = neighbors
    weights[site, rank] = coupling
    configuration = stored_entry(np.arange(_ENTRIES))  # the map is its own inverse
    signs = 2.0 * ((configuration[:, None] >> np.arange(TABLE_SLOTS)) & 1) - 1.0  # (16, 4): slot s of stored entry
    thresholds = np.empty((n_vars, _ENTRIES), dtype=np.int32)
    for start in range(0, n_vars, 1 << 16):
        stop = min(start + (1 << 16), n_vars)
        fields = np.asarray(field, dtype=np.float64)[start:stop, None] + weights[start:stop] @ signs.T
        thresholds[start:stop] = np.minimum(np.rint(np.ldexp(expit(2.0 * fields), 31)), _TOP)
    return slots, thresholds


# ------------------------------------------------------------------ LLVM vector code for one update of 8 lanes
_I32, _I64, _BIT = ir.IntType(32), ir.IntType(64), ir.IntType(1)
_VEC = ir.VectorType(_I32, LANE_WIDTH)
_BYTES = ir.VectorType(ir.IntType(8), LANE_WIDTH)


def _host_has_avx2() -> bool:
    """Whether numba compiles for a CPU with AVX2 (its ``vpermd`` does the table lookup)."""
    if numba_config.CPU_FEATURES is not None:
        return "+avx2" in numba_config.CPU_FEATURES
    if numba_config.CPU_NAME is not None:  # a named target without a feature list: assume nothing
        return False
    return "+avx2" in llvm_binding.get_host_cpu_features().flatten()


def _splat(builder, value, vector_type):
    undefined = ir.Constant(vector_type, ir.Undefined)
    first = builder.insert_element(undefined, value, ir.Constant(_I32, 0))
    return builder.shuffle_vector(first, undefined, ir.Constant(ir.VectorType(_I32, LANE_WIDTH), [0] * LANE_WIDTH))


def _constant(value):
    return ir.Constant(_VEC, [ir.Constant(_I32, value)] * LANE_WIDTH)


def _vector_at(builder, data, index):
    return builder.bitcast(builder.gep(data, [index]), _VEC.as_pointer())


def _site_entries(builder, row):
    """The site's 16 entries as two 8-lane vectors (AVX2: the operands of ``vpermd``), else ``None``."""
    if not _host_has_avx2():
        return None
    return tuple(builder.load(_vector_at(builder, row, ir.Constant(_I64, offset)), align=4) for offset in (0, 8))


def _lookup(builder, row, halves, low_bits, high):
    """The threshold of each lane from the site's 16 stored entries at ``row`` (:func:`slot_table`'s order):
    ``low_bits`` holds ``-(c mod 8)`` (its low 3 bits index a half), ``high`` is ``-1`` where ``c >= 8``;
    ``halves`` from :func:`_site_entries`."""
    if halves is not None:
        permute = cgutils.get_or_insert_function(builder.module, ir.FunctionType(_VEC, [_VEC, _VEC]), "llvm.x86.avx2.permd")
        low, upper = (builder.call(permute, [half, low_bits]) for half in halves)
        return builder.select(builder.icmp_signed("<", high, _constant(0)), upper, low)
    position = builder.or_(builder.and_(low_bits, _constant(7)), builder.and_(high, _constant(8)))
    wide = ir.VectorType(_I64, LANE_WIDTH)
    offsets = builder.shl(builder.zext(position, wide), ir.Constant(wide, [ir.Constant(_I64, 2)] * LANE_WIDTH))
    addresses = builder.add(_splat(builder, builder.ptrtoint(row, _I64), wide), offsets)
    pointers = builder.inttoptr(addresses, ir.VectorType(_I32.as_pointer(), LANE_WIDTH))
    gather = cgutils.get_or_insert_function(builder.module, ir.FunctionType(
        _VEC, [pointers.type, _I32, ir.VectorType(_BIT, LANE_WIDTH), _VEC]), "llvm.masked.gather.v8i32.v8p0i32")
    every_lane = ir.Constant(ir.VectorType(_BIT, LANE_WIDTH), [1] * LANE_WIDTH)
    return builder.call(gather, [pointers, ir.Constant(_I32, 4), every_lane, ir.Constant(_VEC, ir.Undefined)])


def _xoshiro128plus(builder, s0, s1, s2, s3):
    """One xoshiro128+ step of 8 lanes: ``(output, s0, s1, s2, s3)``."""
    output = builder.add(s0, s3)
    shifted = builder.shl(s1, _constant(9))
    s2 = builder.xor(s2, s0)
    s3 = builder.xor(s3, s1)
    s1 = builder.xor(s1, s2)
    s0 = builder.xor(s0, s3)
    s2 = builder.xor(s2, shifted)
    s3 = builder.or_(builder.shl(s3, _constant(11)), builder.lshr(s3, _constant(21)))
    return output, s0, s1, s2, s3


def _two_dimensional_arrays(*arrays):
    return all(isinstance(a, types.Array) and a.ndim == 2 and a.layout == "C" for a in arrays)


@intrinsic
def _draw_outputs(typingctx, states, outputs, lane, count):
    """Step the generators of lanes ``lane .. lane + 7`` ``count`` times, output ``k`` into ``outputs[k, lane:lane + 8]``:
    ``states`` (4, W + padding) uint32, ``outputs`` (K, W) uint32. The state stays in registers through the loop
    (4 vectors), so a step costs its 9 vector operations and one store instead of 4 loads and 4 stores."""
    if not _two_dimensional_arrays(states, outputs):
        return None
    signature = types.void(states, outputs, lane, count)

    def codegen(context, builder, sig, args):
        state_array, output_array = (context.make_array(t)(context, builder, a) for t, a in zip(sig.args[:2], args[:2]))
        lane_, count_ = (context.cast(builder, a, t, types.intp) for a, t in zip(args[2:], sig.args[2:]))
        stride = builder.extract_value(state_array.shape, 1)
        width = builder.extract_value(output_array.shape, 1)
        pointers = [_vector_at(builder, state_array.data, builder.add(builder.mul(ir.Constant(_I64, j), stride), lane_))
                    for j in range(4)]
        words = [cgutils.alloca_once(builder, _VEC) for _ in range(4)]  # promoted to registers by LLVM
        for pointer, word in zip(pointers, words):
            builder.store(builder.load(pointer, align=4), word)
        with cgutils.for_range(builder, count_) as loop:
            output, *state = _xoshiro128plus(builder, *(builder.load(word) for word in words))
            for word, value in zip(words, state):
                builder.store(value, word)
            row = builder.add(builder.mul(loop.index, width), lane_)
            builder.store(output, _vector_at(builder, output_array.data, row), align=4)
        for pointer, word in zip(pointers, words):
            builder.store(builder.load(word), pointer, align=4)
        return context.get_dummy_value()

    return signature, codegen


@intrinsic
def _update_site(typingctx, spins, outputs, thresholds, site, n0, n1, n2, n3, step):
    """Update ``site`` in every lane of a block, 8 lanes per vector: ``spins`` (p + 1, W) int8 (byte ``-1`` for a spin
    ``+1``, else 0), the generators' outputs of this step in ``outputs[step]``, ``thresholds`` (p, 16) int32,
    ``n0..n3`` the site's slots (module docstring). The row offsets and the site's 16 entries are read once per site."""
    if not _two_dimensional_arrays(spins, outputs, thresholds):
        return None
    signature = types.void(spins, outputs, thresholds, site, n0, n1, n2, n3, step)

    def codegen(context, builder, sig, args):
        spin_array, output_array, table = (context.make_array(t)(context, builder, a) for t, a in zip(sig.args[:3], args[:3]))
        site_, *slots, step_ = (context.cast(builder, a, t, types.intp) for a, t in zip(args[3:], sig.args[3:]))
        width = builder.extract_value(spin_array.shape, 1)
        rows = [builder.gep(spin_array.data, [builder.mul(index, width)]) for index in (*slots, site_)]
        drawn_row = builder.gep(output_array.data, [builder.mul(step_, width)])
        entries = builder.gep(table.data, [builder.mul(site_, ir.Constant(_I64, _ENTRIES))])
        halves = _site_entries(builder, entries)
        groups = builder.udiv(width, ir.Constant(_I64, LANE_WIDTH))
        with cgutils.for_range(builder, groups) as loop:
            lane = builder.mul(loop.index, ir.Constant(_I64, LANE_WIDTH))

            def bytes_at(row):
                return builder.bitcast(builder.gep(row, [lane]), _BYTES.as_pointer())

            neighbours = [builder.sext(builder.load(bytes_at(row), align=1), _VEC) for row in rows[:4]]  # 0 or -1 (spin +1)
            low_bits = neighbours[2]
            for k in (1, 0):
                low_bits = builder.add(builder.add(low_bits, low_bits), neighbours[k])
            threshold = _lookup(builder, entries, halves, low_bits, neighbours[3])
            drawn = builder.load(_vector_at(builder, drawn_row, lane), align=4)
            plus = builder.icmp_signed("<", builder.lshr(drawn, _constant(1)), threshold)
            builder.store(builder.sext(plus, _BYTES), bytes_at(rows[4]), align=1)
        return context.get_dummy_value()

    return signature, codegen


@njit(inline="always", cache=True)
def _advance(slots, thresholds, scan, start, stop, spins, states, outputs):
    """Scan steps ``start <= t < stop`` on one block, in chunks of ``outputs.shape[0]`` steps: draw the chunk's
    random outputs of every lane, then update site after site."""
    width = spins.shape[1]
    for chunk in range(start, stop, outputs.shape[0]):
        steps = min(outputs.shape[0], stop - chunk)
        for lane in range(0, width, LANE_WIDTH):
            _draw_outputs(states, outputs, lane, steps)
        for step in range(steps):
            site = np.uint64(scan[np.uint64(chunk + step)])  # unsigned: no negative-index wraparound code
            n0, n1, n2, n3 = slots[site, 0], slots[site, 1], slots[site, 2], slots[site, 3]
            _update_site(spins, outputs, thresholds, site, n0, n1, n2, n3, step)


@njit(parallel=True, cache=True)
def gibbs_table(slots, thresholds, scan, spins, states, record_vars, record_times, recorded):
    """Run every block of lanes through the whole scan, in place, recording at checkpoints.

    Parameters
    ----------
    slots, thresholds : (p, 4) int64 and (p, 16) int32
        From :func:`slot_table`.
    scan : (T,) int64
        Site indices in ``[0, p)`` (every lane updates the same site).
    spins : (n_blocks, p + 1, W) int8
        ``-1`` for a spin ``+1``, ``0`` for ``-1`` (:func:`spins_to_bits`), row ``p`` all 0; overwritten after ``T`` steps.
    states : (n_blocks, 4, W + STATE_PADDING) uint32
        xoshiro128+ states of the lanes (first ``W`` columns), advanced in place.
    record_vars, record_times : (V,) and (R,) int64
        As in :func:`dogs._kernels.gibbs.gibbs_chain`.
    recorded : (n_blocks, W, R, V) int8
        ``recorded[b, c, r, v]`` is ``+-1``, ``record_vars[v]`` of lane ``c`` of block ``b`` after ``record_times[r]`` steps.
    """
    for b in prange(spins.shape[0]):
        block, block_states, block_recorded = spins[b], states[b], recorded[b]
        outputs = np.empty((_CHUNK, block.shape[1]), dtype=np.uint32)
        done = 0
        for r in range(record_times.size):
            _advance(slots, thresholds, scan, done, record_times[r], block, block_states, outputs)
            done = record_times[r]
            for v in range(record_vars.size):
                for c in range(block.shape[1]):
                    block_recorded[c, r, v] = np.int8(-2 * block[record_vars[v], c] - 1)
        _advance(slots, thresholds, scan, done, scan.size, block, block_states, outputs)


@njit(cache=True)
def gibbs_table_block_draws(slots, thresholds, scan, block, block_states, record_vars, labels, first_chain, first, count):
    """Run one block of lanes through ``count`` passes of the scan, in place, writing a draw after each pass.

    Each lane is one dependent sequence (pass ``k + 1`` continues pass ``k``). After pass ``k`` lane ``c`` writes the
    labels (1 for a spin ``+1``, 0 for ``-1``) of ``record_vars`` to ``labels[first_chain + c, first + k]`` when
    ``first_chain + c`` is a chain (``< labels.shape[0]``); padding lanes write nothing. ``block`` is one block of
    :func:`gibbs_table`'s ``spins`` (``(p + 1, W)``), ``block_states`` its random states; ``labels`` is ``(C, D, V)``
    int8 with ``first + count <= D``.
    """
    width = block.shape[1]
    outputs = np.empty((_CHUNK, width), dtype=np.uint32)
    chains = min(width, labels.shape[0] - first_chain)
    for k in range(count):
        _advance(slots, thresholds, scan, 0, scan.size, block, block_states, outputs)
        for c in range(chains):
            row = labels[first_chain + c, first + k]
            for v in range(record_vars.size):
                row[v] = -block[record_vars[v], c]


@njit(parallel=True, cache=True)
def gibbs_table_draws(slots, thresholds, scan, spins, states, record_vars, labels, first, count):
    """:func:`gibbs_table_block_draws` for every block in parallel (``prange``): block ``b`` holds the chains from
    ``b W``; ``spins`` and ``states`` as in :func:`gibbs_table`."""
    for b in prange(spins.shape[0]):
        gibbs_table_block_draws(slots, thresholds, scan, spins[b], states[b], record_vars, labels, b * spins.shape[2],
                                first, count)


@njit(cache=True)
def spins_to_bits(spins, lanes, bits):
    """Lay out chains as lanes: ``bits[b, i, c] = -1`` where ``spins[lanes[b W + c], i] = +1``, else ``0``, for ``i < p``;
    row ``p`` is left as it is (0). ``spins`` (C, p) int8 ``+-1``; tiles of sites keep both sides in cache."""
    n_blocks, n_rows, width = bits.shape
    for b in range(n_blocks):
        for start in range(0, n_rows - 1, _TILE):
            stop = min(start + _TILE, n_rows - 1)
            for c in range(width):
                chain = spins[lanes[b * width + c]]
                for i in range(start, stop):
                    bits[b, i, c] = np.int8(-1) if chain[i] > 0 else np.int8(0)


@njit(cache=True)
def bits_to_spins(bits, spins):
    """The inverse of :func:`spins_to_bits` for the first ``C`` lanes: ``spins[b W + c, i] = -2 bits[b, i, c] - 1``."""
    n_blocks, n_rows, width = bits.shape
    n_chains = spins.shape[0]
    for b in range(n_blocks):
        for start in range(0, n_rows - 1, _TILE):
            stop = min(start + _TILE, n_rows - 1)
            for c in range(min(width, n_chains - b * width)):
                chain = spins[b * width + c]
                for i in range(start, stop):
                    chain[i] = np.int8(-2 * bits[b, i, c] - 1)
