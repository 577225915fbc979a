"""conebeamct.fdk and the phantoms: bit for bit the apps' results, checked inputs, progress, errors."""

import os
import subprocess
import threading

import numpy as np
import pytest

import conebeamct as cbct
from conftest import read_mha

# The problem of the comparison with the apps: 64^3 voxels of 2 mm from 60 projections of 96 x 96
# pixels of 2 mm, the Shepp-Logan head at scale 60 mm.
NPROJ, DETECTOR, PIXEL, VOXELS, VOXEL, SCALE = 60, 96, 2.0, 64, 2.0, 60.0


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


@pytest.fixture(scope="module")
def reference(scan):
    geometry, projections = scan
    return cbct.fdk(projections, geometry, VOXELS, VOXEL, hardware="cpu")


def test_same_as_apps_bit_for_bit(work):
    simulate, fdk_app = _app("cbct-simulate"), _app("cbct-fdk")
    xml, mha = f"{work}/geometry.xml", f"{work}/projections.mha"
    _run(simulate, "-g", xml, "-o", mha, "--nproj", NPROJ, "--detector-size", DETECTOR,
         "--detector-spacing", PIXEL, "--phantom", "shepplogan", "--phantom-scale", SCALE)
    array, spacing, origin = read_mha(mha)
    geometry = cbct.Geometry.read(xml)

    # The same projections from Python.
    simulated = cbct.project_phantom(cbct.Geometry.circular(NPROJ), DETECTOR, PIXEL, scale=SCALE)
    assert simulated.array.shape == (NPROJ, DETECTOR, DETECTOR)
    assert np.array_equal(simulated.array, array)
    assert np.allclose(simulated.spacing, spacing) and np.allclose(simulated.origin, origin)

    projections = cbct.Projections(array, spacing, origin)
    runs = [
        ([], dict()),
        (["--window", "hann", "--cutoff", "0.8", "--divisions", "3"], dict(window="hann", cutoff=0.8, divisions=3)),
        (["--dimension", "48,40,56", "--spacing", "2.5,2,1.5", "--origin", "-50,-30,-41"],
         dict(shape=(56, 40, 48), spacing=(2.5, 2, 1.5), origin=(-50, -30, -41))),
    ]
    for n, (options, keywords) in enumerate(runs):
        output = f"{work}/fdk{n}.mha"
        if "--dimension" not in options:
            options = ["--dimension", VOXELS, "--spacing", VOXEL] + options
        _run(fdk_app, "-g", xml, "--projections", mha, "-o", output, "--hardware", "cpu", *options)
        expected, expected_spacing, expected_origin = read_mha(output)
        arguments = dict(shape=VOXELS, spacing=VOXEL)
        arguments.update(keywords)
        volume = cbct.fdk(projections, geometry, hardware="cpu", **arguments)
        assert volume.array.dtype == np.float32 and volume.array.flags.c_contiguous
        assert volume.array.shape == expected.shape
        assert np.allclose(volume.spacing, expected_spacing) and np.allclose(volume.origin, expected_origin)
        assert np.array_equal(volume.array, expected), f"run {n}: max difference {np.abs(volume.array - expected).max()}"


