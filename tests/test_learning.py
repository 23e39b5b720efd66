"""MCMC maximum likelihood (DoGS §5.3) and the fast-mixing projection (Liu & Domke 2014).

Statistical test and its false-failure rate: ``test_gibbs_moments_with_a_dogs_scan_match_exact_moments`` compares
every moment estimate with its exact value at 4.5 standard errors of the mean of +-1 statistics (two-sided
normal tail 6.8e-6 per moment, at most 2.7e-4 over 40 moments by the union bound), after allowing the bias the
scan's Dobrushin variation certifies (Theorem 8: at most 2 V for a +-1 statistic).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import optimize

from dogs.bounds import influence_binary_pairwise
from dogs.experiments import mcmc_mle
from dogs.learning.mle import (
    LearningProblem,
    dogs_moment_scan,
    exact_moments,
    exact_optimum,
    gibbs_moments,
    sufficient_statistics,
)
from dogs.learning.projection import _matrix, coupling_norm, project_couplings
from dogs.models.graph import grid_edges
from dogs.scans.variation import dobrushin_variation
from dogs.summaries import first_sustained_at_or_below

from experiment_cli import SCHEMA, merged_configs, outputs_in, run

FULL, SMOKE = merged_configs()
PATH = np.array([[0, 1], [1, 2]])


# ------------------------------------------------------------------ projection
def test_infinity_projection_on_a_path_has_the_closed_form():
    # rows: z1 <= c, z1 + z2 <= c, z2 <= c; from (1.5, 0.9) with c = 2: z = a - (a1 + a2 - c)/2 (1, 1)
    result = project_couplings(PATH, 3, [1.5, -0.9], 2.0, "infinity")
    np.testing.assert_allclose(result.theta, [1.3, -0.7], atol=1e-9)
    assert result.active and result.norm_value <= 2.0 + 1e-12


def test_spectral_projection_on_a_path_has_the_closed_form():
    # ||A(z)||_2 = sqrt(z1^2 + z2^2) on a 2-edge path: the projection scales |psi| onto the circle of radius c
    psi = np.array([-1.2, 1.6])
    result = project_couplings(PATH, 3, psi, 1.0, "spectral")
    np.testing.assert_allclose(result.theta, psi / 2.0, atol=1e-7)
    assert result.norm_value <= 1.0 + 1e-12


@pytest.mark.parametrize("norm", ["infinity", "spectral"])
def test_feasible_couplings_are_returned_unchanged(norm):
    edges = grid_edges(3, 3)
    psi = np.random.default_rng(1).uniform(-0.2, 0.2, len(edges))
    result = project_couplings(edges, 9, psi, 2.5, norm)
    assert not result.active
    np.testing.assert_array_equal(result.theta, psi)


def _generic_projection(edges, n, psi, c, norm):
    """The same projection by scipy's SLSQP with the constraint written out directly (small graphs only)."""
    a = np.abs(psi)
    if norm == "infinity":
        constraints = [{"type": "ineq", "fun": (lambda z, k=k: c - sum(z[e] for e in range(len(edges)) if k in edges[e]))}
                       for k in range(n)]
    else:
        constraints = [{"type": "ineq", "fun": lambda z: c - np.linalg.eigvalsh(_matrix(edges, n, z)).max()}]
    result = optimize.minimize(lambda z: 0.5 * np.sum((z - a) ** 2), 0.5 * a, jac=lambda z: z - a,
                               constraints=constraints, bounds=[(0, None)] * len(a), method="SLSQP",
                               options={"ftol": 1e-14, "maxiter": 1000})
    return np.sign(psi) * result.x


@pytest.mark.parametrize("norm", ["infinity", "spectral"])
@pytest.mark.parametrize("seed", [0, 1])
def test_projection_agrees_with_a_generic_constrained_solver(norm, seed):
    edges = grid_edges(3, 3)
    psi = np.random.default_rng(seed).normal(0.0, 1.5, len(edges))
    ours = project_couplings(edges, 9, psi, 1.0, norm)
    generic = _generic_projection(edges, 9, psi, 1.0, norm)
    generic = generic / max(1.0, coupling_norm(edges, 9, generic, norm))  # SLSQP ends slightly outside the set
    assert coupling_norm(edges, 9, ours.theta, norm) <= 1.0 + 1e-9
    # never farther from psi than the generic solver's (feasible) answer, and (the optimum being unique) close to it
    assert np.sum((ours.theta - psi) ** 2) <= np.sum((generic - psi) ** 2) + 1e-8
    np.testing.assert_allclose(ours.theta, generic, atol=2e-3 if norm == "spectral" else 1e-6)
    assert np.all(np.sign(ours.theta) * np.sign(psi) >= 0) and np.all(np.abs(ours.theta) <= np.abs(psi) + 1e-12)


