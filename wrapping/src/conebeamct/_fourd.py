"""4D (respiratory-correlated) FDK: :func:`fourd_fdk`, as ``cbct-fourdfdk``."""

from __future__ import annotations

from typing import Any, List, Literal, Optional, Sequence, Union

import numpy as np

from . import _conebeamct
from ._checks import _check_finite, _check_geometry, _number, _sizes, _volume_grid
from ._conebeamct import Geometry
from ._conventions import (
    Hardware,
    MemoryBudget,
    Point3,
    Progress,
    VolumeShape,
    VoxelSpacing,
    WindowName,
    _fov_mode,
    documented,
)
from ._images import Projections, Volume, _as_input
from ._memory import _bytes, _check_memory, _memory_budget

GatingShape = Literal["rectangular", "triangular"]


def _phases_list(phases: Any, count: int) -> List[float]:
    """The phases as floats (numpy, lists, a CPU torch tensor, or a CuPy array, copied to the host)."""
    if hasattr(phases, "get") and not isinstance(phases, (np.ndarray, dict)):
        phases = phases.get()  # CuPy: to the host
    if hasattr(phases, "detach"):
        phases = phases.detach().cpu().numpy()  # torch
    values = np.asarray(phases, dtype=np.float64)
    if values.ndim != 1:
        raise ValueError(f"phases has shape {values.shape}; expected one phase per projection, shape ({count},)")
    if values.shape[0] != count:
        raise ValueError(f"phases has {values.shape[0]} values; expected one per projection of geometry ({count})")
    return _phase_values(values)


def _phase_values(values: np.ndarray) -> List[float]:
    """The phases (one per projection, already counted) as floats, or a ValueError naming the first
    that is not a finite value in [0, 1): 4D FDK's and 4D ROOSTER's check."""
    bad = np.flatnonzero(~(np.isfinite(values) & (values >= 0.0) & (values < 1.0)))
    if bad.size:
        raise ValueError(
            f"phases[{int(bad[0])}] is {float(values[bad[0]])!r}; expected a finite breathing phase in [0, 1) "
            f"({bad.size} such values)"
        )
    return [float(v) for v in values]


def _checked_projections(projections: Any, geometry: Any) -> Any:
    """The projections as a checked Projections (finite, one per projection of the checked geometry)."""
    checked, _ = _as_input(projections, "projections", Projections)
    _check_finite(checked.array, "projections")
    _check_geometry(geometry)
    if checked.array.shape[0] != len(geometry):
        raise ValueError(f"projections has {checked.array.shape[0]} projections but geometry has {len(geometry)}")
    return checked


def _frame_volumes(array: np.ndarray, info: dict, spacing: Any, origin: Any) -> List[Any]:
    """One Volume per frame of a (frame, z, y, x) array, each info with its frame and phase f/N."""
    frames = array.shape[0]
    return [
        Volume(np.ascontiguousarray(array[f]), spacing, origin, info=dict(info, frame=f, phase=f / frames))
        for f in range(frames)
    ]


