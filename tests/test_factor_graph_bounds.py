"""Influence of discrete factor graphs (dogs.bounds_factor through dogs.bounds) against brute force, the pairwise
theorems as special cases, and Theorem 8 certificates against the exact chain.

References, each independent of the code under test:

* ``brute_force_influence`` walks the whole product space: at every state, the conditional of ``x_i`` from the
  factors containing ``i`` (looked up in each factor's table by the state's values), compared with the state that
  differs in ``x_j`` only, by the convention of dogs.bounds_factor (TV when both conditionals exist, 1 when one
  does, 0 when neither does);
* on a model without zero entries, the textbook Definition 6 from the joint ``log_potential``
  (``definition6_bruteforce`` of tests/test_bounds.py);
* the exact Gibbs chain of a scan (dogs.exact.chains) for the certificates.

The random factor graphs are generated from the listed seeds: all of them are used, none is picked.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

from dogs.bounds import (BOUND_METHODS, check_influence_bound, exact_influence_factor_graph, influence_binary_pairwise,
                         influence_bound, influence_factor_graph, influence_higher_order, influence_pairwise)
from dogs.bounds_factor import beta, blanket_work, bound_slot_values, merge_repeated_scopes
from dogs.certificates import marginal_certificate
from dogs.exact.chains import evolve, site_kernels, stationary_distribution, tv_distance
from dogs.models.binary import BinaryPairwiseMRF
from dogs.models.discrete import DiscretePairwiseMRF
from dogs.models.factor_graph import DiscreteFactorGraph
from dogs.models.uai import UAINetwork, parity_form
from dogs.scans import Scan, systematic_scan, uniform_scan
from dogs.scans.dogs import dogs_scan
from test_bounds import definition6_bruteforce

TOL = 1e-12
SEEDS = range(40)


# --------------------------------------------------------------------------- models
def random_factor_graph(seed: int, *, p_max: int = 5, scale: float = 1.5, zero_rate: float = 0.15,
                        zeros_in_unary_only: bool = False) -> DiscreteFactorGraph:
    """2..p_max variables with 2-4 states, 1-6 factors of arity 1-4 (repeated scopes possible), normal log entries
    and a share of zero entries, redrawn until the distribution has some support."""
    rng = np.random.default_rng(seed)
    while True:
        p = int(rng.integers(2, p_max + 1))
        card = rng.integers(2, 5, size=p)
        factors = []
        for _ in range(int(rng.integers(1, 7))):
            scope = rng.choice(p, size=min(int(rng.integers(1, 5)), p), replace=False)
            table = rng.normal(scale=scale, size=tuple(card[scope]))
            if scope.size == 1 or not zeros_in_unary_only:
                table[rng.random(table.shape) < zero_rate] = -np.inf
            if not np.isfinite(table).any():
                table.flat[0] = 0.0
            factors.append((scope.tolist(), table))
        graph = DiscreteFactorGraph.from_factors(card, factors)
        if np.isfinite(graph.log_potential(all_states(graph))).any():
            return graph


def all_states(graph) -> np.ndarray:
    return np.array(list(itertools.product(*[range(int(k)) for k in graph.cardinalities])), dtype=np.int64)


def parity_graph(n_vars, factors, h) -> DiscreteFactorGraph:
    """``theta_S prod_{k in S} s_k`` and ``h_i s_i`` as factor tables over labels (label 0 = spin -1)."""
    tables = []
    for scope, theta in factors:
        spins = 2 * np.array(list(itertools.product([0, 1], repeat=len(scope)))) - 1
        tables.append((scope, (theta * spins.prod(axis=1)).reshape((2,) * len(scope))))
    tables += [((i,), np.array([-h[i], h[i]])) for i in range(n_vars)]
    return DiscreteFactorGraph.from_factors([2] * n_vars, tables)


def pairwise_graph(model: DiscretePairwiseMRF) -> DiscreteFactorGraph:
    factors = [((i,), model.unary[i]) for i in range(model.n_vars)]
    factors += [(tuple(e), t) for e, t in zip(model.edges.tolist(), model.tables)]
    return DiscreteFactorGraph.from_factors(model.cardinalities, factors)


def random_pairwise(seed: int) -> DiscretePairwiseMRF:
    rng = np.random.default_rng(seed)
    p = int(rng.integers(2, 7))
    card = rng.integers(2, 5, size=p)
    edges = np.array([e for e in itertools.combinations(range(p), 2) if rng.random() < 0.5]).reshape(-1, 2)
    return DiscretePairwiseMRF(card, [rng.normal(scale=2.0, size=k) for k in card], edges,
                               [rng.normal(scale=1.5, size=(card[i], card[j])) for i, j in edges])


# --------------------------------------------------------------------------- references
def brute_force_influence(graph: DiscreteFactorGraph, *, skip_undefined: bool = False) -> np.ndarray:
    """Dense influence over the whole product space, conditionals from the factors containing each variable.

    ``skip_undefined`` drops every pair with an undefined conditional (the rule that is *not* enough for Theorem 8).
    """
    card = graph.cardinalities
    p = card.size
    states = all_states(graph)
    strides = np.array([int(np.prod(card[k + 1:])) for k in range(p)])
    factors = graph.factors()
    influence = np.zeros((p, p))
    for i in range(p):
        logits = np.zeros((len(states), card[i]))
        for scope, table in factors:
            if i in scope:
                for k in range(card[i]):
                    moved = states.copy()
                    moved[:, i] = k
                    logits[:, k] += table[tuple(moved[:, list(scope)].T)]
        defined = np.isfinite(logits.max(axis=1))
        probs = np.zeros_like(logits)
        probs[defined] = np.exp(logits[defined] - logits[defined].max(axis=1, keepdims=True))
        probs[defined] /= probs[defined].sum(axis=1, keepdims=True)
        for j in range(p):
            for v in range(card[j] if j != i else 0):
                other = np.arange(len(states)) + (v - states[:, j]) * strides[j]
                both = defined & defined[other]
                tv = np.where(both, 0.5 * np.abs(probs - probs[other]).sum(axis=1), 0.0)
                if not skip_undefined:
                    tv = np.where(defined != defined[other], 1.0, tv)
                influence[i, j] = max(influence[i, j], tv.max())
    return influence


def assert_on_blanket_pattern(matrix, graph):
    assert matrix.format == "csr" and matrix.shape == (graph.n_vars, graph.n_vars)
    assert matrix.indptr is graph.indptr and matrix.indices is graph.neighbors
    assert np.all(matrix.data >= 0) and np.all(matrix.data <= 1)


# --------------------------------------------------------------------------- exact and bound against brute force
@pytest.mark.parametrize("seed", SEEDS)
def test_exact_equals_brute_force_and_the_bound_is_never_below(seed):
    graph = random_factor_graph(seed)
    reference = brute_force_influence(graph)
    exact = exact_influence_factor_graph(graph)
    assert_on_blanket_pattern(exact, graph)
    np.testing.assert_allclose(exact.toarray(), reference, atol=TOL, rtol=0)
    general = influence_factor_graph(graph, fields=False)
    sharp = influence_factor_graph(graph)
    for bound in (general, sharp):
        assert_on_blanket_pattern(bound, graph)
        assert np.all(bound.data >= exact.data - TOL)
    assert np.all(sharp.data <= general.data + TOL)
    np.testing.assert_allclose(influence_bound(graph).toarray(), reference, atol=TOL, rtol=0)  # auto: all small


def test_the_random_graphs_exercise_every_case_of_the_convention():
    """Across the seeds: pairs with one undefined conditional, undefined pairs whose skipping would lower the
    influence, infinite oscillations (bound 1) and bounds strictly between the exact value and 1."""
    mixed = lowered = vacuous = informative = 0
    for seed in SEEDS:
        graph = random_factor_graph(seed)
        full, skipped = brute_force_influence(graph), brute_force_influence(graph, skip_undefined=True)
        mixed += int(np.any(full == 1.0) and np.any((full == 1.0) & (skipped < 1.0)))
        lowered += int(np.any(skipped < full - TOL))
        bound = influence_factor_graph(graph).data
        exact = exact_influence_factor_graph(graph).data
        vacuous += int(np.any(bound == 1.0))
        informative += int(np.any((bound < 1.0) & (bound > exact + 1e-6)))
    assert min(mixed, lowered, vacuous, informative) >= 3


@pytest.mark.parametrize("seed", range(12))
def test_exact_is_definition6_without_zero_entries(seed):
    graph = random_factor_graph(100 + seed, zero_rate=0.0)
    reference = definition6_bruteforce(graph.cardinalities, graph.log_potential)
    np.testing.assert_allclose(exact_influence_factor_graph(graph).toarray(), reference, atol=TOL, rtol=0)


def test_skipping_undefined_conditionals_would_certify_a_chain_that_never_moves():
    """One factor with weight 1 at (0,0,0) and (1,1,1): the chain from (0,0,0) stays there while pi puts 1/2 on
    (1,1,1). Skipping undefined conditionals gives influence 0 and a certificate of zero bias; ours gives 1."""
    table = np.full((2, 2, 2), -np.inf)
    table[0, 0, 0] = table[1, 1, 1] = 0.0
    graph = DiscreteFactorGraph.from_factors([2, 2, 2], [((0, 1, 2), table)])
    assert not np.any(brute_force_influence(graph, skip_undefined=True))
    for method in ("exact", "factor", "auto", "theorem10"):
        np.testing.assert_array_equal(influence_bound(graph, method).toarray(), 1.0 - np.eye(3))
    scan = systematic_scan(3, 3)
    states = all_states(graph)
    log_w = graph.log_potential(states)
    stay = evolve(np.eye(8)[[0]], site_kernels(log_w, [2, 2, 2]), scan.indices)
    assert tv_distance(stay, stationary_distribution(log_w))[0] == pytest.approx(0.5)
    skipped = marginal_certificate(scan, np.zeros((3, 3)))
    ours = marginal_certificate(scan, influence_bound(graph))
    assert skipped.bound(0) == 0.0  # what skipping would certify: wrong by 1/2
    assert ours.bound(0) is None  # vacuous


def test_a_zero_entry_allowed_by_one_value_of_j_and_forbidden_by_the_other_makes_the_bound_one():
    with np.errstate(divide="ignore"):
        table = np.log(np.array([[0.5, 0.0], [0.5, 1.0]]))  # x_1 = 1 forbids x_0 = 0; x_1 = 0 allows it
    graph = DiscreteFactorGraph.from_factors([2, 2], [((0, 1), table), ((0,), np.array([0.0, 0.3]))])
    assert influence_factor_graph(graph)[0, 1] == 1.0
    assert exact_influence_factor_graph(graph)[0, 1] == pytest.approx(brute_force_influence(graph)[0, 1], abs=TOL)


# --------------------------------------------------------------------------- special cases: Theorems 10-12
@pytest.mark.parametrize("seed", range(20))
def test_general_form_is_theorem10_on_pairwise_graphs(seed):
    model = random_pairwise(seed)
    graph = pairwise_graph(model)
    np.testing.assert_allclose(influence_bound(graph, "theorem10").toarray(), influence_pairwise(model).toarray(),
                               atol=TOL, rtol=0)
    np.testing.assert_allclose(influence_bound(model, "factor").toarray(), influence_bound(graph, "factor").toarray(),
                               atol=TOL, rtol=0)
    assert np.all(influence_bound(graph, "factor").data <= influence_bound(graph, "theorem10").data + TOL)


def test_repeated_scopes_are_added_before_bounding():
    model = random_pairwise(3)
    graph = pairwise_graph(model)
    halves = [((i,), model.unary[i]) for i in range(model.n_vars)]
    for e, t in zip(model.edges.tolist(), model.tables):
        halves += [(tuple(e), 0.25 * t), (tuple(reversed(e)), 0.75 * t.T)]  # the same pair in both orders
    split = DiscreteFactorGraph.from_factors(model.cardinalities, halves)
    assert merge_repeated_scopes(graph) is graph
    assert merge_repeated_scopes(split).n_factors == graph.n_factors
    np.testing.assert_allclose(influence_factor_graph(split).toarray(), influence_factor_graph(graph).toarray(),
                               atol=TOL, rtol=0)


@pytest.mark.parametrize("seed", range(20))
def test_binary_form_is_theorem11_on_binary_pairwise_graphs(seed):
    rng = np.random.default_rng(200 + seed)
    p = int(rng.integers(2, 8))
    edges = np.array([e for e in itertools.combinations(range(p), 2) if rng.random() < 0.5]).reshape(-1, 2)
    model = BinaryPairwiseMRF(edges, rng.normal(scale=1.5, size=len(edges)), rng.normal(scale=3.0, size=p))
    graph = parity_graph(p, [(tuple(e), t) for e, t in zip(edges.tolist(), model.theta)], model.h)
    np.testing.assert_allclose(influence_factor_graph(graph).toarray(), influence_binary_pairwise(model).toarray(),
                               atol=TOL, rtol=0)
    on_model = influence_bound(model, "factor")  # the same, on the model's own pattern
    assert on_model.indices is model.neighbors
    np.testing.assert_allclose(on_model.toarray(), influence_binary_pairwise(model).toarray(), atol=TOL, rtol=0)


@pytest.mark.parametrize("seed", range(30))
def test_theorem12_as_the_binary_special_case(seed):
    """Parity factors with distinct scopes: the binary form is Theorem 12 with Lemma 14's denominator kept."""
    rng = np.random.default_rng(300 + seed)
    p = int(rng.integers(3, 7))
    scopes = {tuple(sorted(rng.choice(p, size=int(rng.integers(2, 5)) if p >= 4 else 2, replace=False).tolist()))
              for _ in range(int(rng.integers(1, 6)))}
    factors = [(scope, float(rng.normal(scale=1.5))) for scope in sorted(scopes)]
    h = rng.normal(scale=3.0, size=p)
    graph = parity_graph(p, factors, h)
    ours = influence_factor_graph(graph).toarray()
    np.testing.assert_allclose(ours, influence_higher_order(p, factors, h, tight=True).toarray(), atol=TOL, rtol=0)
    assert np.all(ours <= influence_bound(graph, "theorem12").toarray() + TOL)  # the printed form
    assert np.all(exact_influence_factor_graph(graph).toarray() <= ours + TOL)


