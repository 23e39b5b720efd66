r"""Blocks for Gibbs sampling of factor graphs with deterministic structure: variables tied by zero entries.

Single-site Gibbs can be reducible when factors have zero entries: in asia, ``either`` is the deterministic OR
of ``tub`` and ``lung``, so from ``(tub, lung, either) = (1, 0, 1)`` no single change reaches ``(0, 1, 1)``
through states of positive probability, and a chain never visits both. Updating a *block* ``B`` of variables
jointly from its exact conditional given the rest,

.. math::

    \pi(X_B = c \mid x_{-B}) \propto \prod_{f \,:\, S_f \cap B \ne \emptyset} \phi_f\big(x_{S_f}^{(B \to c)}\big),

is a Gibbs kernel of :math:`\pi` too (it leaves :math:`\pi` invariant whatever the scan; the kernel's rule is
in :mod:`dogs._kernels.factor_gibbs`), and moves between such states in one step when ``B`` holds the
variables a zero entry ties together.

Choice (:func:`deterministic_blocks`). A factor *ties* its scope when some entry is at most ``near_zero`` times its
largest entry (``near_zero = 0``: exactly the factors with zero entries). Blocks grow by union-find from single
variables: first every tied factor's whole scope, then every pair of variables within a tied scope, each in
increasing order of the joint configurations the merge would make (ties to the lower factor index), a merge made
only when the merged block has at most ``max_configurations`` joint configurations (the product of its
variables' cardinalities; default :data:`MAX_BLOCK_CONFIGURATIONS`). An update of a block of ``C``
configurations costs ``C`` products of its factors, so the cap bounds a step's work; a tie the cap leaves
unmerged stays a possible cause of reducibility, which split R-hat then reports.
"""

from __future__ import annotations

import numpy as np

from dogs.models.factor_graph import DiscreteFactorGraph

__all__ = ["MAX_BLOCK_CONFIGURATIONS", "deterministic_blocks", "pack_blocks"]

#: Default cap on a block's joint configurations in :func:`deterministic_blocks`.
MAX_BLOCK_CONFIGURATIONS = 64
#: Largest block (joint configurations) :func:`pack_blocks` accepts: the kernel's work array holds them all.
BLOCK_CONFIGURATIONS_LIMIT = 1 << 16


def deterministic_blocks(model: DiscreteFactorGraph, max_configurations: int = MAX_BLOCK_CONFIGURATIONS,
                         near_zero: float = 0.0) -> list[np.ndarray]:
    """Blocks of variables tied by zero (or near-zero) entries, each sorted, of two or more variables and at most
    ``max_configurations`` joint configurations (module docstring); the other variables stay single sites."""
    if not isinstance(model, DiscreteFactorGraph):
        raise TypeError(f"model must be a DiscreteFactorGraph, got {type(model).__name__}")
    if not 0.0 <= near_zero < 1.0:
        raise ValueError(f"near_zero must lie in [0, 1), got {near_zero}")
    card = model.cardinalities.astype(np.float64)
    tied = []
    for f in range(model.n_factors):
        scope = model.scope(f)
        if scope.size < 2:
            continue
        table = model.log_values[model.table_starts[f]:model.table_starts[f + 1]]
        smallest = table.min() - table.max()  # log of the smallest entry over the largest
        if smallest == -np.inf or (near_zero > 0 and smallest <= np.log(near_zero)):
            tied.append((f, scope.tolist()))
    root = np.arange(model.n_vars)

    def find(i):
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    configurations = card.copy()  # of each root's block
    candidates = [(float(np.prod(card[scope])), f, scope) for f, scope in tied]
    candidates += [(card[a] * card[b], f, [a, b]) for f, scope in tied
                   for n, a in enumerate(scope) for b in scope[n + 1:]]
    for _, _, variables in sorted(candidates, key=lambda c: (c[0], c[1], len(c[2]))):
        roots = sorted({find(v) for v in variables})
        if len(roots) < 2:
            continue
        merged = float(np.prod(configurations[roots]))
        if merged > max_configurations:
            continue
        for r in roots[1:]:
            root[r] = roots[0]
        configurations[roots[0]] = merged
    owners = np.array([find(i) for i in range(model.n_vars)])
    blocks = [np.flatnonzero(owners == r) for r in np.unique(owners)]
    return [b for b in blocks if b.size > 1]


def pack_blocks(model: DiscreteFactorGraph, blocks) -> tuple:
    """The arrays the kernel reads for ``blocks`` (sequences of variable indices, disjoint; blocks of one variable
    are single sites): ``(block_of, block_indptr, block_vars, block_factor_indptr, block_factors,
    largest configurations)``, ``block_of[i] = -1`` for a single site, each block's factors those that contain one
    of its variables, once each, in increasing order."""
    p = model.n_vars
    block_of = np.full(p, -1, dtype=np.int64)
    members, factors, largest = [], [], 1
    for b in blocks if blocks is not None else []:
        variables = np.asarray(b)
        if variables.ndim != 1 or variables.size == 0 or not np.issubdtype(variables.dtype, np.integer):
            raise ValueError(f"every block must be a non-empty sequence of variable indices, got {b!r}")
        if variables.min() < 0 or variables.max() >= p or np.unique(variables).size != variables.size:
            raise ValueError(f"a block must list distinct variables in 0..{p - 1}, got {variables.tolist()}")
        if variables.size == 1:
            continue
        if np.any(block_of[variables] >= 0):
            raise ValueError(f"blocks must be disjoint: variable {int(variables[block_of[variables] >= 0][0])} is in "
                             "two")
        size = float(np.prod(model.cardinalities[variables].astype(np.float64)))
        if size > BLOCK_CONFIGURATIONS_LIMIT:
            raise ValueError(f"block {variables.tolist()} has {size:.0f} joint configurations, more than "
                             f"{BLOCK_CONFIGURATIONS_LIMIT}")
        block_of[variables] = len(members)
        members.append(variables.astype(np.int64))
        slots = np.concatenate([np.arange(model.factor_indptr[v], model.factor_indptr[v + 1]) for v in variables])
        factors.append(np.unique(model.factor_ids[slots]).astype(np.int64))
        largest = max(largest, int(size))

    def csr(parts):
        indptr = np.concatenate([[0], np.cumsum([part.size for part in parts])]).astype(np.int64)
        return indptr, (np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)).astype(np.int64)

    block_indptr, block_vars = csr(members)
    block_factor_indptr, block_factors = csr(factors)
    return block_of, block_indptr, block_vars, block_factor_indptr, block_factors, np.int64(largest)
