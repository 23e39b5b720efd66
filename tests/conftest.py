"""Test-session settings: the order in which pytest-xdist hands out the test files.

The README's test command runs the suite on every core (``-n auto --dist loadfile`` in
``pyproject.toml``): each test file runs on one worker, so module-scoped fixtures (the smoke
workflow run, a fresh clone, a paper-scale plan) are built once and two smoke runs never write the
same ``results/smoke`` folder. The files with the longest work go first, longest first: started
last, the smoke workflow alone would leave the other workers idle for minutes. pytest-xdist would
otherwise hand out files by their number of tests (``--no-loadscope-reorder`` keeps this order).
"""

from __future__ import annotations

# The slowest files of the suite (``--durations`` on 2 cores), longest first.
LONGEST_FIRST = (
    "test_workflow.py",
    "test_slurm.py",  # 65-75 s, mostly waiting for SLURM: early, beside work that keeps the cores busy
    "test_cli.py",
    "test_dogs_algorithm.py",
    "test_compact_types.py",
    "test_fresh_clone.py",
    "test_packaging.py",  # builds the sdist and wheel and installs the wheel in a fresh venv (about 65 s)
    "test_toy_family.py",
    "test_docs.py",  # builds the documentation site, notebooks executed (45-50 s on a busy 2-core machine)
)


def pytest_collection_modifyitems(config, items):
    rank = {name: position for position, name in enumerate(LONGEST_FIRST)}
    # Stable sort: these files first, in the order above; every other file after, in collection order.
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))