@pytest.mark.parametrize("seed", range(20))
def test_binary_form_never_exceeds_theorem12_on_the_factors_parity_expansions(seed):
    """Any binary tables: at most Theorem 12 (tight) on the parity terms of each factor, expanded one by one."""
    graph = random_factor_graph(400 + seed, zero_rate=0.0)
    graph = DiscreteFactorGraph.from_factors([2] * graph.n_vars,
                                             [(s, t[(slice(0, 2),) * t.ndim]) for s, t in graph.factors()])
    factors, h = [], np.zeros(graph.n_vars)
    for scope, table in graph.factors():
        one = DiscreteFactorGraph.from_factors([2] * graph.n_vars, [(scope, table)])
        _, terms, fields, _ = parity_form(UAINetwork(one.cardinalities, one.scope_starts, one.scope_vars,
                                                     one.table_starts, one.log_values))
        factors += terms
        h += fields
    tight = influence_higher_order(graph.n_vars, factors, h, tight=True).toarray()
    assert np.all(influence_factor_graph(graph).toarray() <= tight + TOL)


def test_beta_is_the_closed_form_and_never_overflows():
    a = np.array([0.0, 0.3, 2.0, 5.0, 40.0, 800.0, np.inf, 1.0])
    mu = np.array([0.0, 1.0, 0.5, 9.0, 3.0, 700.0, 5.0, 1e300])
    with np.errstate(over="ignore"):
        direct = np.sinh(a[:5]) / (np.cosh(a[:5]) + np.cosh(mu[:5]))
    np.testing.assert_allclose(beta(a[:5], mu[:5]), direct, rtol=1e-14)
    assert beta(800.0, 700.0) == pytest.approx(1.0 / (1.0 + np.exp(-100.0)), rel=1e-14)
    assert beta(np.inf, 5.0) == 1.0 and beta(1.0, 1e300) == 0.0
    np.testing.assert_allclose(beta(a[:6], 0.0), np.tanh(a[:6] / 2.0), rtol=1e-14)


