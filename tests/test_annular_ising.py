"""The annular-augmentation Ising experiment (AA §3.1): one parameter object for truth, LBP and samplers; metrics;
the twelve-sampler suite; the experiment steps on a tiny lattice."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest

from dogs.claims import load_paper_claims
from dogs.exact import brute_force, junction_tree_marginals
from dogs.experiments import annular_ising
from dogs.samplers.budget import equal_cost_budget
from dogs.samplers.suite import AA_SAMPLERS, run_samplers
from dogs.summaries import node_rmse, pairwise_error

from experiment_cli import ROOT, SCHEMA, merged_configs, run

FULL, SMOKE = merged_configs()


def test_the_model_is_the_papers_density_with_coupling_w_counted_once():
    """p(s) ∝ exp(sum_edges W s_i s_j + sum_i b_i s_i) on the torus: no factor 2 anywhere (AA §3.1)."""
    model, bias = annular_ising.setting_model(3, 0.7, 0.5, np.random.SeedSequence(1))
    assert len(model.edges) == 18 and np.all(np.abs(bias) <= 0.5)
    states = np.array(list(itertools.product((-1.0, 1.0), repeat=9)))
    by_hand = np.array([0.7 * sum(s[i] * s[j] for i, j in model.edges) + bias @ s for s in states])
    np.testing.assert_allclose(model.log_potential(states), by_hand, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("strength, bias_scale", [(0.3, 0.2), (1.5, 0.0), (0.8, 1.0)])
def test_truth_and_lbp_come_from_the_same_model_and_match_enumeration(strength, bias_scale):
    model, _ = annular_ising.setting_model(3, strength, bias_scale, np.random.SeedSequence(2))
    exact = annular_ising.exact_and_lbp(model, {"tolerance": 1e-4, "max_iterations": 100})
    enumerated = brute_force(model)
    np.testing.assert_allclose(exact["node_marginals"], [m[1] for m in enumerated.node_marginals], atol=1e-12)
    np.testing.assert_allclose(exact["edge_tables"], np.stack(enumerated.edge_marginals), atol=1e-12)
    junction = junction_tree_marginals(model)
    assert junction.log_partition == pytest.approx(enumerated.log_partition, rel=1e-12)
    assert exact["lbp_error"] == pytest.approx(np.abs(exact["lbp_marginals"] - exact["node_marginals"]).sum())


def test_metrics_on_hand_made_values():
    assert node_rmse([0.5, 0.7], [0.5, 0.4]) == pytest.approx(np.sqrt(0.09 / 2))
    exact = np.array([[[0.25, 0.25], [0.25, 0.25]], [[0.5, 0.0], [0.0, 0.5]]])
    estimate = np.array([[[0.25, 0.25], [0.25, 0.25]], [[0.25, 0.25], [0.25, 0.25]]])
    assert pairwise_error(estimate, exact) == pytest.approx(np.sqrt((0.0 + 1.0**2) / 2))  # L1 of the second is 1


def test_the_suite_runs_all_twelve_from_one_state_at_equal_cost():
    model, _ = annular_ising.setting_model(4, 0.4, 0.2, np.random.SeedSequence(3))
    budget = equal_cost_budget(16, travel_time_periods=2.5, n_hmc_samples=30, clique_size=4)
    lbp = annular_ising.exact_and_lbp(model, {"tolerance": 1e-4, "max_iterations": 100})["lbp_marginals"]
    estimates = run_samplers(model, budget, lbp_marginals=lbp, seed=np.random.SeedSequence(4),
                             initial_state=np.ones(16, dtype=np.int8))
    assert list(estimates) == list(AA_SAMPLERS)
    evaluations = {name: e.density_evaluations for name, e in estimates.items()}
    assert evaluations["AAS"] == evaluations["AAS + RB"] == budget.annular_iterations * 31  # one chain, 2d - 1 each
    assert evaluations["CMH"] == budget.cmh_samples * 16
    for estimate in estimates.values():
        assert estimate.node_marginals.shape == (16,) and estimate.edge_tables.shape == (32, 2, 2)
        np.testing.assert_allclose(estimate.edge_tables.sum(axis=(1, 2)), 1.0)
    again = run_samplers(model, budget, names=["AAG + RB", "HMC"], lbp_marginals=lbp, seed=np.random.SeedSequence(4),
                         initial_state=np.ones(16, dtype=np.int8))
    np.testing.assert_array_equal(again["AAG + RB"].node_marginals, estimates["AAG + RB"].node_marginals)
    np.testing.assert_array_equal(again["HMC"].node_marginals, estimates["HMC"].node_marginals)
    with pytest.raises(ValueError, match="unknown samplers"):
        run_samplers(model, budget, names=["AAX"], seed=np.random.SeedSequence(0), initial_state=np.ones(16))
    with pytest.raises(ValueError, match="lbp_marginals"):
        run_samplers(model, budget, names=["CMH + LBP"], seed=np.random.SeedSequence(0), initial_state=np.ones(16))


def _stats(rows):
    return pd.DataFrame(rows, columns=["group", "setting", "draw", "sampler", "runs", "node_rmse", "node_rmse_sd",
                                       "pairwise_error", "pairwise_error_sd", "W", "c"])


def test_comparisons_count_only_wins_beyond_two_standard_errors():
    stats = _stats([
        ("g", 0, 0, "A", 10, 0.10, 0.01, 0.0, 0.0, 0.5, 0.0),
        ("g", 0, 0, "B", 10, 0.20, 0.01, 0.0, 0.0, 0.5, 0.0),
        ("g", 1, 0, "A", 10, 0.19, 0.05, 0.0, 0.0, 0.8, 0.0),
        ("g", 1, 0, "B", 10, 0.20, 0.05, 0.0, 0.0, 0.8, 0.0),
    ])
    out = annular_ising._compare(stats, "g", ["A"], ["B"], "node_rmse")
    assert out == {"share": 0.5, "comparisons": 2, "by_setting": {0.5: 1.0, 0.8: 0.0}}
    high = annular_ising._compare(stats, "g", ["A"], ["B"], "node_rmse", lambda r: r["W"] >= 0.6)
    assert (high["share"], high["comparisons"]) == (0.0, 1) and high["by_setting"] == out["by_setting"]


def test_a_comparison_needs_a_strict_majority_of_the_bias_draws():
    # draws 0 and 1: A wins clearly; draw 2: A loses. Won in 2 of 3 draws: counted. With draw 1 a tie: 1 of 3, not.
    rows = []
    for draw, (a, b) in enumerate([(0.10, 0.20), (0.10, 0.20), (0.30, 0.20)]):
        rows += [("g", 0, draw, "A", 10, a, 0.01, 0.0, 0.0, 0.5, 0.0), ("g", 0, draw, "B", 10, b, 0.01, 0.0, 0.0, 0.5, 0.0)]
    assert annular_ising._compare(_stats(rows), "g", ["A"], ["B"], "node_rmse")["share"] == 1.0
    rows[2] = ("g", 0, 1, "A", 10, 0.20, 0.01, 0.0, 0.0, 0.5, 0.0)
    assert annular_ising._compare(_stats(rows), "g", ["A"], ["B"], "node_rmse")["share"] == 0.0
    two = [r for r in rows if r[2] < 2]  # two draws, one won: not a strict majority
    assert annular_ising._compare(_stats(two), "g", ["A"], ["B"], "node_rmse")["share"] == 0.0


def test_the_papers_evidence_is_what_our_summary_computes_from_the_printed_tables():
    """The paper_evidence of the annular rows is our own comparison code applied to the appendix tables (one draw,
    the printed means, no standard errors)."""
    import yaml

    paper = pd.read_csv(ROOT / "config" / "paper_tables" / "annular_augmentation.csv", comment="#")
    rows = []
    for table, group in ((4, "fig3"), (8, "fig5"), (3, "fig4")):
        printed = paper[paper["table"] == table]
        pairwise = {4: 5, 8: 9, 3: 3}[table]
        other = paper[paper["table"] == pairwise]
        for k, ((w, c), cells) in enumerate(printed.groupby(["strength", "bias_scale"])):
            for _, cell in cells.iterrows():
                pair = other[(other["sampler"] == cell["sampler"]) & np.isclose(other["strength"], w)
                             & np.isclose(other["bias_scale"], c)]["value"]
                rows.append((group, k, 0, cell["sampler"], 20, cell["value"], 0.0, float(pair.iloc[0]), 0.0, w, c))
    table7 = paper[paper["table"] == 7]
    for k, ((w, c), cells) in enumerate(table7.groupby(["strength", "bias_scale"])):
        rows += [("fig4", 10 + k, 0, cell["sampler"], 20, np.nan, 0.0, cell["value"], 0.0, w, c) for _, cell in cells.iterrows()]
    stats = _stats(rows)
    evidence = {row["id"]: row.get("paper_evidence") for row in load_paper_claims(ROOT / "config" / "claims")}
    high = lambda r: r["W"] >= 0.5  # noqa: E731
    # Fig. 3's pairwise errors would come from Table 5, a copy of Table 4: node share only (issue 41, point 6)
    fig3 = annular_ising._compare(stats, "fig3", annular_ising.PLAIN_ANNULAR, annular_ising.BASELINES, "node_rmse", high)
    assert evidence["aa_fig3_annular_beat_baselines_high_w"] == {"node_share": fig3["share"]}
    hurt = np.mean([annular_ising._compare(stats, "fig3", [f"{x} + RB"], [f"{x} + RB + LBP"], "node_rmse", high)["share"]
                    for x in ("AAS", "AAG", "AAST")])
    assert evidence["aa_fig3_lbp_hurts_high_w"] == hurt
    helps = np.mean([annular_ising._compare(stats, "fig5", [f"{x} + RB + LBP"], [f"{x} + RB"], "node_rmse")["share"]
                     for x in ("AAS", "AAG", "AAST")])
    assert evidence["aa_fig5_lbp_helps_unimodal"] == helps
    zero = annular_ising._compare(stats[stats["setting"] >= 10], "fig4", annular_ising.ANNULAR, annular_ising.BASELINES,
                                  "pairwise_error", high)["share"]
    assert evidence["aa_fig4_annular_outperform"] == zero
    rb = annular_ising._ratios(stats[stats["setting"] < 10], "fig4", ["AAS + RB"], ["AAS"], "node_rmse")["ratio"].max()
    assert evidence["aa_fig4_rb_node_marginals"] == pytest.approx(rb, abs=5e-5)
    par = annular_ising._ratios(stats, "fig5", annular_ising.LBP_SAMPLERS, ["HMC", "CMH"], "node_rmse")["ratio"]
    assert evidence["aa_fig5_hmc_cmh_on_par"] == pytest.approx({"annular_over_baseline_max": par.max(),
                                                                "annular_over_baseline_min": par.min()}, abs=5e-4)


def test_table_five_is_flagged_as_the_papers_erratum():
    paper = pd.read_csv(ROOT / "config" / "paper_tables" / "annular_augmentation.csv", comment="#")
    assert len(paper) == 633
    four = paper[paper["table"] == 4].reset_index(drop=True)
    five = paper[paper["table"] == 5].reset_index(drop=True)
    np.testing.assert_array_equal(four["value"], five["value"])  # the printed Table 5 repeats Table 4
    stats = _stats([("fig3", 0, 0, "HMC", 2, 0.1, 0.01, 0.3, 0.02, 0.1, 0.2)])
    lbp = pd.DataFrame(columns=["group", "setting", "draw", "W", "c", "nodes", "lbp_error", "lbp_converged",
                                "lbp_error_half_coupling"])
    tables = annular_ising.tables_against_paper(stats, lbp, paper)
    assert tables.loc[tables["table"] == 4, "paper"].iloc[0] == pytest.approx(0.0211)
    assert np.isnan(tables.loc[tables["table"] == 5, "paper"].iloc[0])


TINY = {**SMOKE["annular_ising"], "side": 3, "runs": 2, "bias_draws": 2, "hmc_samples": 5,
        "groups": {"fig3": {"strength": [0.3, 0.9], "bias_scale": 0.2, "samplers": True},
                   "fig4": {"strength": [0.5, 1.0], "bias_scale": 0.0, "samplers": True},
                   "fig5": {"strength": 0.2, "bias_scale": [0.5, 2.0], "samplers": True},
                   "table1": {"strength": [0.1, 0.8], "bias_scale": 0.1, "samplers": False}}}


def test_the_configs_pass_the_experiment_checks():
    for config in (FULL, SMOKE):
        annular_ising.EXPERIMENT.context(["summarise", "--settings", json.dumps(config["annular_ising"]),
                                          "--schema", str(SCHEMA)])


def test_experiment_steps_end_to_end(tmp_path):
    truths, errors = [], []
    for group, spec in TINY["groups"].items():
        for k in range(2):
            folder = tmp_path / group / f"setting{k}"
            outputs = {"truth": folder / "truth.npz"}
            if spec["samplers"]:
                outputs["errors"] = folder / "errors.csv"
                errors.append(outputs["errors"])
            truths.append(outputs["truth"])
            run(annular_ising, "compute", TINY, 9, outputs=outputs, wildcards={"aa_group": group, "aa_setting": k})
    frame = pd.read_csv(errors[0])
    assert list(frame.columns) == [*annular_ising.ERROR_COLUMNS, "group", "setting"]
    assert len(frame) == 12 * TINY["runs"] * TINY["bias_draws"] and set(frame["draw"]) == {0, 1}
    budget = equal_cost_budget(9, travel_time_periods=TINY["travel_time_periods"], n_hmc_samples=5, clique_size=4)
    assert set(frame.loc[frame["sampler"] == "CMH + LBP", "density_evaluations"]) == {budget.cmh_lbp_proposals}
    with np.load(truths[0]) as truth:
        assert {"W", "c", "bias", "edges", "node_marginals", "edge_tables", "lbp_marginals", "lbp_converged",
                "node_marginals_half_coupling", "edge_tables_half_coupling"} <= set(truth.files)
        assert truth["bias"].shape == (2, 9) and not np.array_equal(truth["bias"][0], truth["bias"][1])
    outs = {"summary": tmp_path / "summary.csv", "tables_md": tmp_path / "t.md", "tables_csv": tmp_path / "t.csv",
            "claims": tmp_path / "claims.json"}
    run(annular_ising, "summarise", TINY, 9, outputs=outs, smoke=True,
        inputs={"truth": truths, "errors": errors, "paper_tables": ROOT / "config" / "paper_tables" / "annular_augmentation.csv"})
    claims = json.loads(outs["claims"].read_text())["claims"]
    assert len(claims) == 11 and "Table 5" in outs["tables_md"].read_text()
    assert {"aa_errata_w2_tables12", "aa_errata_w2_fig5"} <= set(claims)
    run(annular_ising, "plot-heatmaps", TINY, 9, inputs={"summary": outs["summary"]},
        outputs={"figure": tmp_path / "fig3.png"}, wildcards={"aa_figure": "fig3"})
    assert (tmp_path / "fig3.png").read_bytes()[:4] == b"\x89PNG"
    run(annular_ising, "plot-errata", TINY, 9, outputs={"figure": tmp_path / "errata.png"},
        inputs={"summary": outs["summary"], "paper_tables": ROOT / "config" / "paper_tables" / "annular_augmentation.csv"})
    assert (tmp_path / "errata.png").read_bytes()[:4] == b"\x89PNG"
    again = tmp_path / "again.csv"
    run(annular_ising, "compute", TINY, 9, outputs={"truth": tmp_path / "again.npz", "errors": again},
        wildcards={"aa_group": "fig3", "aa_setting": 0})
    pd.testing.assert_frame_equal(pd.read_csv(again), pd.read_csv(errors[0]))


def test_a_setting_out_of_range_is_refused(tmp_path):
    argv = ["compute", "--settings", json.dumps(TINY), "--schema", str(SCHEMA), "--wildcard", "aa_group=fig3",
            "--wildcard", "aa_setting=7", "--output", f"truth={tmp_path / 'a.npz'}", "--output", f"errors={tmp_path / 'e.csv'}"]
    assert annular_ising.EXPERIMENT.main(argv) == 2
