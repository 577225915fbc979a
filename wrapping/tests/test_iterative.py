"""conebeamct.sart/sirt/cgls/osem: the apps' bits, progress, the GIL released, checked inputs."""

import threading
import time

import numpy as np
import pytest

import conebeamct as cbct
from conftest import read_mha, run_app

NPROJ, DETECTOR, PIXEL, VOXELS, VOXEL, SCALE = 30, 40, 2.0, 24, 2.5, 25.0


@pytest.fixture(scope="module")
def scan():
    geometry = cbct.Geometry.circular(NPROJ, sid=600, sdd=900)
    return geometry, cbct.project_phantom(geometry, DETECTOR, PIXEL, scale=SCALE)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The scan written by cbct-simulate (geometry XML and projections .mha)."""
    work = tmp_path_factory.mktemp("iterative")
    xml, mha = f"{work}/geometry.xml", f"{work}/projections.mha"
    run_app("cbct-simulate", "-g", xml, "-o", mha, "--nproj", NPROJ, "--sid", 600, "--sdd", 900, "--detector-size",
            DETECTOR, "--detector-spacing", PIXEL, "--phantom-scale", SCALE)
    return work, xml, mha


RUNS = [
    ("cbct-sart", [], cbct.sart, dict()),
    ("cbct-sart", ["--nprojpersubset", 5, "--lambda", 0.5, "--positivity"], cbct.sart,
     dict(projections_per_subset=5, lambda_=0.5, positivity=True)),
    ("cbct-sart", ["--nprojpersubset", 0, "--fp", "raycast", "--step", 1.1, "--bp", "voxel"], cbct.sart,
     dict(projections_per_subset=0, projector="raycast", step=1.1, backprojector="voxel")),
    ("cbct-cgls", [], cbct.cgls, dict()),
    ("cbct-cgls", ["--fp", "raycast"], cbct.cgls, dict(projector="raycast")),
    ("cbct-osem", [], cbct.osem, dict()),
    ("cbct-osem", ["--nprojpersubset", 6, "--bp", "voxel"], cbct.osem, dict(projections_per_subset=6, backprojector="voxel")),
]


@pytest.mark.parametrize("app, options, function, keywords", RUNS,
                         ids=[f"{r[0]}{'_' + '_'.join(map(str, r[1])) if r[1] else ''}" for r in RUNS])
def test_same_as_apps(files, app, options, function, keywords):
    work, xml, mha = files
    output = f"{work}/{app}.mha"
    run_app(app, "-g", xml, "--projections", mha, "-o", output, "--dimension", VOXELS, "--spacing", VOXEL,
            "--niterations", 2, "--hardware", "cpu", *options)
    expected, spacing, origin = read_mha(output)
    array, pspacing, porigin = read_mha(mha)
    volume = function(cbct.Projections(array, pspacing, porigin), cbct.Geometry.read(xml), VOXELS, VOXEL, iterations=2,
                      **keywords)
    assert volume.array.shape == expected.shape == (VOXELS,) * 3
    assert np.allclose(volume.spacing, spacing) and np.allclose(volume.origin, origin)
    assert np.array_equal(volume.array, expected), np.abs(volume.array - expected).max()
    assert volume.info["iterations"] == 2 and len(volume.info["iteration_s"]) == 2
    assert np.abs(volume.array).max() > 0.1  # something was reconstructed


def test_reconstructs_and_converges(scan):
    geometry, projections = scan
    truth = cbct.voxelize_phantom(VOXELS, VOXEL, scale=SCALE, supersampling=2).array
    empty_error = np.abs(truth).mean()
    # Mean absolute errors measured on this coarse problem (the empty volume: 0.195): OS-SART 3
    # iterations 0.100, SIRT 10 iterations (lambda 1) 0.059, CGLS 5 iterations 0.050, OSEM 3 iterations 0.031.
    for function, keywords, bound in [(cbct.sart, dict(projections_per_subset=5, iterations=3), 0.12),
                                      (cbct.sirt, dict(iterations=10, lambda_=1.0), 0.07),
                                      (cbct.cgls, dict(iterations=5), 0.06), (cbct.osem, dict(projections_per_subset=5, iterations=3), 0.04)]:
        volume = function(projections, geometry, VOXELS, VOXEL, **keywords)
        error = np.abs(volume.array - truth).mean()
        assert np.isfinite(error) and error < bound < empty_error, (function.__name__, error, empty_error)
    volume = cbct.cgls(projections, geometry, VOXELS, VOXEL, iterations=4)
    norms = volume.info["residual_norms"]
    assert len(norms) == 4 and all(b < a for a, b in zip([volume.info["initial_residual_norm"]] + norms, norms))
    # An initial volume: two iterations then two more equal four (SART is deterministic).
    two = cbct.sart(projections, geometry, VOXELS, VOXEL, iterations=2)
    four = cbct.sart(projections, geometry, VOXELS, VOXEL, iterations=4)
    again = cbct.sart(projections, geometry, initial=two, iterations=2)
    assert np.array_equal(again.array, four.array)


def test_progress_and_abort(scan):
    geometry, projections = scan
    seen = []
    cbct.sart(projections, geometry, VOXELS, VOXEL, iterations=3, progress=seen.append)
    assert seen and all(b > a for a, b in zip(seen, seen[1:])) and 0 <= seen[0] and seen[-1] == pytest.approx(1.0)

    class Stop(Exception):
        pass

    def stop(fraction):
        if fraction > 0.3:
            raise Stop("enough")

    with pytest.raises(Stop, match="enough"):
        cbct.cgls(projections, geometry, VOXELS, VOXEL, iterations=5, progress=stop)
    with pytest.raises(TypeError, match="progress must be callable"):
        cbct.osem(projections, geometry, VOXELS, VOXEL, progress=3)


def test_gil_is_released(scan):
    """A second Python thread keeps running while a reconstruction works."""
    geometry, projections = scan
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    thread = threading.Thread(target=count)
    thread.start()
    try:
        start = time.perf_counter()
        cbct.sart(projections, geometry, 32, 2.0, iterations=4)
        stop = time.perf_counter()
    finally:
        done.set()
        thread.join()
    during = [t for t in ticks if start < t < stop]
    # With the GIL held the thread could not tick at all during the call; released, it ticks every
    # millisecond or so (at least a tenth of that on a loaded machine).
    assert len(during) > 0.1 * (stop - start) / 0.001, (len(during), stop - start)


def test_inputs_are_checked(scan):
    geometry, projections = scan
    with pytest.raises(ValueError, match=r"projections has shape \(29, 40, 40\), 29 projections, but geometry has 30"):
        cbct.sart(cbct.Projections(projections.array[1:], projections.spacing, projections.origin), geometry, VOXELS)
    with pytest.raises(TypeError, match="bare numpy array"):
        cbct.cgls(projections.array, geometry, VOXELS)
    with pytest.raises(ValueError, match="shape is None"):
        cbct.osem(projections, geometry)
    with pytest.raises(ValueError, match="initial and shape"):
        cbct.sart(projections, geometry, VOXELS, initial=cbct.Volume(np.zeros((4, 4, 4))))
    with pytest.raises(ValueError, match="iterations is 0"):
        cbct.sart(projections, geometry, VOXELS, iterations=0)
    with pytest.raises(ValueError, match="lambda_ is -1"):
        cbct.sart(projections, geometry, VOXELS, lambda_=-1)
    with pytest.raises(ValueError, match="projections_per_subset is 31"):
        cbct.sart(projections, geometry, VOXELS, projections_per_subset=31)
    with pytest.raises(ValueError, match="backprojector is 'x'"):
        cbct.osem(projections, geometry, VOXELS, backprojector="x")
    with pytest.raises(ValueError, match="devices is"):
        cbct.sart(projections, geometry, VOXELS, devices=[0])
    bad = projections.array.copy()
    bad[2, 3, 4] = np.nan
    with pytest.raises(ValueError, match="projections has NaN or infinite values"):
        cbct.sart(cbct.Projections(bad, projections.spacing, projections.origin), geometry, VOXELS)
    bad[2, 3, 4] = -1
    # OSEM's own check names the pixel.
    with pytest.raises(cbct.ITKError, match="non-negative projections"):
        cbct.osem(cbct.Projections(bad, projections.spacing, projections.origin), geometry, VOXELS)
    with pytest.raises(cbct.ITKError, match="OSEM's update is multiplicative"):
        cbct.osem(projections, geometry, initial=cbct.Volume(-np.ones((VOXELS,) * 3), (VOXEL,) * 3))
    if not cbct.has_cuda_arrays():
        with pytest.raises(ValueError, match="hardware is 'cuda' but this build of ConeBeamCT has no CUDA"):
            cbct.sart(projections, geometry, VOXELS, hardware="cuda")
