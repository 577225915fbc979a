"""Total-variation reconstruction for few views: ASD-POCS and ADMM-TV, as ``cbct-asdpocs`` and
``cbct-admmtv``."""

from __future__ import annotations

from typing import Optional

from . import _conebeamct
from ._checks import _check_geometry, _check_projection_count, _count, _number, _sizes, _volume_grid
from ._conebeamct import Geometry
from ._conventions import Hardware, MemoryBudget, Point3, Progress, VolumeShape, VoxelSpacing, documented, renamed
from ._images import Projections, Volume, _as_input
from ._memory import _check_memory, _iterative_need, _memory_budget, _runs_on_cuda

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
    xyz, step, first = _volume_grid(shape, spacing, origin)
    grid.size = xyz
    grid.spacing = step
    grid.origin = first
    return grid, step, first


def _check_tv_memory(memory, method, grid, initial, checked, geometry, hardware, per_subset):
    """Refuses a run of ``method`` ('asd_pocs', 'admm_tv') that needs more than ``memory``, counted as
    cbct-asdpocs and cbct-admmtv count it (adjoint backprojection; ADMM-TV as one projection per subset)."""
    budget = _memory_budget(memory)
    if budget is None:
        return
    voxels = grid.initial.size if initial is not None else int(grid.size[0]) * int(grid.size[1]) * int(grid.size[2])
    parts, remedy = _iterative_need(method, voxels, checked.array.size, len(geometry), initial is not None,
                                    _runs_on_cuda(str(hardware)), True, per_subset)
    _check_memory(memory, budget, "the reconstruction", parts, remedy)


def _iterative_inputs(projections, geometry, iterations):
    checked, from_itk = _as_input(projections, "projections", Projections)
    _check_geometry(geometry)
    _check_projection_count(checked, geometry)
    return checked, from_itk, _sizes(iterations, "iterations", 1, "an integer >= 1")[0]


@renamed(
    niterations="iterations",
    lambda_red="lambda_reduction",
    nprojpersubset="projections_per_subset",
    alpha_red="alpha_reduction",
    tviter="tv_iterations",
    maxl2err="max_l2_error",
    epsilon="tv_epsilon",
)
@documented
def asd_pocs(
    projections: Projections,
    geometry: Geometry,
    shape: Optional[VolumeShape] = None,
    spacing: VoxelSpacing = 1.0,
    origin: Optional[Point3] = None,
    iterations: int = 10,
    lambda_: float = 0.5,
    lambda_reduction: float = 0.99,
    projections_per_subset: int = 1,
    positivity: bool = True,
    alpha: float = 0.002,
    alpha_reduction: float = 0.95,
    ratio: float = 0.95,
    tv_iterations: int = 20,
    max_l2_error: float = 0.0,
    tv_epsilon: float = 1e-8,
    initial: Optional[Volume] = None,
    hardware: Hardware = "auto",
    progress: Progress = None,
    memory: MemoryBudget = None,
) -> Volume:
    """ASD-POCS: total-variation-regularised OS-SART for few views, as ``cbct-asdpocs`` (TIGRE's
    ASD_POCS parameters and defaults but ``lambda_`` 0.5, TIGRE's 1; the same bits on the CPU).

    Each iteration is one OS-SART pass, then ``tv_iterations`` steepest-descent steps on the total
    variation whose step starts at ``alpha`` times the first pass's change (L2) and shrinks by
    ``alpha_reduction`` whenever the TV steps change the volume more than ``ratio`` times the pass did
    (and the data residual is above ``max_l2_error``).

    Parameters
    ----------
{projections}
{grid}
    iterations : int
        OS-SART + TV iterations, >= 1 (``--niterations``).
    lambda_ : float
        The OS-SART relaxation factor, > 0 (``--lambda``).
    lambda_reduction : float
        ``lambda_`` is multiplied by it after each iteration; in (0, 1].
    projections_per_subset : int
        Projections in each OS-SART subset, 0 (all) to len(geometry) (``--nprojpersubset``).
    positivity : bool
        Negative voxels set to 0 after each pass.
    alpha : float
        The TV step as a fraction of the pass's change, >= 0 (0: no TV steps).
    alpha_reduction : float
        The TV step's reduction factor, in (0, 1].
    ratio : float
        The largest ratio of the TV steps' change to the pass's before the step shrinks, > 0.
    tv_iterations : int
        Steepest-descent TV steps per iteration, >= 0 (``--tviter``).
    max_l2_error : float
        The step shrinks only while the data residual (L2) is above this, >= 0 (0: always;
        ``--maxl2err``).
    tv_epsilon : float
        The smoothing of the total variation's gradient, per mm, >= 0 (``--tv-epsilon``; 0.01 makes
        the result independent of the hardware's rounding).
{initial}
        Otherwise the volume starts from zeros.
    hardware : str
        'cpu', 'cuda' or 'auto'.
{progress}
{memory}

    Returns
    -------
    Volume
        Attenuation per mm, array (nz, ny, nx) float32 in (z, y, x) order, spacing and origin
        (x, y, z) in mm; ``info`` has ``hardware``, ``iterations``, ``total_s`` and ``tv_steps`` (the TV
        step each iteration used). An ``itk.Image`` when the projections were one.

    Notes
    -----
    The GIL is released while it runs.
    """
    checked, from_itk, n = _iterative_inputs(projections, geometry, iterations)
    grid, step, first = _iterative_grid(initial, shape, spacing, origin)
    per_subset = _count(projections_per_subset, "projections_per_subset", "an integer >= 0 (0: all projections)", 0)
    if per_subset > len(geometry):
        raise ValueError(
            f"projections_per_subset is {per_subset}; expected at most the number of projections ({len(geometry)}), "
            "or 0 for all"
        )
    _check_tv_memory(memory, "asd_pocs", grid, initial, checked, geometry, hardware, per_subset)
    array, info = _conebeamct._asd_pocs(
        checked.array,
        checked.spacing,
        checked.origin,
        geometry,
        grid,
        n,
        _number(lambda_, "lambda_", "a finite relaxation factor > 0", 0.0, low_open=True),
        _number(lambda_reduction, "lambda_reduction", "a reduction factor in (0, 1]", 0.0, 1.0, low_open=True),
        per_subset,
        bool(positivity),
        _number(alpha, "alpha", "a finite value >= 0", 0.0),
        _number(alpha_reduction, "alpha_reduction", "a reduction factor in (0, 1]", 0.0, 1.0, low_open=True),
        _number(ratio, "ratio", "a finite value > 0", 0.0, low_open=True),
        _count(tv_iterations, "tv_iterations", "an integer >= 0", 0),
        _number(max_l2_error, "max_l2_error", "a finite value >= 0 (0: no residual check)", 0.0),
        _number(tv_epsilon, "tv_epsilon", "a finite value >= 0 (per mm)", 0.0),
        str(hardware),
        progress,
    )
    volume = Volume(array, step, first, info=info)
    return volume.to_itk() if from_itk else volume


