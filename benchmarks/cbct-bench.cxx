// cbct-bench: FDK on the standard problems of DESIGN.md, warm, median of several runs; with --method
// iterative or tv, the projectors and the iterative methods on the GPU.
//   S: 512^3 volume from 360 projections of 512x512 (the 2008 CUDA paper's problem)
//   R: 1024^3 volume from 496 projections of 1248x960 (RabbitCT's size)
//   L: 2048^3 volume from 1200 projections of 2048x2048 (several GPUs, MPI)
// --method emission: the emission (SPECT) problem E, a 128^3 activity from 120 parallel views of 128^2
// with attenuation and collimator blur: forward and back projection, one OSEM iteration of 8 subsets.
// --method fourd: 4D FDK of a respiratory-correlated scan, 10 frames of 512^3 from 1440 projections of 512^2 over 10 breathing
// cycles, each projection backprojected once (4x S), timed host to host.
// --method fourdrooster: one 4D ROOSTER iteration on that problem (RTK's defaults: 4 conjugate
// gradient steps, 10 TV steps in space and in time, positivity), the data on the device.
// --method rings: ring removal (both stripe filters) of S's projections (cbctBenchRings.cxx).
// --method calibrate: the geometry calibration (offset and roll) of S's miscalibrated scan (cbctBenchCalibrate.cxx).
// --method helical: helical FDK of problem H, 512 x 1024 x 512 voxels from 4000 projections of 736 x 64
// on a CT scanner's cylindrical detector, at --pitch (cbctBenchHelical.cxx). --detector-radius R: the
// FDK problems on a cylindrical detector of radius R (1500: centred on the source, as a CT scanner's).
// One JSON line per timed run with every stage's time and backprojection GUPS
// (voxels x projections / backprojection seconds / 1e9), then one line of medians.
// "total" is projections in host memory to volume in host memory. --gpus shares the volume among
// several GPUs of this process; under mpirun each rank reconstructs its slab on one GPU (or the CPU)
// from the detector rows it needs, and rank 0 prints the slowest rank's times and every rank's peak
// memory.
#include "cbctBench.h"

#include "cbctConfiguration.h"
#if CBCT_USE_CUDA
#  include <cuda_runtime_api.h>
#endif
#if CBCT_USE_MPI
#  include "cbctMPIContext.h"
#endif

#include <CLI/CLI.hpp>
#include <itkMacro.h>

#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace cbct::bench;

