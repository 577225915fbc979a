"""The breathing signal and phases from the projections: :func:`breathing_signal`, as ``cbct-signal``."""

from __future__ import annotations

from typing import Literal, Tuple

import numpy as np

from . import _conebeamct
from ._checks import _check_finite, _number
from ._conventions import documented
from ._images import Projections, _as_input

EdgeDirection = Literal["below", "above", "both"]
SignalMethod = Literal["principal", "edge"]
PhaseZero = Literal["minima", "maxima"]


@documented
def breathing_signal(
    projections: "Projections",
    sigma: float = 2.0,
    edges: EdgeDirection = "below",
    method: SignalMethod = "principal",
    slow_harmonics: int = 2,
    max_step: int = 2,
    phase_zero: PhaseZero = "minima",
    period: float = 0.0,
    min_regularity: float = 0.5,
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The respiratory phase of each projection, found in the projections themselves, as ``cbct-signal``
    does it: the Amsterdam shroud, the breathing structure's motion in it, the cycles' extrema.

    The shroud has one column per projection: per detector row, the edges across the rows (the
    positive part of minus the derivative along v of the Gaussian-smoothed line integrals, for
    ``edges='below'``) summed along the row. Each shroud row less its slow changes (the mean, a
    trend and ``slow_harmonics`` harmonics of the scan: the gantry's rotation) keeps what breathing
    changes; the signal is the centroid (mm along v) of the shroud over the rows its first principal
    component loads (``method='principal'``), or the path of one edge (``'edge'``, dynamic
    programming). Phase 0 is at each minimum of the signal (``phase_zero``) and grows linearly to 1
    at the next. v points to the head: for a diaphragm the minima are end-inhale; for
    ``cbct-simulate --breathing`` with a positive amplitude along y, end-exhale (its phase 0).

    Parameters
    ----------
    projections : Projections or itk.Image
        Line integrals, array (projection, v, u) float32 (another real dtype is converted), at least
        8 projections over two breathing cycles or more; spacing (su, sv, 1) and origin (u0, v0, 0)
        in mm.
    sigma : float
        The Gaussian along v before the derivative, mm >= 0 (``--sigma``).
    edges : str
        'below' (denser below the edge: a diaphragm's dome, a tumour's top), 'above' or 'both'.
    method : str
        'principal' (the principal motion's centroid) or 'edge' (one edge followed).
    slow_harmonics : int
        Harmonics of the scan removed with the mean and a trend; the breathing must have more cycles.
    max_step : int
        With method 'edge': rows the edge may move from one projection to the next, >= 1.
    phase_zero : str
        'minima' or 'maxima': which extreme of the signal is phase 0.
    period : float
        The breathing cycle in projections, >= 3; 0: the signal's dominant period.
    min_regularity : float
        The least autocorrelation of the signal one cycle apart, in [0, 1]; below it no regular
        breathing was found and ValueError is raised (0: no check).

    Returns
    -------
    phases : numpy.ndarray
        Shape (projections,) float64, one phase in [0, 1) per projection (RTK's signal file).
    signal : numpy.ndarray
        Shape (projections,) float64, the breathing signal (mm along v).
    shroud : numpy.ndarray
        Shape (v, projections) float32, the Amsterdam shroud (row j: detector row j).

    Raises
    ------
    ValueError
        For projections holding NaN or of the wrong shape, a bad argument (named), or a signal in
        which no regular breathing (at least two cycles) was found.
    ITKError
        For another error of the C++ library.

    Notes
    -----
    The GIL is released while it runs.
    """
    checked, _ = _as_input(projections, "projections", Projections)
    _check_finite(checked.array, "projections")
    if checked.array.shape[0] < 8:
        raise ValueError(
            f"projections has {checked.array.shape[0]} projections; expected at least 8, over two breathing cycles or more"
        )
    for name, value, low in (("slow_harmonics", slow_harmonics, 0), ("max_step", max_step, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= 1000:
            raise ValueError(f"{name} is {value!r}; expected an integer from {low} to 1000")
    sigma = _number(sigma, "sigma", "a Gaussian's standard deviation in mm >= 0", 0.0)
    period = _number(period, "period", "0 or a breathing cycle in projections >= 3", 0.0)
    min_regularity = _number(min_regularity, "min_regularity", "a value in [0, 1]", 0.0, 1.0)
    try:
        phases, signal, shroud = _conebeamct._breathing_signal(
            checked.array,
            checked.spacing,
            checked.origin,
            sigma,
            str(edges),
            str(method),
            int(slow_harmonics),
            int(max_step),
            str(phase_zero),
            period,
            min_regularity,
        )
    except _conebeamct.ITKError as error:
        text = str(error)
        if any(s in text for s in ("regular breathing", "extrema found", "samples of", "nothing breathes")):
            raise ValueError(text) from None
        raise
    return phases, signal, shroud