def test_projection_rejects_bad_input():
    with pytest.raises(ValueError, match="one coupling per edge"):
        project_couplings(PATH, 3, [1.0], 1.0)
    with pytest.raises(ValueError, match="c must be"):
        project_couplings(PATH, 3, [1.0, 1.0], 0.0)
    with pytest.raises(ValueError, match="norm must be"):
        project_couplings(PATH, 3, [1.0, 1.0], 1.0, "frobenius")


# ------------------------------------------------------------------ exact optimum and gradient ascent
def _problem(side=3, n=400, seed=3, radius=2.5, regularizer=0.01):
    rng = np.random.default_rng(seed)
    data = rng.choice([-1, 1], size=(n, side * side))
    return LearningProblem.from_data(grid_edges(side, side), side * side, data, regularizer=regularizer, radius=radius)


def test_exact_moments_are_the_enumerated_expectations():
    problem = _problem()
    eta = np.random.default_rng(4).normal(0, 0.3, problem.n_parameters)
    moments, log_z = exact_moments(problem, eta)
    states = np.array(np.meshgrid(*[[-1.0, 1.0]] * 9, indexing="ij")).reshape(9, -1).T
    features = sufficient_statistics(states, problem.edges)
    weights = np.exp(features @ eta)
    np.testing.assert_allclose(moments, weights @ features / weights.sum(), rtol=1e-12)
    assert log_z == pytest.approx(np.log(weights.sum()), rel=1e-12)


def test_exact_optimum_matches_an_independent_solver_when_the_constraint_is_inactive():
    problem = _problem()
    optimum = exact_optimum(problem, tol=1e-10)
    assert optimum.projected_gradient_norm <= 1e-10

    def negative(eta):
        moments, log_z = exact_moments(problem, eta)
        value = eta @ problem.data_moments - log_z - 0.5 * problem.regularizer * eta @ eta
        return -value, -(problem.data_moments - moments - problem.regularizer * eta)

    independent = optimize.minimize(negative, np.zeros(problem.n_parameters), jac=True, method="L-BFGS-B",
                                    options={"gtol": 1e-12, "ftol": 0.0}).x
    np.testing.assert_allclose(optimum.parameters, independent, atol=1e-7)


def test_exact_optimum_with_an_active_constraint_is_feasible_and_stationary():
    problem = _problem(n=30, seed=5, radius=0.2, regularizer=0.0)  # few samples: large couplings, then clipped
    optimum = exact_optimum(problem, tol=1e-9)
    theta = optimum.parameters[: len(problem.edges)]
    assert coupling_norm(problem.edges, 9, theta) <= 0.2 + 1e-9
    # concave objective, convex set: eta* is optimal iff no feasible point nearby is better
    def value(eta):
        _, log_z = exact_moments(problem, eta)
        return eta @ problem.data_moments - log_z

    best = value(optimum.parameters)
    rng = np.random.default_rng(8)
    for scale in (1e-3, 1e-2, 1e-1):
        for _ in range(50):
            other = problem.project(optimum.parameters + rng.normal(0, scale, problem.n_parameters))
            assert value(other) <= best + 1e-12
    for t in (0.01, 0.1, 1.0):  # the gradient mapping vanishes for every step length
        moments, _ = exact_moments(problem, optimum.parameters)
        mapped = problem.step(optimum.parameters, moments, t)
        assert np.linalg.norm(mapped - optimum.parameters) / t <= 1e-6


def test_gradient_ascent_with_exact_moments_converges_to_the_optimum():
    problem = _problem(side=3)
    optimum = exact_optimum(problem)
    eta = np.zeros(problem.n_parameters)
    for _ in range(600):
        moments, _ = exact_moments(problem, eta)
        eta = problem.step(eta, moments, 0.1)
    assert np.linalg.norm(eta - optimum.parameters) < 1e-6


def test_gibbs_moments_with_a_dogs_scan_match_exact_moments():
    problem = _problem(side=3)
    eta = np.random.default_rng(6).normal(0, 0.25, problem.n_parameters)
    model = problem.model(eta)
    scan = dogs_moment_scan(model, 180, 0.01)
    variation = dobrushin_variation(scan, np.ones(9), influence_binary_pairwise(model))
    assert variation <= 0.02
    chains = 20000
    estimate, work = gibbs_moments(problem, eta, scan, n_chains=chains, seed=7)
    exact, _ = exact_moments(problem, eta)
    assert work == chains * scan.length
    se = np.sqrt(np.maximum(1 - exact**2, 1e-12) / chains)
    assert np.all(np.abs(estimate - exact) <= 2 * variation + 4.5 * se)


