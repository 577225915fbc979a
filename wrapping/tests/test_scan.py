"""conebeamct.read_scan: a scanner's scan folder (an Elekta XVI 5 folder written by the test from the
formats' definitions) read as line integrals or raw readings, with its geometry and what was read;
the errors a user meets (no such path, unknown format, a folder no vendor recognises, a damaged file)."""

import os

import numpy as np
import pytest

import conebeamct as cbct
from conftest import read_mha, run_app, write_mha, write_xvi_scan

N, U = 36, 40
PIXEL = 409.6 / U  # the XVI panel, 409.6 mm wide
ANGLES = [((360.0 * k / N) + 180.0) % 360.0 - 180.0 for k in range(N)]  # XVI's -180..180


@pytest.fixture
def xvi(work):
    """(folder, line integrals, readings, direct geometry) of a simulated XVI scan: Shepp-Logan line
    integrals on XVI's geometry (SID 1000 mm, SDD 1536 mm) as stored readings."""
    geometry = cbct.Geometry.circular(N, sid=1000.0, sdd=1536.0)
    projections = cbct.project_phantom(geometry, (U, U), PIXEL, scale=60.0)
    line_integrals = 0.02 * projections.array  # attenuation per mm, as a head
    folder = os.path.join(str(work), "img_1.3.46.423632.py")
    readings = write_xvi_scan(folder, line_integrals, ANGLES)
    return folder, line_integrals, readings, geometry


def test_line_integrals_and_geometry(xvi):
    folder, line_integrals, readings, direct = xvi
    projections, geometry = cbct.read_scan(folder)
    assert isinstance(projections, cbct.Projections) and isinstance(geometry, cbct.Geometry)
    assert projections.array.dtype == np.float32 and projections.shape == (N, U, U)
    assert projections.spacing == pytest.approx((PIXEL, PIXEL, 1.0), abs=1e-12)
    assert projections.origin == pytest.approx((-(U - 1) / 2 * PIXEL, -(U - 1) / 2 * PIXEL, 0.0), abs=1e-9)
    # The readings' rounding to counts: at most half a count in 65536 exp(-p).
    expected = np.log(65536.0) - np.log(65536.0 - np.maximum(readings.astype(np.float64), 1.0))
    assert np.all(np.isfinite(projections.array))
    assert np.max(np.abs(projections.array - expected)) < 1e-5
    assert np.max(np.abs(projections.array - line_integrals)) < 2e-3
    # The geometry: one projection per file, XVI's distances, the angles written.
    assert len(geometry) == N
    assert np.allclose(geometry.source_to_isocenter_distances(), 1000.0)
    assert np.allclose(geometry.source_to_detector_distances(), 1536.0)
    assert np.allclose(geometry.gantry_angles(), direct.gantry_angles(), atol=1e-9)
    info = projections.info
    assert info["format"].startswith("Elekta XVI")
    assert info["raw"] is False and info["path"] == folder
    assert [os.path.basename(f) for f in info["files"]] == ["%05d.1.3.46.423632.py.his" % (k + 1) for k in range(N)]
    assert any("GantryAngle" in line for line in info["log"]), info["log"]


def test_reconstructs_as_the_simulation(xvi):
    folder, line_integrals, _, direct = xvi
    projections, geometry = cbct.read_scan(folder)
    grid = dict(shape=(32, 32, 32), spacing=5.0, origin=(-77.5, -77.5, -77.5))
    from_scan = cbct.fdk(projections, geometry, hardware="cpu", **grid)
    simulated = cbct.Projections(line_integrals, projections.spacing, projections.origin)
    from_simulation = cbct.fdk(simulated, direct, hardware="cpu", **grid)
    difference = np.mean(np.abs(from_scan.array - from_simulation.array))
    assert np.isfinite(difference) and difference < 1e-4
    assert np.max(from_simulation.array) > 0.01  # the phantom is there


def test_raw_keeps_the_readings(xvi):
    folder, _, readings, _ = xvi
    projections, geometry = cbct.read_scan(folder, format="ELEKTA", raw=True)
    assert projections.array.dtype == np.uint16
    assert np.array_equal(projections.array, readings)
    assert projections.info["raw"] is True
    assert len(geometry) == N


def test_several_scans_read_as_one(xvi, work):
    folder, _, readings, _ = xvi
    second = os.path.join(str(work), "img_1.3.46.423632.second")
    later = write_xvi_scan(second, 0.5 * readings[:5].astype(np.float64) / 65536.0, [10.0 * k for k in range(5)])
    projections, geometry = cbct.read_scan([folder, second], raw=True)
    assert projections.shape == (N + 5, U, U) and len(geometry) == N + 5
    assert np.array_equal(projections.array[:N], readings) and np.array_equal(projections.array[N:], later)
    assert np.allclose(geometry.gantry_angles()[N:], [10.0 * k for k in range(5)], atol=1e-9)  # degrees
    assert projections.info["format"].startswith("2 scans: Elekta XVI")
    assert projections.info["path"] == [folder, second]
    assert any(line.startswith(second + ": ") for line in projections.info["log"])
    with pytest.raises(ValueError, match="empty sequence"):
        cbct.read_scan([])


