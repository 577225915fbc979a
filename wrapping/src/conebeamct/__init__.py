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
:func:`asd_pocs` and :func:`admm_tv`; :meth:`Image.save` and :func:`load` write and read image files
(.mha, .nrrd, .nii, .tif) as the command-line apps do: written beside their place and renamed into
place when complete, read only when the file holds all the pixels its header promises; and, with
PyTorch installed, ``conebeamct.torch`` (autograd Functions of the projectors).
"""

import os
import sys

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
    "cgls",
    "cuda_device",
    "emission_project",
    "fdk",
    "forward_project",
    "get_number_of_threads",
    "has_cuda",
    "has_cuda_arrays",
    "load",
    "osem",
    "poisson_noise",
    "preprocess",
    "project_phantom",
    "sart",
    "set_number_of_threads",
    "sirt",
    "voxelize_phantom",
]

__version__ = "0.1.0"


def _shape_text(shape):
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def as_float32(array, name, ndim=3, expected="3 dimensions (z, y, x)"):
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


class Image:
    """A 3D image: ``array`` (z, y, x) float32, ``spacing`` and ``origin`` (x, y, z) in mm.

    ``origin`` is the centre of the first voxel, as in ITK. The array is checked and converted as
    :func:`as_float32` says (no copy when it is already a C-contiguous float32 array).
    """

    def __init__(self, array, spacing=(1.0, 1.0, 1.0), origin=(0.0, 0.0, 0.0)):
        self.array = as_float32(array, "array")
        self.spacing = _numbers(spacing, "spacing", 3, "a spacing > 0 in mm, or 3 of them (x, y, z)", positive=True)
        self.origin = _numbers(origin, "origin", 3, "3 coordinates (x, y, z) in mm")
        self._base = None  # an itk.Image this array is a view of

    @property
    def shape(self):
        """The array's shape, (z, y, x)."""
        return self.array.shape

    def axis(self, d):
        """World coordinates (mm) of the voxel centres along axis d: 0 for x, 1 for y, 2 for z."""
        n = self.array.shape[2 - d]
        return self.origin[d] + self.spacing[d] * np.arange(n)

    def to_itk(self):
        """An ``itk.Image[itk.F, 3]`` sharing this array's memory (no copy)."""
        import itk

        image = itk.GetImageViewFromArray(self.array)
        image.SetSpacing(self.spacing)
        image.SetOrigin(self.origin)
        return image

    @classmethod
    def from_itk(cls, image, name="image"):
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

    def save(self, path):
        """Writes the image to ``path`` (.mha, .mhd, .nrrd, .nii, .nii.gz, .tif), as the apps do: to a
        file beside it first, renamed into place once complete, so that a failure (a full disk, an
        interrupt) leaves a file already there as it was."""
        _conebeamct._write_image(self.array, self.spacing, self.origin, os.fspath(path))

    def __repr__(self):
        return (
            f"<conebeamct.{type(self).__name__} array {_shape_text(self.array.shape)} (z, y, x) float32, "
            f"spacing {self.spacing}, origin {self.origin} (x, y, z) mm>"
        )


class Projections(Image):
    """A projection stack of line integrals: array (projection, v, u); spacing (su, sv, 1) and
    origin (u0, v0, 0) in mm, the detector's (u, v) and the projection index."""


class Volume(Image):
    """A volume in world mm; ``info`` holds what made it (for :func:`fdk`: hardware and the time of
    each stage in seconds)."""

    def __init__(self, array, spacing=(1.0, 1.0, 1.0), origin=(0.0, 0.0, 0.0), info=None):
        super().__init__(array, spacing, origin)
        self.info = dict(info or {})


