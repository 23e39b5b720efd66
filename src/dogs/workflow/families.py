"""Family files: the whole configuration of each experiment family in one file of its own, and the config and schema
of a run derived from them.

Each family keeps everything about its settings in ``config/families/<section>.yaml``, where ``<section>`` is its
config section (the file's name is the section; nothing shared names a family):

``settings``
    the paper-scale settings, every key commented, "(paper)" or "(choice)";
``smoke``
    overrides applied on top when the run's config says ``smoke: true`` (``config/smoke.yaml``);
``calibration``
    overrides applied on top of those when it says ``calibration: true`` (``config/calibration.yaml``);
``schema``
    the JSON schema of the section;
``rates``
    CPU seconds per unit of work of each compute rule that writes a benchmark file, measured by
    ``python -m dogs.experiments calibrate`` (:func:`dogs.workflow.cost.calibrate`);
``other_rates``
    rates of work that writes no benchmark file of its own, measured otherwise (the comment says how);
``rate_from``
    ``{rule: rule}``: compute rules that borrow another rule's rate.

**Merge order**, lowest first: a family's ``settings``, its ``smoke`` overrides, its ``calibration`` overrides, then
every config file of the run in Snakemake's order (``config/config.yaml``, each ``--configfile``) and ``--config``
(:func:`with_family_defaults`). So a config file or ``--config`` of the user overrides a family's settings as it
overrides ``config/config.yaml``, and nested mappings merge key by key as Snakemake merges config files. The schema
of a run is ``config/schema.yaml`` (the keys every family shares) with each family's ``schema`` as its section
(:func:`full_schema`).
"""

from __future__ import annotations

import copy
from pathlib import Path

import yaml

from dogs.config import ConfigError, load_config_file

__all__ = ["CORE_CONFIG", "CORE_SCHEMA", "FAMILY_DIR", "PARTS", "family_files", "full_schema", "job_rates", "layers",
           "merge", "merged_config", "with_family_defaults"]

#: The folder of the family files, the shared settings and the shared schema, from the repository root.
FAMILY_DIR = Path("config") / "families"
CORE_CONFIG = Path("config") / "config.yaml"
CORE_SCHEMA = Path("config") / "schema.yaml"
#: The parts a family file may have; ``settings`` and ``schema`` it must have.
PARTS = ("settings", "smoke", "calibration", "rates", "other_rates", "rate_from", "schema")


def merge(base: dict, extra: dict) -> dict:
    """``extra`` merged into a copy of ``base`` as Snakemake merges config files: mappings key by key, anything else
    (lists too) replaced."""
    out = copy.deepcopy(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def family_files(root=".") -> dict[str, dict]:
    """``{section: the parts of its file}`` of every ``config/families/*.yaml`` under ``root``, in name order; each file
    read defensively (:func:`dogs.config.load_config_file`) and refused, naming it, with a part it may not have or
    without ``settings`` or ``schema``."""
    out = {}
    for path in sorted((Path(root) / FAMILY_DIR).glob("*.yaml")):
        data = load_config_file(path)
        unknown = sorted(set(data) - set(PARTS))
        missing = [part for part in ("settings", "schema") if not isinstance(data.get(part), dict)]
        if unknown or missing:
            raise ConfigError(f"{path}: a family file has the parts {', '.join(PARTS)} (settings and schema "
                              f"required); " + (f"unknown: {', '.join(unknown)}" if unknown else
                                                f"missing: {', '.join(missing)}"))
        out[path.stem] = data
    return out


def layers(config: dict, files: dict[str, dict]) -> list[tuple[str, dict]]:
    """``[(layer name, {section: settings})]`` of the family files in merge order, lowest first: ``settings``, then
    ``smoke`` when ``config`` says ``smoke: true``, then ``calibration`` when it says ``calibration: true``."""
    chosen = ["settings"] + [part for part in ("smoke", "calibration") if config.get(part) is True]
    return [(part, {section: data[part] for section, data in files.items() if isinstance(data.get(part), dict)})
            for part in chosen]


def with_family_defaults(config: dict, files: dict[str, dict] | None = None, root=".") -> dict:
    """``config`` (the run's config files and ``--config`` merged) over every family's defaults: what every job sees.

    Keys come in Snakemake's order, which starts from the command line's config and merges the Snakefile's config file
    into it: those of the overriding layers (smoke, calibration, the run's config) first, then those only the
    paper-scale settings have (the order in which a rule iterates over a mapping of the config, such as a list of
    input folders)."""
    files = family_files(root) if files is None else files
    (_, paper), *overrides = layers(config, files)
    upper: dict = {}
    for _, sections in overrides:
        upper = merge(upper, sections)
    upper = merge(upper, config)
    return merge(merge(upper, paper), upper)


def merged_config(paths, root=".") -> dict:
    """The config of a run of the config files ``paths`` (Snakemake's order, ``config/config.yaml`` first), with
    every family's defaults under them: what the Snakefile sees with ``--configfile paths[1:]``."""
    out: dict = {}
    for path in paths:
        out = merge(out, load_config_file(path))
    return with_family_defaults(out, root=root)


def full_schema(root=".", files: dict[str, dict] | None = None) -> dict:
    """The JSON schema of a run: ``config/schema.yaml`` with every family's ``schema`` as its (required) section."""
    files = family_files(root) if files is None else files
    schema = yaml.safe_load((Path(root) / CORE_SCHEMA).read_text())
    for section, data in files.items():
        schema["properties"][section] = data["schema"]
        schema["required"] = [*schema.get("required", []), section]
    return schema


def job_rates(files: dict[str, dict]) -> dict[str, float]:
    """``{compute rule: CPU seconds per unit of work}`` of every family file (``rates`` and ``other_rates``), with the
    rules of ``rate_from`` at the rate they borrow. A rule rated twice is refused, naming both files."""
    out: dict[str, float] = {}
    owner: dict[str, str] = {}
    for section, data in files.items():
        for part in ("rates", "other_rates"):
            for rule, rate in (data.get(part) or {}).items():
                if rule in owner:
                    raise ConfigError(f"the rate of {rule} is given twice: in {FAMILY_DIR / owner[rule]}.yaml and "
                                      f"{FAMILY_DIR / section}.yaml")
                out[rule], owner[rule] = float(rate), section
    for data in files.values():
        for rule, source in (data.get("rate_from") or {}).items():
            if source not in out:
                raise ConfigError(f"rate_from: {rule} borrows the rate of {source}, which no family file rates")
            out[rule] = out[source]
    return out
