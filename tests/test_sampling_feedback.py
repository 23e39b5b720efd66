"""What ``dogs.sample`` (and so ``dogs sample``) tells a user while it works: a progress bar on standard error when
asked (by default only on a terminal) and a one-line notice before the kernels compile for the first time."""

from __future__ import annotations

import types

import numpy as np
import pytest

import dogs.sampling_call as sampling
from dogs.models import grid_model
from dogs.scans import systematic_scan


@pytest.mark.filterwarnings("ignore::dogs.sampling_call.SamplingWarning")  # eight passes do not converge
def test_progress_bar_goes_to_standard_error_only_when_asked(monkeypatch, capsys):
    monkeypatch.setattr(sampling, "PROGRESS_DELAY_SECONDS", 0)
    monkeypatch.setattr(sampling, "_notice_compilation", lambda *args: None)  # its own test below; cold caches print it
    model = grid_model(3, 3, 0.2)
    quiet = sampling.sample(model, chains=2, draws=8, seed=1, progress=False)
    assert capsys.readouterr().err == ""
    shown = sampling.sample(model, chains=2, draws=8, seed=1, progress=True)
    err = capsys.readouterr().err
    assert "sampling" in err and "pass" in err  # tqdm's bar: description and unit
    np.testing.assert_array_equal(quiet.posterior["label"], shown.posterior["label"])  # the bar changes nothing
    sampling.sample(model, chains=2, draws=8, seed=1)  # default: only on a terminal, and pytest's stderr is not one
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(("chains", "draws", "threads", "module", "name"), [
    (4, 8, 2, "gibbs", "gibbs_chain_draws"),  # few chains, little work: the one-chain kernel, chain after chain
    (4, 10**5, 2, "gibbs", "gibbs_chains_draws"),  # ... with work enough for threads: the parallel kernel
    (4, 10**5, 1, "gibbs", "gibbs_chain_draws"),  # ... unless numba has one thread
    (8, 8, 2, "gibbs_table", "gibbs_table_block_draws"),  # a grid from 8 chains: the table kernel, one block
    (64, 10**4, 2, "gibbs_table", "gibbs_table_draws"),  # many blocks and work: the blocks in parallel
])
def test_compile_notice_only_when_the_kernel_that_runs_is_not_compiled_or_cached(monkeypatch, capsys, chains, draws,
                                                                                 threads, module, name):
    import importlib

    import numba

    kernels = importlib.import_module(f"dogs._kernels.{module}")
    monkeypatch.setattr(numba, "get_num_threads", lambda: threads)
    model = grid_model(3, 3, coupling=0.2)
    scan = systematic_scan(9, 9)
    looked_up = []
    monkeypatch.setattr(kernels, name, types.SimpleNamespace(signatures=[]))
    monkeypatch.setattr(sampling, "_kernel_cache_empty", lambda stem: looked_up.append(stem) or True)
    sampling._notice_compilation(model, scan, chains, draws, binary=True)
    assert "compiling" in capsys.readouterr().err and looked_up == [f"{module}.{name}"]
    monkeypatch.setattr(sampling, "_kernel_cache_empty", lambda stem: False)  # numba's cache has it
    sampling._notice_compilation(model, scan, chains, draws, binary=True)
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(kernels, name, types.SimpleNamespace(signatures=["compiled"]))  # this process has it
    monkeypatch.setattr(sampling, "_kernel_cache_empty", lambda stem: True)
    sampling._notice_compilation(model, scan, chains, draws, binary=True)
    assert capsys.readouterr().err == ""


def test_the_cache_check_reads_numbas_cache_folder(monkeypatch, tmp_path):
    from numba.core import config

    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path))
    assert sampling._kernel_cache_empty("gibbs.gibbs_chain_draws")
    (tmp_path / "dogs" / "_kernels").mkdir(parents=True)
    (tmp_path / "dogs" / "_kernels" / "gibbs.gibbs_chains_draws-383.py311.nbi").write_bytes(b"")
    assert sampling._kernel_cache_empty("gibbs.gibbs_chain_draws")  # another kernel's file, a longer name
    (tmp_path / "dogs" / "_kernels" / "gibbs.gibbs_chain_draws-370.py311.nbi").write_bytes(b"")
    assert not sampling._kernel_cache_empty("gibbs.gibbs_chain_draws")