@renamed(niterations="iterations", cgiter="cg_iterations")
@documented
def admm_tv(
    projections: Projections,
    geometry: Geometry,
    shape: Optional[VolumeShape] = None,
    spacing: VoxelSpacing = 1.0,
    origin: Optional[Point3] = None,
    iterations: int = 20,
    alpha: Optional[float] = None,
    beta: Optional[float] = None,
    cg_iterations: int = 2,
    positivity: bool = True,
    init: str = "fdk",
    initial: Optional[Volume] = None,
    hardware: Hardware = "auto",
    progress: Progress = None,
    memory: MemoryBudget = None,
) -> Volume:
    """ADMM with total variation, as ``cbct-admmtv`` (RTK's rtkadmmtotalvariation parameters with the
    positivity constraint and a start from FDK by default; the same bits on the CPU).

    Minimises ``|A x - p|^2 + alpha TV(x)``: each iteration solves (A^T A + ``beta`` D^T D) x =
    A^T p + ``beta`` D^T (g + d) by ``cg_iterations`` conjugate gradient steps (D the gradient),
    soft-thresholds g = D x - d by alpha / (2 beta) and updates d.

    Parameters
    ----------
{projections}
{grid}
    iterations : int
        ADMM iterations, >= 1 (``--niterations``).
    alpha : float, optional
        The total variation's weight, >= 0. By default chosen from the problem's scales as
        ``cbct-admmtv`` does without ``--alpha`` (docs/guide/choosing-a-method.md): 2 beta x 0.2 mu / s,
        mu the projections' 99.9th percentile over the volume's width, s the voxel size.
    beta : float, optional
        The augmented Lagrangian's weight, > 0. By default 0.1 x the ratio of the estimated largest
        eigenvalues of A^T A and D^T D (from the views, magnification, pixel and voxel sizes).
    cg_iterations : int
        Conjugate gradient steps per iteration, >= 1 (``--CGiter``).
    positivity : bool
        Constrain the volume to x >= 0 (a second ADMM split z = x, z >= 0, weighted by beta times
        D^T D's largest eigenvalue); False is ``--no-positivity``.
    init : str
        Without ``initial``: 'fdk' (FDK of the projections on the grid, negatives set to 0, on the
        CPU; zeros where FDK cannot reconstruct the geometry) or 'zero' (``--init``).
{initial}
        It takes the place of ``init``.
    hardware : str
        'cpu', 'cuda' or 'auto'.
{progress}
{memory}

    Returns
    -------
    Volume
        Attenuation per mm, array (nz, ny, nx) float32 in (z, y, x) order, spacing and origin
        (x, y, z) in mm; ``info`` has ``hardware``, ``iterations``, ``total_s``, ``alpha`` and ``beta``
        (those used), ``positivity`` and ``init`` (how it started: 'fdk', 'zero' or 'initial'). An
        ``itk.Image`` when the projections were one.

    Notes
    -----
    The GIL is released while it runs.
    """
    checked, from_itk, n = _iterative_inputs(projections, geometry, iterations)
    grid, step, first = _iterative_grid(initial, shape, spacing, origin)
    if init not in ("fdk", "zero"):
        raise ValueError(f"init is {init!r}; expected 'fdk' or 'zero'")
    _check_tv_memory(memory, "admm_tv", grid, initial, checked, geometry, hardware, 1)
    array, info = _conebeamct._admm_tv(
        checked.array,
        checked.spacing,
        checked.origin,
        geometry,
        grid,
        n,
        float("nan") if alpha is None else _number(alpha, "alpha", "a finite regularisation weight >= 0", 0.0),
        float("nan") if beta is None else _number(beta, "beta", "a finite augmented Lagrangian weight > 0", 0.0,
                                                  low_open=True),
        _count(cg_iterations, "cg_iterations", "an integer >= 1", 1),
        bool(positivity),
        str(init),
        str(hardware),
        progress,
    )
    volume = Volume(array, step, first, info=info)
    return volume.to_itk() if from_itk else volume
