"""conebeamct.preprocess and fdk(pad=, hann_cutoff_v=): the apps' results bit for bit, RTK's meanings, checked inputs."""

import numpy as np
import pytest

import conebeamct as cbct
from conftest import read_mha
from test_fdk import _app, _run

NPROJ, DETECTOR, PIXEL = 40, 80, 2.0


@pytest.fixture(scope="module")
def geometry():
    return cbct.Geometry.circular(NPROJ, sid=1000, sdd=1500)


def _readings(geometry, i0=10000.0, dark=150.0, seed=None):
    """Noise-free or Poisson 16-bit readings of the Shepp-Logan head in attenuation per mm (x 0.02)."""
    lines = cbct.project_phantom(geometry, DETECTOR, PIXEL)
    mean = (i0 - dark) * np.exp(-0.02 * lines.array.astype(np.float64)) + dark
    counts = np.random.default_rng(seed).poisson(mean) if seed is not None else np.round(mean)
    return cbct.Projections(counts.astype(np.uint16), lines.spacing, lines.origin), lines


def test_round_trip_recovers_the_line_integrals(geometry):
    readings, lines = _readings(geometry)
    p = cbct.preprocess(readings, i0=10000, idark=150)
    # Rounding to whole counts: at most 0.5 / (I - Idark) of error.
    signal = 9850.0 * np.exp(-0.02 * lines.array.astype(np.float64))
    assert np.all(np.abs(p.array - 0.02 * lines.array) <= 0.5 / signal * 1.01 + 1e-6)
    assert np.array_equal(p.info["i0"], np.full(NPROJ, 10000.0))
    assert "intensities to line integrals" in p.info["steps"]


def test_i0_estimated_from_the_air_within_one_percent(geometry):
    readings, _ = _readings(geometry, seed=4)
    p = cbct.preprocess(readings, idark=150)
    assert p.info["i0"].shape == (NPROJ,)
    assert np.all(np.abs(p.info["i0"] - 10000.0) < 100.0), p.info["i0"]
    above = cbct.preprocess(readings, idark=150, air_threshold=9000)
    assert np.all(np.abs(above.info["i0"] - 10000.0) < 100.0), above.info["i0"]


def test_crop_and_binning_change_the_grid(geometry):
    readings, _ = _readings(geometry)
    p = cbct.preprocess(readings, i0=10000, idark=150, lower_crop=(4, 2), upper_crop=(2, 0), binning=2)
    # u: 80 - 6 = 74 pixels binned by 2 (RTK: one value bins u only); v: 80 - 2 = 78.
    assert p.array.shape == (NPROJ, 78, 37)
    assert p.spacing == (4.0, 2.0, 1.0)
    assert p.origin[0] == pytest.approx(readings.origin[0] + 4 * 2.0 + 1.0)
    assert p.origin[1] == pytest.approx(readings.origin[1] + 2 * 2.0)
    # The mean of two readings, then the logarithm.
    r = readings.array.astype(np.float64)
    mean = 0.5 * (r[:, 2:80, 4:78:2] + r[:, 2:80, 5:78:2])
    expected = np.log(9850.0) - np.log(np.maximum(mean - 150.0, 1.0))
    assert np.abs(p.array - expected).max() < 2e-6
    assert expected.max() > 1.0


def test_line_integrals_and_water_precorrection(geometry):
    _, lines = _readings(geometry)
    p = cbct.preprocess(lines, intensities=False, water_precorrection=(0.0, 1.0, 0.1))
    assert np.allclose(p.array, lines.array + 0.1 * lines.array.astype(np.float64) ** 2, rtol=1e-6, atol=1e-5)
    assert lines.array.max() > 10  # the phantom's line integrals, not zeros
    nothing = cbct.preprocess(lines, intensities=False)
    assert np.array_equal(nothing.array, lines.array)
    assert nothing.info["steps"] == "nothing"


def test_median_removes_a_hot_pixel(geometry):
    _, lines = _readings(geometry)
    hot = lines.array.copy()
    hot[3, 40, 40] = 1e4
    p = cbct.preprocess(cbct.Projections(hot, lines.spacing, lines.origin), intensities=False, median_radius=(1, 1),
                        median_multiplier=3)
    assert p.array[3, 40, 40] < 200
    assert np.array_equal(p.array[3, 10, :5], lines.array[3, 10, :5])  # unremarkable pixels stay


