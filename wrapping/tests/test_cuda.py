"""fdk(hardware='cuda'): against the CPU and against cbct-fdk --hardware cuda (skipped without a device)."""

import os
import subprocess

import numpy as np
import pytest

import conebeamct as cbct
from conftest import read_mha

pytestmark = pytest.mark.skipif(
    cbct.cuda_device() is None,
    reason="no CUDA: this build has no CUDA FDK" if not cbct.has_cuda() else "no CUDA device present",
)


def _relative_l2(a, b):
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    return np.linalg.norm(a - b) / np.linalg.norm(b)


@pytest.fixture(scope="module")
def scan():
    geometry = cbct.Geometry.circular(90)
    return geometry, cbct.project_phantom(geometry, 128, 1.5)


def test_cuda_equals_cpu(scan):
    geometry, projections = scan
    cpu = cbct.fdk(projections, geometry, 64, 2.0, hardware="cpu")
    seen = []
    cuda = cbct.fdk(projections, geometry, 64, 2.0, hardware="cuda", progress=seen.append)
    assert cuda.info["hardware"].startswith("cuda")
    assert cuda.array.shape == cpu.array.shape and cuda.array.dtype == np.float32
    difference = _relative_l2(cuda.array, cpu.array)
    # The texture unit blends texels with less than float precision and FDK's ramp-filtered terms
    # largely cancel: test/cbctCudaFDKTest.cxx bounds a whole FDK at 5e-4 on its problem; this one
    # measured 4.6e-4 on an H100. Equality with cbct-fdk --hardware cuda is checked below, bit for bit.
    assert difference <= 1e-3, difference
    assert seen and seen[-1] == pytest.approx(1.0)
    auto = cbct.fdk(projections, geometry, 64, 2.0, hardware="auto")
    assert auto.info["hardware"].startswith("cuda")
    assert np.array_equal(auto.array, cuda.array)
    slabs = cbct.fdk(projections, geometry, 64, 2.0, hardware="cuda", divisions=4)
    print("CUDA vs CPU relative L2 difference", difference, "; 4 slabs vs whole",
          _relative_l2(slabs.array, cuda.array))
    assert _relative_l2(slabs.array, cpu.array) <= 1e-3


def test_cuda_same_as_app(work, scan):
    directory = os.environ.get("CBCT_BIN_DIR")
    if not directory:
        pytest.skip("CBCT_BIN_DIR is not set (ctest sets it when the command-line apps are built)")
    xml, mha, output = f"{work}/geometry.xml", f"{work}/projections.mha", f"{work}/fdk.mha"
    for command in (
        [f"{directory}/cbct-simulate", "-g", xml, "-o", mha, "--nproj", "60", "--detector-size", "96",
         "--detector-spacing", "2"],
        [f"{directory}/cbct-fdk", "-g", xml, "--projections", mha, "-o", output, "--dimension", "64",
         "--spacing", "2", "--hardware", "cuda"],
    ):
        result = subprocess.run(command, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
    array, spacing, origin = read_mha(mha)
    projections = cbct.Projections(array, spacing, origin)
    volume = cbct.fdk(projections, cbct.Geometry.read(xml), 64, 2.0, hardware="cuda")
    expected, _, _ = read_mha(output)
    assert np.array_equal(volume.array, expected), _relative_l2(volume.array, expected)

    # In slabs along y, as cbct-fdk --divisions.
    result = subprocess.run([f"{directory}/cbct-fdk", "-g", xml, "--projections", mha, "-o", f"{work}/fdk4.mha",
                             "--dimension", "64", "--spacing", "2", "--hardware", "cuda", "--divisions", "4"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    volume = cbct.fdk(projections, cbct.Geometry.read(xml), 64, 2.0, hardware="cuda", divisions=4)
    expected, _, _ = read_mha(f"{work}/fdk4.mha")
    assert np.array_equal(volume.array, expected), _relative_l2(volume.array, expected)
