"""Plotting: pure functions from result tables to matplotlib figures, and a shared style (:mod:`dogs.plotting.style`)."""

from dogs.extras import require

require("plot", "dogs.plotting")  # before the imports below: a missing package names its extra
