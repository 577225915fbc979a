"""The bead calibration phantom from Python: conebeamct.project_phantom(phantom='beads')."""

import numpy as np
import pytest

import conebeamct as cbct


def test_bead_phantom_projection_shows_each_bead_on_the_plastic():
    # At gantry angle 0 the source is on +z: bead 0 (x 40, y -46, z 0, 2 mm across, 0.45 per mm above
    # PMMA) projects at u = 40 * 1500 / 1000, v = -46 * 1.5 (its depth is that of the isocentre).
    geometry = cbct.Geometry.circular(1, sid=1000, sdd=1500)
    spacing = 0.5
    size = (401, 401)
    projections = cbct.project_phantom(geometry, size, spacing, phantom="beads")
    array = np.asarray(projections)
    assert array.shape == (1, 401, 401)
    u0 = -0.5 * (size[0] - 1) * spacing
    i, j = round((60.0 - u0) / spacing), round((-69.0 - u0) / spacing)
    # The bead's chord (2 mm, nearly along the ray) on top of the cylinder's (2 sqrt(45^2 - 40^2) mm of PMMA).
    plastic = 0.02 * 2.0 * np.sqrt(45.0**2 - 40.0**2)
    assert array[0, j, i] == pytest.approx(plastic + 0.45 * 2.0, rel=2e-3)
    assert array[0, j, i + 6] == pytest.approx(0.02 * 2.0 * np.sqrt(45.0**2 - 42.0**2), rel=2e-2)  # beside it


def test_bead_phantom_name_and_missing_files():
    with pytest.raises(FileNotFoundError, match="'shepplogan', 'beads' or a phantom text file"):
        cbct.project_phantom(cbct.Geometry.circular(1), (8, 8), 1.0, phantom="no-such-phantom.txt")
