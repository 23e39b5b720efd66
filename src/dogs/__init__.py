"""DoGS: Dobrushin-optimized Gibbs samplers and the experiments of four papers on scan quality.

The package is organised by idea (see docs/contributing.md, "Design"):

- :mod:`dogs.models`      parameter objects (binary and discrete pairwise MRFs, grids);
- :mod:`dogs.bounds`      Dobrushin influence bounds (DoGS Theorems 10-12);
- :mod:`dogs.scans`       scans, Dobrushin variation and DoGS Algorithm 2;
- :mod:`dogs.samplers`    Gibbs sampling with any scan (numba kernels);
- :mod:`dogs.exact`       ground truth: junction tree, enumeration, exact chains;
- :mod:`dogs.experiments` one thin module per experiment, driven by Snakemake;
- :mod:`dogs.plotting`    pure plotting functions.
"""

__version__ = "0.1.0"
