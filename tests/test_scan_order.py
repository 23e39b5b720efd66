"""Tests of the He et al. (2016) counterexamples (:mod:`dogs.counterexamples`) and experiment (:mod:`dogs.experiments.scan_order`).

- Each model's support and stationary distribution against the paper's formula evaluated over the
  whole product space (small n), and invariance of pi under every site kernel.
- The closed forms the paper derives: sequence of dependencies (best scan: one sweep; worst:
  n(n-1)+1), bridge efficiencies of two islands (§3.2 and App. C), the 2n updates of one
  memorize-and-repeat cycle, 2n - 1 updates of soft dependencies from the empty state.
- The symmetry shortcuts (random-scan starts, all orders equivalent) against brute force.
- The reduced two-islands chain against the full model.
- Orders of growth of Table 1 parsed (:func:`dogs.counterexamples.growth.parse_order`).
- Bad input fails fast with the key named (schema and cross-key checks, the command line); a tiny
  end-to-end run of every step through the experiment shell.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pandas as pd
import pytest

from dogs.counterexamples import (
    MODEL_NAMES,
    SCANS,
    bridge_efficiency,
    definition_log_weights,
    make_model,
    memorize_and_repeat,
    parse_order,
    reduced_two_islands,
    sequence_of_dependencies,
    soft_dependencies,
    soft_prefix_accepted,
    state_count,
    two_islands,
)
from dogs.exact.chains import mixing_time, state_space, stationary_distribution, systematic_mixing_times
from dogs.experiments import scan_order as experiment
from experiment_cli import SCHEMA, assert_judged
from dogs.workflow.shell import load_schema_slice, validate_settings

SMALL = {
    "sequence_of_dependencies": [2, 5],
    "two_islands": [2, 3],
    "discrete_pyramid": [2, 5],
    "memorize_and_repeat": [2, 3],
    "soft_dependencies": [3, 4, 5],
}


def _cases():
    return [(name, n) for name in MODEL_NAMES for n in SMALL[name]]


# ------------------------------------------------------------------------------------------ definitions


@pytest.mark.parametrize("name, n", _cases())
def test_support_and_stationary_distribution_match_the_definition(name, n):
    model = make_model(name, n, M_factor=7.0, bridge_weight=0.3)
    everything = state_space(model.cardinalities)
    defined = definition_log_weights(model, everything)
    support = np.isfinite(defined)
    np.testing.assert_array_equal(everything[support], model.states)  # same support, same (C) order
    np.testing.assert_allclose(defined[support], model.log_weights, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(model.stationary(), stationary_distribution(defined)[support], rtol=1e-10, atol=1e-300)
    assert model.n_states == state_count(name, n) or name == "soft_dependencies"
    assert model.n_states <= state_count(name, n)


@pytest.mark.parametrize("name, n", _cases())
def test_every_site_kernel_leaves_pi_invariant(name, n):
    model = make_model(name, n)
    pi = model.stationary()
    for kernel in model.kernels():
        np.testing.assert_allclose(pi @ kernel, pi, atol=1e-12)
        np.testing.assert_allclose(np.asarray(kernel.sum(axis=1)).ravel(), 1.0, atol=1e-12)


def test_sequence_of_dependencies_weights():
    model = sequence_of_dependencies(3, M=5.0)
    # states s_0..s_3 (first k true), weight M^k
    assert model.states.tolist() == [[0, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]]
    np.testing.assert_allclose(model.stationary(), np.array([1, 5, 25, 125]) / 156)


def test_two_islands_and_pyramid_weights():
    model = two_islands(2, bridge_weight=0.1)
    pi = model.stationary()
    bridge = model.index_of(np.zeros(4, dtype=int))[0]
    assert model.n_states == 7
    assert pi[bridge] == pytest.approx(0.1 / 6.1)
    pyramid = make_model("discrete_pyramid", 4)
    np.testing.assert_allclose(pyramid.stationary(), np.full(5, 0.2))


def test_soft_dependencies_acceptance_condition():
    """App. A.3: at most floor(sqrt n) still-unused variables between consecutive entries, going forward mod n."""
    accepted = lambda prefix: soft_prefix_accepted(prefix, 9)  # noqa: E731  (0-based variables 0..8, window 3)
    assert accepted([0, 4])  # skips 1, 2, 3
    assert not accepted([0, 5])  # would skip 1, 2, 3, 4
    assert accepted([5, 0])  # wraps around: skips 6, 7, 8
    assert accepted([0, 1, 5])  # 1 -> 5 skips 2, 3, 4
    assert not accepted([0, 1, 8])  # 1 -> 8 skips 2..7
    assert not accepted([0, 2, 1])  # 2 -> 1 goes 3..8, 0 (used), 1: skips 3..8
    assert not accepted([0, 2, 3, 1])  # 3 -> 1 skips 4..8
    assert accepted([6, 7, 8, 0, 2, 1])  # 8 -> 0 skips none, 0 -> 2 skips 1, 2 -> 1 skips 3, 4, 5
    model = soft_dependencies(5, M=10.0)  # the support's memorize states are exactly the accepted prefixes
    memorize = model.states[model.states.max(axis=1) < 5]
    prefixes = {tuple(int(np.flatnonzero(x == k)[0]) for k in range(1, x.max() + 1)) for x in memorize}
    expected = {p for i in range(5) for p in itertools.permutations(range(5), i) if soft_prefix_accepted(p, 5)}
    assert prefixes == expected


# ------------------------------------------------------------------------------------------ closed forms


@pytest.mark.parametrize("n", [2, 3, 5, 8, 13, 21, 40, 128])
def test_sequence_of_dependencies_closed_forms(n):
    """§3.1: best x1..xn mixes in n (one sweep), worst xn..x1 in n(n-1)+1, for M linear in n (App. B).

    At n = 128, pi(s_0) = M^-128 / Z underflows to 0: every support state must be passed as a start.
    """
    model = make_model("sequence_of_dependencies", n, M_factor=10.0)
    kernels, pi, every = model.kernels(), model.stationary(), np.arange(model.n_states)
    assert mixing_time(kernels, pi, model.named_orders["best_systematic"], starts=every) == n
    assert mixing_time(kernels, pi, model.named_orders["worst_systematic"], starts=every) == n * (n - 1) + 1


def test_sequence_of_dependencies_needs_m_growing_with_n():
    """App. B: with M fixed (o(n)), one sweep no longer suffices once n is large."""
    model = sequence_of_dependencies(64, M=10.0)
    assert mixing_time(model.kernels(), model.stationary(), model.named_orders["best_systematic"]) > 64


@pytest.mark.parametrize("n", [3, 6, 10])
def test_bridge_efficiency_closed_forms(n):
    """§3.2 (negligible bridge mass): 1/2, 1, 1/n. App. C (equal mass): 1/2, 2/3, about 2/n."""
    tiny = two_islands(n, 1e-9)
    assert bridge_efficiency(tiny, "random") == pytest.approx(0.5, abs=1e-12)
    assert bridge_efficiency(tiny, tiny.named_orders["best_systematic"]) == pytest.approx(1.0, abs=1e-8)
    assert bridge_efficiency(tiny, tiny.named_orders["worst_systematic"]) == pytest.approx(1.0 / n, abs=1e-8)
    equal = two_islands(n, 1.0)
    assert bridge_efficiency(equal, "random") == pytest.approx(0.5, abs=1e-12)
    assert bridge_efficiency(equal, equal.named_orders["best_systematic"]) == pytest.approx(2.0 / 3.0, abs=1e-12)
    # worst: (1/n) sum_i 2^-(n-i) / (1 - 2^-2n) ... -> 2/n; exact finite-n value from the paper's argument
    stay = 0.5
    per_arrival = [stay ** (n - i) * (1 - stay**n) / (1 - stay ** (2 * n)) * 1 for i in range(1, n + 1)]
    expected = sum(per_arrival) / n
    assert bridge_efficiency(equal, equal.named_orders["worst_systematic"]) == pytest.approx(expected, rel=1e-9)
    assert abs(n * expected - 2.0) < 2.0 ** (2 - n) + 1e-12


def test_one_memorize_and_repeat_cycle_takes_2n_updates_from_the_empty_state():
    """App. A.2: a systematic scan started at the beginning of a memorize sequence needs 2n steps."""
    for n in (2, 3, 4):
        model = memorize_and_repeat(n, M=1e6, n_cycles=1)
        empty = model.index_of(np.zeros(n, dtype=np.int64))
        assert mixing_time(model.kernels(), model.stationary(), np.arange(n), starts=empty) == 2 * n


def test_soft_dependencies_best_order_from_the_empty_state():
    """App. A.3: x1..xn memorizes an accepted permutation in n steps; merging takes n - 1 more."""
    for n in (4, 5, 6):
        model = soft_dependencies(n, M=1e6)
        empty = model.index_of(np.zeros(n, dtype=np.int64))
        assert mixing_time(model.kernels(), model.stationary(), np.arange(n), starts=empty) == 2 * n - 1


# ------------------------------------------------------------------------------------------ symmetries


@pytest.mark.parametrize("name, n", [("two_islands", 3), ("discrete_pyramid", 5), ("memorize_and_repeat", 3), ("soft_dependencies", 5)])
def test_random_scan_starts_cover_every_orbit(name, n):
    model = make_model(name, n)
    kernels, pi = model.kernels(), model.stationary()
    assert model.random_scan_starts.size < model.n_states
    assert mixing_time(kernels, pi, "random", starts=model.random_scan_starts) == mixing_time(kernels, pi, "random")


@pytest.mark.parametrize("name, n", [("discrete_pyramid", 4), ("memorize_and_repeat", 3)])
def test_symmetric_models_have_one_systematic_mixing_time(name, n):
    model = make_model(name, n)
    assert model.orders_equivalent
    perms = np.array(list(itertools.permutations(range(model.n_vars))))
    times = systematic_mixing_times(model.kernels(), model.stationary(), perms)
    assert times.min() == times.max()


# ------------------------------------------------------------------------------------------ reduced model


def test_reduced_two_islands_is_stationary_and_tracks_the_full_model():
    for weight in (1.0, 0.1):
        for n in (6, 8):
            reduced = reduced_two_islands(n, weight)
            for kernel in reduced.kernels:
                np.testing.assert_allclose(reduced.stationary @ kernel, reduced.stationary, atol=1e-15)
            full = two_islands(n, weight)
            lumped = [full.stationary()[full.states[:, :n].sum(1) > 0].sum(), full.stationary()[full.states.sum(1) == 0].sum()]
            np.testing.assert_allclose(reduced.stationary[:2], lumped, rtol=1e-12)
            for scan in ("random", "best_systematic", "worst_systematic"):
                order = "random" if scan == "random" else full.named_orders[scan]
                t_full = mixing_time(full.kernels(), full.stationary(), order, starts=full.random_scan_starts if scan == "random" else None)
                t_reduced = mixing_time(list(reduced.kernels), reduced.stationary, order)
                # islands do not mix instantly in the full model: agreement within 40%, within 3% for systematic scans
                assert abs(t_full / t_reduced - 1) < (0.4 if scan == "random" else 0.03)


def test_reduced_two_islands_mixing_time_ratios_follow_bridge_efficiency():
    """§3.2: random takes twice as long as best, and is n/2 times faster than worst (negligible bridge)."""
    n = 24
    chain = reduced_two_islands(n, 1e-3)
    t = {scan: mixing_time(list(chain.kernels), chain.stationary, "random" if scan == "random" else chain.named_orders[scan])
         for scan in ("random", "best_systematic", "worst_systematic")}
    assert t["random"] / t["best_systematic"] == pytest.approx(2.0, rel=0.01)
    assert t["worst_systematic"] / t["random"] == pytest.approx(n / 2, rel=0.05)


# ------------------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    "kwargs, key",
    [
        ({"name": "three_islands", "n": 3}, "model"),
        ({"name": "two_islands", "n": 1}, "n=1"),
        ({"name": "sequence_of_dependencies", "n": 4, "M_factor": -1.0}, "M_factor"),
        ({"name": "two_islands", "n": 4, "bridge_weight": 0.0}, "bridge_weight"),
        ({"name": "memorize_and_repeat", "n": 8}, "max_states"),
        ({"name": "soft_dependencies", "n": 9}, "max_states"),
    ],
)
def test_bad_model_input_names_the_key(kwargs, key):
    kwargs = dict(kwargs)
    name, n = kwargs.pop("name"), kwargs.pop("n")
    with pytest.raises(ValueError, match=key):
        make_model(name, n, **kwargs)


def _tiny_settings():
    return {
        "epsilon": 0.25, "M_factor": 10, "bridge_weight": 1.0, "modified_bridge_weight": 0.1,
        "negligible_bridge_weight": 0.001, "max_states": 50000, "bracket_min_states": 100, "enumerate_max_variables": 5,
        "enumerate_max_states": 64, "fit_fraction": 0.5,
        "n_values": {"sequence_of_dependencies": [2, 3, 4, 6], "two_islands": [2, 3, 4], "discrete_pyramid": [2, 3, 4, 6],
                     "memorize_and_repeat": [2, 3], "soft_dependencies": [4, 5]},
        "level_chain_n": {"memorize_and_repeat": [2, 3, 4, 6], "soft_dependencies": [4, 9, 16]},
        "reduced_two_islands_n": [2, 3, 4, 6, 8],
        "fig2b": {"n": 3, "updates": 300},
        "fig2c": {"sequence_of_dependencies_n": 4, "two_islands_n": 2},
    }


def _check(settings):
    """What the shell does with --settings: the schema slice, then the experiment's cross-key check."""
    validate_settings(settings, load_schema_slice(SCHEMA, "scan_order"), "scan_order")
    experiment.check_settings(settings)


