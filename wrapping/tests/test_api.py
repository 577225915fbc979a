"""The Python API's conventions: one naming scheme (every public function called with the unified
names; each old name still works with a DeprecationWarning naming the new one and gives the same
result; both at once is a TypeError), numpy.asarray of an image is its pixels, type hints and py.typed,
docstrings with units and shapes."""

import inspect
import os
import re
import warnings

import numpy as np
import pytest

import conebeamct as cbct
from conftest import write_xvi_scan

# A tiny scan: 8 projections of 24 x 20 pixels of 3 mm, a 12^3 volume of 4 mm (fast for every method).
NPROJ, U, V, PIXEL, VOXELS, VOXEL, SCALE = 8, 24, 20, 3.0, 12, 4.0, 20.0


@pytest.fixture(scope="module")
def scan():
    geometry = cbct.Geometry.circular(NPROJ, sid=500, sdd=800)
    projections = cbct.project_phantom(geometry, (U, V), PIXEL, scale=SCALE)
    return geometry, projections


@pytest.fixture(scope="module")
def volume():
    return cbct.voxelize_phantom(VOXELS, VOXEL, scale=SCALE)


def _equal(a, b):
    """Results of two calls are the same: images by pixels, spacing and origin."""
    if isinstance(a, cbct.Image):
        assert isinstance(b, type(a))
        assert a.spacing == b.spacing and a.origin == b.origin
        a, b = a.array, b.array
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and np.all(np.isfinite(a))
    assert np.array_equal(a, b), np.abs(a - b).max()


# Each renamed keyword: (function, the call's other arguments, old name, new name, a value other than
# the default). The value must change the result, so that passing it under either name is seen.
def _tv_keywords():
    return dict(iterations=2, projections_per_subset=4, hardware="cpu")


def _tv_reducing():
    """ASD-POCS where the TV step shrinks (a small ratio), so that alpha's reduction shows."""
    return dict(iterations=3, projections_per_subset=4, alpha=0.05, ratio=0.01, hardware="cpu")


RENAMED = [
    ("asd_pocs", _tv_keywords, "niterations", "iterations", 3),
    ("asd_pocs", _tv_keywords, "nprojpersubset", "projections_per_subset", 2),
    ("asd_pocs", _tv_keywords, "lambda_red", "lambda_reduction", 0.5),
    ("asd_pocs", _tv_reducing, "alpha_red", "alpha_reduction", 0.3),
    ("asd_pocs", _tv_keywords, "tviter", "tv_iterations", 5),
    ("asd_pocs", lambda: dict(_tv_reducing(), alpha_reduction=0.3), "maxl2err", "max_l2_error", 1e9),
    ("asd_pocs", _tv_keywords, "epsilon", "tv_epsilon", 0.5),
    ("admm_tv", lambda: dict(iterations=2, hardware="cpu"), "niterations", "iterations", 3),
    ("admm_tv", lambda: dict(iterations=2, hardware="cpu"), "cgiter", "cg_iterations", 3),
    ("project_phantom", dict, "spacing", "detector_spacing", 2.5),
    ("project_phantom", dict, "origin", "detector_origin", (-30.0, -20.0)),
    ("emission_project", dict, "spacing", "detector_spacing", 2.5),
    ("emission_project", dict, "origin", "detector_origin", (-30.0, -20.0)),
    ("forward_project", dict, "spacing", "detector_spacing", 2.5),
    ("forward_project", dict, "origin", "detector_origin", (-30.0, -20.0)),
    ("fdk", lambda: dict(hardware="cpu"), "hann_y", "hann_cutoff_v", 0.5),
    ("preprocess", lambda: dict(intensities=False), "wpc", "water_precorrection", (0.0, 1.0, 0.2)),
    ("preprocess", lambda: dict(i0=2.0), "spr", "scatter_to_primary_ratio", 0.1),
    ("preprocess", lambda: dict(i0=2.0, scatter_to_primary_ratio=0.1), "nonneg", "nonnegativity_threshold", 0.9),
]


