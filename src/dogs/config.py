"""Settings checks beyond what a JSON schema validator does: hostile or broken config files, duplicate
YAML keys, strict integers, sane magnitudes, finite numbers.

``config/schema.yaml`` states every key's type and range, and the Snakefile validates the whole
configuration against it before any job. The gaps of plain YAML loading and JSON-schema validation
are closed here:

- **Broken or hostile files.** :func:`load_config_file` reads a config file as bytes and refuses,
  each time naming the file (and the line and column where there is one): a file above
  :data:`MAX_FILE_BYTES`; bytes that are not UTF-8; a YAML syntax error (tabs used for indentation
  get their own hint); YAML aliases whose expansion would exceed :data:`MAX_EXPANDED_NODES` values
  (a "billion laughs" file of nested aliases is a few hundred bytes but expands to 10^9 values, and
  every later step that walks the config would hang on it) or nesting deeper than
  :data:`MAX_DEPTH`; an empty file or one whose top level is not a mapping; yte templating
  (``__use_yte__``), which would evaluate Python expressions from the file; and a key written twice
  in one mapping (YAML loaders silently keep the last value). Snakemake parses ``--configfile`` files
  itself before the Snakefile runs (it stops on an empty, binary or syntax-error file with its own
  message); the workflow's guard then reads every config file again with this check, before planning.
- **Integers written as floats.** JSON Schema counts ``4.0`` as an integer; Python then fails far from
  the config (``range(4.0)``) with an error that names no key. :func:`check_strict_types` requires a
  real ``int`` wherever the schema says ``integer``.
- **Huge integers.** YAML reads ``100000000000000000000000000000`` as a Python ``int`` of any size,
  which passes ``type: number`` and then breaks NumPy (``np.isfinite`` raises ``TypeError`` on it).
  :func:`check_strict_types` refuses integers beyond :data:`MAX_INTEGER` (2^53, the largest integer a
  float holds exactly) anywhere; the schema's ``maximum`` bounds each key further.
- **NaN and infinity.** ``.nan`` and ``.inf`` pass ``type: number`` and most range checks (every
  comparison with NaN is false); :func:`check_strict_types` refuses non-finite numbers everywhere.

Errors are :class:`ConfigError` with the file, or the dotted key (``ising10.n_replicates``) or list
index (``loose_bounds.scales[2]``); :func:`key_source` finds which of several config files set a key,
so that a message about the merged config can name the file too.
"""

from __future__ import annotations

from dogs.extras import require

require("workflow", "dogs.config")  # before the imports below: a missing package names its extra

import math
import numbers
from pathlib import Path

import yaml

__all__ = ["ConfigError", "MAX_DEPTH", "MAX_EXPANDED_NODES", "MAX_FILE_BYTES", "MAX_INTEGER", "check_config_files",
           "check_strict_types", "key_source", "load_config_file", "load_yaml_strict"]

#: Largest config file read (bytes). Our own config.yaml is about 25 kB.
MAX_FILE_BYTES = 1_000_000
#: Largest number of values (mapping entries, list items, scalars) a file may expand to once its YAML
#: aliases are followed. Our own config.yaml expands to about 700.
MAX_EXPANDED_NODES = 100_000
#: Deepest nesting of mappings and lists in a config file (ours: 5).
MAX_DEPTH = 50
#: Largest integer magnitude anywhere in a config: 2^53, the largest integer a float holds exactly.
MAX_INTEGER = 2**53


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names the file or the key."""


class _StrictLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses a key appearing twice in one mapping, and nesting deeper than
    :data:`MAX_DEPTH` as soon as it is met (not after the parser has recursed into it)."""

    _depth = 0

    def compose_node(self, parent, index):
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise ConfigError(f"{self.name}:{mark.line + 1}: mappings and lists nested more than {MAX_DEPTH} deep; "
                                  "a config file this deep is refused")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


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


