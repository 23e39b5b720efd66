"""The strict config checks of dogs.config: duplicate YAML keys, integers written as floats, NaN/inf."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from dogs.config import ConfigError, check_strict_types, load_yaml_strict

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = yaml.safe_load((ROOT / "config" / "schema.yaml").read_text())


def test_the_shipped_configs_pass():
    for name in ("config.yaml", "smoke.yaml"):
        check_strict_types(load_yaml_strict(ROOT / "config" / name), SCHEMA)


def test_duplicate_keys_nested_and_syntax_errors_name_the_file(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("a:\n  b: 1\n  c: 2\n  b: 3\n")
    with pytest.raises(ConfigError, match=r"c\.yaml: duplicate key 'b' at line 4 \(first at line 2\)"):
        load_yaml_strict(path)
    path.write_text("a: [1, 2\n")
    with pytest.raises(ConfigError, match=r"c\.yaml: not valid YAML"):
        load_yaml_strict(path)
    with pytest.raises(ConfigError, match="cannot read"):
        load_yaml_strict(tmp_path / "missing.yaml")


@pytest.mark.parametrize("config, key", [
    ({"ising10": {"n_replicates": 4.0}}, "ising10.n_replicates must be an integer"),
    ({"loose_bounds": {"scales": [1.0, float("nan")]}}, r"loose_bounds.scales\[1\] must be a finite number"),
    ({"loose_bounds": {"coupling": float("inf")}}, "loose_bounds.coupling must be a finite number"),
    ({"root_seed": 3.0}, "root_seed must be an integer"),
])
def test_strict_types_name_the_key(config, key):
    with pytest.raises(ConfigError, match=key):
        check_strict_types(config, SCHEMA)


def test_floats_are_fine_where_numbers_are_expected():
    check_strict_types({"loose_bounds": {"coupling": 0.165, "scales": [1, 1.5]}}, SCHEMA)
