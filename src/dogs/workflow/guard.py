"""The workflow's guard: everything the Snakefile checks about its configuration before planning a job.

:func:`check_workflow_config` takes the merged config and the experiment families (the Snakefile passes
``dogs.experiments.FAMILIES``: one :class:`~dogs.workflow.shell.Experiment` object per family), runs, in this
order, and stops at the first problem with a :class:`~dogs.config.ConfigError` that names the key and the config
file that set it:

1. every config file read defensively (:func:`dogs.config.load_config_file`: size, encoding, YAML
   aliases, syntax with file and line, duplicate keys), the family files (``config/families/*.yaml``,
   :mod:`dogs.workflow.families`) too, and every family of ``families`` has its file. Snakemake has parsed the
   ``--configfile`` files already by then with its own loader, which stops on an empty, binary or syntax-error file
   but not on a YAML alias bomb (docs/configuration.md, "Hostile config files");
2. the merged config against the run's schema (``config/schema.yaml`` with each family file's ``schema``: types,
   ranges, enums, required and unknown keys);
3. integers written as floats, integers beyond any sane bound, NaN and infinity
   (:func:`dogs.config.check_strict_types`);
4. the checks that span several keys, each family's own ``check`` (a length grid with ``stop < start``, a
   model size beyond a state-count cap, ...): the same functions the
   experiment shell runs before a step, run here for every family before any job;
5. the resource guard (:mod:`dogs.workflow.cost`): the memory of one job of every family
   against ``resources.max_memory_gb``, and the job time of the whole run against
   ``resources.max_hours``.

It returns the estimated job hours per family, which the Snakefile prints.
"""

from __future__ import annotations

import re
from pathlib import Path

from dogs.config import ConfigError, check_config_files, check_strict_types, key_source
from dogs.workflow.cost import ResourceError, check_config_memory, check_config_time, configured
from dogs.workflow.families import (CORE_CONFIG, FAMILY_DIR, family_files, full_schema, job_rates, layers,
                                    with_family_defaults)
from dogs.workflow.shell import SettingsError

__all__ = ["check_workflow_config", "config_files_in_order", "cross_key_checks"]

_KEY = re.compile(r"config key ([A-Za-z0-9_.*\[\]-]+?):")


def _with_source(message: str, paths, loaded) -> str:
    """``message`` with the config file that set its key, when one of ``paths`` did."""
    match = _KEY.search(message)
    if match is None:
        return message
    source = key_source(match.group(1), paths, loaded)
    if source is None:
        return message
    return message.replace(match.group(0), f"config key {match.group(1)} (set in {source}):", 1)


def _schema_errors(config: dict, schema: dict) -> None:
    import jsonschema

    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        error = errors[0]
        key = ".".join(str(p) for p in error.absolute_path)
        if error.validator == "additionalProperties":
            extra = re.findall(r"'([^']+)'", error.message)
            key = ".".join(p for p in (key, extra[0] if extra else "") if p)
        elif error.validator == "required":
            missing = re.findall(r"'([^']+)'", error.message)
            key = ".".join(p for p in (key, missing[0] if missing else "") if p)
        more = f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""
        raise ConfigError(f"config key {key or '(top level)'}: {error.message}{more}")


def cross_key_checks(config: dict, families) -> None:
    """Every family's checks that span several keys (its ``Experiment.check``), on the whole config."""
    for family, settings in configured(config, families):
        if family.check is not None:
            family.check(settings)


def config_files_in_order(loaded, from_command_line) -> list[Path]:
    """Config files in Snakemake's merge order: those of ``configfile:`` directives (the ones in ``loaded`` that
    are not ``from_command_line``), then the ``--configfile`` ones, which override them."""
    command_line = [Path(p) for p in from_command_line or ()]
    return [Path(p) for p in loaded if Path(p) not in command_line] + command_line


def _missing_files(families, files: dict) -> None:
    """Refuse a family whose module declares a config section that has no family file."""
    for family in families:
        if family.config_section and family.config_section not in files:
            raise ConfigError(f"the experiment family {family.config_section} has no family file "
                              f"{FAMILY_DIR / family.config_section}.yaml (docs/contributing.md)")


def check_workflow_config(config: dict, config_files, families, root=".") -> dict[str, float]:
    """Check the merged ``config`` of a run (module docstring); ``config_files`` in Snakemake's merge order,
    ``families`` the experiment objects whose sections are checked, ``root`` the folder holding ``config/``.

    Returns the estimated job hours per family. Raises :class:`ConfigError` naming the key and the file (a family
    file for a key its settings set and no config file of the run overrides).
    """
    files = family_files(root)
    _missing_files(families, files)
    # the family files' layers come first in the merge order: a key is named by the last file that sets it
    layered = [(Path(root) / FAMILY_DIR / f"{section}.yaml", {section: part[section]})
               for _, part in layers(config, files) for section in part]
    paths = [path for path, _ in layered] + [Path(p) for p in config_files]
    loaded = [data for _, data in layered] + check_config_files(config_files)
    schema = full_schema(root, files)
    reference = with_family_defaults(check_config_files([Path(root) / CORE_CONFIG])[0], files)
    try:
        _schema_errors(config, schema)
        try:
            check_strict_types(config, schema)
        except ConfigError as exc:
            raise ConfigError(f"config key {exc}") from None
        cross_key_checks(config, families)
        check_config_memory(config, families)
        return check_config_time(config, families, reference, job_rates(files))
    except (ConfigError, SettingsError, ResourceError) as exc:
        raise ConfigError(_with_source(str(exc), paths, loaded)) from None
