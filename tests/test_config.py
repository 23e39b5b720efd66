"""The strict config checks of dogs.config: broken and hostile YAML, duplicate keys, integers written as floats,
huge integers, NaN/inf, and which file set a key."""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

import pytest
import yaml

from dogs.config import (MAX_FILE_BYTES, ConfigError, check_strict_types, key_source, load_config_file,
                         load_yaml_strict)
from dogs.workflow.families import family_files, full_schema, merged_config

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = full_schema(ROOT)  # config/schema.yaml with every family file's section


def billion_laughs(levels: int = 9) -> str:
    """9 levels of 9-fold aliases: 400 bytes of YAML, 9^9 = 387 million values once expanded."""
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


#: Most memory a refusal may trace (each refusal traced under 1 MB).
MAX_TRACED_BYTES = 16 * 2**20

#: name -> (file content, what the refusal says besides the file name). The files of the issue, and more.
HOSTILE = {
    "billion laughs": (billion_laughs(), "aliases (*name) here expand to more than"),
    "random bytes": (bytes(range(128, 256)) * 24, "not UTF-8 text"),
    "empty file": ("", "empty config file"),
    "only a comment": ("# nothing\n", "empty config file"),
    "top-level list": ("- 1\n- 2\n", "must be a mapping of keys (key: value), got a list"),
    "top-level string": ("just words\n", "got a single string"),
    "syntax error": ("timing:\n  main_side: [1, 2\n", ":3:1: not valid YAML: expected ',' or ']'"),
    "tab indentation": ("timing:\n\tmain_side: 3\n", ":2:1: not valid YAML: found character '\\t'"),
    "too large": ("a: 1\n" + "# padding\n" * (MAX_FILE_BYTES // 10 + 1), "larger than"),
    "nested too deep": ("a: " + "[" * 60 + "]" * 60 + "\n", "nested more than 50 deep"),
    "nested beyond recursion": ("a: " + "[" * 5000 + "]" * 5000 + "\n", "nested more than 50 deep"),
    "nested through aliases": ("".join(f"a{i}: &a{i} [*a{i - 1}]\n" if i else "a0: &a0 [1]\n" for i in range(60)),
                               "nested more than 50 deep"),
    "yte template": ("__use_yte__: true\nroot_seed: ?1 + 1\n", "yte templating"),
    "duplicate key": ("root_seed: 1\nsmoke: true\nroot_seed: 2\n", "duplicate key 'root_seed' at line 3 (first at line 1)"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_broken_and_hostile_files_are_refused_at_once_naming_the_file(tmp_path, case):
    content, expected = HOSTILE[case]
    path = tmp_path / "mine.yaml"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    tracemalloc.start()
    try:
        with pytest.raises(ConfigError) as error:
            load_config_file(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # "at once": refused from what was read, nothing expanded (the alias bomb is GBs expanded; < 1 MB measured for
    # every case): memory, which load does not change, not a time
    assert peak < MAX_TRACED_BYTES, f"{peak / 2**20:.1f} MB traced"
    message = str(error.value)
    assert message.startswith(str(path)) and expected in message, message


def test_the_shipped_configs_pass():
    for names in (["config.yaml"], ["config.yaml", "smoke.yaml"], ["config.yaml", "smoke.yaml", "calibration.yaml"]):
        check_strict_types(merged_config([ROOT / "config" / name for name in names], ROOT), SCHEMA)
    assert load_yaml_strict(ROOT / "config" / "smoke.yaml")["smoke"] is True
    assert len(family_files(ROOT)) >= 10  # every family file read defensively too


def test_shared_aliases_within_the_limit_are_fine(tmp_path):
    path = tmp_path / "anchors.yaml"
    path.write_text("base: &grid {start: 1, stop: 10, step: 1}\nother: *grid\n")
    assert load_config_file(path)["other"] == {"start": 1, "stop": 10, "step": 1}


def test_an_unreadable_file_is_named(tmp_path):
    with pytest.raises(ConfigError, match="cannot read config file .*missing.yaml"):
        load_config_file(tmp_path / "missing.yaml")


@pytest.mark.parametrize("config, key", [
    ({"ising10": {"n_replicates": 4.0}}, "ising10.n_replicates must be an integer"),
    ({"loose_bounds": {"scales": [1.0, float("nan")]}}, r"loose_bounds.scales\[1\] must be a finite number"),
    ({"loose_bounds": {"coupling": float("inf")}}, "loose_bounds.coupling must be a finite number"),
    ({"root_seed": 3.0}, "root_seed must be an integer"),
    ({"scan_order": {"M_factor": 10**29}}, r"scan_order.M_factor is 1e\+29, beyond any sane setting"),
    ({"ising10": {"measure": {"replicates": [0, 2**64]}}}, r"ising10.measure.replicates\[1\] is 1.84e\+19"),
])
def test_strict_types_name_the_key(config, key):
    with pytest.raises(ConfigError, match=key):
        check_strict_types(config, SCHEMA)


def test_floats_are_fine_where_numbers_are_expected():
    check_strict_types({"loose_bounds": {"coupling": 0.165, "scales": [1, 1.5]}}, SCHEMA)


def test_key_source_names_the_last_file_that_set_the_key(tmp_path):
    files = []
    for name, text in (("a.yaml", "ising40: {side: 40, bias: {n_chains: 300}}\n"),
                       ("b.yaml", "ising40: {bias: {n_chains: 10}}\n"),
                       ("c.yaml", "root_seed: 3\nloose_bounds: {scales: [1.0, 2.0]}\n")):
        (tmp_path / name).write_text(text)
        files.append(tmp_path / name)
    assert key_source("ising40.bias.n_chains", files) == files[1]
    assert key_source("ising40.side", files) == files[0]
    assert key_source("loose_bounds.scales[1]", files) == files[2]
    assert key_source("msrc.chains", files) is None


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders; the message is tested below")
def test_a_read_only_output_folder_is_reported_by_the_output_name(tmp_path):
    import pandas as pd

    from dogs.io import write_csv

    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    with pytest.raises(PermissionError, match=f"cannot write {folder / 'out.csv'}: its folder"):
        write_csv(pd.DataFrame({"a": [1]}), folder / "out.csv")


def test_a_folder_that_cannot_be_written_is_reported_by_the_output_name(tmp_path, monkeypatch):
    import tempfile

    import pandas as pd

    from dogs.io import write_csv

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(tmp_path / ".out.csv.123.abc.tmp.csv"))

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    with pytest.raises(PermissionError) as error:
        write_csv(pd.DataFrame({"a": [1]}), tmp_path / "out.csv")
    assert f"cannot write {tmp_path / 'out.csv'}: its folder {tmp_path} cannot be written" in str(error.value)
    assert ".tmp" not in str(error.value)
