"""Deprecated name of :mod:`dogs.sampling_call`, the one sampling call (renamed so that it reads apart from
:mod:`dogs.samplers`, the per-model sampler drivers).

Importing ``dogs.sampling`` warns (:class:`DeprecationWarning`) and hands back :mod:`dogs.sampling_call` itself, so
every name, public or private, is the same object under both names. The old name is kept for one release and then
removed; ``dogs.sample`` and ``dogs.marginals`` never changed.
"""

import sys
import warnings

from dogs import sampling_call

warnings.warn("dogs.sampling is renamed dogs.sampling_call; the old name will be removed in the next release "
              "(dogs.sample and dogs.marginals are unchanged)", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = sampling_call
