"""Paper-vs-ours claims as data: experiments report measured numbers, ``config/claims/`` judges and words them.

``config/claims/`` holds one YAML file per paper (``dogs.yaml``, ``he2016.yaml``, ``annular.yaml``) and one per
experiment family of our own (``<family>.yaml``), read in name order, with one row per claim: where it is, what the
paper says, the paper's value, the *quantity* we compare, the *criterion* that turns our measured value into a
verdict and the *ours* template that words our measurement. Each experiment's *summarise* step only measures: it
writes ``<results>/claims/<family>.json`` with, per claim id, the measured number(s) and the named quantities the
row's template reads (:func:`measured`). The renderer (:mod:`dogs.experiments.paper_vs_ours`) joins the two, renders the template
(:func:`render_ours`) and applies :func:`verdict`; a claim with no measurement reads "needs data" when its
experiment family did not run for want of its data set (the workflow skips that family and tells the renderer
so), and "not yet run" otherwise. No threshold and no sentence lives in experiment code.

A row's ``paper`` is the paper that makes the claim (:data:`PAPER_ORDER`) or :data:`BEYOND_THE_PAPERS`: a finding
of our own that no paper claims (a setting of ours, a benchmark of our code, a diagnostic of an author's code, or
any row of a family of our own). Such a row sits beside the paper experiment it extends, names that paper in its
``where``, and is counted apart: its verdict never adds to a paper's counts (:func:`is_beyond_the_papers`).

Every row also carries a ``reading``: the sentence of the paper it tests, the figure convention it
follows and why each threshold is where it is, so that a reader can check that the criterion reads the
paper as written, no harsher and no softer. Where the paper prints numbers or derives the effect, the
row records them as ``paper_evidence``, in the criterion's own quantities (a number, or a mapping
``{quantity: number}``); evidence that only restates the paper's derivation (an error of 0, a share of 1)
is not evidence, and such a row says it has none, and what an over-strict criterion would demand. The tests check
that the paper's own evidence passes its criterion (``verdict(criterion, paper_evidence) == "reproduced"``), and
judge realistic measurements of every row (``tests/data/claim_readings.yaml``), each of which must read the class
it states, one of them, where the paper prints no number, the paper's claim holding as stated (reproduced); moving
any threshold by a quarter either way must change the class of one of them (``tests/test_claim_readings.py``).

The ``ours`` template is a Python format string (:meth:`str.format`) over the row's measured quantities:
``value`` (the judged value; when it is a mapping, each of its quantities by name as well) and every keyword
quantity given to :func:`measured`, e.g. ``"systematic/DoGS = 10^{median_orders:.2f} at T = {t_end}"``; the
format spec ``seconds`` words a duration with its unit (:func:`format_seconds`). A
quantity that is a list or a mapping of varying length is worded by ``ours_lists``: ``{name: {item: template,
sep: separator, none: template for a missing item, empty: template for no items at all, lists: nested
ours_lists}}``; each item is rendered with the row's quantities plus ``key`` and ``value`` (for a mapping)
or ``value`` (for a list), and, when the item is itself a mapping, its entries by name. A template naming a
quantity that the experiment did not measure is an error of the table step (:class:`ClaimsError`), and the
tests render every template from measured claims.

Conditional wording may stay in code where a template would be contorted: the experiment then builds the text
with :func:`worded_in_code` and the row's template is ``"{text}"``. The loader accepts that template only for
the rows of :data:`WORDED_IN_CODE`. These are the rows whose sentence is assembled from optional clauses: the
fifteen Table 1 rows of scan_order (he2016_table1_*: the fit's kind is data-dependent, a corrected fit, a pure power
law when too few n exist or the paper's lower-order terms when enough do, so one row words differently in a smoke
and a paper-scale run; the sources of the orders, soft dependencies' windows and a closed form appear only where
they exist, and the two-islands rows add their full model) and dogs_s53_faster_to_accuracy (mcmc_mle: per model a
range collapsed to one number when both ends round alike and, only when the uniform scan never reached the level, a
">=" and a lower-bound clause; a closing clause only when DoGS missed the level). Every other row of scan_order and
every row of annular_ising, benchmarks, boltzmann, ising10, ising40, loose_bounds, msrc and timing is a template.
A clause that is there or not is a list of one item or none, worded by ``ours_lists`` (``item``, and ``empty`` for
the wording without it): the two optional clauses of aa_fig5_hmc_cmh_on_par ("never worse by ...x" or "better
everywhere"; "and up to ...x better") and boltzmann's clause per sensitivity variant that ran (an item per variant,
no ``sep``). A converted row may still read a short text quantity for one conditional phrase, chosen by the
experiment: the upper end of the axis-end window of dogs_s51_dogs_two_orders (``axis_end_window_to``: a T, or past
the grid a T from a straight line, a lower bound when the curve bends below it), the idle steps of msrc_dogs_length (``idle_steps_where``: the
leading steps of the systematic input or a list of positions), the two judged words of msrc_dogs_as_accurate
(``accuracy_at_margin``: non-inferior, worse or undecided; ``mean_against_systematic``: below, above or not
separable from) and the direction of aa_fig8_fraction_within's paired margin (``annular_errors_are``: smaller or
larger, beside its size ``margin_se_size``).

A criterion (YAML) has the keys ``reproduced`` and, optionally, ``partly`` and ``inconclusive``; each
is a list of conditions that must all hold. A condition names the measured quantity (``quantity:``, omitted when
the experiment reports a single number) and one comparison:

``at_least: x`` / ``at_most: x``
    ``value >= x`` / ``value <= x``;
``greater_than: x`` / ``less_than: x``
    strict versions;
``between: [lo, hi]``
    ``lo <= value <= hi``;
``equals: x`` (with optional ``tolerance: t``)
    ``|value - x| <= t`` (``t = 0`` by default; booleans compare as 0/1).

The verdict is **inconclusive** when every ``inconclusive`` condition holds (the measurement cannot
separate the outcomes: an interval straddling the threshold, a quantity at chance level), else
**reproduced** when every ``reproduced`` condition holds, **partly** when every ``partly`` condition
holds, and **not reproduced** otherwise. ``inconclusive`` is judged first because data that cannot
decide must not be read as either answer. A missing or non-finite quantity fails
its condition. A row with ``criterion: information`` reports a measured value that the paper states
without a testable claim (absolute times on other hardware, say): its verdict is **information**.

A claim read from noisy numbers (independent bias draws, repetitions, disjoint groups of chains) is measured
with ``by_seed``: the judged value recomputed from each draw alone, as the paper ran one draw. The table
judges each draw and shows the split (column ``verdict_by_seed``), and the row verdict follows the row's
``per_seed`` rule (:func:`seeded_verdict`): ``all`` (the default) reads **reproduced** only when the pooled
value and every draw read reproduced, **partly** when they split (some draw, or the pooled value, reads
reproduced or partly and some other does not), and otherwise the pooled verdict; ``typical`` keeps the
pooled verdict, for a claim about the typical draw, which the row's reading must explain. A row that
declares ``per_seed`` must be measured with ``by_seed``.

Example (the form of a row, not one of ``config/claims/``)::

    - id: example_two_orders
      ...
      quantity: "median over replicates of log10(systematic / DoGS guarantee) where systematic <= 1e-2"
      criterion:
        reproduced: [{at_least: 2.0}]
        partly: [{at_least: 1.0}]
      ours: "at the axis end T = {t_end}: systematic/DoGS = 10^{median_orders_at_axis_end:.2f}"
"""

