#!/usr/bin/env python3
"""Simulates a cone-beam scan of the Shepp-Logan head, reconstructs it with FDK and prints the error.

    PYTHONPATH=build/python python3 examples/python/simulate_and_reconstruct.py [--size 128] [--nproj 180]

Shows (or with --output writes) an axial slice when matplotlib is installed.
"""

import argparse
import time

import numpy as np

import conebeamct as cbct


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=128, help="volume voxels per side (1 mm each)")
    parser.add_argument("--nproj", type=int, default=180, help="number of projections over 360 degrees")
    parser.add_argument("--hardware", default="auto", choices=["auto", "cpu", "cuda"])
    parser.add_argument("--output", help="write the slice figure to this file instead of showing it")
    args = parser.parse_args()

    # A circular scan: source 1000 mm from the isocenter, detector 1500 mm from the source.
    geometry = cbct.Geometry.circular(args.nproj, arc=360, sid=1000, sdd=1500)
    start = time.perf_counter()
    projections = cbct.project_phantom(geometry, detector_size=256, detector_spacing=1.0, phantom="shepplogan",
                                       scale=60)
    print(f"simulated {projections.array.shape[0]} projections of {projections.array.shape[2]} x "
          f"{projections.array.shape[1]} pixels ({time.perf_counter() - start:.2f} s)")

    def report(fraction):
        print(f"\rreconstructing: {100 * fraction:5.1f} %", end="", flush=True)

    volume = cbct.fdk(projections, geometry, shape=args.size, spacing=1.0, window="ramlak",
                      hardware=args.hardware, progress=report)
    info = volume.info
    print(f"\nFDK on {info['hardware']}: weighting {info['weighting_s']:.3f} s, ramp filtering "
          f"{info['filtering_s']:.3f} s, backprojection {info['backprojection_s']:.3f} s")

    # The error against the phantom, voxelized with 2 x 2 x 2 samples per voxel, in the central
    # region (the middle half of the slices along y, the rotation axis) and everywhere.
    truth = cbct.voxelize_phantom(args.size, spacing=1.0, phantom="shepplogan", scale=60, supersampling=2)
    for name, region in (("central region", np.s_[:, args.size // 4: 3 * args.size // 4, :]), ("whole volume", np.s_[:])):
        difference = volume.array[region] - truth.array[region]
        mse = float(np.mean(difference.astype(np.float64) ** 2))
        psnr = 20 * np.log10(2.0) - 10 * np.log10(mse)
        print(f"{name}: mean absolute error {np.mean(np.abs(difference)):.4f}, PSNR {psnr:.1f} dB")

    try:
        import matplotlib

        if args.output:
            matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no figure")
        return
    # Axial slices are x-z planes: fix y (the array's second index) at the centre.
    y = args.size // 2
    extent = [volume.axis(0)[0], volume.axis(0)[-1], volume.axis(2)[-1], volume.axis(2)[0]]
    figure, axes = plt.subplots(1, 2, figsize=(10, 5))
    for ax, image, title in ((axes[0], volume, "FDK"), (axes[1], truth, "phantom")):
        ax.imshow(image.array[:, y, :], cmap="gray", vmin=0.95, vmax=1.1, extent=extent)
        ax.set_title(f"{title}, y = {volume.axis(1)[y]:.1f} mm")
        ax.set_xlabel("x (mm)")
        ax.set_ylabel("z (mm)")
    if args.output:
        figure.savefig(args.output, dpi=100)
        print(f"wrote {args.output}")
    else:
        plt.show()


if __name__ == "__main__":
    main()
