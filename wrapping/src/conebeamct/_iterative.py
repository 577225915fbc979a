"""Iterative reconstruction: :func:`sart` (SART, OS-SART, SIRT), :func:`sirt`, :func:`cgls`, and the
transmission path of :func:`conebeamct.osem` (_iterate)."""

import numpy as np

from . import _conebeamct
from ._projectors import _BACKPROJECTORS, _PROJECTORS, _choice


def _iterate(method, projections, geometry, shape, spacing, origin, initial, iterations, projector, backprojector,
             step, hardware, devices, progress, lambda_=0.3, per_subset=0, positivity=False):
    from . import Projections, Volume, _as_input, _centred, _check_geometry, _numbers, _sizes, _shape_text

    checked, from_itk = _as_input(projections, "projections", Projections)
    _check_geometry(geometry)
    if checked.array.shape[0] != len(geometry):
        raise ValueError(
            f"projections has shape {_shape_text(checked.array.shape)}, {checked.array.shape[0]} projections, "
            f"but geometry has {len(geometry)}"
        )
    if initial is not None:
        if shape is not None or origin is not None:
            raise ValueError("initial and shape/origin: the initial volume defines the grid; give one or the other")
        start, _ = _as_input(initial, "initial", Volume)
    else:
        if shape is None:
            raise ValueError("shape is None; expected N or (nz, ny, nx) voxels (or an initial volume)")
        zyx = _sizes(shape, "shape", 3, "N or (nz, ny, nx) voxels, integers >= 1")
        step_mm = _numbers(spacing, "spacing", 3, "a voxel size > 0 in mm, or (sx, sy, sz)", positive=True)
        first = _centred(zyx[::-1], step_mm) if origin is None else _numbers(origin, "origin", 3, "(x, y, z) in mm")
        # Zeros, as the apps start (OSEM starts from 1 where it is given 0 everywhere).
        start = Volume(np.zeros(zyx, np.float32), step_mm, first)
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
    array, info = _conebeamct._iterate(
        method, checked.array, checked.spacing, checked.origin, geometry, start.array, start.spacing, start.origin,
        count, float(lambda_), int(per_subset), bool(positivity), projector, backprojector, float(step), hardware,
        devices, progress,
    )
    volume = Volume(array, start.spacing, start.origin, info=info)
    return volume.to_itk() if from_itk else volume


def sart(projections, geometry, shape=None, spacing=1.0, origin=None, initial=None, iterations=3, lambda_=0.3,
         projections_per_subset=1, positivity=False, projector="joseph", backprojector="adjoint", step=0.0,
         hardware="cpu", devices=None, progress=None):
    """SART (``projections_per_subset=1``), OS-SART (more) or SIRT (0: all projections), as
    ``cbct-sart`` computes it (the same bits on the CPU).

    projections: :class:`Projections` (or ``itk.Image``) of line integrals, one per projection of
    ``geometry``. The volume: ``shape``/``spacing``/``origin`` as :func:`fdk`'s, starting from 0, or
    ``initial`` (a :class:`Volume`, whose grid is used). ``lambda_``: the relaxation factor;
    ``positivity``: negative voxels set to 0 after each update. ``projector``: 'joseph' or 'raycast'
    (``step`` mm), ``backprojector``: 'adjoint' or 'voxel'. ``hardware``: 'cpu' or 'cuda'
    (``devices``: a list of CUDA devices sharing the volume in slabs; default the first). ``progress``:
    a callable given the fraction done. Returns a :class:`Volume` whose ``info`` has each iteration's
    seconds. The GIL is released while it runs."""
    return _iterate("sart", projections, geometry, shape, spacing, origin, initial, iterations, projector,
                    backprojector, step, hardware, devices, progress, lambda_=lambda_, per_subset=projections_per_subset,
                    positivity=positivity)


def sirt(projections, geometry, shape=None, spacing=1.0, origin=None, initial=None, iterations=3, lambda_=0.3,
         positivity=False, projector="joseph", backprojector="adjoint", step=0.0, hardware="cpu", devices=None,
         progress=None):
    """SIRT: :func:`sart` with every projection in one subset (``cbct-sart --nprojpersubset 0``)."""
    return sart(projections, geometry, shape, spacing, origin, initial, iterations, lambda_, 0, positivity, projector,
                backprojector, step, hardware, devices, progress)


def cgls(projections, geometry, shape=None, spacing=1.0, origin=None, initial=None, iterations=3, projector="joseph",
         step=0.0, hardware="cpu", devices=None, progress=None):
    """CGLS, least squares by conjugate gradients on the normal equations, as ``cbct-cgls`` (the same bits
    on the CPU); arguments as :func:`sart`'s (it needs the exact adjoint: no backprojector choice).
    ``info`` has ``initial_residual_norm`` |p - A x0| and ``residual_norms`` after each iteration."""
    return _iterate("cgls", projections, geometry, shape, spacing, origin, initial, iterations, projector, "adjoint",
                    step, hardware, devices, progress)
