#!/usr/bin/env python3
"""CPU iterative reconstructions side by side with RTK's, same problem, same threads, interleaved.

Problem: the Shepp-Logan phantom's exact line integrals, 30 views over 360 deg of
256 x 256 pixels of 1 mm (SID 1000, SDD 1500; cbct-simulate's defaults), reconstructed on 64^3 voxels
of 2 mm. Methods, ours (the apps, --threads) against RTK's filters (itk-rtk wheel, the same number of
ITK threads):

  sart-voxel    SART (1 projection per subset, lambda 0.3), Joseph forward, voxel-based back:
                `cbct-sart --bp voxel` / rtk.SARTConeBeamReconstructionFilter (FP_JOSEPH, BP_VOXELBASED)
  sart-adjoint  the same with our exact adjoint (`cbct-sart`) / RTK's with BP_JOSEPH (its adjoint)
  admm          ADMM-TV, alpha 0.1, beta 1, 5 CG steps: `cbct-admmtv` (exact adjoint) / RTK's
                rtk.ADMMTotalVariationConeBeamReconstructionFilter with its default pair (FP_JOSEPH,
                BP_VOXELBASED)
  admm-adjoint  RTK's ADMM-TV with BP_JOSEPH (the pair ours uses); ours is the same run as admm

Each run alternates ours and RTK's (ours, RTK, ours, RTK, ...) so that both see the same load; the
table gives medians. Times: ours is the reconstruction time the app prints with -v ("N iterations in
T s", no file reading or writing), RTK's the filter's Update(); in brackets the CPU seconds (user +
system: the whole app's for ours, the Update()'s process time for RTK's), which a loaded machine
stretches less than the wall time. MAE against the phantom supersampled
2x2x2 (cbct-compare, whole volume). Run it with an interpreter that has itk-rtk, e.g.

  /work/rtk-venv/bin/python benchmarks/cpu-vs-rtk-iterative.py --runs 3 --methods sart-voxel,sart-adjoint,admm
"""

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def ours(bin_dir, method, work, args):
    out = os.path.join(work, f"ours-{method}.mha")
    common = ["-g", os.path.join(work, "geometry.xml"), "--projections", os.path.join(work, "projections.mha"), "-o", out,
              "--dimension", str(args.size), "--spacing", str(args.spacing), "-n", str(args.iterations),
              "--threads", str(args.threads), "-v"]
    if method.startswith("sart"):
        command = [os.path.join(bin_dir, "cbct-sart")] + common + ["--lambda", "0.3", "--nprojpersubset", "1"]
        # RTK's SART does not clip negative voxels; ours does by default where the app has --no-positivity.
        if "--no-positivity" in subprocess.run([command[0], "--help"], capture_output=True, text=True).stdout:
            command.append("--no-positivity")
        if method == "sart-voxel":
            command += ["--bp", "voxel"]
    else:
        command = [os.path.join(bin_dir, "cbct-admmtv")] + common + ["--alpha", "0.1", "--beta", "1", "--CGiter", "5"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    log = subprocess.run(command, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    found = re.search(r"(\d+) iterations in ([0-9.]+) (m?s)", log.stdout + log.stderr)
    seconds = float(found.group(2)) / (1000. if found.group(3) == "ms" else 1.) if found else wall
    return seconds, wall, cpu, out


def rtk_run(itk, rtk, method, work, args, geometry, projections):
    image = itk.Image[itk.F, 3]
    source = rtk.ConstantImageSource[image].New()
    half = (args.size - 1) * args.spacing / 2.
    source.SetOrigin([-half] * 3)
    source.SetSpacing([args.spacing] * 3)
    source.SetSize([args.size] * 3)
    source.SetConstant(0.)
    source.Update()
    if method.startswith("sart"):
        f = rtk.SARTConeBeamReconstructionFilter[image, image].New()
        f.SetLambda(0.3)
        f.SetNumberOfProjectionsPerSubset(1)
        f.SetNumberOfIterations(args.iterations)
    else:
        f = rtk.ADMMTotalVariationConeBeamReconstructionFilter[image].New()
        f.SetAlpha(0.1)
        f.SetBeta(1.)
        f.SetCG_iterations(5)
        f.SetAL_iterations(args.iterations)
    f.SetForwardProjectionFilter(f.ForwardProjectionType_FP_JOSEPH)
    adjoint = method in ("sart-adjoint", "admm-adjoint")
    f.SetBackProjectionFilter(f.BackProjectionType_BP_JOSEPH if adjoint else f.BackProjectionType_BP_VOXELBASED)
    f.SetInput(0, source.GetOutput())
    f.SetInput(1, projections)
    f.SetGeometry(geometry)
    start, cpu = time.perf_counter(), time.process_time()
    f.Update()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    out = os.path.join(work, f"rtk-{method}.mha")
    itk.imwrite(f.GetOutput(), out)
    return seconds, cpu, out


def mae(bin_dir, volume, threads):
    log = subprocess.run([os.path.join(bin_dir, "cbct-compare"), "-i", volume, "--threads", str(threads)], check=True,
                         capture_output=True, text=True).stdout
    found = re.search(r"whole volume: .*MAE ([0-9.e+-]+)", log)
    return float(found.group(1)) if found else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build"),
                        help="the build folder (its bin/ holds cbct-simulate, cbct-sart, cbct-admmtv, cbct-compare)")
    parser.add_argument("--methods", default="sart-voxel,sart-adjoint,admm")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--views", type=int, default=30)
    parser.add_argument("--size", type=int, default=64)
    parser.add_argument("--spacing", type=float, default=2.)
    parser.add_argument("--no-rtk", action="store_true", help="ours only (no itk-rtk needed)")
    parser.add_argument("--before", help="another build folder of ours (e.g. an older commit's), run in the same interleave as 'before'")
    args = parser.parse_args()
    bin_dir = os.path.join(os.path.abspath(args.build), "bin")
    builds = [("ours", bin_dir)] + ([("before", os.path.join(os.path.abspath(args.before), "bin"))] if args.before else [])
    methods = args.methods.split(",")

    itk = rtk = geometry = projections = None
    if not args.no_rtk:
        import itk
        from itk import RTK as rtk
        itk.MultiThreaderBase.SetGlobalDefaultNumberOfThreads(args.threads)
        itk.MultiThreaderBase.SetGlobalMaximumNumberOfThreads(args.threads)

    with tempfile.TemporaryDirectory() as work:
        subprocess.run([os.path.join(bin_dir, "cbct-simulate"), "-g", os.path.join(work, "geometry.xml"), "-o",
                        os.path.join(work, "projections.mha"), "--nproj", str(args.views)], check=True, capture_output=True)
        if rtk is not None:
            reader = rtk.ThreeDCircularProjectionGeometryXMLFileReader.New()
            reader.SetFilename(os.path.join(work, "geometry.xml"))
            reader.GenerateOutputInformation()
            geometry = reader.GetOutputObject()
            projections = itk.imread(os.path.join(work, "projections.mha"), itk.F)
        print(f"# load average before: {load_average()}", flush=True)
        times = {}
        cpus = {}
        maes = {}
        for run in range(args.runs):
            for method in methods:
                for who, directory in builds if method != "admm-adjoint" else []:
                    seconds, wall, cpu, out = ours(directory, method, work, args)
                    times.setdefault((who, method), []).append(seconds)
                    cpus.setdefault((who, method), []).append(cpu)
                    maes[(who, method)] = mae(bin_dir, out, args.threads)
                    print(json.dumps({"run": run, "who": who, "method": method, "seconds": round(seconds, 3), "wall_s": round(wall, 3),
                                      "cpu_s": round(cpu, 3), "mae": maes[(who, method)], "load": load_average()}), flush=True)
                if rtk is not None:
                    seconds, cpu, out = rtk_run(itk, rtk, method, work, args, geometry, projections)
                    times.setdefault(("rtk", method), []).append(seconds)
                    cpus.setdefault(("rtk", method), []).append(cpu)
                    maes[("rtk", method)] = mae(bin_dir, out, args.threads)
                    print(json.dumps({"run": run, "who": "rtk", "method": method, "seconds": round(seconds, 3), "cpu_s": round(cpu, 3),
                                      "mae": maes[("rtk", method)], "load": load_average()}), flush=True)
        print(f"# load average after: {load_average()}")
        print(f"# medians of {args.runs} runs, {args.views} views, {args.size}^3 voxels of {args.spacing} mm, "
              f"{args.iterations} iterations, {args.threads} threads")
        print("| method | ours: time (CPU) | MAE | RTK: time (CPU) | MAE | speed vs RTK: time (CPU) |")
        print("|---|---|---|---|---|---|")
        for method in methods:
            key = ("ours", "admm" if method == "admm-adjoint" else method)
            mine, mineCpu = statistics.median(times[key]), statistics.median(cpus[key])
            row = f"| {method} | {mine:.2f} s ({mineCpu:.2f} s) | {maes[key]:.4f} |"
            if ("rtk", method) in times:
                theirs, theirsCpu = statistics.median(times[("rtk", method)]), statistics.median(cpus[("rtk", method)])
                row += f" {theirs:.2f} s ({theirsCpu:.2f} s) | {maes[('rtk', method)]:.4f} | {theirs / mine:.2f}x ({theirsCpu / mineCpu:.2f}x) |"
            else:
                row += " | | |"
            print(row)
        for method in methods:
            if ("before", method) in times:
                before, now = statistics.median(times[("before", method)]), statistics.median(times[("ours", method)])
                beforeCpu, nowCpu = statistics.median(cpus[("before", method)]), statistics.median(cpus[("ours", method)])
                print(f"# {method}: before {before:.2f} s ({beforeCpu:.2f} s CPU, MAE {maes[('before', method)]:.4f}), "
                      f"now {now:.2f} s ({nowCpu:.2f} s CPU): {before / now:.2f}x ({beforeCpu / nowCpu:.2f}x)")
        if ("ours", "sart-voxel") in times and ("ours", "sart-adjoint") in times:
            ratio = statistics.median(times[("ours", "sart-adjoint")]) / statistics.median(times[("ours", "sart-voxel")])
            ratioCpu = statistics.median(cpus[("ours", "sart-adjoint")]) / statistics.median(cpus[("ours", "sart-voxel")])
            print(f"# ours, exact adjoint / voxel-based backprojector (SART): {ratio:.2f}x ({ratioCpu:.2f}x CPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