from __future__ import annotations

from dogs.extras import require

require("workflow", "dogs.claims")  # before the imports below: a missing package names its extra

import math
import numbers
import string
from pathlib import Path

import yaml

from dogs.io import read_json, write_json

__all__ = [
    "BEYOND_THE_PAPERS",
    "PAPER_ORDER",
    "VERDICTS",
    "WORDED_IN_CODE",
    "ClaimsError",
    "category_key",
    "check_criterion",
    "describe",
    "format_seconds",
    "is_beyond_the_papers",
    "load_measured",
    "load_paper_claims",
    "measured",
    "render_ours",
    "seeded_verdict",
    "template_fields",
    "verdict",
    "worded_in_code",
    "write_claims",
]

#: The papers (the claims' ``paper`` field) in the order the table, the README and the report list them: the central
#: paper first, then He et al., Liu & Domke (whose rows sit in DoGS §5.3) and annular augmentation.
PAPER_ORDER = ("DoGS", "He et al. 2016", "Liu & Domke 2014", "Annular augmentation")
#: The ``paper`` of a row that no paper claims: a finding of our own, listed after the papers and counted apart.
BEYOND_THE_PAPERS = "Beyond the papers"
VERDICTS = ("reproduced", "partly", "inconclusive", "not reproduced", "information", "needs data", "not yet run")
NEEDS_DATA = "needs data"  # the renderer's verdicts for a claim with no measurement
NOT_YET_RUN = "not yet run"
_REQUIRED = ("id", "paper", "where", "claim", "paper_value", "family", "reading")
_LEVELS = ("inconclusive", "reproduced", "partly")  # the order in which verdict() tries them
_COMPARISONS = ("at_least", "at_most", "greater_than", "less_than", "between", "equals")
INFORMATION = "information"
#: The rules of a noisy row's verdict over its draws (row key ``per_seed``, :func:`seeded_verdict`).
PER_SEED_RULES = ("all", "typical")
_SUPPORTING = ("reproduced", "partly")


