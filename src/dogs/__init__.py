"""DoGS: Dobrushin-optimized Gibbs samplers and the experiments of four papers on scan quality.

The package is organised by idea (see docs/contributing.md, "Design"):

- :mod:`dogs.models`      parameter objects (binary and discrete pairwise MRFs, grids);
- :mod:`dogs.bounds`      Dobrushin influence bounds (DoGS Theorems 10-12);
- :mod:`dogs.scans`       scans, Dobrushin variation and DoGS Algorithm 2;
- :mod:`dogs.samplers`    Gibbs sampling with any scan (numba kernels);
- :mod:`dogs.exact`       ground truth: junction tree, enumeration, exact chains;
- :mod:`dogs.experiments` one thin module per experiment, driven by Snakemake;
- :mod:`dogs.plotting`    pure plotting functions;
- :mod:`dogs.sampling_call` one sampling call: chains -> ArviZ data (InferenceData or DataTree), with evidence
  and certificates (:func:`dogs.sample`, :func:`dogs.marginals`; bounds in :mod:`dogs.certificates`).

The core needs numpy, scipy, numba and tqdm; pgmpy, ArviZ, plotting and the workflow are extras
(:mod:`dogs.extras`).
"""

__version__ = "0.1.0"

#: Public names served lazily from their modules, so that ``import dogs`` stays cheap (no numba, ArviZ).
_LAZY = {"sample": "dogs.sampling_call", "marginals": "dogs.sampling_call", "SamplingWarning": "dogs.sampling_call",
         "condition": "dogs.models.evidence", "read_uai_evidence": "dogs.models.evidence"}


def __getattr__(name):
    """``dogs.sample``, ``dogs.marginals`` (:mod:`dogs.sampling_call`), ``dogs.condition``, ``dogs.read_uai_evidence``
    (:mod:`dogs.models.evidence`), imported on first use."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'dogs' has no attribute {name!r}")
