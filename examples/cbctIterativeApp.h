#ifndef cbctIterativeApp_h
#define cbctIterativeApp_h

// The command line shared by the iterative reconstruction apps cbct-sart, cbct-cgls, cbct-osem,
// cbct-asdpocs and cbct-admmtv: the same inputs as cbct-fdk (geometry, projections in one file or a
// series), the volume grid or an initial volume, the number of iterations, the projector (--fp,
// --step) and the hardware (--hardware cpu or cuda). Each app adds its method's own options (SART:
// --lambda, --nprojpersubset, --positivity/--no-positivity, --bp; OSEM: --nprojpersubset, --bp, and the emission model
// --attenuation, --psf; ASD-POCS, TIGRE's: SART's with --lambda-red, --no-positivity, --alpha,
// --alpha-red, --ratio, --tviter, --maxl2err, --tv-epsilon; ADMM-TV, RTK's: --alpha, --beta, --CGiter). CGLS and
// ADMM-TV have no --bp: they need the forward projector's exact adjoint.
#include "cbctAppRanks.h"
#include "cbctAppSupport.h"
#include "cbctEmissionApp.h"
#include "cbctCGLSConeBeamReconstructionFilter.h"
#include "cbctConstantImageSource.h"
#include "cbctDetectorAxisCheck.h"
#include "cbctGridOptions.h"
#include "cbctMemoryBudget.h"
#include "cbctOSEMConeBeamReconstructionFilter.h"
#include "cbctPreprocessingOptions.h"
#include "cbctProjectionFiles.h"
#include "cbctConfiguration.h"
#include "cbctCudaDevice.h"
#include "cbctSARTConeBeamReconstructionFilter.h"
#include "cbctASDPOCSConeBeamReconstructionFilter.h"
#include "cbctADMMTotalVariationConeBeamReconstructionFilter.h"
#include "cbctADMMTotalVariationWeights.h"
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctFDKWarmStart.h"
#if CBCT_USE_MPI
#  include "cbctMPISlabReconstruction.h"
#  include "cbctMPISlabReduction.h"
#  include "cbctMPISlabWriter.h"
#endif
#if CBCT_USE_CUDA
#  include "cbctCudaADMMTotalVariationConeBeamReconstructionFilter.h"
#  include "cbctCudaASDPOCSConeBeamReconstructionFilter.h"
#  include "cbctCudaCGLSConeBeamReconstructionFilter.h"
#  include "cbctCudaFDKConeBeamReconstructionFilter.h" // ADMM-TV's --init fdk on the GPU
#  include "cbctCudaImage.h"
#  include "cbctCudaOSEMConeBeamReconstructionFilter.h"
#  include "cbctCudaSARTConeBeamReconstructionFilter.h"
#  include <cuda_runtime_api.h> // cudaSetDevice
#endif

#include <itkCommand.h>
#include <itkImageFileReader.h>
#include <itkImage.h>

#include <algorithm>
#include <array>
#include <iomanip>
#include <sstream>

namespace cbct::apps
{

enum class IterativeMethod
{
  SART,
  CGLS,
  OSEM,
  ASDPOCS,
  ADMMTV
};

struct IterativeOptions
{
  // As given on the command line.
  std::string geometry;
  std::string scan; // --scan: a vendor's scan in place of --geometry and --projections
  std::string projections;
  std::string path;
  std::string regexp;
  bool numericSort = false;
  int subMatch = 0;
  std::string newSpacing;
  std::string newOrigin;
  std::string replaceNonFinite;
  std::string output;
  std::string input;
  GridOptions<3> grid;
  PreprocessingOptions preprocessing;
  long long iterations = 10; // every method's default but ADMM-TV's 20 (docs/guide/choosing-a-method.md)
  double timeLimit = 0.; // seconds; 0: none
  double lambda = 0.3;
  long long projectionsPerSubset = 1;
  bool positivity = false; // SART's --positivity: the default now, kept for RTK's command lines
  // ASD-POCS (TIGRE's names and defaults) and ADMM-TV (RTK's); --alpha's default is the method's.
  double lambdaReduction = 0.99;
  bool noPositivity = false;
  double alpha = 0.002;
  double alphaReduction = 0.95;
  double ratio = 0.95;
  long long tvIterations = 20;
  double maxL2Error = 0.;
  double tvEpsilon = 1e-8;
  double beta = 1.;
  long long cgIterations = 5;
  std::string init = "zero"; // ADMM-TV's --init: the initial volume without --input (fdk or zero)
  std::string fp = "joseph";
  std::string bp = "adjoint"; // --bp: SART and OSEM only (MethodOffersBackProjector())
  double step = 0.;
  std::string hardware = "cpu";
  std::string gpus;
  int threads = 0;
  bool verbose = false;
  bool fpGiven = false;     // --fp on the command line
  bool alphaGiven = false;  // ADMM-TV: --alpha on the command line (else chosen by AutomaticADMMWeights())
  bool betaGiven = false;   // ADMM-TV: --beta on the command line
  EmissionOptions emission; // OSEM: --attenuation, --psf
  MemoryBudgetOptions memoryBudget; // --memory: the run's buffers are checked against it
  std::vector<int> devices; // --gpus, checked by ValidateIterative()