def test_bad_settings_name_the_argument(geometry):
    readings, _ = _readings(geometry)
    with pytest.raises(ValueError, match=r"binning is 0; expected factors U or \(U, V\), integers >= 1"):
        cbct.preprocess(readings, binning=0)
    with pytest.raises(ValueError, match=r"lower_crop is \(1, 2, 3\); expected"):
        cbct.preprocess(readings, lower_crop=(1, 2, 3))
    with pytest.raises(ValueError, match=r"i0 is -1; expected"):
        cbct.preprocess(readings, i0=-1)
    with pytest.raises(cbct.ITKError, match=r"crop along u \(columns\) is 40 \+ 40; expected fewer than the 80 pixels"):
        cbct.preprocess(readings, lower_crop=40, upper_crop=40)
    with pytest.raises(cbct.ITKError, match="scatter-to-primary ratio is 0.1; expected 0 for projections that are line integrals"):
        cbct.preprocess(readings, intensities=False, scatter_to_primary_ratio=0.1)
    with pytest.raises(TypeError, match="bare numpy array"):
        cbct.preprocess(readings.array)


def test_preprocess_and_fdk_equal_the_app_bit_for_bit(work, geometry):
    # cbct-simulate's 16-bit readings, reconstructed by cbct-fdk (I0 estimated, --pad, --hannY) and by
    # preprocess + fdk from the same file.
    simulate, fdk = _app("cbct-simulate"), _app("cbct-fdk")
    g, counts, volume = f"{work}/g.xml", f"{work}/counts.mha", f"{work}/fdk.mha"
    _run(simulate, "--nproj", NPROJ, "--detector-size", 48, "--detector-spacing", PIXEL, "--phantom-density", 0.02,
         "--i0", 10000, "--idark", 150, "--poisson", "--seed", 2, "-g", g, "-o", counts)
    _run(fdk, "-g", g, "--projections", counts, "--idark", 150, "--dimension", 32, "--spacing", 3, "--pad", 0.4,
         "--hannY", 0.8, "--hardware", "cpu", "-o", volume)
    array, spacing, origin = read_mha(counts)
    assert array.dtype == np.uint16
    p = cbct.preprocess(cbct.Projections(array, spacing, origin), idark=150)
    ours = cbct.fdk(p, cbct.Geometry.read(g), 32, 3.0, pad=0.4, hann_cutoff_v=0.8, hardware="cpu")
    theirs, _, _ = read_mha(volume)
    assert np.array_equal(ours.array, theirs)
    plain = cbct.fdk(p, cbct.Geometry.read(g), 32, 3.0, hardware="cpu")
    assert not np.array_equal(plain.array, ours.array)  # pad and hann_cutoff_v did something
    with pytest.raises(ValueError, match="pad is -1.0; expected"):
        cbct.fdk(p, cbct.Geometry.read(g), 32, 3.0, pad=-1)


def _with_column_gains(lines, columns, gains):
    """Line integrals of a detector whose `columns` read (1 + gain) times the signal."""
    faulty = lines.array.copy()
    for column, gain in zip(columns, gains):
        faulty[:, :, column] -= np.float32(np.log1p(gain))
    return cbct.Projections(faulty, lines.spacing, lines.origin)


