"""A forward + back projection pair from Python on problem S (512^3 voxels of 0.5 mm, 360 projections
of 512 x 512 pixels of 0.8 mm, SID 1000 mm, SDD 1500 mm), from a CuPy array, a PyTorch CUDA tensor
and a numpy array, with the CUDA projector: the device paths must not pay the host transfers that
the numpy path pays. One JSON line per array kind (median of --runs warm runs), e.g.

    python3 benchmarks/python_gpu_arrays.py --runs 5 [--size 512] [--projector joseph]

Needs a CUDA build of the conebeamct package and a device; CuPy and PyTorch are each optional.
"""

import argparse
import json
import statistics
import time

import numpy as np

import conebeamct as cbct


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=512, help="volume N^3 and detector N x N (S: 512)")
    parser.add_argument("--nproj", type=int, default=360)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--projector", default="joseph", choices=["joseph", "raycast"])
    parser.add_argument("--backprojector", default="adjoint", choices=["adjoint", "voxel"])
    a = parser.parse_args()
    if cbct.cuda_device() is None or not cbct.has_cuda_arrays():
        raise SystemExit("python_gpu_arrays.py: error: needs a CUDA build of conebeamct and a CUDA device")
    n = a.size
    geometry = cbct.Geometry.circular(a.nproj, sid=1000, sdd=1500)
    A = cbct.Projector(geometry, n, n, 256.0 / n, 409.6 / n, projector=a.projector, backprojector=a.backprojector,
                       hardware="cuda")
    volume = cbct.voxelize_phantom(n, 256.0 / n, scale=100).array

    kinds = {"numpy": (lambda x: x, lambda: None)}
    try:
        import cupy

        kinds["cupy"] = (cupy.asarray, cupy.cuda.Device().synchronize)
    except ImportError:
        pass
    try:
        import torch

        if torch.cuda.is_available():
            kinds["torch"] = (lambda x: torch.from_numpy(x).cuda(), torch.cuda.synchronize)
    except ImportError:
        pass

    reference = None
    for kind, (convert, synchronize) in kinds.items():
        x = convert(volume)
        synchronize()
        times = []
        for run in range(a.runs + 1):  # the first run is untimed (warm-up)
            start = time.perf_counter()
            y = A.forward(x)
            z = A.back(y)
            synchronize()
            if run:
                times.append(time.perf_counter() - start)
        result = z if kind == "numpy" else (cupy.asnumpy(z) if kind == "cupy" else z.cpu().numpy())
        if reference is None:
            reference = result
        same = bool(np.array_equal(result, reference))
        print(json.dumps({"problem": f"{n}^3 from {a.nproj} x {n}^2", "array": kind, "projector": a.projector,
                          "backprojector": a.backprojector, "device": cbct.cuda_device(),
                          "forward_back_s": statistics.median(times), "runs": a.runs,
                          "equal_to_numpy_path": same}), flush=True)


if __name__ == "__main__":
    main()
