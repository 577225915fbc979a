"""CUDA arrays (PyTorch tensors, CuPy arrays) through the projectors on their device, and the CUDA
iterative methods. Skipped without a CUDA build and device; the PyTorch and CuPy parts each without
their package."""

import numpy as np
import pytest

import conebeamct as cbct

pytestmark = pytest.mark.skipif(
    not cbct.has_cuda_arrays() or cbct.cuda_device() is None,
    reason="no CUDA: this build has no CUDA" if not cbct.has_cuda_arrays() else "no CUDA device present",
)

NPROJ, DETECTOR, PIXEL, VOXELS, VOXEL = 40, 64, 2.0, 48, 2.0


# CUDA's forward projectors sample through the texture unit, whose bilinear weights have 8 fraction
# bits: against the CPU's exact weights that is 1.8e-4 on this phantom with the ray caster (H100). The
# C++ tests hold the texture paths to 5e-4 (cbctCudaFDKTest's HardwareFilterTolerance); so do these.
TEXTURE_TOLERANCE = 5e-4


def _forward_name(projector):
    """The forward projector's name ("joseph" or "raycast") from the projector's description."""
    return "raycast" if "raycast" in repr(projector) else "joseph"


def _relative(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return np.linalg.norm(a - b) / np.linalg.norm(b)


@pytest.fixture(scope="module")
def problem():
    geometry = cbct.Geometry.circular(NPROJ, sid=600, sdd=900)
    volume = cbct.voxelize_phantom(VOXELS, VOXEL, scale=40, supersampling=2)
    return geometry, volume


@pytest.fixture(scope="module", params=["joseph", "raycast"])
def projectors(problem, request):
    geometry, _ = problem
    make = lambda hardware: cbct.Projector(geometry, VOXELS, DETECTOR, VOXEL, PIXEL, projector=request.param,
                                           hardware=hardware)
    return make("cpu"), make("cuda")


def test_host_arrays_on_a_cuda_projector(problem, projectors):
    _, volume = problem
    cpu, cuda = projectors
    assert cuda.hardware == "cuda:0"
    y = cuda.forward(volume.array)
    assert isinstance(y, np.ndarray) and y.shape == cpu.projection_shape
    assert _relative(y, cpu.forward(volume.array)) <= TEXTURE_TOLERANCE
    assert _relative(cuda.back(y), cpu.back(y)) <= TEXTURE_TOLERANCE


def test_torch_tensors_stay_on_the_device(problem, projectors):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA")
    _, volume = problem
    cpu, cuda = projectors
    x = torch.from_numpy(volume.array).cuda()
    y = cuda.forward(x)
    assert isinstance(y, torch.Tensor) and y.is_cuda and y.dtype == torch.float32 and y.shape == cuda.projection_shape
    # The device path computes exactly what the upload path computes.
    assert np.array_equal(y.cpu().numpy(), cuda.forward(volume.array))
    back = cuda.back(y)
    # The ray caster's exact adjoint scatters with atomic adds, whose order (so the float rounding)
    # changes from run to run: equal to rounding there, bit for bit for Joseph's gather.
    if _forward_name(cuda) == "raycast":
        assert back.is_cuda and _relative(back.cpu().numpy(), cuda.back(y.cpu().numpy())) <= 1e-6
    else:
        assert back.is_cuda and np.array_equal(back.cpu().numpy(), cuda.back(y.cpu().numpy()))

    class DLPackOnly:  # the DLPack path (a tensor offers __cuda_array_interface__ first)
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, stream=None):
            return self.t.__dlpack__()

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    z = cuda._operator.forward(DLPackOnly(x))
    assert isinstance(z, cbct.DeviceArray) and z.device == 0
    assert torch.equal(torch.from_dlpack(z), y)

    with pytest.raises(TypeError, match="float32"):
        cuda.forward(x.double())
    with pytest.raises(TypeError, match="not C-contiguous"):
        cuda.forward(x.transpose(0, 2))
    bad = x.clone()
    bad[1, 2, 3] = float("nan")
    with pytest.raises(ValueError, match="volume has NaN or infinite values"):
        cuda.forward(bad)
    with pytest.raises(ValueError, match="this projector is on the CPU"):
        cpu.forward(x)


def test_cupy_arrays_stay_on_the_device(problem, projectors):
    cupy = pytest.importorskip("cupy")
    _, volume = problem
    _, cuda = projectors
    x = cupy.asarray(volume.array)
    y = cuda.forward(x)
    assert isinstance(y, cupy.ndarray) and y.dtype == cupy.float32 and y.shape == cuda.projection_shape
    assert np.array_equal(cupy.asnumpy(y), cuda.forward(volume.array))
    # A DeviceArray is taken by CuPy without a copy.
    raw = cuda._operator.forward(x)
    view = cupy.asarray(raw)
    assert view.data.ptr == raw.__cuda_array_interface__["data"][0]
    with pytest.raises(TypeError, match="float32"):
        cuda.forward(x.astype(cupy.float64))
    inf = x.copy()
    inf[0, 0, 0] = cupy.inf
    with pytest.raises(ValueError, match="NaN or infinite"):
        cuda.forward(inf)


def test_iterative_on_cuda(problem):
    geometry, volume = problem
    projections = cbct.forward_project(volume, geometry, DETECTOR, PIXEL)
    for function, keywords in [(cbct.sart, dict(projections_per_subset=5)), (cbct.cgls, {}), (cbct.osem, {})]:
        cpu = function(projections, geometry, VOXELS, VOXEL, iterations=2, **keywords)
        cuda = function(projections, geometry, VOXELS, VOXEL, iterations=2, hardware="cuda", **keywords)
        difference = _relative(cuda.array, cpu.array)
        print(function.__name__, "CUDA vs CPU relative L2 difference", difference)
        assert difference <= 1e-4, (function.__name__, difference)
    cupy = pytest.importorskip("cupy")
    with pytest.raises(TypeError, match="host"):
        cbct._conebeamct._iterate("sart", cupy.asarray(projections.array), projections.spacing, projections.origin,
                                  geometry, np.zeros((VOXELS,) * 3, np.float32), (VOXEL,) * 3, (0.0,) * 3, 1, 0.3, 1,
                                  False, "joseph", "adjoint", 0.0, "cuda", [], None)