def _call(name, scan, volume, keywords):
    """Calls the public function `name` on the tiny scan with `keywords` (its leading arguments by
    position, as a user would write them)."""
    geometry, projections = scan
    function = getattr(cbct, name)
    if name in ("asd_pocs", "admm_tv", "fdk"):
        return function(projections, geometry, VOXELS, VOXEL, **keywords)
    if name in ("project_phantom", "emission_project") and "spacing" not in keywords:
        keywords.setdefault("detector_spacing", PIXEL)  # required (by either name)
    if name == "project_phantom":
        return function(geometry, (U, V), scale=SCALE, **keywords)
    if name == "emission_project":
        return function(volume, geometry, (U, V), psf=(1.0, 0.01), **keywords)
    if name == "forward_project":
        return function(volume, geometry, (U, V), **keywords)
    if name == "preprocess":
        if keywords.get("intensities", True):
            # Intensities through air of 2 (the scatter correction's threshold sees air).
            readings = cbct.Projections(2.0 * np.exp(-projections.array / 50.0), projections.spacing, projections.origin)
            return function(readings, air_threshold=1.5, **keywords)
        return function(projections, **keywords)
    raise AssertionError(name)


@pytest.mark.parametrize("name, base, old, new, value", RENAMED, ids=[f"{r[0]}-{r[2]}" for r in RENAMED])
def test_old_name_warns_and_gives_the_same_result(scan, volume, name, base, old, new, value):
    others = {k: v for k, v in base().items() if k != new}
    unified = _call(name, scan, volume, dict(others, **{new: value}))
    with pytest.warns(DeprecationWarning) as caught:
        deprecated = _call(name, scan, volume, dict(others, **{old: value}))
    messages = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    assert messages == [f"{name}(): the keyword {old!r} is deprecated; use {new!r} (the same meaning)"]
    # The warning points at the caller (stacklevel), not at the package.
    assert all(w.filename == __file__ for w in caught if issubclass(w.category, DeprecationWarning)), [w.filename for w in caught]
    _equal(unified, deprecated)
    # The value reached the function: the result differs from the default's.
    default = _call(name, scan, volume, others)
    a, b = np.asarray(unified), np.asarray(default)
    assert a.shape != b.shape or not np.array_equal(a, b), f"{new}={value!r} changed nothing"


@pytest.mark.parametrize("name, base, old, new, value", RENAMED, ids=[f"{r[0]}-{r[2]}" for r in RENAMED])
def test_both_names_is_an_error(scan, volume, name, base, old, new, value):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning before the error, and no work done
        with pytest.raises(TypeError, match=rf"{name}\(\) got both {old!r} \(the old name\) and {new!r}; give only {new!r}"):
            _call(name, scan, volume, dict(base(), **{old: value, new: value}))  # noqa: the point


def test_both_names_by_position_is_an_error(scan):
    geometry, _ = scan
    # detector_spacing is project_phantom's third positional argument.
    with pytest.raises(TypeError, match="got both 'spacing'"):
        cbct.project_phantom(geometry, (U, V), PIXEL, spacing=PIXEL)
    with pytest.raises(TypeError, match="got both 'spacing'"):
        cbct.emission_project(cbct.voxelize_phantom(VOXELS, VOXEL), geometry, (U, V), PIXEL, spacing=PIXEL)


def test_positions_unchanged(scan, volume):
    geometry, projections = scan
    by_position = cbct.project_phantom(geometry, (U, V), 2.5, "shepplogan", SCALE, (-30.0, -20.0))
    by_name = cbct.project_phantom(geometry, detector_size=(U, V), detector_spacing=2.5, scale=SCALE,
                                   detector_origin=(-30.0, -20.0))
    _equal(by_position, by_name)
    assert by_name.spacing == (2.5, 2.5, 1.0) and by_name.origin == (-30.0, -20.0, 0.0)


def _public_functions():
    """Every public function and class of the package (the compiled ones included)."""
    return {name: getattr(cbct, name) for name in cbct.__all__ if callable(getattr(cbct, name))}


