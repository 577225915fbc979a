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

# One module per topic; this file only gathers the public names. The argument checks every function
# shares are in _checks, the image classes in _images. as_float32 is not in __all__ but stays reachable
# as conebeamct.as_float32, where the docstrings point for how arrays are converted.
from ._checks import as_float32  # noqa: F401
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
from ._calibrate import calibrate
from ._emission import emission_project, osem
from ._fdk import fdk
from ._fourd import fourd_fdk
from ._fourd_rooster import fourd_rooster
from ._images import Image, Projections, Volume
from ._io import load
from ._iterative import cgls, sart, sirt
from ._phantoms import poisson_noise, project_phantom, voxelize_phantom
from ._preprocess import preprocess
from ._projectors import Projector, back_project, forward_project
from ._scan import read_scan
from ._signal import breathing_signal
from ._tv import admm_tv, asd_pocs

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
