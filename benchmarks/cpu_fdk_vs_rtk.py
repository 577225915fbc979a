"""ConeBeamCT's CPU FDK against RTK's FDKConeBeamReconstructionFilter on the same projections and
geometry, side by side: each repetition runs ours (cbct-fdk, its "reconstruction" time: weighting +
ramp filter + backprojection, no file reading or writing) and RTK's (the filter's Update() in this
process, after the projections are read), alternately, on the same number of threads; then the
medians, their ratio, the CPU time each used (RTK's Update(); cbct-fdk's whole process, reading and
writing included: a check on a machine shared with other work) and the mean absolute error of both volumes against the Shepp-Logan phantom
(cbct-compare, 2 x 2 x 2 samples per voxel, central region). One JSON line per repetition and a
summary line, e.g. (DESIGN.md's accuracy problem: 128^3 of 1 mm from 180 projections of 256^2 pixels of 1 mm)

    /work/rtk-venv/bin/python benchmarks/cpu_fdk_vs_rtk.py --bin build/bin --runs 7 --threads 2

Needs itk-rtk (pip install itk-rtk) in the Python that runs it; ConeBeamCT's apps come from --bin.
"""

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import tempfile
import time


def run(args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw).stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", default="build/bin", help="folder of cbct-simulate, cbct-fdk, cbct-compare")
    parser.add_argument("--runs", type=int, default=7, help="timed repetitions of each (after one untimed)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--dimension", type=int, default=128)
    parser.add_argument("--spacing", type=float, default=1.0)
    parser.add_argument("--nproj", type=int, default=180)
    parser.add_argument("--detector-size", type=int, default=256)
    parser.add_argument("--workdir", help="folder for the data (default: a temporary one)")
    parser.add_argument("--env", action="append", default=[],
                        help="NAME=VALUE for cbct-fdk's environment (e.g. CBCT_DISABLE_AVX2=1), repeatable")
    a = parser.parse_args()

    import itk
    from itk import RTK as rtk

    itk.MultiThreaderBase.SetGlobalDefaultNumberOfThreads(a.threads)
    itk.MultiThreaderBase.SetGlobalMaximumNumberOfThreads(a.threads)
    work = a.workdir or tempfile.mkdtemp(prefix="cbct-vs-rtk-")
    os.makedirs(work, exist_ok=True)
    geometry_file, projections_file = os.path.join(work, "geometry.xml"), os.path.join(work, "projections.mha")
    if not os.path.exists(projections_file):
        run([os.path.join(a.bin, "cbct-simulate"), "-g", geometry_file, "-o", projections_file,
             "--nproj", str(a.nproj), "--detector-size", str(a.detector_size)])
    ours_file, rtk_file = os.path.join(work, "cbct.mha"), os.path.join(work, "rtk.mha")
    env = dict(os.environ)
    env.update(kv.split("=", 1) for kv in a.env)

    ImageType = itk.Image[itk.F, 3]
    projections = itk.imread(projections_file, itk.F)
    reader = rtk.ThreeDCircularProjectionGeometryXMLFileReader.New()
    reader.SetFilename(geometry_file)
    reader.GenerateOutputInformation()
    geometry = reader.GetOutputObject()
    origin = -0.5 * a.spacing * (a.dimension - 1)

    def children_cpu():
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime

    def ours():
        cpu = children_cpu()
        log = run([os.path.join(a.bin, "cbct-fdk"), "-g", geometry_file, "-p", work, "-r", r"projections\.mha",
                   "-o", ours_file, "--dimension", str(a.dimension), "--spacing", str(a.spacing),
                   "--threads", str(a.threads), "--hardware", "cpu", "-v"], env=env)
        cpu = children_cpu() - cpu
        m = re.search(r"weighting ([0-9.]+) s, ramp filtering ([0-9.]+) s, backprojection ([0-9.]+) s "
                      r"\(reconstruction ([0-9.]+) s\)", log)
        times = dict(zip(["weighting_s", "ramp_s", "backprojection_s", "reconstruction_s"], map(float, m.groups())))
        times["process_cpu_s"] = round(cpu, 3)
        return times

    def theirs():
        source = rtk.ConstantImageSource[ImageType].New()
        source.SetOrigin([origin] * 3)
        source.SetSpacing([a.spacing] * 3)
        source.SetSize([a.dimension] * 3)
        source.SetConstant(0.0)
        fdk = rtk.FDKConeBeamReconstructionFilter[ImageType].New()
        fdk.SetInput(0, source.GetOutput())
        fdk.SetInput(1, projections)
        fdk.SetGeometry(geometry)
        fdk.SetNumberOfWorkUnits(a.threads)
        start, cpu = time.perf_counter(), time.process_time()
        fdk.Update()
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        return seconds, cpu, fdk.GetOutput()

    def load():
        return os.getloadavg()[0]

    ours()
    volume = theirs()[2]
    rows = []
    for r in range(a.runs):
        o = ours()
        t, cpu, volume = theirs()
        row = dict(run=r, cbct=o, rtk_s=round(t, 4), rtk_cpu_s=round(cpu, 3), load=load())
        rows.append(row)
        print(json.dumps(row), flush=True)
    itk.imwrite(volume, rtk_file)

    def mae(path):
        text = run([os.path.join(a.bin, "cbct-compare"), "-i", path])
        return text.strip().splitlines()

    ours_median = statistics.median(r["cbct"]["reconstruction_s"] for r in rows)
    rtk_median = statistics.median(r["rtk_s"] for r in rows)
    summary = dict(problem=f"{a.dimension}^3 from {a.nproj} x {a.detector_size}^2", threads=a.threads, runs=a.runs,
                   cbct_reconstruction_s=ours_median,
                   cbct_stages_s={k: statistics.median(r["cbct"][k] for r in rows)
                                  for k in ("weighting_s", "ramp_s", "backprojection_s")},
                   rtk_s=rtk_median, speedup=round(rtk_median / ours_median, 2),
                   cbct_process_cpu_s=statistics.median(r["cbct"]["process_cpu_s"] for r in rows),
                   rtk_cpu_s=statistics.median(r["rtk_cpu_s"] for r in rows),
                   load_median=statistics.median(r["load"] for r in rows),
                   cbct_vs_phantom=mae(ours_file), rtk_vs_phantom=mae(rtk_file))
    print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