def test_rings_are_removed(geometry):
    # Columns with a gain off by 2-3 %, one in the air and one through the middle of the head: what
    # they change in the line integrals goes, each scan (with and without them) filtered alike. The
    # sorting filter replaces only the columns its detection finds: on this coarse detector (80
    # columns of 2 mm, 40 views, no noise) the skull's edges make offsets of tenths between
    # neighbouring columns, which the detection's noise follows, and the rows that graze the top and
    # the bottom of the skull see its cap centred on the axis, constant along the angle as a stripe.
    # Column 40 is the axis's own, where the centred head is constant along the angle as well: the
    # sorting filter keeps 0.45 of that stripe and 0.21 of column 3's (measured), and the wavelet
    # filter, which changes only the columns that detection finds, 0.49 of column 40's (the median
    # over every column, rings_snr=0, keeps less here but changes every column).
    _, lines = _readings(geometry)
    clean = cbct.Projections((0.02 * lines.array).astype(np.float32), lines.spacing, lines.origin)
    faulty = _with_column_gains(clean, (40, 3), (0.03, -0.02))
    for method in ("sorting", "wavelet"):
        p = cbct.preprocess(faulty, intensities=False, rings=method)
        reference = cbct.preprocess(clean, intensities=False, rings=method)
        for column, gain in ((40, 0.03), (3, -0.02)):
            left = np.abs((p.array - reference.array)[:, :, column].mean()) / np.abs(np.log1p(gain))
            assert left < 0.55, (method, column, left)
        assert "ring removal" in p.info["steps"]
    assert cbct.preprocess(faulty, intensities=False, rings="sorting").info["rings_size"] == 5
    assert cbct.preprocess(faulty, intensities=False, rings="wavelet").info["rings_level"] == 3
    assert cbct.preprocess(faulty, intensities=False, rings="wavelet", rings_level=0).info["rings_level"] == 7
    # The parameters reach the filters: a wider median, no detection, no padding, fewer levels change
    # the result. With the detection only the striped columns change.
    detected = cbct.preprocess(faulty, intensities=False, rings="sorting")
    changed = np.flatnonzero(np.any(detected.array != faulty.array, axis=(0, 1)))
    assert {3, 40} <= set(changed) and len(changed) <= 4, changed  # the stripes, and a neighbour at most
    everywhere = cbct.preprocess(faulty, intensities=False, rings="sorting", rings_snr=0)
    assert not np.array_equal(everywhere.array, detected.array)
    reference = cbct.preprocess(clean, intensities=False, rings="sorting", rings_snr=0)
    for column, gain in ((40, 0.03), (3, -0.02)):
        left = np.abs((everywhere.array - reference.array)[:, :, column].mean()) / np.abs(np.log1p(gain))
        assert left < 0.25, ("sorting, rings_snr=0", column, left)
    assert "every column" in everywhere.info["steps"] and "snr 2.5" in detected.info["steps"]
    wide = cbct.preprocess(faulty, intensities=False, rings="sorting", rings_size=15, rings_snr=0)
    assert not np.array_equal(wide.array, everywhere.array)
    assert "median size 15" in wide.info["steps"]
    w = cbct.preprocess(faulty, intensities=False, rings="wavelet", rings_pad=False, rings_level=3, rings_sigma=1.5)
    assert "level 3, sigma 1.5, not padded" in w.info["steps"]
    assert not np.array_equal(w.array, cbct.preprocess(faulty, intensities=False, rings="wavelet").array)


def test_bad_ring_settings_name_the_argument(geometry):
    _, lines = _readings(geometry)
    with pytest.raises(ValueError, match=r"rings is 'fourier'; expected None, 'sorting'"):
        cbct.preprocess(lines, intensities=False, rings="fourier")
    with pytest.raises(ValueError, match=r"rings_wavelet is 'sym5'; expected one of haar, db1"):
        cbct.preprocess(lines, intensities=False, rings="wavelet", rings_wavelet="sym5")
    with pytest.raises(ValueError, match=r"rings_sigma is 0; expected a finite value > 0"):
        cbct.preprocess(lines, intensities=False, rings="wavelet", rings_sigma=0)
    with pytest.raises(ValueError, match=r"rings_snr is -1; expected a finite value >= 0"):
        cbct.preprocess(lines, intensities=False, rings="sorting", rings_snr=-1)
    with pytest.raises(ValueError, match=r"rings_size is -1; expected an integer >= 0"):
        cbct.preprocess(lines, intensities=False, rings="sorting", rings_size=-1)
    with pytest.raises(cbct.ITKError, match=r"ring removal size is 81; expected at most the 80 pixels"):
        cbct.preprocess(lines, intensities=False, rings="sorting", rings_size=81)
    with pytest.raises(cbct.ITKError, match=r"ring removal level is 31"):
        cbct.preprocess(lines, intensities=False, rings="wavelet", rings_level=31)
