"""Forward projection and backprojection: :class:`Projector`, :func:`forward_project`,
:func:`back_project`."""

from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from . import _arrays
from . import _conebeamct
from ._checks import _centred, _check_geometry, _is_itk_image, _numbers, _sizes, _volume_grid
from ._conebeamct import Geometry
from ._conventions import (
    BackprojectorName,
    DetectorSize,
    DeviceHardware,
    PixelSpacing,
    Point2,
    Point3,
    ProjectorName,
    VolumeShape,
    VoxelSpacing,
    documented,
    renamed,
)
from ._images import Image, Projections, Volume, _as_input

_PROJECTORS = ("joseph", "raycast")
_BACKPROJECTORS = ("adjoint", "voxel")


def _choice(value, name, choices):
    if value not in choices:
        raise ValueError(f"{name} is {value!r}; expected " + " or ".join(repr(c) for c in choices))
    return value


class Projector:
    """The system matrix A of a scan: ``forward(x)`` = A x projects a volume onto the detector for
    every projection of ``geometry``, ``back(y)`` = A^T y backprojects a projection stack.

    A CUDA projector takes CUDA arrays (PyTorch tensors, CuPy arrays) on its device without any host
    copy and returns results there; given numpy arrays it uploads, computes and downloads. A CPU
    projector takes host arrays (numpy, PyTorch CPU tensors). Arrays are float32 (z, y, x): volumes
    ``volume_shape`` = (nz, ny, nx), projections ``projection_shape`` = (projections, V, U); a numpy
    array of another real dtype is converted, a CUDA array must be float32 and contiguous already
    (TypeError otherwise). Inputs with NaN or infinities raise ValueError (``check_finite=False``
    skips that scan). The GIL is released while it works.

    Parameters
    ----------
    geometry : Geometry
        The scan, one entry per projection (mm, degrees).
    shape : int or (nz, ny, nx)
        The volume's voxels: N for a cube, or its array's shape (z, y, x); integers >= 1.
    detector_size : int or (U, V)
        The detector's pixels, u (columns) first; integers >= 1.
    spacing : float or (sx, sy, sz)
        The voxel size in mm, (x, y, z) order, each > 0.
    detector_spacing : float or (su, sv)
        The pixel size in mm, each > 0.
    origin : (x, y, z), optional
        The centre of the first voxel in world mm; by default the volume centred on the isocenter.
    detector_origin : (u0, v0), optional
        The centre of the first pixel in mm; by default the detector centred.
    projector : str
        'joseph' (Joseph's: bilinear across the ray, exact along its dominant axis) or 'raycast'
        (trilinear samples every ``step`` mm).
    backprojector : str
        'adjoint' (the exact transpose of the forward projector) or 'voxel' (voxel-based, as RTK and
        TIGRE backproject for SART: not the exact adjoint).
    step : float
        The ray caster's sample distance in mm, >= 0 (0: the smallest voxel spacing).
    hardware : str
        'cpu' or 'cuda'.
    device : int
        The CUDA device with hardware='cuda', >= 0.
    """

    spacing: Tuple[float, float, float]
    origin: Tuple[float, float, float]
    detector_spacing: Tuple[float, float]
    detector_origin: Tuple[float, float]

    def __init__(
        self,
        geometry: Geometry,
        shape: VolumeShape,
        detector_size: DetectorSize,
        spacing: VoxelSpacing = 1.0,
        detector_spacing: PixelSpacing = 1.0,
        origin: Optional[Point3] = None,
        detector_origin: Optional[Point2] = None,
        projector: ProjectorName = "joseph",
        backprojector: BackprojectorName = "adjoint",
        step: float = 0.0,
        hardware: DeviceHardware = "cpu",
        device: int = 0,
    ) -> None:
        _check_geometry(geometry)
        xyz, self.spacing, self.origin = _volume_grid(shape, spacing, origin)
        uv = _sizes(detector_size, "detector_size", 2, "N or (U, V) pixels, integers >= 1")
        self.detector_spacing = _numbers(detector_spacing, "detector_spacing", 2, "a pixel size > 0 in mm, or (su, sv)",
                                         positive=True)
        self.detector_origin = (
            _centred(uv, self.detector_spacing)
            if detector_origin is None
            else _numbers(detector_origin, "detector_origin", 2, "(u0, v0) in mm")
        )
        self.projector = _choice(projector, "projector", _PROJECTORS)
        self.backprojector = _choice(backprojector, "backprojector", _BACKPROJECTORS)
        step = _numbers(step, "step", 1, "a ray-cast sample distance >= 0 in mm (0: the smallest voxel spacing)")[0]
        if step < 0:
            raise ValueError(f"step is {step!r}; expected a ray-cast sample distance >= 0 in mm (0: the smallest voxel spacing)")
        _choice(hardware, "hardware", ("cpu", "cuda"))
        if isinstance(device, bool) or not isinstance(device, (int, np.integer)) or device < 0:
            raise ValueError(f"device is {device!r}; expected a CUDA device index >= 0")
        self.geometry = geometry
        self._operator = _conebeamct._Projector(
            geometry, xyz[::-1], self.spacing, self.origin, uv[::-1], self.detector_spacing, self.detector_origin,
            projector, backprojector, float(step), hardware, int(device),
        )

    @classmethod
    def for_images(cls, geometry: Geometry, volume: Volume, projections: Projections, **options: Any) -> Projector:
        """The projector between the grids of ``volume`` (:class:`Volume` or ``itk.Image``: its array
        shape (z, y, x), spacing and origin in mm) and ``projections`` (:class:`Projections` or
        ``itk.Image``: (projection, v, u), detector spacing and origin in mm); ``options``
        (``projector``, ``backprojector``, ``step``, ``hardware``, ``device``) as the constructor's."""
        v, _ = _as_input(volume, "volume", Volume)
        p, _ = _as_input(projections, "projections", Projections)
        return cls(geometry, v.array.shape, p.array.shape[:0:-1], v.spacing, p.spacing[:2], v.origin, p.origin[:2],
                   **options)

    @property
    def hardware(self) -> str:
        """'cpu' or 'cuda:N'."""
        return self._operator.hardware

    @property
    def volume_shape(self) -> Tuple[int, int, int]:
        """The volume's array shape, (nz, ny, nx)."""
        return self._operator.volume_shape

    @property
    def projection_shape(self) -> Tuple[int, int, int]:
        """The projections' array shape, (projections, V, U)."""
        return self._operator.projection_shape

    def _apply(self, x, forward, check_finite):
        if isinstance(x, Image) or _is_itk_image(x):
            cls, name = (Volume, "volume") if forward else (Projections, "projections")
            checked, from_itk = _as_input(x, name, cls)
            spacing, origin = (self.spacing, self.origin) if forward else (self.detector_spacing + (1.0,), self.detector_origin + (0.0,))
            if not (np.allclose(checked.spacing, spacing, rtol=1e-6, atol=0) and np.allclose(checked.origin, origin, rtol=0, atol=1e-6)):
                raise ValueError(f"{name} has spacing {checked.spacing} and origin {checked.origin}; this projector's "
                                 f"grid has spacing {spacing} and origin {origin}")
            result = getattr(self._operator, "forward" if forward else "back")(checked.array, check_finite)
            out = (Projections(result, self.detector_spacing + (1.0,), self.detector_origin + (0.0,)) if forward
                   else Volume(result, self.spacing, self.origin))
            return out.to_itk() if from_itk else out
        kind = _arrays.Kind(x)
        name = "volume" if forward else "projections"
        array = _arrays.library_array(x, name)
        result = getattr(self._operator, "forward" if forward else "back")(array, check_finite)
        return kind.wrap(result)

    def forward(self, volume: Any, check_finite: bool = True) -> Any:
        """A x: the projections, shape (projections, V, U) float32, of ``volume`` (shape (nz, ny, nx),
        z, y, x), in the kind of array given (numpy, torch, CuPy; :class:`Volume` gives
        :class:`Projections`, ``itk.Image`` an ``itk.Image``); line integrals in (volume's unit) x mm.
        ``check_finite=False`` skips the NaN/infinity scan of the input."""
        return self._apply(volume, True, check_finite)

    def back(self, projections: Any, check_finite: bool = True) -> Any:
        """A^T y (or the voxel-based backprojection): a volume, shape (nz, ny, nx) (z, y, x) float32,
        from ``projections`` (shape (projections, V, U)), in the kind of array given
        (:class:`Projections` gives a :class:`Volume`). ``check_finite=False`` skips the NaN/infinity
        scan of the input."""
        return self._apply(projections, False, check_finite)

    def __repr__(self) -> str:
        return (f"<conebeamct.Projector {self.projector}/{self.backprojector} on {self.hardware}: volume "
                f"{self.volume_shape} -> projections {self.projection_shape}>")


