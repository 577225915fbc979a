"""conebeamct.asd_pocs and conebeamct.admm_tv: bit for bit the apps' results on the CPU, checked inputs,
an initial volume, progress and a stop from the callback, the GIL released."""

import os
import subprocess
import threading
import time

import numpy as np
import pytest

import conebeamct as cbct
from conftest import read_mha

# A small few-view problem: 40^3 voxels of 3 mm from 20 projections of 64 x 64 pixels of 3 mm.
NPROJ, DETECTOR, PIXEL, VOXELS, VOXEL, SCALE = 20, 64, 3.0, 40, 3.0, 60.0


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


@pytest.fixture(scope="module")
def scan():
    geometry = cbct.Geometry.circular(NPROJ, sid=1000, sdd=1500)
    return geometry, cbct.project_phantom(geometry, DETECTOR, PIXEL, scale=SCALE)


def test_same_as_apps_bit_for_bit(work, scan):
    simulate = _app("cbct-simulate")
    xml, mha = f"{work}/geometry.xml", f"{work}/projections.mha"
    _run(simulate, "-g", xml, "-o", mha, "--nproj", NPROJ, "--detector-size", DETECTOR, "--detector-spacing", PIXEL,
         "--phantom-scale", SCALE)
    array, spacing, origin = read_mha(mha)
    geometry, projections = scan
    assert np.array_equal(projections.array, array)
    grid = ["--dimension", VOXELS, "--spacing", VOXEL, "--hardware", "cpu", "-n", 3]

    _run(_app("cbct-asdpocs"), "-g", xml, "--projections", mha, "-o", f"{work}/asd.mha", *grid, "--nprojpersubset", 5,
         "--lambda", 0.8, "--alpha", 0.01, "--tviter", 10, "--tv-epsilon", 0.01)
    expected, expected_spacing, expected_origin = read_mha(f"{work}/asd.mha")
    volume = cbct.asd_pocs(projections, geometry, VOXELS, VOXEL, iterations=3, projections_per_subset=5, lambda_=0.8,
                           alpha=0.01, tv_iterations=10, tv_epsilon=0.01, hardware="cpu")
    assert volume.array.dtype == np.float32 and volume.array.shape == expected.shape == (VOXELS,) * 3
    assert np.allclose(volume.spacing, expected_spacing) and np.allclose(volume.origin, expected_origin)
    assert np.array_equal(volume.array, expected), np.abs(volume.array - expected).max()
    assert volume.info["hardware"] == "cpu" and volume.info["iterations"] == 3 and len(volume.info["tv_steps"]) == 3

    _run(_app("cbct-admmtv"), "-g", xml, "--projections", mha, "-o", f"{work}/admm.mha", *grid, "--alpha", 50, "--beta",
         500, "--CGiter", 2)
    expected, _, _ = read_mha(f"{work}/admm.mha")
    volume = cbct.admm_tv(projections, geometry, VOXELS, VOXEL, iterations=3, alpha=50, beta=500, cg_iterations=2,
                          hardware="cpu")
    assert np.array_equal(volume.array, expected), np.abs(volume.array - expected).max()


