"""Targeted image segmentation with the Markov field aspect model (DoGS §5.5): MSRC v1, patches, features, MFAM.

- :mod:`dogs.segmentation.msrc`: the MSRC v1 database read from its zip, checked against its manifest;
- :mod:`dogs.segmentation.features`: the patch grid, majority labels, texture / colour / position words;
- :mod:`dogs.segmentation.mfam`: the MFAM posterior (DoGS eq. 4) as a Potts model, the region of interest and
  the Hamming error;
- :mod:`dogs.segmentation.region_scan`: the DoGS scan of the centre region and its certificate;
- :mod:`dogs.segmentation.labelling`: the segmentation read off the Gibbs chains (most frequent label).

PLSA itself lives in :mod:`dogs.learning.plsa`.
"""

from dogs.extras import require

require("workflow", "dogs.segmentation")  # before the imports below: a missing package names its extra
