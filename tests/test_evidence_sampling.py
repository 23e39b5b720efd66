"""Evidence, Theorem 8 certificates per marginal, and the one sampling call (library and ``dogs sample``).

Exact answers: pgmpy's variable elimination with ``evidence=`` on the unconditioned network (independent of
our conditioning code), and exact Markov chains of the scan on the conditioned model (dogs.exact.chains).
The one sampled comparison (the 6x6 grid) is a chi-square test over the unobserved variables: the sum of
squared z-scores at the reported (ESS-based) standard errors against the chi-square quantile of 1 - 1e-3,
a false-failure rate of about 1e-3 per run (about, because the standard errors are themselves estimated).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

from dogs.bounds import influence_bound
from dogs.certificates import marginal_certificate
from dogs.cli import EXIT_BAD_INPUT, EXIT_OK, main
from dogs.exact.chains import evolve, site_kernels, state_space, stationary_distribution, tv_distance
from dogs.models import DiscretePairwiseMRF, grid_model, to_pgmpy
from dogs.models.evidence import EvidenceError, condition, read_uai_evidence
from dogs.models.uai import write_uai
from dogs.sampling_call import marginals, sample
from dogs.scans import Scan, systematic_scan, uniform_scan

TOLERANCE = 1e-9


def _pgmpy_conditional(model, evidence: dict) -> dict:
    """``{(variable, state): P(X_v = state | evidence)}`` from pgmpy's variable elimination."""
    from pgmpy.inference import VariableElimination

    network = to_pgmpy(model)
    engine = VariableElimination(network)
    given = {f"x{i}": v for i, v in evidence.items()}
    out = {}
    for i in range(model.n_vars):
        if i in evidence:
            continue
        factor = engine.query([f"x{i}"], evidence=given, show_progress=False)
        factor.normalize()
        for k, value in enumerate(factor.values):
            out[(i, k)] = float(value)
    return out


def _potts_chain():
    rng = np.random.default_rng(5)
    edges = np.array([[0, 1], [1, 2], [2, 3], [0, 3]])
    return DiscretePairwiseMRF(np.array([3, 2, 3, 3]), [rng.normal(0, 0.5, k) for k in (3, 2, 3, 3)], edges,
                               [rng.normal(0, 0.4, (a, b)) for a, b in ((3, 2), (2, 3), (3, 3), (3, 3))])


def test_uai_evidence_files_in_both_forms_and_their_errors(tmp_path):
    def read(text, n_vars=None):
        path = tmp_path / "e.evid"
        path.write_text(text)
        return read_uai_evidence(path, n_vars)

    assert read("2 1 0 2 1") == {1: 0, 2: 1}
    assert read("1\n2 2 1 1 0\n") == {1: 0, 2: 1}  # the older form with a sample count of one
    assert read("0") == {} and read("1 0") == {}
    for text, words in (("3 1 0", "needs 7 numbers"), ("2 1 0 2 1 4 0 5", "several evidence samples"),
                        ("1 -1 0", "not a non-negative integer"), ("", "empty"), ("2 1 0 1 1", "contradicting")):
        with pytest.raises(EvidenceError, match=words):
            read(text)
    with pytest.raises(EvidenceError, match="variables 0..3"):
        read("1 7 0", n_vars=4)


@pytest.mark.parametrize("kind", ["binary", "discrete"])
def test_conditioning_matches_pgmpy_variable_elimination_with_evidence(kind):
    from dogs.exact import brute_force

    model = grid_model(3, 3, coupling=0.4, field=np.linspace(-0.5, 0.6, 9)) if kind == "binary" else _potts_chain()
    evidence = {0: 1, 4: 0} if kind == "binary" else {2: 2}
    conditioned = condition(model, evidence)
    expected = _pgmpy_conditional(model, evidence)
    exact = brute_force(conditioned.model)
    for r, i in enumerate(conditioned.free.tolist()):
        for k, value in enumerate(exact.node_marginals[r]):
            assert value == pytest.approx(expected[(i, k)], abs=1e-10)
    # log Z(e) = log Z_reduced + log_constant equals log sum over the full space with the evidence fixed
    full = state_space([2] * 9 if kind == "binary" else model.cardinalities.tolist())
    fixed = np.all([full[:, i] == v for i, v in evidence.items()], axis=0)
    log_potential = model.log_potential(2.0 * full - 1.0 if kind == "binary" else full)
    assert exact.log_partition + conditioned.log_constant == pytest.approx(
        float(np.log(np.exp(log_potential[fixed]).sum())), abs=1e-10)
    with pytest.raises(EvidenceError, match="states 0..1"):
        condition(grid_model(2, 2, 0.1), {0: 2})
    with pytest.raises(EvidenceError, match="variables 0..3"):
        condition(grid_model(2, 2, 0.1), {9: 0})