int
main(int argc, char * argv[])
{
#if CBCT_USE_MPI
  cbct::MPIContext mpi(&argc, &argv);
#endif
  CLI::App app{ "cbct-bench: FDK timings on the standard problems S, R and L (one JSON line per run)" };
  std::vector<std::string> problems{ "S" };
  std::vector<std::string> hardware{ "cuda" };
  unsigned int runs = 5;
  std::string gpus;
  Setup setup;
  app.add_option("--problem", problems, "S (512^3 from 360 x 512^2), R (1024^3 from 496 x 1248x960) and/or L (2048^3 "
                                        "from 1200 x 2048^2)")
    ->delimiter(',');
  app.add_option("--hardware", hardware, "cuda and/or cpu")->delimiter(',');
  app.add_option("--runs", runs, "timed runs after one untimed warm-up (median reported)")->check(CLI::Range(1u, 1000u));
  unsigned int views = 0;
  app.add_option("--views", views, "projections over 360 degrees instead of the problem's (e.g. 60 for a few-view S)")
    ->check(CLI::Range(1u, 100000u));
  app.add_option("--gpus", gpus, "CUDA devices of this process: all, or indices such as 0,1 (default: the first; under "
                                 "mpirun each rank takes one by its rank on the machine)");
  app.add_option("--pieces", setup.pieces, "minimum pieces along y per GPU (0: the filter's default)");
  app.add_flag("--keep-device-memory", setup.keepDeviceMemory,
               "CUDA FDK: keep the device buffers, cuFFT plans and streams from one run to the next (KeepDeviceMemory)");
  std::string method = "fdk";
  unsigned int concurrentFrames = 0;
  app.add_option("--concurrent-frames", concurrentFrames,
                 "--method fourd, CUDA: frames reconstructed at once, each by its own pipeline (0: the filter's default, 2)");
  std::string input = "float";
  app.add_option("--input", input, "float: line integrals in host memory (the default); uint16: 16-bit detector "
                                   "readings in host memory, turned into line integrals on the way (FDK only)")
    ->check(CLI::IsMember({ "float", "uint16" }));
  app.add_option("--method", method,
                 "fdk; iterative: forward and back projections of both projector pairs and one OS-SART iteration (CUDA); "
                 "emission: problem E (SPECT, 128^3 from 120 views of 128^2, attenuation and collimator blur), forward and "
                 "back projection and one OSEM iteration of 8 subsets; tv: one iteration of ASD-POCS and of ADMM-TV (CUDA; "
                 "with --views 60 for a few-view S); fourd: 4D FDK of a breathing scan, 10 frames of 512^3 from 1440 x 512^2 over 10 "
                 "breathing cycles; fourdrooster: one 4D ROOSTER iteration on that problem (CUDA; the CPU takes hours); "
                 "rings: ring removal of S's projections (360 x 512^2, or --views), the sorting and the wavelet-Fourier "
                 "filters; calibrate: the geometry calibration (axis offset and roll) of S's scan with its axis 13 "
                 "pixels off and the detector rolled 0.2 degree; helical: helical FDK of problem H (512 x 1024 x 512 from "
                 "4000 x 736x64 on a CT scanner's cylindrical detector, --pitch)")
    ->check(CLI::IsMember({ "fdk", "iterative", "emission", "tv", "fourd", "fourdrooster", "rings", "calibrate",
                            "helical" }));
  app.add_option("--detector-radius", setup.detectorRadius,
                 "--method fdk: a cylindrical detector of this radius (mm; 1500: centred on the source, SDD 1500); 0: flat")
    ->check(CLI::Range(0., 1e6));
  app.add_option("--fov", setup.fieldOfView,
                 "--method fdk: off, or zero/nan to skip the voxels outside the scan's field of view (GUPS then also "
                 "counted over the voxels updated, gups_updated)")
    ->check(CLI::IsMember({ "off", "zero", "nan" }));
  double pitch = 1.;
  app.add_option("--pitch", pitch, "--method helical: the helix's pitch factor (feed per turn over the detector's height at "
                                   "the isocentre)")
    ->check(CLI::Range(0.1, 2.));
  CLI11_PARSE(app, argc, argv);
  try
  {
    if (input != "float" && method != "fdk")
      throw std::runtime_error("--input is '" + input + "'; expected float with --method " + method +
                               " (16-bit readings are FDK's only)");
    if (method == "fourd" || method == "fourdrooster" || method == "emission" || method == "rings" ||
        method == "calibrate" || method == "helical")
    {
      // Problems of their own (the 4D problem, E, S's striped projections): --problem does not apply.
      for (const auto & h : hardware)
      {
        if (h != "cpu" && h != "cuda")
          throw std::runtime_error("--hardware is '" + h + "'; expected cuda or cpu");
        const std::string device = h == "cpu" ? CpuDescription() : CudaDescription();
        if (method == "fourd")
          RunFourD(h, device, runs, setup.pieces, concurrentFrames);
        else if (method == "fourdrooster")
          RunFourDROOSTER(h, device, runs);
        else if (method == "rings")
          RunRings(h, device, views ? views : 360, runs);
        else if (method == "calibrate")
          RunCalibrate(h, device, views ? views : 360, runs);
        else if (method == "helical")
          RunHelical(h, device, runs, pitch);
        else
          RunEmission(h, device, runs);
      }
      return 0;
    }
#if CBCT_USE_MPI
    setup.rank = mpi.Rank();
    setup.ranks = mpi.Size();
    setup.localRank = mpi.LocalRank();
#endif
    int deviceCount = 0;
#if CBCT_USE_CUDA
    if (cudaGetDeviceCount(&deviceCount) != cudaSuccess)
    {
      cudaGetLastError();
      deviceCount = 0;
    }
#endif
    if (gpus == "all")
      for (int d = 0; d < deviceCount; ++d)
        setup.devices.push_back(d);
    else if (!gpus.empty())
    {
      std::stringstream in(gpus);
      std::string item;
      while (std::getline(in, item, ','))
      {
        const int d = std::stoi(item);
        if (d < 0 || d >= deviceCount)
          throw std::runtime_error("--gpus is '" + gpus + "'; expected device indices below " + std::to_string(deviceCount));
        setup.devices.push_back(d);
      }
    }
    if (setup.ranks > 1 && deviceCount > 0)
    {
      // One GPU per rank: of --gpus's devices (or all), by the rank's place on its machine.
      std::vector<int> candidates = setup.devices;
      if (candidates.empty())
        for (int d = 0; d < deviceCount; ++d)
          candidates.push_back(d);
      setup.devices = { candidates[static_cast<std::size_t>(setup.localRank) % candidates.size()] };
    }
    for (const auto & name : problems)
    {
      Problem p = Lookup(name);
      if (views > 0)
        p.projections = views;
      for (const auto & h : hardware)
      {
        // The CPU runs FDK whatever the method (iterative and tv are CUDA's only).
        if (h == "cpu")
          RunFDK(p, "cpu", CpuDescription(), runs, setup, input == "uint16");
        else if (h == "cuda")
        {
          const std::string device = CudaDescription();
#if CBCT_USE_CUDA
          if (method == "iterative")
            RunIterative(p, device, runs);
          else if (method == "tv")
            RunTotalVariation(p, device, runs);
          else
            RunFDK(p, "cuda", device, runs, setup, input == "uint16");
#endif
        }
        else
          throw std::runtime_error("--hardware is '" + h + "'; expected cuda or cpu");
      }
    }
  }
  catch (const itk::ExceptionObject & e)
  {
    std::cerr << "cbct-bench: error: " << e.GetDescription() << std::endl;
    return 1;
  }
  catch (const std::exception & e)
  {
    std::cerr << "cbct-bench: error: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