  // Checked and parsed by Validate().
  std::vector<double> projectionSpacing; // empty: keep the files'
  std::vector<double> projectionOrigin;  // empty: keep the files'
  std::vector<double> nonFiniteReplacement; // empty: non-finite values are an error
};

/** The images the iterative apps read, reconstruct and write. */
using IterativeImage = itk::Image<float, 3>;
#if CBCT_USE_CUDA
using CudaSART = cbct::CudaSARTConeBeamReconstructionFilter<IterativeImage>;
using CudaCGLS = cbct::CudaCGLSConeBeamReconstructionFilter<IterativeImage>;
using CudaOSEM = cbct::CudaOSEMConeBeamReconstructionFilter<IterativeImage>;
using CudaASDPOCS = cbct::CudaASDPOCSConeBeamReconstructionFilter<IterativeImage>;
using CudaADMMTV = cbct::CudaADMMTotalVariationConeBeamReconstructionFilter<IterativeImage>;
#else // never made: --hardware cuda is refused before
using CudaSART = cbct::SARTConeBeamReconstructionFilter<IterativeImage>;
using CudaCGLS = cbct::CGLSConeBeamReconstructionFilter<IterativeImage>;
using CudaOSEM = cbct::OSEMConeBeamReconstructionFilter<IterativeImage>;
using CudaASDPOCS = cbct::ASDPOCSConeBeamReconstructionFilter<IterativeImage>;
using CudaADMMTV = cbct::ADMMTotalVariationConeBeamReconstructionFilter<IterativeImage>;
#endif

/** A new TCpu filter, or its CUDA twin TCuda with --hardware cuda (CUDA builds). */
template <typename TCpu, typename TCuda>
typename TCpu::Pointer
NewIterativeFilter(const IterativeOptions & o)
{
#if CBCT_USE_CUDA
  if (o.hardware == "cuda")
    return TCuda::New().GetPointer();
#else
  (void)o;
#endif
  return TCpu::New().GetPointer();
}

namespace detail
{
inline std::string
Lowercase(std::string text)
{
  for (char & c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}
} // namespace detail

/** --fp in our spelling: RTK's values (Joseph, CudaRayCast; any case) are accepted too. */
inline std::string
ProjectorName(const std::string & fp)
{
  const std::string key = detail::Lowercase(fp);
  if (key == "joseph")
    return "joseph";
  if (key == "raycast" || key == "cudaraycast")
    return "raycast";
  if (key == "emission")
    return "emission";
  return fp;
}

/** --bp in our spelling: RTK's values are accepted too: VoxelBasedBackProjection and CudaVoxelBased
 * are `voxel`; Joseph and CudaRayCast are the forward projector's adjoint when --fp is the same. */
inline std::string
BackProjectorName(const std::string & bp, const std::string & fp)
{
  const std::string key = detail::Lowercase(bp);
  if (key == "voxelbasedbackprojection" || key == "cudavoxelbased" || key == "voxel")
    return "voxel";
  if (key == "adjoint")
    return "adjoint";
  if ((key == "joseph" || key == "cudaraycast") && ProjectorName(bp) == fp)
    return "adjoint";
  if (key == "joseph" || key == "cudaraycast")
    Bad("--bp", Quoted(bp), "adjoint or voxel (RTK's " + bp + " backprojector is the adjoint of --fp " + bp +
                              ", and --fp is " + fp + ")");
  return bp;
}

/** Checks --fp, --step and --hardware (the iterative apps' and cbct-forward's; `emission`: the app
 * offers the emission projector); --hardware cuda needs a CUDA build and a device. */
inline void
CheckProjectorAndHardware(const std::string & fp, double step, const std::string & hardware, bool emission = false)
{
  if (fp != "joseph" && fp != "raycast" && (!emission || fp != "emission"))
    Bad("--fp", Quoted(fp), emission ? "joseph, raycast or emission" : "joseph or raycast");
  if (!std::isfinite(step) || !(step >= 0.))
    Bad("--step", step, "a finite ray-cast sample distance > 0 in mm, or 0 for the smallest voxel spacing");
  if (hardware == "cuda")
  {
#if CBCT_USE_CUDA
    std::string why;
    if (!cbct::CudaDeviceAvailable(&why))
      throw Error("--hardware cuda: " + why);
    return;
#else
    throw Error("--hardware cuda: this build has no CUDA (configure with nvcc available)");
#endif
  }
  if (hardware != "cpu")
    Bad("--hardware", Quoted(hardware), "cpu or cuda");
}

/** The projector named by --fp (checked by CheckProjectorAndHardware()). */
inline cbct::ForwardProjectorKind
ForwardProjector(const std::string & fp)
{
  if (fp == "emission")
    return cbct::ForwardProjectorKind::Emission;
  return fp == "raycast" ? cbct::ForwardProjectorKind::RayCast : cbct::ForwardProjectorKind::Joseph;
}

/** Whether `method` offers --bp: SART, OSEM and ASD-POCS take the voxel-based backprojector; CGLS
 * and ADMM-TV need the forward projector's exact adjoint (their filters reject any other). */
inline bool
MethodOffersBackProjector(IterativeMethod method)
{
  return method != IterativeMethod::CGLS && method != IterativeMethod::ADMMTV;
}

/** Whether `method` is a total-variation method (cbct-asdpocs, cbct-admmtv): one GPU, one process
 * (the total variation couples neighbouring voxels across any slab boundary, so its filters do not
 * share sums over slabs as SART, CGLS and OSEM do). */
inline bool
IsTotalVariation(IterativeMethod method)
{
  return method == IterativeMethod::ASDPOCS || method == IterativeMethod::ADMMTV;
}

/** Whether `method` works in ordered subsets (--nprojpersubset). */
inline bool
MethodHasSubsets(IterativeMethod method)
{
  return method == IterativeMethod::SART || method == IterativeMethod::OSEM || method == IterativeMethod::ASDPOCS;
}

/** Checks --bp (cbct-sart's and cbct-osem's). */
inline void
CheckBackProjector(const std::string & bp)
{
  if (bp != ToString(cbct::BackProjectorKind::Adjoint) && bp != ToString(cbct::BackProjectorKind::VoxelBased))
    Bad("--bp", Quoted(bp), "adjoint or voxel");
}

/** The backprojector named by --bp (checked by CheckBackProjector()). */
inline cbct::BackProjectorKind
BackProjector(const std::string & bp)
{
  return bp == ToString(cbct::BackProjectorKind::VoxelBased) ? cbct::BackProjectorKind::VoxelBased
                                                              : cbct::BackProjectorKind::Adjoint;
}

/** "adjoint (...)" or "voxel (...)" for --verbose: --bp's value, then what it is. */
inline std::string
DescribeBackProjector(const std::string & bp)
{
  if (BackProjector(bp) == cbct::BackProjectorKind::VoxelBased)
    return "voxel (voxel-based: each voxel samples each projection bilinearly where it projects; not the exact adjoint)";
  return "adjoint (the forward projector's exact transpose)";
}

/** "Joseph", "emission (...)" or "ray caster, step S mm" / "ray caster, step: smallest voxel spacing
 * (S mm)" for --verbose. */
inline std::string
DescribeProjector(const std::string & fp, double step, double smallestSpacing, const EmissionOptions * emission = nullptr)
{
  if (fp == "emission")
    return "emission (slices parallel to the detector; " + (emission ? DescribeEmission(*emission) : std::string()) + ")";
  if (fp != "raycast")
    return "Joseph";
  std::ostringstream text;
  if (step > 0.)
    text << "ray caster, step " << step << " mm";
  else
    text << "ray caster, step " << smallestSpacing << " mm (the smallest voxel spacing)";
  return text.str();
}

/** Adds --fp, --step and --hardware to `app` (`emission`: --fp offers the emission projector); returns --fp. */
inline CLI::Option *
AddProjectorOptions(CLI::App & app, std::string & fp, double & step, std::string & hardware, bool emission = false)
{
  auto * option = app.add_option("-f,--fp", fp,
                                 std::string("Forward projector: joseph (Joseph's, bilinear in the slice across the ray), raycast "
                                             "(trilinear samples every --step mm along the ray)") +
                                   (emission ? ", or emission (slices parallel to the detector, composited with "
                                               "--attenuation and --psf; the default with either)"
                                             : "") +
                                   "; RTK's Joseph and CudaRayCast too")
                    ->capture_default_str();
  app.add_option("--step", step, "Ray caster's distance between samples along a ray (mm; 0: the smallest voxel "
                                 "spacing); used with --fp raycast")
    ->capture_default_str();
  app.add_option("--hardware", hardware, "cpu or cuda (a CUDA build and device)")->capture_default_str();
  return option;
}

/** Adds --bp to `app` (the apps whose method takes another backprojector than the adjoint). */
inline void
AddBackProjectorOption(CLI::App & app, std::string & bp)
{
  app.add_option("-b,--bp", bp, "Backprojector: adjoint (the forward projector's exact transpose) or voxel (voxel-based, "
                                "as RTK and TIGRE: each voxel samples each projection bilinearly where it projects; not "
                                "the exact adjoint, much faster on the GPU); RTK's names too (VoxelBasedBackProjection, "
                                "CudaVoxelBased; Joseph or CudaRayCast, the adjoint of the same --fp)")
    ->capture_default_str();
}

/** The Slicer description of AddBackProjectorOption()'s --bp. */
inline void
AddBackProjectorSlicer(std::map<std::string, SlicerParameter> & slicer)
{
  slicer["--bp"] = SlicerIn("Advanced", "string-enumeration", { "adjoint", "voxel" });
}

/** The Slicer descriptions of the options of AddProjectorOptions(). */
inline void
AddProjectorSlicer(std::map<std::string, SlicerParameter> & slicer, bool emission = false)
{
  slicer["--fp"] = SlicerIn("Advanced", "string-enumeration",
                            emission ? std::vector<std::string>{ "joseph", "raycast", "emission" }
                                     : std::vector<std::string>{ "joseph", "raycast" });
  slicer["--step"] = SlicerRange("Advanced", "0", "100", "0.1");
  slicer["--hardware"] = SlicerIn("Advanced", "string-enumeration", { "cpu", "cuda" });
}

/** Checks every option before any file is read; fills the parsed fields. */
inline void
ValidateIterative(IterativeOptions & o, IterativeMethod method)
{
  ApplyThreads(o.threads);
  ValidateProjectionOptions(o);
  ValidatePreprocessingOptions(o.preprocessing);
  ValidateMemoryBudget(o.memoryBudget);
  CheckImageOutput("--output", o.output);
  if (!o.input.empty())
  {
    CheckReadableFile("--input", o.input, "image file");
    CheckOutputsAreNotInputs({ { "--output", o.output } }, { { "--input", o.input, true } });
    if (o.grid.ExplicitGrid() || !o.grid.like.empty())
      throw Error("--input and --dimension/--size/--spacing/--origin/--direction/--like: the initial volume defines the "
                  "grid; give one or the other");
  }
  else
    ValidateGrid(o.grid);
  if (method == IterativeMethod::SART && o.positivity && o.noPositivity)
    throw Error("--positivity and --no-positivity: give one or the other (positivity is the default)");
  if (o.iterations < 1 || o.iterations > 1000000)
    Bad("--niterations", o.iterations, "an integer >= 1");
  if (!std::isfinite(o.timeLimit) || !(o.timeLimit >= 0.))
    Bad("--time-limit", o.timeLimit, "a finite number of seconds >= 0 (0: no limit)");
  if ((method == IterativeMethod::SART || method == IterativeMethod::ASDPOCS) && (!std::isfinite(o.lambda) || !(o.lambda > 0.)))
    Bad("--lambda", o.lambda, "a finite relaxation factor > 0");
  if (method == IterativeMethod::ASDPOCS)
  {
    auto factor = [](const char * option, double value) {
      if (!std::isfinite(value) || !(value > 0.) || value > 1.)
        Bad(option, value, "a reduction factor in (0, 1]");
    };
    factor("--lambda-red", o.lambdaReduction);
    factor("--alpha-red", o.alphaReduction);
    if (!std::isfinite(o.alpha) || !(o.alpha >= 0.))
      Bad("--alpha", o.alpha, "a finite value >= 0 (the first TV step as a fraction of the first data step)");
    if (!std::isfinite(o.ratio) || !(o.ratio > 0.))
      Bad("--ratio", o.ratio, "a finite value > 0 (the largest TV step relative to the data step)");
    if (o.tvIterations < 0 || o.tvIterations > 100000)
      Bad("--tviter", o.tvIterations, "an integer >= 0");
    if (!std::isfinite(o.maxL2Error) || !(o.maxL2Error >= 0.))
      Bad("--maxl2err", o.maxL2Error, "a finite value >= 0 (0: no residual check)");
    if (!std::isfinite(o.tvEpsilon) || !(o.tvEpsilon >= 0.))
      Bad("--tv-epsilon", o.tvEpsilon, "a finite value >= 0 (per mm)");
  }
  if (method == IterativeMethod::ADMMTV)
  {
    if (o.alphaGiven && (!std::isfinite(o.alpha) || !(o.alpha >= 0.)))
      Bad("--alpha", o.alpha, "a finite regularisation weight >= 0");
    if (o.betaGiven && (!std::isfinite(o.beta) || !(o.beta > 0.)))
      Bad("--beta", o.beta, "a finite augmented Lagrangian weight > 0");
    if (o.cgIterations < 1 || o.cgIterations > 100000)
      Bad("--CGiter", o.cgIterations, "an integer >= 1");
    if (o.init != "fdk" && o.init != "zero")
      Bad("--init", Quoted(o.init), "one of fdk, zero");
  }
  if (o.projectionsPerSubset < 0)
    Bad("--nprojpersubset", o.projectionsPerSubset, "an integer >= 0 (0: all projections)");
  o.fp = ProjectorName(o.fp);
  CheckProjectorAndHardware(o.fp, o.step, o.hardware, method == IterativeMethod::OSEM);
  if (MethodOffersBackProjector(method))
  {
    o.bp = BackProjectorName(o.bp, o.fp);
    CheckBackProjector(o.bp);
  }
  if (method == IterativeMethod::OSEM)
    ParseEmission(o.emission, o.fp, o.fpGiven);
  if (o.fp == "emission" && BackProjector(o.bp) != cbct::BackProjectorKind::Adjoint)
    Bad("--bp", Quoted(o.bp), "adjoint with the emission projector (the voxel-based backprojector knows no attenuation or blur)");
  o.preprocessing.counts = o.fp == "emission"; // integer files of counts are not intensities to convert
  if (!o.gpus.empty() && o.hardware != "cuda")
    Bad("--gpus", Quoted(o.gpus), "--hardware cuda with it");
  o.devices = ParseGpus(o.gpus);
  if (o.devices.size() > 1 && o.fp != "joseph")
    Bad("--gpus", Quoted(o.gpus), "one device with --fp " + o.fp + " (only Joseph's projections of slabs add up to the whole volume's)");
  if (IsTotalVariation(method) && o.devices.size() > 1)
    Bad("--gpus", Quoted(o.gpus), "one device (the total-variation methods run on one GPU)");
}

/** Adds the options shared by the iterative apps, and the method's own. */
inline void
AddIterativeOptions(CLI::App & app, IterativeOptions & o, IterativeMethod method, const std::string & title)
{
  app.add_option("-g,--geometry", o.geometry, "Geometry file (RTK ThreeDCircularGeometry XML; required without --scan)");
  AddScanOption(app, o.scan);
  app.add_option("--projections", o.projections, "Projection stack, one file (.mha, .nrrd, .nii, .tif, ...)");
  app.add_option("-p,--path", o.path, "Directory of the projection files (with --regexp)");
  app.add_option("-r,--regexp", o.regexp, "Regular expression selecting the projection files in --path; 2D files "
                                          "are one projection each, 3D files stack all their slices");
  app.add_flag("--nsort", o.numericSort, "Sort the files numerically on --submatch instead of alphabetically");
  app.add_option("--submatch", o.subMatch, "Sub-match of --regexp used for sorting (0: the whole name)")
    ->capture_default_str();
  AddListOption(app, "--new-spacing,--newspacing", o.newSpacing,
                "Replace the projections' pixel spacing (mm): s or U,V (for formats without it, e.g. TIFF)");
  AddListOption(app, "--new-origin,--neworigin", o.newOrigin,
                "Replace the projections' origin (mm): U,V, the centre of the first pixel (default: the files' "
                "origin; for formats without one, e.g. TIFF or PNG, the detector centred: -(N-1)/2 * spacing)");
  AddNonFiniteOption(app, o.replaceNonFinite);
  std::map<std::string, SlicerParameter> slicer;
  AddPreprocessingOptions(app, o.preprocessing, slicer);
  app.add_option("-o,--output", o.output, "Output volume (.mha, .nrrd, .nii, .tif, ...)")->required();
  const std::string initial =
    method == IterativeMethod::OSEM
      ? "Initial volume, positive everywhere (default: 1 everywhere on the --dimension/--spacing/--origin grid)"
      : (method == IterativeMethod::ADMMTV ? "Initial volume (default: see --init)"
                                            : "Initial volume (default: 0 everywhere on the --dimension/--spacing/--origin grid)");
  app.add_option("-i,--input", o.input, initial);
  AddGridOptions(app, o.grid, "Volume");
  if (method == IterativeMethod::ADMMTV)
  {
    // Twice as many iterations of 2 CG steps instead of RTK's 5: the same work as 10 of 5 (40 projection
    // pairs against 50) and a lower error on few views (docs/guide/choosing-a-method.md).
    o.iterations = 20;
    o.cgIterations = 2;
  }
  app.add_option("-n,--niterations", o.iterations, "Number of iterations")->capture_default_str();
  app.add_option("--time-limit", o.timeLimit, "Stop after the iteration during which this many seconds of reconstruction "
                                              "have passed (0: no limit; --niterations still caps the iterations)")
    ->capture_default_str();
  if (method == IterativeMethod::SART)
  {
    app.add_option("-l,--lambda", o.lambda, "Relaxation factor (> 0)")->capture_default_str();
    app.add_option("--nprojpersubset", o.projectionsPerSubset,
                   "Projections per subset: 1 is SART, more OS-SART, 0 all of them (SIRT)")
      ->capture_default_str();
    app.add_flag("--positivity", o.positivity, "Set negative voxels to 0 after each update (the default; RTK's flag, kept)");
    app.add_flag("--no-positivity", o.noPositivity, "Keep negative voxels (by default they are set to 0 after each "
                                                   "update: on few views that halves the error)");
  }
  else if (method == IterativeMethod::OSEM)
  {
    o.projectionsPerSubset = 0;
    app.add_option("--nprojpersubset", o.projectionsPerSubset,
                   "Projections per subset (0: all of them, i.e. MLEM)")
      ->capture_default_str();
  }
  else if (method == IterativeMethod::ASDPOCS)
  {
    o.lambda = 0.5; // TIGRE's is 1; 0.5 halves the error of 10 iterations on 30 views (docs/guide/choosing-a-method.md)
    app.add_option("-l,--lambda", o.lambda, "Relaxation factor of the SART passes (> 0)")->capture_default_str();
    app.add_option("--lambda-red", o.lambdaReduction, "Factor on --lambda after each iteration, in (0, 1]")->capture_default_str();
    app.add_option("--nprojpersubset", o.projectionsPerSubset,
                   "Projections per subset of the SART passes: 1 is SART, more OS-SART, 0 all of them (SIRT)")
      ->capture_default_str();
    app.add_flag("--no-positivity", o.noPositivity, "Keep negative voxels (by default they are set to 0 after each update)");
    app.add_option("--alpha", o.alpha, "First TV step as a fraction of the first SART pass's change (L2)")->capture_default_str();
    app.add_option("--alpha-red", o.alphaReduction, "Factor on the TV step when it outweighs the data step, in (0, 1]")
      ->capture_default_str();
    app.add_option("--ratio", o.ratio, "Largest allowed ratio of the TV steps' change to the SART pass's change")->capture_default_str();
    app.add_option("--tviter", o.tvIterations, "TV steepest-descent steps per iteration")->capture_default_str();
    app.add_option("--maxl2err", o.maxL2Error, "Data residual |Ax - p| below which the TV step is no longer reduced (0: no "
                                              "check, and no extra forward projection)")
      ->capture_default_str();
    app.add_option("--tv-epsilon", o.tvEpsilon,
                   "Smoothing of the total variation whose gradient the TV steps follow, per mm (TIGRE's 1e-8 by default; "
                   "0.01 makes the result independent of the hardware's rounding, see README)")
      ->capture_default_str();
  }
  std::array<CLI::Option *, 2> weightOptions{ { nullptr, nullptr } }; // ADMM-TV's --alpha and --beta
  if (method == IterativeMethod::ADMMTV)
  {
    auto * alpha = app.add_option("--alpha", o.alpha, "Weight of the total variation: minimises |Ax - p|^2 + alpha TV(x) "
                                                      "(auto: 2 beta x 0.2 mu / s, mu the projections' 99.9th percentile over "
                                                      "the volume's width, s the voxel size; see docs/guide/choosing-a-method.md)")
                     ->default_str("auto");
    auto * beta = app.add_option("--beta", o.beta, "Weight of the augmented Lagrangian's constraint g = grad x (> 0; auto: 0.1 "
                                                   "x the ratio of A^T A's and D^T D's largest eigenvalues, estimated from the "
                                                   "views, magnification, detector pixel and voxel sizes)")
                    ->default_str("auto");
    app.add_option("--CGiter,--cgiter", o.cgIterations, "Conjugate gradient steps per iteration")->capture_default_str();
    app.add_flag("--no-positivity", o.noPositivity,
                 "Let voxels go negative (by default the volume is constrained to x >= 0 by a second ADMM split, z = x, z >= 0)");
    o.init = "fdk";
    app.add_option("--init", o.init, "Initial volume without --input: fdk (FDK of the projections, negatives set to 0; "
                                     "zero where FDK cannot reconstruct the geometry) or zero")
      ->capture_default_str();
    weightOptions = { alpha, beta };
  }
  auto * fp = AddProjectorOptions(app, o.fp, o.step, o.hardware, method == IterativeMethod::OSEM);
  app.callback([&o, fp, weightOptions] {
    o.fpGiven = fp->count() > 0;
    o.alphaGiven = weightOptions[0] != nullptr && weightOptions[0]->count() > 0;
    o.betaGiven = weightOptions[1] != nullptr && weightOptions[1]->count() > 0;
  });
  app.add_option("--gpus", o.gpus, "CUDA devices (with --hardware cuda): all, or indices such as 0,1 (default: the "
                                   "first); several share the volume in slabs along y (Joseph's projector only). Under "
                                   "mpirun: each rank takes one of them, by its rank on the machine");
  if (MethodOffersBackProjector(method))
    AddBackProjectorOption(app, o.bp);
  if (method == IterativeMethod::OSEM)
    AddEmissionOptions(app, o.emission);
  app.add_flag("-v,--verbose", o.verbose, "Print what is done and each iteration's time");
  AddMemoryBudgetOptions(app, o.memoryBudget, slicer, WholeRunMemoryHelp(), false);
  AddCommonOptions(app, o.threads);
  slicer.insert({
    { "--geometry", SlicerIo("file", "input", "Input", ".xml") },
    { "--projections", SlicerIo("image", "input", "Input") },
    { "--path", SlicerIo("directory", "input", "Input") },
    { "--regexp", SlicerIn("Input") },
    { "--nsort", SlicerIn("Input") },
    { "--submatch", SlicerRange("Input", "0", "99", "1") },
    { "--new-spacing", SlicerIn("Input", "double-vector") },
    { "--new-origin", SlicerIn("Input", "double-vector") },
    { "--input", SlicerIo("image", "input", "Input") },
    { "--output", SlicerIo("image", "output", "Output") },
    { "--dimension", SlicerWhenGiven(SlicerIn("Output", "integer-vector")) },
    { "--spacing", SlicerWhenGiven(SlicerIn("Output", "double-vector")) },
    { "--origin", SlicerIn("Output", "double-vector") },
    { "--like", SlicerIo("image", "input", "Output") },
    { "--direction", SlicerIn("Output", "double-vector") },
    { "--niterations", SlicerRange("Iterations", "1", "1000", "1") },
    { "--time-limit", SlicerRange("Iterations", "0", "1e6", "1") },
    { "--verbose", SlicerIn("Advanced") },
    { "--gpus", SlicerIn("Advanced") },
  });
  AddProjectorSlicer(slicer, method == IterativeMethod::OSEM);
  if (MethodOffersBackProjector(method))
    AddBackProjectorSlicer(slicer);
  if (method == IterativeMethod::OSEM)
    AddEmissionSlicer(slicer);
  if (method == IterativeMethod::SART)
  {
    slicer["--lambda"] = SlicerRange("Iterations", "0.01", "2", "0.05");
    slicer["--positivity"] = SlicerIn("Iterations");
    slicer["--no-positivity"] = SlicerIn("Iterations");
  }
  if (method == IterativeMethod::ASDPOCS)
  {
    slicer["--lambda"] = SlicerRange("Iterations", "0.01", "2", "0.05");
    slicer["--lambda-red"] = SlicerRange("Iterations", "0.5", "1", "0.01");
    slicer["--no-positivity"] = SlicerIn("Iterations");
    slicer["--alpha"] = SlicerRange("Total variation", "0", "1", "0.001");
    slicer["--alpha-red"] = SlicerRange("Total variation", "0.5", "1", "0.01");
    slicer["--ratio"] = SlicerRange("Total variation", "0.1", "2", "0.05");
    slicer["--tviter"] = SlicerRange("Total variation", "0", "200", "1");
    slicer["--maxl2err"] = SlicerRange("Total variation", "0", "1e9", "1");
    slicer["--tv-epsilon"] = SlicerRange("Total variation", "0", "1", "0.001");
  }
  if (method == IterativeMethod::ADMMTV)
  {
    // Not given: chosen from the problem's scales (AutomaticADMMWeights()), so Slicer passes them only when filled in.
    slicer["--alpha"] = SlicerWhenGiven(SlicerRange("Total variation", "0", "1e6", "0.1"));
    slicer["--beta"] = SlicerWhenGiven(SlicerRange("Total variation", "0", "1e6", "1"));
    slicer["--CGiter"] = SlicerRange("Total variation", "1", "100", "1");
    slicer["--no-positivity"] = SlicerIn("Iterations");
    slicer["--init"] = SlicerIn("Iterations", "string-enumeration", { "fdk", "zero" });
  }
  if (MethodHasSubsets(method))
    slicer["--nprojpersubset"] = SlicerRange("Iterations", "0", "10000", "1");
  DescribeForSlicer(title, slicer);
}

/** The large buffers an iterative reconstruction holds at once (a lower bound, from the filters' code):
 * the projections, the volume in and out, the method's projection- and volume-sized buffers and,
 * for the exact adjoint on the CPU, one partial volume of doubles per thread. */
inline MemoryNeed
IterativeMemoryNeed(const IterativeOptions & o, IterativeMethod method, const ProjectionInputs & inputs)
{
  std::uint64_t voxels = 1;
  if (!o.input.empty())
    voxels = InspectImage("--input", o.input).Pixels();
  else
    for (unsigned int d = 0; d < 3; ++d)
      voxels *= o.grid.sizes[d];
  const std::uint64_t projectionPixels = inputs.Pixels();
  MemoryNeed need;
  need.Add("projections", inputs.ReadingBytes());
  need.Add("volume in and out", FloatBytes(voxels, 2));
  if (o.hardware != "cuda")
  {
    const std::uint64_t projectionBuffers = method == IterativeMethod::SART ? 3 : 2;
    const std::uint64_t volumeBuffers = method == IterativeMethod::SART ? 3 : 2;
    need.Add("the method's projection buffers", FloatBytes(projectionPixels, projectionBuffers));
    need.Add("the method's volume buffers", FloatBytes(voxels, volumeBuffers));
    if (BackProjector(o.bp) == cbct::BackProjectorKind::Adjoint || method == IterativeMethod::CGLS)
    {
      std::uint64_t count = 0;
      for (const auto & c : inputs.contents)
        count += c.Dimensions().size() > 2 ? c.Dimensions()[2] : 1;
      const std::uint64_t perSubset = method == IterativeMethod::CGLS || o.projectionsPerSubset == 0
                                        ? count
                                        : static_cast<std::uint64_t>(o.projectionsPerSubset);
      const std::uint64_t threads = itk::MultiThreaderBase::GetGlobalDefaultNumberOfThreads();
      need.Add("the adjoint's partial sums (one volume of doubles per thread)",
               FloatBytes(voxels, 2 * std::max<std::uint64_t>(1, std::min(perSubset, threads))));
    }
  }
  need.remedy = "give a smaller volume (--dimension, or a coarser --spacing)";
  if (o.hardware != "cuda")
    need.remedy += MethodOffersBackProjector(method)
                     ? ", fewer --threads (each holds a partial volume with --bp adjoint), or --bp voxel"
                     : " or fewer --threads (each holds a partial volume)";
  return need;
}

/** The method's filter (CPU, or CUDA with --hardware cuda) with every option of `o` set but its
 * inputs; `iterationNote` receives what --verbose adds to each iteration's line. */
inline cbct::IterativeReconstructionFilter<IterativeImage>::Pointer
MakeIterativeFilter(const IterativeOptions & o, IterativeMethod method, std::function<std::string()> & iterationNote)
{
  using ImageType = IterativeImage;
  // The method's own parameters; those of every iterative filter below.
  cbct::IterativeReconstructionFilter<ImageType>::Pointer filter;
  iterationNote = [] { return std::string(); };
  if (method == IterativeMethod::SART)
  {
    auto sart = NewIterativeFilter<cbct::SARTConeBeamReconstructionFilter<ImageType>, CudaSART>(o);
    sart->SetLambda(o.lambda);
    sart->SetNumberOfProjectionsPerSubset(static_cast<unsigned int>(o.projectionsPerSubset));
    sart->SetEnforcePositivity(!o.noPositivity); // --positivity is the default
    filter = sart;
  }
  else if (method == IterativeMethod::CGLS)
  {
    auto cgls = NewIterativeFilter<cbct::CGLSConeBeamReconstructionFilter<ImageType>, CudaCGLS>(o);
    iterationNote = [p = cgls.GetPointer()] {
      std::ostringstream note;
      note << ", residual |p - Ax| " << p->GetResidualNorms().back() << " (initial " << p->GetInitialResidualNorm() << ")";
      return note.str();
    };
    filter = cgls;
  }
  else if (method == IterativeMethod::OSEM)
  {
    auto osem = NewIterativeFilter<cbct::OSEMConeBeamReconstructionFilter<ImageType>, CudaOSEM>(o);
    osem->SetNumberOfProjectionsPerSubset(static_cast<unsigned int>(o.projectionsPerSubset));
    filter = osem;
  }
  else if (method == IterativeMethod::ASDPOCS)
  {
    auto asd = NewIterativeFilter<cbct::ASDPOCSConeBeamReconstructionFilter<ImageType>, CudaASDPOCS>(o);
    asd->SetLambda(o.lambda);
    asd->SetLambdaReduction(o.lambdaReduction);
    asd->SetNumberOfProjectionsPerSubset(static_cast<unsigned int>(o.projectionsPerSubset));
    asd->SetEnforcePositivity(!o.noPositivity);
    asd->SetAlpha(o.alpha);
    asd->SetAlphaReduction(o.alphaReduction);
    asd->SetRatioMax(o.ratio);
    asd->SetNumberOfTVIterations(static_cast<unsigned int>(o.tvIterations));
    asd->SetDataTolerance(o.maxL2Error);
    asd->SetEpsilon(o.tvEpsilon);
    iterationNote = [p = asd.GetPointer()] {
      std::ostringstream note;
      note << ", TV step " << p->GetTVStepSizes().back();
      return note.str();
    };
    filter = asd;
  }
  else
  {
    auto admm = NewIterativeFilter<cbct::ADMMTotalVariationConeBeamReconstructionFilter<ImageType>, CudaADMMTV>(o);
    admm->SetAlpha(o.alpha);
    admm->SetBeta(o.beta);
    admm->SetNumberOfCGIterations(static_cast<unsigned int>(o.cgIterations));
    admm->SetEnforcePositivity(!o.noPositivity); // Gamma: the filter's default, from beta and the voxel size
    filter = admm;
  }
  filter->SetForwardProjector(ForwardProjector(o.fp));
  filter->SetBackProjector(BackProjector(o.bp)); // "adjoint" for CGLS and ADMM-TV, which offer no --bp
  filter->SetRayCastStep(o.step);
  filter->SetAttenuationMap(o.emission.mu);
  filter->SetCollimatorBlur(o.emission.blur);
  filter->SetNumberOfIterations(static_cast<unsigned int>(o.iterations));
#if CBCT_USE_CUDA
  // --gpus: several share the volume in slabs along y.
  if (auto * cuda = dynamic_cast<CudaSART *>(filter.GetPointer()))
    cuda->SetDevices(o.devices);
  else if (auto * cuda = dynamic_cast<CudaCGLS *>(filter.GetPointer()))
    cuda->SetDevices(o.devices);
  else if (auto * cuda = dynamic_cast<CudaOSEM *>(filter.GetPointer()))
    cuda->SetDevices(o.devices);
  else if (o.hardware == "cuda" && o.devices.size() == 1)
  {
    // The total-variation filters run on the current device (ValidateIterative() allows one).
    if (cudaSetDevice(o.devices[0]) != cudaSuccess)
      Bad("--gpus", Quoted(o.gpus), "a CUDA device index of this machine");
  }
#endif
  return filter;
}

/** --init fdk: cbct::FDKWarmStart() on the CPU or, with --hardware cuda, on the GPU; `zero` (the grid,
 * zeros) where FDK cannot reconstruct the geometry, said on stderr. */
inline IterativeImage::Pointer
FDKWarmStartOrZero(const IterativeOptions & o, const cbct::ThreeDCircularProjectionGeometry * geometry,
                   const IterativeImage * projections, const IterativeImage * zero, const std::string & name)
{
  Stopwatch clock;
  IterativeImage::Pointer volume;
  try
  {
#if CBCT_USE_CUDA
    if (o.hardware == "cuda")
    {
      using CudaImage = cbct::CudaImage<float, 3>;
      auto copy = [](const auto * from, auto to) {
        to->CopyInformation(from);
        to->SetRegions(from->GetLargestPossibleRegion());
        to->Allocate();
        std::copy_n(from->GetBufferPointer(), from->GetBufferedRegion().GetNumberOfPixels(), to->GetBufferPointer());
        return to;
      };
      auto cudaProjections = copy(projections, CudaImage::New());
      auto cudaGrid = CudaImage::New();
      cudaGrid->CopyInformation(zero);
      cudaGrid->SetRegions(zero->GetLargestPossibleRegion());
      auto cudaVolume = cbct::FDKWarmStart<cbct::CudaFDKConeBeamReconstructionFilter<CudaImage>>(
        cudaProjections.GetPointer(), geometry, cudaGrid.GetPointer());
      volume = copy(cudaVolume.GetPointer(), IterativeImage::New());
    }
    else
#endif
      volume = cbct::FDKWarmStart<cbct::FDKConeBeamReconstructionFilter<IterativeImage>>(projections, geometry, zero);
  }
  catch (const itk::ExceptionObject & e)
  {
    std::cerr << name << ": note: --init fdk: FDK cannot reconstruct this scan (" << WithoutItkPrefix(e.GetDescription())
              << "); starting from zero" << std::endl;
    return const_cast<IterativeImage *>(zero);
  }
  if (o.verbose)
    std::cout << name << ": initial volume: FDK, negatives set to 0 (" << FormatSeconds(clock.Seconds()) << ")" << std::endl;
  return volume;
}

/** ADMM-TV's --alpha and --beta where not given, from the problem's scales
 * (cbct::ADMMTotalVariationWeights); said under --verbose and in the output's provenance. */
inline void
AutomaticADMMWeights(IterativeOptions & o, const cbct::ThreeDCircularProjectionGeometry * geometry,
                     const IterativeImage * projections, const IterativeImage * volume, const std::string & name)
{
  const auto size = volume->GetLargestPossibleRegion().GetSize();
  const unsigned long volumeSize[3] = { size[0], size[1], size[2] };
  const double volumeSpacing[3] = { volume->GetSpacing()[0], volume->GetSpacing()[1], volume->GetSpacing()[2] };
  const auto weights = cbct::ADMMTotalVariationWeights::Automatic(
    geometry, projections->GetSpacing()[0], projections->GetSpacing()[1], projections->GetBufferPointer(),
    projections->GetBufferedRegion().GetNumberOfPixels(), volumeSize, volumeSpacing);
  if (!o.betaGiven)
    o.beta = weights.beta;
  if (!o.alphaGiven) // the threshold alpha / (2 beta) from the scales, for the beta used
    o.alpha = weights.alpha / weights.beta * o.beta;
  std::ostringstream text;
  text << "alpha " << std::setprecision(4) << o.alpha << (o.alphaGiven ? "" : " (auto)") << ", beta " << o.beta
       << (o.betaGiven ? "" : " (auto)") << ", " << o.cgIterations << " CG steps"
       << (o.noPositivity ? ", no positivity" : ", positivity");
  SetProvenance("ConeBeamCT_Method", "ADMM-TV (" + text.str() + ")");
  if (o.verbose)
    std::cout << name << ": ADMM-TV: " << text.str() << "; A^T A / D^T D scale " << std::setprecision(4)
              << weights.operatorScale << ", attenuation scale " << weights.attenuationScale << " per mm" << std::endl;
}

/** The method's name for the output's provenance: SART, OS-SART or SIRT, CGLS, MLEM or OSEM, ASD-POCS,
 * ADMM-TV. */
inline std::string
IterativeMethodName(IterativeMethod method, long long projectionsPerSubset)
{
  switch (method)
  {
    case IterativeMethod::SART:
      return projectionsPerSubset == 1 ? "SART" : projectionsPerSubset == 0 ? "SIRT" : "OS-SART";
    case IterativeMethod::CGLS:
      return "CGLS";
    case IterativeMethod::OSEM:
      return projectionsPerSubset == 0 ? "MLEM" : "OSEM";
    case IterativeMethod::ASDPOCS:
      return "ASD-POCS";
    case IterativeMethod::ADMMTV:
      return "ADMM-TV";
  }
  return "iterative";
}

/** Reads the inputs, runs the method's filter with a progress bar and per-iteration lines under
 * --verbose, writes the volume. */
inline int
ReconstructIterative(IterativeOptions & o, IterativeMethod method, const std::string & name)
{
  using ImageType = IterativeImage;
  ValidateIterative(o, method);
  Stopwatch total;
  Stopwatch clock;
  auto geometry = ReadGeometry(o);
  SetProvenance("ConeBeamCT_Geometry", DescribeGeometryForProvenance(geometry, o.scan.empty() ? o.geometry : o.scan));
  const unsigned int count = geometry->GetNumberOfProjections();
  if (o.verbose)
    std::cout << name << ": hardware: "
              << (o.hardware == "cuda" ? std::string("CUDA")
                                       : "CPU, " + std::to_string(itk::MultiThreaderBase::GetGlobalDefaultNumberOfThreads()) + " threads")
              << std::endl
              << name << ": read geometry " << (o.scan.empty() ? o.geometry : "of --scan " + o.scan) << ": " << count << " projections ("
              << FormatSeconds(clock.Seconds()) << ")" << std::endl;
  if (MethodHasSubsets(method) && o.projectionsPerSubset > static_cast<long long>(count))
    Bad("--nprojpersubset", o.projectionsPerSubset,
        "at most the number of projections of --geometry (" + std::to_string(count) + "), or 0 for all");

  clock.Restart();
  const ProjectionInputs inputs = InspectProjections(o);
  const std::size_t files = inputs.files.size();
  CheckMemoryBudget(o.memoryBudget, "the reconstruction", IterativeMemoryNeed(o, method, inputs));
  ImageType::Pointer projections = LoadProjections<ImageType>(o, inputs, name, o.verbose ? &std::cout : nullptr);
  // A detector beside the rotation axis: a warning here, not cbct-fdk's error, since an iterative method
  // fits the rays that were measured (truncated, one-sided or region-of-interest data, the unseen voxels
  // keeping the initial volume's values), while FDK's weights assume every voxel is seen.
  CheckDetectorReachesAxis(o, inputs.files, geometry, projections, AxisMissIs::Warning);
  const auto psize = projections->GetLargestPossibleRegion().GetSize();
  if (o.verbose)
    std::cout << name << ": read projections: " << psize[0] << " x " << psize[1] << " pixels of "
              << projections->GetSpacing()[0] << " x " << projections->GetSpacing()[1] << " mm x " << psize[2]
              << " projections from " << files << " file" << (files == 1 ? "" : "s") << " ("
              << FormatSeconds(clock.Seconds()) << ")" << std::endl;

  ImageType::Pointer initial;
  if (!o.input.empty())
  {
    initial = ReadImage<ImageType>("--input", o.input);
    CheckFiniteValues("--input", o.input, initial.GetPointer(), "finite values everywhere in the initial volume");
  }
  else
  {
    auto grid = cbct::ConstantImageSource<ImageType>::New();
    ApplyGrid(grid.GetPointer(), o.grid);
    grid->SetConstant(0.f); // OSEM starts from 1 when given a volume that is 0 everywhere
    grid->Update();
    initial = grid->GetOutput();
    if (o.init == "fdk")
      initial = FDKWarmStartOrZero(o, geometry, projections.GetPointer(), initial.GetPointer(), name);
  }
  ReadAttenuation(o.emission);
  if (o.verbose)
    std::cout << name << ": volume " << DescribeGrid(initial.GetPointer(), "voxels")
              << (o.input.empty() ? "" : ", initial volume " + o.input) << std::endl
              << name << ": projector: "
              << DescribeProjector(o.fp, o.step,
                                   std::min({ initial->GetSpacing()[0], initial->GetSpacing()[1], initial->GetSpacing()[2] }),
                                   &o.emission)
              << std::endl;
  if (o.verbose && MethodOffersBackProjector(method))
    std::cout << name << ": backprojector: " << DescribeBackProjector(o.bp) << std::endl;

  if (method == IterativeMethod::ADMMTV && (!o.alphaGiven || !o.betaGiven))
    AutomaticADMMWeights(o, geometry, projections.GetPointer(), initial.GetPointer(), name);

  std::function<std::string()> iterationNote;
  auto filter = MakeIterativeFilter(o, method, iterationNote);
  filter->SetInput(0, initial);
  filter->SetProjections(projections);
  filter->SetGeometry(geometry);
  try
  {
    filter->UpdateOutputInformation(); // checks the geometry against the projections before the work
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string projectionsOption = o.projections.empty() ? "--path/--regexp" : "--projections " + o.projections;
    throw Error(projectionsOption + " with --geometry " + o.geometry + ": " + WithoutItkPrefix(e.GetDescription()));
  }

  Stopwatch iterationClock;
  if (o.verbose)
    filter->AddObserver(itk::IterationEvent(), [&](const itk::EventObject &) {
      std::cout << name << ": iteration " << filter->GetCurrentIteration() << "/" << o.iterations << " ("
                << FormatSeconds(iterationClock.Seconds()) << ")" << iterationNote() << std::endl;
      iterationClock.Restart();
    });
  // --time-limit: the filters' stop flag, raised after the iteration that reaches the limit.
  Stopwatch budget;
  bool timeLimitReached = false;
  if (o.timeLimit > 0.)
    filter->AddObserver(itk::IterationEvent(), [&](const itk::EventObject &) {
      if (budget.Seconds() >= o.timeLimit && filter->GetCurrentIteration() < o.iterations)
      {
        timeLimitReached = true;
        filter->AbortGenerateDataOn();
      }
    });
  auto bar = ProgressBar::Attach(filter, name);
  clock.Restart();
  iterationClock.Restart();
  budget.Restart();
  try
  {
    filter->Update();
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string projectionsOption = o.projections.empty() ? "--path/--regexp" : "--projections " + o.projections;
    const std::string what = WithoutItkPrefix(e.GetDescription());
    throw Error((what.rfind("initial volume", 0) == 0 ? "--input " + o.input : projectionsOption) + ": " + what);
  }
  if (o.verbose)
    std::cout << name << ": " << filter->GetCurrentIteration() << " iterations in " << FormatSeconds(clock.Seconds())
              << (timeLimitReached ? " (stopped by --time-limit)" : "") << std::endl;

  clock.Restart();
  WriteImage("--output", filter->GetOutput(), o.output);
  if (o.verbose)
  {
    std::cout << name << ": wrote " << o.output << " (" << FormatSeconds(clock.Seconds()) << ")" << std::endl;
    std::cout << name << ": total " << FormatSeconds(total.Seconds()) << std::endl;
  }
  return 0;
}

#if CBCT_USE_MPI
/** One rank of an MPI job: the rank's slab of the volume along y, iterated with the other ranks (the
 * slabs' forward projections summed over the ranks, MPISlabReduction; every rank holds the whole
 * projections), then the slabs written into one file together. */
inline int
ReconstructIterativeSlab(IterativeOptions & o, IterativeMethod method, const std::string & app, const AppRanks & ranks)
{
  using ImageType = IterativeImage;
  const std::string name = ranks.Prefix(app);
  Stopwatch total;
  cbct::MPISlabReduction reduction(MPI_COMM_WORLD);
  cbct::IterativeReconstructionFilter<ImageType>::Pointer filter;
  std::function<std::string()> iterationNote;
  ImageType::Pointer whole = ImageType::New(); // the whole volume's grid, without pixels
  ImageType::RegionType slab;
  int status = ranks.Collectively([&] {
    if (IsTotalVariation(method))
      throw Error("mpirun: " + app + " runs in one process (its total variation couples the voxels of neighbouring "
                  "slabs); run it without mpirun, on one GPU with --hardware cuda");
    ValidateIterative(o, method);
    if (o.fp == "emission")
      Bad("--fp", Quoted(o.fp) + (o.emission.Given() ? " (from --attenuation or --psf)" : ""),
          "joseph under mpirun: run emission OSEM as one process (the emission projector lays each view's slices out "
          "over the volume it holds, so the ranks' slabs do not add up to the whole volume's projection)");
    if (o.timeLimit > 0.)
      Bad("--time-limit", o.timeLimit, "0 under mpirun (the ranks would stop after different iterations)");
    if (o.fp != "joseph")
      Bad("--fp", Quoted(o.fp), "joseph under mpirun (the ray caster's samples depend on where a ray enters the "
                                "volume, so the ranks' slabs do not add up to the whole volume's projection)");
    auto geometry = ReadGeometry(o);
    SetProvenance("ConeBeamCT_Geometry", DescribeGeometryForProvenance(geometry, o.scan.empty() ? o.geometry : o.scan));
    const unsigned int count = geometry->GetNumberOfProjections();
    if (method != IterativeMethod::CGLS && o.projectionsPerSubset > static_cast<long long>(count))
      Bad("--nprojpersubset", o.projectionsPerSubset,
          "at most the number of projections of --geometry (" + std::to_string(count) + "), or 0 for all");
    std::size_t files = 0;
    ImageType::Pointer projections =
      LoadProjections<ImageType>(o, files, name, o.verbose && ranks.Rank() == 0 ? &std::cout : nullptr);
    if (ranks.Rank() == 0) // a warning, as in one process (every rank holds the same projections)
      CheckDetectorReachesAxis(o, InspectProjections(o).files, geometry, projections, AxisMissIs::Warning);
    // The grid of --input (read over this rank's slab only) or of --dimension/--spacing/--origin.
    auto reader = itk::ImageFileReader<ImageType>::New();
    if (!o.input.empty())
    {
      InspectImage("--input", o.input);
      reader->SetFileName(o.input);
      reader->UpdateOutputInformation();
      CheckNegativeSpacing("--input", o.input, reader->GetOutput(), ImageRole::Volume);
      whole->CopyInformation(reader->GetOutput());
    }
    else
    {
      auto grid = cbct::ConstantImageSource<ImageType>::New();
      ApplyGrid(grid.GetPointer(), o.grid);
      grid->UpdateOutputInformation();
      whole->CopyInformation(grid->GetOutput());
      whole->SetRegions(grid->GetOutput()->GetLargestPossibleRegion());
    }
    slab = cbct::MPISlabReconstruction::SlabOf(whole->GetLargestPossibleRegion(), MPI_COMM_WORLD);
    ImageType::Pointer initial = ImageType::New();
    initial->CopyInformation(whole);
    initial->SetRegions(slab);
    initial->Allocate();
    initial->FillBuffer(0.f); // OSEM starts from 1 when given a volume that is 0 everywhere
    if (!o.input.empty())
    {
      reader->GetOutput()->SetRequestedRegion(slab);
      reader->Update();
      itk::ImageAlgorithm::Copy(reader->GetOutput(), initial.GetPointer(), slab, slab);
      CheckFiniteValues("--input", o.input, initial.GetPointer(), "finite values everywhere in the initial volume");
    }
    if (o.hardware == "cuda")
    {
      // One GPU per rank: --gpus's devices (or all), by the rank's place on its machine.
      const std::vector<int> candidates = o.devices.empty() ? ParseGpusIfAny() : o.devices;
      o.devices = { candidates.at(static_cast<std::size_t>(ranks.LocalRank()) % candidates.size()) };
    }
    filter = MakeIterativeFilter(o, method, iterationNote);
    filter->SetInput(0, initial);
    filter->SetProjections(projections);
    filter->SetGeometry(geometry);
    filter->SetSlabReduction(&reduction);
    filter->UpdateOutputInformation();
    if (o.verbose)
      std::cout << name << ": slab y [" << slab.GetIndex(1) << ", " << slab.GetIndex(1) + static_cast<long>(slab.GetSize(1))
                << ") of " << whole->GetLargestPossibleRegion().GetSize(1) << ", " << count << " projections" << std::endl;
  });
  if (status != 0)
    return status;

  Stopwatch iterationClock;
  if (o.verbose && ranks.Rank() == 0)
    filter->AddObserver(itk::IterationEvent(), [&](const itk::EventObject &) {
      std::cout << name << ": iteration " << filter->GetCurrentIteration() << "/" << o.iterations << " ("
                << FormatSeconds(iterationClock.Seconds()) << ")" << iterationNote() << std::endl;
      iterationClock.Restart();
    });
  ProgressBar::Pointer bar;
  if (ranks.Rank() == 0)
    bar = ProgressBar::Attach(filter, app);
  try
  {
    filter->Update();
  }
  catch (const itk::ExceptionObject & e)
  {
    // The other ranks wait in a shared sum this rank will never join: end the job.
    PrintError(app, "rank " + std::to_string(ranks.Rank()) + ": " + WithoutItkPrefix(e.GetDescription()));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  // The slab, seen as part of the whole volume, written with the other ranks'.
  ImageType::Pointer view = ImageType::New();
  view->CopyInformation(whole);
  view->SetBufferedRegion(slab);
  view->SetPixelContainer(filter->GetOutput()->GetPixelContainer());
  view->SetMetaDataDictionary(WithProvenance(view->GetMetaDataDictionary())); // as WriteImage() in one process
  try
  {
    cbct::MPISlabWriter::Write(view, o.output, MPI_COMM_WORLD);
  }
  catch (const itk::ExceptionObject & e)
  {
    if (ranks.Rank() != 0)
      return 1;
    throw Error("--output " + o.output + ": " + WithoutItkPrefix(e.GetDescription()));
  }
  if (o.verbose && ranks.Rank() == 0)
    std::cout << name << ": wrote " << o.output << ", total " << FormatSeconds(total.Seconds()) << std::endl;
  return 0;
}
#endif

/** The whole app: options, Slicer description, run (under mpirun: one slab per rank). */
inline int
IterativeMain(int argc, char ** argv, IterativeMethod method, const std::string & name, const std::string & description,
              const std::string & title)
{
  AppRanks ranks(&argc, &argv);
  IterativeOptions o;
  CLI::App app{ description, name };
  AddIterativeOptions(app, o, method, title);
  return Run(app, argc, argv, [&] {
    SetProvenance("ConeBeamCT_App", name + " (ConeBeamCT " CBCT_VERSION ")");
    SetProvenance("ConeBeamCT_Method", IterativeMethodName(method, o.projectionsPerSubset));
    SetProvenance("ConeBeamCT_Options", DescribeOptions(app));
#if CBCT_USE_MPI
    if (ranks.Distributed())
      return ReconstructIterativeSlab(o, method, name, ranks);
#endif
    return ReconstructIterative(o, method, name);
  });
}

} // namespace cbct::apps

#endif
