"""Simulation: ellipsoid phantoms (Shepp-Logan or a text file), their exact line integrals and
their voxelized density, and Poisson counts."""

from __future__ import annotations

import os
from typing import Optional, Union

import numpy as np

from . import _conebeamct
from ._checks import _centred, _check_geometry, _numbers, _sizes, _volume_grid
from ._conebeamct import Geometry
from ._conventions import DetectorSize, PixelSpacing, Point2, Point3, Progress, VolumeShape, VoxelSpacing, documented, renamed
from ._images import Projections, Volume, _as_input

def _phantom(phantom):
    name = os.fspath(phantom)
    if not isinstance(name, str):
        raise TypeError(f"phantom is {phantom!r}; expected 'shepplogan', 'beads' or the path of a phantom text file")
    if name.lower() not in ("shepplogan", "shepp-logan", "shepp_logan", "beads") and not os.path.isfile(name):
        raise FileNotFoundError(
            f"phantom is {name!r}: no such file (expected 'shepplogan', 'beads' or a phantom text file)"
        )
    return name


@renamed(spacing="detector_spacing", origin="detector_origin")
@documented
def project_phantom(
    geometry: Geometry,
    detector_size: DetectorSize,
    detector_spacing: PixelSpacing,
    phantom: Union[str, "os.PathLike[str]"] = "shepplogan",
    scale: float = 60.0,
    detector_origin: Optional[Point2] = None,
    progress: Progress = None,
) -> Projections:
    """Exact line integrals of a phantom for every projection of ``geometry``, as ``cbct-simulate``
    computes them (ray-ellipsoid and ray-cylinder intersections, no discretisation).

    Parameters
    ----------
    geometry : Geometry
        The scan, one entry per projection (mm, degrees).
{detector}
    phantom : str or os.PathLike
        'shepplogan' (the 3D Shepp-Logan head, scaled by ``scale``), 'beads' (a geometry calibration
        phantom: 24 steel beads of 1 and 2 mm on a helix in a PMMA cylinder, include/cbctBeadPhantom.h)
        or the path of a phantom text file of ellipsoids, cylinders and beads (format in
        include/cbctGeometricPhantom.h; lengths in mm, angles in degrees).
    scale : float
        The Shepp-Logan head's scale in mm, > 0: the outer skull's semi-axes are 0.69, 0.90 and 0.92
        times it (60: a head about 110 mm wide).
{progress}

    Returns
    -------
    Projections
        Line integrals (density x mm), array (len(geometry), V, U) float32; spacing (su, sv, 1),
        origin (u0, v0, 0).
    """
    _check_geometry(geometry)
    size = _sizes(detector_size, "detector_size", 2, "N or (U, V) pixels, integers >= 1")
    pixel = _numbers(detector_spacing, "detector_spacing", 2, "a pixel size > 0 in mm, or (su, sv)", positive=True)
    first = (
        _centred(size, pixel)
        if detector_origin is None
        else _numbers(detector_origin, "detector_origin", 2, "(u0, v0) in mm")
    )
    array = _conebeamct._project_phantom(geometry, size, pixel, first, _phantom(phantom), float(scale), progress)
    return Projections(array, (pixel[0], pixel[1], 1.0), (first[0], first[1], 0.0))


@documented
def voxelize_phantom(
    shape: VolumeShape,
    spacing: VoxelSpacing = 1.0,
    origin: Optional[Point3] = None,
    phantom: Union[str, "os.PathLike[str]"] = "shepplogan",
    scale: float = 60.0,
    supersampling: int = 1,
    progress: Progress = None,
) -> Volume:
    """The phantom's density on a grid: the ground truth of a reconstruction.

    Parameters
    ----------
{grid}
    phantom : str or os.PathLike
        'shepplogan', 'beads' or the path of a phantom text file, as :func:`project_phantom`'s.
    scale : float
        The Shepp-Logan head's scale in mm, > 0, as :func:`project_phantom`'s.
    supersampling : int
        Each voxel is the mean of supersampling^3 samples spread over it (1: its centre); use 2 or more
        for comparisons (centre samples punish every edge voxel).
{progress}

    Returns
    -------
    Volume
        The density, array (nz, ny, nx) float32 in (z, y, x) order; ``info`` has ``phantom`` and
        ``supersampling``.
    """
    xyz, step, first = _volume_grid(shape, spacing, origin)
    count = _sizes(supersampling, "supersampling", 1, "an integer >= 1")[0]
    array = _conebeamct._voxelize_phantom(xyz, step, first, _phantom(phantom), float(scale), count, progress)
    return Volume(array, step, first, info={"phantom": os.fspath(phantom), "supersampling": count})


def poisson_noise(projections: Projections, seed: int = 1) -> Projections:
    """Counts drawn from Poisson distributions around ``projections``, as ``cbct-simulate --poisson
    --seed``: integers, the same for a seed on any machine and any number of threads.

    Parameters
    ----------
    projections : Projections or itk.Image
        Expected counts (>= 0), array (projection, v, u); spacing (su, sv, 1), origin (u0, v0, 0) mm.
    seed : int
        The random generator's seed, 0 to 2**64 - 1.

    Returns
    -------
    Projections
        The counts, array of the same shape (float32 holding integers), the same spacing and origin.
        An ``itk.Image`` when the input was one.
    """
    checked, from_itk = _as_input(projections, "projections", Projections)
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise ValueError(f"seed is {seed!r}; expected an integer from 0 to 2**64 - 1")
    array = _conebeamct._poisson_noise(checked.array, int(seed))
    result = Projections(array, checked.spacing, checked.origin)
    return result.to_itk() if from_itk else result
