"""conebeamct.Geometry: construction, parameters, matrices and RTK XML round trips."""

import numpy as np
import pytest

import conebeamct as cbct


def test_circular_matches_add_projection():
    g = cbct.Geometry.circular(8, arc=200, sid=900, sdd=1400, first_angle=10, proj_offset_x=3, proj_offset_y=-2)
    h = cbct.Geometry()
    for k in range(8):
        h.add_projection(900, 1400, 10 + k * 200 / 8, proj_offset_x=3, proj_offset_y=-2)
    assert len(g) == len(h) == 8
    assert np.array_equal(g.matrices(), h.matrices())
    assert g.matrices().shape == (8, 3, 4) and g.matrices().dtype == np.float64
    p = g.parameters(1)
    assert p["sid"] == 900 and p["sdd"] == 1400 and p["proj_offset_x"] == 3 and p["proj_offset_y"] == -2
    assert p["angle"] == pytest.approx(35.0)
    assert np.allclose(g.gantry_angles(), 10 + np.arange(8) * 25.0)
    assert np.allclose(g.source_to_isocenter_distances(), 900)
    assert np.allclose(g.source_to_detector_distances(), 1400)
    assert g.parameters(-1)["angle"] == pytest.approx(185.0)
    with pytest.raises(IndexError):
        g.parameters(8)


def test_source_position_follows_rtk_convention():
    g = cbct.Geometry()
    g.add_projection(1000, 1500, 90)
    # Gantry angle 90 degrees: the source moves from +z to +x.
    assert np.allclose(g.source_positions()[0], [1000, 0, 0], atol=1e-9)
    m = g.matrices()[0]
    # The isocenter projects onto the detector origin.
    u, v, w = m @ np.array([0, 0, 0, 1.0])
    assert abs(u / w) < 1e-9 and abs(v / w) < 1e-9


def test_matrix_projection():
    g = cbct.Geometry.circular(3, sid=800, sdd=1200, first_angle=30)
    h = cbct.Geometry()
    for m in g.matrices():
        h.add_matrix(-2.5 * m)  # any scale and sign: normalised
    assert np.allclose(h.matrices(), g.matrices(), rtol=0, atol=1e-9)
    assert not h.has_parameters(0) and h.parameters(0) is None
    assert np.allclose(h.source_to_isocenter_distances(), 800)
    with pytest.raises(ValueError, match=r"matrix has shape \(3, 3\); expected \(3, 4\)"):
        h.add_matrix(np.eye(3))


@pytest.mark.parametrize("kind", ["circular", "general", "matrix"])
def test_xml_round_trip(work, kind):
    g = cbct.Geometry()
    if kind == "circular":
        g = cbct.Geometry.circular(36, arc=360, sid=1000, sdd=1536, first_angle=0.5, proj_offset_x=-40.25)
    elif kind == "general":
        rng = np.random.default_rng(1)
        for k in range(12):
            g.add_projection(
                1000 + rng.uniform(-5, 5), 1500 + rng.uniform(-5, 5), 30.0 * k + rng.uniform(-1, 1),
                proj_offset_x=rng.uniform(-3, 3), proj_offset_y=rng.uniform(-3, 3),
                out_of_plane_angle=rng.uniform(-2, 2), in_plane_angle=rng.uniform(-2, 2),
                source_offset_x=rng.uniform(-1, 1), source_offset_y=rng.uniform(-1, 1))
    else:
        base = cbct.Geometry.circular(5, sid=700, sdd=1100)
        for m in base.matrices():
            g.add_matrix(m + 1e-3 * np.arange(12).reshape(3, 4))
    path = f"{work}/geometry_{kind}.xml"
    g.write(path)
    h = cbct.Geometry.read(path)
    assert len(h) == len(g)
    assert np.allclose(h.matrices(), g.matrices(), rtol=1e-12, atol=1e-9)
    for k in range(len(g)):
        assert h.has_parameters(k) == g.has_parameters(k)
        if g.has_parameters(k):
            a, b = g.parameters(k), h.parameters(k)
            assert a.keys() == b.keys()
            for key in a:
                assert b[key] == pytest.approx(a[key], rel=1e-12, abs=1e-9), key


def test_errors_become_python_exceptions(work):
    g = cbct.Geometry()
    with pytest.raises(cbct.ITKError) as info:
        g.add_projection(-5, 1500, 0)
    assert isinstance(info.value, RuntimeError)
    assert "-5" in str(info.value)
    assert len(g) == 0
    with pytest.raises(cbct.ITKError):
        cbct.Geometry.read(f"{work}/no_such_file.xml")
    bad = f"{work}/truncated.xml"
    with open(bad, "w") as f:
        f.write('<?xml version="1.0"?>\n<!DOCTYPE RTKGEOMETRY>\n<RTKThreeDCircularGeometry version="3">\n<Projection>\n')
    with pytest.raises(cbct.ITKError):
        cbct.Geometry.read(bad)
    with pytest.raises(ValueError, match="n is 0"):
        cbct.Geometry.circular(0)
    with pytest.raises(ValueError, match="arc is"):
        cbct.Geometry.circular(10, arc=400)
