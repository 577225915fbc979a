"""4D ROOSTER: :func:`fourd_rooster`, as ``cbct-fourdrooster``."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Union

import numpy as np

from . import _conebeamct
from ._checks import _centred, _numbers, _sizes
from ._conebeamct import Geometry
from ._fourd import _checked_projections, _frame_volumes, _phase_values
from ._conventions import (
    DeviceHardware,
    MemoryBudget,
    Point3,
    Progress,
    ProjectorName,
    VolumeShape,
    VoxelSpacing,
    documented,
)
from ._images import Projections, Volume
from ._memory import _bytes, _check_memory, _memory_budget


def _host(array: Any) -> np.ndarray:
    """A numpy array of ``array``: numpy or anything numpy takes, a torch tensor (any device) or a CuPy
    array (copied to the host)."""
    if hasattr(array, "detach"):
        array = array.detach().cpu().numpy()  # torch
    elif hasattr(array, "get") and hasattr(array, "__cuda_array_interface__"):
        array = array.get()  # CuPy
    return np.asarray(array)


def _phases(phases: Any, count: int) -> List[float]:
    values = np.asarray(_host(phases), dtype=np.float64)
    if values.ndim != 1 or values.shape[0] != count:
        raise ValueError(f"phases has shape {values.shape}; expected one phase per projection of geometry, shape ({count},)")
    return _phase_values(values)


def _count(value: Any, name: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
        raise ValueError(f"{name} is {value!r}; expected an integer >= {least}")
    return int(value)


def _weight(value: Any, name: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} is {value!r}; expected a finite total-variation weight >= 0 (0: none)") from None
    if not (np.isfinite(number) and number >= 0.0):
        raise ValueError(f"{name} is {value!r}; expected a finite total-variation weight >= 0 (0: none)")
    return number


@documented
def fourd_rooster(
    projections: "Projections",
    geometry: "Geometry",
    phases: Union[Sequence[float], np.ndarray, Any],
    shape: Optional[VolumeShape] = None,
    spacing: VoxelSpacing = 1.0,
    origin: Optional[Point3] = None,
    frames: Optional[int] = None,
    initial: Optional[Union[Sequence["Volume"], np.ndarray, Any]] = None,
    iterations: int = 5,
    cg_iterations: int = 4,
    tv_iterations: int = 10,
    gamma_space: float = 0.0,
    gamma_time: float = 0.0,
    positivity: bool = True,
    motion_mask: Optional[Union["Volume", np.ndarray, Any]] = None,
    projector: ProjectorName = "joseph",
    step: float = 0.0,
    hardware: DeviceHardware = "cpu",
    progress: Progress = None,
    memory: MemoryBudget = None,
) -> List["Volume"]:
    """4D ROOSTER, as ``cbct-fourdrooster`` (RTK's rtkfourdrooster): a respiratory-correlated sequence
    of volumes from all the projections, the frames linked by the phase interpolation weights.

    Projection k is modelled as the two frames around its phase mixed linearly (RTK's weights; frame
    f of ``frames`` is centred at phase f / frames). Each of ``iterations`` main iterations runs
    ``cg_iterations`` conjugate gradient steps on that 4D model, then positivity, the motion mask
    (where it is 0 the frames are replaced by their mean), total variation in space (``gamma_space``,
    per mm) and along the breathing cycle (``gamma_time``, cyclic), each with ``tv_iterations``
    Chambolle steps. The larger a gamma, the smoother; 0 switches that step off.

    Parameters
    ----------
{projections}
    phases : sequence of float, shape (len(geometry),)
        The breathing phase of each projection in [0, 1), in projection order (RTK's signal file;
        numpy, a list, a torch tensor or a CuPy array).
{grid}
    frames : int, optional
        The number of frames (breathing phases), >= 1 (``--frames``); default 10, or the number of
        ``initial`` frames (another number with ``initial`` is a ValueError).
    initial : list of Volume, or array (frame, z, y, x), optional
        The frames to start from: the volumes of :func:`fourd_fdk` or of a previous call (their grid
        is then the result's; give them without ``shape`` and ``origin``), or a 4D float array
        (numpy, torch or CuPy) on the grid of ``shape``/``spacing``/``origin``. Default: zeros.
    iterations : int
        Main iterations, >= 1 (``--niter``).
    cg_iterations : int
        Conjugate gradient steps per main iteration, >= 1 (``--cgiter``).
    tv_iterations : int
        Total-variation steps (spatial and temporal) per main iteration, >= 1 (``--tviter``).
    gamma_space : float
        The spatial total-variation weight, >= 0, in the volume's units times mm (``--gamma_space``).
    gamma_time : float
        The temporal total-variation weight, >= 0, in the volume's units (``--gamma_time``).
    positivity : bool
        Clamp negative values to 0 after the conjugate gradients (False: ``--nopositivity``).
    motion_mask : Volume or array (z, y, x), optional
        0 where nothing moves, non-zero elsewhere, on the frames' grid (``--motionmask``; numpy, torch
        or CuPy for an array).
    projector : str
        'joseph' or 'raycast', with its exact adjoint (``--fp``).
    step : float
        The ray caster's sample distance in mm; 0: the smallest voxel spacing.
    hardware : str
        'cpu' or 'cuda' (the whole method on the GPU).
{progress}
{memory}

    Returns
    -------
    list of Volume
        One volume per frame (attenuation per mm, array (nz, ny, nx) float32 in (z, y, x) order,
        spacing and origin (x, y, z) in mm); ``numpy.stack([numpy.asarray(v) for v in frames])`` is
        the 4D (frame, z, y, x) array. Each ``info`` has the hardware, ``frame``, ``phase``,
        ``projections_per_frame`` (those that see each frame), ``residual_norms`` (``|p - M x|`` after
        each iteration's conjugate gradients) and ``total_s``.

    Raises
    ------
    ValueError
        For phases that are not one finite value in [0, 1) per projection (naming the first bad
        index), non-finite inputs, a bad argument (named), a motion mask on another grid, or a run
        that needs more than ``memory`` (saying what it needs).
    ITKError
        For an error of the C++ library.

    Notes
    -----
    The GIL is released while it runs.
    """
    checked = _checked_projections(projections, geometry)
    values = _phases(phases, len(geometry))
    count = 10 if frames is None else _count(frames, "frames", 1)
    budget = _memory_budget(memory)

    def check_memory(frame_count, zyx):
        # As cbct-fourdrooster counts it, less the projections (and initial frames) given; before the
        # initial zeros are made.
        if budget is None:
            return
        voxels = int(np.prod(zyx))
        volumes = 5 if initial is not None else 6
        parts = [
            (f"4D volumes ({'' if initial is not None else 'initial, '}output, 3 working, temporal TV dual)",
             _bytes(voxels * frame_count, volumes)),
            ("projection stacks (4 working)", _bytes(checked.array.size, 4)),
            ("spatial TV volumes", _bytes(voxels, 5)),
        ]
        _check_memory(memory, budget, "the 4D reconstruction", parts,
                      "a smaller volume (shape, or a coarser spacing) or fewer frames")

    step_mm = _numbers(spacing, "spacing", 3, "a voxel size > 0 in mm, or (sx, sy, sz)", positive=True)
    if initial is not None and not hasattr(initial, "shape") and len(initial) and isinstance(initial[0], Volume):
        if shape is not None or origin is not None:
            raise ValueError("initial and shape/origin: the initial frames define the grid; give one or the other")
        first_frame = initial[0]
        if any(v.shape != first_frame.shape or v.spacing != first_frame.spacing or v.origin != first_frame.origin
               for v in initial):
            raise ValueError("initial: the frames are not all on one grid")
        step_mm, first = first_frame.spacing, first_frame.origin
        start = np.ascontiguousarray(np.stack([np.asarray(v.array, np.float32) for v in initial]))
    else:
        if initial is not None:
            start = np.ascontiguousarray(_host(initial), dtype=np.float32)
            if start.ndim != 4:
                raise ValueError(f"initial has shape {start.shape}; expected (frame, z, y, x)")
            zyx = start.shape[1:]
            if min(start.shape) < 1:
                raise ValueError(f"initial has shape {start.shape}; expected no empty axis")
        elif shape is None:
            raise ValueError("shape is None; expected N or (nz, ny, nx) voxels (or initial frames)")
        else:
            zyx = _sizes(shape, "shape", 3, "N or (nz, ny, nx) voxels, integers >= 1")
            check_memory(count, zyx)
            start = np.zeros((count,) + tuple(zyx), np.float32)
        first = _centred(tuple(zyx)[::-1], step_mm) if origin is None else _numbers(origin, "origin", 3, "(x, y, z) in mm")
    if frames is not None and count != start.shape[0]:
        raise ValueError(f"frames is {frames!r}; expected the number of initial frames ({start.shape[0]}), or None")
    if not np.all(np.isfinite(start)):
        raise ValueError("initial holds non-finite values; expected finite attenuation values")
    mask = None
    if motion_mask is not None:
        if isinstance(motion_mask, Volume):
            mask = motion_mask.array
        else:
            mask = np.asarray(_host(motion_mask))
        mask = np.ascontiguousarray(mask, dtype=np.float32)
        if mask.shape != start.shape[1:]:
            raise ValueError(f"motion_mask has shape {mask.shape}; expected the frames' (z, y, x) shape {start.shape[1:]}")
        if not np.all(np.isfinite(mask)):
            raise ValueError("motion_mask holds non-finite values; expected 0 where nothing moves, 1 elsewhere")
    if projector not in ("joseph", "raycast"):
        raise ValueError(f"projector is {projector!r}; expected 'joseph' or 'raycast'")
    step_value = float(step)
    if not (np.isfinite(step_value) and step_value >= 0.0):
        raise ValueError(f"step is {step!r}; expected a ray-cast sample distance >= 0 in mm (0: the smallest voxel spacing)")
    if initial is not None:
        check_memory(start.shape[0], start.shape[1:])
    array, info = _conebeamct._fourd_rooster(
        checked.array,
        checked.spacing,
        checked.origin,
        geometry,
        values,
        start,
        tuple(step_mm),
        tuple(first),
        mask,
        _count(iterations, "iterations", 1),
        _count(cg_iterations, "cg_iterations", 1),
        _count(tv_iterations, "tv_iterations", 1),
        _weight(gamma_space, "gamma_space"),
        _weight(gamma_time, "gamma_time"),
        bool(positivity),
        str(projector),
        step_value,
        str(hardware),
        progress,
    )
    return _frame_volumes(array, info, step_mm, first)
