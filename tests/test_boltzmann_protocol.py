"""The Boltzmann-machine protocol where the paper is silent (AA §3.2): the two model forms, prior and start, inner
restarts, the sensitivity and errata variants, and the summaries that explain the paper's evidence (B1, B2, Fig. 8).

Statistical tests and their false-failure rates:
- ``test_a_prior_centred_elsewhere_is_sampled``: the exact chain with no data samples its prior N(3, 2); its mean is
  compared with 3 at 5 batch-means standard errors (false failure below 1e-6 under a normal approximation).
- ``test_the_prior_fraction_formula``: closed form against 400 000 prior draws at 6 binomial standard errors per
  weight (false failure below 1e-8 over the 10 weights).
Every other test is deterministic (fixed seeds chosen before the first run, or no randomness).
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pandas as pd
import pytest

from dogs.claims import load_paper_claims, verdict
from dogs.exact import brute_force
from dogs.experiments import annular_ising, boltzmann
from dogs.workflow.shell import SettingsError
from dogs.learning import boltzmann_posterior, posterior_accuracy
from dogs.learning.boltzmann_posterior import (
    _SpinForms,
    approximate_mh,
    authors_cmh_offset,
    form_statistic,
    log_partition,
    pair_statistics,
)
from dogs.models.binary import BinaryPairwiseMRF

from experiment_cli import ROOT, merged_configs, run

FULL, SMOKE = merged_configs()
CLAIMS = {row["id"]: row for row in load_paper_claims(ROOT / "config" / "claims")}


# ------------------------------------------------------------------ the two model forms
@pytest.mark.parametrize("form, values", [("zero_one", (0.0, 1.0)), ("spin", (-1.0, 1.0))])
def test_log_partition_and_statistic_in_each_form(form, values):
    d, rng = 5, np.random.default_rng(0)
    w = rng.normal(0, 1, 10)
    states = np.array(list(itertools.product(values, repeat=d)))
    plain = math.log(sum(math.exp(w @ pair_statistics(x)) for x in states))
    assert log_partition(w, d, form=form) == pytest.approx(plain, rel=1e-12)
    model, offset = _SpinForms(d, form).model(w)
    assert brute_force(model).log_partition + offset == pytest.approx(plain, rel=1e-12)
    y = rng.integers(0, 2, (7, d))
    x = y if form == "zero_one" else 2 * y - 1
    np.testing.assert_allclose(form_statistic(y, form), pair_statistics(x).sum(axis=0))


def test_the_spin_form_has_couplings_w_and_no_field():
    model, offset = _SpinForms(3, "spin").model([0.5, -1.0, 2.0])
    np.testing.assert_array_equal(model.theta, [0.5, -1.0, 2.0])
    np.testing.assert_array_equal(model.h, 0.0)
    assert offset == 0.0
    with pytest.raises(ValueError, match="model form"):
        form_statistic(np.zeros((2, 3)), "ising")


def test_synthetic_data_in_the_spin_form_come_from_the_spin_model():
    y01, w, b = boltzmann.synthetic_data(4, 20000, 0.1, None, np.random.SeedSequence(9), form="zero_one")
    ypm, w2, b2 = boltzmann.synthetic_data(4, 20000, 0.1, None, np.random.SeedSequence(9), form="spin")
    np.testing.assert_array_equal(w, w2)
    s = 2 * ypm.astype(float) - 1
    model = BinaryPairwiseMRF.dense(w, b)
    exact = brute_force(model)
    mean = np.array([m[1] - m[0] for m in exact.node_marginals])
    # 20000 exact draws: each spin mean within 6 standard errors (<= 1/sqrt(20000) each)
    assert np.all(np.abs(s.mean(axis=0) - mean) < 6 / math.sqrt(20000))
    assert not np.array_equal(y01, ypm)


# ------------------------------------------------------------------ the chain's options
def test_ratio_offset_shifts_every_estimate_and_leaves_the_exact_chain_alone():
    d, rng = 4, np.random.default_rng(1)
    y = rng.integers(0, 2, (50, d))
    common = dict(d=d, initial=np.zeros(6), n_steps=1, prior_variance=5.0, proposal_variance=0.1, inner_samples=20,
                  travel_time_periods=1.5, seed=np.random.SeedSequence(2))
    plain = approximate_mh(form_statistic(y), len(y), sampler="CMH", **common)
    shifted = approximate_mh(form_statistic(y), len(y), sampler="CMH", ratio_offset=-0.4, **common)
    assert shifted.estimated[0] == pytest.approx(plain.estimated[0] - 0.4, abs=1e-12)
    exact = approximate_mh(form_statistic(y), len(y), sampler="exact", ratio_offset=-0.4, **common)
    assert exact.estimated[0] == exact.exact[0]


@pytest.mark.parametrize("d, ratio", [(6, 1.5), (10, 1.278), (25, 1.104), (50, 1.051)])
def test_authors_cmh_offset_is_log_of_samples_over_f(d, ratio):
    """L / F = 1 + 2.5 / (d - 1) with t = 1.5 and clique d - 1: 1.5 for the heart data, 1.278, 1.104, 1.051."""
    assert authors_cmh_offset(d, 500, 1.5) == pytest.approx(-math.log(1 + 2.5 / (d - 1)), rel=1e-12)
    assert -authors_cmh_offset(d, 500, 1.5) == pytest.approx(math.log(ratio), abs=1e-3)


def test_the_b1_offset_inflates_the_outer_acceptance():
    """N x log 1.5 nats added to every log acceptance: with 1000 data points nearly every proposal is accepted."""
    d, rng = 6, np.random.default_rng(3)
    y = rng.integers(0, 2, (1000, d))
    common = dict(d=d, sampler="CMH", initial=np.zeros(15), n_steps=40, prior_variance=3.0, proposal_variance=0.1,
                  inner_samples=20, travel_time_periods=1.5, seed=np.random.SeedSequence(4), inner_start="restart")
    correct = approximate_mh(form_statistic(y), len(y), **common)
    authors = approximate_mh(form_statistic(y), len(y), ratio_offset=authors_cmh_offset(d, 20, 1.5), **common)
    assert authors.accepted.mean() >= 0.9 and correct.accepted.mean() <= 0.6


def test_inner_runs_restart_from_fresh_signs_or_persist(monkeypatch):
    starts, finals = [], []
    original = boltzmann_posterior.LogRatioEstimator.estimate

    def spy(self, model, delta, seed, initial_state):
        starts.append(np.array(initial_state))
        out = original(self, model, delta, seed, initial_state)
        finals.append(np.array(out[1]))
        return out

    monkeypatch.setattr(boltzmann_posterior.LogRatioEstimator, "estimate", spy)
    d, y = 8, np.random.default_rng(5).integers(0, 2, (30, 8))
    for inner_start in ("persistent", "restart"):
        starts.clear()
        finals.clear()
        approximate_mh(form_statistic(y), 30, d=d, sampler="HMC", initial=np.zeros(28), n_steps=30, prior_variance=5.0,
                       proposal_variance=0.1, inner_samples=5, travel_time_periods=1.5, seed=np.random.SeedSequence(6),
                       inner_start=inner_start)
        carried = [np.array_equal(s, f) for s, f in zip(starts[1:], finals[:-1])]
        if inner_start == "persistent":
            assert all(carried)
        else:
            assert sum(carried) <= 3  # a fresh sign vector equals the last state with probability 2^-8 per step


def test_a_prior_centred_elsewhere_is_sampled():
    chain = approximate_mh(np.zeros(1), 0, d=2, sampler="exact", initial=np.zeros(1), n_steps=40000, prior_variance=2.0,
                           proposal_variance=2.0, inner_samples=1, travel_time_periods=1.5,
                           seed=np.random.SeedSequence(7), prior_mean=np.array([3.0]))
    samples = chain.weights[2000:, 0]
    batches = samples[: len(samples) // 38 * 38].reshape(38, -1).mean(axis=1)
    assert abs(samples.mean() - 3.0) < 5 * batches.std(ddof=1) / math.sqrt(len(batches))


def test_bad_chain_options_are_refused():
    common = dict(d=3, sampler="exact", initial=np.zeros(3), n_steps=2, prior_variance=1.0, proposal_variance=0.1,
                  inner_samples=5, travel_time_periods=1.5, seed=np.random.SeedSequence(0))
    with pytest.raises(ValueError, match="inner_start"):
        approximate_mh(np.zeros(3), 1, inner_start="warm", **common)
    with pytest.raises(ValueError, match="prior_mean"):
        approximate_mh(np.zeros(3), 1, prior_mean=np.zeros(4), **common)
    with pytest.raises(ValueError, match="model form"):
        approximate_mh(np.zeros(3), 1, model_form="ising", **common)
    with pytest.raises(ValueError, match="sampler must be"):  # the LBP samplers need a prior per model
        approximate_mh(np.zeros(3), 1, **{**common, "sampler": "CMH + LBP"})
    for steps in (0, -1, 2.0, True):
        with pytest.raises(ValueError, match="n_steps"):
            approximate_mh(np.zeros(3), 1, **{**common, "sampler": "HMC", "n_steps": steps})


# ------------------------------------------------------------------ protocols and variants in the config
def test_the_default_protocol_is_the_authors_where_the_paper_is_silent():
    cfg = FULL["boltzmann"]
    heart, s10, s25 = (cfg["datasets"][k] for k in ("heart", "synthetic10", "synthetic25"))
    assert heart["prior"] == {"mean": "zero", "variance": 3.0} and heart["start"]["mean"] == "zero"
    assert s10["prior"] == {"mean": "zero", "variance": 5.0} and s10["start"]["mean"] == "truth"  # A.4.1 states N(0, 5)
    assert s25["prior"] == {"mean": "truth", "variance": 2.0} and s25["start"] == {"mean": "truth", "variance": 0.5}
    assert cfg["inner_start"] == "restart" and cfg["model_form"] == "zero_one"
    assert boltzmann.sensitivity_variants(cfg, "heart") == ["ours_protocol", "persistent_inner"]
    assert boltzmann.errata_b1_variants(cfg) == ["errata_b1"]
    assert boltzmann.errata_b2_runs(cfg) == ["main", "errata_b2_f100", "errata_b2_f10000"]


def test_chain_protocol_centres_prior_and_start_on_the_truth_only_when_asked():
    cfg = FULL["boltzmann"]
    spec = cfg["datasets"]["synthetic25"]
    truth = np.arange(300, dtype=float)
    protocol = boltzmann.chain_protocol(cfg, spec, 25, "hmc", truth)
    np.testing.assert_array_equal(protocol.options["prior_mean"], truth)
    assert protocol.options["prior_variance"] == 2.0 and protocol.options["ratio_offset"] == 0.0
    start = protocol.initial(np.random.SeedSequence(1))
    assert (start - truth).std() == pytest.approx(math.sqrt(0.5), rel=0.15)  # 300 draws: s.d. within 15% (8 s.e.)
    with pytest.raises(SettingsError, match="true weights"):
        boltzmann.chain_protocol(cfg, spec, 25, "hmc", None)
    b1 = boltzmann.variant_settings(cfg, "errata_b1", "heart")
    assert boltzmann.chain_protocol(cfg, b1, 6, "cmh").options["ratio_offset"] == pytest.approx(-math.log(1.5))
    assert boltzmann.chain_protocol(cfg, b1, 6, "hmc").options["ratio_offset"] == 0.0
    ours = boltzmann.variant_settings(cfg, "ours_protocol", "synthetic25")
    assert ours["chains"] == 50 and ours["prior"] == {"mean": "zero", "variance": 5.0} and ours["units"] == 25


@pytest.mark.parametrize("change, match", [
    ({"datasets": {"heart": {"prior": {"mean": "truth", "variance": 1.0}}}}, "no true weights"),
    ({"variants": {"v": {"datasets": ["nope"]}}}, "not a data set"),
    ({"variants": {"v": {"datasets": ["heart"], "start": {"mean": "truth", "variance": 1.0}}}}, "no true weights"),
    ({"variants": {"v": {"datasets": ["heart"], "samplers": ["hmc"], "cmh_ratio": "authors"}}}, "no CMH chain"),
    ({"variants": {"main": {"datasets": ["heart"]}}}, "reserved"),
])
def test_bad_protocols_are_refused_before_any_run(change, match):
    cfg = json.loads(json.dumps(FULL["boltzmann"]))
    for key, value in change.items():
        for name, spec in value.items():
            cfg[key][name] = {**cfg[key].get(name, {}), **spec} if key == "datasets" else spec
    with pytest.raises(SettingsError, match=match):
        boltzmann.check_settings(cfg)


# ------------------------------------------------------------------ summaries that explain the paper's evidence
def _chain(exact, estimated, acceptance, inner=10):
    return {"exact": np.array(exact, dtype=float), "estimated": np.array(estimated, dtype=float),
            "acceptance": np.array(acceptance, dtype=float), "inner_samples": np.array(inner)}


def test_the_cross_chain_error_pairs_each_chain_with_the_exact_chain_of_the_same_index():
    chains = {("main", "heart", "exact"): _chain([[1.0, 2.0], [0.0, 0.0]], [[1.0, 2.0], [0.0, 0.0]], [0.5, 0.5]),
              ("main", "heart", "hmc"): _chain([[0.5, 0.5], [1.0, 1.0]], [[0.6, 0.4], [1.0, 3.0]], [0.2, 0.4])}
    errors = boltzmann.chain_errors(chains)
    hmc = errors[errors["sampler"] == "HMC"].set_index("chain")
    np.testing.assert_allclose(hmc["mean_abs_error"], [0.1, 1.0])  # own exact ratios
    np.testing.assert_allclose(hmc["cross_chain_error"], [(0.4 + 1.6) / 2, (1.0 + 3.0) / 2])  # the exact chain's
    assert errors[errors["sampler"] == "exact"]["mean_abs_error"].isna().all()


def test_fig8_fraction_intervals_separate_only_separable_samplers():
    rng = np.random.default_rng(8)
    truth = rng.normal(0, 1, 10)
    chains = {}
    for sampler in ("hmc", "cmh", "aas_rb", "aag_rb"):
        weights = truth + rng.normal(0, 1.0, (40, 20, 10))  # every sampler the same law
        chains[("main", "synthetic25", sampler)] = {"weights": weights.astype(np.float32), "W_true": truth}
    result = boltzmann.fraction_margin(chains, ["synthetic25"], 0.2, "main", np.random.default_rng(1))
    assert result["margin_low"] < 1.0 < result["margin_high"]
    for sampler in ("aas_rb", "aag_rb"):  # annular samples much closer to the truth: clearly above
        chains[("main", "synthetic25", sampler)]["weights"] = (truth + rng.normal(0, 0.05, (40, 20, 10))).astype(np.float32)
    clear = boltzmann.fraction_margin(chains, ["synthetic25"], 0.2, "main", np.random.default_rng(1))
    assert clear["margin_low"] > 1.0 and clear["margin"] > 1.1
    assert boltzmann.fraction_margin(chains, ["synthetic50"], 0.2, "main", np.random.default_rng(1)) == {}


def test_the_fraction_by_step_starts_at_the_start_level():
    """Chains started at N(W_true, 0.5 I) begin at the level prior_fraction gives for the start (the number the Fig. 8
    row reports beside its verdict): 400 chains x 300 weights, 6 binomial s.e. (false failure below 1e-8)."""
    rng = np.random.default_rng(12)
    truth = rng.normal(0, 1, 300)
    weights = truth + math.sqrt(0.5) * rng.standard_normal((400, 1, 300))
    first = posterior_accuracy.fraction_by_step(weights, truth, 0.2)[0]
    assert abs(first - posterior_accuracy.prior_fraction(truth, "truth", 0.5, 0.2)) < 6 * math.sqrt(0.25 / 120_000)


def test_the_split_enumeration_and_the_ratio_estimates_agree_with_enumeration():
    rng = np.random.default_rng(5)
    for d, form in ((2, "zero_one"), (7, "spin"), (11, "zero_one")):
        w = rng.normal(0, 1, d * (d - 1) // 2)
        assert boltzmann_posterior.log_partition_split(w, d, form, rows=3) == pytest.approx(log_partition(w, d, form=form))
    with pytest.raises(ValueError):
        boltzmann_posterior.log_partition_split(np.zeros(435), 30)
    d = 5
    w = rng.normal(0, 0.5, (4, 10))
    proposals = w + 0.3 * rng.standard_normal(w.shape)
    exact = np.array([log_partition(p, d) - log_partition(x, d) for x, p in zip(w, proposals)])
    for sampler in ("HMC", "AAS + RB"):
        estimates = boltzmann_posterior.estimate_log_ratios(w, proposals, d=d, sampler=sampler, inner_samples=4000,
                                                            travel_time_periods=1.5, seed=np.random.SeedSequence(3))
        np.testing.assert_allclose(estimates, exact, atol=0.1)  # fixed seed: deterministic
    with pytest.raises(ValueError):
        boltzmann_posterior.estimate_log_ratios(w, proposals[:2], d=d, sampler="HMC", inner_samples=10,
                                                travel_time_periods=1.5, seed=np.random.SeedSequence(3))


def test_the_ratio_check_compares_samplers_on_the_same_pairs():
    rng = np.random.default_rng(6)
    d = 5
    sources = {name: rng.normal(0, 0.5, (3, 6, 10)) for name in ("HMC", "AAS + RB")}
    check = posterior_accuracy.ratio_check(sources, {"HMC": "HMC", "AAS + RB": "AAS + RB"}, d=d, states=6,
                                       proposal_variance=0.1, inner_samples=50, travel_time_periods=1.5,
                                       model_form="zero_one", seed=np.random.SeedSequence(4))
    assert len(check) == 12 and set(check["step"]) <= {3, 4, 5}  # second halves only
    pairs = check[check["sampler"] == "HMC"].set_index("pair")
    for k, row in pairs.iterrows():  # the exact ratio is that of the checked pair, the same for every sampler
        assert check[(check["pair"] == k)]["exact"].nunique() == 1
    np.testing.assert_allclose(check["abs_error"], np.abs(check["estimated"] - check["exact"]))
    # paired margin: a sampler with errors smaller on every pair wins by many s.e.; equal errors give no margin
    fake = pd.DataFrame({"pair": [0, 1, 2, 3] * 2, "sampler": ["A"] * 4 + ["B"] * 4,
                         "abs_error": [0.1, 0.2, 0.1, 0.2, 0.3, 0.5, 0.35, 0.45]})
    margin = posterior_accuracy.paired_margin(fake, ["A"], ["B"])
    assert margin["margin_se"] > 5 and margin["pairs"] == 4
    assert posterior_accuracy.paired_margin(fake, ["B"], ["A"])["margin_se"] < -5
    criterion = CLAIMS["aa_fig8_fraction_within"]["criterion"]
    assert verdict(criterion, {"ratio_error_margin": margin["margin_se"]}) == "reproduced"
    assert verdict(criterion, {"ratio_error_margin": -margin["margin_se"]}) == "not reproduced"


def test_the_prior_fraction_formula():
    rng = np.random.default_rng(10)
    truth = rng.normal(0, 1, 10)
    for mean, variance in (("truth", 2.0), ("zero", 5.0)):
        centre = truth if mean == "truth" else np.zeros(10)
        draws = centre + math.sqrt(variance) * rng.standard_normal((400_000, 10))
        per_weight = (np.abs(draws - truth) <= 0.2 * np.abs(truth)).mean(axis=0)
        expected = posterior_accuracy.prior_fraction(truth, mean, variance, 0.2)
        assert abs(per_weight.mean() - expected) < 6 * math.sqrt(0.25 / 400_000)


# ------------------------------------------------------------------ the variant step
def test_a_variant_runs_its_samplers_into_its_folder(tmp_path):
    protocol = {"prior": {"mean": "truth", "variance": 2.0}, "start": {"mean": "truth", "variance": 0.5}}
    tiny = {**SMOKE["boltzmann"], "outer_samples": 3,
            "datasets": {"synthetic10": {"source": "synthetic", "units": 4, "data_points": 20, "chains": 2,
                                         "inner_samples": 5, **protocol}},
            "variants": {"b1": {"datasets": ["synthetic10"], "samplers": ["exact", "cmh"], "cmh_ratio": "authors"}}}
    data = tmp_path / "data.npz"
    run(boltzmann, "compute-data", tiny, 3, outputs={"data": data}, wildcards={"bm_dataset": "synthetic10"})
    folder = tmp_path / "variants" / "b1"
    run(boltzmann, "compute-variant", tiny, 3, inputs={"data": data}, outputs={"chains": folder},
        wildcards={"bm_dataset": "synthetic10", "bm_variant": "b1"})
    assert sorted(p.name for p in folder.glob("*.npz")) == ["posterior_cmh.npz", "posterior_exact.npz"]
    loaded = boltzmann._load_chains(sorted(folder.glob("*.npz")))
    assert set(loaded) == {("b1", "synthetic10", "cmh"), ("b1", "synthetic10", "exact")}
    offset = authors_cmh_offset(4, 5, tiny["travel_time_periods"])
    cmh = loaded[("b1", "synthetic10", "cmh")]
    assert offset < 0 and np.all(np.isfinite(cmh["estimated"]))


# ------------------------------------------------------------------ a noisy verdict at other seeds
def test_clear_annular_verdicts_keep_their_class_at_other_seeds(tmp_path):
    """Smoke scale, three root seeds: the verdicts whose data are clear (the bimodal zero-bias case at W = 2, and the
    LBP prior at W = 0.9 with c = 0.2) come out the same."""
    settings = {**SMOKE["annular_ising"], "side": 4, "runs": 3, "bias_draws": 3, "hmc_samples": 20,
                "groups": {"fig3": {"strength": [0.9], "bias_scale": 0.2, "samplers": True},
                           "fig4": {"strength": [2.0], "bias_scale": 0.0, "samplers": True},
                           "fig5": {"strength": 0.2, "bias_scale": [1.0], "samplers": True},
                           "table1": {"strength": [0.1, 0.8], "bias_scale": 0.1, "samplers": False}}}
    classes = []
    for seed in (11, 12, 13):
        folder = tmp_path / str(seed)
        truths, errors = [], []
        for group, spec in settings["groups"].items():
            for k in range(len(annular_ising.group_settings(spec))):
                outputs = {"truth": folder / f"{group}{k}.npz"}
                if spec["samplers"]:
                    outputs["errors"] = folder / f"{group}{k}.csv"
                    errors.append(outputs["errors"])
                truths.append(outputs["truth"])
                run(annular_ising, "compute", settings, seed, outputs=outputs, wildcards={"aa_group": group, "aa_setting": k})
        outs = {"summary": folder / "s.csv", "tables_md": folder / "t.md", "tables_csv": folder / "t.csv",
                "claims": folder / "c.json"}
        run(annular_ising, "summarise", settings, seed, outputs=outs, smoke=True,
            inputs={"truth": truths, "errors": errors,
                    "paper_tables": ROOT / "config" / "paper_tables" / "annular_augmentation.csv"})
        claims = json.loads(outs["claims"].read_text())["claims"]
        classes.append({k: verdict(CLAIMS[k]["criterion"], claims[k]["value"])
                        for k in ("aa_fig4_annular_outperform", "aa_fig3_lbp_hurts_high_w")})
    assert classes[0] == classes[1] == classes[2], classes
    assert classes[0]["aa_fig4_annular_outperform"] == "reproduced"


def test_the_spin_form_runs_end_to_end_and_refuses_data_of_the_other_form(tmp_path, capfd):
    protocol = {"prior": {"mean": "zero", "variance": 2.0}, "start": {"mean": "truth", "variance": 0.5}}
    tiny = {**SMOKE["boltzmann"], "outer_samples": 3, "model_form": "spin", "variants": {},
            "datasets": {"synthetic10": {"source": "synthetic", "units": 4, "data_points": 20, "chains": 2,
                                         "inner_samples": 5, **protocol}}}
    data = tmp_path / "data.npz"
    run(boltzmann, "compute-data", tiny, 3, outputs={"data": data}, wildcards={"bm_dataset": "synthetic10"})
    with np.load(data) as d:
        assert str(d["model_form"]) == "spin"
        np.testing.assert_allclose(d["statistic"], form_statistic(d["y"], "spin"))
    outputs = {f"chains_{s}": tmp_path / f"posterior_{s}.npz" for s in tiny["samplers"]}
    run(boltzmann, "compute-chains", tiny, 3, inputs={"data": data}, outputs=outputs, wildcards={"bm_dataset": "synthetic10"})
    with np.load(outputs["chains_hmc"]) as c:
        w = c["weights"][0, 0].astype(float)
        assert np.all(np.isfinite(c["exact"])) and np.all(np.isfinite(c["estimated"]))
    with np.load(outputs["chains_exact"]) as c:  # the exact chain uses the exact ratios of the spin model
        assert np.all(np.abs(c["exact"] - c["estimated"]) == 0)
    other = {**tiny, "model_form": "zero_one"}
    argv = ["compute-chains", "--settings", json.dumps(other), "--schema", str(ROOT / "config" / "families"),
            "--input", f"data={data}", "--wildcard", "bm_dataset=synthetic10",
            *[f"--output={k}={v}" for k, v in outputs.items()]]
    assert boltzmann.EXPERIMENT.main(argv) == 2
    assert "drawn in the spin form" in capfd.readouterr().err
    assert np.isfinite(log_partition(w, 4, form="spin"))


def test_variant_benchmarks_calibrate_the_chains_rate_of_their_data_set():
    from dogs.workflow.cost import rule_of

    works = boltzmann.work_needed(FULL["boltzmann"])
    folder = "results/benchmarks/snakemake/"
    assert rule_of(folder + "boltzmann_compute_variant_errata_b2_f100_heart.tsv", works) == "boltzmann_compute_chains"
    assert rule_of(folder + "boltzmann_compute_variant_errata_b2_f10000_heart.tsv", works) == "boltzmann_compute_chains"
    assert (rule_of(folder + "boltzmann_compute_variant_ours_protocol_synthetic50.tsv", works)
            == "boltzmann_compute_chains_large")
    assert rule_of(folder + "boltzmann_compute_chains_synthetic50.tsv", works) == "boltzmann_compute_chains_large"
    assert rule_of(folder + "boltzmann_compute_chains_heart.tsv", works) == "boltzmann_compute_chains"
