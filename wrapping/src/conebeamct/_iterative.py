"""Iterative reconstruction: :func:`sart` (SART, OS-SART, SIRT), :func:`sirt`, :func:`cgls`, and the
transmission path of :func:`conebeamct.osem` (_iterate)."""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, TypeVar

import numpy as np

from . import _conebeamct
from ._checks import _check_geometry, _check_projection_count, _numbers, _sizes, _volume_grid
from ._conebeamct import Geometry
from ._conventions import (
    BackprojectorName,
    DeviceHardware,
    MemoryBudget,
    Point3,
    Progress,
    ProjectorName,
    VolumeShape,
    VoxelSpacing,
    documented,
)
from ._images import Projections, Volume, _as_input
from ._memory import _check_memory, _iterative_need, _memory_budget
from ._projectors import _BACKPROJECTORS, _PROJECTORS, _choice

# The parameters sart, sirt and cgls share (after {projections} and {grid}).
_COMMON = """{initial}
        Otherwise the volume starts from zeros.
    iterations : int
        Passes over all the projections, >= 1 (``--niterations``)."""
_MODELS = """    projector : str
        'joseph' (Joseph's) or 'raycast' (samples every ``step`` mm).
    step : float
        The ray caster's sample distance in mm, >= 0 (0: the smallest voxel spacing).
    hardware : str
        'cpu' or 'cuda'.
    devices : sequence of int, optional
        With hardware='cuda': the CUDA devices sharing the volume in slabs (default: the first).
{progress}
{memory}

    Returns
    -------
    Volume
        Attenuation per mm, array (nz, ny, nx) float32 in (z, y, x) order, spacing and origin
        (x, y, z) in mm; ``info`` has ``method``, ``hardware``, ``iterations`` and each iteration's
        seconds ``iteration_s``. An ``itk.Image`` when the projections were one.

    Notes
    -----
    The GIL is released while it runs."""


_Function = TypeVar("_Function", bound=Callable[..., Any])


def _shared(function: _Function) -> _Function:
    """Puts _COMMON and _MODELS into ``function``'s docstring ({common}, {models}), then the package's
    shared descriptions (documented)."""
    function.__doc__ = (function.__doc__ or "").replace("{common}", _COMMON).replace("{models}", _MODELS)
    return documented(function)


def _iterate(method, projections, geometry, shape, spacing, origin, initial, iterations, projector, backprojector,
             step, hardware, devices, progress, lambda_=0.3, per_subset=0, positivity=False, memory=None):
    checked, from_itk = _as_input(projections, "projections", Projections)
    _check_geometry(geometry)
    _check_projection_count(checked, geometry)
    if initial is not None:
        if shape is not None or origin is not None:
            raise ValueError("initial and shape/origin: the initial volume defines the grid; give one or the other")
        start, _ = _as_input(initial, "initial", Volume)
    else:
        if shape is None:
            raise ValueError("shape is None; expected N or (nz, ny, nx) voxels (or an initial volume)")
        xyz, step_mm, first = _volume_grid(shape, spacing, origin)
        start = None  # zeros, made once the memory budget allows them
    count = _sizes(iterations, "iterations", 1, "an integer >= 1")[0]
    _choice(projector, "projector", _PROJECTORS)
    _choice(backprojector, "backprojector", _BACKPROJECTORS)
    _choice(hardware, "hardware", ("cpu", "cuda"))
    step = _numbers(step, "step", 1, "a ray-cast sample distance >= 0 in mm (0: the smallest voxel spacing)")[0]
    if step < 0:
        raise ValueError(f"step is {step!r}; expected a ray-cast sample distance >= 0 in mm (0: the smallest voxel spacing)")
    if devices is None:
        devices = []
    elif hardware != "cuda":
        raise ValueError(f"devices is {devices!r}; give it with hardware='cuda'")
    else:
        devices = [int(d) for d in (devices if np.ndim(devices) else [devices])]
    if isinstance(per_subset, bool) or not isinstance(per_subset, (int, np.integer)) or not 0 <= per_subset <= len(geometry):
        raise ValueError(f"projections_per_subset is {per_subset!r}; expected an integer from 0 (all projections) to "
                         f"the number of projections ({len(geometry)})")
    if not (np.isfinite(lambda_) and lambda_ > 0):
        raise ValueError(f"lambda_ is {lambda_!r}; expected a finite relaxation factor > 0")
    budget = _memory_budget(memory)
    if budget is not None:
        voxels = start.array.size if start is not None else int(np.prod(xyz))
        parts, remedy = _iterative_need(method, voxels, checked.array.size, len(geometry), initial is not None,
                                        hardware == "cuda", backprojector == "adjoint", int(per_subset))
        _check_memory(memory, budget, "the reconstruction", parts, remedy)
    if start is None:
        # Zeros, as the apps start (OSEM starts from 1 where it is given 0 everywhere).
        start = Volume(np.zeros(xyz[::-1], np.float32), step_mm, first)
    array, info = _conebeamct._iterate(
        method, checked.array, checked.spacing, checked.origin, geometry, start.array, start.spacing, start.origin,
        count, float(lambda_), int(per_subset), bool(positivity), projector, backprojector, float(step), hardware,
        devices, progress,
    )
    volume = Volume(array, start.spacing, start.origin, info=info)
    return volume.to_itk() if from_itk else volume


