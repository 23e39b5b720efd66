"""The sampling call's papercuts, each with its test: the bound on the average never loosens past the one-pass
bound, one meaning of ``length`` with evidence, MAR output with the library's defaults and from ``dogs exact``,
``--certify`` refused with MAR, one chain reported as unchecked (and ArviZ's logger kept off the terminal), a
user's influence matrix checked, memory refused before allocation, and UAI comment lines read."""

from __future__ import annotations

import importlib
import json
import sys

import numpy as np
import pytest
from scipy import sparse
from test_cli_papercuts import run_cli
from test_evidence_sampling import TOLERANCE, _exact_marginal_tvs

from dogs.bounds import check_influence_bound, exact_influence, influence_bound
from dogs.certificates import marginal_certificate
from dogs.cli import EXIT_BAD_INPUT, EXIT_OK, EXIT_TOO_LARGE, main
from dogs.models import grid_model
from dogs.models.binary import BinaryPairwiseMRF, grid_edges
from dogs.models.evidence import read_uai_evidence
from dogs.models.uai import read_uai_model, write_uai
from dogs.resources import TooLargeError
from dogs.sampling_call import SamplingWarning, sample
from dogs.scans import systematic_scan
from dogs.uai_mar import parse_uai_mar


@pytest.fixture
def grid6(tmp_path):
    """A 2 x 3 grid as a UAI file with an evidence file observing 2 of its 6 variables."""
    model = grid_model(2, 3, coupling=0.3, field=0.1)
    uai = write_uai(model, tmp_path / "g.uai")
    (tmp_path / "g.uai.evid").write_text("2 0 1 4 0\n")
    return model, uai, tmp_path / "g.uai.evid"


# ------------------------------------------------------------------ certificates
def test_average_bound_is_never_above_the_one_pass_bound_and_holds_where_dobrushin_fails():
    """A 3x3 grid, couplings 0.6 except 0.1 on the last variable's two edges: the bound's row sums reach 2.1, so the
    variation of k passes grows with k. For the last variable one pass certifies 0.47, and the mean of min(1, V_k)
    over 200 passes was 0.997; the running minimum keeps the average bound at or below the one-pass bound, and it
    still bounds the exact bias of the average from every start (the exact chain, 30 passes)."""
    coupling = np.array([0.1 if 8 in edge else 0.6 for edge in map(tuple, grid_edges(3, 3))])
    model = grid_model(3, 3, coupling=coupling, field=0.2)
    one_pass = systematic_scan(9, 9)
    bound = influence_bound(model)
    few, many = (marginal_certificate(one_pass, bound, passes=k) for k in (3, 200))
    assert many.variation[8] < 0.5 and many.average[8] <= many.variation[8]
    assert np.all(many.average <= np.minimum(1.0, many.variation))
    assert np.all(many.average <= few.average + 1e-15)  # more draws never loosen it
    tvs = _exact_marginal_tvs(model, one_pass, 30)
    certificate = marginal_certificate(one_pass, bound, passes=30)
    for i in range(model.n_vars):
        assert tvs[:, :, i].mean(axis=1).max() <= certificate.average[i] + TOLERANCE


def test_certificate_after_a_warmup_averages_the_recorded_passes_only_and_bounds_their_exact_bias():
    """The average bound after ``w`` discarded passes is the running minimum's sum over passes ``w+1..w+K`` over K:
    the ``w + K``-pass sum less the ``w``-pass sum. It never exceeds the bound without warm-up, and it bounds the
    exact bias of the average of the recorded passes from every start (the exact chain of a 3x3 grid)."""
    model = grid_model(3, 3, coupling=0.25, field=0.2)
    one_pass = systematic_scan(9, 9)
    bound = influence_bound(model)
    warmup, passes = 5, 12
    after = marginal_certificate(one_pass, bound, passes=passes, warmup=warmup)
    whole = marginal_certificate(one_pass, bound, passes=warmup + passes)
    first = marginal_certificate(one_pass, bound, passes=warmup)
    assert after.warmup == warmup and after.passes == passes
    np.testing.assert_allclose(after.average * passes, whole.average * (warmup + passes) - first.average * warmup,
                               rtol=1e-12, atol=1e-15)
    assert np.all(after.average <= marginal_certificate(one_pass, bound, passes=passes).average + 1e-15)
    assert np.all(after.average < marginal_certificate(one_pass, bound, passes=passes).average)  # strictly here
    tvs = _exact_marginal_tvs(model, one_pass, warmup + passes)
    for i in range(model.n_vars):
        assert tvs[:, warmup:, i].mean(axis=1).max() <= after.average[i] + TOLERANCE
    with pytest.raises(ValueError, match="warmup must be a non-negative integer"):
        marginal_certificate(one_pass, bound, passes=passes, warmup=-1)