# --------------------------------------------------------------------------- dispatch, auto and checks
def test_auto_is_exact_on_small_blankets_and_the_bound_elsewhere(monkeypatch):
    graph = random_factor_graph(7)
    work = blanket_work(graph)
    assert work.max() > work.min()
    monkeypatch.setattr("dogs.bounds.MAX_BLANKET_WORK", float(np.median(work)))
    mixed = influence_bound(graph)
    rows = np.repeat(np.arange(graph.n_vars), np.diff(graph.indptr))
    small = (work <= np.median(work))[rows]
    np.testing.assert_allclose(mixed.data[small], exact_influence_factor_graph(graph).data[small], atol=TOL)
    np.testing.assert_allclose(mixed.data[~small], bound_slot_values(graph)[~small], atol=TOL)
    with pytest.raises(ValueError, match="max_work"):
        exact_influence_factor_graph(graph, max_work=int(work.max()) - 1)


def test_method_names_on_factor_graphs():
    binary = parity_graph(3, [((0, 1, 2), 0.4)], np.array([0.1, -0.2, 0.3]))
    general = random_factor_graph(2)
    for method in BOUND_METHODS:
        if method == "theorem11":
            with pytest.raises(ValueError, match="factor"):
                influence_bound(binary, method)
            continue
        assert influence_bound(binary, method).shape == (3, 3)
    with pytest.raises(ValueError, match="binary"):
        influence_bound(general, "theorem12")
    with pytest.raises(ValueError, match="zero entries"):
        influence_bound(DiscreteFactorGraph.from_factors([2, 2], [((0, 1), np.array([[0.0, -np.inf], [0.0, 0.0]]))]),
                        "theorem12")


