"""Detector readings to line integrals: RTK's preprocessing, as ``cbct-fdk``'s options do it."""

from __future__ import annotations

from typing import Optional, Sequence, Union

import numpy as np

from . import _conebeamct
from ._checks import _axis_values, _check_finite, _count, _number, _numbers
from ._conventions import Progress, documented, renamed
from ._images import Projections, _as_input

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
    rings_snr: float = 2.5,
    rings_rows: int = 9,
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
        remove_stripe_based_sorting) where their stripe detection finds a stripe (TomoPy's
        remove_large_stripe), 'wavelet' Münch et al.'s wavelet-Fourier filter (2009; TomoPy's
        remove_stripe_fw). None: none.
    rings_size : int
        'sorting': the detection's median window across the detector in pixels; 0: TomoPy's (1 % of
        the width, at least 5; 21 above 2000 pixels). At most the detector's width.
    rings_snr : float
        'sorting': the stripe detection's ratio (TomoPy's snr; larger finds fewer stripes): only the
        columns found as stripes are replaced by their neighbours. 0: every column replaced by the
        median of its window (the paper's algorithm 3 alone). >= 0.
    rings_rows : int
        'sorting': the neighbouring detector rows whose columns' offsets the stripe detection
        averages (a defect is in every row alike; 1: each row alone). >= 1.
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
        _number(rings_snr, "rings_snr", "a finite value >= 0 (0: every column filtered)", 0.0),
        _count(rings_rows, "rings_rows", "an integer >= 1 (1: each row alone)", 1),
        _count(rings_level, "rings_level", "an integer from 0 (automatic) to 30", 0),
        rings_wavelet,
        _number(rings_sigma, "rings_sigma", "a finite value > 0", 0.0, low_open=True),
        bool(rings_pad),
        progress,
    )
    result = Projections(array, spacing, origin)
    result.info = info
    return result.to_itk() if from_itk else result