#: The rows whose sentence the experiment still builds (template ``"{text}"``, :func:`worded_in_code`).
WORDED_IN_CODE = frozenset({
    "dogs_s53_faster_to_accuracy",
    "he2016_table1_islands_best",
    "he2016_table1_islands_random",
    "he2016_table1_islands_worst",
    "he2016_table1_memorize_best",
    "he2016_table1_memorize_random",
    "he2016_table1_memorize_worst",
    "he2016_table1_pyramid_best",
    "he2016_table1_pyramid_random",
    "he2016_table1_pyramid_worst",
    "he2016_table1_seqdep_best",
    "he2016_table1_seqdep_random",
    "he2016_table1_seqdep_worst",
    "he2016_table1_soft_best",
    "he2016_table1_soft_random",
    "he2016_table1_soft_worst",
})


def is_beyond_the_papers(paper: str) -> bool:
    """Whether a row of ``paper`` (its ``paper`` field) is a finding of our own, counted apart from every paper."""
    return paper == BEYOND_THE_PAPERS


def category_key(paper: str) -> tuple:
    """Sort key of a row's ``paper``: the papers in :data:`PAPER_ORDER`, other papers by name, then the rows beyond
    the papers."""
    if paper in PAPER_ORDER:
        return (0, PAPER_ORDER.index(paper), "")
    return (2, 0, "") if is_beyond_the_papers(paper) else (1, 0, paper)


class ClaimsError(ValueError):
    """A malformed claims file, criterion or measured claim; the message names the claim."""


# ---------------------------------------------------------------- the experiment side
def measured(value, *, by_seed=None, **quantities) -> dict:
    """One measured claim: the measured ``value`` that the criterion judges and the named ``quantities``.

    ``value`` is a number or bool, or a dict ``{quantity: number or bool}`` when the criterion names
    several quantities. ``by_seed``, for a claim read from noisy numbers, is the same value computed from
    each independent seed (repetition) alone: the table judges each too, so a reader sees whether the
    verdict holds at every seed or rests on one lucky run. ``quantities`` are the further numbers (lists,
    mappings) kept in the claims file: the ones the row's ``ours`` template words and extra ones for the
    reader. Text quantities are only for the conditional phrases listed in the module docstring.
    """
    _check_value(value)
    for name in quantities:
        if name == "value" or (isinstance(value, dict) and name in value):
            raise ClaimsError(f"quantity {name!r} is also a judged value; give it once")
    claim = {"value": value, "quantities": quantities}
    if by_seed is not None:
        if not isinstance(by_seed, (list, tuple)) or not by_seed:
            raise ClaimsError("by_seed must be a non-empty list of values, one per seed")
        for item in by_seed:
            _check_value(item)
        claim["by_seed"] = list(by_seed)
    return claim


