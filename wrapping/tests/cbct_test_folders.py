"""Each test's own folder for the files it writes, in the temporary directory ($TMPDIR), removed when
the test ends, passed or failed (pytest's own tmp_path keeps the last three runs' folders); with
CBCT_KEEP_TEST_FILES=1 kept, and where said. pytest fixtures named as pytest's own (tmp_path,
tmp_path_factory), so that every test gets them; a conftest.py imports them (this suite's, and
test/docs's)."""

import os
import pathlib
import re
import shutil
import tempfile

import pytest


def _keep_or_remove(path):
    """Removes a test's folder, or keeps it with CBCT_KEEP_TEST_FILES=1 (and says where)."""
    if os.environ.get("CBCT_KEEP_TEST_FILES") == "1":
        print(f"CBCT_KEEP_TEST_FILES=1: kept {path}")
    else:
        shutil.rmtree(path, ignore_errors=True)


class _TestFolders:
    """pytest's tmp_path_factory for this suite: mktemp(name) makes a folder in the session's folder."""

    def __init__(self, root):
        self._root = root

    def mktemp(self, basename, numbered=True):
        return pathlib.Path(tempfile.mkdtemp(prefix=f"{basename}-", dir=self._root))

    def getbasetemp(self):
        return self._root


@pytest.fixture(scope="session")
def tmp_path_factory():
    """The session's folder in the temporary directory ($TMPDIR), removed when the tests end, passed or
    failed (pytest's own keeps the last three runs' folders); CBCT_KEEP_TEST_FILES=1 keeps it."""
    root = pathlib.Path(tempfile.mkdtemp(prefix="cbct-pytest-"))
    yield _TestFolders(root)
    _keep_or_remove(root)


@pytest.fixture
def tmp_path(request, tmp_path_factory):
    """The test's own folder, removed when the test ends, passed or failed (CBCT_KEEP_TEST_FILES=1 keeps it)."""
    path = tmp_path_factory.mktemp(re.sub(r"[^A-Za-z0-9_.-]", "_", request.node.name)[:60])
    yield path
    _keep_or_remove(path)