def test_check_influence_bound_accepts_factor_graphs():
    graph = random_factor_graph(11, zero_rate=0.0)
    ours = influence_bound(graph)
    assert (check_influence_bound(ours, graph) != ours).nnz == 0
    dense = ours.toarray()
    i, j = np.argwhere(dense > 0)[0]
    dense[i, j] = 0.0
    with pytest.raises(ValueError, match="interact"):
        check_influence_bound(dense, graph)
    isolated = DiscreteFactorGraph.from_factors([2, 2, 2], [((0, 1), np.zeros((2, 2))), ((2,), np.zeros(2))])
    with pytest.raises(ValueError, match="not neighbours"):
        check_influence_bound(np.array([[0, 0, 0.5], [0, 0, 0], [0, 0, 0]]), isolated)


# --------------------------------------------------------------------------- Theorem 8 against the exact chain
def _exact_marginal_tvs(graph: DiscreteFactorGraph, one_pass: Scan, passes: int) -> np.ndarray:
    """``tv[s, k, i]``: TV of variable i's marginal after k + 1 passes from the point mass on support state s."""
    states = all_states(graph)
    card = graph.cardinalities.tolist()
    log_w = graph.log_potential(states)
    pi = stationary_distribution(log_w)
    kernels = site_kernels(log_w, card)
    dist = np.eye(len(states))[np.isfinite(log_w)]
    out = np.empty((dist.shape[0], passes, graph.n_vars))
    for k in range(passes):
        dist = evolve(dist, kernels, one_pass.indices)
        for i in range(graph.n_vars):
            marginal = np.stack([np.bincount(states[:, i], weights=row, minlength=card[i]) for row in dist])
            out[:, k, i] = tv_distance(marginal, np.bincount(states[:, i], weights=pi, minlength=card[i]))
    return out


