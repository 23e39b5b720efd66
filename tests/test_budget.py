"""The equal-cost budget of the annular-augmentation comparison (the authors' accounting). Deterministic tests only."""

from __future__ import annotations

import math

import pytest

from dogs.samplers.budget import SingleFlipEvaluations, equal_cost_budget


def test_paper_ising_budget():
    """9x9 torus, ``t = 2.5``, clique 4, 1000 HMC samples: F = 931500, 1446 annular iterations, 2875 CMH samples,
    232 875 CMH + LBP proposals."""
    budget = equal_cost_budget(81, travel_time_periods=2.5, n_hmc_samples=1000, clique_size=4)
    assert budget.density_evaluations == 931500
    assert budget.annular_iterations == 1446
    assert budget.cmh_samples == 2875
    assert budget.cmh_samples_exact == 2875.0
    assert budget.cmh_proposals_per_sample == 81
    assert budget.hmc_samples == 1000
    assert budget.hmc_travel_time == pytest.approx(2.5 * math.pi)
    assert budget.cmh_lbp_proposals == 232875  # CMH + LBP spends the budget in proposed flips (L K)
    assert budget.single_flip_evaluations == SingleFlipEvaluations(exact_hmc=202500, annular=1446 * 161, cmh=2875 * 81,
                                                                   cmh_lbp=2875 * 81)


def test_defaults_are_the_paper_ising_setting():
    assert equal_cost_budget(81, clique_size=4) == equal_cost_budget(81, travel_time_periods=2.5, n_hmc_samples=1000, clique_size=4)


def test_formula_on_other_settings():
    # fully connected Boltzmann machine on the 6 heart-disease variables: t = 1.5, clique d - 1 = 5
    budget = equal_cost_budget(6, travel_time_periods=1.5, n_hmc_samples=1000, clique_size=5)
    assert budget.density_evaluations == 1000 * (6 * 1.5 + 6 + 5 * 6 * 1.0) == 45000
    assert budget.annular_iterations == round(45000 / (5 * 11)) == 818
    assert budget.cmh_samples == 1500
    # a ratio that is not an integer is rounded down; the exact ratio is kept
    budget = equal_cost_budget(10, travel_time_periods=1.5, n_hmc_samples=500, clique_size=9)
    assert budget.density_evaluations == 500 * (15 + 10 + 90) == 57500
    assert budget.cmh_samples_exact == pytest.approx(57500 / 90)
    assert budget.cmh_samples == 638
    assert budget.annular_iterations == round(57500 / (9 * 19)) == 336
    # t = 0.5: the clique term vanishes
    assert equal_cost_budget(4, travel_time_periods=0.5, n_hmc_samples=2, clique_size=2).density_evaluations == 2 * (2 + 4)


@pytest.mark.parametrize(
    "args, error",
    [
        (dict(d=1, clique_size=2), ValueError),
        (dict(d=8.0, clique_size=2), TypeError),
        (dict(d=True, clique_size=2), TypeError),
        (dict(d=8, clique_size=0), ValueError),
        (dict(d=8, clique_size=2.5), TypeError),
        (dict(d=8, clique_size=2, n_hmc_samples=0), ValueError),
        (dict(d=8, clique_size=2, n_hmc_samples=10.0), TypeError),
        (dict(d=8, clique_size=2, travel_time_periods=0.25), ValueError),
        (dict(d=8, clique_size=2, travel_time_periods=math.inf), ValueError),
        (dict(d=8, clique_size=2, travel_time_periods="2.5"), TypeError),
    ],
)
def test_bad_arguments_are_rejected(args, error):
    d = args.pop("d")
    with pytest.raises(error):
        equal_cost_budget(d, **args)
