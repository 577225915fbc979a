"""Shared helpers of the conebeamct tests: each test's own scratch folder and a small MetaImage reader."""

import os
import zlib

import numpy as np
import pytest

from cbct_test_folders import tmp_path, tmp_path_factory  # noqa: F401 (fixtures: each test's own folder)


@pytest.fixture
def work(tmp_path):
    """A scratch directory: the test's own folder (tmp_path), as a string."""
    return str(tmp_path)


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


def write_xvi_scan(folder, line_integrals, angles, u_centre=0.0):
    """Writes an Elekta XVI 5 scan folder from the formats' definitions (not through the library):
    one HIS file per projection of ``line_integrals`` (projection, v, u), each pixel the stored reading
    r = 65536 - round(65536 exp(-p)) as uint16, and ``_Frames.xml`` with the gantry ``angles``
    (degrees, XVI's -180..180) and the flex map's ``u_centre`` (mm). Returns the readings (uint16)."""
    import struct

    os.makedirs(folder, exist_ok=True)
    count, rows, columns = line_integrals.shape
    readings = np.clip(65536.0 - np.round(65536.0 * np.exp(-np.asarray(line_integrals, np.float64))), 0, 65535)
    readings = readings.astype(np.uint16)
    for k in range(count):
        header = bytearray(68 + 32)
        size = len(header) + 2 * rows * columns
        struct.pack_into("<HHHIH", header, 0, 0x7000, 68, 100, size, 32)  # type, header, version, size, image header
        struct.pack_into("<HHHHHH", header, 12, 0, 0, columns - 1, rows - 1, 1, 0)  # corners, frames, correction
        struct.pack_into("<H", header, 32, 4)  # type of numbers: 16-bit unsigned
        with open(os.path.join(folder, "%05d.1.3.46.423632.py.his" % (k + 1)), "wb") as f:
            f.write(bytes(header) + readings[k].astype("<u2").tobytes())
    frames = "".join(
        "    <Frame><Seq>%d</Seq><GantryAngle>%.17g</GantryAngle><Exposed>True</Exposed><UCentre>%.17g</UCentre>"
        "<VCentre>0</VCentre><Inactive>False</Inactive></Frame>\n" % (k + 1, angles[k], u_centre)
        for k in range(count)
    )
    with open(os.path.join(folder, "_Frames.xml"), "w") as f:
        f.write('<?xml version="1.0" encoding="utf-8"?>\n<ProjectionSet>\n  <Image><DicomUID>1.3.46.423632.py'
                "</DicomUID></Image>\n  <Frames>\n" + frames + "  </Frames>\n</ProjectionSet>\n")
    return readings
