"""Which config keys the cost estimates read: every numeric key scales a cost or says why it does not.

Every numeric key of the run's schema (each family's ``schema:``) either feeds an estimate of its family (memory or
time, the ``memory=``/``work=`` models of its :class:`~dogs.workflow.shell.Experiment` object) or is marked as not
scaling in the schema itself, beside the key, with the reason: ``x-not-scaling: "a model parameter"``
(:data:`ANNOTATION`; JSON-schema validators, Snakemake's ``validate`` among them, ignore keywords they do not know).
On a list of numbers the annotation speaks of the numbers (``key[]``): the list's length is a count an estimate may
read as the key itself. A key shared through a YAML anchor carries its reason everywhere the anchor is used.
:func:`keys_read` records what the models read (by wrapping the settings), :func:`not_scaling` collects the
annotations, ``tests/test_guard.py`` walks the schema and fails for a numeric key that is neither, so a new key
cannot be forgotten, and :func:`scaling_table` makes the key table of the configuration reference (generated when
the docs are built; ``python -m dogs.experiments table`` prints it).
"""

from __future__ import annotations

import re

from dogs.workflow.cost import configured

__all__ = ["ANNOTATION", "keys_read", "not_scaling", "numeric_schema_keys", "scaling_table", "schema_pattern"]

#: The schema keyword that marks a numeric key as costing neither memory nor time; its value is the reason.
ANNOTATION = "x-not-scaling"


class _Reads:
    """Records the dotted keys an estimator reads from a settings mapping (``[i]`` for list items)."""

    def __init__(self):
        self.keys: set[str] = set()

    def wrap(self, value, path: str):
        if isinstance(value, dict):
            return _TrackedDict(value, path, self)
        if isinstance(value, list) and any(isinstance(item, dict) for item in value):
            return [self.wrap(item, f"{path}[{i}]") for i, item in enumerate(value)]
        return value


class _TrackedDict(dict):
    def __init__(self, data: dict, path: str, reads: _Reads):
        super().__init__(data)
        self._path, self._reads = path, reads

    def _key(self, key) -> str:
        return f"{self._path}.{key}" if self._path else str(key)

    def __getitem__(self, key):
        self._reads.keys.add(self._key(key))
        return self._reads.wrap(super().__getitem__(key), self._key(key))

    def get(self, key, default=None):
        self._reads.keys.add(self._key(key))
        return self._reads.wrap(super().get(key, default), self._key(key))

    def items(self):
        return [(key, self[key]) for key in self]

    def values(self):
        return [self[key] for key in self]


def keys_read(family, settings: dict) -> tuple[set[str], set[str]]:
    """``(keys the memory model reads, keys the work model reads)`` of ``family`` (an experiment object) under
    ``settings``, as dotted keys from the config's top level."""
    found = []
    for estimate in (family.estimate_memory, family.estimate_work):
        reads = _Reads()
        estimate(reads.wrap(settings, family.config_section))
        found.append(reads.keys)
    return found[0], found[1]


def not_scaling(schema: dict, prefix: str = "") -> dict[str, str]:
    """``{key pattern: reason}`` of every key that ``schema`` marks as not scaling (:data:`ANNOTATION`), named as
    :func:`numeric_schema_keys` names them (``key[]`` for the numbers of a list, ``*`` for free names)."""
    out: dict[str, str] = {}
    if not isinstance(schema, dict):
        return out
    if ANNOTATION in schema:
        out[prefix + "[]" if schema.get("type") == "array" else prefix] = schema[ANNOTATION]
    for alternative in schema.get("oneOf", []) + schema.get("anyOf", []):
        out.update(not_scaling(alternative, prefix))
    for name, sub in schema.get("properties", {}).items():
        out.update(not_scaling(sub, f"{prefix}.{name}" if prefix else name))
    if isinstance(schema.get("additionalProperties"), dict):
        out.update(not_scaling(schema["additionalProperties"], f"{prefix}.*"))
    if isinstance(schema.get("items"), dict):
        out.update(not_scaling(schema["items"], f"{prefix}[]"))
    return out


def schema_pattern(schema: dict, key: str) -> str:
    """The schema's name of a concrete dotted key: ``family.datasets.heart.chains`` ->
    ``family.datasets.*.chains`` (free names), ``family.models[0].rows`` -> ``family.models[].rows``."""
    out, node = [], schema
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", key):
        if part.startswith("["):
            out[-1] += "[]"
            node = node.get("items", {}) if isinstance(node, dict) else {}
            continue
        properties = node.get("properties", {}) if isinstance(node, dict) else {}
        if part in properties:
            out.append(part)
            node = properties[part]
        else:
            out.append("*")
            extra = node.get("additionalProperties") if isinstance(node, dict) else None
            node = extra if isinstance(extra, dict) else {}
    return ".".join(out)


def numeric_schema_keys(schema: dict, prefix: str = "") -> set[str]:
    """Every key pattern of ``schema`` whose value may be a number (``x[]`` for list items, ``*`` for free names)."""
    out: set[str] = set()
    if not isinstance(schema, dict):
        return out
    for alternative in schema.get("oneOf", []) + schema.get("anyOf", []):
        out |= numeric_schema_keys(alternative, prefix)
    kind = schema.get("type")
    kinds = {kind} if isinstance(kind, str) else set(kind or ())
    numeric_enum = any(isinstance(v, (int, float)) and not isinstance(v, bool) for v in schema.get("enum", []))
    if kinds & {"integer", "number"} or numeric_enum:
        out.add(prefix)
    for name, sub in schema.get("properties", {}).items():
        out |= numeric_schema_keys(sub, f"{prefix}.{name}" if prefix else name)
    if isinstance(schema.get("additionalProperties"), dict):
        out |= numeric_schema_keys(schema["additionalProperties"], f"{prefix}.*")
    if isinstance(schema.get("items"), dict):
        out |= numeric_schema_keys(schema["items"], f"{prefix}[]")
    return out


def scaling_table(schema: dict, configs, families) -> str:
    """The key table (the configuration reference) of which keys each estimate reads, per family, from the shipped
    ``configs``, and the numeric keys of the family's section that the schema marks as not scaling."""
    read: dict[str, tuple[set, set]] = {}
    quiet: dict[str, set] = {}
    marked = not_scaling(schema)
    for config in configs:
        for family, settings in configured(config, families):
            memory, time_ = keys_read(family, settings)
            mine = read.setdefault(family.config_section, (set(), set()))
            mine[0].update(schema_pattern(schema, k) for k in memory)
            mine[1].update(schema_pattern(schema, k) for k in time_)
            quiet[family.config_section] = {key for key in marked if key.startswith(family.config_section + ".")}
    numeric = numeric_schema_keys(schema)

    def cell(family, keys):
        leaves = {k for k in keys if k in numeric or k + "[]" in numeric}  # numbers, and lists of numbers
        grids = {re.sub(r"\.(start|stop|step|per_decade)$", "", k) for k in leaves}  # a length grid as one key
        short = sorted(k.removeprefix(family + ".") for k in grids)
        return ", ".join(f"`{k}`" for k in short) or "–"

    lines = ["| family | memory estimate reads | time estimate reads | marked as not scaling |",
             "|---|---|---|---|"]
    for family, (memory, time_) in read.items():
        lines.append(f"| {family} | {cell(family, memory)} | {cell(family, time_)} | {cell(family, quiet[family])} |")
    return "\n".join(lines)