@pytest.mark.parametrize("seed", range(16))
def test_certificates_are_never_below_the_exact_bias(seed):
    """Weak factors (zeros in unary factors only, so some certificates are informative) for the first half of the
    seeds, the general random graphs for the rest; systematic, uniform and DoGS scans; every support start."""
    if seed < 8:
        graph = random_factor_graph(500 + seed, p_max=4, scale=0.35, zero_rate=0.3, zeros_in_unary_only=True)
    else:
        graph = random_factor_graph(500 + seed, p_max=4)
    m = graph.n_vars
    passes = 3
    weights = np.zeros(m)
    weights[0] = 1.0
    for method in ("auto", "factor"):
        bound = influence_bound(graph, method)
        for one_pass in (systematic_scan(m, m), uniform_scan(m, 2 * m),
                         dogs_scan(systematic_scan(m, 2 * m), weights, bound).scan):
            certificate = marginal_certificate(one_pass, bound, passes=passes)
            tvs = _exact_marginal_tvs(graph, one_pass, passes)
            for i in range(m):
                assert tvs[:, 0, i].max() <= min(1.0, certificate.variation[i]) + 1e-9
                assert tvs[:, :, i].mean(axis=1).max() <= certificate.average[i] + 1e-9
                assert (certificate.bound(i) is None) == (certificate.variation[i] >= 1.0)


def test_certificate_tests_include_informative_bounds():
    informative = 0
    for seed in range(8):
        graph = random_factor_graph(500 + seed, p_max=4, scale=0.35, zero_rate=0.3, zeros_in_unary_only=True)
        certificate = marginal_certificate(systematic_scan(graph.n_vars, graph.n_vars), influence_bound(graph))
        informative += sum(certificate.bound(i) is not None for i in range(graph.n_vars))
    assert informative >= 8


