"""The ``dogs`` command line on UAI files written by hand and by pgmpy's writer: every subcommand against
exact answers (enumeration), and malformed files failing with a clear message and exit code 2."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dogs.cli import EXIT_BAD_INPUT, EXIT_OK, EXIT_TOO_LARGE, main
from dogs.models import DiscretePairwiseMRF, grid_model
from dogs.models.uai import UAIError, read_uai, to_binary_pairwise, write_uai

# A 4-cycle of binary variables with one field factor, one constant factor; by hand.
CYCLE = """MARKOV
4
2 2 2 2
7
1 0
2 0 1
2 2 1
2 2 3
2 3 0
1 3
0

2
1.0 2.0
4
3.0 1.0 1.0 3.0
4
3.0 1.0 0.5 3.0
4
3.0 1.0 1.0 3.0
4
2.0 1.0 1.0 3.0
2
1.0 1.5
1
5.0
"""


def brute_force(text_tables, cards, scopes):
    """Exact marginals and log Z of a UAI network by enumeration, from its scopes and flat tables."""
    states = list(itertools.product(*[range(k) for k in cards]))
    weights = []
    for x in states:
        w = 1.0
        for scope, table in zip(scopes, text_tables):
            shape = tuple(cards[v] for v in scope)
            w *= np.asarray(table).reshape(shape)[tuple(x[v] for v in scope)] if scope else table[0]
        weights.append(w)
    weights = np.array(weights)
    z = weights.sum()
    marginals = [np.array([weights[[s[i] == k for s in states]].sum() / z for k in range(cards[i])])
                 for i in range(len(cards))]
    return marginals, float(np.log(z))


CYCLE_SCOPES = [(0,), (0, 1), (2, 1), (2, 3), (3, 0), (3,), ()]
CYCLE_TABLES = [[1.0, 2.0], [3, 1, 1, 3], [3, 1, 0.5, 3], [3, 1, 1, 3], [2, 1, 1, 3], [1.0, 1.5], [5.0]]


def run_cli(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def cycle(tmp_path):
    path = tmp_path / "cycle.uai"
    path.write_text(CYCLE)
    return path


def test_reader_and_binary_conversion_keep_the_distribution(cycle):
    model, constant = read_uai(cycle)
    marginals, log_z = brute_force(CYCLE_TABLES, [2, 2, 2, 2], CYCLE_SCOPES)
    spins, offset = to_binary_pairwise(model)
    states = np.array(list(itertools.product([-1, 1], repeat=4)))
    log_w = states @ spins.h + sum(t * states[:, i] * states[:, j] for (i, j), t in zip(spins.edges, spins.theta))
    assert np.isclose(np.log(np.exp(log_w).sum()) + offset + constant, log_z)
    p_plus = [(np.exp(log_w) * (states[:, i] == 1)).sum() / np.exp(log_w).sum() for i in range(4)]
    np.testing.assert_allclose(p_plus, [m[1] for m in marginals], rtol=1e-12)


def test_exact_subcommand_matches_enumeration(cycle, capsys):
    code, out, _ = run_cli(["exact", str(cycle)], capsys)
    assert code == EXIT_OK
    result = json.loads(out)
    marginals, log_z = brute_force(CYCLE_TABLES, [2, 2, 2, 2], CYCLE_SCOPES)
    assert np.isclose(result["log_partition"], log_z, rtol=1e-12)
    got = {(r["variable"], r["state"]): r["probability"] for r in result["marginals"]}
    for i, m in enumerate(marginals):
        for k, value in enumerate(m):
            assert np.isclose(got[(i, k)], value, rtol=1e-10)


def test_pairwise_factors_only_with_integer_entries(tmp_path, capsys):
    """A binary network with no unary factor and integer table entries (common in UAI files) is read, not
    refused: every subcommand runs and ``exact`` matches enumeration."""
    path = tmp_path / "pairs.uai"
    path.write_text("MARKOV\n3\n2 2 2\n2\n2 0 1\n2 1 2\n\n4\n 1 2 3 4\n4\n 5 1 1 5\n")
    code, out, err = run_cli(["exact", str(path)], capsys)
    assert code == EXIT_OK, err
    marginals, log_z = brute_force([[1, 2, 3, 4], [5, 1, 1, 5]], [2, 2, 2], [(0, 1), (1, 2)])
    result = json.loads(out)
    assert np.isclose(result["log_partition"], log_z, rtol=1e-12)
    got = {(r["variable"], r["state"]): r["probability"] for r in result["marginals"]}
    assert all(np.isclose(got[(i, k)], m[k], rtol=1e-10) for i, m in enumerate(marginals) for k in range(2))
    for argv in (["bound", str(path)], ["scan", str(path), "--target", "0", "--budget", "12"],
                 ["sample", str(path), "--scan", "systematic", "--length", "12"]):
        code, _, err = run_cli(argv, capsys)
        assert code == EXIT_OK, (argv, err)


def test_pgmpy_written_discrete_network(tmp_path, capsys):
    from pgmpy.factors.discrete import DiscreteFactor
    from pgmpy.models import DiscreteMarkovNetwork
    from pgmpy.readwrite import UAIWriter

    rng = np.random.default_rng(3)
    network = DiscreteMarkovNetwork([("a", "b"), ("b", "c")])
    cards = {"a": 3, "b": 2, "c": 4}
    factors = [DiscreteFactor(["a", "b"], [3, 2], rng.uniform(0.5, 2, 6)),
               DiscreteFactor(["b", "c"], [2, 4], rng.uniform(0.5, 2, 8)),
               DiscreteFactor(["c"], [4], rng.uniform(0.5, 2, 4))]
    network.add_factors(*factors)
    path = tmp_path / "pgmpy.uai"
    UAIWriter(network).write(str(path))
    code, out, err = run_cli(["exact", str(path), "--format", "csv"], capsys)
    assert code == EXIT_OK, err
    lines = out.strip().splitlines()
    assert lines[0] == "variable,state,probability" and len(lines) == 1 + 3 + 2 + 4
    # pgmpy's own exact answer for the same network
    from pgmpy.inference import VariableElimination

    # the writer numbers the variables in an order of its own; the cardinalities (all different) identify them
    by_card = {k: name for name, k in cards.items()}
    names = [by_card[int(k)] for k in read_uai(path)[0].cardinalities]
    ve = VariableElimination(network)
    for line in lines[1:]:
        var, state, prob = line.split(",")
        name = names[int(var)]
        answer = ve.query([name], show_progress=False)
        answer.normalize()
        assert np.isclose(float(prob), answer.values[int(state)], rtol=1e-9)

    # Gibbs on the same three- and four-state network: within 4.5 ESS-based standard errors of the exact
    # marginals (9 marginals: a chance failure below 1e-4 per run, as in the binary test below)
    exact = {(int(v), int(k)): float(p) for v, k, p in (line.split(",") for line in lines[1:])}
    code, out, err = run_cli(["sample", str(path), "--scan", "systematic", "--length", "3", "--draws", "1000",
                              "--seed", "3"], capsys)
    assert code == EXIT_OK, err
    result = json.loads(out)
    assert result["converged"] and len(result["marginals"]) == 9
    for row in result["marginals"]:
        assert abs(row["probability"] - exact[(row["variable"], row["state"])]) < 4.5 * row["std_error"], row


def test_bound_scan_and_sample_on_a_grid(tmp_path, capsys):
    model = grid_model(4, 4, coupling=0.2, field=0.1)
    npz = tmp_path / "grid.npz"
    np.savez(npz, **model.to_npz_dict())
    code, out, _ = run_cli(["bound", str(npz), "--out", str(tmp_path / "c.npz")], capsys)
    assert code == EXIT_OK and json.loads(out)["nonzeros"] == 2 * model.n_edges
    assert (tmp_path / "c.npz").exists()

    code, out, _ = run_cli(["scan", str(npz), "--target", "0", "--budget", "64", "--out", str(tmp_path / "s.txt")], capsys)
    result = json.loads(out)
    assert code == EXIT_OK and result["dogs_variation"] <= result["base_variation"]
    code, out, _ = run_cli(["scan", str(npz), "--target", "0", "--budget", "160", "--epsilon", "base"], capsys)
    doubling = json.loads(out)
    assert code == EXIT_OK and doubling["dogs_length"] <= 160 and doubling["dogs_variation"] <= doubling["epsilon"]



def test_sample_agrees_with_exact_marginals_within_ess_based_errors(tmp_path, capsys):
    """A 4x4 grid at moderate coupling, where Gibbs chains mix: 4 chains from random starts, 2000 draws each.

    Each estimate must lie within 4.5 of its ESS-based standard errors of the exact marginal. With a correct
    standard error a normal deviation exceeds 4.5 sd with probability 6.8e-6, so this fails by chance with
    probability below 2e-4 for the 32 reported marginals (16 distinct: P(state 0) mirrors P(state 1));
    with effective sample sizes in the thousands the estimated standard errors are within a few per cent
    of the true ones, which changes that rate little. The seed is fixed, so the run is reproducible.
    """
    model = grid_model(4, 4, coupling=0.3, field=0.1)
    npz = tmp_path / "grid.npz"
    np.savez(npz, **model.to_npz_dict())
    code, out, err = run_cli(["sample", str(npz), "--scan", "systematic", "--length", "16", "--draws", "2000",
                              "--seed", "7"], capsys)
    assert code == EXIT_OK, err
    sampled = json.loads(out)
    assert sampled["converged"] and sampled["max_r_hat"] <= 1.01 and "warning" not in err
    assert sampled["start"] == "random" and sampled["chains"] == 4 and sampled["draws"] == 2000
    code, exact_out, _ = run_cli(["exact", str(npz)], capsys)
    exact = {(r["variable"], r["state"]): r["probability"] for r in json.loads(exact_out)["marginals"]}
    for row in sampled["marginals"]:
        assert row["ess_bulk"] > 1000 and row["ess_tail"] > 400
        assert abs(row["probability"] - exact[(row["variable"], row["state"])]) < 4.5 * row["std_error"], row


def spin_glass_grid(side=10, strength=10.0, seed=0):
    """A grid like the UAI'08 'grid10x10.f10' models: couplings U[-f, f], fields U[-1, 1] (our generator).

    At f = 10, tanh|theta| is within 1e-3 of 1 on most edges, so Theorem 11's row sums approach 4.
    """
    rng = np.random.default_rng(seed)
    n_edges = 2 * side * (side - 1)
    return grid_model(side, side, coupling=rng.uniform(-strength, strength, n_edges), field=rng.uniform(-1, 1, side**2))


@pytest.fixture
def frozen_grid(tmp_path):
    path = tmp_path / "grid10x10.f10.uai"
    write_uai(spin_glass_grid(), path)
    return path


def test_vacuous_certificates_are_marked(frozen_grid, capsys):
    code, out, err = run_cli(["bound", str(frozen_grid)], capsys)
    bound = json.loads(out)
    assert code == EXIT_OK and bound["max_row_sum"] > 3.9 and bound["vacuous"] and not bound["dobrushin_condition"]
    assert "warning" in err and "certifies no mixing" in err

    code, out, err = run_cli(["scan", str(frozen_grid), "--target", "0", "--budget", "2000"], capsys)
    scan = json.loads(out)
    assert code == EXIT_OK and scan["base_variation"] > 1 and scan["dogs_variation"] > 1
    assert scan["vacuous"] and scan["base_vacuous"] and scan["dogs_vacuous"] and scan["variation_ratio_dogs_over_base"] is None
    assert "bounds nothing" in err
    code, out, _ = run_cli(["scan", str(frozen_grid), "--target", "0", "--budget", "2000", "--format", "csv"], capsys)
    header, row = out.strip().splitlines()
    assert dict(zip(header.split(","), row.split(",")))["vacuous"] == "True"

    # 'as good as the base' cannot be met by a variation >= 1: no length-2 scan is returned
    code, out, err = run_cli(["scan", str(frozen_grid), "--target", "0", "--budget", "2000", "--epsilon", "base"],
                             capsys)
    assert code == EXIT_BAD_INPUT and out == "" and "below 1" in err and len(err.strip().splitlines()) == 1


def test_sample_warns_when_chains_from_dispersed_starts_disagree(frozen_grid, tmp_path, capsys):
    chains = tmp_path / "chains.nc"
    code, out, err = run_cli(["sample", str(frozen_grid), "--scan", "systematic", "--length", "2000", "--draws", "20",
                              "--save-chains", str(chains)], capsys)
    result = json.loads(out)
    assert code == EXIT_OK and not result["converged"] and result["marginals_not_converged"] > 0
    assert result["max_r_hat"] is None or result["max_r_hat"] > 1.01
    assert any(r["r_hat"] is not None and r["r_hat"] > 1.01 for r in result["marginals"]) or \
        any(r["r_hat"] is None for r in result["marginals"])
    assert "warning: split R-hat exceeds 1.01" in err
    assert "--blocks elimination" not in err  # the remedy is named for factor graphs only

    import arviz

    data = arviz.from_netcdf(chains)
    assert data.posterior["label"].shape == (4, 20, 100)
    np.testing.assert_allclose(data.posterior["label"].values[:, :, 0].mean(),
                               result["marginals"][1]["probability"])


def test_output_paths_are_checked_before_computing(tmp_path, capsys):
    model = grid_model(3, 3, coupling=0.2)
    npz = tmp_path / "m.npz"
    np.savez(npz, **model.to_npz_dict())
    (tmp_path / "adir.npz").mkdir()
    cases = [
        (["bound", str(npz), "--out", str(tmp_path / "missing" / "c.npz")], "does not exist"),
        (["bound", str(npz), "--out", str(tmp_path / "adir.npz")], "is a directory"),
        (["bound", str(npz), "--out", str(tmp_path / "c.npy")], "must end in .npz"),
        (["scan", str(npz), "--target", "0", "--budget", "9", "--out", str(tmp_path / "s.csv")], "must end in"),
        (["sample", str(npz), "--scan", "uniform", "--length", "9", "--save-chains", str(tmp_path / "c.zip")],
         "must end in .nc"),
    ]
    for argv, message in cases:
        code, out, err = run_cli(argv, capsys)
        assert code == EXIT_BAD_INPUT and out == "" and message in err, (argv, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir.npz", "m.npz"]  # nothing written
    code, out, _ = run_cli(["bound", str(npz), "--out", str(tmp_path / "c.npz")], capsys)
    assert code == EXIT_OK and json.loads(out)["out"] == str(tmp_path / "c.npz") and (tmp_path / "c.npz").is_file()


def test_resource_guard_names_the_option(tmp_path, capsys):
    model = grid_model(3, 3, coupling=0.2)
    npz = tmp_path / "m.npz"
    np.savez(npz, **model.to_npz_dict())
    cases = [
        (["scan", str(npz), "--target", "0", "--budget", "1e12"], "--budget"),
        (["sample", str(npz), "--scan", "systematic", "--length", "1e12"], "--length"),
        (["sample", str(npz), "--scan", "systematic", "--length", "9", "--chains", "1e9"], "--chains"),
        (["sample", str(npz), "--scan", "systematic", "--length", "9", "--draws", "1e10"], "--draws"),
        (["exact", str(npz), "--max-memory-gb", "0.0001"], "--max-memory-gb"),
    ]
    for argv, option in cases:
        code, out, err = run_cli(argv, capsys)
        assert code == EXIT_TOO_LARGE and out == "" and option in err and "raise it with --max-memory-gb" in err, err
        assert len(err.strip().splitlines()) == 1
MALFORMED = {
    "truncated": CYCLE[: CYCLE.index("3.0 1.0 0.5")],
    "wrong count": CYCLE.replace("4\n3.0 1.0 0.5 3.0", "3\n3.0 1.0 0.5 3.0"),
    "negative entry": CYCLE.replace("1.0 2.0", "1.0 -2.0"),
    "factor zero everywhere": CYCLE.replace("1.0 2.0", "0 0.0"),
    "bayes network": CYCLE.replace("MARKOV", "BAYES"),
    "unknown variable": CYCLE.replace("2 3 0", "2 3 9"),
    "huge domain": CYCLE.replace("2 2 2 2", "2 2 2 100000000"),
    "not a number": CYCLE.replace("1.0 2.0", "1.0 two"),
    "trailing tokens": CYCLE + "\n1 2 3\n",
}


@pytest.mark.parametrize("name", MALFORMED)
def test_malformed_files_fail_clearly(name, tmp_path, capsys):
    path = tmp_path / "bad.uai"
    path.write_text(MALFORMED[name])
    with pytest.raises(UAIError):
        read_uai(path)
    code, out, err = run_cli(["exact", str(path)], capsys)
    assert code == EXIT_BAD_INPUT and out == ""
    assert str(path) in err and "Traceback" not in err


def test_bad_arguments_and_too_large(tmp_path, capsys):
    path = tmp_path / "cycle.uai"
    path.write_text(CYCLE)
    (tmp_path / "zeros.txt").write_text("0 0 0 0\n")
    (tmp_path / "scan.txt").write_text("0 1 2 3\n")
    for argv in (["scan", str(path), "--budget", "10"],  # neither --target nor --weights
                 ["scan", str(path), "--target", "9", "--budget", "10"],
                 ["scan", str(path), "--target", "0", "--budget", "10", "--epsilon", "-1"],
                 ["scan", str(path), "--weights", str(tmp_path / "zeros.txt"), "--budget", "10"],
                 ["sample", str(path), "--scan", "uniform", "--length", "0"],  # an empty scan
                 ["sample", str(path), "--scan", str(tmp_path / "scan.txt"), "--length", "10"],  # length of a file
                 ["sample", str(path), "--scan", str(tmp_path / "missing.txt"), "--chains", "10"],
                 ["exact", str(tmp_path / "missing.uai")]):
        code, _, err = run_cli(argv, capsys)
        assert code == EXIT_BAD_INPUT and err, argv
    big = grid_model(30, 30, coupling=0.1)
    npz = tmp_path / "big.npz"
    np.savez(npz, **big.to_npz_dict())
    code, _, err = run_cli(["exact", str(npz), "--max-table-entries", "1000"], capsys)
    assert code == EXIT_TOO_LARGE and "too large" in err


def test_write_uai_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    model = DiscretePairwiseMRF(np.array([2, 3, 4]), [rng.normal(size=k) for k in (2, 3, 4)],
                                np.array([[0, 1], [1, 2]]), [rng.normal(size=(2, 3)), rng.normal(size=(3, 4))])
    back, constant = read_uai(write_uai(model, tmp_path / "m.uai"))
    assert constant == 0.0
    for a, b in zip(model.unary + model.tables, back.unary + back.tables):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_console_script_help():
    proc = subprocess.run([sys.executable, "-m", "dogs.cli", "scan", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0 and "--budget" in proc.stdout


TRIPLE = """MARKOV
4
2 2 2 2
3
3 0 1 2
2 2 3
1 3

