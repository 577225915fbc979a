"""The ``memory=`` argument of the reconstruction functions: a host memory budget, as ``--memory`` is
for the apps.

:func:`fdk` plans its work within the budget (slabs and batches, the same volume; the compiled
module does it, as ``cbct-fdk --memory``). The other methods hold their projections and volumes
whole, as their apps do: a run whose buffers exceed the budget is refused before it starts, saying
what it needs (:func:`_check_memory`). The sums below are the apps' (``IterativeMemoryNeed`` in
examples/cbctIterativeApp.h, and the checks in examples/cbctfourdfdk.cxx and cbctfourdrooster.cxx),
less the arrays the caller passes in: the projections, and an initial volume when one is given, are
in the caller's memory already, while an app reads them from files into its own.
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import numpy as np

from . import _conebeamct

#: What ``memory`` accepts, for messages.
_EXPECTED = "bytes (an integer > 0) or a size such as '8G', '512M' or '1.5GiB' (K, M, G, T: powers of 1024)"


def _memory_budget(memory) -> Optional[int]:
    """The budget in bytes (None for no budget), or ValueError naming ``memory``, its value and what
    it takes. Strings are read as the apps read ``--memory``."""
    if memory is None:
        return None
    if isinstance(memory, (bool, np.bool_)):
        raise ValueError(f"memory is {memory!r}; expected {_EXPECTED}")
    if isinstance(memory, (int, np.integer)):
        if memory <= 0 or memory >= 2**63:
            raise ValueError(f"memory is {memory!r}; expected {_EXPECTED}")
        return int(memory)
    if isinstance(memory, str):
        return int(_conebeamct._memory_size(memory))  # ValueError "memory is '8X'; expected ..."
    raise ValueError(f"memory is {memory!r}; expected {_EXPECTED}")


def _bytes(count: int, copies: int = 1) -> int:
    """Bytes of ``copies`` buffers of ``count`` float32 values."""
    return int(count) * 4 * int(copies)


def _check_memory(memory, budget: Optional[int], task: str, parts: Sequence[Tuple[str, int]], remedy: str) -> None:
    """Refuses a run whose buffers (``parts``: what it holds at once besides the arrays given, each
    named) exceed ``budget`` bytes, with a ValueError naming ``memory``, its value, what the run needs
    (each part) and the remedy. No budget (None): nothing to check."""
    if budget is None:
        return
    kept: List[Tuple[str, int]] = [(what, int(b)) for what, b in parts if b > 0]
    total = sum(b for _, b in kept)
    if total <= budget:
        return
    fmt = _conebeamct._format_bytes
    each = ", ".join(f"{what} {fmt(b)}" for what, b in kept)
    raise ValueError(
        f"memory is {memory!r} ({fmt(budget)}): {task} needs at least {fmt(total)} ({each}) besides the arrays "
        f"given; expected at least {total} bytes, or {remedy}"
    )


def _runs_on_cuda(hardware: str) -> bool:
    """Whether ``hardware`` ('cpu', 'cuda', 'auto') runs on a CUDA device, as the compiled module
    chooses ('auto': when the build has CUDA and a device is present)."""
    if hardware == "cuda":
        return True
    return hardware == "auto" and _conebeamct.has_cuda() and _conebeamct.cuda_device() is not None


def _iterative_need(
    method: str,
    voxels: int,
    projection_pixels: int,
    projections: int,
    initial_given: bool,
    on_cuda: bool,
    adjoint: bool,
    per_subset: int,
) -> Tuple[List[Tuple[str, int]], str]:
    """What an iterative method holds besides the arrays given, as cbct-sart, cbct-cgls, cbct-osem,
    cbct-asdpocs and cbct-admmtv count it, and the remedy. ``method``: 'sart', 'cgls', 'osem',
    'asd_pocs' or 'admm_tv'; ``adjoint``: the adjoint backprojector (each thread then sums a partial
    volume of doubles); ``per_subset``: projections per subset, 0 for all."""
    parts = [("volume out", _bytes(voxels))]
    if not initial_given:
        parts.append(("initial volume", _bytes(voxels)))
    remedy = "a smaller volume (shape, or a coarser spacing)"
    if on_cuda:
        return parts, remedy
    buffers = 3 if method == "sart" else 2
    parts.append(("the method's projection buffers", _bytes(projection_pixels, buffers)))
    parts.append(("the method's volume buffers", _bytes(voxels, buffers)))
    if adjoint or method == "cgls":
        subset = projections if method == "cgls" or per_subset == 0 else per_subset
        threads = _conebeamct.get_number_of_threads()
        parts.append(
            ("the adjoint's partial sums (one volume of doubles per thread)", _bytes(voxels, 2 * max(1, min(subset, threads))))
        )
    if method in ("sart", "osem", "asd_pocs"):
        remedy += ", fewer threads (set_number_of_threads: each holds a partial volume with backprojector='adjoint')"
        if method != "asd_pocs":
            remedy += " or backprojector='voxel'"
    else:
        remedy += " or fewer threads (set_number_of_threads: each holds a partial volume)"
    return parts, remedy