# Every public callable with the unified keyword names (every keyword given by name where it is not
# the default's, the leading data arguments by name too).
def _unified_calls(scan, volume, work):
    geometry, projections = scan
    grid = dict(shape=VOXELS, spacing=VOXEL, origin=(-22.0, -22.0, -22.0))
    detector = dict(detector_size=(U, V), detector_spacing=PIXEL, detector_origin=(-34.5, -28.5))
    readings = cbct.Projections(2.0 * np.exp(-projections.array / 50.0), projections.spacing, projections.origin)
    mu = cbct.Volume(0.01 * volume.array, volume.spacing, volume.origin)  # per mm
    path = os.path.join(str(work), "volume.mha")
    volume.save(path=path)
    xvi = os.path.join(str(work), "xvi")
    write_xvi_scan(xvi, 0.01 * projections.array, [float(k) for k in range(projections.shape[0])])
    A = cbct.Projector(geometry=geometry, shape=VOXELS, detector_size=(U, V), spacing=VOXEL, detector_spacing=PIXEL,
                       origin=None, detector_origin=None, projector="joseph", backprojector="adjoint", step=0.0,
                       hardware="cpu", device=0)
    # 48 projections of an edge breathing 6 cycles (conebeamct.breathing_signal).
    edge = -4.0 + 8.0 * np.sin(np.pi * np.mod(6.0 * np.arange(48) / 48, 1.0)) ** 2
    rows = (np.arange(V) - (V - 1) / 2) * PIXEL
    breathing = cbct.Projections(np.repeat((rows[None, :] < edge[:, None]).astype(np.float32)[:, :, None], U, axis=2),
                                 (PIXEL, PIXEL, 1.0), (-(U - 1) / 2 * PIXEL, -(V - 1) / 2 * PIXEL, 0.0))
    # 72 views on a wider detector: the axis is found from opposite views (8 are too few).
    circle = cbct.Geometry.circular(n=72, arc=360, sid=500, sdd=800, first_angle=0, proj_offset_x=0, proj_offset_y=0)
    around = cbct.project_phantom(geometry=circle, phantom="shepplogan", scale=SCALE, detector_size=(64, 8),
                                  detector_spacing=1.0, detector_origin=None, progress=None)
    return {
        "calibrate": lambda: cbct.calibrate(projections=around, geometry=circle, fit="offset", method="opposite",
                                            offset_as="stage", search_range=0.0, tilt_range=3.0, score="edges",
                                            hardware="cpu", return_info=False),
        "project_phantom": lambda: cbct.project_phantom(geometry=geometry, phantom="shepplogan", scale=SCALE,
                                                        progress=None, **detector),
        "voxelize_phantom": lambda: cbct.voxelize_phantom(phantom="shepplogan", scale=SCALE, supersampling=2,
                                                          progress=None, **grid),
        "fourd_fdk": lambda: cbct.fourd_fdk(projections=projections, geometry=geometry,
                                            phases=[(k % 4) / 4.0 for k in range(NPROJ)], frames=2, gating_window=0.6,
                                            gating_shape="triangular", window="hann", cutoff=0.9, hardware="cpu",
                                            progress=None, displaced=True, pad=0.1, hann_cutoff_v=0.8, memory="1G", **grid)[0],
        "fourd_rooster": lambda: cbct.fourd_rooster(projections=projections, geometry=geometry,
                                                    phases=[(k % 4) / 4.0 for k in range(NPROJ)], frames=2,
                                                    initial=None, iterations=1, cg_iterations=2, tv_iterations=2,
                                                    gamma_space=0.001, gamma_time=0.001, positivity=True,
                                                    motion_mask=None, projector="joseph", step=0.0, hardware="cpu",
                                                    progress=None, memory="1G", **grid)[0],
        "breathing_signal": lambda: cbct.breathing_signal(projections=breathing, sigma=1.0, edges="below",
                                                          method="principal", slow_harmonics=2, max_step=2,
                                                          phase_zero="minima", period=0.0, min_regularity=0.5)[0],
        "fdk": lambda: cbct.fdk(projections=projections, geometry=geometry, window="hann", cutoff=0.9, hardware="cpu",
                                progress=None, displaced=True, divisions=2, pad=0.1, hann_cutoff_v=0.8, **grid),
        "preprocess": lambda: cbct.preprocess(
            projections=readings, intensities=True, i0=2.0, idark=0.0, air_threshold=1.5, minimum_signal=0.0,
            lower_crop=(1, 1), upper_crop=(1, 1), binning=(1, 1), median_radius=(1, 1), median_multiplier=0.0,
            water_precorrection=(0.0, 1.0), scatter_to_primary_ratio=0.1, nonnegativity_threshold=0.9, progress=None),
        "emission_project": lambda: cbct.emission_project(activity=volume, geometry=geometry, attenuation=mu,
                                                          psf=(1.0, 0.01), hardware="cpu", progress=None, **detector),
        "poisson_noise": lambda: cbct.poisson_noise(projections=projections, seed=3),
        "osem": lambda: cbct.osem(projections=projections, geometry=geometry, iterations=2, projections_per_subset=4,
                                  projector="joseph", attenuation=None, psf=None, hardware="cpu", progress=None,
                                  initial=None, backprojector="adjoint", step=0.0, devices=None, memory="1G", **grid),
        "asd_pocs": lambda: cbct.asd_pocs(
            projections=projections, geometry=geometry, iterations=2, lambda_=0.8, lambda_reduction=0.99,
            projections_per_subset=4, positivity=True, alpha=0.002, alpha_reduction=0.95, ratio=0.95, tv_iterations=5,
            max_l2_error=0.0, tv_epsilon=0.01, initial=None, hardware="cpu", progress=None, memory="1G", **grid),
        "admm_tv": lambda: cbct.admm_tv(projections=projections, geometry=geometry, iterations=2, alpha=0.1, beta=1.0,
                                        cg_iterations=2, initial=None, hardware="cpu", progress=None, memory="1G",
                                        **grid),
        "sart": lambda: cbct.sart(projections=projections, geometry=geometry, initial=None, iterations=2, lambda_=0.5,
                                  projections_per_subset=4, positivity=True, projector="joseph", backprojector="voxel",
                                  step=0.0, hardware="cpu", devices=None, progress=None, memory="1G", **grid),
        "sirt": lambda: cbct.sirt(projections=projections, geometry=geometry, initial=None, iterations=2, lambda_=0.5,
                                  positivity=False, projector="raycast", backprojector="adjoint", step=2.0,
                                  hardware="cpu", devices=None, progress=None, memory="1G", **grid),
        "cgls": lambda: cbct.cgls(projections=projections, geometry=geometry, initial=None, iterations=2,
                                  projector="joseph", step=0.0, hardware="cpu", devices=None, progress=None, memory="1G",
                                  **grid),
        "forward_project": lambda: cbct.forward_project(volume=volume, geometry=geometry, projector="joseph", step=0.0,
                                                        hardware="cpu", device=0, **detector),
        "back_project": lambda: cbct.back_project(projections=projections, geometry=geometry, projector="joseph",
                                                  backprojector="adjoint", step=0.0, hardware="cpu", device=0, **grid),
        "Projector": lambda: A.back(projections=A.forward(volume=volume.array, check_finite=True), check_finite=True),
        "load": lambda: cbct.load(path=path, kind=cbct.Volume),
        "read_scan": lambda: cbct.read_scan(path=xvi, format="elekta", raw=False),
        "Image": lambda: cbct.Image(array=volume.array, spacing=VOXEL, origin=(0.0, 0.0, 0.0)),
        "Projections": lambda: cbct.Projections(array=projections.array, spacing=(PIXEL, PIXEL, 1.0),
                                                origin=(0.0, 0.0, 0.0)),
        "Volume": lambda: cbct.Volume(array=volume.array, spacing=VOXEL, origin=(0.0, 0.0, 0.0), info={"a": 1}),
        "Geometry": lambda: cbct.Geometry.circular(n=4, arc=180, sid=500, sdd=800, first_angle=10, proj_offset_x=1,
                                                   proj_offset_y=2),
        "has_cuda": cbct.has_cuda,
        "has_cuda_arrays": cbct.has_cuda_arrays,
        "cuda_device": cbct.cuda_device,
        "get_number_of_threads": cbct.get_number_of_threads,
        "set_number_of_threads": lambda: cbct.set_number_of_threads(n=cbct.get_number_of_threads()),
    }


