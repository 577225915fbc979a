"""What every public function of conebeamct shares: the types its arguments are annotated with, and
the one mechanism that keeps a keyword's old name working after it was renamed (:func:`renamed`).

The naming scheme (wrapping/README.md, "Names") in short: plain English snake_case, the same name for
the same concept in every function: ``iterations`` for the outer loop, ``<what>_iterations`` for an
inner one (``tv_iterations``, ``cg_iterations``), ``projections_per_subset``, ``<factor>_reduction``
for a factor shrinking another each iteration; ``shape``/``spacing``/``origin`` for the volume's grid
and ``detector_size``/``detector_spacing``/``detector_origin`` for the detector's; u and v for the
detector's axes; no abbreviations borrowed from command-line flags. Geometry keeps RTK's parameter
names (sid, sdd, proj_offset_x, ...), the keys of its ``parameters()`` dict and of RTK's XML.
"""

import functools
import inspect
import warnings
from typing import Any, Callable, Literal, Optional, Sequence, TypeVar, Union

try:
    from numpy.typing import ArrayLike
except ImportError:  # numpy < 1.20: no numpy.typing
    ArrayLike = Any  # type: ignore[misc]

#: A volume's array shape: N (a cube) or (nz, ny, nx) voxels, integers >= 1.
VolumeShape = Union[int, Sequence[int]]
#: A detector's size: N or (U, V) pixels, u (columns) first, integers >= 1.
DetectorSize = Union[int, Sequence[int]]
#: A voxel size in mm: s, or (sx, sy, sz) in world (x, y, z) order.
VoxelSpacing = Union[float, Sequence[float]]
#: A detector pixel size in mm: s, or (su, sv).
PixelSpacing = Union[float, Sequence[float]]
#: A point in world mm, (x, y, z): the centre of a volume's first voxel.
Point3 = Sequence[float]
#: A point on the detector in mm, (u0, v0): the centre of its first pixel.
Point2 = Sequence[float]
#: A progress callback: called with the fraction done (0 to 1); an exception it raises stops the work.
Progress = Optional[Callable[[float], Any]]
#: Where the work runs: 'cpu', 'cuda', or 'auto' (CUDA when the build has it and a device is present).
Hardware = Literal["cpu", "cuda", "auto"]
#: Where the work runs, for the functions without 'auto': 'cpu' or 'cuda'.
DeviceHardware = Literal["cpu", "cuda"]
#: The transmission forward projectors.
ProjectorName = Literal["joseph", "raycast"]
#: The backprojectors: the forward projector's exact transpose, or voxel-based (RTK's, TIGRE's for SART).
BackprojectorName = Literal["adjoint", "voxel"]
#: A host memory budget (``memory=``): bytes, or a size such as '8G' or '512M' (powers of 1024); None: none.
MemoryBudget = Optional[Union[int, str]]
#: The ramp filter's windows.
WindowName = Literal["ramlak", "shepplogan", "cosine", "hamming", "hann"]

_Function = TypeVar("_Function", bound=Callable[..., Any])

