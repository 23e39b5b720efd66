"""The numba UAI reading kernels (:mod:`dogs._kernels.uai`) and the array conversions of :mod:`dogs.models.uai`
against plain-Python references: ``float`` and a regular expression for single numbers, a ``str.split``
reader for whole files, and the per-factor parity expansion for the ±1 conversion."""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pytest

from dogs._kernels.uai import NUMBER_INVALID, NUMBER_OK, NUMBER_SLOW, parse_decimal
from dogs.models.uai import _parity_coefficients, binary_pairwise_terms, read_uai_network

DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _parse(token: str):
    buf = np.frombuffer(token.encode(), dtype=np.uint8)
    return parse_decimal(buf, 0, buf.size)


def _tokens(rng, n):
    for _ in range(n):
        x = 10 ** rng.uniform(-30, 30)
        yield repr(x)
        yield f"{x:.{int(rng.integers(1, 21))}g}"
        yield f"{x:.{int(rng.integers(0, 26))}f}"
        yield f"{x:.{int(rng.integers(0, 18))}e}"
        yield str(int(rng.integers(0, 2**62))) + (f"e{int(rng.integers(-25, 26))}" if rng.random() < 0.5 else "")
        yield repr(float(np.exp(rng.uniform(-1, 1))))  # what a UAI table usually holds


ADVERSARIAL = ["0", "-0", "+0.0", "0.000", ".5", "5.", "1E5", "00012", "1e22", "1e23", "1e-22", "1e-23",
               "9007199254740993", "9007199254740993e1", "9007199254740992.5", "4503599627370497.5",
               "123456789012345678", "1234567890123456789", "12345678901234567890123e-10",
               "2.2250738585072011e-308", "4.9e-324", "1.7976931348623157e308", "0.1", "0.3", "2.675",
               "1.0000000000000002", "0.99999999999999989", "7.1e10", "3.0517578125e-05"]


def test_numbers_read_exactly_as_float_reads_them():
    rng = np.random.default_rng(0)
    tokens = list(_tokens(rng, 20000)) + ADVERSARIAL
    fast = 0
    for token in tokens:
        value, outcome = _parse(token)
        assert outcome in (NUMBER_OK, NUMBER_SLOW), token
        if outcome == NUMBER_OK:
            fast += 1
            expected = float(token)
            assert value == expected and math.copysign(1, value) == math.copysign(1, expected), token
    assert fast > 0.5 * len(tokens)  # the fast path is the common one
    # typical table entries (17 significant digits near 1) take the fast path
    assert all(_parse(repr(float(x)))[1] == NUMBER_OK for x in np.exp(rng.uniform(-1, 1, 2000)))


def test_number_grammar_matches_the_reference_expression():
    rng = np.random.default_rng(1)
    alphabet = list("0123456789.+-eE_x ")
    candidates = ["", ".", "e5", "1e", "1e+", "--1", "1.2.3", "1_0", "0x10", "inf", "nan", "1,5", "+", "-.e1", ".e1",
                  "1e1.5", "1ee5", "e", "+.5", "-5.", "5.e3"]
    candidates += ["".join(rng.choice(alphabet, int(rng.integers(1, 8)))).strip() for _ in range(20000)]
    for token in candidates:
        _, outcome = _parse(token)
        assert (outcome != NUMBER_INVALID) == bool(DECIMAL.fullmatch(token)), token


def _reference_read(text: str):
    """Plain-Python reader: split on whitespace, int for counts, float for entries (valid files only)."""
    tokens = text.split()
    assert tokens[0] == "MARKOV"
    position = 1
    n = int(tokens[position]); position += 1
    cards = [int(t) for t in tokens[position:position + n]]; position += n
    n_factors = int(tokens[position]); position += 1
    scopes = []
    for _ in range(n_factors):
        size = int(tokens[position]); position += 1
        scopes.append([int(t) for t in tokens[position:position + size]]); position += size
    tables = []
    for _ in range(n_factors):
        count = int(tokens[position]); position += 1
        tables.append([float(t) for t in tokens[position:position + count]]); position += count
    assert position == len(tokens)
    return cards, scopes, tables