def test_defaults_same_as_apps(work, scan):
    """The apps' defaults are the functions' (docs/guide/choosing-a-method.md): ASD-POCS's lambda 0.5,
    ADMM-TV's alpha and beta chosen from the problem's scales, the same numbers on both sides."""
    geometry, projections = scan
    xml, mha = f"{work}/defaults.xml", f"{work}/defaults.mha"
    _run(_app("cbct-simulate"), "-g", xml, "-o", mha, "--nproj", NPROJ, "--detector-size", DETECTOR,
         "--detector-spacing", PIXEL, "--phantom-scale", SCALE)
    grid = ["--dimension", VOXELS, "--spacing", VOXEL, "--hardware", "cpu", "-n", 2]
    _run(_app("cbct-asdpocs"), "-g", xml, "--projections", mha, "-o", f"{work}/asd-defaults.mha", *grid)
    expected, _, _ = read_mha(f"{work}/asd-defaults.mha")
    volume = cbct.asd_pocs(projections, geometry, VOXELS, VOXEL, iterations=2, hardware="cpu")
    assert np.array_equal(volume.array, expected), np.abs(volume.array - expected).max()
    result = subprocess.run([_app("cbct-admmtv"), "-g", xml, "--projections", mha, "-o", f"{work}/admm-defaults.mha",
                             *map(str, grid), "--verbose"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    expected, _, _ = read_mha(f"{work}/admm-defaults.mha")
    volume = cbct.admm_tv(projections, geometry, VOXELS, VOXEL, iterations=2, hardware="cpu")
    assert np.array_equal(volume.array, expected), np.abs(volume.array - expected).max()
    alpha, beta = volume.info["alpha"], volume.info["beta"]
    assert np.isfinite(alpha) and np.isfinite(beta) and alpha > 0 and beta > 0
    assert f"alpha {alpha:.4g} (auto), beta {beta:.4g} (auto)" in result.stdout, (alpha, beta, result.stdout)


def test_reconstruct_the_phantom(scan):
    geometry, projections = scan
    truth = cbct.voxelize_phantom(VOXELS, VOXEL, scale=SCALE, supersampling=2)
    centre = slice(VOXELS // 4, 3 * VOXELS // 4)
    empty = np.abs(truth.array[:, centre, :]).mean()
    for volume in (
        cbct.asd_pocs(projections, geometry, VOXELS, VOXEL, iterations=4, projections_per_subset=5, lambda_=0.8,
                      alpha=0.01, hardware="cpu"),
        cbct.admm_tv(projections, geometry, VOXELS, VOXEL, iterations=4, alpha=50, beta=500, cg_iterations=3,
                     hardware="cpu"),
    ):
        error = np.abs(volume.array[:, centre, :] - truth.array[:, centre, :]).mean()
        assert np.isfinite(error) and error < 0.3 * empty, (error, empty)


def test_initial_volume_continues(scan):
    geometry, projections = scan
    two = cbct.asd_pocs(projections, geometry, VOXELS, VOXEL, iterations=2, projections_per_subset=5, alpha=0.0,
                        hardware="cpu")
    one = cbct.asd_pocs(projections, geometry, VOXELS, VOXEL, iterations=1, projections_per_subset=5, alpha=0.0,
                        hardware="cpu")
    # With alpha 0 (no TV steps) and no lambda reduction each iteration is one OS-SART pass, so one pass
    # from the result of one is two passes.
    one = cbct.asd_pocs(projections, geometry, initial=one, iterations=1, projections_per_subset=5, alpha=0.0,
                        lambda_reduction=1.0, hardware="cpu")
    two_flat = cbct.asd_pocs(projections, geometry, VOXELS, VOXEL, iterations=2, projections_per_subset=5, alpha=0.0,
                             lambda_reduction=1.0, hardware="cpu")
    assert one.spacing == two.spacing and one.origin == two.origin
    assert np.array_equal(one.array, two_flat.array)
    assert not np.array_equal(two.array, two_flat.array)  # lambda_red 0.99 changed the second pass


def test_bad_arguments(scan):
    geometry, projections = scan
    with pytest.raises(ValueError, match="alpha is -1"):
        cbct.asd_pocs(projections, geometry, VOXELS, VOXEL, alpha=-1)
    with pytest.raises(ValueError, match="alpha_reduction is 1.5"):
        cbct.asd_pocs(projections, geometry, VOXELS, VOXEL, alpha_reduction=1.5)
    with pytest.raises(ValueError, match="lambda_ is 0"):
        cbct.asd_pocs(projections, geometry, VOXELS, VOXEL, lambda_=0)
    with pytest.raises(ValueError, match="projections_per_subset is 21"):
        cbct.asd_pocs(projections, geometry, VOXELS, VOXEL, projections_per_subset=21)
    with pytest.raises(ValueError, match="tv_iterations is -1"):
        cbct.asd_pocs(projections, geometry, VOXELS, VOXEL, tv_iterations=-1)
    with pytest.raises(ValueError, match="tv_epsilon is -1"):
        cbct.asd_pocs(projections, geometry, VOXELS, VOXEL, tv_epsilon=-1)
    with pytest.raises(ValueError, match="iterations is 0"):
        cbct.admm_tv(projections, geometry, VOXELS, VOXEL, iterations=0)
    with pytest.raises(ValueError, match="beta is 0"):
        cbct.admm_tv(projections, geometry, VOXELS, VOXEL, beta=0)
    with pytest.raises(ValueError, match="cg_iterations is 0"):
        cbct.admm_tv(projections, geometry, VOXELS, VOXEL, cg_iterations=0)
    with pytest.raises(ValueError, match="alpha is nan"):
        cbct.admm_tv(projections, geometry, VOXELS, VOXEL, alpha=float("nan"))
    with pytest.raises(ValueError, match="shape is None"):
        cbct.admm_tv(projections, geometry)
    initial = cbct.Volume(np.zeros((8, 8, 8), np.float32))
    with pytest.raises(ValueError, match="initial and shape are both given"):
        cbct.admm_tv(projections, geometry, VOXELS, initial=initial)
    with pytest.raises(ValueError, match="hardware is 'gpu'"):
        cbct.asd_pocs(projections, geometry, VOXELS, VOXEL, hardware="gpu")
    with pytest.raises(ValueError, match=r"19 projections, but geometry has 20"):
        cbct.admm_tv(cbct.Projections(projections.array[:19], projections.spacing, projections.origin), geometry, VOXELS)
    if not cbct.has_cuda():
        with pytest.raises(ValueError, match="no CUDA"):
            cbct.asd_pocs(projections, geometry, VOXELS, VOXEL, hardware="cuda")


def test_progress_stop_and_gil(scan):
    geometry, projections = scan
    seen = []
    cbct.admm_tv(projections, geometry, VOXELS, VOXEL, iterations=4, cg_iterations=1, hardware="cpu",
                 progress=seen.append)
    assert seen and all(0 <= a < b <= 1 for a, b in zip(seen, seen[1:])), seen
    assert seen[-1] == pytest.approx(1.0)

    class Stop(Exception):
        pass

    def stop(fraction):
        if fraction >= 0.5:
            raise Stop("stopped at %.2f" % fraction)

    with pytest.raises(Stop, match="stopped at 0.50"):
        cbct.asd_pocs(projections, geometry, VOXELS, VOXEL, iterations=4, projections_per_subset=5, hardware="cpu",
                      progress=stop)

    # Another Python thread keeps running while the reconstruction holds no GIL.
    ticks = []
    running = threading.Event()

    def tick():
        running.set()
        while len(ticks) < 1000000 and not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    done = threading.Event()
    thread = threading.Thread(target=tick)
    thread.start()
    running.wait()
    before = len(ticks)
    cbct.asd_pocs(projections, geometry, VOXELS, VOXEL, iterations=2, projections_per_subset=5, hardware="cpu")
    during = len(ticks) - before
    done.set()
    thread.join()
    assert during > 5, during