# Parameter descriptions several functions share, in numpydoc form: a line "{name}" in a docstring
# decorated with @documented becomes the text (kept here so that they say the same everywhere).
_SHARED_DOCS = {
    "projections": """    projections : Projections or itk.Image
        Line integrals, array (projection, v, u) float32 (another real dtype is converted), one slice
        per projection of ``geometry``; spacing (su, sv, 1) and origin (u0, v0, 0) in mm.
    geometry : Geometry
        The scan, one entry per projection (RTK's convention; mm and degrees).""",
    "detector": """    detector_size : int or (U, V)
        The detector's pixels, u (columns) first as ``cbct-simulate --detector-size``; integers >= 1.
    detector_spacing : float or (su, sv)
        The pixel size in mm, each > 0.
    detector_origin : (u0, v0), optional
        The centre of the first pixel in mm; by default the detector centred on (u, v) = (0, 0) of
        RTK's detector coordinates.""",
    "grid": """    shape : int or (nz, ny, nx)
        The volume's voxels: N for a cube, or the shape of the returned array, (z, y, x); integers >= 1.
    spacing : float or (sx, sy, sz)
        The voxel size in mm, in (x, y, z) order, each > 0.
    origin : (x, y, z), optional
        The centre of the first voxel in world mm; by default the volume centred on the isocenter.""",
    "initial": """    initial : Volume or itk.Image, optional
        The volume to start from (array (z, y, x), spacing and origin (x, y, z) in mm), whose grid is
        then the result's: give it without ``shape`` (and ``origin``).""",
    "fov": """    fov : None, 'zero' or 'nan'
        The scan's field of view (``--fov``): the voxels that some projection does not see (outside
        the cylinder the detector covers, or above and below the cones its top and bottom rows reach)
        are not backprojected and are 0 ('zero', or True) or NaN ('nan': "not measured"); None (the
        default) reconstructs every voxel, as RTK does.""",
    "memory": """    memory : int or str, optional
        A host memory budget, as the app's ``--memory``: bytes, or a size such as ``'8G'`` or
        ``'512M'`` (K, M, G, T: powers of 1024). This method holds its projections and volumes whole,
        as its app does: a run whose buffers (the volumes it makes and its working buffers, counted as
        the app counts them, less the arrays given, which are in your memory already) need more is
        refused before it starts, a ValueError saying what it needs. None (default): no check.""",
    "progress": """    progress : callable, optional
        Called with the fraction done (increasing, 0 to 1) from the working thread with the GIL held;
        an exception it raises stops the work (after the current iteration for the iterative methods)
        and is raised by this function.""",
}


def _fov_mode(fov: Any) -> str:
    """The compiled functions' spelling of ``fov``: 'off', 'zero' or 'nan' (ValueError naming it)."""
    if fov is None or fov is False:
        return "off"
    if fov is True:
        return "zero"
    if isinstance(fov, str) and fov in ("zero", "nan", "off"):
        return fov
    raise ValueError(f"fov is {fov!r}; expected None (every voxel), 'zero' (or True) or 'nan'")


def documented(function: _Function) -> _Function:
    """Replaces each line ``{name}`` of ``function``'s docstring by the shared description _SHARED_DOCS[name]."""
    text = function.__doc__ or ""
    for name, description in _SHARED_DOCS.items():
        text = text.replace("{" + name + "}", description)
    if "\n{" in text:
        raise AssertionError(f"{function.__name__}: an unknown {{placeholder}} in its docstring")
    function.__doc__ = text
    return function


def renamed(**old_to_new: str) -> Callable[[_Function], _Function]:
    """Decorates a function whose keywords were renamed: ``@renamed(niterations="iterations")``.

    A call with an old name works as with the new one and warns (DeprecationWarning naming the new
    name); a call giving both (the new one by keyword or by position) raises TypeError. The function's
    signature and ``help()`` show the new names; ``__renamed_keywords__`` holds the table, and the
    docstring gets a line listing the old names.
    """

    def decorate(function: _Function) -> _Function:
        signature = inspect.signature(function)
        parameters = signature.parameters
        for old, new in old_to_new.items():
            if new not in parameters or old in parameters:
                raise AssertionError(f"{function.__name__}: renamed({old}={new!r}) does not fit {signature}")
        positional = [
            name
            for name, p in parameters.items()
            if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        ]

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            old_names = [old for old in old_to_new if old in kwargs]
            if old_names:
                given = set(positional[: len(args)]) | set(kwargs)
                for old in old_names:
                    new = old_to_new[old]
                    if new in given:
                        raise TypeError(
                            f"{function.__name__}() got both {old!r} (the old name) and {new!r}; give only {new!r}"
                        )
                    warnings.warn(
                        f"{function.__name__}(): the keyword {old!r} is deprecated; use {new!r} (the same meaning)",
                        DeprecationWarning,
                        stacklevel=2,
                    )
                    kwargs[new] = kwargs.pop(old)
            return function(*args, **kwargs)

        wrapper.__renamed_keywords__ = dict(old_to_new)  # type: ignore[attr-defined]
        doc = (function.__doc__ or "").rstrip()
        if "\n    Notes\n    -----\n" not in doc:
            doc += "\n\n    Notes\n    -----"
        else:
            doc += "\n"
        doc += "\n    Renamed keywords (the old names still work, with a DeprecationWarning naming the new one):"
        for old, new in old_to_new.items():
            doc += f"\n    ``{old}`` -> ``{new}``;"
        wrapper.__doc__ = doc.rstrip(";") + ".\n"
        return wrapper  # type: ignore[return-value]

    return decorate
