"""Random factor graphs and Bayesian networks for the factor-graph tests, and a plain enumeration to check them."""

from __future__ import annotations

import itertools

import numpy as np

from dogs.models.factor_graph import DiscreteFactorGraph


def random_markov_graph(rng, p: int = 5, n_factors: int = 6, max_scope: int = 3, zeros: float = 0.2):
    """Factors of random scopes (sizes 0..max_scope), entries uniform on (0.05, 3) with a share ``zeros`` of zeros.

    Every factor is positive at one reference state, so the distribution is never empty."""
    card = rng.integers(2, 4, p)
    reference = np.array([rng.integers(0, k) for k in card])
    factors = []
    for _ in range(n_factors):
        scope = tuple(int(v) for v in rng.choice(p, int(rng.integers(0, max_scope + 1)), replace=False))
        table = rng.uniform(0.05, 3.0, size=tuple(int(card[v]) for v in scope))
        table[rng.random(table.shape) < zeros] = 0.0
        table[tuple(reference[list(scope)])] = rng.uniform(0.05, 3.0)
        with np.errstate(divide="ignore"):
            factors.append((scope, np.log(table)))
    return DiscreteFactorGraph.from_factors(card, factors)


def random_bayesian_network(rng, p: int = 6, max_parents: int = 2, zeros: float = 0.2):
    """A random DAG over a shuffled order, conditional tables with a share ``zeros`` of zero entries, the child last."""
    card = rng.integers(2, 4, p)
    order = rng.permutation(p)
    factors = []
    for position, child in enumerate(order.tolist()):
        parents = [int(v) for v in rng.choice(order[:position], min(position, int(rng.integers(0, max_parents + 1))),
                                              replace=False)]
        rows = rng.dirichlet(np.ones(card[child]), size=int(np.prod(card[parents])))
        rows[rng.random(rows.shape) < zeros] = 0.0
        rows[np.arange(len(rows)), rng.integers(0, card[child], len(rows))] += 0.5  # every row keeps a positive entry
        rows /= rows.sum(axis=1, keepdims=True)
        table = rows.reshape(tuple(int(card[v]) for v in parents + [child]))
        with np.errstate(divide="ignore"):
            factors.append((tuple(parents + [child]), np.log(table)))
    factors.sort(key=lambda factor: factor[0][-1])  # one table per variable, in variable order
    return DiscreteFactorGraph.from_factors(card, factors, kind="BAYES")


def enumerate_joint(graph) -> tuple[np.ndarray, np.ndarray]:
    """Every state (rows) and its unnormalised weight, product of the factors' entries looked up one by one."""
    states = np.array(list(itertools.product(*[range(int(k)) for k in graph.cardinalities])))
    weights = np.ones(len(states))
    for scope, table in graph.factors():
        values = np.exp(table)
        weights *= np.array([values[tuple(x[list(scope)])] for x in states])
    return states, weights


def enumerated_marginals(graph, evidence: dict | None = None):
    """Node marginals of the free variables given ``evidence`` ({index: label}) and the log mass of the evidence."""
    states, weights = enumerate_joint(graph)
    keep = np.ones(len(states), dtype=bool)
    for i, value in (evidence or {}).items():
        keep &= states[:, i] == value
    mass = weights[keep].sum()
    free = [i for i in range(graph.n_vars) if i not in (evidence or {})]
    marginals = [np.array([weights[keep & (states[:, i] == k)].sum() for k in range(int(graph.cardinalities[i]))])
                 / mass for i in free]
    return marginals, float(np.log(mass))


def random_local_factor_graph(seed: int, n_vars: int = 6, zeros: float = 0.2, max_card: int = 4):
    """One factor per variable over it and 0 to 2 others (scope sizes 1 to 3), cardinalities 2 to ``max_card``,
    log entries normal(0, 0.8) with a share ``zeros`` of -inf and one entry forced finite (never a whole factor
    of zeros)."""
    from dogs.models.factor_graph import DiscreteFactorGraph

    rng = np.random.default_rng(seed)
    card = rng.integers(2, max_card + 1, n_vars)
    factors = []
    for i in range(n_vars):
        others = rng.choice(np.delete(np.arange(n_vars), i), size=rng.integers(0, 3), replace=False)
        scope = [int(v) for v in others] + [i]
        table = rng.normal(0, 0.8, tuple(int(card[v]) for v in scope))
        table[rng.random(table.shape) < zeros] = -np.inf
        table.flat[rng.integers(table.size)] = 0.0
        factors.append((scope, table))
    return DiscreteFactorGraph.from_factors(card, factors)


def or_gate_graph(kind: str = "BAYES"):
    """Four binary variables: x0 and x1 coins (0.5 and 0.1), x2 = x0 OR x1 (zeros), x3 depending softly on x2."""
    either = np.zeros((2, 2, 2))
    for a, b in itertools.product(range(2), repeat=2):
        either[a, b, int(a or b)] = 1.0
    with np.errstate(divide="ignore"):
        factors = [((0,), np.log([0.5, 0.5])), ((1,), np.log([0.9, 0.1])), ((0, 1, 2), np.log(either)),
                   ((2, 3), np.log([[0.7, 0.3], [0.2, 0.8]]))]
    return DiscreteFactorGraph.from_factors([2, 2, 2, 2], factors, kind=kind)


def block_transition(graph, states, weights, block) -> np.ndarray:
    """The exact transition matrix, on the enumerated ``states`` (weights as given), of drawing the variables of
    ``block`` jointly from their conditional; rows of states of weight 0 are left 0."""
    index = {tuple(s): n for n, s in enumerate(states.tolist())}
    matrix = np.zeros((len(states), len(states)))
    for n, state in enumerate(states):
        if weights[n] == 0:
            continue
        targets = []
        for configuration in itertools.product(*[range(int(graph.cardinalities[v])) for v in block]):
            x = state.copy()
            x[block] = configuration
            targets.append(index[tuple(x)])
        matrix[n, targets] = weights[targets] / weights[targets].sum()
    return matrix