@documented
def fourd_fdk(
    projections: "Projections",
    geometry: "Geometry",
    phases: Union[Sequence[float], np.ndarray, Any],
    shape: VolumeShape,
    spacing: VoxelSpacing = 1.0,
    origin: Optional[Point3] = None,
    frames: int = 10,
    gating_window: float = 0.0,
    gating_shape: GatingShape = "rectangular",
    window: WindowName = "ramlak",
    cutoff: float = 1.0,
    hardware: Hardware = "auto",
    progress: Progress = None,
    displaced: bool = True,
    pad: float = 0.0,
    hann_cutoff_v: float = 0.0,
    fov: Optional[str] = None,
    memory: MemoryBudget = None,
) -> List["Volume"]:
    """Respiratory-correlated (4D) FDK, as ``cbct-fourdfdk`` does it: one volume per breathing phase,
    each an FDK of the projections of that phase.

    Frame f of ``frames`` is centred at phase f / frames. By default each projection goes to its
    nearest frame (a rectangular window of 1/frames of the cycle), so each is backprojected once. A
    frame's projections come in clusters (one per breathing cycle): each cluster stands for its share
    of the angle, spread evenly over its projections, so that a frame keeps FDK's scale and is the
    average of the object over the phases of its window.

    Parameters
    ----------
{projections}
    phases : sequence of float, shape (len(geometry),)
        The breathing phase of each projection in [0, 1), in projection order (RTK's signal file;
        numpy, a list, a torch tensor or a CuPy array).
{grid}
    frames : int
        The number of frames (breathing phases), >= 1 (``--frames``).
    gating_window : float
        Each frame's window as a fraction of the breathing cycle, in [0, 1]; 0: 1/frames for the
        rectangular window, 2/frames for the triangular (``--gating-window``).
    gating_shape : str
        'rectangular' (weight 1 inside the window) or 'triangular' (1 at the frame's phase, 0 at the
        window's edge).
    window : str
        The ramp filter's window: 'ramlak' (none), 'shepplogan', 'cosine', 'hamming' or 'hann'.
    cutoff : float
        The window's cut-off frequency in (0, 1], a fraction of Nyquist.
    hardware : str
        'cpu', 'cuda' or 'auto' (CUDA when the build has it and a device is present; the projections
        are then uploaded once for all frames).
{progress}
    displaced : bool
        Displaced-detector weighting where the detector needs it; False switches it off.
    pad : float
        Truncation correction: each row extended by this fraction of the detector width, >= 0.
    hann_cutoff_v : float
        A Hann low-pass along v with this cut-off in (0, 1], a fraction of Nyquist; 0: none.
{fov}
        The whole scan's field of view: the same voxels in every frame.
{memory}

    Returns
    -------
    list of Volume
        One volume per frame (attenuation per mm, array (nz, ny, nx) float32 in (z, y, x) order,
        spacing and origin (x, y, z) in mm); ``numpy.stack([numpy.asarray(v) for v in frames])`` is
        the 4D (frame, z, y, x) array. Each ``info`` has the hardware, ``frame``, ``phase``,
        ``projections_per_frame`` and the stage seconds of the whole run.

    Raises
    ------
    ValueError
        For phases that are not one finite value in [0, 1) per projection (naming the first bad
        index), projections holding NaN, a bad argument (named), a frame without projections, or a
        run that needs more than ``memory`` (saying what it needs).
    ITKError
        For an error of the C++ library.

    Notes
    -----
    The GIL is released while it runs.
    """
    checked = _checked_projections(projections, geometry)
    values = _phases_list(phases, len(geometry))
    count = _sizes(frames, "frames", 1, "an integer number of breathing phases >= 1")[0]
    xyz, step, first = _volume_grid(shape, spacing, origin)
    hann = _number(hann_cutoff_v, "hann_cutoff_v", "a cut-off in (0, 1] as a fraction of Nyquist, or 0 for none", 0.0, 1.0)
    budget = _memory_budget(memory)
    if budget is not None:  # as cbct-fourdfdk counts it, less the projections given
        voxels = int(np.prod(xyz))
        parts = [
            ("filtered projections", _bytes(checked.array.size)),
            ("4D volume", _bytes(voxels, count)),
            ("frame buffers", _bytes(voxels, 2)),
        ]
        _check_memory(memory, budget, "the 4D reconstruction", parts,
                      "a smaller volume (shape, or a coarser spacing) or fewer frames")
    try:
        array, info = _conebeamct._fourd_fdk(
            checked.array,
            checked.spacing,
            checked.origin,
            geometry,
            values,
            count,
            float(gating_window),
            str(gating_shape),
            xyz,
            step,
            first,
            str(window),
            float(cutoff),
            bool(displaced),
            str(hardware),
            float(pad),
            hann,
            _fov_mode(fov),
            progress,
        )
    except _conebeamct.ITKError as error:
        if "without projections" in str(error):
            raise ValueError(str(error)) from None
        raise
    return _frame_volumes(array, info, step, first)
