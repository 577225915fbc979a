"""ConeBeamCT from Python: cone-beam CT geometry, phantoms, FDK reconstruction, and emission
tomography (SPECT): the emission projector with attenuation and collimator blur, Poisson counts, OSEM,
and total-variation reconstruction for few views (ASD-POCS, ADMM-TV).

Images are :class:`Image` objects (:class:`Projections`, :class:`Volume`): a C-contiguous float32
numpy ``array`` in (z, y, x) order -- numpy's order, ITK's reversed -- with ``spacing`` and
``origin`` in (x, y, z) order and in mm, as ITK gives them. For projections z is the projection
index, y the detector row v and x the column u. Functions also accept an ``itk.Image`` wherever
they take an image (when the ``itk`` package is installed) and then return ``itk.Image`` results.

Arrays are checked: another real dtype is converted to a float32 copy, a non-contiguous array to a
contiguous copy, and a wrong number of dimensions raises ValueError naming the argument, its shape
and what was expected. Errors from the C++ library raise :class:`ITKError` (a RuntimeError) with the
library's message.

Wrapped: :class:`Geometry` (cone beam, or parallel beam with sdd=0), :func:`project_phantom`,
:func:`voxelize_phantom`, :func:`preprocess` (real scans: intensities to line integrals, crop,
binning, median, scatter and water precorrection, as RTK's options), :func:`fdk`; the projectors
(:class:`Projector`, :func:`forward_project`, :func:`back_project`), which also take CUDA arrays
(PyTorch, CuPy) on their device without copies; the iterative methods :func:`sart` (SART, OS-SART),
:func:`sirt`, :func:`cgls`, :func:`osem` (as ``cbct-osem``, with any of its projectors, the emission
one included); for emission data :func:`emission_project` (as ``cbct-forward --fp emission``) and
:func:`poisson_noise` (as ``cbct-simulate --poisson``); the total-variation methods for few views
:func:`asd_pocs` and :func:`admm_tv`; :func:`read_scan` reads a scanner's scan (Varian, Elekta XVI, Nikon, Bruker) as
``cbct-import`` does; :meth:`Image.save` and :func:`load` write and read image files
(.mha, .nrrd, .nii, .tif) as the command-line apps do: written beside their place and renamed into
place when complete, read only when the file holds all the pixels its header promises; and, with
PyTorch installed, ``conebeamct.torch`` (autograd Functions of the projectors).

Names: one scheme across every function (wrapping/README.md, "Names"): ``iterations``,
``projections_per_subset``, ``tv_iterations``, ``cg_iterations``, ``detector_spacing``, ... Keywords
renamed to it keep working under their old names with a DeprecationWarning naming the new one.
Units: mm for lengths, degrees for angles. Every public function has type hints (the package ships
``py.typed``).
"""

from __future__ import annotations

import math
import os
import sys
from typing import Any, Dict, Literal, Optional, Sequence, Tuple, Type, TypeVar, Union, overload

import numpy as np

from ._conebeamct import (
    DeviceArray,
    Geometry,
    ITKError,
    cuda_device,
    get_number_of_threads,
    has_cuda,
    has_cuda_arrays,
    set_number_of_threads,
)
from . import _conebeamct
from ._conventions import (
    ArrayLike,
    BackprojectorName,
    DetectorSize,
    DeviceHardware,
    Hardware,
    PixelSpacing,
    Point2,
    Point3,
    Progress,
    VolumeShape,
    VoxelSpacing,
    WindowName,
    _fov_mode,
    documented,
    renamed,
)

__all__ = [
    "DeviceArray",
    "admm_tv",
    "asd_pocs",
    "Geometry",
    "Image",
    "Projector",
    "ITKError",
    "Projections",
    "Volume",
    "back_project",
    "breathing_signal",
    "calibrate",
    "cgls",
    "cuda_device",
    "emission_project",
    "fdk",
    "forward_project",
    "fourd_rooster",
    "fourd_fdk",
    "get_number_of_threads",
    "has_cuda",
    "has_cuda_arrays",
    "load",
    "osem",
    "poisson_noise",
    "preprocess",
    "project_phantom",
    "read_scan",
    "sart",
    "set_number_of_threads",
    "sirt",
    "voxelize_phantom",
]

__version__ = "0.1.0"


def _shape_text(shape):
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def as_float32(array: ArrayLike, name: str, ndim: int = 3, expected: str = "3 dimensions (z, y, x)") -> np.ndarray:
    """``array`` as a C-contiguous float32 numpy array of ``ndim`` dimensions.

    No copy when it is one already; a copy converted to float32 for another real dtype (bool,
    integers, float16, float64: float64 values are rounded to float32) and a contiguous copy for a
    strided view. Complex and non-numeric arrays raise TypeError; a wrong number of dimensions or an
    empty axis raises ValueError naming ``name``.
    """
    a = np.asarray(array)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name} has dtype {a.dtype}; expected real numbers (float32, or a real dtype to convert)")
    if a.ndim != ndim:
        raise ValueError(f"{name} has shape {_shape_text(a.shape)}; expected {expected}")
    if 0 in a.shape:
        raise ValueError(f"{name} has shape {_shape_text(a.shape)}; expected no empty axis")
    return np.ascontiguousarray(a, dtype=np.float32)


def _numbers(value, name, count, what, positive=False):
    """A number or ``count`` numbers as a tuple of ``count`` finite floats."""
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} is {value!r}; expected {what}") from None
    if a.ndim == 0:
        a = np.full(count, a)
    if a.shape != (count,) or not np.all(np.isfinite(a)) or (positive and not np.all(a > 0)):
        raise ValueError(f"{name} is {value!r}; expected {what}")
    return tuple(float(v) for v in a)