def worded_in_code(text: str, value, *, by_seed=None, **quantities) -> dict:
    """A measured claim whose sentence is still built by the experiment: :func:`measured` with the text
    quantity ``text``, worded by the row template ``"{text}"``. Only for the rows listed in the module docstring."""
    if not isinstance(text, str):
        raise ClaimsError(f"text must be a readable string, got {type(text).__name__}")
    return measured(value, by_seed=by_seed, text=text, **quantities)


def write_claims(path, family: str, claims: dict, *, smoke: bool) -> Path:
    """Write ``{claim id: measured(...)}`` for one experiment family."""
    for key, value in claims.items():
        if not isinstance(value, dict) or not {"value", "quantities"} <= set(value) <= {"value", "quantities",
                                                                                          "by_seed"}:
            raise ClaimsError(f"claim {key!r} must be built with dogs.claims.measured(...)")
    return write_json(path, {"family": family, "smoke": bool(smoke), "claims": claims})


def load_measured(paths) -> dict:
    """Merge the claims JSON files of all families: ``{claim id: measured claim}``."""
    merged = {}
    for path in paths:
        for key, value in read_json(path)["claims"].items():
            if key in merged:
                raise ClaimsError(f"claim {key!r} is measured by two families ({path})")
            merged[key] = value
    return merged


# ---------------------------------------------------------------- the paper side
def load_paper_claims(path) -> list[dict]:
    """Read and check the paper's claims: a directory (every ``*.yaml`` in it, in name order), one file or a list.

    Checks unique ids over all files, the required keys, well-formed criteria and ``ours`` templates."""
    if isinstance(path, (list, tuple)):
        files = [Path(p) for p in path]
    else:
        path = Path(path)
        files = sorted(path.glob("*.yaml")) if path.is_dir() else [path]
    if not files:
        raise ClaimsError(f"{path}: no claims files (*.yaml)")
    rows, seen = [], {}
    for file in files:
        for row in _load_claims_file(file):
            if row["id"] in seen:
                raise ClaimsError(f"{file}: duplicate claim id {row['id']!r} (also in {seen[row['id']]})")
            seen[row["id"]] = file
            rows.append(row)
    return rows