# Public names that are not called: types of results and errors, not functions to call.
NOT_CALLED = {"ITKError", "DeviceArray"}


def test_every_public_function_with_the_unified_names(scan, volume, work):
    calls = _unified_calls(scan, volume, work)
    # Every public callable is called here: a new public function must be added to _unified_calls (with
    # every keyword by its name), and follow the naming scheme of wrapping/README.md ("Names").
    missing = set(_public_functions()) - NOT_CALLED - set(calls)
    assert not missing, f"public but not called by test_api.py's _unified_calls: {sorted(missing)}"
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # no old name anywhere
        for name, call in calls.items():
            result = call()
            if isinstance(result, cbct.Image):
                assert result.array.dtype == np.float32 and np.all(np.isfinite(result.array)), name
                assert np.abs(result.array).max() > 0, name


def _renamed_table():
    """{(function, old): new} from the functions' decorators."""
    table = {}
    for name, function in _public_functions().items():
        for old, new in getattr(function, "__renamed_keywords__", {}).items():
            table[(name, old)] = new
    return table


def test_renamed_table_matches_the_readme_and_the_signatures():
    table = _renamed_table()
    assert {(r[0], r[2]): r[3] for r in RENAMED} == table  # this test covers every renamed keyword
    for (name, old), new in table.items():
        parameters = inspect.signature(getattr(cbct, name)).parameters
        assert new in parameters and old not in parameters, (name, old, new)
    # wrapping/README.md's table (CBCT_README where the tests run outside the tree).
    readme = os.environ.get("CBCT_README") or os.path.join(os.path.dirname(__file__), "..", "README.md")
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    documented = {}
    for functions, old, new in re.findall(r"^\| (`[a-z_]+`(?:, `[a-z_]+`)*) \| `(\w+)` \| `(\w+)` \|$", text, re.M):
        for function in re.findall(r"`(\w+)`", functions):
            documented[(function, old)] = new
    assert documented == table


