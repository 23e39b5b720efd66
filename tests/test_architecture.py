"""The code's house rules that no linter checks: a module uses only the public names of another module.

A name with a leading underscore is private to the module that defines it. The package ``dogs._kernels`` is private
to the library as a whole (its numba kernels sit behind validating wrappers), so library modules import its modules;
each kernel module's own ``_helpers`` are private to that module all the same.
A helper two modules share is public, in the module that owns it (for example ``dogs.scans.checks``).
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_imports(source: str) -> list[str]:
    """Every private name ``source`` takes from another module: ``from m import _x``, ``import m._x``, and
    ``alias._x`` where ``alias`` is a module it imported."""
    tree = ast.parse(source)
    found, modules = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if _private(alias.name):
                    found.append(f"line {node.lineno}: from {node.module} import {alias.name}")
                elif node.module and node.module.startswith("dogs"):
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "dogs" and any(_private(part) and part != "_kernels" for part in parts[1:]):
                    found.append(f"line {node.lineno}: import {alias.name}")
                modules.add(alias.asname or parts[0])
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr) and isinstance(node.value, ast.Name) \
                and node.value.id in modules:
            found.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
    return found


def test_no_module_imports_a_private_name_of_another():
    offenders = {}
    for path in sorted(SRC.rglob("*.py")):
        found = private_imports(path.read_text())
        if found:
            offenders[str(path.relative_to(SRC))] = found
    assert not offenders, f"private names used outside their module (make the shared helper public): {offenders}"


def test_the_private_import_check_can_fail():
    assert private_imports("from dogs.scans.variation import _as_scan\n") == [
        "line 1: from dogs.scans.variation import _as_scan"]
    assert private_imports("from dogs.benchmarks import gibbs\ngibbs._timed(f, 3)\n") == ["line 2: gibbs._timed"]
    assert private_imports("import dogs.cli._guard\n") == ["line 1: import dogs.cli._guard"]
    assert private_imports("from dogs._kernels.gibbs import gibbs_chain\nimport numpy as np\nnp.add(1, 2)\n") == []
    assert private_imports("from collections import namedtuple\nclass A:\n    def f(self):\n        self._x = 1\n") == []
