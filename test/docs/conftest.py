"""The docs runner's tests write in folders of their own, removed when each test ends (the fixtures of
wrapping/tests/cbct_test_folders.py, which the Python package's tests use too)."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "wrapping" / "tests"))

from cbct_test_folders import tmp_path, tmp_path_factory  # noqa: E402,F401 (fixtures)