def _exact_marginal_tvs(reduced, one_pass: Scan, passes: int) -> np.ndarray:
    """``tv[s, k, i]``: TV distance of variable i's marginal after k+1 passes from start s (every point mass,
    then the uniform start) to its stationary marginal, from the exact chain of the scan."""
    binary = not hasattr(reduced, "cardinalities")
    cards = [2] * reduced.n_vars if binary else reduced.cardinalities.tolist()
    states = state_space(cards)
    log_w = reduced.log_potential(2.0 * states - 1.0 if binary else states)
    pi = stationary_distribution(log_w)
    kernels = site_kernels(log_w, cards)
    starts = np.vstack([np.eye(pi.size), np.full(pi.size, 1.0 / pi.size)])
    out = np.empty((starts.shape[0], passes, reduced.n_vars))
    dist = starts
    for k in range(passes):
        dist = evolve(dist, kernels, one_pass.indices)
        for i in range(reduced.n_vars):
            marginal = np.stack([np.bincount(states[:, i], weights=row, minlength=cards[i]) for row in dist])
            stationary = np.bincount(states[:, i], weights=pi, minlength=cards[i])
            out[:, k, i] = tv_distance(marginal, stationary)
    return out


@pytest.mark.parametrize("case", ["grid_systematic", "grid_uniform", "potts_systematic", "grid_dogs_order"])
def test_certificate_is_at_least_the_exact_marginal_distance_from_every_start(case):
    if case.startswith("grid"):
        conditioned = condition(grid_model(3, 3, coupling=0.25, field=0.2), {4: 1})
    else:
        conditioned = condition(_potts_chain(), {1: 0})
    reduced = conditioned.model
    m = reduced.n_vars
    one_pass = {"grid_systematic": lambda: systematic_scan(m, m), "grid_uniform": lambda: uniform_scan(m, 2 * m),
                "potts_systematic": lambda: systematic_scan(m, m),
                "grid_dogs_order": lambda: Scan(np.array([0, 1, 2, 0, 3, 7, 0, 5]), m)}[case]()
    passes = 3
    certificate = marginal_certificate(one_pass, influence_bound(reduced), passes=passes)
    tvs = _exact_marginal_tvs(reduced, one_pass, passes)
    informative = 0
    for i in range(m):
        worst_one_pass = tvs[:, 0, i].max()
        assert worst_one_pass <= min(1.0, certificate.variation[i]) + TOLERANCE
        worst_average = tvs[:, :, i].mean(axis=1).max()  # the average's bias is at most this mean of TVs
        assert worst_average <= certificate.average[i] + TOLERANCE
        informative += certificate.bound(i) is not None
        if certificate.bound(i) is None:
            assert "certifies nothing" in certificate.reason(i)
    assert informative > 0  # the cases are chosen so that the test checks real (non-vacuous) bounds


@pytest.mark.filterwarnings("ignore::dogs.sampling_call.SamplingWarning")
def test_library_call_returns_inference_data_that_arviz_summarises():
    import arviz

    model = grid_model(4, 4, coupling=0.2, field=0.1)
    data = sample(model, "systematic", chains=3, draws=40, seed=2, evidence={5: 1}, certify=True, progress=False)
    assert data.posterior["label"].shape == (3, 40, 15)
    assert 5 not in data.posterior["node"].values.tolist()
    summary = arviz.summary(data)
    assert len(summary) == 15 and np.all(np.isfinite(summary["mean"]))
    table = marginals(data)
    assert len(table) == 30 and {"bound", "bound_average", "std_error", "r_hat"} <= set(table.columns)
    again = sample(model, "systematic", chains=3, draws=40, seed=2, evidence={5: 1}, progress=False)
    np.testing.assert_array_equal(again.posterior["label"].values, data.posterior["label"].values)
    with pytest.raises(ValueError, match="observed"):
        sample(model, variables=[5], evidence={5: 1}, progress=False)


def _run(argv, capsys):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.filterwarnings("ignore::dogs.sampling_call.SamplingWarning")
def test_command_and_library_agree_on_the_same_seed(tmp_path, capsys):
    model = grid_model(3, 3, coupling=0.3, field=0.1)
    uai = write_uai(model, tmp_path / "g.uai")
    (tmp_path / "g.uai.evid").write_text("1 2 0\n")
    code, out, err = _run(["sample", str(uai), "--scan", "systematic", "--length", "9", "--chains", "3", "--draws",
                           "30", "--seed", "11", "--evidence", str(tmp_path / "g.uai.evid"), "--certify"], capsys)
    assert code == EXIT_OK, err
    result = json.loads(out)
    data = sample(model, "systematic", length=9, chains=3, draws=30, seed=11, evidence={2: 0}, certify=True,
                  progress=False)
    table = marginals(data)
    assert result["evidence"] == [{"variable": 2, "state": 0, "cardinality": 2}]
    assert [(r["variable"], r["state"]) for r in result["marginals"]] == list(zip(table["variable"], table["state"]))
    np.testing.assert_array_equal([r["probability"] for r in result["marginals"]], table["probability"])
    np.testing.assert_array_equal([np.nan if r["bound"] is None else r["bound"] for r in result["marginals"]],
                                  table["bound"])


