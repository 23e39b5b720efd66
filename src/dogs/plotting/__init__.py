"""Plotting: pure functions from result tables to matplotlib figures, and a shared style (:mod:`dogs.plotting.style`)."""
