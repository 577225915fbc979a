"""Emission (SPECT) from Python: parallel-beam geometries, emission_project, poisson_noise and osem
against cbct-simulate --emission, cbct-forward --fp emission and cbct-osem (bit for bit), the
attenuation model's effect, checked inputs; CUDA against the CPU where there is a device."""

import os
import subprocess

import numpy as np
import pytest

import conebeamct as cbct
from conftest import read_mha

ACTIVITY = """# a warm water cylinder (activity 2 per mm^3) with a hot sphere (8)
ellipsoid 2   0 0 0   50 1000 50
ellipsoid 6   0 0 0   15 15 15
"""
MU = """# water at 140 keV
ellipsoid 0.015   0 0 0   50 1000 50
"""
NPROJ, SID, COLUMNS, ROWS, PIXEL, PSF = 60, 150.0, 24, 20, 6.0, (1.5, 0.03)


def _app(name):
    directory = os.environ.get("CBCT_BIN_DIR")
    if not directory:
        pytest.skip("CBCT_BIN_DIR is not set (ctest sets it when the command-line apps are built)")
    path = os.path.join(directory, name)
    if not os.access(path, os.X_OK):
        pytest.fail(f"CBCT_BIN_DIR is {directory} but it has no executable {name}")
    return path


def _run(*command):
    result = subprocess.run([str(c) for c in command], capture_output=True, text=True)
    assert result.returncode == 0, f"{command}: exit code {result.returncode}\n{result.stdout}\n{result.stderr}"


@pytest.fixture
def phantoms(work):
    activity, mu = os.path.join(work, "activity.txt"), os.path.join(work, "mu.txt")
    with open(activity, "w") as f:
        f.write(ACTIVITY)
    with open(mu, "w") as f:
        f.write(MU)
    return activity, mu


def _volumes(activity, mu):
    # cbct-simulate --emission's default grid: voxels of one detector pixel covering the detector.
    shape = (COLUMNS, ROWS, COLUMNS)
    return (cbct.voxelize_phantom(shape, PIXEL, phantom=activity, supersampling=2),
            cbct.voxelize_phantom(shape, PIXEL, phantom=mu, supersampling=2))


def test_parallel_geometry():
    geometry = cbct.Geometry.circular(8, sid=SID, sdd=0)
    assert geometry.is_parallel() and not cbct.Geometry.circular(8).is_parallel()
    assert np.allclose(geometry.matrices()[0], [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1]])
    with pytest.raises(cbct.ITKError, match="a geometry is all parallel or all cone beam"):
        geometry.add_projection(1000, 1500, 10)


def test_same_as_apps_bit_for_bit(work, phantoms):
    activity_file, mu_file = phantoms
    simulate, forward, osem_app = _app("cbct-simulate"), _app("cbct-forward"), _app("cbct-osem")
    xml = f"{work}/geometry.xml"
    scan = ["--emission", "--nproj", NPROJ, "--sid", SID, "--sdd", 0, "--detector-size", f"{COLUMNS},{ROWS}",
            "--detector-spacing", PIXEL, "--phantom", activity_file, "--mu-phantom", mu_file, "--psf", f"{PSF[0]},{PSF[1]}"]
    _run(simulate, *scan, "-g", xml, "-o", f"{work}/expected.mha", "--mu-output", f"{work}/mu.mha")
    _run(simulate, *scan, "-g", xml, "-o", f"{work}/counts.mha", "--poisson", "--seed", 5)
    geometry = cbct.Geometry.read(xml)
    assert geometry.is_parallel()

    activity, mu = _volumes(activity_file, mu_file)
    expected = read_mha(f"{work}/expected.mha")[0]
    projections = cbct.emission_project(activity, geometry, (COLUMNS, ROWS), PIXEL, attenuation=mu, psf=PSF)
    assert projections.array.shape == (NPROJ, ROWS, COLUMNS)
    assert np.array_equal(projections.array, expected)
    mu_app = read_mha(f"{work}/mu.mha")
    assert np.array_equal(mu.array, mu_app[0]) and np.allclose(mu.spacing, mu_app[1]) and np.allclose(mu.origin, mu_app[2])

    counts = cbct.poisson_noise(projections, seed=5)
    assert np.array_equal(counts.array, read_mha(f"{work}/counts.mha")[0])
    assert np.array_equal(counts.array, np.round(counts.array)) and not np.array_equal(counts.array, projections.array)

    # cbct-osem with the map cbct-simulate wrote, then cbct-forward --fp emission of its volume.
    _run(osem_app, "-g", xml, "--projections", f"{work}/counts.mha", "-o", f"{work}/osem.mha", "--dimension", 20,
         "--spacing", PIXEL, "--niterations", 2, "--nprojpersubset", 15, "--attenuation", f"{work}/mu.mha",
         "--psf", f"{PSF[0]},{PSF[1]}")
    reconstruction = cbct.osem(counts, geometry, 20, PIXEL, iterations=2, projections_per_subset=15, attenuation=mu, psf=PSF)
    assert reconstruction.info["projector"] == "emission"
    assert np.array_equal(reconstruction.array, read_mha(f"{work}/osem.mha")[0])
    _run(forward, "-g", xml, "-i", f"{work}/osem.mha", "-o", f"{work}/forward.mha", "--dimension", f"{COLUMNS},{ROWS}",
         "--spacing", PIXEL, "--attenuation", f"{work}/mu.mha", "--psf", f"{PSF[0]},{PSF[1]}")
    again = cbct.emission_project(reconstruction, geometry, (COLUMNS, ROWS), PIXEL, attenuation=mu, psf=PSF)
    assert np.array_equal(again.array, read_mha(f"{work}/forward.mha")[0])