8
1.0 2.0 0.5 1.5 3.0 1.0 2.0 4.0
4
2.0 1.0 1.0 2.0
2
1.0 3.0
"""


@pytest.mark.filterwarnings("ignore::dogs.sampling_call.SamplingWarning")  # eight draws do not converge
def test_binary_networks_with_larger_factors_use_theorem12(tmp_path, capsys):
    from dogs.bounds import exact_influence_higher_order
    from dogs.models.uai import read_uai_binary_factors

    path = tmp_path / "triple.uai"
    path.write_text(TRIPLE)
    n_vars, factors, h, constant = read_uai_binary_factors(path)
    # the parity expansion reproduces the network's log density on every state
    tables = [(np.array([1.0, 2.0, 0.5, 1.5, 3.0, 1.0, 2.0, 4.0]).reshape(2, 2, 2), (0, 1, 2)),
              (np.array([2.0, 1.0, 1.0, 2.0]).reshape(2, 2), (2, 3)), (np.array([1.0, 3.0]), (3,))]
    for x in itertools.product([0, 1], repeat=4):
        s = 2 * np.array(x) - 1
        direct = sum(np.log(t[tuple(x[v] for v in scope)]) for t, scope in tables)
        expanded = constant + h @ s + sum(c * np.prod(s[list(scope)]) for scope, c in factors)
        assert np.isclose(direct, expanded, atol=1e-12)

    code, out, err = run_cli(["bound", str(path), "--out", str(tmp_path / "c.npz")], capsys)
    assert code == EXIT_OK, err
    from scipy import sparse

    bound = sparse.load_npz(tmp_path / "c.npz").toarray()
    exact = exact_influence_higher_order(n_vars, factors, h).toarray()
    assert np.all(bound >= exact - 1e-12) and bound[0, 1] > 0  # Theorem 12 bounds the true influence
    code, out, _ = run_cli(["scan", str(path), "--target", "0", "--budget", "40"], capsys)
    assert code == EXIT_OK and json.loads(out)["dogs_variation"] <= json.loads(out)["base_variation"]
    code, out, err = run_cli(["exact", str(path)], capsys)  # a factor graph: exact takes it
    assert code == EXIT_OK, err
    marginals, log_z = brute_force([t.ravel() for t, _ in tables], [2, 2, 2, 2], [scope for _, scope in tables])
    assert np.isclose(json.loads(out)["log_partition"], log_z, rtol=1e-12)
    code, out, err = run_cli(["sample", str(path), "--chains", "2", "--draws", "8"], capsys)  # a factor graph too
    assert code == EXIT_OK and len(json.loads(out)["marginals"]) == 8, err
    code, _, err = run_cli(["bound", str(path), "--method", "theorem12", "--out", str(tmp_path / "t12.npz")], capsys)
    assert code == EXIT_OK, err
    printed = sparse.load_npz(tmp_path / "t12.npz").toarray()
    assert np.all(printed >= exact - 1e-12)  # Theorem 12 as printed, on the parity expansion
    (tmp_path / "ternary.uai").write_text(TRIPLE.replace("2 2 2 2", "3 2 2 2").replace("8\n1.0 2.0", "12\n1 1 1 1 1.0 2.0"))
    code, _, err = run_cli(["bound", str(tmp_path / "ternary.uai"), "--method", "theorem12"], capsys)
    assert code == EXIT_BAD_INPUT and "binary network" in err


def test_unreadable_and_unwritable_places(tmp_path, capsys, monkeypatch):
    model = grid_model(3, 3, coupling=0.2)
    npz = tmp_path / "m.npz"
    np.savez(npz, **model.to_npz_dict())
    weights = tmp_path / "w.txt"
    weights.write_text(" ".join(["1"] * 9))
    scan = tmp_path / "s.txt"
    scan.write_text("0 1 2")
    # the super-user reads every file, so a permission failure is simulated where the command opens files
    from dogs.cli import _checks

    real_open = open

    def refusing_open(path, *args, **kwargs):
        if str(path) in (str(weights), str(scan)):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(_checks, "open", refusing_open, raising=False)
    for argv in (["scan", str(npz), "--weights", str(weights), "--budget", "9"],
                 ["sample", str(npz), "--scan", str(scan), "--draws", "4"]):
        code, out, err = run_cli(argv, capsys)
        assert code == EXIT_BAD_INPUT and out == "" and "Permission denied" in err, err
    monkeypatch.undo()
    # a read-only place: /proc accepts no new files, not even from the super-user
    if Path("/proc/self").is_dir():
        code, out, err = run_cli(["bound", str(npz), "--out", "/proc/dogs-bound.npz"], capsys)
        assert code == EXIT_BAD_INPUT and out == "" and "cannot write in /proc" in err, err


def test_theorem10_on_many_states_is_refused_before_allocating(tmp_path, capsys):
    """Theorem 10 compares every pair of columns of a pair table: 256 states on both sides is ~0.8 GB per edge."""
    cards = np.array([256, 256, 256])
    rng = np.random.default_rng(4)
    model = DiscretePairwiseMRF(cards, [np.zeros(256)] * 3, np.array([[0, 1], [1, 2]]),
                                [rng.normal(size=(256, 256)), rng.normal(size=(256, 256))])
    path = write_uai(model, tmp_path / "wide.uai")
    code, out, err = run_cli(["bound", str(path), "--max-memory-gb", "1"], capsys)
    assert code == EXIT_TOO_LARGE and out == "" and "Theorem 10" in err and "--max-memory-gb" in err, err
