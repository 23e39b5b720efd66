"""The sampling call's ArviZ output under the installed ArviZ line (0.2x from the lock; 1.x in .ci/run's second venv).

:func:`dogs.sample` returns ``InferenceData`` under ArviZ 0.2x and ``xarray.DataTree`` under 1.x, in one layout
(:mod:`dogs.arviz_interop`); ``arviz.summary``, ``arviz.rhat`` and ``arviz.ess`` read it as it is and agree with
:func:`dogs.marginals`; the marginals match exact ones by enumeration; the draws survive netCDF; without ArviZ the
call stops with one line naming the extra, before any chain runs. Exact answers need no pgmpy, so these tests run
in a venv with the core and the ``arviz`` extra only.

False-failure rate of the statistical check against enumeration: 1e-3 per test, split over its estimates
(Bonferroni, which holds whatever their dependence: the states of one variable sum to one), each z-score taken
as normal with the standard error from ArviZ's ESS.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import dogs.samplers
from dogs.arviz_interop import arviz_major_version, import_arviz, posterior_draws
from dogs.cli import EXIT_BAD_INPUT, EXIT_OK, main
from dogs.exact import brute_force
from dogs.extras import MissingExtraError
from dogs.models import DiscretePairwiseMRF, grid_model
from dogs.models.factor_graph import DiscreteFactorGraph
from dogs.models.uai import write_uai
from dogs.sampling_call import SamplingWarning, marginals, sample

pytestmark = pytest.mark.filterwarnings("ignore::dogs.sampling_call.SamplingWarning")


def _potts():
    rng = np.random.default_rng(5)
    edges = np.array([[0, 1], [1, 2], [2, 3], [0, 3]])
    return DiscretePairwiseMRF(np.array([3, 2, 3, 3]), [rng.normal(0, 0.5, k) for k in (3, 2, 3, 3)], edges,
                               [rng.normal(0, 0.4, (a, b)) for a, b in ((3, 2), (2, 3), (3, 3), (3, 3))])


def test_the_call_returns_the_installed_arvizs_structure_in_the_documented_layout():
    az = import_arviz()
    data = sample(grid_model(3, 3, coupling=0.2, field=0.1), chains=3, draws=30, seed=4, progress=False)
    if arviz_major_version(az) >= 1:
        import xarray

        assert isinstance(data, xarray.DataTree)
    else:
        assert isinstance(data, az.InferenceData)
    label = data.posterior["label"]
    assert label.dims == ("chain", "draw", "node") and label.shape == (3, 30, 9)
    assert set(np.unique(label.values)) <= {0, 1}
    assert data.posterior["node"].values.tolist() == list(range(9))
    assert {"n_vars", "scan_length", "seed", "start", "binary", "cardinalities", "evidence", "certificate"} <= set(
        data.posterior.attrs)
    labels, nodes, attrs = posterior_draws(data)
    np.testing.assert_array_equal(labels, label.values)
    assert nodes.tolist() == list(range(9)) and attrs["scan_length"] == 9


def test_arviz_summary_rhat_and_ess_read_it_and_agree_with_marginals():
    az = import_arviz()
    model = grid_model(3, 4, coupling=0.25, field=np.linspace(-0.4, 0.4, 12))
    data = sample(model, chains=4, draws=60, seed=1, evidence={5: 1}, progress=False)
    summary = az.summary(data)
    assert len(summary) == 11 and np.all(np.isfinite(np.asarray(summary["r_hat"], dtype=float)))
    table = marginals(data)
    up = table[table["state"] == 1].reset_index(drop=True)  # label 1 = spin +1: the label draws are its indicator
    assert up["variable"].tolist() == data.posterior["node"].values.tolist()
    np.testing.assert_allclose(np.asarray(summary["mean"], dtype=float), up["probability"], atol=0.006)
    np.testing.assert_allclose(az.rhat(data)["label"].values, up["r_hat"], rtol=1e-12)
    np.testing.assert_allclose(az.ess(data, method="bulk")["label"].values, up["ess_bulk"], rtol=1e-12)


@pytest.mark.parametrize("kind", ["binary", "potts"])
def test_marginals_match_enumeration(kind):
    model = grid_model(3, 3, coupling=0.3, field=0.2) if kind == "binary" else _potts()
    table = marginals(sample(model, chains=4, draws=400, seed=7, progress=False))
    exact = brute_force(model).node_marginals
    expected = np.array([exact[v][k] for v, k in zip(table["variable"], table["state"])])
    z = (table["probability"].to_numpy() - expected) / table["std_error"].to_numpy()
    assert np.all(np.abs(z) < stats.norm.ppf(1 - 1e-3 / (2 * z.size))), z


def test_the_draws_survive_netcdf_and_the_command_writes_them(tmp_path, capsys):
    az = import_arviz()
    model = grid_model(3, 3, coupling=0.2)
    data = sample(model, chains=2, draws=20, seed=3, certify=True, progress=False)
    data.to_netcdf(str(tmp_path / "draws.nc"))
    again = az.from_netcdf(str(tmp_path / "draws.nc"))
    np.testing.assert_array_equal(posterior_draws(again)[0], posterior_draws(data)[0])
    assert marginals(again).equals(marginals(data))

    uai = write_uai(model, tmp_path / "g.uai")
    saved = tmp_path / "cli.nc"
    code = main(["sample", str(uai), "--scan", "systematic", "--length", "9", "--chains", "2", "--draws", "20",
                 "--seed", "3", "--save-chains", str(saved)])
    assert code == EXIT_OK, capsys.readouterr().err
    assert posterior_draws(az.from_netcdf(str(saved)))[0].shape == (2, 20, 9)


def test_without_arviz_the_call_names_the_extra_before_any_chain_runs(monkeypatch, tmp_path, capsys):
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "arviz" else find_spec(name, *a))

    def no_chain(*args, **kwargs):
        raise AssertionError("a chain ran")

    monkeypatch.setattr(dogs.samplers, "run_gibbs", no_chain)
    monkeypatch.setattr(dogs.samplers, "run_discrete_gibbs", no_chain)
    with pytest.raises(MissingExtraError) as error:
        sample(grid_model(3, 3, coupling=0.2), progress=False)
    message = str(error.value)
    assert "'arviz' extra" in message and "pip install 'dogs-gibbs[arviz]'" in message and "\n" not in message
    uai = write_uai(grid_model(3, 3, coupling=0.2), tmp_path / "g.uai")
    assert main(["sample", str(uai), "--scan", "systematic"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err.startswith("dogs sample: ") and "dogs-gibbs[arviz]" in err and len(err.strip().splitlines()) == 1


def test_a_sampling_warning_still_reaches_the_caller():
    """Chains stuck in their starts (strong coupling, two draws per half) are flagged under either line."""
    with pytest.warns(SamplingWarning, match="R-hat"):
        sample(grid_model(4, 4, coupling=2.0), chains=4, draws=8, seed=0, start=np.array([0] * 16), progress=False)


def test_unseen_states_get_the_rule_of_three_bound_from_the_smallest_effective_size():
    """A state never drawn has no standard error; its reported interval reaches ``-ln(UNSEEN_LEVEL) / n`` from 0,
    ``n`` the smallest bulk ESS among its variable's states that changed (at most chains x draws); ``unseen_bound``
    is NaN wherever the indicator changed and for a variable that never changed at all."""
    from dogs.sampling_call import UNSEEN_LEVEL, unseen_bound

    assert unseen_bound([400.0, 250.0, np.nan], 4, 100) == pytest.approx(-np.log(UNSEEN_LEVEL) / 250)
    assert unseen_bound([1e6], 4, 100) == pytest.approx(-np.log(UNSEEN_LEVEL) / 400)  # capped at the draws
    assert unseen_bound([], 8, 100) == pytest.approx(-np.log(UNSEEN_LEVEL) / 8)
    assert unseen_bound([], 2, 100) == 1.0
    graph = DiscreteFactorGraph.from_factors([3, 2, 2], [((0,), np.log([0.5, 0.5, 1e-30])),
                                                         ((0, 1), np.log([[0.5, 0.5], [0.4, 0.6], [0.5, 0.5]])),
                                                         ((2,), np.log([1.0, 1e-30]))])
    table = marginals(sample(graph, chains=4, draws=200, seed=1, progress=False))
    never = (table["variable"] == 0) & (table["state"] == 2)
    assert table.loc[never, "probability"].item() == 0.0 and np.isnan(table.loc[never, "std_error"].item())
    siblings = table.loc[(table["variable"] == 0) & ~never]
    expected = unseen_bound(siblings["ess_bulk"].to_numpy(), 4, 200)
    assert table.loc[never, "unseen_bound"].item() == pytest.approx(expected)
    assert table.loc[table["variable"] == 1, "unseen_bound"].isna().all()  # every state drawn
    constant = table.loc[table["variable"] == 2]  # never changed: no interval from its draws
    assert constant["std_error"].isna().all() and constant["unseen_bound"].isna().all()
    assert int(sample(graph, chains=2, draws=8, seed=1, progress=False).posterior.attrs["independent_draws"]) == 0


def test_independent_draws_give_every_unchanged_state_the_bound_of_all_draws():
    """Where one elimination block holds every variable, each pass is an exact draw independent of the others: the
    effective size of every indicator is chains x draws, so a variable that never changed gets the rule-of-three
    bound of that many draws too, its marginals count as converged, and ``sample`` warns of no R-hat."""
    import warnings

    from dogs.sampling_call import UNSEEN_LEVEL

    graph = DiscreteFactorGraph.from_factors([3, 2, 2], [((0,), np.log([0.5, 0.5, 1e-30])),
                                                         ((0, 1), np.log([[0.5, 0.5], [0.4, 0.6], [0.5, 0.5]])),
                                                         ((2,), np.log([1.0, 1e-30]))])
    with warnings.catch_warnings():
        warnings.simplefilter("error", SamplingWarning)  # R-hat of the constant variable is undefined
        data = sample(graph, chains=4, draws=200, seed=1, progress=False, blocks="elimination")
    assert int(data.posterior.attrs["independent_draws"]) == 1
    table = marginals(data)
    unchanged = ~np.isfinite(table["std_error"].to_numpy())
    assert unchanged.sum() == 3  # variable 0's state 2, both states of variable 2
    assert table.loc[unchanged, "unseen_bound"].to_numpy() == pytest.approx(-np.log(UNSEEN_LEVEL) / 800)
    assert table.loc[~unchanged, "unseen_bound"].isna().all()
    assert table["converged"].all()


def test_the_bound_for_a_block_drawn_variable_solves_its_inequality():
    """``boundary_unseen_bound`` is the largest ``p`` with ``p <= a + 3 sqrt(p / n)``, ``a`` the bound of the
    draws alone: about 19 / M when the boundary's effective size is the M draws; capped at 1."""
    from dogs.sampling_call import UNSEEN_LEVEL, boundary_unseen_bound

    for draws, size in ((256, 256.0), (1000, 40.0), (50, 50.0)):
        p = boundary_unseen_bound(draws, size)
        assert p == pytest.approx(-np.log(UNSEEN_LEVEL) / draws + 3 * np.sqrt(p / size))
    assert boundary_unseen_bound(256, 256) * 256 == pytest.approx(19.0, abs=0.05)
    assert boundary_unseen_bound(2, 1.0) == 1.0