def test_no_old_name_in_any_public_signature():
    old_names = {old for (_, old) in _renamed_table()} - {"spacing", "origin"}  # the volume grid's names stay
    for name, function in _public_functions().items():
        try:
            parameters = inspect.signature(function).parameters
        except (TypeError, ValueError):
            continue  # compiled
        assert not old_names & set(parameters), (name, old_names & set(parameters))
    # The detector's grid is detector_* wherever a function has both grids or only the detector's.
    for name in ("project_phantom", "emission_project", "forward_project", "Projector"):
        parameters = inspect.signature(getattr(cbct, name)).parameters
        assert {"detector_size", "detector_spacing", "detector_origin"} <= set(parameters), name


@pytest.mark.parametrize("kind", ["projections", "volume", "fdk"])
def test_asarray_gives_the_pixels(scan, kind):
    geometry, projections = scan
    image = {"projections": projections, "volume": cbct.voxelize_phantom((6, 5, 4), 2.0),
             "fdk": cbct.fdk(projections, geometry, (6, 5, 4), VOXEL, hardware="cpu")}[kind]
    array = np.asarray(image)
    assert type(array) is np.ndarray and array.dtype == np.float32
    assert array.shape == image.array.shape == ((NPROJ, V, U) if kind == "projections" else (6, 5, 4))
    assert np.shares_memory(array, image.array) and np.array_equal(array, image.array)
    assert np.abs(array).max() > 0
    # Another dtype is a converted copy; np.array() copies; numpy functions take the image.
    as_double = np.asarray(image, dtype=np.float64)
    assert as_double.dtype == np.float64 and np.array_equal(as_double, image.array)
    assert not np.shares_memory(as_double, image.array)
    copied = np.array(image)
    assert np.array_equal(copied, image.array) and not np.shares_memory(copied, image.array)
    assert np.sum(image, dtype=np.float64) == pytest.approx(image.array.sum(dtype=np.float64))
    assert image.__array__(copy=True) is not image.array
    with pytest.raises(ValueError, match="needs a copy"):
        image.__array__(np.float64, copy=False)