@renamed(spacing="detector_spacing", origin="detector_origin")
@documented
def forward_project(
    volume: Volume,
    geometry: Geometry,
    detector_size: DetectorSize,
    detector_spacing: PixelSpacing = 1.0,
    detector_origin: Optional[Point2] = None,
    projector: ProjectorName = "joseph",
    step: float = 0.0,
    hardware: DeviceHardware = "cpu",
    device: int = 0,
) -> Projections:
    """The projections of ``volume`` for every projection of ``geometry``, as ``cbct-forward``
    computes them (the same bits on the CPU).

    Parameters
    ----------
    volume : Volume or itk.Image
        Array (z, y, x), spacing and origin (x, y, z) in mm (the projector's volume grid).
    geometry : Geometry
        The scan, one entry per projection (mm, degrees).
{detector}
    projector : str
        'joseph' or 'raycast', as :class:`Projector`'s.
    step : float
        The ray caster's sample distance in mm, >= 0 (0: the smallest voxel spacing).
    hardware : str
        'cpu' or 'cuda'.
    device : int
        The CUDA device with hardware='cuda'.

    Returns
    -------
    Projections
        Line integrals, array (len(geometry), V, U) float32; spacing (su, sv, 1), origin (u0, v0, 0)
        in mm. An ``itk.Image`` for an ``itk.Image``.
    """
    checked, from_itk = _as_input(volume, "volume", Volume)
    A = Projector(geometry, checked.array.shape, detector_size, checked.spacing, detector_spacing, checked.origin,
                  detector_origin, projector=projector, step=step, hardware=hardware, device=device)
    result = A.forward(checked)
    return result.to_itk() if from_itk else result


