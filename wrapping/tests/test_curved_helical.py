"""Cylindrical detectors and helical orbits from Python: the geometry's radius and helix, and FDK of both."""

import numpy as np
import pytest

import conebeamct as cbct

# 64^3 voxels of 2 mm from 90 projections of 96 x 96 pixels of 2 mm, the Shepp-Logan head at 60 mm.
NPROJ, DETECTOR, PIXEL, VOXELS, VOXEL, SCALE = 90, 96, 2.0, 64, 2.0, 60.0


def _central_error(volume):
    truth = cbct.voxelize_phantom(VOXELS, VOXEL, scale=SCALE, supersampling=2)
    centre = slice(VOXELS // 4, 3 * VOXELS // 4)  # the middle half along y, the rotation axis
    return np.abs(volume.array[:, centre, :] - truth.array[:, centre, :]).mean()


def test_radius_is_kept_checked_and_written(tmp_path):
    g = cbct.Geometry.circular(8, sid=1000, sdd=1500)
    assert g.radius_cylindrical_detector == 0
    g.radius_cylindrical_detector = 1500
    g.write(str(tmp_path / "curved.xml"))
    assert "<RadiusCylindricalDetector>1500</RadiusCylindricalDetector>" in (tmp_path / "curved.xml").read_text()
    assert cbct.Geometry.read(str(tmp_path / "curved.xml")).radius_cylindrical_detector == 1500
    # SDD 1500: a cylinder of radius 500 has its axis 1000 mm from the source, which is outside it.
    with pytest.raises(cbct.ITKError, match="RadiusCylindricalDetector 500 mm with projection 0 is a cylinder the "
                                            "source is not inside"):
        g.radius_cylindrical_detector = 500
    assert g.radius_cylindrical_detector == 1500, "a refused radius is not kept"
    with pytest.raises(cbct.ITKError, match="parallel beam"):
        cbct.Geometry.circular(4, sdd=0).radius_cylindrical_detector = 1000


def test_a_helix_is_recognised_with_its_feed():
    helix = cbct.Geometry()
    for k in range(120):  # 4 turns, 30 views a turn, the table 20 mm a turn
        table = 20.0 * k / 30 - 40.0
        helix.add_projection(1000, 1500, 12.0 * k, proj_offset_y=table, source_offset_y=table)
    assert helix.is_helical()
    assert helix.helical_feed() == pytest.approx(20.0, rel=1e-6)
    circle = cbct.Geometry.circular(120, arc=360)
    assert not circle.is_helical()
    assert circle.helical_feed() == pytest.approx(0.0, abs=1e-9)


def test_fdk_on_a_cylinder_centred_on_the_source_as_on_a_flat_panel():
    errors = {}
    for radius in (0, 1500):
        geometry = cbct.Geometry.circular(NPROJ, sid=1000, sdd=1500)
        geometry.radius_cylindrical_detector = radius
        projections = cbct.project_phantom(geometry, DETECTOR, PIXEL, scale=SCALE)
        volume = cbct.fdk(projections, geometry, VOXELS, VOXEL, hardware="cpu")
        errors[radius] = _central_error(volume)
    assert np.isfinite(errors[0]) and errors[0] < 0.07, errors
    assert errors[1500] <= 1.05 * errors[0], errors