def test_dogs_moment_scan_modes():
    problem = _problem(side=3)
    model = problem.model(np.zeros(problem.n_parameters) + 0.05)
    same = dogs_moment_scan(model, 27, 0.01, "same")
    assert same.length == 27
    doubling = dogs_moment_scan(model, 256, 0.01, "doubling")
    assert doubling.length & (doubling.length - 1) == 0  # a power of two
    assert dobrushin_variation(doubling, np.ones(9), influence_binary_pairwise(model)) <= 0.01
    with pytest.raises(ValueError, match="mode"):
        dogs_moment_scan(model, 27, 0.01, "longest")


# ------------------------------------------------------------------ summaries and the experiment steps
def test_first_sustained_crossing_ignores_a_single_dip():
    values = [1.0, 0.05, 1.0, 1.0, 0.2, 0.1, 0.1, 0.1]
    assert first_sustained_at_or_below(range(8), values, 0.1, 3) == 6
    assert first_sustained_at_or_below(range(8), values, 0.1, 1) == 1
    assert first_sustained_at_or_below(range(8), values, 0.01, 2) is None


def test_work_to_accuracy_and_speedups_on_a_hand_made_trace():
    rows = []
    for scan, errors in (("uniform", [1.0, 0.8, 0.5, 0.3, 0.2]), ("dogs", [0.5, 0.2, 0.1, 0.1, 0.1])):
        for step, error in enumerate(errors, 1):
            rows.append(("m", 2, 0, scan, step, 100 * step, 10, error))
    trace = pd.DataFrame(rows, columns=["model", "mc_sweeps", "replicate", "scan", "step", "site_updates",
                                        "scan_length", "param_error"])
    work = mcmc_mle.work_to_accuracy(trace, 0.25, 1)
    assert list(work.sort_values("scan")["site_updates_to_level"]) == [200, 500]
    ratios = mcmc_mle.speedups(work)
    assert ratios["ratio_uniform_over_dogs"].iloc[0] == pytest.approx(2.5)
    never = mcmc_mle.work_to_accuracy(trace, 0.15, 1)
    uniform = never[never["scan"] == "uniform"].iloc[0]
    assert not uniform["reached"] and uniform["site_updates_to_level"] == 500  # its total work: a lower bound


TINY = {**SMOKE["mcmc_mle"], "gradient_steps": 6, "chains": 50, "replicates": 1, "mc_sweeps": [2], "n_train": 50}


def test_the_configs_pass_the_experiment_checks():
    for config in (FULL, SMOKE):
        mcmc_mle.EXPERIMENT.context(["summarise", "--settings", json.dumps(config["mcmc_mle"]), "--schema", str(SCHEMA)])


def test_experiment_steps_end_to_end(tmp_path):
    out = outputs_in(tmp_path, training_data="training_data.npz", theta_star="theta_star.npz")
    run(mcmc_mle, "compute-optimum", TINY, 5, outputs=out, wildcards={"mle_model": "3x3"})
    with np.load(out["theta_star"]) as star:
        assert star["projected_gradient_norm"] <= TINY["exact_tolerance"]
        assert star["theta"].shape == (12,) and star["field"].shape == (9,)
    trace_path = tmp_path / "trace.csv"
    run(mcmc_mle, "compute-trace", TINY, 5, inputs=out, outputs={"trace": trace_path}, wildcards={"mle_model": "3x3"})
    trace = pd.read_csv(trace_path)
    assert {"replicate", "scan", "step", "site_updates", "param_error"} <= set(trace.columns)
    assert len(trace) == 2 * TINY["gradient_steps"]
    assert (trace.groupby("scan")["site_updates"].max() == TINY["gradient_steps"] * TINY["chains"] * 18).all()
    claims = tmp_path / "claims.json"
    run(mcmc_mle, "summarise", TINY, 5, inputs={"traces": [trace_path]},
        outputs={"summary": tmp_path / "summary.csv", "claims": claims}, smoke=True)
    measured_claims = json.loads(claims.read_text())["claims"]
    assert set(measured_claims) == {"dogs_s53_faster_to_accuracy", "dogs_s53_sensitivity"}
    again = tmp_path / "again.csv"
    run(mcmc_mle, "compute-trace", TINY, 5, inputs=out, outputs={"trace": again}, wildcards={"mle_model": "3x3"})
    pd.testing.assert_frame_equal(pd.read_csv(again), trace)


def test_an_unknown_model_wildcard_is_refused(tmp_path):
    argv = ["compute-optimum", "--settings", json.dumps(TINY), "--schema", str(SCHEMA), "--wildcard", "mle_model=9x9",
            "--output", f"training_data={tmp_path / 'a.npz'}", "--output", f"theta_star={tmp_path / 'b.npz'}"]
    assert mcmc_mle.EXPERIMENT.main(argv) == 2