def test_draw_conditions_name_each_blocks_boundary_and_the_block_that_draws_a_variable_last():
    """On the chain 0-1-2-3 with blocks {0, 1, 2} (home of 0, 1, 2) and {2, 3} (home of 3), a systematic pass draws
    the first block, then the second, which redraws 2: variables 0, 1 are last drawn given 3, and 2, 3 given 1."""
    from dogs.samplers.elimination_blocks import EliminationBlocks
    from dogs.sampling_call import _draw_conditions, once_per_block
    from dogs.scans import Scan, systematic_scan

    graph = DiscreteFactorGraph.from_factors([2] * 4, [((i, i + 1), np.zeros((2, 2))) for i in range(3)])
    blocks = EliminationBlocks([np.array([0, 1, 2]), np.array([3, 2])], [np.array([0, 1, 2]), np.array([3])])
    one_pass = once_per_block(systematic_scan(4, 4), blocks.homes)
    original = np.array([10, 11, 12, 13])
    conditions = _draw_conditions(blocks, graph, one_pass, np.arange(4), original)
    assert conditions == {"boundaries": [[13], [11]], "last_block": [0, 0, 1, 1]}
    assert _draw_conditions(blocks, graph, Scan(np.array([0, -1]), 4), np.arange(4), original)["last_block"] == [-1] * 4
    assert _draw_conditions(None, graph, one_pass, np.arange(4), original) is None


