"""One thin module per experiment: read settings, call the library, write results. Snakemake calls them."""