def _load_claims_file(path: Path) -> list[dict]:
    rows = yaml.safe_load(path.read_text())
    if not isinstance(rows, list):
        raise ClaimsError(f"{path}: expected a list of claims")
    for n, row in enumerate(rows):
        if not isinstance(row, dict):
            raise ClaimsError(f"{path}: claim #{n} is not a mapping")
        missing = [k for k in _REQUIRED if k not in row]
        if missing:
            raise ClaimsError(f"{path}: claim #{n} ({row.get('id', '?')}) lacks {', '.join(missing)}")
        if not (isinstance(row["reading"], str) and row["reading"].strip()):
            raise ClaimsError(f"{path}: claim {row['id']!r}: 'reading' must be a non-empty text")
        if "criterion" in row:
            if "quantity" not in row:
                raise ClaimsError(f"{path}: claim {row['id']!r} has a criterion but no 'quantity' (what is compared)")
            check_criterion(row["criterion"], row["id"])
            if not isinstance(row.get("ours"), str):
                raise ClaimsError(f"{path}: claim {row['id']!r} has a criterion but no 'ours' template")
        if "per_seed" in row and (row["per_seed"] not in PER_SEED_RULES or not isinstance(row.get("criterion"), dict)):
            raise ClaimsError(f"{path}: claim {row['id']!r}: 'per_seed' is one of {PER_SEED_RULES} and needs a criterion")
        if row.get("ours") == "{text}" and row["id"] not in WORDED_IN_CODE:
            raise ClaimsError(f"{path}: claim {row['id']!r}: the template '{{text}}' (a sentence built in code) is "
                              "only for the rows of dogs.claims.WORDED_IN_CODE; word it with a template")
        if "ours" in row or "ours_lists" in row:
            try:
                _check_template(row.get("ours"), row.get("ours_lists", {}))
            except ClaimsError as exc:
                raise ClaimsError(f"{path}: claim {row['id']!r}: {exc}") from None
        if "paper_evidence" in row:
            if not isinstance(row.get("criterion"), dict):
                raise ClaimsError(f"{path}: claim {row['id']!r} has paper_evidence but no criterion to judge it")
            try:
                _check_value(row["paper_evidence"])
            except ClaimsError as exc:
                raise ClaimsError(f"{path}: claim {row['id']!r}: paper_evidence: {exc}") from None
    return rows


# ---------------------------------------------------------------- the sentence
_LIST_KEYS = {"item", "sep", "none", "empty", "lists"}


def template_fields(template: str) -> set[str]:
    """The quantity names a format template reads: ``"{a:.2f} and {b[0]}"`` -> ``{"a", "b"}``."""
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise ClaimsError(f"malformed template {template!r}: {exc}") from None
    fields = set()
    for _, field, spec, _ in parsed:
        if field is None:
            continue
        if not field or field[0].isdigit():
            raise ClaimsError(f"template {template!r}: every placeholder must name a quantity")
        fields.add(field.split(".")[0].split("[")[0])
        if spec and "{" in spec:
            fields |= template_fields(spec)
    return fields


def _check_template(template, lists) -> None:
    if not isinstance(template, str):
        raise ClaimsError("'ours' must be a format template (text)")
    template_fields(template)
    if not isinstance(lists, dict):
        raise ClaimsError("'ours_lists' must map quantity names to {item, sep, none, lists}")
    for name, spec in lists.items():
        if not isinstance(spec, dict) or "item" not in spec or set(spec) - _LIST_KEYS:
            raise ClaimsError(f"ours_lists.{name} must be a mapping with 'item' and optionally 'sep', 'none', 'empty', "
                              "'lists'")
        for key in ("none", "empty"):
            if key in spec:
                _check_template(spec[key], {})
        if not isinstance(spec.get("sep", ""), str):
            raise ClaimsError(f"ours_lists.{name}.sep must be a text")
        _check_template(spec["item"], spec.get("lists", {}))


def render_ours(row: dict, got: dict) -> str:
    """Row ``row``'s ``ours`` template worded with the measured claim ``got`` (:func:`measured`).

    Raises :class:`ClaimsError` naming the claim when the template reads a quantity that was not measured."""
    names = dict(got.get("quantities", {}))
    value = got["value"]
    names["value"] = value
    if isinstance(value, dict):
        names.update(value)
    try:
        return _render(row["ours"], names, row.get("ours_lists", {}))
    except KeyError as exc:
        raise ClaimsError(f"claim {row['id']!r}: its 'ours' template reads {exc.args[0]!r}, which the experiment "
                          f"does not measure (measured: {', '.join(sorted(names))}); rerun its summarise step if "
                          "its claims file predates the template") from None
    except (ValueError, TypeError, IndexError) as exc:
        raise ClaimsError(f"claim {row['id']!r}: cannot word the measured quantities with its template: {exc}") from None