def test_a_variable_that_never_changed_gets_the_bound_of_its_blocks_boundary():
    """Variables 0 (boundary {2}, which moved), 1 (boundary {0}, which never moved: 0's bound added), 3 and 4 (each
    the other's boundary: neither is found) and 5 (boundary {9}, not recorded)."""
    import pandas as pd

    from dogs.sampling_call import _conditioned_bounds, boundary_unseen_bound, unseen_bound

    rows = [(v, k) for v in (0, 1, 2, 3, 4, 5) for k in (0, 1)]
    table = pd.DataFrame(rows, columns=["variable", "state"])
    table["ess_bulk"] = [np.nan, np.nan, np.nan, np.nan, 300.0, 120.0] + [np.nan] * 6
    changed = np.isfinite(table["ess_bulk"].to_numpy())
    conditions = {"boundaries": [[2], [0], [4], [3], [9]], "last_block": [0, 1, -1, 2, 3, 4]}
    out = _conditioned_bounds(table, changed, conditions, 400)
    first = boundary_unseen_bound(400, 120.0)  # the smallest effective size of variable 2's indicators
    np.testing.assert_allclose(out[0:2], first)
    np.testing.assert_allclose(out[2:4], unseen_bound([400], 400, 1) + first)  # 0 held still: its draws alone
    assert np.isnan(out[4:]).all()  # variable 2 changed; 3 and 4 wait on each other; 5 on an unrecorded one