@pytest.mark.parametrize(
    "change, key",
    [
        (lambda s: s.pop("epsilon"), "epsilon"),
        (lambda s: s.update(colour="red"), "colour"),
        (lambda s: s["n_values"].update(two_islands=[1, 2]), "n_values.two_islands"),
        (lambda s: s["n_values"].update(memorize_and_repeat=[2, 9]), "memorize_and_repeat"),
        (lambda s: s["n_values"].pop("soft_dependencies"), "n_values"),
        (lambda s: s["fig2b"].update(updates=-5), "fig2b.updates"),
        (lambda s: s["fig2c"].update(sequence_of_dependencies_n=12), "fig2c.sequence_of_dependencies_n"),
        (lambda s: s.update(epsilon=0.7), "epsilon"),
        (lambda s: s["level_chain_n"].update(memorize_and_repeat=[2, 100]), "level_chain_n.memorize_and_repeat"),
        (lambda s: s.update(M_factor=0.01), "level_chain_n"),  # pi too far from the top state for the bracket
        (lambda s: s.pop("bracket_min_states"), "bracket_min_states"),
    ],
)
def test_bad_settings_name_the_key_before_any_computation(change, key):
    settings = _tiny_settings()
    _check(settings)  # the tiny settings themselves are valid
    change(settings)
    with pytest.raises(ValueError, match=key.replace(".", r"\.")):
        _check(settings)


