"""Interoperability with the itk Python package (skipped without it)."""

import numpy as np
import pytest

import conebeamct as cbct

itk = pytest.importorskip("itk", reason="the itk Python package is not installed (pip install itk)")


def test_views_share_memory():
    array = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    image = cbct.Volume(array, (1, 2, 3), (4, 5, 6)).to_itk()
    assert tuple(image.GetLargestPossibleRegion().GetSize()) == (4, 3, 2)
    assert tuple(image.GetSpacing()) == (1, 2, 3) and tuple(image.GetOrigin()) == (4, 5, 6)
    assert np.shares_memory(itk.GetArrayViewFromImage(image), array)
    back = cbct.Volume.from_itk(image)
    assert np.shares_memory(back.array, array)
    assert back.spacing == (1, 2, 3) and back.origin == (4, 5, 6)


def test_fdk_with_itk_images():
    geometry = cbct.Geometry.circular(30)
    projections = cbct.project_phantom(geometry, 64, 2.0)
    expected = cbct.fdk(projections, geometry, 32, 4.0, hardware="cpu")
    volume = cbct.fdk(projections.to_itk(), geometry, 32, 4.0, hardware="cpu")
    assert tuple(volume.GetSpacing()) == (4, 4, 4)
    assert np.array_equal(itk.GetArrayViewFromImage(volume), expected.array)


def test_rotated_images_are_refused():
    image = cbct.Volume(np.zeros((2, 2, 2), np.float32)).to_itk()
    direction = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 1]], dtype=np.float64)
    image.SetDirection(itk.matrix_from_array(direction))
    with pytest.raises(ValueError, match="direction"):
        cbct.Volume.from_itk(image)
