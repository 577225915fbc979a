"""Argument checks shared by the package's functions: numbers, sizes and arrays, each failure a
ValueError or TypeError naming the argument, its value and what was expected."""

from __future__ import annotations

import sys

import numpy as np

from ._conebeamct import Geometry
from ._conventions import ArrayLike

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


def _number(value, name, what, low=None, high=None, low_open=False):
    """A finite float within [low, high] (low excluded with low_open), else ValueError naming it."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} is {value!r}; expected {what}") from None
    if not np.isfinite(v) or (low is not None and (v <= low if low_open else v < low)) or (high is not None and v > high):
        raise ValueError(f"{name} is {value!r}; expected {what}")
    return v


def _count(value, name, what, low):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} is {value!r}; expected {what}")
    return int(value)


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


def _is_itk_image(obj):
    return "itk" in sys.modules and hasattr(obj, "GetLargestPossibleRegion") and hasattr(obj, "GetSpacing")


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


def _centred(sizes, spacing):
    return tuple(-0.5 * (n - 1) * s for n, s in zip(sizes, spacing))


def _check_geometry(geometry):
    if not isinstance(geometry, Geometry):
        raise TypeError(f"geometry is a {type(geometry).__name__}; expected a conebeamct.Geometry")
    if len(geometry) == 0:
        raise ValueError("geometry has no projections")


def _check_projection_count(projections, geometry):
    """Raises ValueError unless the projections (an Image) hold one slice per projection of the geometry."""
    if projections.array.shape[0] != len(geometry):
        raise ValueError(
            f"projections has shape {_shape_text(projections.array.shape)}, {projections.array.shape[0]} projections, "
            f"but geometry has {len(geometry)}"
        )


def _volume_grid(shape, spacing, origin):
    """(sizes, spacing, origin), each (x, y, z), of the volume a function's ``shape`` (N or (nz, ny, nx)),
    ``spacing`` (mm) and ``origin`` (mm; None: centred on the isocenter) describe, each checked by name."""
    xyz = _sizes(shape, "shape", 3, "N or (nz, ny, nx) voxels, integers >= 1")[::-1]
    step = _numbers(spacing, "spacing", 3, "a voxel size > 0 in mm, or (sx, sy, sz)", positive=True)
    first = _centred(xyz, step) if origin is None else _numbers(origin, "origin", 3, "(x, y, z) in mm")
    return xyz, step, first