@documented
def back_project(
    projections: Projections,
    geometry: Geometry,
    shape: VolumeShape,
    spacing: VoxelSpacing = 1.0,
    origin: Optional[Point3] = None,
    projector: ProjectorName = "joseph",
    backprojector: BackprojectorName = "adjoint",
    step: float = 0.0,
    hardware: DeviceHardware = "cpu",
    device: int = 0,
) -> Volume:
    """The backprojection of ``projections`` onto a volume grid: the transpose of ``projector``
    ('adjoint') or the voxel-based backprojector ('voxel'). No filtering: this is A^T y, not a
    reconstruction.

    Parameters
    ----------
{projections}
{grid}
    projector : str
        'joseph' or 'raycast': the forward projector whose transpose 'adjoint' is.
    backprojector : str
        'adjoint' or 'voxel'.
    step : float
        The ray caster's sample distance in mm, >= 0 (0: the smallest voxel spacing).
    hardware : str
        'cpu' or 'cuda'.
    device : int
        The CUDA device with hardware='cuda'.

    Returns
    -------
    Volume
        Array (nz, ny, nx) float32 in (z, y, x) order, spacing and origin (x, y, z) in mm. An
        ``itk.Image`` for an ``itk.Image``.
    """
    checked, from_itk = _as_input(projections, "projections", Projections)
    A = Projector(geometry, shape, checked.array.shape[:0:-1], spacing, checked.spacing[:2], origin, checked.origin[:2],
                  projector=projector, backprojector=backprojector, step=step, hardware=hardware, device=device)
    result = A.back(checked)
    return result.to_itk() if from_itk else result