# ------------------------------------------------------------------ the warm-up
@pytest.mark.filterwarnings("ignore::dogs.sampling_call.SamplingWarning")
def test_warmup_is_recorded_and_checked_and_zero_keeps_the_draws_of_a_call_without_it():
    model = grid_model(2, 3, coupling=0.3, field=0.1)
    default = sample(model, chains=2, draws=9, seed=1, progress=False)
    none = sample(model, chains=2, draws=9, seed=1, progress=False, warmup=0)
    assert default.posterior.attrs["warmup"] == none.posterior.attrs["warmup"] == 0
    np.testing.assert_array_equal(default.posterior["label"].values, none.posterior["label"].values)
    assert sample(model, chains=2, draws=9, seed=1, progress=False, warmup=4).posterior.attrs["warmup"] == 4
    again = [sample(model, chains=2, draws=9, seed=1, progress=False, warmup=3).posterior["label"].values
             for _ in range(2)]
    np.testing.assert_array_equal(*again)  # same seed, same draws
    for bad in (-1, 2.5, True):
        with pytest.raises(ValueError, match="warmup must be an integer >= 0"):
            sample(model, chains=2, draws=9, seed=1, progress=False, warmup=bad)


@pytest.mark.filterwarnings("ignore::dogs.sampling_call.SamplingWarning")
def test_warmup_forgets_the_start():
    """Two spins with coupling 1.5 and no field, every chain started at (-1, -1): one pass from there gives
    P(X_0 = +1) = sigmoid(-3) = 0.047 (a spin of an aligned pair flips), while the stationary value is 1/2 by
    symmetry. Over 4000 chains the first recorded draw without warm-up has a share of +1 near 0.05 (below 0.1 but
    by 16 standard deviations); after 300 passes of warm-up (the chain's memory decays geometrically: at this seed
    the share was 0.43 after 10 passes and 0.49 after 30) the share is within 4.5 standard deviations
    (0.5 / sqrt(4000)) of 1/2: a false failure with probability below 1e-5."""
    model = BinaryPairwiseMRF.dense(np.array([[0.0, 1.5], [1.5, 0.0]]), np.zeros(2))
    chains = 4000
    cold = sample(model, chains=chains, draws=4, seed=3, start=0, progress=False, warmup=0)
    warm = sample(model, chains=chains, draws=4, seed=3, start=0, progress=False, warmup=300)
    share = [float(np.mean(d.posterior["label"].values[:, 0, 0])) for d in (cold, warm)]
    assert share[0] < 0.1
    assert abs(share[1] - 0.5) <= 4.5 * 0.5 / np.sqrt(chains)


# ------------------------------------------------------------------ intervals
def test_score_interval_solves_its_equation_and_tends_to_three_standard_errors():
    from dogs.sampling_call import score_interval

    estimate, std_error = np.array([0.002, 0.3, 0.5]), np.array([6e-4, 0.03, 1e-4])
    lower, upper = score_interval(estimate, std_error)
    n = estimate * (1 - estimate) / std_error ** 2
    for end in (lower, upper):  # |p_hat - p| = 3 sqrt(p (1 - p) / n) at both ends
        np.testing.assert_allclose(np.abs(estimate - end), 3 * np.sqrt(end * (1 - end) / n), rtol=1e-9)
    assert lower[0] < estimate[0] - 3 * std_error[0] + 1e-3 and upper[0] > estimate[0] + 3 * std_error[0]
    np.testing.assert_allclose([lower[2], upper[2]], [0.5 - 3e-4, 0.5 + 3e-4], rtol=1e-6)  # large n: p_hat +- 3 s
    lower, upper = score_interval([0.0, 1.0, 0.4, 0.4], [np.nan, np.nan, 0.0, np.nan])
    assert np.isnan(lower).all() and np.isnan(upper).all()


