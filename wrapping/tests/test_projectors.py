"""conebeamct.Projector, forward_project, back_project: cbct-forward's bits, the adjoint, checked arrays,
host DLPack, and the CUDA-array paths refused clearly by a CPU build or a CPU projector."""

import numpy as np
import pytest

import conebeamct as cbct
from conftest import read_mha, run_app, write_mha

NPROJ, DETECTOR, PIXEL, VOXELS, VOXEL = 24, 40, 2.0, 24, 2.5


@pytest.fixture(scope="module")
def scan():
    geometry = cbct.Geometry.circular(NPROJ, sid=600, sdd=900)
    volume = cbct.voxelize_phantom(VOXELS, VOXEL, scale=25, supersampling=2)
    return geometry, volume


@pytest.mark.parametrize("projector", ["joseph", "raycast"])
def test_forward_project_same_as_app(work, scan, projector):
    geometry, volume = scan
    xml, mha, out = f"{work}/geometry.xml", f"{work}/volume.mha", f"{work}/forward.mha"
    geometry.write(xml)
    write_mha(mha, volume.array, volume.spacing, volume.origin)
    run_app("cbct-forward", "-g", xml, "-i", mha, "-o", out, "--dimension", f"{DETECTOR},{DETECTOR - 8}", "--spacing",
            f"{PIXEL},{PIXEL * 1.25}", "--fp", projector, "--step", 0.7 if projector == "raycast" else 0)
    expected, spacing, origin = read_mha(out)
    projections = cbct.forward_project(volume, cbct.Geometry.read(xml), (DETECTOR, DETECTOR - 8), (PIXEL, PIXEL * 1.25),
                                       projector=projector, step=0.7 if projector == "raycast" else 0)
    assert isinstance(projections, cbct.Projections)
    assert projections.array.shape == expected.shape == (NPROJ, DETECTOR - 8, DETECTOR)
    assert np.allclose(projections.spacing, spacing) and np.allclose(projections.origin, origin)
    assert np.array_equal(projections.array, expected), np.abs(projections.array - expected).max()
    assert projections.array.max() > 1  # not an empty detector


@pytest.mark.parametrize("projector", ["joseph", "raycast"])
def test_back_is_the_adjoint(scan, projector):
    geometry, _ = scan
    A = cbct.Projector(geometry, (20, 24, 28), (DETECTOR, 36), (2.0, 2.5, 1.5), (PIXEL, 2.2), projector=projector)
    assert A.volume_shape == (20, 24, 28) and A.projection_shape == (NPROJ, 36, DETECTOR)
    rng = np.random.default_rng(1)
    x = rng.random(A.volume_shape, dtype=np.float32)
    y = rng.random(A.projection_shape, dtype=np.float32)
    Ax, ATy = A.forward(x), A.back(y)
    assert Ax.dtype == np.float32 and Ax.shape == A.projection_shape and ATy.shape == A.volume_shape
    left = np.vdot(Ax.astype(np.float64), y)
    right = np.vdot(x.astype(np.float64), ATy)
    assert left > 0 and abs(left / right - 1) <= 1e-3, (left, right)
    # back_project(): the same numbers through the image API.
    p = cbct.Projections(y, (PIXEL, 2.2, 1.0), A.detector_origin + (0.0,))
    v = cbct.back_project(p, geometry, (20, 24, 28), (2.0, 2.5, 1.5), projector=projector)
    assert isinstance(v, cbct.Volume) and np.array_equal(v.array, ATy)


def test_voxel_backprojector(scan):
    geometry, volume = scan
    adjoint = cbct.Projector(geometry, VOXELS, DETECTOR, VOXEL, PIXEL)
    voxel = cbct.Projector(geometry, VOXELS, DETECTOR, VOXEL, PIXEL, backprojector="voxel")
    y = adjoint.forward(volume.array)
    assert np.array_equal(voxel.forward(volume.array), y)  # the same forward projector
    a, b = adjoint.back(y).astype(np.float64), voxel.back(y).astype(np.float64)
    # Another operator than the transpose, but backprojecting the same rays: the two volumes are
    # close in direction (measured cosine 0.99) and not equal.
    cosine = np.vdot(a, b) / np.linalg.norm(a) / np.linalg.norm(b)
    assert cosine > 0.95 and not np.array_equal(a, b), cosine


def test_images_and_grids(scan):
    geometry, volume = scan
    A = cbct.Projector(geometry, VOXELS, DETECTOR, VOXEL, PIXEL)
    projections = A.forward(volume)
    assert isinstance(projections, cbct.Projections)
    assert np.array_equal(projections.array, A.forward(volume.array))
    assert projections.spacing == (PIXEL, PIXEL, 1.0)
    back = A.back(projections)
    assert isinstance(back, cbct.Volume) and back.spacing == volume.spacing and back.origin == volume.origin
    same = cbct.Projector.for_images(geometry, volume, projections)
    assert np.array_equal(same.forward(volume.array), projections.array)
    moved = cbct.Volume(volume.array, volume.spacing, tuple(o + 1 for o in volume.origin))
    with pytest.raises(ValueError, match="this projector's grid"):
        A.forward(moved)


