"""Emission tomography (SPECT): the emission projector with attenuation and collimator blur, and
OSEM (MLEM) with it or with a transmission projector."""

from __future__ import annotations

from typing import Literal, Optional, Sequence, Tuple

import numpy as np

from . import _conebeamct, _iterative
from ._checks import _centred, _check_geometry, _check_projection_count, _numbers, _sizes, _volume_grid
from ._conebeamct import Geometry
from ._conventions import (
    BackprojectorName,
    DetectorSize,
    DeviceHardware,
    MemoryBudget,
    PixelSpacing,
    Point2,
    Point3,
    Progress,
    VolumeShape,
    VoxelSpacing,
    documented,
    renamed,
)
from ._images import Projections, Volume, _as_input
from ._memory import _check_memory, _iterative_need, _memory_budget

def _attenuation(attenuation):
    """(array, spacing, origin) of an optional attenuation map (a :class:`Volume` or ``itk.Image``)."""
    if attenuation is None:
        return None, (1.0, 1.0, 1.0), (0.0, 0.0, 0.0)
    mu, _ = _as_input(attenuation, "attenuation", Volume)
    if not np.all(np.isfinite(mu.array)) or np.any(mu.array < 0):
        bad = np.argwhere(~(np.isfinite(mu.array) & (mu.array >= 0)))[0]
        value = mu.array[tuple(bad)]
        raise ValueError(
            f"attenuation at voxel (x, y, z) = ({bad[2]}, {bad[1]}, {bad[0]}) is {value}; expected a finite value >= 0 "
            "(linear attenuation coefficient per mm)"
        )
    return mu.array, mu.spacing, mu.origin


def _psf(psf):
    if psf is None:
        return (0.0, 0.0)
    values = _numbers(psf, "psf", 2, "(sigma0, slope): sigma at the detector (mm) and its growth per mm of distance, both >= 0")
    if values[0] < 0 or values[1] < 0:
        raise ValueError(f"psf is {psf!r}; expected (sigma0, slope): sigma at the detector (mm) and its growth per mm of distance, both >= 0")
    return values


@renamed(spacing="detector_spacing", origin="detector_origin")
@documented
def emission_project(
    activity: Volume,
    geometry: Geometry,
    detector_size: DetectorSize,
    detector_spacing: PixelSpacing,
    attenuation: Optional[Volume] = None,
    psf: Optional[Tuple[float, float]] = None,
    detector_origin: Optional[Point2] = None,
    hardware: DeviceHardware = "cpu",
    progress: Progress = None,
) -> Projections:
    """Emission projections (SPECT) of an activity volume, as ``cbct-forward --fp emission``.

    Each view composites the slices parallel to its detector back to front, attenuated by
    ``attenuation`` and blurred by the collimator. Parallel beam (a geometry with sdd=0) is SPECT's
    parallel-hole collimator; cone beam works too.

    Parameters
    ----------
    activity : Volume or itk.Image
        Activity per mm^3, array (z, y, x), spacing and origin (x, y, z) in mm.
    geometry : Geometry
        The views (mm, degrees); sdd=0 for parallel beam, sid then the detector's distance from the
        rotation axis.
{detector}
    attenuation : Volume or itk.Image, optional
        Linear attenuation coefficients per mm (finite, >= 0, checked) on any grid; None: none.
    psf : (sigma0, slope), optional
        The collimator blur: a Gaussian of sigma(d) = sigma0 + slope * d mm for activity d mm from the
        detector; both >= 0. None: no blur.
    hardware : str
        'cpu' or 'cuda'.
{progress}

    Returns
    -------
    Projections
        Array (len(geometry), V, U) float32 (counts when the activity is in counts per mm^3 per unit
        of sensitivity); spacing (su, sv, 1), origin (u0, v0, 0) in mm. An ``itk.Image`` when the
        activity was one.
    """
    checked, from_itk = _as_input(activity, "activity", Volume)
    _check_geometry(geometry)
    size = _sizes(detector_size, "detector_size", 2, "N or (U, V) pixels, integers >= 1")
    pixel = _numbers(detector_spacing, "detector_spacing", 2, "a pixel size > 0 in mm, or (su, sv)", positive=True)
    first = (
        _centred(size, pixel)
        if detector_origin is None
        else _numbers(detector_origin, "detector_origin", 2, "(u0, v0) in mm")
    )
    mu, mu_spacing, mu_origin = _attenuation(attenuation)
    array = _conebeamct._emission_project(
        checked.array, checked.spacing, checked.origin, geometry, size, pixel, first, mu, mu_spacing, mu_origin, _psf(psf),
        str(hardware), progress
    )
    projections = Projections(array, (pixel[0], pixel[1], 1.0), (first[0], first[1], 0.0))
    return projections.to_itk() if from_itk else projections