@pytest.mark.parametrize("p, n", [(0.002, 5000), (0.01, 1000), (0.0005, 20000)])
def test_score_interval_covers_rare_states_where_the_plain_one_does_not(p, n):
    """Independent draws, so the standard error is the binomial one at the estimate: the exact coverage over every
    count k >= 1 (k = 0 is :func:`unseen_bound`'s), summed over the binomial law, not sampled (no false failures).
    Measured: the score interval 99.65-99.67% (nominal 99.73%), the plain estimate +- 3 standard errors 97.1%."""
    from scipy.stats import binom

    from dogs.sampling_call import score_interval

    k = np.arange(1, n)
    estimate = k / n
    std_error = np.sqrt(estimate * (1 - estimate) / n)
    weight = binom.pmf(k, n, p)
    lower, upper = score_interval(estimate, std_error)
    assert np.sum(weight * ((lower <= p) & (p <= upper))) > 0.995
    assert np.sum(weight * (np.abs(estimate - p) <= 3 * std_error)) < 0.975


@pytest.mark.filterwarnings("ignore::dogs.sampling_call.SamplingWarning")
def test_marginals_give_every_estimate_an_interval():
    """States drawn get the score interval; a state never drawn gets 0 to its unseen bound; the interval holds the
    estimate."""
    from dogs.sampling_call import marginals, score_interval

    from dogs.models.factor_graph import DiscreteFactorGraph

    table = np.log([[0.3, 0.2, 1e-9], [0.2, 0.3, 1e-9]])  # the third state of variable 1 is never drawn
    model = DiscreteFactorGraph.from_factors([2, 3], [((0, 1), table)])
    table = marginals(sample(model, chains=2, draws=30, seed=0, progress=False))
    seen = np.isfinite(table["std_error"].to_numpy())
    lower, upper = score_interval(table["probability"], table["std_error"])
    np.testing.assert_array_equal(table["lower"].to_numpy()[seen], lower[seen])
    np.testing.assert_array_equal(table["upper"].to_numpy()[seen], upper[seen])
    unseen = ~seen & np.isfinite(table["unseen_bound"].to_numpy())
    assert unseen.any()
    at_zero = unseen & (table["probability"].to_numpy() == 0)
    np.testing.assert_array_equal(table["upper"].to_numpy()[at_zero], table["unseen_bound"].to_numpy()[at_zero])
    assert np.all(table["lower"].to_numpy()[at_zero] == 0)
    bounded = np.isfinite(table["lower"].to_numpy())
    assert np.all(table["lower"].to_numpy()[bounded] <= table["probability"].to_numpy()[bounded])
    assert np.all(table["probability"].to_numpy()[bounded] <= table["upper"].to_numpy()[bounded])


# ------------------------------------------------------------------ one meaning of length with evidence
@pytest.mark.filterwarnings("ignore::dogs.sampling_call.SamplingWarning")
@pytest.mark.parametrize("scan", ["systematic", "uniform"])
def test_length_counts_steps_over_unobserved_variables_in_library_and_command(grid6, scan, capsys):
    model, uai, evid = grid6
    code, out, err = run_cli(["sample", uai, "--evidence", evid, "--scan", scan, "--length", "12", "--chains", "3",
                              "--draws", "40", "--seed", "5", "--warmup", "7"], capsys)
    assert code == EXIT_OK, err
    result = json.loads(out)
    data = sample(model, scan, length=12, chains=3, draws=40, seed=5, evidence={0: 1, 4: 0}, progress=False,
                  warmup=7)
    assert result["scan_length"] == data.posterior.attrs["scan_length"] == 12
    assert result["warmup"] == 7 and result["site_updates"] == 3 * (7 + 40) * 12  # the warm-up counts as work
    labels = data.posterior["label"].values
    for row in result["marginals"]:
        m = data.posterior["node"].values.tolist().index(row["variable"])
        assert row["probability"] == pytest.approx(float(np.mean(labels[:, :, m] == row["state"])), abs=1e-15)
    code, out, err = run_cli(["sample", uai, "--evidence", evid, "--scan", scan, "--chains", "2", "--draws", "8"],
                             capsys)
    assert code == EXIT_OK and json.loads(out)["scan_length"] == 4  # default: one sweep of the 4 unobserved


# ------------------------------------------------------------------ MAR output
@pytest.mark.filterwarnings("ignore::dogs.sampling_call.SamplingWarning")
def test_mar_output_takes_the_library_defaults(grid6, capsys):
    model, uai, _ = grid6
    code, out, err = run_cli(["sample", uai, "--format", "uai-mar"], capsys)
    assert code == EXIT_OK, err
    tables = parse_uai_mar(out)
    data = sample(model, progress=False)  # the library's defaults: one systematic sweep, 4 chains, 250 draws, seed 0
    ones = data.posterior["label"].values.mean(axis=(0, 1))
    np.testing.assert_allclose([t[1] for t in tables], ones, atol=1e-15)


