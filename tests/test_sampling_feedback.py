"""What ``dogs.sample`` (and so ``dogs sample``) tells a user while it works: a progress bar on standard error when
asked (by default only on a terminal) and a one-line notice before the kernels compile for the first time."""

from __future__ import annotations

import types

import numpy as np
import pytest

import dogs.sampling as sampling
from dogs.models import grid_model


@pytest.mark.filterwarnings("ignore::dogs.sampling.SamplingWarning")  # eight passes do not converge
def test_progress_bar_goes_to_standard_error_only_when_asked(monkeypatch, capsys):
    monkeypatch.setattr(sampling, "PROGRESS_DELAY_SECONDS", 0)
    model = grid_model(3, 3, 0.2)
    quiet = sampling.sample(model, chains=2, draws=8, seed=1, progress=False)
    assert capsys.readouterr().err == ""
    shown = sampling.sample(model, chains=2, draws=8, seed=1, progress=True)
    err = capsys.readouterr().err
    assert "sampling" in err and "pass" in err  # tqdm's bar: description and unit
    np.testing.assert_array_equal(quiet.posterior["label"], shown.posterior["label"])  # the bar changes nothing
    sampling.sample(model, chains=2, draws=8, seed=1)  # default: only on a terminal, and pytest's stderr is not one
    assert capsys.readouterr().err == ""


def test_compile_notice_only_when_no_kernel_is_compiled_or_cached(monkeypatch, capsys):
    import dogs._kernels.gibbs as kernels

    monkeypatch.setattr(kernels, "gibbs_chains", types.SimpleNamespace(signatures=[]))
    monkeypatch.setattr(sampling, "_kernel_cache_empty", lambda stem: True)
    sampling._notice_compilation(binary=True)
    assert "compiling" in capsys.readouterr().err
    monkeypatch.setattr(sampling, "_kernel_cache_empty", lambda stem: False)  # numba's cache has it
    sampling._notice_compilation(binary=True)
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(kernels, "gibbs_chains", types.SimpleNamespace(signatures=["compiled"]))  # this process has it
    monkeypatch.setattr(sampling, "_kernel_cache_empty", lambda stem: True)
    sampling._notice_compilation(binary=True)
    assert capsys.readouterr().err == ""


def test_the_cache_check_reads_numbas_cache_folder(monkeypatch, tmp_path):
    from numba.core import config

    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path))
    assert sampling._kernel_cache_empty("gibbs.gibbs_chain")
    (tmp_path / "dogs" / "_kernels").mkdir(parents=True)
    (tmp_path / "dogs" / "_kernels" / "gibbs.gibbs_chain-383.py311.nbi").write_bytes(b"")
    assert not sampling._kernel_cache_empty("gibbs.gibbs_chain")
