"""conebeamct.fourd_rooster (4D ROOSTER): one frame without regularisation is CGLS bit for
bit; main iterations chain (two calls of one iteration are one call of two); the frames follow the
phases; phases, masks and initial frames from numpy, torch and CuPy; bad arguments refused by name."""

import numpy as np
import pytest

import conebeamct as cbct

NPROJ, U, V, PIXEL, VOXELS, VOXEL, SCALE = 24, 32, 28, 3.0, 16, 4.0, 25.0
GRID = dict(shape=VOXELS, spacing=VOXEL)


@pytest.fixture(scope="module")
def scan():
    geometry = cbct.Geometry.circular(NPROJ, sid=500, sdd=800)
    projections = cbct.project_phantom(geometry, (U, V), PIXEL, scale=SCALE)
    phases = [(3.3 * k / NPROJ) % 1.0 for k in range(NPROJ)]
    return geometry, projections, phases


def test_one_frame_is_cgls(scan):
    geometry, projections, phases = scan
    frames = cbct.fourd_rooster(projections, geometry, phases, frames=1, iterations=1, cg_iterations=4,
                                positivity=False, hardware="cpu", **GRID)
    assert len(frames) == 1
    cgls = cbct.cgls(projections, geometry, iterations=4, hardware="cpu", **GRID)
    assert frames[0].spacing == cgls.spacing and frames[0].origin == cgls.origin
    assert np.all(np.isfinite(frames[0].array)) and np.abs(frames[0].array).max() > 0.01
    np.testing.assert_array_equal(frames[0].array, cgls.array)
    assert frames[0].info["projections_per_frame"] == [NPROJ]
    assert frames[0].info["residual_norms"][0] == pytest.approx(cgls.info["residual_norms"][-1], rel=1e-6)


def test_iterations_chain_and_frames(scan):
    geometry, projections, phases = scan
    options = dict(frames=3, cg_iterations=2, tv_iterations=3, gamma_space=0.002, gamma_time=0.002, hardware="cpu")
    two = cbct.fourd_rooster(projections, geometry, phases, iterations=2, **options, **GRID)
    assert len(two) == 3 and [v.info["frame"] for v in two] == [0, 1, 2]
    assert two[1].info["phase"] == pytest.approx(1 / 3)
    assert sum(two[0].info["projections_per_frame"]) >= NPROJ  # each projection sees one or two frames
    assert len(two[0].info["residual_norms"]) == 2
    for volume in two:
        assert volume.array.shape == (VOXELS,) * 3 and volume.array.dtype == np.float32
        assert np.all(np.isfinite(volume.array)) and volume.array.min() >= 0.0  # positivity
    one = cbct.fourd_rooster(projections, geometry, phases, iterations=1, **options, **GRID)
    # A main iteration starts its conjugate gradients afresh from the frames: continuing from one
    # iteration's frames is the second iteration.
    again = cbct.fourd_rooster(projections, geometry, phases, initial=one, iterations=1, **options)
    for a, b in zip(again, two):
        np.testing.assert_array_equal(a.array, b.array)
    # The same from a 4D numpy array on the grid.
    stacked = np.stack([v.array for v in one])
    from_array = cbct.fourd_rooster(projections, geometry, phases, initial=stacked, iterations=1,
                                    spacing=VOXEL, **{k: v for k, v in options.items()})
    for a, b in zip(from_array, two):
        np.testing.assert_array_equal(a.array, b.array)


def test_motion_mask_averages_outside(scan):
    geometry, projections, phases = scan
    mask = np.zeros((VOXELS,) * 3, np.float32)
    mask[:, :, VOXELS // 2:] = 1.0
    frames = cbct.fourd_rooster(projections, geometry, phases, frames=3, iterations=1, cg_iterations=2,
                                motion_mask=mask, hardware="cpu", **GRID)
    stack = np.stack([v.array for v in frames])
    outside = stack[:, :, :, : VOXELS // 2]
    assert np.array_equal(outside[0], outside[1]) and np.array_equal(outside[0], outside[2])
    assert np.abs(stack[0, :, :, VOXELS // 2:] - stack[1, :, :, VOXELS // 2:]).max() > 0.0


def test_torch_and_cupy_inputs(scan):
    geometry, projections, phases = scan
    reference = cbct.fourd_rooster(projections, geometry, phases, frames=2, iterations=1, cg_iterations=2,
                                   hardware="cpu", **GRID)
    mask = np.ones((VOXELS,) * 3, np.float32)
    torch = pytest.importorskip("torch")
    frames = cbct.fourd_rooster(projections, geometry, torch.tensor(phases), frames=2, iterations=1, cg_iterations=2,
                                motion_mask=torch.from_numpy(mask), hardware="cpu", **GRID)
    for a, b in zip(frames, reference):
        np.testing.assert_array_equal(a.array, b.array)
    try:
        import cupy
        cupy.zeros(1)
    except Exception:
        pytest.skip("no CuPy with a device")
    frames = cbct.fourd_rooster(projections, geometry, cupy.asarray(phases), frames=2, iterations=1, cg_iterations=2,
                                motion_mask=cupy.asarray(mask), hardware="cpu", **GRID)
    for a, b in zip(frames, reference):
        np.testing.assert_array_equal(a.array, b.array)


def test_cuda_matches_cpu(scan):
    if cbct.cuda_device() is None:
        pytest.skip("no CUDA device")
    geometry, projections, phases = scan
    options = dict(frames=3, iterations=2, cg_iterations=2, gamma_space=0.002, gamma_time=0.002, **GRID)
    cpu = cbct.fourd_rooster(projections, geometry, phases, hardware="cpu", **options)
    gpu = cbct.fourd_rooster(projections, geometry, phases, hardware="cuda", **options)
    a, b = np.stack([v.array for v in gpu]), np.stack([v.array for v in cpu])
    assert np.linalg.norm(a - b) <= 1e-3 * np.linalg.norm(b)


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(phases=[0.5] * (NPROJ - 1)), "phases has shape"),
        (dict(phases=[1.0] * NPROJ), r"phases\[0\] is 1.0"),
        (dict(phases=[float("nan")] * NPROJ), r"phases\[0\] is nan"),
        (dict(frames=0), "frames is 0"),
        (dict(iterations=0), "iterations is 0"),
        (dict(cg_iterations=0), "cg_iterations is 0"),
        (dict(tv_iterations=0), "tv_iterations is 0"),
        (dict(gamma_space=-1.0), "gamma_space is -1.0"),
        (dict(gamma_time=float("inf")), "gamma_time is inf"),
        (dict(projector="emission"), "projector is 'emission'"),
        (dict(motion_mask=np.ones((4, 4, 4))), "motion_mask has shape"),
        (dict(hardware="gpu"), "hardware is 'gpu'"),
        (dict(shape=None), "shape is None"),
        (dict(initial=np.zeros((3, VOXELS, VOXELS, VOXELS), np.float32), shape=None), r"frames is 2; expected the number of initial frames \(3\)"),
        (dict(initial=np.zeros((2, VOXELS, VOXELS), np.float32), shape=None), "initial has shape"),
    ],
)
def test_bad_arguments(scan, change, message):
    geometry, projections, phases = scan
    arguments = dict(phases=phases, frames=2, iterations=1, cg_iterations=1, hardware="cpu", **GRID)
    arguments.update(change)
    with pytest.raises(ValueError, match=message):
        cbct.fourd_rooster(projections, geometry, **arguments)