@_shared
def sart(
    projections: Projections,
    geometry: Geometry,
    shape: Optional[VolumeShape] = None,
    spacing: VoxelSpacing = 1.0,
    origin: Optional[Point3] = None,
    initial: Optional[Volume] = None,
    iterations: int = 10,
    lambda_: float = 0.3,
    projections_per_subset: int = 1,
    positivity: bool = True,
    projector: ProjectorName = "joseph",
    backprojector: BackprojectorName = "adjoint",
    step: float = 0.0,
    hardware: DeviceHardware = "cpu",
    devices: Optional[Sequence[int]] = None,
    progress: Progress = None,
    memory: MemoryBudget = None,
) -> Volume:
    """SART (``projections_per_subset=1``), OS-SART (more) or SIRT (0: all projections), as
    ``cbct-sart`` computes it (the same bits on the CPU).

    Parameters
    ----------
{projections}
{grid}
{common}
    lambda_ : float
        The relaxation factor, finite and > 0 (``--lambda``).
    projections_per_subset : int
        Projections in each subset, 0 (all: SIRT) to len(geometry) (``--nprojpersubset``).
    positivity : bool
        Negative voxels set to 0 after each update (the default, as ``cbct-sart``'s; False is
        ``--no-positivity``).
    backprojector : str
        'adjoint' (the projector's exact transpose) or 'voxel' (voxel-based, as RTK and TIGRE).
{models}
    """
    return _iterate("sart", projections, geometry, shape, spacing, origin, initial, iterations, projector,
                    backprojector, step, hardware, devices, progress, lambda_=lambda_, per_subset=projections_per_subset,
                    positivity=positivity, memory=memory)


@_shared
def sirt(
    projections: Projections,
    geometry: Geometry,
    shape: Optional[VolumeShape] = None,
    spacing: VoxelSpacing = 1.0,
    origin: Optional[Point3] = None,
    initial: Optional[Volume] = None,
    iterations: int = 10,
    lambda_: float = 0.3,
    positivity: bool = True,
    projector: ProjectorName = "joseph",
    backprojector: BackprojectorName = "adjoint",
    step: float = 0.0,
    hardware: DeviceHardware = "cpu",
    devices: Optional[Sequence[int]] = None,
    progress: Progress = None,
    memory: MemoryBudget = None,
) -> Volume:
    """SIRT: :func:`sart` with every projection in one subset (``cbct-sart --nprojpersubset 0``).

    Parameters
    ----------
{projections}
{grid}
{common}
    lambda_ : float
        The relaxation factor, finite and > 0 (``--lambda``).
    positivity : bool
        Negative voxels set to 0 after each update (the default, as ``cbct-sart``'s; False is
        ``--no-positivity``).
    backprojector : str
        'adjoint' (the projector's exact transpose) or 'voxel' (voxel-based, as RTK and TIGRE).
{models}
    """
    return sart(projections, geometry, shape, spacing, origin, initial, iterations, lambda_, 0, positivity, projector,
                backprojector, step, hardware, devices, progress, memory)


@_shared
def cgls(
    projections: Projections,
    geometry: Geometry,
    shape: Optional[VolumeShape] = None,
    spacing: VoxelSpacing = 1.0,
    origin: Optional[Point3] = None,
    initial: Optional[Volume] = None,
    iterations: int = 10,
    projector: ProjectorName = "joseph",
    step: float = 0.0,
    hardware: DeviceHardware = "cpu",
    devices: Optional[Sequence[int]] = None,
    progress: Progress = None,
    memory: MemoryBudget = None,
) -> Volume:
    """CGLS, least squares by conjugate gradients on the normal equations, as ``cbct-cgls`` (the same
    bits on the CPU). It needs the exact adjoint: no backprojector choice. ``info`` also has
    ``initial_residual_norm`` ``|p - A x0|`` and ``residual_norms`` ``|p - A x|`` after each iteration.

    Parameters
    ----------
{projections}
{grid}
{common}
{models}
    """
    return _iterate("cgls", projections, geometry, shape, spacing, origin, initial, iterations, projector, "adjoint",
                    step, hardware, devices, progress, memory=memory)