def test_type_hints_and_py_typed():
    package = os.path.dirname(cbct.__file__)
    assert os.path.isfile(os.path.join(package, "py.typed"))
    for name, function in _public_functions().items():
        try:
            signature = inspect.signature(function)
        except (TypeError, ValueError):
            continue  # compiled: pybind11 writes the types into the docstring's signature
        target = function.__init__ if inspect.isclass(function) else function
        signature = inspect.signature(target)
        for parameter in signature.parameters.values():
            if parameter.name in ("self", "cls") or parameter.kind == parameter.VAR_KEYWORD:
                continue
            assert parameter.annotation is not inspect.Parameter.empty, (name, parameter.name)
        assert signature.return_annotation is not inspect.Signature.empty, name


def test_docstrings_give_every_parameter_units_and_shapes():
    for name, function in _public_functions().items():
        if name in NOT_CALLED or name.startswith(("has_", "get_", "set_", "cuda_")) or name == "Geometry":
            continue
        doc = inspect.getdoc(function) or ""
        target = function.__init__ if inspect.isclass(function) else function
        for parameter in inspect.signature(target).parameters:
            if parameter in ("self",):
                continue
            assert re.search(rf"^(\w+, )*{parameter}(, \w+)* : ", doc, re.M), (name, parameter)
        assert "mm" in doc, name
        assert re.search(r"\((z, y, x|projection, v, u|nz, ny, nx|len\(geometry\), V, U)\)", doc), name
    text = inspect.getdoc(cbct.fdk)
    for word in ("Parameters", "Returns", "Raises", "(nz, ny, nx)", "(x, y, z)", "(projection, v, u)", "Nyquist",
                 "hann_y``"):
        assert word in text, word
    # Geometry's methods (compiled) give units too.
    assert "degrees" in cbct.Geometry.circular.__doc__ and "mm" in cbct.Geometry.add_projection.__doc__


_TYPED_USE = '''
import numpy as np
import conebeamct as cbct

geometry = cbct.Geometry.circular(30, sid=500.0)
projections = cbct.project_phantom(geometry, 64, detector_spacing=2.0)
volume = cbct.fdk(projections, geometry, shape=32, spacing=2.0, window="hann", hann_cutoff_v=0.5)
pixels: np.ndarray = np.asarray(volume)
seconds = volume.info["total_s"]
tv = cbct.asd_pocs(projections, geometry, 32, 2.0, iterations=3, tv_iterations=5)
loaded: cbct.Projections = cbct.load("p.mha", kind=cbct.Projections)
default: cbct.Volume = cbct.load("v.mha")
'''

_TYPED_MISUSE = {
    'cbct.Geometry.circular("30")': 'incompatible type "str"; expected "int"',
    'cbct.fdk(projections, geometry, 32, window="ramp")': 'Argument "window" to "fdk" has incompatible type',
    "cbct.sart(volume, geometry)": 'Argument 1 to "sart" has incompatible type "Volume"',
    'cbct.cgls(projections, geometry, hardware="gpu")': 'Argument "hardware" to "cgls" has incompatible type',
    'cbct.admm_tv(projections, geometry, cg_iterations="3")': 'Argument "cg_iterations" to "admm_tv"',
    "geometry.no_such_method()": '"Geometry" has no attribute "no_such_method"',
}


def test_static_type_check(tmp_path):
    """mypy (where it is installed: not in CI) takes the package's hints: a correct use passes, each
    misuse is reported."""
    api = pytest.importorskip("mypy.api")
    package_root = os.path.dirname(os.path.dirname(cbct.__file__))
    good = tmp_path / "good.py"
    good.write_text(_TYPED_USE)
    bad = tmp_path / "bad.py"
    bad.write_text(_TYPED_USE + "\n".join(_TYPED_MISUSE) + "\n")
    environment = dict(os.environ)
    os.environ["MYPYPATH"] = package_root
    try:
        out, err, status = api.run(["--ignore-missing-imports", "--no-incremental", "--cache-dir", os.devnull, str(good)])
        assert status == 0, out + err
        out, err, status = api.run(["--ignore-missing-imports", "--no-incremental", "--cache-dir", os.devnull, str(bad)])
    finally:
        os.environ.clear()
        os.environ.update(environment)
    assert status == 1, out + err
    for message in _TYPED_MISUSE.values():
        assert message in out, (message, out)
    assert out.count("error:") == len(_TYPED_MISUSE), out