# --------------------------------------------------------------------------- bundled Bayesian networks
def bayesian_network(name: str) -> DiscreteFactorGraph:
    """A pgmpy example network as a factor graph: each CPD with the child last, log 0 = -inf."""
    from pgmpy.utils import get_example_model

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        network = get_example_model(name)
    nodes = sorted(network.nodes())
    index = {n: k for k, n in enumerate(nodes)}
    factors = []
    for cpd in network.get_cpds():
        values = cpd.get_values().reshape(tuple(cpd.cardinality))
        with np.errstate(divide="ignore"):
            factors.append(([index[v] for v in cpd.variables[1:]] + [index[cpd.variables[0]]],
                            np.log(np.moveaxis(values, 0, -1))))
    return DiscreteFactorGraph.from_factors([network.get_cardinality(n) for n in nodes], factors, kind="BAYES")


def test_asia_exact_influence_equals_brute_force():
    graph = bayesian_network("asia")
    np.testing.assert_allclose(exact_influence_factor_graph(graph).toarray(), brute_force_influence(graph),
                               atol=TOL, rtol=0)


@pytest.mark.parametrize("name", ["sachs", "child", "alarm"])
def test_bundled_networks_exact_below_the_bound(name):
    graph = bayesian_network(name)
    exact = influence_bound(graph, "exact")
    assert np.all(influence_bound(graph, "factor").data >= exact.data - TOL)
    assert (influence_bound(graph) != exact).nnz == 0  # every blanket is small: auto is exact


# --------------------------------------------------------------------------- DoGS scans and the command on factor graphs
def test_dogs_scans_on_a_factor_graph_improve_the_certificate():
    from dogs.scans.dogs import length_doubling_dogs
    from dogs.scans.variation import dobrushin_variation

    graph = random_factor_graph(503, p_max=4, scale=0.35, zero_rate=0.3, zeros_in_unary_only=True)
    bound = influence_bound(graph)
    weights = np.eye(graph.n_vars)[0]
    base = systematic_scan(graph.n_vars, 4 * graph.n_vars)
    base_variation = dobrushin_variation(base, weights, bound)
    assert base_variation < 1.0
    assert dogs_scan(base, weights, bound).variation <= base_variation + TOL
    shorter = length_doubling_dogs(base, weights, bound, base_variation, bisect=True)  # --epsilon base
    assert shorter.variation <= base_variation + TOL and shorter.length <= len(base.indices)


def _run_with_model(monkeypatch, capsys, graph, argv):
    """``dogs ARGV`` with the model file read as ``graph`` (the command's reading of factor-graph files is not
    what is tested here)."""
    import json

    from dogs.cli import main

    monkeypatch.setattr("dogs.cli._commands.load_model", lambda path, guard: (graph, 0.0))
    code = main(argv)
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if captured.out else None), captured.err


def test_bound_and_scan_commands_take_factor_graphs(monkeypatch, capsys, tmp_path):
    from scipy import sparse

    from dogs.cli import EXIT_BAD_INPUT, EXIT_OK

    graph = random_factor_graph(503, p_max=4, scale=0.35, zero_rate=0.3, zeros_in_unary_only=True)
    out = tmp_path / "c.npz"
    code, result, err = _run_with_model(monkeypatch, capsys, graph, ["bound", "m.uai", "--out", str(out)])
    assert code == EXIT_OK, err
    np.testing.assert_allclose(sparse.load_npz(out).toarray(), influence_bound(graph).toarray(), atol=TOL)
    for method in ("factor", "exact", "theorem10"):
        code, result, err = _run_with_model(monkeypatch, capsys, graph, ["bound", "m.uai", "--method", method])
        assert code == EXIT_OK and result["method"] == method, err
    code, _, err = _run_with_model(monkeypatch, capsys, graph, ["bound", "m.uai", "--method", "theorem11"])
    assert code == EXIT_BAD_INPUT and "factor" in err
    code, result, err = _run_with_model(monkeypatch, capsys, graph,
                                        ["scan", "m.uai", "--target", "0", "--budget", "16", "--epsilon", "base"])
    assert code == EXIT_OK, err
    assert result["dogs_variation"] <= result["base_variation"] + TOL and not result["dogs_vacuous"]
