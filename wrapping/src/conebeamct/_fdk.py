"""Feldkamp-Davis-Kress reconstruction, as ``cbct-fdk``."""

from __future__ import annotations

from typing import Optional

from . import _conebeamct
from ._checks import _check_finite, _check_geometry, _check_projection_count, _number, _sizes, _volume_grid
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
    renamed,
)
from ._images import Projections, Volume, _as_input
from ._memory import _memory_budget

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
    memory: MemoryBudget = None,
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
        With ``memory``, leave it at 1: the plan chooses the slabs.
    pad : float
        Truncation correction (``cbct-fdk --pad``): each row extended by this fraction of the
        detector width on each side before ramp filtering, for objects wider than the detector; >= 0.
    hann_cutoff_v : float
        A Hann low-pass along v (the detector's rows) with this cut-off in (0, 1], a fraction of
        Nyquist (``cbct-fdk --hannY``); 0: none.
{fov}
    memory : int or str, optional
        A host memory budget for what the call allocates besides the projections given (the volume
        returned included), as ``cbct-fdk --memory``: bytes, or a size such as ``'2G'`` or ``'512M'``
        (K, M, G, T: powers of 1024). The volume is then reconstructed in slabs along y, each as thick
        as the budget allows and reading only the detector rows it projects onto, the projections
        weighted, filtered and backprojected in batches that fit; the volume is the same, bit for bit.
        A budget too small even for slabs of one row of voxels is a ValueError saying what the
        smallest plan needs. On CUDA the host holds only the volume (the device's work is split by
        the CUDA filter itself): the budget must hold the volume, and one slab is taken. None
        (default): ``divisions`` slabs, every projection at once.

    Returns
    -------
    Volume
        Attenuation per mm, array (nz, ny, nx) float32 in (z, y, x) order, spacing and origin
        (x, y, z) in mm; ``info`` has the hardware used, the number of slabs and each stage's seconds
        (``weighting_s``, ``filtering_s``, ``backprojection_s``, ``upload_s``, ``download_s``,
        ``total_s``); with ``memory`` also the plan: ``plan`` (in words), ``projections_per_batch``,
        ``memory`` (the budget in bytes) and ``planned_peak_bytes`` (the most a slab holds). An
        ``itk.Image`` when ``projections`` was one.

    Raises
    ------
    ValueError
        For projections holding NaN or infinities (naming how many and the first index, as the apps
        refuse them), a number of projections other than the geometry's, a bad argument (named), or a
        ``memory`` budget that is malformed or too small (naming what it needs).
    ITKError
        For an error of the C++ library (e.g. a volume outside the detector's view).

    Notes
    -----
    The GIL is released while it runs; several reconstructions may run at once from threads.
    """
    checked, from_itk = _as_input(projections, "projections", Projections)
    _check_finite(checked.array, "projections")
    _check_geometry(geometry)
    _check_projection_count(checked, geometry)
    xyz, step, first = _volume_grid(shape, spacing, origin)
    slabs = _sizes(divisions, "divisions", 1, "an integer >= 1")[0]
    budget = _memory_budget(memory)
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
        0 if budget is None else budget,
        repr(memory),
        progress,
    )
    volume = Volume(array, step, first, info=info)
    return volume.to_itk() if from_itk else volume
