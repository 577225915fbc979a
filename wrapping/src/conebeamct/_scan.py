"""Reading a scanner's scan (Varian, Elekta XVI, Nikon, Bruker) as ``cbct-import`` does."""

from __future__ import annotations

import math
import os
from typing import Optional, Sequence, Tuple, Union

import numpy as np

from . import _conebeamct
from ._conebeamct import Geometry
from ._images import Projections

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
    + TIFF, Bruker SkyScan ``.log`` + TIFF, DICOM-CT-PD CT projection data such as the AAPM/Mayo
    low-dose CT scans), or named by ``format``. The projection files are read in
    parallel and stacked on the detector grid the vendor's files give; the geometry is converted to
    RTK's convention (docs/guide/scanner-data.md lists what is read from each vendor's files).

    Parameters
    ----------
    path : str or os.PathLike, or a sequence of them
        The scan's folder, or its file (a ``.xtekct``, a ``_Frames.xml``, a lone ``.xim``, ...); several
        are read as one scan, one after the other (e.g. lone ``.xim`` files), and must share one
        detector grid.
    format : {"varian", "elekta", "nikon", "dicomctpd", "bruker"}, optional
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