def test_errors(xvi, work):
    folder = xvi[0]
    with pytest.raises(FileNotFoundError, match="no such file or folder"):
        cbct.read_scan(os.path.join(str(work), "nowhere"))
    with pytest.raises(ValueError, match="format is 'siemens'; expected one of varian, elekta, nikon, dicomctpd, bruker"):
        cbct.read_scan(folder, format="siemens")
    empty = os.path.join(str(work), "empty")
    os.makedirs(empty, exist_ok=True)
    with pytest.raises(cbct.ITKError, match="no scanner scan recognised in .*Looked for varian"):
        cbct.read_scan(empty)
    # Forced as another vendor's: that reader says what it misses.
    with pytest.raises(cbct.ITKError, match="nikon: folder .*img_1.3.46.423632.py holds no .xtekct"):
        cbct.read_scan(folder, format="nikon")
    # A projection file cut short is named.
    damaged = os.path.join(folder, "00007.1.3.46.423632.py.his")
    with open(damaged, "rb") as f:
        data = f.read()
    with open(damaged, "wb") as f:
        f.write(data[:-100])
    with pytest.raises(cbct.ITKError, match="00007.1.3.46.423632.py.his"):
        cbct.read_scan(folder)


def test_varian_without_air_scan_needs_air_fallback(work):
    """A TrueBeam folder (written by the test-only cbctWriteScan: counts 50000 exp(-p), air 50000, one
    norm-chamber reading) read with its air scan, then without Calibrations/: refused, naming the
    fallback; with air_fallback and I0 50000 the same line integrals, and the log says so."""
    import shutil

    spacing = 4.0
    geometry = cbct.Geometry.circular(N, sid=1000.0, sdd=1500.0)
    line_integrals = 0.02 * cbct.project_phantom(geometry, (U, U), spacing, scale=60.0).array
    corner = -(U - 1) / 2 * spacing
    write_mha(os.path.join(str(work), "li.mha"), line_integrals, (spacing, spacing, 1.0), (corner, corner, 0.0))
    geometry.write(os.path.join(str(work), "g.xml"))
    folder = os.path.join(str(work), "varian")
    run_app("cbctWriteScan", "varian", os.path.join(str(work), "li.mha"), os.path.join(str(work), "g.xml"), folder)
    with_air, _ = cbct.read_scan(folder)
    assert np.max(np.abs(with_air.array - line_integrals)) < 1e-3

    shutil.rmtree(os.path.join(folder, "Calibrations"))
    # The library says what is missing; read_scan says how to ask for the fallback, in its own words.
    with pytest.raises(cbct.ITKError, match=r"no air scan: looked for .*pass air_fallback=True.*or raw=True") as refused:
        cbct.read_scan(folder)
    assert "--air-fallback" not in str(refused.value)
    fallback, fallback_geometry = cbct.read_scan(folder, air_fallback=True, air_fallback_i0=50000.0)
    assert np.all(np.isfinite(fallback.array))
    assert np.max(np.abs(fallback.array - with_air.array)) < 1e-5
    assert len(fallback_geometry) == N
    assert any("fallback" in line for line in fallback.info["log"]), fallback.info["log"]
    with pytest.raises(ValueError, match="air_fallback_i0"):
        cbct.read_scan(folder, air_fallback_i0=50000.0)
    with pytest.raises(ValueError, match="air_fallback_i0"):
        cbct.read_scan(folder, air_fallback=True, air_fallback_i0=float("nan"))


def test_lone_varian_files_raw_need_no_air_scan(work):
    """A lone TrueBeam XIM and a lone OBI HND (a real half-fan header: dSAD 100 cm, dSFD unknown,
    dIDUPosVrt -50 cm, dIDUPosLat 148 mm), each alone in its folder (written by the test-only
    cbctWriteScan): raw=True reads the stored readings exactly without an air scan; the HND's geometry
    is in mm; line integrals without an air scan are refused naming air_fallback."""
    folder = os.path.join(str(work), "lone")
    run_app("cbctWriteScan", "varian-lone", folder)
    for name in ("xim/Proj_00042.xim", "hnd/Proj_00117.hnd"):
        path = os.path.join(folder, name)
        raw, geometry = cbct.read_scan(path, raw=True)
        expected = read_mha(os.path.join(os.path.dirname(path), "expected.mha"))[0]
        assert raw.array.dtype.kind in "iu"
        assert raw.array.shape == expected.shape
        assert np.array_equal(raw.array.astype(np.int64), expected.astype(np.int64)), name
        assert any("the readings as stored need none" in line for line in raw.info["log"])
        assert len(geometry) == 1
        with pytest.raises(cbct.ITKError, match="no air scan.*air_fallback=True"):
            cbct.read_scan(path)
    _, obi = cbct.read_scan(os.path.join(folder, "hnd/Proj_00117.hnd"), raw=True)
    p = obi.parameters(0)
    assert p["sid"] == pytest.approx(1000.0, abs=1e-9)
    assert p["sdd"] == pytest.approx(1500.0, abs=1e-9)
    assert p["proj_offset_x"] == pytest.approx(148.0, abs=1e-9)
