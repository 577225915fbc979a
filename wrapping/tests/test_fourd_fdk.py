"""conebeamct.fourd_fdk: frames of a breathing scan place the moving sphere at their phase,
one frame equals fdk, CUDA equals the CPU where a device is present, bad phases are refused."""

import numpy as np
import pytest

import conebeamct as cbct

NPROJ, CYCLES, U, PIXEL, VOXELS, VOXEL = 120, 6, 48, 3.0, 32, 2.0


def _displacement(phase):
    return 5.0 * (1.0 - np.cos(2.0 * np.pi * phase))  # 0 at phase 0, 10 mm at 0.5


@pytest.fixture(scope="module")
def scan(tmp_path_factory):
    """A sphere of radius 8 mm moving along y, projected at each projection's phase."""
    geometry = cbct.Geometry.circular(NPROJ, sid=1000, sdd=1500)
    phases = np.array([(CYCLES * k / NPROJ) % 1.0 for k in range(NPROJ)])
    work = tmp_path_factory.mktemp("fourd")
    slices = []
    for k in range(NPROJ):
        one = cbct.Geometry.circular(1, sid=1000, sdd=1500, first_angle=360.0 * k / NPROJ)
        path = work / f"sphere{k}.txt"
        path.write_text(f"ellipsoid 1.0  0 {_displacement(phases[k])} 0  8 8 8\n")
        slices.append(cbct.project_phantom(one, U, PIXEL, phantom=str(path), scale=1.0).array[0])
    projections = cbct.Projections(np.stack(slices), (PIXEL, PIXEL, 1.0), (-(U - 1) * PIXEL / 2, -(U - 1) * PIXEL / 2, 0.0))
    return geometry, projections, phases


def _centroid_y(volume):
    a = np.asarray(volume)
    mask = a > 0.5 * a.max()
    y = volume.origin[1] + volume.spacing[1] * np.arange(a.shape[1])
    return float((a * mask).sum(axis=(0, 2)) @ y / (a * mask).sum())


def _window_mean(phases, f, frames):
    """The sphere's mean position over frame f's window in time: each projection goes to its nearest
    frame (a phase exactly between two to the lower one) and the projections are equally spaced in
    time, so the mean of the displacements at the frame's projections' phases."""
    nearest = np.mod(np.ceil(phases * frames - 0.5), frames)
    return float(np.mean(_displacement(phases[nearest == f])))


def test_frames_place_the_sphere_at_their_phase(scan):
    geometry, projections, phases = scan
    frames = cbct.fourd_fdk(projections, geometry, phases, VOXELS, VOXEL, frames=4, hardware="cpu")
    assert len(frames) == 4
    for f, volume in enumerate(frames):
        assert volume.array.shape == (VOXELS,) * 3 and np.all(np.isfinite(volume.array))
        assert volume.info["frame"] == f and volume.info["projections_per_frame"] == [30] * 4
        # Where averaging over the window puts it, to a quarter voxel (the centroid's resolution).
        assert _centroid_y(volume) == pytest.approx(_window_mean(phases, f, 4), abs=0.25 * VOXEL)
    mean = cbct.fdk(projections, geometry, VOXELS, VOXEL, hardware="cpu")
    assert _centroid_y(mean) == pytest.approx(5.0, abs=1.5)


def test_one_frame_is_fdk(scan):
    geometry, projections, phases = scan
    (one,) = cbct.fourd_fdk(projections, geometry, phases, VOXELS, VOXEL, frames=1, hardware="cpu")
    reference = cbct.fdk(projections, geometry, VOXELS, VOXEL, hardware="cpu").array
    assert np.linalg.norm(one.array - reference) <= 1e-5 * np.linalg.norm(reference)


def test_field_of_view_is_the_whole_scans(scan):
    """fov='nan': every frame NaN at the same voxels (the whole scan's field of view), the rest as
    without it, bit for bit. 40^3 voxels of 2.5 mm (100 mm) from 48 pixels of 3 mm (96 mm at the axis):
    the corners are outside."""
    geometry, projections, phases = scan
    plain = cbct.fourd_fdk(projections, geometry, phases, 40, 2.5, frames=2, hardware="cpu")
    masked = cbct.fourd_fdk(projections, geometry, phases, 40, 2.5, frames=2, hardware="cpu", fov="nan")
    outside = np.isnan(np.asarray(masked[0]))
    assert outside.sum() > outside.size // 20
    for a, b in zip(plain, masked):
        a, b = np.asarray(a), np.asarray(b)
        assert np.array_equal(np.isnan(b), outside)
        assert np.array_equal(a[~outside], b[~outside])


@pytest.mark.skipif(cbct.cuda_device() is None, reason="no CUDA device")
def test_cuda_equals_cpu(scan):
    geometry, projections, phases = scan
    cpu = np.stack([v.array for v in cbct.fourd_fdk(projections, geometry, phases, VOXELS, VOXEL, frames=4, hardware="cpu")])
    gpu = np.stack([v.array for v in cbct.fourd_fdk(projections, geometry, phases, VOXELS, VOXEL, frames=4, hardware="cuda")])
    assert np.linalg.norm(gpu - cpu) <= 1e-4 * np.linalg.norm(cpu)


@pytest.mark.parametrize(
    "bad, message",
    [
        (lambda p: p[:-1], "119 values; expected one per projection"),
        (lambda p: np.where(np.arange(len(p)) == 5, np.nan, p), r"phases\[5\] is nan"),
        (lambda p: np.where(np.arange(len(p)) == 7, 1.0, p), r"phases\[7\] is 1.0"),
        (lambda p: np.where(np.arange(len(p)) == 2, -0.5, p), r"phases\[2\] is -0.5"),
    ],
)
def test_bad_phases_are_refused(scan, bad, message):
    geometry, projections, phases = scan
    with pytest.raises(ValueError, match=message):
        cbct.fourd_fdk(projections, geometry, bad(phases.copy()), 8, 8.0, frames=4, hardware="cpu")


def test_bad_options_are_refused(scan):
    geometry, projections, phases = scan
    with pytest.raises(ValueError, match="gating_shape is 'gaussian'"):
        cbct.fourd_fdk(projections, geometry, phases, 8, 8.0, gating_shape="gaussian", hardware="cpu")
    with pytest.raises(ValueError, match="gating_window is 2"):
        cbct.fourd_fdk(projections, geometry, phases, 8, 8.0, gating_window=2.0, hardware="cpu")
    with pytest.raises(ValueError, match="without projections"):
        cbct.fourd_fdk(projections, geometry, phases, 8, 8.0, frames=40, hardware="cpu")
