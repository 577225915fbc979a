// The shared core of cbct-bench (benchmarks/README.md): the standard problems of DESIGN.md, the
// timings' JSON line, medians, peak memory, and the projections the methods start from. Each method
// is its own file (cbctBench<Method>.cxx), declared at the end of this header; cbct-bench.cxx reads the
// options and runs the method --method names.
#ifndef cbctBench_h
#define cbctBench_h

#include "cbctConstantImageSource.h"
#include "cbctGeometricPhantom.h"
#include "cbctPhantomProjectionSource.h"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <itkMultiThreaderBase.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace cbct::bench
{
/** A standard problem: a cube of `volume`^3 voxels of voxelMm from `projections` views of columns x rows
 * pixels of pixelMm (mm) on the circle of CircularGeometry(). */
struct Problem
{
  std::string name;
  unsigned int volume;
  double voxelMm;
  unsigned int projections, columns, rows;
  double pixelMm;
};

/** Problem S, R, L or T by name; an error for another name. */
Problem
Lookup(const std::string & name);

struct Times
{
  double total = 0., upload = 0., weighting = 0., filtering = 0., backprojection = 0., download = 0., conversion = 0.;
  // CUDA FDK only (0 otherwise): the device's first batch before any backprojection and its whole
  // span (CUDA events), the host's time preparing the problem, inside the pipelines, and after them.
  double firstBackProjection = 0., deviceSpan = 0., hostSetup = 0., hostRun = 0., hostFinish = 0.;
};

/** The 16-bit detector readings that --input uint16 starts from: I0 60000 through air, Idark 0. */
constexpr double BenchI0 = 60000.;

/** The median of v (0 for none). */
double
Median(std::vector<double> v);

/** How the FDK runs: the GPUs of this process (--gpus), the minimum pieces per GPU (--pieces), and
 * this process's place in an MPI job (one rank: the whole volume). */
struct Setup
{
  std::vector<int> devices;
  unsigned int pieces = 0;
  bool keepDeviceMemory = false; ///< --keep-device-memory: the CUDA FDK keeps its device buffers between runs
  double detectorRadius = 0.;    ///< --detector-radius: a cylindrical detector of this radius (0: flat)
  std::string fieldOfView = "off"; ///< --fov: off, zero or nan (the voxels no projection sees skipped)
  int rank = 0, ranks = 1, localRank = 0;
};

/** Peak resident memory of this process so far (GiB). */
double
PeakResidentGiB();

/** `input`: "float" (line integrals), or "uint16" with where the readings became line integrals
 * ("uint16-host": IntensityToLineIntegralImageFilter, timed as conversion_s; "uint16-device": the
 * FDK's weighting kernel). */
void
PrintJson(const Problem & p, const std::string & hardware, const std::string & device, const std::string & input,
          const std::string & run, const Times & t, const std::string & extra = "");

/** `count` projections over 360 degrees of the standard problems' circle (SID 1000 mm, SDD 1500 mm). */
ThreeDCircularProjectionGeometry::Pointer
CircularGeometry(unsigned int count);

/** How the CPU runs are described in the JSON lines: "<hardware threads> threads". */
std::string
CpuDescription();

/** The CUDA device's name, memory and compute capability; an error ("--hardware cuda: <why>") when
 * this build or this machine has none. */
std::string
CudaDescription();

/** Problem p's detector pixel size (mm; 1 along the projection index), in TImage's type. */
template <typename TImage>
typename TImage::SpacingType
DetectorSpacing(const Problem & p)
{
  typename TImage::SpacingType spacing;
  spacing[0] = spacing[1] = p.pixelMm;
  spacing[2] = 1.;
  return spacing;
}

/** Problem p's first detector pixel (mm): the detector centred on the axis. */
template <typename TImage>
typename TImage::PointType
DetectorOrigin(const Problem & p)
{
  typename TImage::PointType origin;
  origin[0] = -0.5 * (p.columns - 1.) * p.pixelMm;
  origin[1] = -0.5 * (p.rows - 1.) * p.pixelMm;
  origin[2] = 0.;
  return origin;
}

/** Problem p's volume of zeros, centred on the isocenter (not yet updated). */
template <typename TImage>
typename ConstantImageSource<TImage>::Pointer
ZeroVolume(const Problem & p)
{
  auto zero = ConstantImageSource<TImage>::New();
  zero->SetSize(typename TImage::SizeType{ { p.volume, p.volume, p.volume } });
  typename TImage::SpacingType voxel;
  voxel.Fill(p.voxelMm);
  zero->SetSpacing(voxel);
  typename TImage::PointType origin;
  origin.Fill(-0.5 * (p.volume - 1.) * p.voxelMm);
  zero->SetOrigin(origin);
  return zero;
}

/** The exact line integrals of the Shepp-Logan head (scaled to problem p's volume) for every projection
 * of `geometry`, on problem p's detector. */
template <typename TImage>
typename TImage::Pointer
SheppLoganProjections(const Problem & p, const ThreeDCircularProjectionGeometry * geometry)
{
  auto phantom = GeometricPhantom::New();
  phantom->SetToSheppLogan(0.45 * p.volume * p.voxelMm);
  auto source = PhantomProjectionSource<TImage>::New();
  source->SetSize(typename TImage::SizeType{ { p.columns, p.rows, p.projections } });
  source->SetSpacing(DetectorSpacing<TImage>(p));
  source->SetOrigin(DetectorOrigin<TImage>(p));
  source->SetGeometry(geometry);
  source->SetPhantom(phantom);
  source->Update();
  typename TImage::Pointer projections = source->GetOutput();
  projections->DisconnectPipeline();
  return projections;
}

/** Rows [first, first + count) of problem p's projections, as an image whose largest possible region
 * is the whole stack. S and R: the exact line integrals of the Shepp-Logan head. L: of a phantom
 * symmetric about the rotation axis (ellipsoids centred on it, equal x and z semi-axes), whose
 * projections are all alike: one is computed and copied, since the line integrals of 1200 x 2048^2
 * rays take minutes. */
template <typename TImage>
typename TImage::Pointer
MakeProjections(const Problem & p, const ThreeDCircularProjectionGeometry * geometry, itk::IndexValueType first,
                itk::SizeValueType count)
{
  const bool symmetric = p.name == "L";
  auto phantom = GeometricPhantom::New();
  const double scale = 0.45 * p.volume * p.voxelMm;
  if (symmetric)
  {
    auto add = [&](double density, double cy, double radius, double height) {
      GeometricPhantom::Ellipsoid e;
      e.density = density;
      e.center = { { 0., cy * scale, 0. } };
      e.semiAxes = { { radius * scale, height * scale, radius * scale } };
      phantom->AddEllipsoid(e);
    };
    add(1., 0., 0.9, 0.95);
    add(-0.6, 0., 0.8, 0.85);
    add(0.3, 0.4, 0.2, 0.2);
    add(-0.1, -0.3, 0.1, 0.3);
  }
  else
    phantom->SetToSheppLogan(scale);
  auto one = ThreeDCircularProjectionGeometry::New();
  one->AddProjection(geometry->GetMatrix(0));
  auto source = PhantomProjectionSource<TImage>::New();
  typename TImage::SizeType size{ { p.columns, p.rows, symmetric ? 1u : p.projections } };
  const auto spacing = DetectorSpacing<TImage>(p);
  const auto origin = DetectorOrigin<TImage>(p);
  source->SetSize(size);
  source->SetSpacing(spacing);
  source->SetOrigin(origin);
  source->SetGeometry(symmetric ? one.GetPointer() : geometry);
  source->SetPhantom(phantom);
  source->UpdateOutputInformation();
  auto band = source->GetOutput()->GetLargestPossibleRegion();
  band.SetIndex(1, first);
  band.SetSize(1, count);
  source->GetOutput()->SetRequestedRegion(band);
  source->Update();
  typename TImage::Pointer computed = source->GetOutput();
  computed->DisconnectPipeline();
  if (!symmetric)
    return computed;
  // Every projection of L is the first one.
  typename TImage::Pointer stack = TImage::New();
  typename TImage::RegionType whole(size);
  whole.SetSize(2, p.projections);
  auto rows = whole;
  rows.SetIndex(1, first);
  rows.SetSize(1, count);
  stack->SetLargestPossibleRegion(whole);
  stack->SetBufferedRegion(rows);
  stack->SetRequestedRegion(rows);
  stack->SetSpacing(spacing);
  stack->SetOrigin(origin);
  stack->Allocate();
  const std::size_t slice = static_cast<std::size_t>(p.columns) * count;
  itk::MultiThreaderBase::New()->ParallelizeArray(
    0, p.projections,
    [&](itk::SizeValueType k) {
      std::copy_n(computed->GetBufferPointer(), slice, stack->GetBufferPointer() + k * slice);
    },
    nullptr);
  return stack;
}

/** The 4D problem of --method fourd and fourdrooster: S's volume and detector, 1440 projections over
 * one turn during 10 regular breathing cycles (phase of projection k: frac(10 k / 1440)), reconstructed
 * as 10 frames. The projections are S's line integrals, each used for 4 neighbouring views (the time
 * does not depend on the values; 1440 exact projections of 512^2 take minutes to make). */
struct FourDProblem
{
  static constexpr unsigned int count = 1440, frames = 10;
  static constexpr double cycles = 10.;
  Problem s = Lookup("S");
  ThreeDCircularProjectionGeometry::Pointer geometry = CircularGeometry(count);
  std::vector<double> phases;

  FourDProblem()
    : phases(count)
  {
    for (unsigned int k = 0; k < count; ++k)
    {
      const double x = cycles * k / count;
      phases[k] = x - std::floor(x);
    }
  }

  /** The 1440 projections, in an image of type TImage. */
  template <typename TImage>
  typename TImage::Pointer
  Projections() const
  {
    auto sProjections = MakeProjections<itk::Image<float, 3>>(s, CircularGeometry(s.projections), 0, s.rows);
    auto projections = TImage::New();
    projections->SetRegions(typename TImage::RegionType(typename TImage::SizeType{ { s.columns, s.rows, count } }));
    projections->SetSpacing(sProjections->GetSpacing());
    projections->SetOrigin(sProjections->GetOrigin());
    projections->Allocate();
    const std::size_t slice = static_cast<std::size_t>(s.columns) * s.rows;
    for (unsigned int k = 0; k < count; ++k)
      std::copy_n(sProjections->GetBufferPointer() + (k * s.projections / count) * slice, slice,
                  projections->GetBufferPointer() + k * slice);
    return projections;
  }
};

// The methods, one file each (--method).

/** --method fdk (cbctBenchFDK.cxx): FDK of problem p on `hardware` (cpu or cuda), the runs' JSON lines
 * and their medians; `counts`: from 16-bit readings (--input uint16). */
void
RunFDK(const Problem & p, const std::string & hardware, const std::string & device, unsigned int runs, const Setup & setup,
       bool counts);

/** --method iterative (cbctBenchIterative.cxx, CUDA builds only): the projectors and one OS-SART
 * iteration of problem p on the GPU. */
void
RunIterative(const Problem & p, const std::string & device, unsigned int runs);

/** --method tv (cbctBenchTotalVariation.cxx, CUDA builds only): one ASD-POCS and one ADMM-TV
 * iteration of problem p on the GPU. */
void
RunTotalVariation(const Problem & p, const std::string & device, unsigned int runs);

/** --method emission (cbctBenchEmission.cxx): problem E (SPECT) on `hardware` (cpu or cuda). */
void
RunEmission(const std::string & hardware, const std::string & device, unsigned int runs);

/** --method fourd (cbctBenchFourDFDK.cxx): 4D FDK on `hardware` (cpu or cuda); `pieces` and
 * `concurrent` (0: the filter's defaults) apply to CUDA only. */
void
RunFourD(const std::string & hardware, const std::string & device, unsigned int runs, unsigned int pieces,
         unsigned int concurrent);

/** --method fourdrooster (cbctBenchFourDROOSTER.cxx): one 4D ROOSTER iteration on `hardware` (cpu or
 * cuda). */
void
RunFourDROOSTER(const std::string & hardware, const std::string & device, unsigned int runs);

/** --method rings (cbctBenchRings.cxx): both ring-removal filters on S's striped projections
 * (`projections` of them) on `hardware` (cpu or cuda). */
void
RunRings(const std::string & hardware, const std::string & device, unsigned int projections, unsigned int runs);

/** --method helical (cbctBenchHelical.cxx): helical FDK of problem H (4000 projections of 736 x 64 on a CT
 * scanner's cylindrical detector, 512 x 1024 x 512 voxels) at pitch factor `pitch` on `hardware`. */
void
RunHelical(const std::string & hardware, const std::string & device, unsigned int runs, double pitch);

/** --method calibrate (cbctBenchCalibrate.cxx): the geometry calibration (offset and roll) of S's
 * miscalibrated scan (`projections` views), the slices' FDK on `hardware` (cpu or cuda), timed `runs`
 * times after a warm-up. */
void
RunCalibrate(const std::string & hardware, const std::string & device, unsigned int projections, unsigned int runs);

} // namespace cbct::bench

#endif
