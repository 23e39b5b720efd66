"""Settings checks beyond what a JSON schema validator does: duplicate YAML keys, strict integers, finite numbers.

``config/schema.yaml`` states every key's type and range, and the Snakefile validates the whole
configuration against it before any job. Three gaps of plain JSON-schema validation are closed here:

- **Duplicate keys.** YAML loaders keep the last of two equal keys in a mapping without a word, so a
  setting written twice silently loses the first value. :func:`load_yaml_strict` refuses them, naming
  the file, the key and both line numbers; a YAML syntax error names the file too.
- **Integers written as floats.** JSON Schema counts ``4.0`` as an integer; Python then fails far from
  the config (``range(4.0)``) with an error that names no key. :func:`check_strict_types` requires a
  real ``int`` wherever the schema says ``integer``.
- **NaN and infinity.** ``.nan`` and ``.inf`` pass ``type: number`` and most range checks (every
  comparison with NaN is false); :func:`check_strict_types` refuses non-finite numbers everywhere.

Both raise :class:`ConfigError` with the dotted key (``ising10.n_replicates``) or list index
(``loose_bounds.scales[2]``) in the message. The Snakefile runs :func:`check_config_files` on every
config file it loads and :func:`check_strict_types` on the merged config; the experiment shell runs
:func:`check_strict_types` on the slice a rule passes.
"""

from __future__ import annotations

import math
import numbers
from pathlib import Path

import yaml

__all__ = ["ConfigError", "check_config_files", "check_strict_types", "load_yaml_strict"]


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names the file or the key."""


class _StrictLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses a key appearing twice in one mapping."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False):
    seen: dict = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        try:
            hash(key)
        except TypeError:
            continue  # let the base constructor report unhashable keys
        line = key_node.start_mark.line + 1
        if key in seen:
            raise ConfigError(
                f"{loader.name}: duplicate key {key!r} at line {line} (first at line {seen[key]}); "
                "YAML would silently keep only the last value"
            )
        seen[key] = line
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_yaml_strict(path) -> object:
    """Parse a YAML file, refusing duplicate keys; every error names the file."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}") from None
    loader = _StrictLoader(text)
    loader.name = str(path)
    try:
        return loader.get_single_data()
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from None
    finally:
        loader.dispose()


def check_config_files(paths) -> None:
    """:func:`load_yaml_strict` on every path (the config files a Snakemake run loads)."""
    for path in paths:
        load_yaml_strict(path)


def _types(schema: dict) -> set:
    kind = schema.get("type")
    if kind is None:
        return set()
    return {kind} if isinstance(kind, str) else set(kind)


def _errors(value, schema: dict, key: str) -> list[str]:
    """Strict-type errors of ``value`` against ``schema`` (empty when fine)."""
    if not isinstance(schema, dict):
        return []
    alternatives = [s for word in ("oneOf", "anyOf") for s in schema.get(word, [])]
    if alternatives:
        found = [_errors(value, alt, key) for alt in alternatives]
        if all(found):
            return found[0]
    for sub in schema.get("allOf", []):
        if errors := _errors(value, sub, key):
            return errors
    types = _types(schema)
    if isinstance(value, bool):
        return []
    if isinstance(value, numbers.Real):
        if not math.isfinite(value):
            return [f"{key} must be a finite number, got {value}"]
        if "integer" in types and "number" not in types and not isinstance(value, numbers.Integral):
            return [f"{key} must be an integer, got {value!r} (write it without a decimal point)"]
        return []
    if isinstance(value, dict):
        errors = []
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for name, item in value.items():
            sub = properties.get(name, extra if isinstance(extra, dict) else None)
            if sub is not None:
                errors += _errors(item, sub, f"{key}.{name}" if key else str(name))
        return errors
    if isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, dict):
            return [e for i, item in enumerate(value) for e in _errors(item, items, f"{key}[{i}]")]
    return []


def check_strict_types(config, schema: dict, key: str = "") -> None:
    """Refuse float-valued integers and non-finite numbers anywhere in ``config`` (module docstring).

    ``key`` is the dotted name of ``config`` inside the whole configuration (``""`` for the root), so
    that messages name the full key.
    """
    errors = _errors(config, schema, key)
    if errors:
        raise ConfigError("; ".join(errors))
