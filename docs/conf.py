"""Sphinx configuration of the documentation site (``sphinx-build -W docs docs/_build/html``; tests/test_docs.py
builds it). Pages are MyST Markdown, tutorials MyST notebooks executed at build (myst-nb), the API reference
comes from the numpy-style docstrings (autodoc + numpydoc); ``_ext/dogs_docs.py`` generates the configuration,
command, claims, verdict and API pages into ``generated/`` first. Nothing is fetched from the network, at build or
by the built pages: MathJax is served from the site itself (sphinx-mathjax-offline), badges, tabs and cards are
sphinx-design's."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "DoGS replication"
author = "the DoGS replication authors"
copyright = "the DoGS replication authors"

extensions = [
    "myst_nb",  # MyST Markdown pages and MyST notebooks (it loads myst_parser itself)
    "sphinx.ext.autodoc",
    "numpydoc",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax 3 copied into the built site (_static/mathjax): math renders offline
    "sphinx_design",  # the verdict badges, the verdict page's tabs and the home page's cards
    "dogs_docs",
]

source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
# results/: the committed results (read by the paper pages); generated/claims-*, deviations-*, figures-*,
# verdicts-table and index-papers are parts of other pages ({include}), not pages
exclude_patterns = ["_build", "README.md", "**/.ipynb_checkpoints", "results/**", "generated/claims-*",
                    "generated/deviations-*", "generated/figures-*", "generated/verdicts-table.md",
                    "generated/index-papers.md"]
root_doc = "index"

myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 3  # the pages link to each other's sections by their GitHub-style anchors

# notebooks: executed at build, cached under _build/.jupyter_cache (a rebuild runs only changed notebooks); a
# failing cell fails the build. The time limit per cell only stops a hung kernel, so that load cannot fail the
# build: the heaviest cell takes 25 s of CPU (numba compiling DoGS's kernels into an empty cache), 63 s of wall clock
# on a 2-core machine at load 8; 1800 s leaves it a seventieth of a core. (tests/test_docs.py lifts the limit and
# limits each process's CPU time instead.)
nb_execution_mode = "cache"
nb_execution_cache_path = str(Path(__file__).parent / "_build" / ".jupyter_cache")
nb_execution_raise_on_error = True
nb_execution_timeout = 1800
nb_execution_show_tb = True

autodoc_default_options = {"members": True}
autodoc_typehints = "none"  # numpydoc shows the documented types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

html_theme = "pydata_sphinx_theme"
html_title = "DoGS replication"
html_theme_options = {"navigation_with_keys": False, "show_toc_level": 2}
# the verdict page: no sidebars (its front matter removes the secondary one), its table takes the width
html_sidebars = {"verdicts": []}
html_static_path = ["_static"]
html_css_files = ["dogs.css"]
# no intersphinx: the build needs no network
