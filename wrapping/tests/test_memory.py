"""memory=, the host memory budget of the reconstruction functions: fdk plans its work within it (the same
volume bit for bit, in slabs and batches); the other methods refuse a run that needs more, saying what it
needs; malformed or too small budgets are ValueErrors naming memory, the value and what was expected."""

import os
import re

import numpy as np
import pytest

import conebeamct as cbct

# FDK: 130 projections (two whole batches of 64 and a part) of 48 x 48 pixels of 4 mm, a 40^3 volume of
# 4 mm; the Shepp-Logan head at 60 mm.
FDK_PROJECTIONS, FDK_DETECTOR, FDK_PIXEL, FDK_VOXELS, FDK_VOXEL, SCALE = 130, 48, 4.0, 40, 4.0, 60.0
# The other methods: 24 projections of 32 x 32 pixels of 4 mm, a 32^3 volume of 4 mm.
NPROJ, DETECTOR, PIXEL, VOXELS, VOXEL = 24, 32, 4.0, 32, 4.0


def _bits(volume):
    return np.asarray(volume.array).view(np.uint32)


@pytest.fixture(scope="module")
def fdk_scan():
    geometry = cbct.Geometry.circular(FDK_PROJECTIONS, sid=1000, sdd=1500)
    return geometry, cbct.project_phantom(geometry, FDK_DETECTOR, FDK_PIXEL, scale=SCALE)


@pytest.fixture(scope="module")
def fdk_whole(fdk_scan):
    geometry, projections = fdk_scan
    volume = cbct.fdk(projections, geometry, FDK_VOXELS, FDK_VOXEL, hardware="cpu")
    assert np.isfinite(volume.array).all() and np.abs(volume.array).sum() > 1
    return volume


@pytest.fixture(scope="module")
def scan():
    geometry = cbct.Geometry.circular(NPROJ, sid=1000, sdd=1500)
    return geometry, cbct.project_phantom(geometry, DETECTOR, PIXEL, scale=SCALE)


def test_fdk_in_slabs_and_batches_is_the_same_volume(fdk_scan, fdk_whole):
    geometry, projections = fdk_scan
    fractions = []
    planned = cbct.fdk(projections, geometry, FDK_VOXELS, FDK_VOXEL, hardware="cpu", memory="1100K",
                       progress=fractions.append)
    info = planned.info
    assert info["slabs"] > 1 and info["projections_per_batch"] == 64, info["plan"]
    assert f"{info['slabs']} slabs of " in info["plan"] and "in batches of 64 of the 130 projections" in info["plan"]
    assert info["memory"] == 1100 * 1024 and 0 < info["planned_peak_bytes"] <= info["memory"]
    assert np.array_equal(_bits(planned), _bits(fdk_whole))
    assert fractions and fractions == sorted(fractions) and fractions[-1] == pytest.approx(1.0)


def test_fdk_in_slabs_stops_when_progress_raises(fdk_scan, fdk_whole):
    geometry, projections = fdk_scan

    class Stop(Exception):
        pass

    def stop(fraction):
        if fraction > 0.3:
            raise Stop(f"stopped at {fraction:.2f}")

    with pytest.raises(Stop, match="stopped at"):
        cbct.fdk(projections, geometry, FDK_VOXELS, FDK_VOXEL, hardware="cpu", memory="1100K", progress=stop)
    # Usable again afterwards, with the same plan.
    again = cbct.fdk(projections, geometry, FDK_VOXELS, FDK_VOXEL, hardware="cpu", memory="1100K")
    assert again.info["slabs"] > 1 and np.array_equal(_bits(again), _bits(fdk_whole))


def test_fdk_with_room_takes_one_slab_and_every_projection(fdk_scan, fdk_whole):
    geometry, projections = fdk_scan
    for memory in (1 << 30, np.int64(1 << 30), "1G", " 1 GiB "):
        roomy = cbct.fdk(projections, geometry, FDK_VOXELS, FDK_VOXEL, hardware="cpu", memory=memory)
        assert roomy.info["slabs"] == 1 and roomy.info["projections_per_batch"] == FDK_PROJECTIONS, roomy.info["plan"]
        assert roomy.info["memory"] == 1 << 30 and "all 130 projections at once" in roomy.info["plan"]
        assert np.array_equal(_bits(roomy), _bits(fdk_whole))


def test_fdk_filter_options_and_field_of_view_in_slabs(fdk_scan):
    # The Hann window along v and the truncation padding widen the rows and columns each slab reads;
    # the field of view's NaN must land on the same voxels.
    geometry, projections = fdk_scan
    options = dict(window="hann", cutoff=0.8, hann_cutoff_v=0.6, pad=0.1, fov="nan", hardware="cpu")
    whole = cbct.fdk(projections, geometry, FDK_VOXELS, FDK_VOXEL, **options)
    planned = cbct.fdk(projections, geometry, FDK_VOXELS, FDK_VOXEL, memory="2200K", **options)
    assert planned.info["slabs"] > 1, planned.info["plan"]
    assert np.isnan(whole.array).any() and np.isfinite(whole.array).any()
    assert np.array_equal(_bits(planned), _bits(whole))


