"""Shared helpers of the conebeamct tests: a scratch directory and a small MetaImage reader."""

import os
import zlib

import numpy as np
import pytest


@pytest.fixture
def work(tmp_path):
    """A scratch directory: $CBCT_TEST_WORK/<test> under ctest, pytest's tmp_path otherwise."""
    root = os.environ.get("CBCT_TEST_WORK")
    if not root:
        return tmp_path
    path = os.path.join(root, os.environ.get("PYTEST_CURRENT_TEST", "test").split(" ")[0].replace("/", "_").replace(":", "_"))
    os.makedirs(path, exist_ok=True)
    return path


_TYPES = {
    "MET_FLOAT": np.float32,
    "MET_DOUBLE": np.float64,
    "MET_SHORT": np.int16,
    "MET_USHORT": np.uint16,
    "MET_UCHAR": np.uint8,
    "MET_CHAR": np.int8,
    "MET_INT": np.int32,
    "MET_UINT": np.uint32,
}


def read_mha(path):
    """(array (z, y, x), spacing (x, y, z), origin (x, y, z)) of a 3D MetaImage with its data in the
    same file (ElementDataFile = LOCAL), raw or zlib-compressed, identity direction."""
    with open(path, "rb") as f:
        data = f.read()
    header = {}
    position = 0
    while True:
        end = data.index(b"\n", position)
        line = data[position:end].decode("ascii").strip()
        position = end + 1
        key, _, value = line.partition("=")
        header[key.strip()] = value.strip()
        if key.strip() == "ElementDataFile":
            break
    assert header["ElementDataFile"] == "LOCAL", header
    assert int(header["NDims"]) == 3, header
    assert header.get("ElementNumberOfChannels", "1") == "1", header
    sizes = [int(v) for v in header["DimSize"].split()]
    spacing = tuple(float(v) for v in header.get("ElementSpacing", "1 1 1").split())
    origin = tuple(float(v) for v in header.get("Offset", header.get("Position", "0 0 0")).split())
    direction = [float(v) for v in header.get("TransformMatrix", "1 0 0 0 1 0 0 0 1").split()]
    assert np.array_equal(direction, np.eye(3).ravel()), header
    dtype = np.dtype(_TYPES[header["ElementType"]])
    msb = header.get("BinaryDataByteOrderMSB", header.get("ElementByteOrderMSB", "False")) == "True"
    dtype = dtype.newbyteorder(">" if msb else "<")
    payload = data[position:]
    if header.get("CompressedData", "False") == "True":
        payload = zlib.decompress(payload)
    count = sizes[0] * sizes[1] * sizes[2]
    array = np.frombuffer(payload, dtype=dtype, count=count).reshape(sizes[2], sizes[1], sizes[0])
    return array, spacing, origin


def write_mha(path, array, spacing, origin):
    """Writes a 3D float32 (z, y, x) array as a MetaImage with its data in the file (what the apps read)."""
    array = np.ascontiguousarray(array, dtype="<f4")
    nz, ny, nx = array.shape
    header = (
        "ObjectType = Image\nNDims = 3\nBinaryData = True\nBinaryDataByteOrderMSB = False\nCompressedData = False\n"
        "TransformMatrix = 1 0 0 0 1 0 0 0 1\n"
        f"Offset = {' '.join(repr(float(v)) for v in origin)}\nCenterOfRotation = 0 0 0\n"
        f"ElementSpacing = {' '.join(repr(float(v)) for v in spacing)}\nDimSize = {nx} {ny} {nz}\n"
        "ElementType = MET_FLOAT\nElementDataFile = LOCAL\n"
    )
    with open(path, "wb") as f:
        f.write(header.encode("ascii"))
        f.write(array.tobytes())


def app_path(name):
    """The path of the command-line app `name` (skips the test when ctest did not set CBCT_BIN_DIR)."""
    directory = os.environ.get("CBCT_BIN_DIR")
    if not directory:
        pytest.skip("CBCT_BIN_DIR is not set (ctest sets it when the command-line apps are built)")
    path = os.path.join(directory, name)
    if not os.access(path, os.X_OK):
        pytest.fail(f"CBCT_BIN_DIR is {directory} but it has no executable {name}")
    return path


def run_app(name, *arguments):
    """Runs the app `name` with `arguments`; fails the test with its output unless it exits with 0."""
    import subprocess

    command = [app_path(name)] + [str(a) for a in arguments]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, f"{command}: exit code {result.returncode}\n{result.stdout}\n{result.stderr}"
    return result