def _random_network_text(rng) -> str:
    n = int(rng.integers(1, 7))
    cards = rng.integers(2, 4, n)
    scopes = [list(rng.choice(n, int(rng.integers(0, min(n, 3) + 1)), replace=False)) for _ in range(rng.integers(1, 8))]
    formats = [repr, lambda x: f"{x:.3g}", lambda x: f"{x:.6e}", lambda x: f"{x:.12f}"]
    space = [" ", "  ", "\t", " \t "]
    newline = ["\n", "\r\n", "\n\n"]

    def join(items):
        return str(rng.choice(space)).join(items)

    lines = ["MARKOV", str(n), join(map(str, cards)), str(len(scopes))]
    lines += [join([str(len(s))] + [str(v) for v in s]) for s in scopes]
    lines.append("")
    for scope in scopes:
        size = int(np.prod([cards[v] for v in scope]))
        values = np.exp(rng.uniform(-3, 3, size)) * 10.0 ** float(rng.integers(-8, 30))  # %.12f keeps them > 0
        fmt = formats[int(rng.integers(len(formats)))]
        lines += [str(size), join(fmt(float(v)) for v in values)]
    return str(rng.choice(newline)).join(lines) + "\n"


def test_reader_matches_the_plain_python_reader(tmp_path):
    rng = np.random.default_rng(2)
    for k in range(150):
        text = _random_network_text(rng)
        path = tmp_path / f"n{k}.uai"
        path.write_text(text, newline="")
        network = read_uai_network(path)
        cards, scopes, tables = _reference_read(text)
        assert network.cardinalities.tolist() == cards
        for f, (scope, table) in enumerate(network.factors()):
            assert list(scope) == scopes[f]
            np.testing.assert_array_equal(table.ravel(), np.log(np.array(tables[f])))


def _binary_network_text(rng) -> str:
    """A binary pairwise network with repeated and reversed scopes, unary and constant factors."""
    n = int(rng.integers(2, 7))
    pairs = [tuple(rng.choice(n, 2, replace=False)) for _ in range(int(rng.integers(1, 10)))]
    scopes = [list(p) for p in pairs] + [[int(v)] for v in rng.integers(0, n, 3)] + [[]]
    lines = ["MARKOV", str(n), " ".join(["2"] * n), str(len(scopes))]
    lines += [" ".join(map(str, [len(s)] + [int(v) for v in s])) for s in scopes]
    for scope in scopes:
        values = np.exp(rng.normal(size=2 ** len(scope)))
        lines += [str(values.size), " ".join(map(repr, values.tolist()))]
    return "\n".join(lines) + "\n"


def test_binary_conversion_matches_the_parity_expansion(tmp_path):
    rng = np.random.default_rng(3)
    for k in range(60):
        path = tmp_path / f"b{k}.uai"
        path.write_text(_binary_network_text(rng))
        network = read_uai_network(path)
        edges, theta, h, offset = binary_pairwise_terms(network)
        # reference: the exact per-factor expansion, accumulated in dictionaries
        ref_h, ref_theta, ref_offset = np.zeros(network.n_vars), {}, 0.0
        for scope, table in network.factors():
            for subset, c in _parity_coefficients(np.asarray(table)).items():
                if not subset:
                    ref_offset += c
                elif len(subset) == 1:
                    ref_h[scope[subset[0]]] += c
                else:
                    key = tuple(sorted(scope))
                    ref_theta[key] = ref_theta.get(key, 0.0) + c
        assert [tuple(e) for e in edges.tolist()] == sorted(ref_theta)
        np.testing.assert_allclose(theta, [ref_theta[tuple(e)] for e in edges.tolist()], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(h, ref_h, rtol=1e-12, atol=1e-12)
        assert offset == pytest.approx(ref_offset, rel=1e-12, abs=1e-12)
        # and the log density of every state is the file's
        for x in itertools.product([0, 1], repeat=network.n_vars):
            s = 2 * np.array(x) - 1
            direct = sum(float(t[tuple(x[v] for v in scope)]) for scope, t in network.factors())
            spins = offset + h @ s + sum(t * s[i] * s[j] for (i, j), t in zip(edges.tolist(), theta))
            assert direct == pytest.approx(spins, abs=1e-10)
