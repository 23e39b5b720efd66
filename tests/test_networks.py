"""``dogs sample NET.uai --evidence NET.uai.evid`` on pgmpy's bundled networks: accurate, or it says the chains
did not mix.

For asia, sachs, child, insurance and alarm (written to UAI by our writer, evidence on three variables observed in
a forward sample, chosen by a fixed seed), the command's estimates are compared with the exact posterior marginals
of the junction tree. When the command reports every marginal converged (split R-hat below 1.01), each marginal
must pass a two-sided z-test with its reported Monte Carlo standard error, Bonferroni-corrected over the network's
marginals at a family-wise false-failure rate of 1e-3 per network (5e-3 for the file; the standard errors come
from ArviZ's effective sample sizes, so the rate is nominal). When it does not, it must say so on standard error:
single-site Gibbs is reducible on networks with deterministic relations (asia's ``either = tub or lung``), and no
number of draws then fixes the estimates, so saying so is the promise.
"""

from __future__ import annotations

import contextlib
import io
import json
import warnings

import numpy as np
import pytest
from scipy.stats import norm

pytest.importorskip("pgmpy")

from dogs.benchmarks.networks import choose_evidence, load_network  # noqa: E402
from dogs.cli import main as dogs_main  # noqa: E402
from dogs.exact import junction_tree_marginals  # noqa: E402
from dogs.models.evidence import condition  # noqa: E402
from dogs.models.uai import write_uai  # noqa: E402

FAMILY_FALSE_FAILURE = 1e-3


@pytest.mark.parametrize("name", ["asia", "sachs", "child", "insurance", "alarm"])
def test_sample_with_evidence_is_accurate_or_says_it_did_not_mix(name, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        model, _ = load_network(name)
    evidence = choose_evidence(model, 3, np.random.default_rng(sum(map(ord, name))))
    uai, evid = tmp_path / f"{name}.uai", tmp_path / f"{name}.uai.evid"
    write_uai(model, uai)
    evid.write_text(f"{len(evidence)} " + " ".join(f"{i} {k}" for i, k in evidence.items()) + "\n")

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = dogs_main(["sample", str(uai), "--evidence", str(evid), "--chains", "4", "--draws", "2000",
                            "--seed", "1"])
    assert status in (0, None), err.getvalue()
    report = json.loads(out.getvalue())

    conditioned = condition(model, evidence)
    exact = junction_tree_marginals(conditioned.model)
    truth = {(int(i), k): float(p) for i, m in zip(conditioned.free, exact.node_marginals) for k, p in enumerate(m)}
    marginals = report["marginals"]
    assert {(r["variable"], r["state"]) for r in marginals} == set(truth)
    assert not set(evidence) & {r["variable"] for r in marginals}

    if not report["converged"]:
        assert "split R-hat exceeds 1.01 or is undefined" in err.getvalue()
        assert report["marginals_not_converged"] > 0
        return
    z = norm.isf(FAMILY_FALSE_FAILURE / (2 * len(marginals)))
    n = 4 * 2000
    failures = []
    for r in marginals:
        p = truth[(r["variable"], r["state"])]
        # independent exact draws (the default blocks where the zeros call for elimination): binomial at the exact p
        std_error = np.sqrt(p * (1 - p) / n) if report["independent_draws"] else r["std_error"]
        if std_error is None or abs(r["probability"] - p) > z * std_error + 1e-12:
            failures.append((r["variable"], r["state"], r["probability"], p, std_error))
    assert not failures, f"{name}: (variable, state, estimate, exact, SE) beyond {z:.2f} SE: {failures}"


def test_sample_with_elimination_blocks_draws_alarm_exactly(tmp_path):
    """``--blocks elimination`` on alarm (one block holds the whole network, so the 4 x 500 draws are independent
    exact draws): every marginal within ``z`` binomial standard errors of the exact posterior, ``z`` the two-sided
    Bonferroni quantile over the marginals at family-wise false-failure rate 1e-3; and the option is refused where
    it does not apply."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        model, _ = load_network("alarm")
    evidence = choose_evidence(model, 3, np.random.default_rng(sum(map(ord, "alarm"))))
    uai, evid = tmp_path / "alarm.uai", tmp_path / "alarm.uai.evid"
    write_uai(model, uai)
    evid.write_text(f"{len(evidence)} " + " ".join(f"{i} {k}" for i, k in evidence.items()) + "\n")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = dogs_main(["sample", str(uai), "--evidence", str(evid), "--chains", "4", "--draws", "500", "--seed",
                            "2", "--blocks", "elimination"])
        refused = dogs_main(["sample", str(uai), "--blocks", "elimination", "--certify"])
    assert status in (0, None), err.getvalue()
    assert refused not in (0, None) and "--blocks elimination" in err.getvalue()
    marginals = json.loads(out.getvalue())["marginals"]
    conditioned = condition(model, evidence)
    exact = junction_tree_marginals(conditioned.model)
    truth = {(int(i), k): float(p) for i, m in zip(conditioned.free, exact.node_marginals) for k, p in enumerate(m)}
    n = 4 * 500
    z = norm.isf(FAMILY_FALSE_FAILURE / (2 * len(marginals)))
    failures = [(r["variable"], r["state"], r["probability"], truth[(r["variable"], r["state"])]) for r in marginals
                if abs(r["probability"] - truth[(r["variable"], r["state"])])
                > z * np.sqrt(truth[(r["variable"], r["state"])] * (1 - truth[(r["variable"], r["state"])]) / n)
                + 1e-12]
    assert not failures, failures
