"""Image.save and load: written beside their place and renamed in, read only when complete; fdk
refuses NaN and infinities as the apps do; Geometry.write leaves no partial file."""

import glob
import os

import numpy as np
import pytest

import conebeamct as cbct
from conftest import read_mha


def _partials(path):
    directory, name = os.path.split(os.fspath(path))
    return glob.glob(os.path.join(directory or ".", f".{name}.partial-*"))


def _volume():
    rng = np.random.default_rng(18)
    return cbct.Volume(rng.random((5, 6, 7), dtype=np.float32), spacing=(0.5, 1.0, 2.0), origin=(-1.0, 2.0, 3.5))


@pytest.mark.parametrize("extension", [".mha", ".nrrd", ".nii", ".nii.gz", ".mhd"])
def test_save_then_load_gives_the_same_image(work, extension):
    volume = _volume()
    path = os.path.join(work, "volume" + extension)
    volume.save(path)
    assert not _partials(path)
    again = cbct.load(path)
    assert isinstance(again, cbct.Volume)
    np.testing.assert_array_equal(again.array, volume.array)
    np.testing.assert_allclose(again.spacing, volume.spacing, rtol=1e-6)
    np.testing.assert_allclose(again.origin, volume.origin, rtol=1e-6, atol=1e-6)


def test_save_is_readable_by_the_apps_reader(work):
    volume = _volume()
    path = os.path.join(work, "volume.mha")
    volume.save(path)
    array, spacing, origin = read_mha(path)
    np.testing.assert_array_equal(array, volume.array)


def test_a_failed_save_leaves_the_previous_file_as_it_was(work):
    path = os.path.join(work, "kept.xyz")  # no ITK format: the writer fails
    with open(path, "wb") as f:
        f.write(b"the previous file")
    with pytest.raises(cbct.ITKError):
        _volume().save(path)
    with open(path, "rb") as f:
        assert f.read() == b"the previous file"
    assert not _partials(path)


def test_load_refuses_a_file_cut_short_naming_the_bytes(work):
    path = os.path.join(work, "short.mha")
    _volume().save(path)
    size = os.path.getsize(path)
    os.truncate(path, size - 100)
    with pytest.raises(cbct.ITKError, match=r"pixel data of .*short.mha is 740 bytes; expected 840 bytes .*cut short"):
        cbct.load(path)


def test_load_puts_a_negative_spacing_on_a_canonical_grid(work):
    path = os.path.join(work, "flipped.mha")
    volume = _volume()
    volume.save(path)
    with open(path, "rb") as f:
        blob = f.read()
    blob = blob.replace(b"ElementSpacing = 0.5 1 2", b"ElementSpacing = -0.5 1 2")
    with open(path, "wb") as f:
        f.write(blob)
    flipped = cbct.load(path)
    # x reversed: the first stored column was at x = -1, now the last one; the grid starts 3 mm lower.
    assert flipped.spacing == pytest.approx((0.5, 1.0, 2.0))
    assert flipped.origin[0] == pytest.approx(-1.0 - 6 * 0.5)
    np.testing.assert_array_equal(flipped.array, volume.array[:, :, ::-1])


def test_load_refuses_missing_files_and_bad_kinds(work):
    with pytest.raises(FileNotFoundError):
        cbct.load(os.path.join(work, "nothing.mha"))
    with pytest.raises(TypeError):
        cbct.load(os.path.join(work, "nothing.mha"), kind=int)


def test_fdk_refuses_non_finite_projections():
    geometry = cbct.Geometry.circular(8)
    projections = cbct.project_phantom(geometry, 16, 8.0)
    projections.array[3, 4, 5] = np.nan
    projections.array[6, 0, 0] = np.inf
    with pytest.raises(ValueError, match=r"projections has 2 non-finite values .*first at index \(3, 4, 5\).*expected finite"):
        cbct.fdk(projections, geometry, shape=8, spacing=8.0)


def test_geometry_write_leaves_no_partial_file(work):
    path = os.path.join(work, "geometry.xml")
    cbct.Geometry.circular(4).write(path)
    cbct.Geometry.circular(6).write(path)
    assert len(cbct.Geometry.read(path)) == 6
    assert not _partials(path)
