# Sphinx configuration of ConeBeamCT's documentation (scripts/docs.sh builds it; see docs/dev/documentation.md).
# Markdown pages through MyST; the C++ reference from Doxygen's XML of include/ (breathe); the Python
# reference from the docstrings of the built conebeamct module (autodoc). scripts/docs.sh sets
# CBCT_DOXYGEN_XML (where Doxygen wrote its XML) and puts the build's Python package on sys.path.
import os

project = "ConeBeamCT"
author = "ConeBeamCT developers"
copyright = "2026, ConeBeamCT developers"

extensions = [
    "myst_parser",
    "breathe",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.graphviz",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

# Anchors for headings down to ### so that pages can link to sections (page.md#a-heading).
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence", "deflist"]

breathe_projects = {"ConeBeamCT": os.environ.get("CBCT_DOXYGEN_XML", "_doxygen/xml")}
breathe_default_project = "ConeBeamCT"
breathe_default_members = ("members",)

# The Python reference documents the public names (conebeamct.__all__), NumPy-style docstrings.
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
napoleon_numpy_docstring = True
napoleon_google_docstring = False

graphviz_output_format = "svg"

html_theme = "furo"
html_title = "ConeBeamCT"
html_static_path = []