def test_arrays_are_checked(scan):
    geometry, volume = scan
    A = cbct.Projector(geometry, VOXELS, DETECTOR, VOXEL, PIXEL)
    x = volume.array
    expected = A.forward(x)
    assert np.array_equal(A.forward(x.astype(np.float64)), expected)  # other real dtypes are converted
    assert np.array_equal(A.forward(np.asfortranarray(x)), expected)  # and non-contiguous arrays copied
    with pytest.raises(ValueError, match=r"volume has shape \(24, 24, 23\); expected \(24, 24, 24\)"):
        A.forward(x[:, :, 1:])
    with pytest.raises(ValueError, match=r"volume has shape \(24, 24\); expected 3 dimensions"):
        A.forward(x[0])
    with pytest.raises(ValueError, match="no empty axis"):
        A.forward(x[:0])
    with pytest.raises(TypeError, match="complex"):
        A.forward(x.astype(np.complex64))
    with pytest.raises(TypeError, match="volume is a str"):
        A.forward("volume.mha")
    bad = x.copy()
    bad[3, 4, 5] = np.nan
    with pytest.raises(ValueError, match="volume has NaN or infinite values"):
        A.forward(bad)
    bad[3, 4, 5] = np.inf
    with pytest.raises(ValueError, match="NaN or infinite"):
        A.back(np.full(A.projection_shape, np.inf, np.float32))
    with pytest.raises(ValueError, match=r"projections has shape \(23, 40, 40\); expected \(24, 40, 40\)"):
        A.back(expected[1:])
    for keywords, message in [
        (dict(projector="siddon"), "projector is 'siddon'; expected 'joseph' or 'raycast'"),
        (dict(backprojector="pixel"), "backprojector is 'pixel'"),
        (dict(step=-1), "step is -1"),
        (dict(hardware="gpu"), "hardware is 'gpu'"),
        (dict(device=-2), "device is -2"),
    ]:
        with pytest.raises(ValueError, match=message):
            cbct.Projector(geometry, VOXELS, DETECTOR, VOXEL, PIXEL, **keywords)
    with pytest.raises(ValueError, match="shape is 0"):
        cbct.Projector(geometry, 0, DETECTOR)
    with pytest.raises(ValueError, match="geometry has no projections"):
        cbct.Projector(cbct.Geometry(), VOXELS, DETECTOR)
    with pytest.raises(TypeError, match="geometry is a str"):
        cbct.Projector("geometry.xml", VOXELS, DETECTOR)


class _DLPackOnly:
    """Offers an array through DLPack alone (as a PyTorch CPU tensor does), to test that path without PyTorch."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def test_host_dlpack(scan):
    geometry, volume = scan
    A = cbct.Projector(geometry, VOXELS, DETECTOR, VOXEL, PIXEL)
    expected = A.forward(volume.array)
    result = A._operator.forward(_DLPackOnly(volume.array))
    assert isinstance(result, np.ndarray) and np.array_equal(result, expected)
    with pytest.raises(TypeError, match="DLPack dtype of code 2, 64 bits; expected float32"):
        A._operator.forward(_DLPackOnly(volume.array.astype(np.float64)))
    wide = np.zeros((VOXELS, VOXELS, 2 * VOXELS), np.float32)
    with pytest.raises(TypeError, match="not C-contiguous"):
        A._operator.forward(_DLPackOnly(wide[:, :, ::2]))
    with pytest.raises(ValueError, match=r"volume has shape \(24, 24, 48\); expected \(24, 24, 24\)"):
        A._operator.forward(_DLPackOnly(wide))


class _FakeCudaArray:
    """An object claiming to be a CUDA array (its pointer is never read by a CPU build or a CPU projector)."""

    def __init__(self, shape, typestr="<f4", strides=None):
        self.__cuda_array_interface__ = dict(shape=shape, typestr=typestr, data=(0, False), version=3, strides=strides)


def test_cuda_arrays_refused_clearly(scan):
    geometry, _ = scan
    A = cbct.Projector(geometry, VOXELS, DETECTOR, VOXEL, PIXEL)
    shape = (VOXELS,) * 3
    with pytest.raises(TypeError, match=r"dtype '<f8'.*expected float32"):
        A._operator.forward(_FakeCudaArray(shape, "<f8"))
    with pytest.raises(TypeError, match="not C-contiguous"):
        A._operator.forward(_FakeCudaArray(shape, strides=(4, 4 * VOXELS, 4 * VOXELS * VOXELS)))
    with pytest.raises(ValueError, match=r"volume has shape \(24, 24\); expected 3 dimensions"):
        A._operator.forward(_FakeCudaArray(shape[:2]))
    if not cbct.has_cuda_arrays():
        with pytest.raises(TypeError, match="no CUDA"):
            A.forward(_FakeCudaArray(shape))
        with pytest.raises(ValueError, match="hardware is 'cuda' but this build of ConeBeamCT has no CUDA"):
            cbct.Projector(geometry, VOXELS, DETECTOR, VOXEL, PIXEL, hardware="cuda")