class _ClaimFormatter(string.Formatter):
    """:meth:`str.format` plus the format spec ``seconds``: a duration in s, ms, µs or ns (3 significant digits),
    ``never`` for a clock that never reached its level (``None``)."""

    def format_field(self, value, format_spec):
        if format_spec == "seconds":
            return "never" if value is None else format_seconds(value)
        return super().format_field(value, format_spec)


_FORMATTER = _ClaimFormatter()


def format_seconds(seconds: float) -> str:
    """A duration with its unit: ``0.0123`` -> ``"12.3 ms"``."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= scale or unit == "ns":
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds:.3g} s"


def _render(template: str, names: dict, lists: dict) -> str:
    names = dict(names)
    for name, spec in lists.items():
        items = names[name]
        pairs = items.items() if isinstance(items, dict) else ((None, item) for item in items)
        words = []
        for key, item in pairs:
            if item is None and "none" in spec:
                words.append(_FORMATTER.format(spec["none"], **names))
                continue
            fields = {**names, "value": item}
            if key is not None:
                fields["key"] = key
            if isinstance(item, dict):
                fields.update(item)
            words.append(_render(spec["item"], fields, spec.get("lists", {})))
        if not words and "empty" in spec:
            names[name] = _FORMATTER.format(spec["empty"], **names)
        else:
            names[name] = spec.get("sep", "").join(words)
    return _FORMATTER.format(template, **names)


def check_criterion(criterion, claim_id: str = "?") -> None:
    """Raise :class:`ClaimsError` unless ``criterion`` is ``"information"`` or a well-formed mapping."""
    if criterion == INFORMATION:
        return
    if not isinstance(criterion, dict) or "reproduced" not in criterion:
        raise ClaimsError(f"claim {claim_id!r}: criterion must be 'information' or a mapping with 'reproduced'")
    unknown = set(criterion) - set(_LEVELS)
    if unknown:
        raise ClaimsError(f"claim {claim_id!r}: unknown criterion keys {sorted(unknown)}")
    for level in _LEVELS:
        conditions = criterion.get(level)
        if conditions is None and level != "reproduced":
            continue
        if not isinstance(conditions, list) or not conditions:
            raise ClaimsError(f"claim {claim_id!r}: criterion.{level} must be a non-empty list of conditions")
        for condition in conditions:
            _check_condition(condition, f"claim {claim_id!r}: criterion.{level}")


def _check_condition(condition, where: str) -> None:
    if not isinstance(condition, dict):
        raise ClaimsError(f"{where}: a condition must be a mapping, got {condition!r}")
    ops = [k for k in condition if k in _COMPARISONS]
    extra = set(condition) - set(_COMPARISONS) - {"quantity", "tolerance"}
    if len(ops) != 1 or extra:
        raise ClaimsError(f"{where}: a condition needs exactly one of {_COMPARISONS} (and optionally "
                          f"'quantity', 'tolerance'), got {sorted(condition)}")
    (op,) = ops
    bound = condition[op]
    if op == "between":
        if not (isinstance(bound, list) and len(bound) == 2 and all(_is_number(b) for b in bound) and bound[0] <= bound[1]):
            raise ClaimsError(f"{where}: 'between' takes [lo, hi] with lo <= hi, got {bound!r}")
    elif not _is_number(bound):
        raise ClaimsError(f"{where}: {op!r} takes a finite number, got {bound!r}")
    if "tolerance" in condition and (op != "equals" or not _is_number(condition["tolerance"]) or condition["tolerance"] < 0):
        raise ClaimsError(f"{where}: 'tolerance' is a non-negative number and goes with 'equals' only")
    if "quantity" in condition and not isinstance(condition["quantity"], str):
        raise ClaimsError(f"{where}: 'quantity' must be a name")


# ---------------------------------------------------------------- the judgement
def verdict(criterion, value) -> str:
    """The verdict of a measured ``value`` under ``criterion`` (module docstring)."""
    check_criterion(criterion)
    if criterion == INFORMATION:
        return INFORMATION
    for level in _LEVELS:
        if criterion.get(level) and all(_holds(c, value) for c in criterion[level]):
            return level
    return "not reproduced"


def seeded_verdict(criterion, value, by_seed=None, rule: str = "all") -> tuple[str, list[str]]:
    """The verdict of a noisy claim and the verdict of each of its draws (module docstring, ``per_seed``).

    ``value`` is the pooled measurement, ``by_seed`` the same quantity from each independent draw alone (``None``: a
    claim without draws, judged by :func:`verdict` alone). With ``rule="all"`` the claim reads reproduced only when
    the pooled value and every draw do, partly when they split, and else the pooled verdict; ``"typical"`` keeps
    the pooled verdict."""
    if rule not in PER_SEED_RULES:
        raise ClaimsError(f"per_seed must be one of {PER_SEED_RULES}, got {rule!r}")
    pooled = verdict(criterion, value)
    if by_seed is None:
        return pooled, []
    seeds = [verdict(criterion, v) for v in by_seed]
    if rule == "typical" or pooled == INFORMATION:
        return pooled, seeds
    every = [pooled, *seeds]
    if all(v == "reproduced" for v in every):
        return "reproduced", seeds
    if any(v in _SUPPORTING for v in every):
        return "partly", seeds
    return pooled, seeds


def _holds(condition: dict, value) -> bool:
    name = condition.get("quantity")
    if name is None:
        if isinstance(value, dict):
            raise ClaimsError(f"the measured value has quantities {sorted(value)}; the condition must name one")
        x = value
    else:
        if not isinstance(value, dict):
            raise ClaimsError(f"the condition names quantity {name!r} but the measured value is a single number")
        if name not in value:
            raise ClaimsError(f"the measured value has no quantity {name!r} (it has {sorted(value)})")
        x = value[name]
    if x is None:
        return False
    x = float(x)
    if not math.isfinite(x):
        return False
    if "at_least" in condition:
        return x >= condition["at_least"]
    if "at_most" in condition:
        return x <= condition["at_most"]
    if "greater_than" in condition:
        return x > condition["greater_than"]
    if "less_than" in condition:
        return x < condition["less_than"]
    if "between" in condition:
        lo, hi = condition["between"]
        return lo <= x <= hi
    return abs(x - float(condition["equals"])) <= float(condition.get("tolerance", 0.0))


def describe(criterion) -> str:
    """The criterion in words, for the table: ``reproduced if ratio >= 100; partly if ratio >= 10``."""
    if criterion == INFORMATION:
        return "information only"
    parts = []
    for level in ("reproduced", "partly", "inconclusive"):
        if criterion.get(level):
            parts.append(f"{level} if " + " and ".join(_describe_condition(c) for c in criterion[level]))
    return "; ".join(parts)


_SYMBOLS = {"at_least": ">=", "at_most": "<=", "greater_than": ">", "less_than": "<"}


def _describe_condition(condition: dict) -> str:
    name = condition.get("quantity", "value")
    for op, symbol in _SYMBOLS.items():
        if op in condition:
            return f"{name} {symbol} {condition[op]:g}"
    if "between" in condition:
        lo, hi = condition["between"]
        return f"{lo:g} <= {name} <= {hi:g}"
    tolerance = condition.get("tolerance", 0)
    return f"{name} = {condition['equals']:g}" + (f" ± {tolerance:g}" if tolerance else "")


def _is_number(x) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(x)


def _check_value(value) -> None:
    if isinstance(value, dict):
        if not value:
            raise ClaimsError("a measured value dict needs at least one quantity")
        for name, item in value.items():
            if not isinstance(name, str):
                raise ClaimsError(f"quantity names must be strings, got {name!r}")
            _check_value(item)
        return
    if value is None or isinstance(value, (bool, numbers.Real)) or (hasattr(value, "item") and getattr(value, "ndim", 1) == 0):
        return
    raise ClaimsError(f"a measured value is a number, a bool, None or a dict of them, got {type(value).__name__}")