def test_attenuation_model_recovers_the_activity(phantoms):
    activity_file, mu_file = phantoms
    activity, mu = _volumes(activity_file, mu_file)
    geometry = cbct.Geometry.circular(NPROJ, sid=SID, sdd=0)
    counts = cbct.poisson_noise(cbct.emission_project(activity, geometry, (COLUMNS, ROWS), PIXEL, attenuation=mu), seed=2)
    seen = []
    corrected = cbct.osem(counts, geometry, (ROWS, ROWS, ROWS), PIXEL, iterations=4, projections_per_subset=15,
                          attenuation=mu, progress=seen.append)
    uncorrected = cbct.osem(counts, geometry, (ROWS, ROWS, ROWS), PIXEL, iterations=4, projections_per_subset=15,
                            projector="emission")
    centre = slice(ROWS // 2 - 1, ROWS // 2 + 1)
    hot = corrected.array[centre, centre, centre].mean()
    hot_uncorrected = uncorrected.array[centre, centre, centre].mean()
    # The sphere's centre (activity 8): within 10 % with the model (measured 7.9), far below without.
    assert abs(hot / 8 - 1) < 0.1, hot
    assert hot_uncorrected < 0.6 * 8, hot_uncorrected
    assert seen and seen[-1] == 1.0 and seen == sorted(seen)


def test_checked_inputs(phantoms):
    activity_file, mu_file = phantoms
    activity, mu = _volumes(activity_file, mu_file)
    geometry = cbct.Geometry.circular(4, sid=SID, sdd=0)
    negative = cbct.Volume(mu.array.copy(), mu.spacing, mu.origin)
    negative.array[3, 4, 5] = -0.1
    with pytest.raises(ValueError, match=r"attenuation at voxel \(x, y, z\) = \(5, 4, 3\) is -0.1"):
        cbct.emission_project(activity, geometry, 8, PIXEL, attenuation=negative)
    negative.array[3, 4, 5] = np.nan
    with pytest.raises(ValueError, match="attenuation at voxel"):
        cbct.osem(cbct.Projections(np.ones((4, 8, 8))), geometry, 8, attenuation=negative)
    with pytest.raises(ValueError, match=r"psf is \(1, -0.1\); expected \(sigma0, slope\)"):
        cbct.emission_project(activity, geometry, 8, PIXEL, psf=(1, -0.1))
    with pytest.raises(ValueError, match="projector is 'joseph'; expected 'emission'"):
        cbct.osem(cbct.Projections(np.ones((4, 8, 8))), geometry, 8, projector="joseph", attenuation=mu)
    counts = np.ones((4, 8, 8))
    counts[1, 2, 3] = -1
    with pytest.raises(cbct.ITKError, match=r"projection value at pixel \(3, 2\) of projection 1 is -1"):
        cbct.osem(cbct.Projections(counts), geometry, 8, attenuation=mu)
    with pytest.raises(cbct.ITKError, match=r"expected count at pixel \[3, 2, 1\] is -1"):
        cbct.poisson_noise(cbct.Projections(counts))
    with pytest.raises(ValueError, match="seed is -1"):
        cbct.poisson_noise(cbct.Projections(np.ones((4, 8, 8))), seed=-1)
    with pytest.raises(ValueError, match="hardware is 'gpu'"):
        cbct.emission_project(activity, geometry, 8, PIXEL, hardware="gpu")


@pytest.mark.skipif(cbct.cuda_device() is None, reason="no CUDA device (or no CUDA in this build)")
def test_cuda_equals_cpu(phantoms):
    activity_file, mu_file = phantoms
    activity, mu = _volumes(activity_file, mu_file)
    geometry = cbct.Geometry.circular(NPROJ, sid=SID, sdd=0)
    cpu = cbct.emission_project(activity, geometry, (COLUMNS, ROWS), PIXEL, attenuation=mu, psf=PSF)
    cuda = cbct.emission_project(activity, geometry, (COLUMNS, ROWS), PIXEL, attenuation=mu, psf=PSF, hardware="cuda")
    difference = np.linalg.norm(cuda.array.astype(np.float64) - cpu.array) / np.linalg.norm(cpu.array.astype(np.float64))
    assert difference < 1e-5, difference
    counts = cbct.poisson_noise(cpu, seed=3)
    a = cbct.osem(counts, geometry, ROWS, PIXEL, iterations=2, projections_per_subset=15, attenuation=mu, psf=PSF)
    b = cbct.osem(counts, geometry, ROWS, PIXEL, iterations=2, projections_per_subset=15, attenuation=mu, psf=PSF,
                  hardware="cuda")
    difference = np.linalg.norm(b.array.astype(np.float64) - a.array) / np.linalg.norm(a.array.astype(np.float64))
    assert difference < 1e-5, difference