def _sizes(value, name, count, what):
    """A positive integer or ``count`` of them as a tuple of ints."""
    values = (value,) * count if np.ndim(value) == 0 else tuple(value) if np.ndim(value) == 1 else ()
    if len(values) != count:
        raise ValueError(f"{name} is {value!r}; expected {what}")
    result = []
    for v in values:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} is {value!r}; expected {what}")
        result.append(int(v))
    return tuple(result)


def _is_itk_image(obj):
    return "itk" in sys.modules and hasattr(obj, "GetLargestPossibleRegion") and hasattr(obj, "GetSpacing")


_ImageT = TypeVar("_ImageT", bound="Image")


class Image:
    """A 3D image: ``array`` (z, y, x) float32, ``spacing`` and ``origin`` (x, y, z) in mm.

    ``origin`` is the centre of the first voxel, as in ITK. The array is checked and converted as
    :func:`as_float32` says (no copy when it is already a C-contiguous float32 array).
    ``numpy.asarray(image)`` is ``image.array`` itself (no copy), so an image goes wherever numpy
    takes an array.

    Parameters
    ----------
    array : array_like, 3 dimensions (z, y, x)
        The pixels; a C-contiguous float32 array is kept without a copy, another real dtype or a
        strided view is converted to a float32 contiguous copy.
    spacing : float or (sx, sy, sz)
        The voxel size in mm, in (x, y, z) order (the array's axes reversed), each > 0.
    origin : (x, y, z)
        The centre of the first voxel (array index [0, 0, 0]) in mm.
    """

    array: np.ndarray
    spacing: Tuple[float, float, float]
    origin: Tuple[float, float, float]

    def __init__(
        self, array: ArrayLike, spacing: VoxelSpacing = (1.0, 1.0, 1.0), origin: Point3 = (0.0, 0.0, 0.0)
    ) -> None:
        self.array = as_float32(array, "array")
        self.spacing = _numbers(spacing, "spacing", 3, "a spacing > 0 in mm, or 3 of them (x, y, z)", positive=True)
        self.origin = _numbers(origin, "origin", 3, "3 coordinates (x, y, z) in mm")
        self._base = None  # an itk.Image this array is a view of

    @property
    def shape(self) -> Tuple[int, int, int]:
        """The array's shape, (z, y, x)."""
        return self.array.shape  # type: ignore[return-value]  # always 3 dimensions

    def __array__(self, dtype: Any = None, copy: Optional[bool] = None) -> np.ndarray:
        """The pixels for ``numpy.asarray(image)``: ``self.array``, float32 of shape (z, y, x) (for
        :class:`Projections` (projection, v, u)), without a copy unless ``dtype`` asks for another
        type or ``copy`` is True; ``copy=False`` with another dtype raises ValueError (numpy 2's rule)."""
        array = self.array
        if dtype is not None and np.dtype(dtype) != array.dtype:
            if copy is False:
                raise ValueError(
                    f"numpy.asarray(..., dtype={np.dtype(dtype)}, copy=False): the image is float32; converting "
                    "needs a copy"
                )
            return array.astype(dtype)
        return array.copy() if copy else array

    def axis(self, d: int) -> np.ndarray:
        """World coordinates (mm) of the voxel centres along axis d: 0 for x, 1 for y, 2 for z (for
        projections: u, v, projection index); a float64 array of ``shape[2 - d]`` values."""
        n = self.array.shape[2 - d]
        return self.origin[d] + self.spacing[d] * np.arange(n)

    def to_itk(self) -> Any:
        """An ``itk.Image[itk.F, 3]`` sharing this array's memory (no copy), with this spacing and
        origin (mm) and the identity direction."""
        import itk

        image = itk.GetImageViewFromArray(self.array)
        image.SetSpacing(self.spacing)
        image.SetOrigin(self.origin)
        return image

    @classmethod
    def from_itk(cls: Type[_ImageT], image: Any, name: str = "image") -> _ImageT:
        """The image of an ``itk.Image`` of 3 dimensions and identity direction: a view of its
        memory when its pixels are float32 (a converted copy otherwise)."""
        import itk

        if image.GetImageDimension() != 3:
            raise ValueError(f"{name} is an itk.Image of {image.GetImageDimension()} dimensions; expected 3")
        direction = np.asarray(itk.array_from_matrix(image.GetDirection()))
        if not np.allclose(direction, np.eye(3), rtol=0, atol=1e-9):
            raise ValueError(f"{name} has direction {direction.tolist()}; expected the identity (ConeBeamCT images are axis-aligned)")
        result = cls(
            itk.GetArrayViewFromImage(image),
            spacing=tuple(image.GetSpacing()),
            origin=tuple(image.GetOrigin()),
        )
        result._base = image
        return result

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes the image to ``path`` (.mha, .mhd, .nrrd, .nii, .nii.gz, .tif), as the apps do: to a
        file beside it first, renamed into place once complete, so that a failure (a full disk, an
        interrupt) leaves a file already there as it was. Spacing and origin are written in mm."""
        _conebeamct._write_image(self.array, self.spacing, self.origin, os.fspath(path))

    def __repr__(self) -> str:
        return (
            f"<conebeamct.{type(self).__name__} array {_shape_text(self.array.shape)} (z, y, x) float32, "
            f"spacing {self.spacing}, origin {self.origin} (x, y, z) mm>"
        )


class Projections(Image):
    """A projection stack of line integrals, one slice per projection of a :class:`Geometry`.

    ``numpy.asarray(projections)`` is the (projection, v, u) array, no copy. ``info``: what made
    them, where a function says (:func:`preprocess`).

    Parameters
    ----------
    array : array_like, 3 dimensions (projection, v, u)
        The pixels (u: the detector's columns, v: its rows), converted as :class:`Image` says.
    spacing : (su, sv, 1)
        The detector's pixel size in mm, then 1 for the projection index.
    origin : (u0, v0, 0)
        The centre of the detector's first pixel in mm, then 0.
    """

    info: Dict[str, Any]


class Volume(Image):
    """A volume in world mm, y the rotation axis. ``numpy.asarray(volume)`` is the (z, y, x) array,
    no copy.

    Parameters
    ----------
    array : array_like, 3 dimensions (z, y, x)
        The voxels, converted as :class:`Image` says.
    spacing : float or (sx, sy, sz)
        The voxel size in mm, (x, y, z) order.
    origin : (x, y, z)
        The centre of the first voxel in world mm.
    info : dict, optional
        What made it (for :func:`fdk`: the hardware and each stage's seconds), kept as ``info``.
    """

    info: Dict[str, Any]

    def __init__(
        self,
        array: ArrayLike,
        spacing: VoxelSpacing = (1.0, 1.0, 1.0),
        origin: Point3 = (0.0, 0.0, 0.0),
        info: Optional[Dict[str, Any]] = None,
    ) -> None:
        super().__init__(array, spacing, origin)
        self.info = dict(info or {})


@overload
def load(path: Union[str, "os.PathLike[str]"], kind: None = None) -> Volume: ...


@overload
def load(path: Union[str, "os.PathLike[str]"], kind: Type[_ImageT]) -> _ImageT: ...


def load(path: Union[str, "os.PathLike[str]"], kind: Optional[Type[Image]] = None) -> Image:
    """Reads an image file (.mha, .mhd, .nrrd, .nii, .nii.gz, .tif, ...) as the apps do.

    Its header is checked against its data first (a file cut short raises ITKError naming the bytes
    expected and found), it must be scalar and at most 3D, and a negative spacing or flipped axes are
    put on a grid with positive spacing and the identity direction (every pixel where it was).

    Parameters
    ----------
    path : str or os.PathLike
        The image file.
    kind : Volume (default) or Projections
        What the file holds: a volume (array (z, y, x), spacing and origin (x, y, z) in mm) or a
        projection stack (array (projection, v, u), spacing (su, sv, 1), origin (u0, v0, 0) in mm: the
        third axis counts projections).

    Returns
    -------
    Volume or Projections
        An instance of ``kind``, array float32.
    """
    kind = Volume if kind is None else kind
    if kind not in (Volume, Projections, Image):
        raise TypeError(f"kind is {kind!r}; expected conebeamct.Volume or conebeamct.Projections")
    name = os.fspath(path)
    if not os.path.isfile(name):
        raise FileNotFoundError(f"path is {name!r}: no such file (expected an image file)")
    array, spacing, origin = _conebeamct._read_image(name, kind is Projections)
    return kind(array, spacing, origin)


def read_scan(
    path: Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]],
    format: Optional[str] = None,
    raw: bool = False,
    air_fallback: bool = False,
    air_fallback_i0: float = 0.0,
) -> Tuple[Projections, Geometry]:
    """Reads a scanner's scan as ``cbct-import`` does: its projections and its geometry.

    The vendor is detected from the path's contents (Varian TrueBeam/ProBeam ``Scan.xml`` + XIM or OBI
    ``ProjectionInfo.xml`` + HND, Elekta XVI ``_Frames.xml`` or ``FRAME.DBF`` + HIS, Nikon ``.xtekct``
    + TIFF, Bruker SkyScan ``.log`` + TIFF), or named by ``format``. The projection files are read in
    parallel and stacked on the detector grid the vendor's files give; the geometry is converted to
    RTK's convention (docs/guide/scanner-data.md lists what is read from each vendor's files).

    Parameters
    ----------
    path : str or os.PathLike, or a sequence of them
        The scan's folder, or its file (a ``.xtekct``, a ``_Frames.xml``, a lone ``.xim``, ...); several
        are read as one scan, one after the other (e.g. lone ``.xim`` files), and must share one
        detector grid.
    format : {"varian", "elekta", "nikon", "bruker"}, optional
        Read the scan as this vendor's, skipping the detection (the names in the order detection tries
        them).
    raw : bool
        False: line integrals (the vendor's air, flood and dark calibration applied), float32.
        True: the detector readings exactly as stored, the array in the files' own dtype (e.g.
        ``uint16``; the reconstruction functions take float32 line integrals, so convert them first,
        e.g. with :func:`preprocess`).
    air_fallback : bool
        Varian (TrueBeam, OBI) without an air scan under ``Calibrations/``: normalise with a constant
        I0 instead of failing, as ``cbct-import --air-fallback`` (logged in ``info["log"]``). Other
        vendors ignore it.
    air_fallback_i0 : float
        That I0, in counts at the scan's mean norm-chamber reading, finite and >= 0; 0 (the default):
        the stack's brightest reading. Only with ``air_fallback``.

    Returns
    -------
    projections : Projections
        Array (projection, v, u); spacing (su, sv, 1) and origin (u0, v0, 0) in mm. ``info`` holds
        ``"format"`` (what was found, e.g. ``"Elekta XVI 5 (HIS + _Frames.xml)"``), ``"log"`` (every
        conversion made and every vendor field used, one string each), ``"files"`` (the projection
        files, in the geometry's order), ``"raw"`` and ``"path"`` (the path, or the list of them).
    geometry : Geometry
        One projection per file, in RTK's convention.

    Raises
    ------
    FileNotFoundError
        The path does not exist.
    ValueError
        ``format`` names no vendor this build reads.
    ITKError
        No vendor recognises the path (the message lists what each looked for), or a file is
        missing, damaged or of another size than the first (the message names it).
    """
    several = isinstance(path, (list, tuple))
    names = [os.fspath(p) for p in path] if several else [os.fspath(path)]
    if not names:
        raise ValueError("path is an empty sequence; expected a scan folder or file, or several")
    for name in names:
        if not os.path.exists(name):
            raise FileNotFoundError(f"path is {name!r}: no such file or folder (expected a scan folder or file)")
    if format is not None:
        if not isinstance(format, str) or format.lower() not in _conebeamct._scan_formats():
            names = ", ".join(_conebeamct._scan_formats())
            raise ValueError(f"format is {format!r}; expected one of {names} (or None to detect it)")
    i0 = float(air_fallback_i0)
    if not math.isfinite(i0) or i0 < 0.0:
        raise ValueError(f"air_fallback_i0 is {air_fallback_i0!r}; expected a finite I0 >= 0 (0: the brightest reading)")
    if i0 != 0.0 and not air_fallback:
        raise ValueError(f"air_fallback_i0 is {air_fallback_i0!r} but air_fallback is False; expected "
                         "air_fallback=True with it (the I0 is used only without an air scan)")
    array, spacing, origin, geometry, info = _conebeamct._read_scan(names, format or "", bool(raw), bool(air_fallback),
                                                                    i0)
    if raw:
        # The readings keep their dtype: the array is set past Image's float32 conversion.
        projections = Projections(np.zeros((1, 1, 1), np.float32), spacing, origin)
        projections.array = array
    else:
        projections = Projections(array, spacing, origin)
    projections.info = dict(info)
    return projections, geometry


def _check_finite(array, name):
    """Raises ValueError for NaN or infinities, naming how many and where the first is."""
    # A float64 sum of float32 values cannot overflow, so it is finite exactly when every value is
    # (NaN and infinities propagate): one pass, no temporary array.
    if np.isfinite(array.sum(dtype=np.float64)):
        return
    bad = np.argwhere(~np.isfinite(array))
    first = tuple(int(i) for i in bad[0])
    raise ValueError(
        f"{name} has {len(bad)} non-finite values (NaN or infinity; the first at index {first}); expected "
        "finite values (numpy.nan_to_num(array, nan=0.0, posinf=0.0, neginf=0.0) replaces them)"
    )


def _as_input(image, name, cls):
    """(image object, came from itk): accepts an :class:`Image` or an ``itk.Image``."""
    if isinstance(image, Image):
        # Re-checked: the attributes may have been replaced since.
        checked = cls.__new__(cls)
        Image.__init__(checked, image.array, image.spacing, image.origin)
        return checked, False
    if _is_itk_image(image):
        return cls.from_itk(image, name), True
    if isinstance(image, np.ndarray):
        raise TypeError(
            f"{name} is a bare numpy array; give conebeamct.{cls.__name__}(array, spacing, origin) "
            "(spacing and origin in (x, y, z) order, mm) or an itk.Image"
        )
    raise TypeError(f"{name} is a {type(image).__name__}; expected a conebeamct.{cls.__name__} or an itk.Image")


def _phantom(phantom):
    name = os.fspath(phantom)
    if not isinstance(name, str):
        raise TypeError(f"phantom is {phantom!r}; expected 'shepplogan', 'beads' or the path of a phantom text file")
    if name.lower() not in ("shepplogan", "shepp-logan", "shepp_logan", "beads") and not os.path.isfile(name):
        raise FileNotFoundError(
            f"phantom is {name!r}: no such file (expected 'shepplogan', 'beads' or a phantom text file)"
        )
    return name


def _centred(sizes, spacing):
    return tuple(-0.5 * (n - 1) * s for n, s in zip(sizes, spacing))


def _check_geometry(geometry):
    if not isinstance(geometry, Geometry):
        raise TypeError(f"geometry is a {type(geometry).__name__}; expected a conebeamct.Geometry")
    if len(geometry) == 0:
        raise ValueError("geometry has no projections")


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
    zyx = _sizes(shape, "shape", 3, "N or (nz, ny, nx) voxels, integers >= 1")
    xyz = zyx[::-1]
    step = _numbers(spacing, "spacing", 3, "a voxel size > 0 in mm, or (sx, sy, sz)", positive=True)
    first = _centred(xyz, step) if origin is None else _numbers(origin, "origin", 3, "(x, y, z) in mm")
    count = _sizes(supersampling, "supersampling", 1, "an integer >= 1")[0]
    array = _conebeamct._voxelize_phantom(xyz, step, first, _phantom(phantom), float(scale), count, progress)
    return Volume(array, step, first, info={"phantom": os.fspath(phantom), "supersampling": count})


@renamed(hann_y="hann_cutoff_v")
@documented
def fdk(
    projections: Projections,
    geometry: Geometry,
    shape: VolumeShape,
    spacing: VoxelSpacing = 1.0,
    origin: Optional[Point3] = None,
    window: WindowName = "ramlak",
    cutoff: float = 1.0,
    hardware: Hardware = "auto",
    progress: Progress = None,
    displaced: bool = True,
    divisions: int = 1,
    pad: float = 0.0,
    hann_cutoff_v: float = 0.0,
    fov: Optional[str] = None,
) -> Volume:
    """Feldkamp-Davis-Kress reconstruction, as ``cbct-fdk`` does it (bit for bit on the CPU):
    cosine (and, for short scans, Parker; for a displaced detector, displaced-detector) weighting,
    ramp filtering along u, voxel-driven backprojection.

    Real scans: :func:`preprocess` the detector readings into line integrals first.

    Parameters
    ----------
{projections}
{grid}
    window : str
        The ramp filter's window: 'ramlak' (none), 'shepplogan', 'cosine', 'hamming' or 'hann'.
    cutoff : float
        The window's cut-off frequency in (0, 1], a fraction of Nyquist (``cbct-fdk --cutoff``).
    hardware : str
        'cpu', 'cuda' or 'auto' (CUDA when the build has it, :func:`has_cuda`, and a device is
        present).
{progress}
    displaced : bool
        Displaced-detector weighting (for a detector offset so that it sees only part of the object
        at each angle); False switches it off.
    divisions : int
        Reconstructs in this many slabs along y (the rotation axis), >= 1: less memory, the same volume.
    pad : float
        Truncation correction (``cbct-fdk --pad``): each row extended by this fraction of the
        detector width on each side before ramp filtering, for objects wider than the detector; >= 0.
    hann_cutoff_v : float
        A Hann low-pass along v (the detector's rows) with this cut-off in (0, 1], a fraction of
        Nyquist (``cbct-fdk --hannY``); 0: none.
{fov}

    Returns
    -------
    Volume
        Attenuation per mm, array (nz, ny, nx) float32 in (z, y, x) order, spacing and origin
        (x, y, z) in mm; ``info`` has the hardware used, the number of slabs and each stage's seconds
        (``weighting_s``, ``filtering_s``, ``backprojection_s``, ``upload_s``, ``download_s``,
        ``total_s``). An ``itk.Image`` when ``projections`` was one.

    Raises
    ------
    ValueError
        For projections holding NaN or infinities (naming how many and the first index, as the apps
        refuse them), a number of projections other than the geometry's, or a bad argument (named).
    ITKError
        For an error of the C++ library (e.g. a volume outside the detector's view).

    Notes
    -----
    The GIL is released while it runs; several reconstructions may run at once from threads.
    """
    checked, from_itk = _as_input(projections, "projections", Projections)
    _check_finite(checked.array, "projections")
    _check_geometry(geometry)
    if checked.array.shape[0] != len(geometry):
        raise ValueError(
            f"projections has shape {_shape_text(checked.array.shape)}, {checked.array.shape[0]} projections, "
            f"but geometry has {len(geometry)}"
        )
    zyx = _sizes(shape, "shape", 3, "N or (nz, ny, nx) voxels, integers >= 1")
    xyz = zyx[::-1]
    step = _numbers(spacing, "spacing", 3, "a voxel size > 0 in mm, or (sx, sy, sz)", positive=True)
    first = _centred(xyz, step) if origin is None else _numbers(origin, "origin", 3, "(x, y, z) in mm")
    slabs = _sizes(divisions, "divisions", 1, "an integer >= 1")[0]
    # Checked here, under its Python name (the compiled check names RTK's hann_y).
    hann = _number(hann_cutoff_v, "hann_cutoff_v", "a cut-off in (0, 1] as a fraction of Nyquist, or 0 for none", 0.0, 1.0)
    array, info = _conebeamct._fdk(
        checked.array,
        checked.spacing,
        checked.origin,
        geometry,
        xyz,
        step,
        first,
        str(window),
        float(cutoff),
        bool(displaced),
        str(hardware),
        slabs,
        float(pad),
        hann,
        _fov_mode(fov),
        progress,
    )
    volume = Volume(array, step, first, info=info)
    return volume.to_itk() if from_itk else volume


def _axis_values(value, name, count, fill, minimum, what):
    """RTK's per-axis list: an int or up to ``count`` ints, the missing axes ``fill``."""
    values = (value,) if np.ndim(value) == 0 else tuple(value) if np.ndim(value) == 1 else None
    if values is None or not 1 <= len(values) <= count:
        raise ValueError(f"{name} is {value!r}; expected {what}")
    result = []
    for v in values:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < minimum:
            raise ValueError(f"{name} is {value!r}; expected {what}")
        result.append(int(v))
    return tuple(result) + (fill,) * (count - len(result))


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
            per_subset=projections_per_subset,
        )
        (volume.info if isinstance(volume, Volume) else {}).update(projector="joseph" if projector is None else projector)
        return volume
    if initial is not None or backprojector != "adjoint" or step != 0.0 or devices is not None:
        raise ValueError("initial, backprojector, step and devices are for the transmission projectors ('joseph', "
                         "'raycast'), not with the emission projector (an attenuation map, a psf or projector='emission')")
    checked, from_itk = _as_input(projections, "projections", Projections)
    _check_geometry(geometry)
    if checked.array.shape[0] != len(geometry):
        raise ValueError(
            f"projections has shape {_shape_text(checked.array.shape)}, {checked.array.shape[0]} projections, "
            f"but geometry has {len(geometry)}"
        )
    zyx = _sizes(shape, "shape", 3, "N or (nz, ny, nx) voxels, integers >= 1")
    xyz = zyx[::-1]
    step = _numbers(spacing, "spacing", 3, "a voxel size > 0 in mm, or (sx, sy, sz)", positive=True)
    first = _centred(xyz, step) if origin is None else _numbers(origin, "origin", 3, "(x, y, z) in mm")
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
    array = _conebeamct._osem(
        checked.array, checked.spacing, checked.origin, geometry, xyz, step, first, count, int(projections_per_subset),
        str(projector), mu, mu_spacing, mu_origin, _psf(psf), str(hardware), progress
    )
    volume = Volume(array, step, first, info={"projector": projector, "iterations": count})
    return volume.to_itk() if from_itk else volume


def _iterative_grid(initial, shape, spacing, origin):
    """The grid of an iterative method: the initial Volume's, or shape/spacing/origin (zeros)."""
    grid = _conebeamct._IterativeGrid()
    if initial is not None:
        if shape is not None:
            raise ValueError("initial and shape are both given; the initial volume defines the grid, give one or the other")
        checked, _ = _as_input(initial, "initial", Volume)
        grid.initial = checked.array
        grid.initial_spacing = checked.spacing
        grid.initial_origin = checked.origin
        return grid, checked.spacing, checked.origin
    if shape is None:
        raise ValueError("shape is None; expected N or (nz, ny, nx) voxels (or an initial volume)")
    zyx = _sizes(shape, "shape", 3, "N or (nz, ny, nx) voxels, integers >= 1")
    xyz = zyx[::-1]
    step = _numbers(spacing, "spacing", 3, "a voxel size > 0 in mm, or (sx, sy, sz)", positive=True)
    first = _centred(xyz, step) if origin is None else _numbers(origin, "origin", 3, "(x, y, z) in mm")
    grid.size = xyz
    grid.spacing = step
    grid.origin = first
    return grid, step, first


def _iterative_inputs(projections, geometry, iterations):
    checked, from_itk = _as_input(projections, "projections", Projections)
    _check_geometry(geometry)
    if checked.array.shape[0] != len(geometry):
        raise ValueError(
            f"projections has shape {_shape_text(checked.array.shape)}, {checked.array.shape[0]} projections, "
            f"but geometry has {len(geometry)}"
        )
    return checked, from_itk, _sizes(iterations, "iterations", 1, "an integer >= 1")[0]


def _number(value, name, what, low=None, high=None, low_open=False):
    """A finite float within [low, high] (low excluded with low_open), else ValueError naming it."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} is {value!r}; expected {what}") from None
    if not np.isfinite(v) or (low is not None and (v <= low if low_open else v < low)) or (high is not None and v > high):
        raise ValueError(f"{name} is {value!r}; expected {what}")
    return v


@renamed(wpc="water_precorrection", spr="scatter_to_primary_ratio", nonneg="nonnegativity_threshold")
@documented
def preprocess(
    projections: Projections,
    intensities: bool = True,
    i0: float = 0.0,
    idark: float = 0.0,
    air_threshold: Optional[float] = None,
    minimum_signal: float = 1.0,
    lower_crop: Union[int, Sequence[int]] = 0,
    upper_crop: Union[int, Sequence[int]] = 0,
    binning: Union[int, Sequence[int]] = 1,
    median_radius: Union[int, Sequence[int]] = 0,
    median_multiplier: float = 0.0,
    water_precorrection: Optional[Sequence[float]] = None,
    scatter_to_primary_ratio: float = 0.0,
    nonnegativity_threshold: Optional[float] = None,
    rings: Optional[str] = None,
    rings_size: int = 0,
    rings_level: int = 3,
    rings_wavelet: str = "db5",
    rings_sigma: float = 2.0,
    rings_pad: bool = True,
    progress: Progress = None,
) -> Projections:
    """Projections as a scanner writes them, made ready for :func:`fdk`: RTK's preprocessing, as
    ``cbct-fdk`` does it with the same options (``--i0``, ``--idark``, ``--airthres``, ``--lowercrop``,
    ``--uppercrop``, ``--binning``, ``--radius``, ``--multiplier``, ``--wpc``, ``--spr``, ``--nonneg``),
    and ring removal (``--rings`` and its ``--rings-*`` parameters);
    :func:`preprocess` then :func:`fdk` equals ``cbct-fdk`` on the same file bit for bit.

    The steps, in order: crop, conditional median, binning, scatter correction, intensities to line
    integrals, ring removal, water precorrection.

    Parameters
    ----------
    projections : Projections or itk.Image
        Detector readings, array (projection, v, u) of any real dtype (a uint16 array is converted to
        float32 exactly), or, with ``intensities=False``, line integrals; spacing (su, sv, 1) and
        origin (u0, v0, 0) in mm. NaN or infinities raise ValueError.
    intensities : bool
        Whether the input is intensities (converted to line integrals) or line integrals already.
    i0 : float
        The reading through air, > 0, or 0 to estimate it from each projection's air (the mean above
        ``air_threshold`` when it is given). Line integrals are ln(I0 - Idark) - ln(I - Idark).
    idark : float
        The reading with the beam off.
    air_threshold : float, optional
        Readings above it saw air: for the I0 estimate (None: found automatically) and the scatter
        correction (None: RTK's 32000 there).
    minimum_signal : float
        Readings below idark + minimum_signal count as minimum_signal (1: one count; 0: 1e-6 of
        I0 - Idark, for readings normalised to I0 = 1); >= 0.
    lower_crop, upper_crop : int or (U, V)
        Pixels removed at the start and end of u (an int crops u only, as RTK's single value) and of v;
        integers >= 0.
    binning : int or (U, V)
        Pixels averaged together along u (an int bins u only) and v; integers >= 1.
    median_radius : int, (U, V) or (U, V, K)
        The conditional median's radius in pixels along u, v and projections; 0: none.
    median_multiplier : float
        Pixels further than this many standard deviations from their neighbourhood's median become
        it; 0: a plain median. >= 0.
    water_precorrection : sequence of float, optional
        Coefficients c0, c1, ...: a line integral p becomes c0 + c1 p + c2 p^2 + ... (``--wpc``).
    scatter_to_primary_ratio : float
        Boellaard scatter correction of intensities with this scatter-to-primary ratio (``--spr``);
        0: none. >= 0.
    nonnegativity_threshold : float, optional
        The scatter correction's non-negativity threshold (``--nonneg``; None: 20).
    rings : {None, 'sorting', 'wavelet'}
        Ring (stripe) removal on the line integrals, one detector row across the projections at a
        time (``--rings``): 'sorting' is Vo et al.'s sorting-based filter (2018; TomoPy's
        remove_stripe_based_sorting), 'wavelet' Münch et al.'s wavelet-Fourier filter (2009; TomoPy's
        remove_stripe_fw). None: none.
    rings_size : int
        'sorting': the median's window across the detector in pixels; 0: TomoPy's (1 % of the width,
        at least 5; 21 above 2000 pixels). At most the detector's width.
    rings_level, rings_wavelet, rings_sigma, rings_pad : int, str, float, bool
        'wavelet': levels (0: TomoPy's, ceil(log2) of the larger of the projections and the width,
        which takes the object's coarse round detail too), the
        wavelet ('haar', 'db1' .. 'db10'), the damping's width along the angle in frequency indices
        (> 0) and whether the angle axis is padded with zeros (TomoPy's pad).
{progress}

    Returns
    -------
    Projections
        Line integrals, array (projection, v, u) float32 (cropping and binning change its shape,
        spacing and origin; mm); ``info`` has ``steps`` (what was done), ``i0`` (each projection's),
        ``scatter`` (what the scatter correction subtracted) and ``rings_size`` or ``rings_level``
        (the ring removal's). An ``itk.Image`` when the input was
        one.
    """
    checked, from_itk = _as_input(projections, "projections", Projections)
    _check_finite(checked.array, "projections")
    lower = _axis_values(lower_crop, "lower_crop", 2, 0, 0, "pixels U or (U, V), integers >= 0")
    upper = _axis_values(upper_crop, "upper_crop", 2, 0, 0, "pixels U or (U, V), integers >= 0")
    factors = _axis_values(binning, "binning", 2, 1, 1, "factors U or (U, V), integers >= 1")
    radius = _axis_values(median_radius, "median_radius", 3, 0, 0, "radii U, (U, V) or (U, V, K), integers >= 0")
    coefficients = [] if water_precorrection is None else list(
        _numbers(water_precorrection, "water_precorrection", np.size(water_precorrection),
                 "coefficients (c0, c1, ...), finite numbers")
    )
    if water_precorrection is not None and len(coefficients) == 0:
        raise ValueError("water_precorrection is []; expected coefficients (c0, c1, ...) or None")
    if rings not in (None, "sorting", "wavelet"):
        raise ValueError(f"rings is {rings!r}; expected None, 'sorting' (Vo et al. 2018) or 'wavelet' (Münch et al. 2009)")
    wavelets = ["haar"] + [f"db{n}" for n in range(1, 11)]
    if rings_wavelet not in wavelets:
        raise ValueError(f"rings_wavelet is {rings_wavelet!r}; expected one of {', '.join(wavelets)}")
    array, spacing, origin, info = _conebeamct._preprocess(
        checked.array,
        checked.spacing,
        checked.origin,
        bool(intensities),
        _number(i0, "i0", "the reading through air, > 0, or 0 to estimate it", 0.0),
        _number(idark, "idark", "the reading with the beam off, a finite number"),
        float("nan") if air_threshold is None else _number(air_threshold, "air_threshold", "a finite reading or None"),
        _number(minimum_signal, "minimum_signal", "a finite value >= 0", 0.0),
        lower[:2],
        upper[:2],
        factors[:2],
        radius,
        _number(median_multiplier, "median_multiplier", "a finite value >= 0", 0.0),
        coefficients,
        _number(scatter_to_primary_ratio, "scatter_to_primary_ratio", "a scatter-to-primary ratio >= 0", 0.0),
        float("nan") if nonnegativity_threshold is None else _number(
            nonnegativity_threshold, "nonnegativity_threshold", "a finite reading or None"),
        rings or "",
        _count(rings_size, "rings_size", "an integer >= 0 (0: automatic)", 0),
        _count(rings_level, "rings_level", "an integer from 0 (automatic) to 30", 0),
        rings_wavelet,
        _number(rings_sigma, "rings_sigma", "a finite value > 0", 0.0, low_open=True),
        bool(rings_pad),
        progress,
    )
    result = Projections(array, spacing, origin)
    result.info = info
    return result.to_itk() if from_itk else result


def _count(value, name, what, low):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} is {value!r}; expected {what}")
    return int(value)


@renamed(
    niterations="iterations",
    lambda_red="lambda_reduction",
    nprojpersubset="projections_per_subset",
    alpha_red="alpha_reduction",
    tviter="tv_iterations",
    maxl2err="max_l2_error",
    epsilon="tv_epsilon",
)
@documented
def asd_pocs(
    projections: Projections,
    geometry: Geometry,
    shape: Optional[VolumeShape] = None,
    spacing: VoxelSpacing = 1.0,
    origin: Optional[Point3] = None,
    iterations: int = 10,
    lambda_: float = 0.5,
    lambda_reduction: float = 0.99,
    projections_per_subset: int = 1,
    positivity: bool = True,
    alpha: float = 0.002,
    alpha_reduction: float = 0.95,
    ratio: float = 0.95,
    tv_iterations: int = 20,
    max_l2_error: float = 0.0,
    tv_epsilon: float = 1e-8,
    initial: Optional[Volume] = None,
    hardware: Hardware = "auto",
    progress: Progress = None,
) -> Volume:
    """ASD-POCS: total-variation-regularised OS-SART for few views, as ``cbct-asdpocs`` (TIGRE's
    ASD_POCS parameters and defaults but ``lambda_`` 0.5, TIGRE's 1; the same bits on the CPU).

    Each iteration is one OS-SART pass, then ``tv_iterations`` steepest-descent steps on the total
    variation whose step starts at ``alpha`` times the first pass's change (L2) and shrinks by
    ``alpha_reduction`` whenever the TV steps change the volume more than ``ratio`` times the pass did
    (and the data residual is above ``max_l2_error``).

    Parameters
    ----------
{projections}
{grid}
    iterations : int
        OS-SART + TV iterations, >= 1 (``--niterations``).
    lambda_ : float
        The OS-SART relaxation factor, > 0 (``--lambda``).
    lambda_reduction : float
        ``lambda_`` is multiplied by it after each iteration; in (0, 1].
    projections_per_subset : int
        Projections in each OS-SART subset, 0 (all) to len(geometry) (``--nprojpersubset``).
    positivity : bool
        Negative voxels set to 0 after each pass.
    alpha : float
        The TV step as a fraction of the pass's change, >= 0 (0: no TV steps).
    alpha_reduction : float
        The TV step's reduction factor, in (0, 1].
    ratio : float
        The largest ratio of the TV steps' change to the pass's before the step shrinks, > 0.
    tv_iterations : int
        Steepest-descent TV steps per iteration, >= 0 (``--tviter``).
    max_l2_error : float
        The step shrinks only while the data residual (L2) is above this, >= 0 (0: always;
        ``--maxl2err``).
    tv_epsilon : float
        The smoothing of the total variation's gradient, per mm, >= 0 (``--tv-epsilon``; 0.01 makes
        the result independent of the hardware's rounding).
{initial}
        Otherwise the volume starts from zeros.
    hardware : str
        'cpu', 'cuda' or 'auto'.
{progress}

    Returns
    -------
    Volume
        Attenuation per mm, array (nz, ny, nx) float32 in (z, y, x) order, spacing and origin
        (x, y, z) in mm; ``info`` has ``hardware``, ``iterations``, ``total_s`` and ``tv_steps`` (the TV
        step each iteration used). An ``itk.Image`` when the projections were one.

    Notes
    -----
    The GIL is released while it runs.
    """
    checked, from_itk, n = _iterative_inputs(projections, geometry, iterations)
    grid, step, first = _iterative_grid(initial, shape, spacing, origin)
    per_subset = _count(projections_per_subset, "projections_per_subset", "an integer >= 0 (0: all projections)", 0)
    if per_subset > len(geometry):
        raise ValueError(
            f"projections_per_subset is {per_subset}; expected at most the number of projections ({len(geometry)}), "
            "or 0 for all"
        )
    array, info = _conebeamct._asd_pocs(
        checked.array,
        checked.spacing,
        checked.origin,
        geometry,
        grid,
        n,
        _number(lambda_, "lambda_", "a finite relaxation factor > 0", 0.0, low_open=True),
        _number(lambda_reduction, "lambda_reduction", "a reduction factor in (0, 1]", 0.0, 1.0, low_open=True),
        per_subset,
        bool(positivity),
        _number(alpha, "alpha", "a finite value >= 0", 0.0),
        _number(alpha_reduction, "alpha_reduction", "a reduction factor in (0, 1]", 0.0, 1.0, low_open=True),
        _number(ratio, "ratio", "a finite value > 0", 0.0, low_open=True),
        _count(tv_iterations, "tv_iterations", "an integer >= 0", 0),
        _number(max_l2_error, "max_l2_error", "a finite value >= 0 (0: no residual check)", 0.0),
        _number(tv_epsilon, "tv_epsilon", "a finite value >= 0 (per mm)", 0.0),
        str(hardware),
        progress,
    )
    volume = Volume(array, step, first, info=info)
    return volume.to_itk() if from_itk else volume


@renamed(niterations="iterations", cgiter="cg_iterations")
@documented
def admm_tv(
    projections: Projections,
    geometry: Geometry,
    shape: Optional[VolumeShape] = None,
    spacing: VoxelSpacing = 1.0,
    origin: Optional[Point3] = None,
    iterations: int = 10,
    alpha: Optional[float] = None,
    beta: Optional[float] = None,
    cg_iterations: int = 5,
    initial: Optional[Volume] = None,
    hardware: Hardware = "auto",
    progress: Progress = None,
) -> Volume:
    """ADMM with total variation, as ``cbct-admmtv`` (RTK's rtkadmmtotalvariation parameters; the
    same bits on the CPU).

    Minimises ``|A x - p|^2 + alpha TV(x)``: each iteration solves (A^T A + ``beta`` D^T D) x =
    A^T p + ``beta`` D^T (g + d) by ``cg_iterations`` conjugate gradient steps (D the gradient),
    soft-thresholds g = D x - d by alpha / (2 beta) and updates d.

    Parameters
    ----------
{projections}
{grid}
    iterations : int
        ADMM iterations, >= 1 (``--niterations``).
    alpha : float, optional
        The total variation's weight, >= 0. By default chosen from the problem's scales as
        ``cbct-admmtv`` does without ``--alpha`` (docs/guide/choosing-a-method.md): 2 beta x 0.2 mu / s,
        mu the projections' 99.9th percentile over the volume's width, s the voxel size.
    beta : float, optional
        The augmented Lagrangian's weight, > 0. By default 0.1 x the ratio of the estimated largest
        eigenvalues of A^T A and D^T D (from the views, magnification, pixel and voxel sizes).
    cg_iterations : int
        Conjugate gradient steps per iteration, >= 1 (``--CGiter``).
{initial}
        Otherwise the volume starts from zeros.
    hardware : str
        'cpu', 'cuda' or 'auto'.
{progress}

    Returns
    -------
    Volume
        Attenuation per mm, array (nz, ny, nx) float32 in (z, y, x) order, spacing and origin
        (x, y, z) in mm; ``info`` has ``hardware``, ``iterations``, ``total_s``, and ``alpha`` and ``beta``
        (those used). An ``itk.Image`` when the projections were one.

    Notes
    -----
    The GIL is released while it runs.
    """
    checked, from_itk, n = _iterative_inputs(projections, geometry, iterations)
    grid, step, first = _iterative_grid(initial, shape, spacing, origin)
    array, info = _conebeamct._admm_tv(
        checked.array,
        checked.spacing,
        checked.origin,
        geometry,
        grid,
        n,
        float("nan") if alpha is None else _number(alpha, "alpha", "a finite regularisation weight >= 0", 0.0),
        float("nan") if beta is None else _number(beta, "beta", "a finite augmented Lagrangian weight > 0", 0.0,
                                                  low_open=True),
        _count(cg_iterations, "cg_iterations", "an integer >= 1", 1),
        str(hardware),
        progress,
    )
    volume = Volume(array, step, first, info=info)
    return volume.to_itk() if from_itk else volume


# The projectors and the iterative methods live in their own modules (they use the helpers above).
from ._projectors import Projector, back_project, forward_project  # noqa: E402
from ._iterative import cgls, sart, sirt  # noqa: E402
from . import _iterative  # noqa: E402
from ._fourd_rooster import fourd_rooster  # noqa: E402
from ._fourd import fourd_fdk  # noqa: E402
from ._signal import breathing_signal  # noqa: E402
from ._calibrate import calibrate  # noqa: E402