def test_reconstructs_the_phantom():
    # 180 projections of 128 x 128 pixels of 1.5 mm: mean absolute error about 0.041 in the central
    # region against 2x2x2 supersamples (an empty volume scores 0.43).
    geometry = cbct.Geometry.circular(180)
    volume = cbct.fdk(cbct.project_phantom(geometry, 128, 1.5, scale=SCALE), geometry, VOXELS, VOXEL, hardware="cpu")
    truth = cbct.voxelize_phantom(VOXELS, VOXEL, scale=SCALE, supersampling=2)
    assert truth.array.shape == volume.array.shape == (VOXELS,) * 3
    assert truth.spacing == volume.spacing and truth.origin == volume.origin
    centre = slice(VOXELS // 4, 3 * VOXELS // 4)  # the middle half along y, the rotation axis
    error = np.abs(volume.array[:, centre, :] - truth.array[:, centre, :]).mean()
    assert np.isfinite(error) and error < 0.06, error
    assert volume.info["hardware"] == "cpu"
    assert volume.info["backprojection_s"] > 0


def test_other_dtypes_are_converted(scan, reference):
    geometry, projections = scan
    as_double = projections.array.astype(np.float64)
    volume = cbct.fdk(cbct.Projections(as_double, projections.spacing, projections.origin), geometry, VOXELS, VOXEL,
                      hardware="cpu")
    assert np.array_equal(volume.array, reference.array)
    assert as_double.dtype == np.float64  # the caller's array is untouched

    rounded = np.round(projections.array * 100)
    from_int = cbct.fdk(cbct.Projections(rounded.astype(np.int32), projections.spacing, projections.origin),
                        geometry, VOXELS, VOXEL, hardware="cpu")
    from_float = cbct.fdk(cbct.Projections(rounded.astype(np.float32), projections.spacing, projections.origin),
                          geometry, VOXELS, VOXEL, hardware="cpu")
    assert np.array_equal(from_int.array, from_float.array)

    big_endian = projections.array.astype(">f4")
    volume = cbct.fdk(cbct.Projections(big_endian, projections.spacing, projections.origin), geometry, VOXELS, VOXEL,
                      hardware="cpu")
    assert np.array_equal(volume.array, reference.array)

    with pytest.raises(TypeError, match="complex"):
        cbct.Projections(projections.array.astype(np.complex64), projections.spacing, projections.origin)


def test_non_contiguous_arrays_are_copied(scan, reference):
    geometry, projections = scan
    wide = np.zeros(projections.array.shape[:2] + (2 * DETECTOR,), np.float32)
    wide[:, :, ::2] = projections.array
    strided = wide[:, :, ::2]
    assert not strided.flags.c_contiguous
    for array in (strided, np.asfortranarray(projections.array)):
        volume = cbct.fdk(cbct.Projections(array, projections.spacing, projections.origin), geometry, VOXELS, VOXEL,
                          hardware="cpu")
        assert np.array_equal(volume.array, reference.array)
    # An array that is already right is not copied.
    assert cbct.Projections(projections.array, projections.spacing, projections.origin).array is projections.array


def test_wrong_dimensions_raise(scan):
    geometry, projections = scan
    with pytest.raises(ValueError, match=r"array has shape \(96, 96\); expected 3 dimensions"):
        cbct.Projections(projections.array[0], projections.spacing, projections.origin)
    with pytest.raises(ValueError, match=r"array has shape \(1, 60, 96, 96\); expected 3 dimensions"):
        cbct.Projections(projections.array[None], projections.spacing, projections.origin)
    # An Image whose array was replaced afterwards is checked again.
    tampered = cbct.Projections(projections.array, projections.spacing, projections.origin)
    tampered.array = projections.array[:, :, 0]
    with pytest.raises(ValueError, match=r"array has shape \(60, 96\); expected 3 dimensions"):
        cbct.fdk(tampered, geometry, VOXELS, VOXEL)
    with pytest.raises(ValueError, match=r"array has shape \(0, 96, 96\)"):
        cbct.Projections(projections.array[:0], projections.spacing, projections.origin)
    with pytest.raises(TypeError, match="bare numpy array"):
        cbct.fdk(projections.array, geometry, VOXELS, VOXEL)
    with pytest.raises(ValueError, match=r"59 projections, but geometry has 60"):
        cbct.fdk(cbct.Projections(projections.array[:59], projections.spacing, projections.origin), geometry,
                 VOXELS, VOXEL)
    with pytest.raises(ValueError, match="shape is"):
        cbct.fdk(projections, geometry, (64, 64), VOXEL)
    with pytest.raises(ValueError, match="spacing is"):
        cbct.fdk(projections, geometry, VOXELS, -1.0)
    with pytest.raises(ValueError, match="spacing is"):
        cbct.Projections(projections.array, (1, 1), projections.origin)
    with pytest.raises(ValueError, match="cutoff is"):
        cbct.fdk(projections, geometry, VOXELS, VOXEL, cutoff=1.5)
    with pytest.raises(ValueError, match="hardware is 'gpu'"):
        cbct.fdk(projections, geometry, VOXELS, VOXEL, hardware="gpu")
    if not cbct.has_cuda():
        with pytest.raises(ValueError, match="no CUDA"):
            cbct.fdk(projections, geometry, VOXELS, VOXEL, hardware="cuda")
    with pytest.raises(FileNotFoundError):
        cbct.project_phantom(geometry, DETECTOR, PIXEL, phantom="no_such_phantom.txt")


def test_library_errors_raise_itk_error(scan):
    geometry, projections = scan
    # A window the library does not know: the library's message.
    with pytest.raises(cbct.ITKError, match="bogus"):
        cbct.fdk(projections, geometry, VOXELS, VOXEL, window="bogus")
    # A volume far from the detector's view.
    with pytest.raises(cbct.ITKError) as info:
        cbct.fdk(projections, geometry, VOXELS, VOXEL, origin=(0, 1e5, 0))
    assert isinstance(info.value, RuntimeError) and str(info.value)


def test_progress(scan, reference):
    geometry, projections = scan
    seen = []
    volume = cbct.fdk(projections, geometry, VOXELS, VOXEL, hardware="cpu", divisions=2, progress=seen.append)
    assert np.array_equal(volume.array, reference.array)
    assert len(seen) > 2
    assert all(0 <= a < b <= 1 for a, b in zip(seen, seen[1:])), seen
    assert seen[-1] == pytest.approx(1.0)

    class Stop(Exception):
        pass

    def stop(fraction):
        if fraction > 0.1:
            raise Stop("stopped at %.2f" % fraction)

    with pytest.raises(Stop, match="stopped at"):
        cbct.fdk(projections, geometry, VOXELS, VOXEL, hardware="cpu", progress=stop)
    with pytest.raises(TypeError, match="progress must be callable"):
        cbct.fdk(projections, geometry, VOXELS, VOXEL, progress=3)
    # The library is usable again after an abort.
    assert np.array_equal(cbct.fdk(projections, geometry, VOXELS, VOXEL, hardware="cpu").array, reference.array)


def test_threads_run_concurrently(scan, reference):
    geometry, projections = scan
    results = [None, None]

    def work(i):
        results[i] = cbct.fdk(projections, geometry, VOXELS, VOXEL, hardware="cpu").array

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        assert np.array_equal(r, reference.array)


def test_output_outlives_everything(scan):
    geometry, projections = scan
    array = cbct.fdk(projections, geometry, 16, 8.0, hardware="cpu").array
    del projections
    import gc

    gc.collect()
    assert array.shape == (16, 16, 16) and np.isfinite(array).all() and array.max() > 0.5


def test_phantoms(work):
    path = f"{work}/ellipsoid.txt"
    with open(path, "w") as f:
        f.write("# one ball\nellipsoid 1.0  0 0 0  20 20 20\n")
    volume = cbct.voxelize_phantom((8, 9, 10), spacing=(5, 5, 5), phantom=path)
    assert volume.array.shape == (8, 9, 10)
    assert volume.origin == (-22.5, -20.0, -17.5)
    assert volume.array[4, 4, 5] == 1.0 and volume.array[0, 0, 0] == 0.0
    g = cbct.Geometry.circular(4)
    p = cbct.project_phantom(g, (20, 10), (3, 2), phantom=path)
    assert p.array.shape == (4, 10, 20)
    assert p.spacing == (3.0, 2.0, 1.0) and p.origin == (-28.5, -9.0, 0.0)
    # Through the centre of a ball of radius 20 mm the line integral is its diameter.
    centre = cbct.project_phantom(g, 1, 1.0, phantom=path)
    assert np.allclose(centre.array, 40.0, rtol=1e-6)


def test_field_of_view(scan, reference):
    """fov='nan' / 'zero': the voxels some projection misses are NaN / 0, the others the plain
    reconstruction's bit for bit (96 pixels of 2 mm cover 128 mm at the axis, the 128 mm volume's
    corners and its top and bottom are outside); a bad value raises naming fov."""
    geometry, projections = scan
    plain = np.asarray(reference)
    nan = np.asarray(cbct.fdk(projections, geometry, VOXELS, VOXEL, hardware="cpu", fov="nan"))
    zero = np.asarray(cbct.fdk(projections, geometry, VOXELS, VOXEL, hardware="cpu", fov=True))
    outside = np.isnan(nan)
    assert plain.size // 20 < outside.sum() < plain.size // 2
    assert outside[0, 0, 0] and outside[-1, -1, -1] and not outside[VOXELS // 2, VOXELS // 2, VOXELS // 2]
    assert np.array_equal(nan[~outside], plain[~outside])
    assert np.array_equal(zero[~outside], plain[~outside]) and np.all(zero[outside] == 0)
    with pytest.raises(ValueError, match="fov is 'everything'"):
        cbct.fdk(projections, geometry, VOXELS, VOXEL, hardware="cpu", fov="everything")