def _argv(step, settings=None, inputs=(), outputs=(), wildcards=(), smoke=True):
    argv = [step, "--settings", json.dumps(settings or _tiny_settings()), "--seed", "3"]
    for option, pairs in (("--input", inputs), ("--output", outputs), ("--wildcard", wildcards)):
        for name, path in pairs:
            argv += [option, f"{name}={path}"]
    return argv + (["--smoke"] if smoke else [])


def test_bad_settings_on_the_command_line_exit_before_any_computation(tmp_path):
    settings = _tiny_settings()
    settings["n_values"]["memorize_and_repeat"] = [2, 9]
    out = tmp_path / "x.csv"
    with pytest.raises(SystemExit) as exit_info:
        experiment.EXPERIMENT.main(_argv("compute-mixing", settings, outputs=[("mixing", out)],
                                         wildcards=[("scan_model", "memorize_and_repeat")]))
    assert exit_info.value.code == 2
    assert not out.exists()


def test_unknown_model_on_the_command_line(tmp_path):
    out = tmp_path / "x.csv"
    status = experiment.EXPERIMENT.main(_argv("compute-mixing", outputs=[("mixing", out)],
                                              wildcards=[("scan_model", "three_islands")]))
    assert status == 2
    assert not out.exists()


def test_parse_order():
    assert parse_order("n") == (0.0, 1.0)
    assert parse_order("n^3") == (0.0, 3.0)
    assert parse_order("n^(3/2)") == (0.0, 1.5)
    assert parse_order("2^n") == (1.0, 0.0)
    assert parse_order("n 2^n") == (1.0, 1.0)
    with pytest.raises(ValueError):
        parse_order("log n")


