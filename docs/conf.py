"""Sphinx configuration of the documentation site: the pages of docs/ (MyST markdown), the
README as its front page, CHANGELOG.md, and an API reference generated from the docstrings.

Build it strictly, as CI does (warnings, broken links and references fail the build)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

Nothing is fetched from the network at build or view time: the theme's assets are bundled and
no font or script comes from a CDN (tests/test_docs_site.py checks the built site).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cahoots_envs._version import __version__

project = "cahoots-envs"
author = "cahoots-envs contributors"
copyright = "cahoots-envs contributors"
release = __version__
version = __version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
# docs/rules/ are shown through rules_pages/ (each under a title; the specs start at H2)
exclude_patterns = ["_build", "transcript_inputs", "rules"]
# a page that skips a heading level (H1 to H3) still builds
suppress_warnings = ["myst.header"]

# MyST: `#section` links to headings (GitHub-style slugs), as the pages link on the forge
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence"]
# a markdown link names a page or heading, never a Python object (`rules` is a page and an attribute)
myst_ref_domains = ["std"]

# autodoc: signatures in the order of the source, type hints in the description
autodoc_member_order = "bysource"
autodoc_typehints = "description"
# a method without its own docstring shows none (not gymnasium's or PettingZoo's base text)
autodoc_inherit_docstrings = False
# every name of a module's __all__, with a docstring or not
autodoc_default_options = {"members": True, "undoc-members": True, "show-inheritance": True}
# the RLlib integration needs ray, which pins an older gymnasium than the main install
autodoc_mock_imports = ["ray"]

html_theme = "furo"
html_title = f"cahoots-envs {__version__}"
html_static_path: list[str] = []
# no asset from the network: furo bundles its fonts' fallbacks (system fonts) and scripts
html_theme_options = {"top_of_page_buttons": []}
html_show_sourcelink = False