def load(path, kind=None):
    """Reads an image file as the apps do: its header is checked against its data first (a file cut
    short raises ITKError naming the bytes expected and found), it must be scalar and at most 3D, and
    a negative spacing or flipped axes are put on a grid with positive spacing and the identity
    direction (every pixel where it was). kind: :class:`Volume` (default) or :class:`Projections`
    (the third axis counts projections). Returns an instance of ``kind``."""
    kind = Volume if kind is None else kind
    if kind not in (Volume, Projections, Image):
        raise TypeError(f"kind is {kind!r}; expected conebeamct.Volume or conebeamct.Projections")
    name = os.fspath(path)
    if not os.path.isfile(name):
        raise FileNotFoundError(f"path is {name!r}: no such file (expected an image file)")
    array, spacing, origin = _conebeamct._read_image(name, kind is Projections)
    return kind(array, spacing, origin)


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
        raise TypeError(f"phantom is {phantom!r}; expected 'shepplogan' or the path of an ellipsoid text file")
    if name.lower() not in ("shepplogan", "shepp-logan", "shepp_logan") and not os.path.isfile(name):
        raise FileNotFoundError(f"phantom is {name!r}: no such file (expected 'shepplogan' or an ellipsoid text file)")
    return name


def _centred(sizes, spacing):
    return tuple(-0.5 * (n - 1) * s for n, s in zip(sizes, spacing))


def _check_geometry(geometry):
    if not isinstance(geometry, Geometry):
        raise TypeError(f"geometry is a {type(geometry).__name__}; expected a conebeamct.Geometry")
    if len(geometry) == 0:
        raise ValueError("geometry has no projections")


def project_phantom(geometry, detector_size, spacing, phantom="shepplogan", scale=60.0, origin=None, progress=None):
    """Exact line integrals of an ellipsoid phantom for every projection of ``geometry``.

    detector_size: N or (U, V) pixels (u first, as cbct-simulate's --detector-size); spacing: the
    pixel size in mm, s or (su, sv); origin: (u0, v0) of the first pixel in mm, by default the
    detector centred on its origin. phantom: 'shepplogan' (scaled by ``scale`` mm) or the path of an
    ellipsoid text file (format in include/cbctGeometricPhantom.h). progress: None or a callable
    given the fraction done. Returns :class:`Projections` of array shape (len(geometry), V, U).
    """
    _check_geometry(geometry)
    size = _sizes(detector_size, "detector_size", 2, "N or (U, V) pixels, integers >= 1")
    pixel = _numbers(spacing, "spacing", 2, "a pixel size > 0 in mm, or (su, sv)", positive=True)
    first = _centred(size, pixel) if origin is None else _numbers(origin, "origin", 2, "(u0, v0) in mm")
    array = _conebeamct._project_phantom(geometry, size, pixel, first, _phantom(phantom), float(scale), progress)
    return Projections(array, (pixel[0], pixel[1], 1.0), (first[0], first[1], 0.0))


def voxelize_phantom(shape, spacing=1.0, origin=None, phantom="shepplogan", scale=60.0, supersampling=1, progress=None):
    """The phantom's density on a grid: the ground truth of a reconstruction.

    shape: N or (nz, ny, nx), the array's shape; spacing: s or (sx, sy, sz) mm; origin: (x, y, z) of
    the first voxel's centre, by default the grid centred on the isocenter. Each voxel is the mean of
    supersampling^3 samples (use 2 or more for comparisons). Returns a :class:`Volume`.
    """
    zyx = _sizes(shape, "shape", 3, "N or (nz, ny, nx) voxels, integers >= 1")
    xyz = zyx[::-1]
    step = _numbers(spacing, "spacing", 3, "a voxel size > 0 in mm, or (sx, sy, sz)", positive=True)
    first = _centred(xyz, step) if origin is None else _numbers(origin, "origin", 3, "(x, y, z) in mm")
    count = _sizes(supersampling, "supersampling", 1, "an integer >= 1")[0]
    array = _conebeamct._voxelize_phantom(xyz, step, first, _phantom(phantom), float(scale), count, progress)
    return Volume(array, step, first, info={"phantom": os.fspath(phantom), "supersampling": count})