# ------------------------------------------------------------------------------------------ end to end


def test_every_step_end_to_end(tmp_path):
    def run(step, inputs=(), outputs=(), wildcards=()):
        assert experiment.EXPERIMENT.main(_argv(step, inputs=inputs, outputs=outputs, wildcards=wildcards)) == 0

    mixing = []
    for name in MODEL_NAMES:
        mixing.append(("mixing", tmp_path / f"mixing_{name}.csv"))
        run("compute-mixing", outputs=[mixing[-1]], wildcards=[("scan_model", name)])
    reduced, efficiency, mass = ("reduced", tmp_path / "reduced.csv"), ("efficiency", tmp_path / "eff.csv"), ("mass", tmp_path / "mass.csv")
    run("compute-islands", outputs=[reduced, efficiency])
    run("compute-island-mass", outputs=[mass])
    perms = []
    for name in experiment.PERMUTATION_MODELS:
        perms.append(("permutations", tmp_path / f"perm_{name}.csv"))
        run("compute-permutations", outputs=[perms[-1]], wildcards=[("perm_model", name)])
    exponents = ("exponents", tmp_path / "exp.csv")
    run("summarise", inputs=[*mixing, reduced, efficiency, mass, *perms, ("paper_claims", "config/claims/he2016.yaml")],
        outputs=[("mixing_times", tmp_path / "mixing_times.csv"), exponents, ("markdown", tmp_path / "table.md"),
                 ("claims", tmp_path / "claims.json")])
    table = pd.read_csv(tmp_path / "mixing_times.csv")
    assert list(table.columns) == ["model", "n", "scan", "t_mix", "t_mix_upper", "method"]
    assert set(table["model"]) == set(MODEL_NAMES)
    assert set(table["scan"]) == set(SCANS)
    assert (table["t_mix_upper"].dropna() > table.loc[table["t_mix_upper"].notna(), "t_mix"]).all()
    levels = table[table["model"].isin(["memorize_and_repeat", "soft_dependencies"]) & (table["scan"] == "random")]
    assert sorted(levels["n"]) == sorted([2, 3, 4, 6, 4, 9, 16])  # random scan from the level chains
    assert levels["method"].str.startswith("level chain").all()
    memorize = table[(table["model"] == "memorize_and_repeat") & (table["scan"] == "best_systematic")]
    assert (memorize["t_mix"] == 3 * memorize["n"] ** 2 - 3 * memorize["n"] + 1).all()
    assert (tmp_path / "mixing_times.meta.json").exists()
    assert json.loads((tmp_path / "mixing_times.meta.json").read_text())["seed"] == 3
    claims = json.loads((tmp_path / "claims.json").read_text())
    assert claims["smoke"] is True and len(claims["claims"]) >= 20
    assert_judged(claims["claims"])
    assert "SMOKE RUN" in (tmp_path / "table.md").read_text()
    seq = table[(table["model"] == "sequence_of_dependencies") & (table["scan"] == "best_systematic")]
    assert (seq["t_mix"] == seq["n"]).all()
    for step, inputs in (("plot-fig2a", [*mixing, reduced, exponents]), ("plot-fig2b", [mass]), ("plot-fig2c", perms)):
        extra = [("appendix", tmp_path / "appendix.png")] if step == "plot-fig2a" else []
        run(step, inputs=inputs, outputs=[("figure", tmp_path / f"{step}.png"), *extra])
        assert (tmp_path / f"{step}.png").stat().st_size > 10_000
    from PIL import Image

    for name, figure, shown in (("plot-fig2a.png", "Fig. 2a", 4), ("appendix.png", "Table 1", 2)):
        with Image.open(tmp_path / name) as image:  # the paper figure named in the title, at most four panels
            assert f"He et al. 2016, {figure}" in image.text["Title"] and image.text["Panels"] == str(shown)
    assert math.isfinite(pd.read_csv(tmp_path / "exp.csv")["fitted_beta"].sum())


@pytest.mark.parametrize("n", [2, 3, 4])
def test_block_classes_give_the_mixing_times_of_all_permutations(n):
    from dogs.counterexamples.mixing import block_orders

    model = make_model("two_islands", n)
    kernels, pi = model.kernels(), model.stationary()
    every = np.arange(model.n_states)
    classes = block_orders(model)
    assert len(classes) == math.comb(2 * n - 1, n - 1)  # block sequences up to the swap of the islands
    all_orders = np.array(list(itertools.permutations(range(model.n_vars))))
    t_all = systematic_mixing_times(kernels, pi, all_orders, epsilon=0.25, starts=every)
    t_classes = systematic_mixing_times(kernels, pi, classes, epsilon=0.25, starts=every)
    assert set(t_all.tolist()) == set(t_classes.tolist())


def test_a_wrongly_declared_block_symmetry_is_refused():
    import dataclasses

    from dogs.counterexamples.mixing import block_orders

    model = make_model("sequence_of_dependencies", 4)
    wrong = dataclasses.replace(model, interchangeable_blocks=((0, 1), (2, 3)), blocks_swappable=True)
    with pytest.raises(ValueError, match="not a symmetry"):
        block_orders(wrong)
