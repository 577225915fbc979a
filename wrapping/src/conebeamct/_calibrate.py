"""The scan's geometry found from its own projections: :func:`calibrate`, as ``cbct-calibrate`` does it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Literal, Sequence, Tuple, Union, overload

from . import _conebeamct
from ._checks import _check_finite, _check_geometry, _shape_text
from ._images import Projections, _as_input

if TYPE_CHECKING:
    from . import Geometry

CalibrationMethod = Literal["auto", "opposite", "sharpness", "beads"]
OffsetModel = Literal["stage", "detector"]
SharpnessMeasure = Literal["edges", "gradient", "variance"]


@overload
def calibrate(
    projections: "Projections",
    geometry: "Geometry",
    fit: Union[str, Sequence[str]] = ...,
    method: CalibrationMethod = ...,
    offset_as: OffsetModel = ...,
    search_range: float = ...,
    tilt_range: float = ...,
    score: SharpnessMeasure = ...,
    hardware: str = ...,
    return_info: Literal[False] = ...,
) -> "Geometry": ...


@overload
def calibrate(
    projections: "Projections",
    geometry: "Geometry",
    fit: Union[str, Sequence[str]] = ...,
    method: CalibrationMethod = ...,
    offset_as: OffsetModel = ...,
    search_range: float = ...,
    tilt_range: float = ...,
    score: SharpnessMeasure = ...,
    hardware: str = ...,
    *,
    return_info: Literal[True],
) -> Tuple["Geometry", Dict[str, Any]]: ...


def calibrate(
    projections: "Projections",
    geometry: "Geometry",
    fit: Union[str, Sequence[str]] = ("offset", "roll"),
    method: CalibrationMethod = "auto",
    offset_as: OffsetModel = "stage",
    search_range: float = 0.0,
    tilt_range: float = 3.0,
    score: SharpnessMeasure = "edges",
    hardware: str = "auto",
    return_info: bool = False,
) -> Union["Geometry", Tuple["Geometry", Dict[str, Any]]]:
    """The geometry corrected from the projections themselves, as ``cbct-calibrate`` finds it: the
    rotation axis' offset along u, the detector's roll about the beam (InPlaneAngle) and, when asked,
    the axis' tilt toward the source (OutOfPlaneAngle), added to every projection of ``geometry``.

    Methods: 'opposite' compares each ray with the same line measured from the other side of the orbit
    (full, short and half-fan scans); 'sharpness' reconstructs FDK slices at several heights for
    candidate axes and keeps the sharpest; 'auto' (default) runs the first and refines the offset
    (and fits the tilt) with the second. A fit the data cannot give raises instead of returning.

    Parameters
    ----------
    projections : Projections or itk.Image
        Line integrals, array (projection, v, u) float32, spacing (su, sv, 1) and origin (u0, v0, 0) in
        mm, one projection per entry of ``geometry``.
    geometry : Geometry
        The scan's nominal circular geometry (RTK parameters, cone beam).
    fit : str or sequence of str
        Some of 'offset', 'roll' and 'tilt' ('offset,roll' as a string works too); the roll needs the
        offset.
    method : str
        'auto', 'opposite', 'sharpness' or 'beads' (a bead phantom: not in this build yet).
    offset_as : str
        'stage' (the rotation stage stands off the source-detector line, as in micro-CT: the source and
        detector offsets move together) or 'detector' (the detector alone moved, as on a C-arm).
    search_range : float
        Half-width of the offset's search in detector pixels; 0: a quarter of the detector's width.
    tilt_range : float
        Half-width of the tilt's search in degrees, in (0, 45].
    score : str
        The sharpness measure: 'edges' (gradient energy per total variation), 'gradient' or 'variance'.
    hardware : str
        The sharpness method's FDK: 'cpu', 'cuda' or 'auto'.
    return_info : bool
        Also return a dict: 'method', 'parameters' (per name: 'fitted', 'value', 'uncertainty',
        'unit', 'method'), 'curves' (the score against each parameter: 'parameter', 'values',
        'scores', 'score', 'higher_is_better', 'fitted'), 'log', 'warnings', 'offset_mm',
        'offset_as' and 'hardware'.

    Returns
    -------
    Geometry
        The calibrated geometry (write it with ``Geometry.write``), or (Geometry, info) with
        ``return_info``.

    Raises
    ------
    ValueError
        For a bad argument (named) or non-finite projections.
    ITKError
        When the data cannot give the fit, naming what is missing (too few views, a blank scan, an
        optimum at the edge of the search, a parameter the data do not determine).
    """

    checked, _ = _as_input(projections, "projections", Projections)
    _check_finite(checked.array, "projections")
    _check_geometry(geometry)
    if checked.array.shape[0] != len(geometry):
        raise ValueError(
            f"projections has shape {_shape_text(checked.array.shape)}, {checked.array.shape[0]} projections, "
            f"but geometry has {len(geometry)}"
        )
    names = [part.strip() for part in fit.split(",")] if isinstance(fit, str) else [str(part) for part in fit]
    calibrated, info = _conebeamct._calibrate(
        checked.array,
        checked.spacing,
        checked.origin,
        geometry,
        names,
        str(method),
        str(offset_as),
        float(search_range),
        float(tilt_range),
        str(score),
        str(hardware),
        bool(return_info),
    )
    return (calibrated, info) if return_info else calibrated