def fdk(
    projections,
    geometry,
    shape,
    spacing=1.0,
    origin=None,
    window="ramlak",
    cutoff=1.0,
    hardware="auto",
    progress=None,
    displaced=True,
    divisions=1,
    pad=0.0,
    hann_y=0.0,
):
    """Feldkamp-Davis-Kress reconstruction, as ``cbct-fdk`` does it (bit for bit on the CPU).

    projections: :class:`Projections` (or an ``itk.Image``) of line integrals, one slice per
    projection of ``geometry``. shape: N or (nz, ny, nx), the shape of the returned array; spacing:
    s or (sx, sy, sz) mm; origin: (x, y, z) of the first voxel, by default the volume centred on the
    isocenter. window: 'ramlak', 'shepplogan', 'cosine', 'hamming' or 'hann'; cutoff in (0, 1], a
    fraction of Nyquist. hardware: 'cpu', 'cuda' or 'auto' (CUDA when the build has it and a device
    is present). progress: None or a callable given the fraction done (0 to 1); an exception it
    raises stops the reconstruction and is raised here. displaced=False switches off
    displaced-detector weighting; divisions > 1 reconstructs in slabs along y (less memory). pad
    (RTK's --pad): truncation correction, rows extended by this fraction of the detector width on each
    side before ramp filtering, for objects wider than the detector; hann_y (RTK's --hannY): a Hann
    low-pass along v with this cut-off (0: none). Real scans: :func:`preprocess` the projections first.

    Projections holding NaN or infinities raise ValueError, as the apps refuse them.
    Short scans get Parker weights automatically. The GIL is released while it runs. Returns a
    :class:`Volume` (``info`` has the hardware used and each stage's seconds), or an ``itk.Image``
    when the projections were one.
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
        float(hann_y),
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


def emission_project(activity, geometry, detector_size, spacing, attenuation=None, psf=None, origin=None, hardware="cpu", progress=None):
    """Emission projections (SPECT) of an activity volume, as ``cbct-forward --fp emission``.

    activity: a :class:`Volume` (or ``itk.Image``) of activity per mm^3. Each view composites the
    slices parallel to its detector back to front, attenuated by ``attenuation`` (a :class:`Volume`
    of mu per mm on any grid, or None) and blurred by the collimator: psf=(sigma0, slope) gives a
    Gaussian of sigma(d) = sigma0 + slope * d mm for activity d mm from the detector (None: no blur).
    Parallel beam (a geometry with sdd=0) is SPECT's parallel-hole collimator; cone beam works too.
    detector_size: N or (U, V) pixels; spacing: s or (su, sv) mm; origin: (u0, v0), by default the
    detector centred. hardware: 'cpu' or 'cuda'. Returns :class:`Projections` (counts when the activity
    is in counts per mm^3 per unit of sensitivity), or an ``itk.Image`` when the activity was one.
    """
    checked, from_itk = _as_input(activity, "activity", Volume)
    _check_geometry(geometry)
    size = _sizes(detector_size, "detector_size", 2, "N or (U, V) pixels, integers >= 1")
    pixel = _numbers(spacing, "spacing", 2, "a pixel size > 0 in mm, or (su, sv)", positive=True)
    first = _centred(size, pixel) if origin is None else _numbers(origin, "origin", 2, "(u0, v0) in mm")
    mu, mu_spacing, mu_origin = _attenuation(attenuation)
    array = _conebeamct._emission_project(
        checked.array, checked.spacing, checked.origin, geometry, size, pixel, first, mu, mu_spacing, mu_origin, _psf(psf),
        str(hardware), progress
    )
    projections = Projections(array, (pixel[0], pixel[1], 1.0), (first[0], first[1], 0.0))
    return projections.to_itk() if from_itk else projections


def poisson_noise(projections, seed=1):
    """Counts drawn from Poisson distributions around ``projections`` (expected counts, >= 0), as
    ``cbct-simulate --poisson --seed``: integers, the same for a seed on any machine and any number of
    threads. Returns :class:`Projections` with the same spacing and origin."""
    checked, from_itk = _as_input(projections, "projections", Projections)
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise ValueError(f"seed is {seed!r}; expected an integer from 0 to 2**64 - 1")
    array = _conebeamct._poisson_noise(checked.array, int(seed))
    result = Projections(array, checked.spacing, checked.origin)
    return result.to_itk() if from_itk else result


def osem(
    projections,
    geometry,
    shape=None,
    spacing=1.0,
    origin=None,
    iterations=3,
    projections_per_subset=0,
    projector=None,
    attenuation=None,
    psf=None,
    hardware="cpu",
    progress=None,
    initial=None,
    backprojector="adjoint",
    step=0.0,
    devices=None,
):
    """OSEM (MLEM with projections_per_subset=0), as ``cbct-osem`` does it.

    projections: :class:`Projections` (or an ``itk.Image``), non-negative (counts for emission data).
    shape: N or (nz, ny, nx); spacing: s or (sx, sy, sz) mm; origin: (x, y, z) of the first voxel, by
    default the volume centred. projector: 'joseph', 'raycast' or 'emission'; by default 'emission' when
    an ``attenuation`` map (:class:`Volume` of mu per mm) or a ``psf`` (sigma0, slope) is given, else
    'joseph'. Each subset's sensitivity goes through the same model. hardware: 'cpu' or 'cuda'.
    progress: None or a callable given the fraction done. Returns a :class:`Volume` (activity per mm^3
    for emission data), or an ``itk.Image`` when the projections were one.

    With the transmission projectors ('joseph', 'raycast') also: ``initial`` (a :class:`Volume`, > 0
    everywhere, whose grid is used; the volume starts from 1 otherwise), ``backprojector`` ('adjoint' or
    'voxel'), ``step`` (the ray caster's, mm) and ``devices`` (CUDA devices sharing the volume); ``info``
    then has each iteration's seconds. The same bits as ``cbct-osem --hardware cpu``.
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


def _iterative_inputs(projections, geometry, niterations):
    checked, from_itk = _as_input(projections, "projections", Projections)
    _check_geometry(geometry)
    if checked.array.shape[0] != len(geometry):
        raise ValueError(
            f"projections has shape {_shape_text(checked.array.shape)}, {checked.array.shape[0]} projections, "
            f"but geometry has {len(geometry)}"
        )
    return checked, from_itk, _sizes(niterations, "niterations", 1, "an integer >= 1")[0]


def _number(value, name, what, low=None, high=None, low_open=False):
    """A finite float within [low, high] (low excluded with low_open), else ValueError naming it."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} is {value!r}; expected {what}") from None
    if not np.isfinite(v) or (low is not None and (v <= low if low_open else v < low)) or (high is not None and v > high):
        raise ValueError(f"{name} is {value!r}; expected {what}")
    return v


def preprocess(
    projections,
    intensities=True,
    i0=0.0,
    idark=0.0,
    air_threshold=None,
    minimum_signal=1.0,
    lower_crop=0,
    upper_crop=0,
    binning=1,
    median_radius=0,
    median_multiplier=0.0,
    wpc=None,
    spr=0.0,
    nonneg=None,
    progress=None,
):
    """Projections as a scanner writes them, made ready for :func:`fdk`: RTK's preprocessing, as
    ``cbct-fdk`` does it with the same options (``--i0``, ``--idark``, ``--airthres``, ``--lowercrop``,
    ``--uppercrop``, ``--binning``, ``--radius``, ``--multiplier``, ``--wpc``, ``--spr``, ``--nonneg``).

    projections: :class:`Projections` (or an ``itk.Image``) of detector readings (any real dtype:
    a uint16 array is converted to float32 exactly) or, with intensities=False, of line integrals.
    In order:

    - lower_crop, upper_crop: pixels removed at the start and end of u[, v] (an int crops u only, as
      RTK's single value);
    - median_radius (u[, v[, projections]]) and median_multiplier: conditional median (pixels further
      than multiplier standard deviations from their neighbourhood's median become it; 0: a plain median);
    - binning: pixels averaged together along u[, v] (an int bins u only);
    - spr, nonneg, air_threshold: Boellaard scatter correction of intensities (spr 0: none; nonneg
      None: 20; air_threshold None: 32000 there);
    - intensities to line integrals, ln(I0 - Idark) - ln(I - Idark): i0 the reading through air (0:
      estimated from each projection's air, the mean above air_threshold when it is given), idark the
      reading with the beam off; readings below idark + minimum_signal count as minimum_signal (1: one
      count; 0: 1e-6 of I0 - Idark, for readings normalised to I0 = 1);
    - wpc: water precorrection coefficients c0, c1, ...: p becomes c0 + c1 p + c2 p^2 + ...

    Returns :class:`Projections` of line integrals (cropping and binning change the array's shape,
    spacing and origin) whose ``info`` has ``steps`` (what was done), ``i0`` (each projection's) and
    ``scatter`` (what the scatter correction subtracted), or an ``itk.Image`` when the input was one.
    """
    checked, from_itk = _as_input(projections, "projections", Projections)
    _check_finite(checked.array, "projections")
    lower = _axis_values(lower_crop, "lower_crop", 2, 0, 0, "pixels U or (U, V), integers >= 0")
    upper = _axis_values(upper_crop, "upper_crop", 2, 0, 0, "pixels U or (U, V), integers >= 0")
    factors = _axis_values(binning, "binning", 2, 1, 1, "factors U or (U, V), integers >= 1")
    radius = _axis_values(median_radius, "median_radius", 3, 0, 0, "radii U, (U, V) or (U, V, K), integers >= 0")
    coefficients = [] if wpc is None else list(
        _numbers(wpc, "wpc", np.size(wpc), "coefficients (c0, c1, ...), finite numbers")
    )
    if wpc is not None and len(coefficients) == 0:
        raise ValueError("wpc is []; expected coefficients (c0, c1, ...) or None")
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
        _number(spr, "spr", "a scatter-to-primary ratio >= 0", 0.0),
        float("nan") if nonneg is None else _number(nonneg, "nonneg", "a finite reading or None"),
        progress,
    )
    result = Projections(array, spacing, origin)
    result.info = info
    return result.to_itk() if from_itk else result


def _count(value, name, what, low):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} is {value!r}; expected {what}")
    return int(value)


def asd_pocs(
    projections,
    geometry,
    shape=None,
    spacing=1.0,
    origin=None,
    niterations=10,
    lambda_=1.0,
    lambda_red=0.99,
    nprojpersubset=1,
    positivity=True,
    alpha=0.002,
    alpha_red=0.95,
    ratio=0.95,
    tviter=20,
    maxl2err=0.0,
    epsilon=1e-8,
    initial=None,
    hardware="auto",
    progress=None,
):
    """ASD-POCS: total-variation-regularised OS-SART for few views, as ``cbct-asdpocs`` (TIGRE's
    ASD_POCS parameters and defaults).

    Each of ``niterations`` iterations is one OS-SART pass over subsets of ``nprojpersubset``
    projections (relaxation ``lambda_``, multiplied by ``lambda_red`` after each iteration; negative
    voxels set to 0 with ``positivity``), then ``tviter`` steepest-descent steps on the total
    variation, the step starting at ``alpha`` times the first pass's change (L2) and multiplied by
    ``alpha_red`` whenever the TV steps change the volume more than ``ratio`` times the pass did
    (and the data residual is above ``maxl2err``; 0: always); the TV steps follow the gradient of the
    total variation smoothed by ``epsilon`` per mm (``--tv-epsilon``; 0.01 makes the result independent
    of the hardware's rounding). The grid is ``shape`` (N or (nz, ny, nx))
    voxels of ``spacing`` mm at ``origin`` (centred by default), or the ``initial`` Volume's (zeros
    otherwise). hardware: 'cpu', 'cuda' or 'auto'; progress: None or a callable given the fraction done.
    The GIL is released while it runs. Returns a :class:`Volume` (``info``: hardware, iterations,
    total_s, tv_steps), or an ``itk.Image`` when the projections were one.
    """
    checked, from_itk, n = _iterative_inputs(projections, geometry, niterations)
    grid, step, first = _iterative_grid(initial, shape, spacing, origin)
    per_subset = _count(nprojpersubset, "nprojpersubset", "an integer >= 0 (0: all projections)", 0)
    if per_subset > len(geometry):
        raise ValueError(f"nprojpersubset is {per_subset}; expected at most the number of projections ({len(geometry)}), or 0 for all")
    array, info = _conebeamct._asd_pocs(
        checked.array,
        checked.spacing,
        checked.origin,
        geometry,
        grid,
        n,
        _number(lambda_, "lambda_", "a finite relaxation factor > 0", 0.0, low_open=True),
        _number(lambda_red, "lambda_red", "a reduction factor in (0, 1]", 0.0, 1.0, low_open=True),
        per_subset,
        bool(positivity),
        _number(alpha, "alpha", "a finite value >= 0", 0.0),
        _number(alpha_red, "alpha_red", "a reduction factor in (0, 1]", 0.0, 1.0, low_open=True),
        _number(ratio, "ratio", "a finite value > 0", 0.0, low_open=True),
        _count(tviter, "tviter", "an integer >= 0", 0),
        _number(maxl2err, "maxl2err", "a finite value >= 0 (0: no residual check)", 0.0),
        _number(epsilon, "epsilon", "a finite value >= 0 (per mm)", 0.0),
        str(hardware),
        progress,
    )
    volume = Volume(array, step, first, info=info)
    return volume.to_itk() if from_itk else volume


def admm_tv(
    projections,
    geometry,
    shape=None,
    spacing=1.0,
    origin=None,
    niterations=10,
    alpha=0.1,
    beta=1.0,
    cgiter=5,
    initial=None,
    hardware="auto",
    progress=None,
):
    """ADMM with total variation, as ``cbct-admmtv`` (RTK's rtkadmmtotalvariation parameters and
    defaults): minimises |A x - p|^2 + ``alpha`` TV(x); each of ``niterations`` iterations solves
    (A^T A + ``beta`` D^T D) x = A^T p + ``beta`` D^T (g + d) by ``cgiter`` conjugate gradient steps (D the
    gradient), soft-thresholds g = D x - d by alpha / (2 beta) and updates d. Grid, ``initial``,
    ``hardware`` and ``progress`` as :func:`asd_pocs`. The GIL is released while it runs. Returns a
    :class:`Volume` (``info``: hardware, iterations, total_s), or an ``itk.Image`` when the
    projections were one.
    """
    checked, from_itk, n = _iterative_inputs(projections, geometry, niterations)
    grid, step, first = _iterative_grid(initial, shape, spacing, origin)
    array, info = _conebeamct._admm_tv(
        checked.array,
        checked.spacing,
        checked.origin,
        geometry,
        grid,
        n,
        _number(alpha, "alpha", "a finite regularisation weight >= 0", 0.0),
        _number(beta, "beta", "a finite augmented Lagrangian weight > 0", 0.0, low_open=True),
        _count(cgiter, "cgiter", "an integer >= 1", 1),
        str(hardware),
        progress,
    )
    volume = Volume(array, step, first, info=info)
    return volume.to_itk() if from_itk else volume


# The projectors and the iterative methods live in their own modules (they use the helpers above).
from ._projectors import Projector, back_project, forward_project  # noqa: E402
from ._iterative import cgls, sart, sirt  # noqa: E402
from . import _iterative  # noqa: E402