def test_fdk_budget_too_small_says_what_it_needs(fdk_scan, fdk_whole):
    geometry, projections = fdk_scan
    with pytest.raises(ValueError) as refused:
        cbct.fdk(projections, geometry, FDK_VOXELS, FDK_VOXEL, hardware="cpu", memory=1000)
    message = str(refused.value)
    assert message.startswith("memory is 1000 (1000 bytes): too small for this reconstruction"), message
    assert "slabs of one row of voxels along y, batches of 64 projections" in message
    needed = int(re.search(r"expected at least (\d+) bytes", message).group(1))
    assert needed > FDK_VOXELS**3 * 4  # the volume returned, and the slab's buffers beside it
    # What the message asks for is enough, and one byte less is not.
    smallest = cbct.fdk(projections, geometry, FDK_VOXELS, FDK_VOXEL, hardware="cpu", memory=needed)
    assert smallest.info["slabs"] > 1 and smallest.info["planned_peak_bytes"] <= needed
    assert np.array_equal(_bits(smallest), _bits(fdk_whole))
    with pytest.raises(ValueError, match=f"memory is {needed - 1} .*expected at least {needed} bytes"):
        cbct.fdk(projections, geometry, FDK_VOXELS, FDK_VOXEL, hardware="cpu", memory=needed - 1)