def test_sample_with_evidence_and_certificate_on_a_6x6_grid(tmp_path, capsys):
    """The issue's acceptance run: 8 chains, evidence on 3 variables, against pgmpy with evidence."""
    model = grid_model(6, 6, coupling=0.15, field=np.linspace(-0.3, 0.3, 36))
    uai = write_uai(model, tmp_path / "model.uai")
    evidence = {0: 1, 14: 0, 35: 1}
    evid = tmp_path / "model.uai.evid"
    evid.write_text(f"{len(evidence)} " + " ".join(f"{i} {v}" for i, v in evidence.items()) + "\n")
    code, out, err = _run(["sample", str(uai), "--evidence", str(evid), "--certify", "--chains", "8", "--scan",
                           "systematic", "--length", "36", "--draws", "300", "--seed", "0"], capsys)
    assert code == EXIT_OK, err
    result = json.loads(out)
    assert result["evidence"] == [{"variable": i, "state": v, "cardinality": 2} for i, v in evidence.items()]
    rows = [r for r in result["marginals"] if r["state"] == 1]  # state 0 carries the same information
    assert sorted(r["variable"] for r in rows) == sorted(set(range(36)) - set(evidence))
    expected = _pgmpy_conditional(model, evidence)
    z = np.array([(r["probability"] - expected[(r["variable"], 1)]) / r["std_error"] for r in rows])
    assert float(np.sum(z**2)) < stats.chi2.ppf(1 - 1e-3, df=z.size), z
    for row in result["marginals"]:
        if row["bound"] is None:
            assert row["bound_reason"] and "certifies nothing" in row["bound_reason"]
        else:
            assert 0.0 <= row["bound_average"] <= row["bound"] < 1.0 and row["bound_reason"] is None
    assert result["certified_variables"] > 0

    code, out, err = _run(["exact", str(uai), "--evidence", str(evid)], capsys)
    assert code == EXIT_OK, err
    exact = json.loads(out)
    for row in exact["marginals"]:
        assert row["probability"] == pytest.approx(expected[(row["variable"], row["state"])], abs=1e-9)


@pytest.mark.parametrize("text, words", [("1 40 0", "variables 0..8"), ("1 3 2", "states 0..1"),
                                         ("2 3 0 3 1", "contradicting"), ("2 3 0", "needs 5 numbers")])
def test_bad_evidence_is_one_clear_line(tmp_path, capsys, text, words):
    uai = write_uai(grid_model(3, 3, coupling=0.2), tmp_path / "g.uai")
    evid = tmp_path / "g.uai.evid"
    evid.write_text(text)
    for argv in (["exact", str(uai)], ["bound", str(uai)], ["scan", str(uai), "--target", "0", "--budget", "9"],
                 ["sample", str(uai), "--scan", "systematic", "--length", "9"]):
        code, out, err = _run(argv + ["--evidence", str(evid)], capsys)
        assert code == EXIT_BAD_INPUT and out == "" and words in err and len(err.strip().splitlines()) == 1, err


def test_bound_and_scan_with_evidence_use_the_model_indices(tmp_path, capsys):
    from scipy import sparse

    uai = write_uai(grid_model(3, 3, coupling=0.2), tmp_path / "g.uai")
    evid = tmp_path / "g.uai.evid"
    evid.write_text("1 4 1")
    code, out, err = _run(["bound", str(uai), "--evidence", str(evid), "--out", str(tmp_path / "c.npz")], capsys)
    assert code == EXIT_OK, err
    bound = sparse.load_npz(tmp_path / "c.npz")
    assert bound.shape == (9, 9) and bound[4].nnz == 0 and bound[:, 4].nnz == 0 and bound[0, 1] > 0
    code, out, err = _run(["scan", str(uai), "--evidence", str(evid), "--target", "0", "--budget", "18", "--out",
                           str(tmp_path / "s.txt")], capsys)
    assert code == EXIT_OK, err
    indices = np.loadtxt(tmp_path / "s.txt", dtype=np.int64)
    assert 4 not in indices.tolist() and json.loads(out)["observed"] == 1
    code, out, err = _run(["scan", str(uai), "--evidence", str(evid), "--target", "4", "--budget", "9"], capsys)
    assert code == EXIT_BAD_INPUT and "observes" in err


def test_the_docs_example_runs_as_written():
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "library.md").read_text()
    section = text[text.index("## Evidence, certificates and one sampling call"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    namespace: dict = {}
    exec(compile(code, "docs/library.md (evidence example)", "exec"), namespace)
    table = namespace["table"]
    assert len(table) == 28 and table["bound"].notna().any()