def _syntax_error(path: Path, exc: yaml.YAMLError) -> ConfigError:
    """A YAML error as ``file:line:column: problem`` (PyYAML's marks count from 0)."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    context, context_mark = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if context and context_mark is not None and context_mark is not mark:
        context += f" at line {context_mark.line + 1}, column {context_mark.column + 1}"
    text = f"{where}: not valid YAML: {problem}" + (f" ({context})" if context else "")
    if "'\\t'" in problem:
        text += "; YAML indents with spaces, never tabs"
    return ConfigError(text)


def _expanded_size(root: yaml.Node, path: Path) -> None:
    """Refuse a node graph whose aliases expand beyond :data:`MAX_EXPANDED_NODES` values or nest beyond
    :data:`MAX_DEPTH`, counting without expanding (each shared node is sized once)."""
    sizes: dict[int, int] = {}
    depths: dict[int, int] = {}
    # iterative post-order walk: an alias is the same node object, so its size is looked up, not recounted
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if id(node) in sizes:
            continue
        children = ([n for pair in node.value for n in pair] if isinstance(node, yaml.MappingNode)
                    else list(node.value) if isinstance(node, yaml.SequenceNode) else [])
        if not done:
            stack.append((node, True))
            stack.extend((child, False) for child in children if id(child) not in sizes)
            continue
        sizes[id(node)] = 1 + sum(sizes.get(id(c), 0) for c in children)
        depths[id(node)] = 1 + max((depths.get(id(c), 0) for c in children), default=0)
        if sizes[id(node)] > MAX_EXPANDED_NODES:
            line = node.start_mark.line + 1
            raise ConfigError(f"{path}:{line}: the YAML aliases (*name) here expand to more than {MAX_EXPANDED_NODES:,} "
                              "values; a config file this large is refused (a 'billion laughs' file?)")
        if depths[id(node)] > MAX_DEPTH:
            raise ConfigError(f"{path}:{node.start_mark.line + 1}: mappings and lists nested more than {MAX_DEPTH} "
                              "deep; a config file this deep is refused")


def load_config_file(path) -> dict:
    """Read one config file defensively (module docstring) and return its mapping; errors name the file.

    Refused before parsing: a file above :data:`MAX_FILE_BYTES` or not UTF-8; before building Python
    objects: a YAML syntax error, aliases expanding beyond :data:`MAX_EXPANDED_NODES` values or
    nesting beyond :data:`MAX_DEPTH`; then duplicate keys, an empty file, a top level that is not a
    mapping, and yte templating. JSON files are YAML and are read the same way.
    """
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise ConfigError(f"{path}: config file larger than {MAX_FILE_BYTES:,} bytes; refused (is it a config file?)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConfigError(f"{path}:{line}: not UTF-8 text (byte {exc.start}: {raw[exc.start:exc.start + 1]!r}); "
                          "a config file is YAML or JSON text") from None
    loader = _StrictLoader(text)
    loader.name = str(path)
    try:
        root = loader.get_single_node()
        if root is None:
            raise ConfigError(f"{path}: empty config file; a config file is a mapping of keys (key: value)")
        _expanded_size(root, path)
        data = loader.construct_document(root)
    except yaml.YAMLError as exc:
        raise _syntax_error(path, exc) from None
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        kind = {list: "a list", str: "a single string"}.get(type(data), f"a single {type(data).__name__} value")
        raise ConfigError(f"{path}: the top level of a config file must be a mapping of keys (key: value), got {kind}")
    if "__use_yte__" in data:
        raise ConfigError(f"{path}: yte templating (__use_yte__) is not used by this workflow and would evaluate "
                          "Python expressions from the file; refused")
    return data


def load_yaml_strict(path) -> dict:
    """:func:`load_config_file` (kept under its former name)."""
    return load_config_file(path)


def check_config_files(paths) -> list[dict]:
    """:func:`load_config_file` on every path (the config files a Snakemake run loads), in order."""
    return [load_config_file(path) for path in paths]


def key_source(key: str, paths, loaded=None) -> Path | None:
    """The last of the config files ``paths`` (Snakemake's merge order) that sets the dotted ``key`` or a
    part of it (``ising40.bias.n_chains`` is set by a file with ``ising40: {bias: {n_chains: ..}}`` and by
    one that replaces ``ising40.bias`` whole); ``None`` when no file sets it."""
    parts = [p for p in key.replace("[", ".[").split(".") if p and not p.startswith("[")]
    loaded = loaded if loaded is not None else [load_config_file(p) for p in paths]
    found = None
    for path, data in zip(paths, loaded):
        node = data
        for part in parts:
            if not isinstance(node, dict) or part not in node:
                break
            node = node[part]
        else:
            found = Path(path)
            continue
        if node is not data and not isinstance(node, dict):
            found = Path(path)  # the file replaces a parent of the key by a value that is not a mapping
    return found


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
    if isinstance(value, numbers.Integral) and abs(value) > MAX_INTEGER:
        return [f"{key} is {value:.3g}, beyond any sane setting (|value| <= 2^53)"]
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
    """Refuse float-valued integers, integers beyond :data:`MAX_INTEGER` and non-finite numbers anywhere in
    ``config`` (module docstring).

    ``key`` is the dotted name of ``config`` inside the whole configuration (``""`` for the root), so
    that messages name the full key.
    """
    errors = _errors(config, schema, key)
    if errors:
        raise ConfigError("; ".join(errors))