def _resident(key):
    """This process's resident memory now ('VmRSS') or its peak since the last reset ('VmHWM'), bytes."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise AssertionError(f"no {key} in /proc/self/status")


def _peak_above_now(call):
    """The most resident memory ``call`` added to what the process held when it started (Linux: the peak
    is reset through /proc/self/clear_refs)."""
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")
    base = _resident("VmRSS")
    result = call()
    return _resident("VmHWM") - base, result


@pytest.mark.skipif(not os.access("/proc/self/clear_refs", os.W_OK), reason="needs Linux's resettable peak memory")
def test_fdk_stays_within_the_budget():
    # 96^3 voxels (3.4 MiB) from 120 projections of 128 x 128 pixels (7.5 MiB): in memory the slab
    # buffers and the weighted and filtered projections take about 27 MiB more; within 8 MiB the call
    # adds at most the budget and about 1 MiB of threads and allocator besides the arrays given.
    geometry = cbct.Geometry.circular(120, sid=1000, sdd=1500)
    projections = cbct.project_phantom(geometry, 128, 2.0, scale=SCALE)
    cbct.fdk(projections, geometry, 16, 6.0, hardware="cpu", memory="64M")  # the code paged in, the threads made
    budget = 8 << 20
    unlimited, whole = _peak_above_now(lambda: cbct.fdk(projections, geometry, 96, 2.5, hardware="cpu"))
    within, planned = _peak_above_now(lambda: cbct.fdk(projections, geometry, 96, 2.5, hardware="cpu", memory=budget))
    assert planned.info["slabs"] > 1 and planned.info["planned_peak_bytes"] <= budget, planned.info["plan"]
    assert np.array_equal(_bits(planned), _bits(whole))
    assert unlimited > 2 * budget, (unlimited, within)  # what makes the bound below a test
    assert within <= budget + (2 << 20), (within, planned.info["plan"])


@pytest.mark.parametrize("bad", ["8X", "", "  ", "-1G", "G", "1e30T", 0, -5, 2.5, True, [1], 2**63])
def test_malformed_budgets_are_refused_by_every_function(scan, bad):
    geometry, projections = scan
    phases = (np.arange(NPROJ) % 6) / 6.0
    calls = [
        lambda: cbct.fdk(projections, geometry, VOXELS, VOXEL, hardware="cpu", memory=bad),
        lambda: cbct.sart(projections, geometry, VOXELS, VOXEL, memory=bad),
        lambda: cbct.sirt(projections, geometry, VOXELS, VOXEL, memory=bad),
        lambda: cbct.cgls(projections, geometry, VOXELS, VOXEL, memory=bad),
        lambda: cbct.osem(projections, geometry, VOXELS, VOXEL, memory=bad),
        lambda: cbct.asd_pocs(projections, geometry, VOXELS, VOXEL, hardware="cpu", memory=bad),
        lambda: cbct.admm_tv(projections, geometry, VOXELS, VOXEL, hardware="cpu", memory=bad),
        lambda: cbct.fourd_fdk(projections, geometry, phases, VOXELS, VOXEL, frames=3, hardware="cpu", memory=bad),
        lambda: cbct.fourd_rooster(projections, geometry, phases, VOXELS, VOXEL, frames=3, memory=bad),
    ]
    for call in calls:
        with pytest.raises(ValueError, match=r"^memory is .*; expected .*(memory size|bytes)"):
            call()


def test_fdk_divisions_with_a_budget_is_refused(scan):
    geometry, projections = scan
    with pytest.raises(ValueError, match="divisions is 2 with memory '1G'; expected 1"):
        cbct.fdk(projections, geometry, VOXELS, VOXEL, hardware="cpu", divisions=2, memory="1G")


def _refusal(call, memory):
    """The bytes a refused call says it needs (and checks the message's form)."""
    with pytest.raises(ValueError) as refused:
        call(memory)
    message = str(refused.value)
    assert message.startswith(f"memory is {memory!r} ("), message
    assert "needs at least" in message and "besides the arrays given" in message, message
    return int(re.search(r"expected at least (\d+) bytes", message).group(1))


def _whole_run_methods(geometry, projections):
    phases = (np.arange(NPROJ) % 6) / 6.0
    return {
        "sart": lambda m: cbct.sart(projections, geometry, VOXELS, VOXEL, iterations=1, memory=m),
        "sirt": lambda m: cbct.sirt(projections, geometry, VOXELS, VOXEL, iterations=1, memory=m),
        "cgls": lambda m: cbct.cgls(projections, geometry, VOXELS, VOXEL, iterations=1, memory=m),
        "osem": lambda m: cbct.osem(projections, geometry, VOXELS, VOXEL, iterations=1, projections_per_subset=6,
                                    memory=m),
        "osem emission": lambda m: cbct.osem(projections, geometry, VOXELS, VOXEL, iterations=1, projector="emission",
                                             memory=m),
        "asd_pocs": lambda m: cbct.asd_pocs(projections, geometry, VOXELS, VOXEL, iterations=1, tv_iterations=1,
                                            hardware="cpu", memory=m),
        "admm_tv": lambda m: cbct.admm_tv(projections, geometry, VOXELS, VOXEL, iterations=1, cg_iterations=1,
                                          hardware="cpu", memory=m),
        "fourd_fdk": lambda m: cbct.fourd_fdk(projections, geometry, phases, VOXELS, VOXEL, frames=3, hardware="cpu",
                                              memory=m),
        "fourd_rooster": lambda m: cbct.fourd_rooster(projections, geometry, phases, VOXELS, VOXEL, frames=3,
                                                      iterations=1, cg_iterations=1, tv_iterations=1, memory=m),
    }


@pytest.mark.parametrize("method", ["sart", "sirt", "cgls", "osem", "osem emission", "asd_pocs", "admm_tv",
                                    "fourd_fdk", "fourd_rooster"])
def test_whole_run_methods_refuse_what_exceeds_the_budget(scan, method):
    geometry, projections = scan
    call = _whole_run_methods(geometry, projections)[method]
    needed = _refusal(call, "64K")
    assert _refusal(call, needed - 1) == needed
    result = call(needed)  # exactly what it said it needs: it runs
    volumes = result if isinstance(result, list) else [result]
    assert all(np.isfinite(v.array).all() for v in volumes)


def test_sart_need_is_the_apps_sum(scan):
    # cbct-sart on the CPU holds the volume in and out, 3 projection-sized and 3 volume-sized buffers, and
    # with the adjoint backprojector a partial volume of doubles per thread of a subset.
    geometry, projections = scan
    voxels, pixels = VOXELS**3, NPROJ * DETECTOR * DETECTOR
    threads = cbct.get_number_of_threads()
    for per_subset, backprojector in ((1, "adjoint"), (0, "adjoint"), (0, "voxel")):
        partial = 2 * min(NPROJ if per_subset == 0 else per_subset, threads) if backprojector == "adjoint" else 0
        expected = 4 * (voxels * (2 + 3 + partial) + pixels * 3)
        call = lambda m: cbct.sart(projections, geometry, VOXELS, VOXEL, projections_per_subset=per_subset,
                                   backprojector=backprojector, memory=m)  # noqa: E731
        assert _refusal(call, 1000) == expected
    # An initial volume given is the caller's: not counted.
    start = cbct.Volume(np.zeros((VOXELS,) * 3, np.float32), VOXEL, (-0.5 * (VOXELS - 1) * VOXEL,) * 3)
    call = lambda m: cbct.sart(projections, geometry, initial=start, backprojector="voxel", memory=m)  # noqa: E731
    assert _refusal(call, 1000) == 4 * (voxels * (1 + 3) + pixels * 3)


@pytest.mark.skipif(not (cbct.has_cuda() and cbct.cuda_device()), reason="needs a CUDA device")
def test_fdk_on_cuda_within_a_budget(fdk_scan):
    # The CUDA filter holds only the volume on the host (it weights, filters and backprojects on the
    # device, in pieces of its own): a budget of at least the volume takes one slab and gives the same
    # volume; less is refused, naming the volume.
    geometry, projections = fdk_scan
    reference = cbct.fdk(projections, geometry, FDK_VOXELS, FDK_VOXEL, hardware="cuda")
    planned = cbct.fdk(projections, geometry, FDK_VOXELS, FDK_VOXEL, hardware="cuda", memory="300K")
    assert planned.info["slabs"] == 1 and planned.info["projections_per_batch"] == FDK_PROJECTIONS, planned.info["plan"]
    assert planned.info["planned_peak_bytes"] == FDK_VOXELS**3 * 4
    assert np.array_equal(_bits(planned), _bits(reference))
    with pytest.raises(ValueError, match=r"memory is '200K' .*the 250 kB volume returned\) needs"):
        cbct.fdk(projections, geometry, FDK_VOXELS, FDK_VOXEL, hardware="cuda", memory="200K")
