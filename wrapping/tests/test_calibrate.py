"""conebeamct.calibrate: a scan simulated with its axis off and the detector rolled, calibrated from the
nominal geometry (the offset and roll found, the info returned), and its checked arguments."""

import numpy as np
import pytest

import conebeamct as cbct

SID, SDD, PIXEL, VIEWS = 100.0, 500.0, 0.5, 120


def _scan(shift_mm=-0.7, roll=0.4):
    """A micro-CT-like scan: the stage shift_mm off (source and detector offsets alike: the axis
    -shift_mm * SDD / SID / PIXEL pixels off), the detector rolled `roll` degrees."""
    nominal = cbct.Geometry.circular(VIEWS, sid=SID, sdd=SDD)
    truth = cbct.Geometry()
    for k in range(VIEWS):
        truth.add_projection(SID, SDD, 360.0 * k / VIEWS, proj_offset_x=shift_mm, source_offset_x=shift_mm,
                             in_plane_angle=roll)
    projections = cbct.project_phantom(truth, detector_size=96, detector_spacing=PIXEL, scale=6.0)
    return projections, nominal, truth


def test_offset_and_roll_found():
    projections, nominal, truth = _scan()
    calibrated, info = cbct.calibrate(projections, nominal, return_info=True)
    offset = info["parameters"]["offset"]
    roll = info["parameters"]["roll"]
    assert abs(offset["value"] - 7.0) < 0.1, offset
    assert abs(roll["value"] - 0.4) < 0.05, roll
    assert offset["unit"] == "pixels" and roll["unit"] == "degrees"
    assert np.isfinite(offset["uncertainty"])
    # On this small, strongly magnified scan the sharpness refinement strays and the opposite views stand.
    assert info["method"].startswith("opposite views"), info["method"]
    assert info["offset_as"] == "stage"
    assert info["log"] and isinstance(info["warnings"], list)
    # Curves: each with its values, scores and fitted value.
    assert {c["parameter"] for c in info["curves"]} >= {"offset", "roll"}
    for curve in info["curves"]:
        assert len(curve["values"]) == len(curve["scores"]) > 3
    # The calibrated geometry's source and detector offsets are the truth's (the stage model).
    p, t = calibrated.parameters(0), truth.parameters(0)
    assert abs(p["source_offset_x"] - t["source_offset_x"]) < 0.1 * PIXEL * SID / SDD
    assert abs(p["proj_offset_x"] - t["proj_offset_x"]) < 0.1 * PIXEL * SID / SDD
    # Without return_info: a Geometry alone, of as many projections.
    alone = cbct.calibrate(projections, nominal, fit="offset", method="opposite")
    assert isinstance(alone, cbct.Geometry) and len(alone) == VIEWS


def test_detector_model_keeps_the_source():
    projections, nominal, _ = _scan(roll=0.0)
    calibrated = cbct.calibrate(projections, nominal, fit=["offset"], method="opposite", offset_as="detector")
    assert calibrated.parameters(0)["source_offset_x"] == 0.0


def test_arguments_checked():
    projections, nominal, _ = _scan()
    with pytest.raises(ValueError, match="fit holds 'yaw'"):
        cbct.calibrate(projections, nominal, fit="offset,yaw")
    with pytest.raises(ValueError, match="method is 'manual'"):
        cbct.calibrate(projections, nominal, method="manual")
    with pytest.raises(ValueError, match="offset_as is 'table'"):
        cbct.calibrate(projections, nominal, offset_as="table")
    with pytest.raises(ValueError, match="score is 'entropy'"):
        cbct.calibrate(projections, nominal, score="entropy")
    with pytest.raises(ValueError, match="search_range is -1"):
        cbct.calibrate(projections, nominal, search_range=-1)
    with pytest.raises(ValueError, match="projections, but geometry has"):
        cbct.calibrate(projections, cbct.Geometry.circular(10, sid=SID, sdd=SDD))
    with pytest.raises(TypeError):
        cbct.calibrate(projections, "geometry.xml")
    with pytest.raises(cbct.ITKError, match="bead"):
        cbct.calibrate(projections, nominal, method="beads")
    bad = cbct.Projections(projections.array.copy(), projections.spacing, projections.origin)
    bad.array[3, 4, 5] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        cbct.calibrate(bad, nominal)