@documented
def osem(
    projections: Projections,
    geometry: Geometry,
    shape: Optional[VolumeShape] = None,
    spacing: VoxelSpacing = 1.0,
    origin: Optional[Point3] = None,
    iterations: int = 10,
    projections_per_subset: int = 0,
    projector: Optional[Literal["joseph", "raycast", "emission"]] = None,
    attenuation: Optional[Volume] = None,
    psf: Optional[Tuple[float, float]] = None,
    hardware: DeviceHardware = "cpu",
    progress: Progress = None,
    initial: Optional[Volume] = None,
    backprojector: BackprojectorName = "adjoint",
    step: float = 0.0,
    devices: Optional[Sequence[int]] = None,
    memory: MemoryBudget = None,
) -> Volume:
    """OSEM, or MLEM with ``projections_per_subset=0``, as ``cbct-osem`` does it (the same bits on
    the CPU), with a transmission projector or the emission one (attenuation, collimator blur).

    Parameters
    ----------
    projections : Projections or itk.Image
        Non-negative line integrals, or counts for emission data; array (projection, v, u) float32,
        one slice per projection of ``geometry``; spacing (su, sv, 1) and origin (u0, v0, 0) in mm.
    geometry : Geometry
        The scan, one entry per projection (mm, degrees; sdd=0: parallel beam).
{grid}
    iterations : int
        Passes over all the projections, >= 1.
    projections_per_subset : int
        Projections in each subset, 0 (all: MLEM) to len(geometry).
    projector : str, optional
        'joseph', 'raycast' or 'emission'; by default 'emission' when ``attenuation`` or ``psf`` is
        given, else 'joseph'. Each subset's sensitivity goes through the same model.
    attenuation : Volume or itk.Image, optional
        Emission only: linear attenuation coefficients per mm on any grid (>= 0).
    psf : (sigma0, slope), optional
        Emission only: the collimator blur, sigma(d) = sigma0 + slope * d mm at d mm from the detector.
    hardware : str
        'cpu' or 'cuda'.
{progress}
    initial : Volume or itk.Image, optional
        Transmission projectors only: the volume to start from (> 0 everywhere), whose grid is used
        (then give no ``shape``); the volume starts from 1 otherwise.
    backprojector : str
        Transmission projectors only: 'adjoint' (the projector's exact transpose) or 'voxel'.
    step : float
        The ray caster's sample distance in mm (0: the smallest voxel spacing), >= 0.
    devices : sequence of int, optional
        Transmission projectors with hardware='cuda' only: the CUDA devices sharing the volume in slabs.
{memory}

    Returns
    -------
    Volume
        Array (nz, ny, nx) float32 in (z, y, x) order (activity per mm^3 for emission data), spacing
        and origin (x, y, z) in mm; ``info`` has ``projector`` and ``iterations`` (with the
        transmission projectors also each iteration's seconds, ``iteration_s``). An ``itk.Image``
        when the projections were one.
    """
    emission = attenuation is not None or psf is not None or projector == "emission"
    if not emission:
        volume = _iterative._iterate(
            "osem", projections, geometry, shape, spacing, origin, initial, iterations,
            "joseph" if projector is None else projector, backprojector, step, hardware, devices, progress,
            per_subset=projections_per_subset, memory=memory,
        )
        (volume.info if isinstance(volume, Volume) else {}).update(projector="joseph" if projector is None else projector)
        return volume
    if initial is not None or backprojector != "adjoint" or step != 0.0 or devices is not None:
        raise ValueError("initial, backprojector, step and devices are for the transmission projectors ('joseph', "
                         "'raycast'), not with the emission projector (an attenuation map, a psf or projector='emission')")
    checked, from_itk = _as_input(projections, "projections", Projections)
    _check_geometry(geometry)
    _check_projection_count(checked, geometry)
    xyz, step, first = _volume_grid(shape, spacing, origin)
    count = _sizes(iterations, "iterations", 1, "an integer >= 1")[0]
    if isinstance(projections_per_subset, (bool, np.bool_)) or not isinstance(projections_per_subset, (int, np.integer)) or not (
        0 <= projections_per_subset <= len(geometry)
    ):
        raise ValueError(
            f"projections_per_subset is {projections_per_subset!r}; expected an integer from 0 (all: MLEM) to {len(geometry)}"
        )
    emission = attenuation is not None or psf is not None
    if projector is None:
        projector = "emission" if emission else "joseph"
    if emission and projector != "emission":
        raise ValueError(f"projector is {projector!r}; expected 'emission' (or None) with an attenuation map or a psf")
    mu, mu_spacing, mu_origin = _attenuation(attenuation)
    budget = _memory_budget(memory)
    if budget is not None:
        voxels = int(np.prod(xyz))
        parts, remedy = _iterative_need("osem", voxels, checked.array.size, len(geometry), False, hardware == "cuda",
                                        True, int(projections_per_subset))
        _check_memory(memory, budget, "the reconstruction", parts, remedy)
    array = _conebeamct._osem(
        checked.array, checked.spacing, checked.origin, geometry, xyz, step, first, count, int(projections_per_subset),
        str(projector), mu, mu_spacing, mu_origin, _psf(psf), str(hardware), progress
    )
    volume = Volume(array, step, first, info={"projector": projector, "iterations": count})
    return volume.to_itk() if from_itk else volume
