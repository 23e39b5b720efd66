r"""A pass of block updates without the draws that are overwritten before anything reads them.

With blocks (:mod:`dogs.samplers.factor_blocks`, :mod:`dogs.samplers.elimination_blocks`) a scan step on a
variable draws the variable's *unit*, its home block or, where it has none, the site alone. A scan chosen variable
by variable (DoGS, a scan of the user's) then draws a large block again and again within a pass: the steps on its
variables and on the variables it reads interleave. Many of those draws are never used. Write
:math:`K_t` for step ``t``'s update: it *writes* its unit's variables :math:`W_t`, drawing them from
:math:`\pi(x_{W_t} \mid x_{R_t})`, where :math:`R_t` is the set of their neighbours outside :math:`W_t` (the
variables sharing a factor with one of them), and *reads* nothing else.

**Rule.** Step ``t`` is dropped when, among the later steps of the pass that are kept, the first one ``u`` that
writes or reads a variable of :math:`W_t` writes all of them: :math:`W_t \subseteq W_u`.

**Proof that the pass is the same Markov kernel.** Let the steps between ``t`` and ``u`` be ``s_1, ..., s_m``:
none writes or reads :math:`W_t`. Run the pass with and without :math:`K_t` on the same uniforms from a state
:math:`x`; after :math:`K_t` the two states differ on :math:`W_t` only. Each :math:`K_{s_j}` reads variables outside
:math:`W_t`, which agree, so it writes the same values in both runs, and it leaves :math:`W_t` alone; so the states
still differ on :math:`W_t` only when ``u`` comes. :math:`K_u` reads :math:`R_u`, outside
:math:`W_u \supseteq W_t`, so it draws the same values in both runs, and it overwrites :math:`W_t`. From there the
two runs coincide (a dropped step consumes no uniforms, so the runs spend them differently; only the kernel is
claimed equal). Dropping steps one at a time, backwards, each against the steps kept after it, keeps the
composition of the pass equal to the original's at every stage, so the state recorded after a pass has the same
law given the state before it: the chains, their stationary distribution and their mixing are unchanged, and
only the cost of a pass falls. Two draws of the same unit with nothing between that touches it are the simplest
case (a Gibbs update is idempotent); a site update followed by a draw of a block holding the site is another.

The rule looks within a pass only (the state after each pass is recorded), and passes with uniform (``-1``) steps,
whose units are random, are left whole. The backward sweep is a numba kernel (:mod:`dogs._kernels.block_scans`),
linear in the pass's length times the sizes of the units it writes and reads.

Measured on DoGS's scans of the networks scoreboard (:mod:`dogs.benchmarks.networks`, evidence of its seed) with
the default blocks, block draws per pass: pathfinder (one block holds the model) 212 -> 1, water (two blocks)
58 -> 5, diabetes (four overlapping blocks, each reading the others) 820 -> 280, against 4 for the systematic
sweep, which steps on each block once (:func:`dogs.sampling_call.once_per_block`).
"""

from __future__ import annotations

import numpy as np

from dogs.models.factor_graph import DiscreteFactorGraph
from dogs.samplers.elimination_blocks import EliminationBlocks
from dogs.scans import UNIFORM, Scan

__all__ = ["unit_sets", "without_overwritten_draws"]


def _units(model: DiscreteFactorGraph, blocks) -> tuple[np.ndarray, ...]:
    """``(unit_of, write_indptr, writes, read_indptr, reads)``: the unit a step on each variable draws (a block's
    index, or ``len(blocks) + v`` for a site ``v`` of no block), and in CSR form the variables each unit writes and
    those it reads (their neighbours outside it). A site's are the model's own CSR: one variable, its blanket."""
    if isinstance(blocks, EliminationBlocks):
        written, homes = list(blocks.blocks), list(blocks.homes)
    else:
        written = homes = [np.asarray(b) for b in blocks]
    p = model.n_vars
    unit_of = len(written) + np.arange(p, dtype=np.int64)
    for u, home in enumerate(homes):
        unit_of[np.asarray(home, dtype=np.int64)] = u
    block_writes = [np.unique(np.asarray(w, dtype=np.int64)) for w in written]
    block_reads = [np.setdiff1d(np.concatenate([model.neighbors[model.indptr[v]:model.indptr[v + 1]] for v in w]), w)
                   for w in block_writes]

    def csr(block_sets, site_indptr, site_values):
        sizes = np.array([b.size for b in block_sets], dtype=np.int64)
        indptr = np.concatenate([[0], np.cumsum(sizes), sizes.sum() + np.asarray(site_indptr[1:], dtype=np.int64)])
        return indptr, np.concatenate(block_sets + [np.asarray(site_values)]).astype(np.int64)

    write_indptr, writes = csr(block_writes, np.arange(p + 1), np.arange(p))
    read_indptr, reads = csr(block_reads, model.indptr, model.neighbors)
    return unit_of, write_indptr, writes, read_indptr, reads


def unit_sets(model: DiscreteFactorGraph, blocks) -> tuple[np.ndarray, list[np.ndarray]]:
    """``(unit_of, writes)``: the unit a step on each variable draws (a block's index, or ``len(blocks) + v`` for
    a site ``v`` of no block) and the variables each unit writes, sorted. ``blocks`` is a list of disjoint blocks
    (each the home of its variables) or an :class:`~dogs.samplers.elimination_blocks.EliminationBlocks` (each
    block the home of its ``homes``, writing all its variables)."""
    unit_of, write_indptr, writes, _, _ = _units(model, blocks)
    return unit_of, np.split(writes, write_indptr[1:-1])


def without_overwritten_draws(scan: Scan, model: DiscreteFactorGraph, blocks) -> Scan:
    """``scan`` (one pass, in ``model``'s numbering) without the steps whose draw the next step touching it
    overwrites (module docstring): the same kernel per pass at a lower cost. Unchanged when ``blocks`` is empty or
    the scan has uniform steps."""
    from dogs._kernels.block_scans import overwritten_steps

    indices = np.asarray(scan.indices, dtype=np.int64)
    if not len(blocks.blocks if isinstance(blocks, EliminationBlocks) else blocks) or indices.size == 0 \
            or np.any(indices == UNIFORM):
        return scan
    unit_of, *units = _units(model, blocks)
    keep = overwritten_steps(unit_of[indices], *units, model.n_vars)
    return Scan(indices[keep], scan.n_vars)
