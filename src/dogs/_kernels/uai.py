r"""numba kernels that read the numbers of a UAI file from its bytes (:mod:`dogs.models.uai`).

The UAI format is a stream of whitespace-separated ASCII tokens; a 10^6-variable grid file holds
about 2 * 10^7 of them. Splitting the text and calling ``float`` per token costs about 1 µs a token
in Python; these kernels walk the bytes once instead.

Tokens are separated by ASCII whitespace (bytes 9-13 and 32). Two grammars are accepted:

- a count or an index: ``[0-9]+`` with at most 18 digits (so it fits an int64);
- a table entry: ``[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?``.

Nothing else is a number: no ``_`` separators, no ``inf``/``nan``, no hexadecimal, no non-ASCII
digits (callers refuse non-ASCII bytes before calling these kernels).

Decimal to binary
-----------------
A table entry with mantissa ``m`` (at most 18 significant digits, so ``m < 2^63``) and decimal exponent
``k`` is :math:`x = m \cdot 10^k`. When :math:`|k| \le 22`, :math:`10^{|k|}` is an exact double, and

- for :math:`m < 2^{53}` one multiplication or division by it is correctly rounded (Clinger's fast path);
- otherwise ``m = hi + lo`` (``hi`` the double nearest ``m``, ``lo`` exact) and the product or quotient is
  formed in double-double arithmetic (Dekker's exact product by Veltkamp splitting), giving
  :math:`x = s + t` with an error below :math:`2^{-100} |x|`. ``s`` is then the correctly rounded
  result unless :math:`|t|` lies within that error of half a unit in the last place of ``s`` (or ``s``
  is a power of two, where the spacing changes).

Every other entry (more than 18 significant digits, :math:`|k| > 22`, the undecidable cases above)
is flagged "slow" and left to the caller, which converts the token with Python's ``float``. Either
way every entry reads exactly as ``float(token)`` reads it (tested against ``float`` on random and
adversarial tokens).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["NUMBER_INVALID", "NUMBER_OK", "NUMBER_SLOW", "STATUS_BAD_TOKEN", "STATUS_END", "STATUS_OK",
           "STATUS_TOO_LARGE", "STATUS_WRONG_COUNT", "next_token", "parse_decimal", "read_integers",
           "read_scopes", "read_tables", "scan_decimal"]

#: Status codes of the reading kernels.
STATUS_OK, STATUS_END, STATUS_BAD_TOKEN, STATUS_TOO_LARGE, STATUS_WRONG_COUNT = 0, 1, 2, 3, 4
#: Outcomes of :func:`parse_decimal`.
NUMBER_OK, NUMBER_SLOW, NUMBER_INVALID = 0, 1, 2

_MAX_DIGITS = 18
_EXACT_POWERS = np.array([10.0**k for k in range(23)])
_TWO_53 = 9007199254740992
_SPLITTER = 134217729.0  # 2^27 + 1


@njit(cache=True, inline="always")
def _is_space(c) -> bool:
    return c == 32 or (c >= 9 and c <= 13)


@njit(cache=True, inline="always")
def _is_digit(c) -> bool:
    return c >= 48 and c <= 57


@njit(cache=True)
def next_token(buf, pos):
    """``(start, end)`` of the first token at or after byte ``pos``; ``start == end == len(buf)`` at the end."""
    n = buf.size
    while pos < n and _is_space(buf[pos]):
        pos += 1
    start = pos
    while pos < n and not _is_space(buf[pos]):
        pos += 1
    return start, pos


@njit(cache=True, inline="always")
def _integer(buf, start, end):
    """``(value, status)`` of the token ``buf[start:end]`` as a count or index."""
    value = 0
    for q in range(start, end):
        c = buf[q]
        if not _is_digit(c):
            return 0, STATUS_BAD_TOKEN
        value = value * 10 + (c - 48)
        if q - start >= _MAX_DIGITS:
            return 0, STATUS_TOO_LARGE
    return value, STATUS_OK


@njit(cache=True)
def read_integers(buf, pos, out):
    """Read ``out.size`` counts or indices into ``out``.

    Returns ``(pos, n_read, status, token_start, token_end)``: where reading stopped, how many were read,
    a ``STATUS_*`` code and the offending token (``STATUS_OK``: the last token read).
    """
    start = end = pos
    for k in range(out.size):
        start, end = next_token(buf, pos)
        if start == end:
            return end, k, STATUS_END, start, end
        value, status = _integer(buf, start, end)
        if status != STATUS_OK:
            return start, k, status, start, end
        out[k] = value
        pos = end
    return pos, out.size, STATUS_OK, start, end


@njit(cache=True)
def read_scopes(buf, pos, sizes, max_size):
    """Read ``sizes.size`` factor scopes: each a size (at most ``max_size``), then that many indices.

    Fills ``sizes`` and returns ``(pos, variables, n_read, status, token_start, token_end)`` with the
    scopes' variables concatenated; on a failure ``n_read`` is the factor being read.
    """
    capacity = max(16, 2 * sizes.size)
    variables = np.empty(capacity, dtype=np.int64)
    used = 0
    for f in range(sizes.size):
        start, end = next_token(buf, pos)
        if start == end:
            return end, variables[:used], f, STATUS_END, start, end
        size, status = _integer(buf, start, end)
        if status == STATUS_OK and size > max_size:
            status = STATUS_TOO_LARGE
        if status != STATUS_OK:
            return start, variables[:used], f, status, start, end
        sizes[f] = size
        pos = end
        if used + size > capacity:
            capacity = 2 * (used + size)
            grown = np.empty(capacity, dtype=np.int64)
            grown[:used] = variables[:used]
            variables = grown
        for _ in range(size):
            start, end = next_token(buf, pos)
            if start == end:
                return end, variables[:used], f, STATUS_END, start, end
            value, status = _integer(buf, start, end)
            if status != STATUS_OK:
                return start, variables[:used], f, status, start, end
            variables[used] = value
            used += 1
            pos = end
    return pos, variables[:used], sizes.size, STATUS_OK, pos, pos


@njit(cache=True, inline="always")
def _two_product(a, b):
    """``(p, e)`` with ``p = fl(a b)`` and ``a b = p + e`` exactly (Dekker, Veltkamp splitting)."""
    p = a * b
    t = _SPLITTER * a
    a_hi = t - (t - a)
    a_lo = a - a_hi
    t = _SPLITTER * b
    b_hi = t - (t - b)
    b_lo = b - b_hi
    e = ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    return p, e


@njit(cache=True)
def parse_decimal(buf, start, end):
    """``(value, outcome)`` of a table entry ``buf[start:end]``: ``NUMBER_OK``, ``NUMBER_SLOW`` or ``NUMBER_INVALID``."""
    value, outcome, stop = scan_decimal(buf, start, end)
    if stop != end:
        return 0.0, NUMBER_INVALID
    return value, outcome


@njit(cache=True, inline="always")
def _add_digit(mantissa, digits, exponent, dropped, d, fractional):
    """Append the decimal digit ``d`` to the mantissa: at most ``_MAX_DIGITS`` significant digits are kept; a
    digit after the point lowers the exponent when kept, one before it raises the exponent when dropped."""
    if digits < _MAX_DIGITS:
        if mantissa > 0 or d > 0:
            mantissa = mantissa * 10 + d
            digits += 1
        if fractional:
            exponent -= 1
    else:
        if not fractional:
            exponent += 1
        dropped = dropped or d > 0
    return mantissa, digits, exponent, dropped


@njit(cache=True)
def scan_decimal(buf, start, limit):
    """``(value, outcome, stop)`` of the longest prefix of ``buf[start:limit]`` in the entry grammar.

    The caller checks that the token ends at ``stop`` (the next byte is whitespace or ``limit``);
    ``NUMBER_INVALID`` when no prefix has a digit or an exponent has no digits.
    """
    q = start
    end = limit
    negative = False
    if q < end and (buf[q] == 43 or buf[q] == 45):  # + -
        negative = buf[q] == 45
        q += 1
    mantissa = 0
    digits = 0
    exponent = 0
    any_digit = False
    dropped = False
    while q < end and _is_digit(buf[q]):
        any_digit = True
        mantissa, digits, exponent, dropped = _add_digit(mantissa, digits, exponent, dropped, buf[q] - 48, False)
        q += 1
    if q < end and buf[q] == 46:  # .
        q += 1
        while q < end and _is_digit(buf[q]):
            any_digit = True
            mantissa, digits, exponent, dropped = _add_digit(mantissa, digits, exponent, dropped, buf[q] - 48, True)
            q += 1
    if not any_digit:
        return 0.0, NUMBER_INVALID, q
    if q < end and (buf[q] == 101 or buf[q] == 69):  # e E
        q += 1
        sign = 1
        if q < end and (buf[q] == 43 or buf[q] == 45):
            sign = -1 if buf[q] == 45 else 1
            q += 1
        if q >= end or not _is_digit(buf[q]):
            return 0.0, NUMBER_INVALID, q
        power = 0
        while q < end and _is_digit(buf[q]):
            if power < 100000:
                power = power * 10 + (buf[q] - 48)
            q += 1
        exponent += sign * power
    if mantissa == 0:
        return -0.0 if negative else 0.0, NUMBER_OK, q
    if dropped or exponent > 22 or exponent < -22:
        return 0.0, NUMBER_SLOW, q
    value = 0.0
    if mantissa < _TWO_53:
        value = float(mantissa) * _EXACT_POWERS[exponent] if exponent >= 0 else float(mantissa) / _EXACT_POWERS[-exponent]
    elif exponent == 0:
        value = float(mantissa)  # one correctly rounded conversion
    else:
        hi = float(mantissa)
        lo = float(mantissa - np.int64(hi))  # |lo| <= 2^9: exact
        power = _EXACT_POWERS[abs(exponent)]
        if exponent > 0:
            s, c = _two_product(hi, power)
            c += lo * power
        else:
            s = hi / power
            p, e = _two_product(s, power)
            c = ((hi - p) - e + lo) / power
        total = s + c
        tail = c - (total - s)  # exact: |s| >= |c|
        fraction, binary_exponent = math.frexp(total)
        half_ulp = math.ldexp(0.5, binary_exponent - 53)
        if fraction == 0.5 or abs(abs(tail) - half_ulp) <= math.ldexp(abs(total), -98):
            return 0.0, NUMBER_SLOW, q
        value = total
    return -value if negative else value, NUMBER_OK, q


@njit(cache=True)
def read_tables(buf, pos, expected, values):
    """Read one table per factor: its entry count, which must equal ``expected[f]``, then the entries.

    ``values`` receives all entries, table after table. Returns ``(pos, slow, n_read, status,
    token_start, token_end, count)``: ``slow`` lists the positions in ``values`` whose tokens need
    Python's ``float`` (their bytes are ``buf[slow_starts[k]:slow_ends[k]]``, returned as columns 1
    and 2 of ``slow``); on a failure ``n_read`` is the factor being read and ``count`` the count it
    declared (``STATUS_WRONG_COUNT``).
    """
    capacity = 64
    slow = np.empty((capacity, 3), dtype=np.int64)
    n_slow = 0
    at = 0
    for f in range(expected.size):
        start, end = next_token(buf, pos)
        if start == end:
            return end, slow[:n_slow], f, STATUS_END, start, end, -1
        count, status = _integer(buf, start, end)
        if status != STATUS_OK:
            return start, slow[:n_slow], f, status, start, end, -1
        if count != expected[f]:
            return start, slow[:n_slow], f, STATUS_WRONG_COUNT, start, end, count
        pos = end
        n = buf.size
        for _ in range(count):
            while pos < n and _is_space(buf[pos]):
                pos += 1
            if pos == n:
                return pos, slow[:n_slow], f, STATUS_END, pos, pos, count
            start = pos
            value, outcome, end = scan_decimal(buf, start, n)
            if outcome == NUMBER_INVALID or (end < n and not _is_space(buf[end])):
                start, end = next_token(buf, start)
                return start, slow[:n_slow], f, STATUS_BAD_TOKEN, start, end, count
            if outcome == NUMBER_SLOW:
                if n_slow == capacity:
                    capacity *= 2
                    grown = np.empty((capacity, 3), dtype=np.int64)
                    grown[:n_slow] = slow[:n_slow]
                    slow = grown
                slow[n_slow, 0] = at
                slow[n_slow, 1] = start
                slow[n_slow, 2] = end
                n_slow += 1
            values[at] = value
            at += 1
            pos = end
    return pos, slow[:n_slow], expected.size, STATUS_OK, pos, pos, -1