def test_independent_draws_report_the_binomial_standard_error():
    """Independent exact draws need no effective sample size estimated: the standard error is sqrt(p (1 - p) / n)
    over all n = chains x draws, and the interval is Wilson's at that n."""
    graph = DiscreteFactorGraph.from_factors([3, 2], [((0,), np.log([0.5, 0.3, 0.2])),
                                                      ((0, 1), np.log([[0.5, 0.5], [0.4, 0.6], [0.9, 0.1]]))])
    table = marginals(sample(graph, chains=4, draws=150, seed=2, progress=False, blocks="elimination"))
    p = table["probability"].to_numpy()
    np.testing.assert_allclose(table["std_error"], np.sqrt(p * (1 - p) / 600), rtol=1e-12)


def test_the_reported_standard_error_is_the_larger_of_arviz_and_the_chains_means():
    """The chains' means' standard error is their standard deviation over sqrt(chains); the reported standard error
    is the larger of it and ArviZ's mcse, indicator by indicator (here chains stuck near 0.1 and 0.9 two by two,
    where the chains' means give the larger, and well-mixed ones); with one chain, ArviZ's."""
    from dogs.sampling_call import chains_standard_error, diagnose

    rng = np.random.default_rng(0)
    stuck = np.concatenate([rng.random((2, 300, 1)) < 0.1, rng.random((2, 300, 1)) < 0.9]).astype(np.int8)
    mixed = (rng.random((4, 300, 3)) < 0.3).astype(np.int8)
    draws = np.concatenate([stuck, mixed], axis=2)
    diagnostics = diagnose(draws)
    assert chains_standard_error(stuck)[0] == pytest.approx(np.std(stuck.mean(axis=1)[:, 0], ddof=1) / 2, rel=1e-12)
    np.testing.assert_array_equal(diagnostics["std_error"], np.fmax(diagnostics["mcse"], chains_standard_error(draws)))
    assert diagnostics["std_error"][0] > diagnostics["mcse"][0]
    assert np.isnan(chains_standard_error(mixed[:1])).all()
    one_chain = diagnose(mixed[:1])
    np.testing.assert_array_equal(one_chain["std_error"], one_chain["mcse"])