def test_exact_writes_mar_with_evidence(grid6, capsys):
    _, uai, evid = grid6
    code, out, err = run_cli(["exact", uai, "--evidence", evid, "--format", "uai-mar"], capsys)
    assert code == EXIT_OK, err
    tables = parse_uai_mar(out)
    code, js, _ = run_cli(["exact", uai, "--evidence", evid], capsys)
    rows = json.loads(js)["marginals"]
    assert len(tables) == 6 and tables[0].tolist() == [0.0, 1.0] and tables[4].tolist() == [1.0, 0.0]
    for row in rows:
        assert tables[row["variable"]][row["state"]] == pytest.approx(row["probability"], abs=1e-15)


def test_certify_with_mar_is_refused_before_sampling(grid6, capsys):
    _, uai, _ = grid6
    code, out, err = run_cli(["sample", uai, "--format", "uai-mar", "--certify"], capsys)
    assert code == EXIT_BAD_INPUT and out == "" and "certificate" in err and len(err.strip().splitlines()) == 1


# ------------------------------------------------------------------ one chain
def test_one_chain_says_convergence_was_not_checked_and_arviz_stays_quiet(grid6, capfd):
    _, uai, _ = grid6
    code = main(["sample", str(uai), "--chains", "1", "--draws", "30"])
    err = capfd.readouterr().err
    assert code == EXIT_OK
    assert "not checked" in err and "one" in err and "never changed" not in err
    assert "arviz" not in err.lower() and "Shape validation" not in err


# ------------------------------------------------------------------ a user's influence matrix
@pytest.mark.filterwarnings("ignore::dogs.sampling_call.SamplingWarning")  # 8 draws do not converge; not the point here
def test_a_users_influence_matrix_is_checked():
    model = grid_model(3, 3, coupling=0.3, field=0.1)
    good = exact_influence(model)
    assert (check_influence_bound(good, model) != good).nnz == 0
    data = sample(model, chains=2, draws=8, certify=True, influence=good, progress=False)
    assert json.loads(data.posterior.attrs["certificate"])[0]["bound"] is not None
    with pytest.raises(ValueError, match="interact"):  # all zeros would certify zero bias
        sample(model, certify=True, influence=sparse.csr_matrix((9, 9)), progress=False)
    with pytest.raises(ValueError, match=r"\(9, 9\)"):
        check_influence_bound(np.zeros((8, 8)), model)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        check_influence_bound(good * 10, model)
    off_edges = good.tolil()
    off_edges[0, 8] = 0.1
    with pytest.raises(ValueError, match="not neighbours"):
        check_influence_bound(off_edges.tocsr(), model)
    with pytest.raises(ValueError, match="certify=True"):
        sample(model, influence=good, progress=False)


# ------------------------------------------------------------------ memory
def test_memory_is_refused_before_allocation(grid6, capsys):
    model, uai, _ = grid6
    with pytest.raises(TooLargeError, match="chains=1000000000"):
        sample(model, chains=10**9, progress=False)
    with pytest.raises(TooLargeError, match="variables="):
        sample(grid_model(100, 100, 0.1), chains=64, draws=10**6, progress=False)
    code, out, err = run_cli(["sample", uai, "--chains", "1e9"], capsys)
    assert code == EXIT_TOO_LARGE and out == "" and "--chains" in err


# ------------------------------------------------------------------ UAI comments
def test_uai_comment_lines_are_read(grid6, tmp_path):
    model, uai, evid = grid6
    text = uai.read_text().splitlines()
    commented = tmp_path / "c.uai"
    commented.write_text("c written by a tool\nc with two comment lines\n" + "\n".join(text[:2]) + "\n  c in between\n"
                         + "\n".join(text[2:]) + "\nc and one at the end\n")
    (plain, _), (with_comments, _) = read_uai_model(uai), read_uai_model(commented)
    np.testing.assert_array_equal(plain.coupling, with_comments.coupling)
    np.testing.assert_array_equal(plain.h, with_comments.h)
    (tmp_path / "c.evid").write_text("c observed\n2 0 1 4 0\n")
    assert read_uai_evidence(tmp_path / "c.evid") == read_uai_evidence(evid)


def test_the_old_module_name_warns_and_is_the_sampling_call(monkeypatch):
    import dogs.sampling_call

    monkeypatch.delitem(sys.modules, "dogs.sampling", raising=False)
    with pytest.warns(DeprecationWarning, match="dogs.sampling_call"):
        old = importlib.import_module("dogs.sampling")
    assert old is dogs.sampling_call and old.sample is sample is dogs.sample
