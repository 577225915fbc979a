// conebeamct._conebeamct: the compiled half of the Python package conebeamct (pybind11).
//
// Images cross as C-contiguous float32 numpy arrays in (z, y, x) order with spacing and origin in
// (x, y, z) order, as ITK's Python functions do. The pure-Python modules of conebeamct check and
// convert what users pass (dtype, contiguity, number of dimensions) and wraps the results in small
// classes; the functions here check again and never guess.
//
// No copies where the memory allows: an input array is imported into an itk::Image without copying
// (the filters do not write to their inputs), and an output itk::Image is handed to numpy without
// copying (a capsule owns it). The GIL is released while ITK works; a progress callback is called with
// the GIL held again.
#include "cbctADMMTotalVariationConeBeamReconstructionFilter.h"
#include "cbctADMMTotalVariationWeights.h"
#include "cbctFDKWarmStart.h"
#include "cbctASDPOCSConeBeamReconstructionFilter.h"
#include "cbctAtomicOutput.h"
#include "cbctCanonicalGrid.h"
#include "cbctConfiguration.h"
#include "cbctPythonBindings.h"
#include "cbctPythonFDK.h"
#include "cbctPythonFDKMemory.h"
#include "cbctPythonSupport.h"
#include "cbctConstantImageSource.h"
#include "cbctCudaDevice.h"
#include "cbctEmissionForwardProjectionImageFilter.h"
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctOSEMConeBeamReconstructionFilter.h"
#include "cbctPoissonNoiseImageFilter.h"
#include "cbctBeadPhantom.h"
#include "cbctGeometricPhantom.h"
#include "cbctHelicalOrbit.h"
#include "cbctImageFileContents.h"
#include "cbctPhantomProjectionSource.h"
#include "cbctPhantomVolumeSource.h"
#include "cbctProjectionPreprocessingFilter.h"
#include "cbctRampFilterResponse.h"
#include "cbctThreeDCircularProjectionGeometry.h"
#include "cbctThreeDCircularProjectionGeometryXMLFileReader.h"
#include "cbctThreeDCircularProjectionGeometryXMLFileWriter.h"

#include <itkCommand.h>
#include <itkImage.h>
#include <itkImageFileReader.h>
#include <itkImageFileWriter.h>
#include <itkImageRegionSplitterDirection.h>
#include <itkMultiThreaderBase.h>
#include <itkStreamingImageFilter.h>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>

#if CBCT_USE_CUDA
#  define CBCT_PY_WITH_CUDA 1
#  include "cbctCudaADMMTotalVariationConeBeamReconstructionFilter.h"
#  include "cbctCudaASDPOCSConeBeamReconstructionFilter.h"
#  include "cbctCudaEmissionForwardProjectionImageFilter.h"
#  include "cbctCudaFDKConeBeamReconstructionFilter.h"
#  include "cbctCudaImage.h"
#  include "cbctCudaOSEMConeBeamReconstructionFilter.h"
#else
#  define CBCT_PY_WITH_CUDA 0
#endif

namespace py = pybind11;

namespace
{
// Images between numpy and ITK, checks and RunWithProgress: shared with the other source files.
using namespace cbct::python;
using Geometry = cbct::ThreeDCircularProjectionGeometry;

constexpr double kPi = 3.14159265358979323846;
constexpr double kDegree = kPi / 180.;

/** The Python object `Geometry`: a handle on the C++ geometry. */
struct GeometryHandle
{
  Geometry::Pointer geometry = Geometry::New();

  unsigned int
  Index(long long k) const
  {
    const long long n = geometry->GetNumberOfProjections();
    if (k < -n || k >= n)
      throw py::index_error("projection index " + std::to_string(k) + " out of range for a geometry of " +
                            std::to_string(n) + " projections");
    return static_cast<unsigned int>(k < 0 ? k + n : k);
  }
};

cbct::GeometricPhantom::Pointer
MakePhantom(const std::string & phantom, double scale)
{
  auto result = cbct::GeometricPhantom::New();
  std::string name = phantom;
  for (char & c : name)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (name == "shepplogan" || name == "shepp-logan" || name == "shepp_logan")
  {
    if (!std::isfinite(scale) || !(scale > 0.))
      throw py::value_error("scale is " + py::repr(py::float_(scale)).cast<std::string>() +
                            "; expected the phantom's scale in mm, > 0");
    result->SetToSheppLogan(scale);
  }
  else if (name == "beads")
  {
    const auto beads = cbct::BeadPhantom::New(); // the helix bead phantom (cbctBeadPhantom.h), in mm
    for (const auto & solid : beads->GetPhantom()->GetEllipsoids())
      result->AddEllipsoid(solid);
  }
  else
    result->ReadFromFile(phantom);
  return result;
}

py::array_t<float>
ProjectPhantom(const GeometryHandle & geometry,
               const std::array<unsigned long, 2> & size,
               const std::array<double, 2> & spacing,
               const std::array<double, 2> & origin,
               const std::string & phantomName,
               double scale,
               const py::object & progress)
{
  auto phantom = MakePhantom(phantomName, scale);
  const unsigned int count = geometry.geometry->GetNumberOfProjections();
  if (count == 0)
    throw py::value_error("geometry has no projections");
  auto source = cbct::PhantomProjectionSource<ImageType>::New();
  ImageType::SizeType imageSize{ { size[0], size[1], count } };
  ImageType::SpacingType imageSpacing;
  ImageType::PointType imageOrigin;
  imageSpacing[0] = spacing[0];
  imageSpacing[1] = spacing[1];
  imageSpacing[2] = 1.;
  imageOrigin[0] = origin[0];
  imageOrigin[1] = origin[1];
  imageOrigin[2] = 0.;
  source->SetSize(imageSize);
  source->SetSpacing(imageSpacing);
  source->SetOrigin(imageOrigin);
  source->SetGeometry(geometry.geometry);
  source->SetPhantom(phantom);
  RunWithProgress(source, [&] { source->Update(); }, progress);
  ImageType::Pointer output = source->GetOutput();
  output->DisconnectPipeline();
  return ToNumpy<ImageType>(output);
}

py::array_t<float>
VoxelizePhantom(const std::array<unsigned long, 3> & size,
                const Triple & spacing,
                const Triple & origin,
                const std::string & phantomName,
                double scale,
                unsigned int supersampling,
                const py::object & progress)
{
  auto phantom = MakePhantom(phantomName, scale);
  auto source = cbct::PhantomVolumeSource<ImageType>::New();
  ImageType::SizeType imageSize{ { size[0], size[1], size[2] } };
  ImageType::SpacingType imageSpacing;
  ImageType::PointType imageOrigin;
  for (unsigned int d = 0; d < 3; ++d)
  {
    imageSpacing[d] = spacing[d];
    imageOrigin[d] = origin[d];
  }
  source->SetSize(imageSize);
  source->SetSpacing(imageSpacing);
  source->SetOrigin(imageOrigin);
  source->SetPhantom(phantom);
  source->SetSupersampling(supersampling);
  RunWithProgress(source, [&] { source->Update(); }, progress);
  ImageType::Pointer output = source->GetOutput();
  output->DisconnectPipeline();
  return ToNumpy<ImageType>(output);
}

struct FdkOptions : FdkFilterOptions // the grid and filter settings, shared with _fourd_fdk
{
  unsigned int divisions = 1;
  std::uint64_t memory = 0; // the host memory budget in bytes (cbctPythonFDKMemory.h); 0: none
  std::string memoryText;   // the budget as the caller wrote it, for messages
};

/** The pipeline of cbct-fdk for one image type and FDK filter: a grid of zeros, FDK, streamed in
 * slabs along y (`divisions` of them, or those of the memory plan within o.memory). Returns the volume
 * and the stage times (and the plan). */
template <class TImage, class TFDK>
py::tuple
Reconstruct(const FloatArray & projectionsArray,
            const Triple & projectionSpacing,
            const Triple & projectionOrigin,
            const GeometryHandle & geometry,
            const FdkOptions & o,
            const std::string & hardware,
            const py::object & progress)
{
  typename TImage::Pointer projections = FromNumpy<TImage>(projectionsArray, projectionSpacing, projectionOrigin);

  auto grid = FdkGrid<TImage>(o);

  auto fdk = TFDK::New();
  fdk->SetInput(0, grid->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry.geometry);
  ApplyFdkFilterOptions(fdk.GetPointer(), o);
  {
    py::gil_scoped_release release;
    fdk->UpdateOutputInformation(); // checks the geometry against the projections before the work
  }

  if (o.memory > 0)
  {
    py::dict info;
    info["hardware"] = hardware;
    const auto start = std::chrono::steady_clock::now();
    py::array_t<float> volume =
      ReconstructWithinMemory<TImage>(fdk.GetPointer(), grid.GetPointer(), o.memory, o.memoryText, info, progress);
    AddStageTimes(info, fdk.GetPointer());
    info["total_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return py::make_tuple(volume, info);
  }

  auto streamer = itk::StreamingImageFilter<TImage, TImage>::New();
  streamer->SetInput(fdk->GetOutput());
  streamer->SetNumberOfStreamDivisions(o.divisions);
  auto splitter = itk::ImageRegionSplitterDirection::New();
  splitter->SetDirection(2); // never split along z: slabs along y, the rotation axis
  streamer->SetRegionSplitter(splitter);
  const unsigned int slabs = splitter->GetNumberOfSplits(fdk->GetOutput()->GetLargestPossibleRegion(), o.divisions);

  const auto start = std::chrono::steady_clock::now();
  RunWithProgress(fdk, [&] { streamer->Update(); }, progress, slabs);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  typename TImage::Pointer volume = streamer->GetOutput();
  volume->DisconnectPipeline();
  py::dict info;
  info["hardware"] = hardware;
  info["slabs"] = slabs;
  AddStageTimes(info, fdk.GetPointer());
  info["total_s"] = seconds;
  return py::make_tuple(ToNumpy<TImage>(volume), info);
}

py::tuple
Fdk(const FloatArray & projections,
    const Triple & projectionSpacing,
    const Triple & projectionOrigin,
    const GeometryHandle & geometry,
    const std::array<unsigned long, 3> & size,
    const Triple & spacing,
    const Triple & origin,
    const std::string & window,
    double cutOff,
    bool displaced,
    const std::string & hardware,
    unsigned int divisions,
    double pad,
    double hannY,
    const std::string & fov,
    std::uint64_t memory,
    const std::string & memoryText,
    const py::object & progress)
{
  CheckDimensions(projections, "projections", 3, "3 dimensions (projection, v, u)");
  FdkOptions o;
  o.memory = memory;
  o.memoryText = memoryText;
  if (memory > 0 && divisions != 1)
    throw py::value_error("divisions is " + std::to_string(divisions) + " with memory " + memoryText +
                          "; expected 1 (the default): the memory plan chooses the slabs");
  o.fieldOfView = CheckedFieldOfView(fov);
  o.size = size;
  o.spacing = spacing;
  o.origin = origin;
  o.window = cbct::ParseRampWindow(window);
  o.cutOff = CheckedCutOff(cutOff);
  o.displaced = displaced;
  if (divisions < 1)
    throw py::value_error("divisions is 0; expected an integer >= 1");
  o.divisions = divisions;
  if (!std::isfinite(pad) || pad < 0.)
    throw py::value_error("pad is " + py::repr(py::float_(pad)).cast<std::string>() +
                          "; expected a fraction of the detector width >= 0 (0: no truncation correction)");
  if (!(hannY >= 0. && hannY <= 1.))
    throw py::value_error("hann_y is " + py::repr(py::float_(hannY)).cast<std::string>() +
                          "; expected a cut-off in (0, 1] as a fraction of Nyquist, or 0 for none");
  o.pad = pad;
  o.hannY = hannY;
#if CBCT_PY_WITH_CUDA
  const std::string used = ChooseHardware(hardware, true);
  if (used != "cpu")
  {
    using CudaImageType = cbct::CudaImage<float, 3>;
    return Reconstruct<CudaImageType, cbct::CudaFDKConeBeamReconstructionFilter<CudaImageType>>(
      projections, projectionSpacing, projectionOrigin, geometry, o, used, progress);
  }
#else
  ChooseHardware(hardware, true);
#endif
  return Reconstruct<ImageType, cbct::FDKConeBeamReconstructionFilter<ImageType>>(
    projections, projectionSpacing, projectionOrigin, geometry, o, "cpu", progress);
}

/** cbct::ProjectionPreprocessingFilter on a (projection, v, u) array: returns the array, its spacing
 * and origin (cropping and binning change them) and what was measured. */
py::tuple
Preprocess(const FloatArray & projections,
           const Triple & spacing,
           const Triple & origin,
           bool intensities,
           double i0,
           double dark,
           double airThreshold,
           double minimumSignal,
           const std::array<unsigned int, 2> & lowerCrop,
           const std::array<unsigned int, 2> & upperCrop,
           const std::array<unsigned int, 2> & binning,
           const std::array<unsigned int, 3> & medianRadius,
           double medianMultiplier,
           const std::vector<double> & waterPrecorrection,
           double scatterToPrimaryRatio,
           double nonNegativityThreshold,
           const std::string & rings,
           unsigned int ringsSize,
           double ringsSnr,
           unsigned int ringsRows,
           unsigned int ringsLevel,
           const std::string & ringsWavelet,
           double ringsSigma,
           bool ringsPad,
           const py::object & progress)
{
  CheckDimensions(projections, "projections", 3, "3 dimensions (projection, v, u)");
  cbct::ProjectionPreprocessing settings;
  settings.intensities = intensities;
  settings.i0 = i0;
  settings.dark = dark;
  settings.airThreshold = airThreshold;
  settings.minimumSignal = minimumSignal;
  settings.lowerCrop = lowerCrop;
  settings.upperCrop = upperCrop;
  settings.binning = binning;
  settings.medianRadius = medianRadius;
  settings.medianMultiplier = medianMultiplier;
  settings.waterPrecorrection = waterPrecorrection;
  settings.scatterToPrimaryRatio = scatterToPrimaryRatio;
  settings.nonNegativityThreshold = nonNegativityThreshold;
  settings.rings = rings;
  settings.ringsSize = ringsSize;
  settings.ringsSnr = ringsSnr;
  settings.ringsRows = ringsRows;
  settings.ringsLevel = ringsLevel;
  settings.ringsWavelet = ringsWavelet;
  settings.ringsSigma = ringsSigma;
  settings.ringsPad = ringsPad;
  ImageType::Pointer input = FromNumpy<ImageType>(projections, spacing, origin);
  auto filter = cbct::ProjectionPreprocessingFilter<ImageType>::New();
  filter->SetInput(input);
  filter->SetParameters(settings);
  RunWithProgress(filter, [&] { filter->Update(); }, progress);
  ImageType::Pointer output = filter->GetOutput();
  output->DisconnectPipeline();
  py::dict info;
  info["steps"] = settings.Describe();
  if (intensities)
  {
    const auto & all = filter->GetLineIntegralFilter()->GetI0s();
    info["i0"] = py::array_t<double>(static_cast<py::ssize_t>(all.size()), all.data());
  }
  if (settings.rings == "sorting")
    info["rings_size"] = filter->GetSortingRingFilter()->GetSizeUsed();
  if (settings.rings == "wavelet")
    info["rings_level"] = filter->GetWaveletRingFilter()->GetLevelUsed();
  if (settings.CorrectsScatter())
  {
    const auto & all = filter->GetScatterFilter()->GetScatter();
    info["scatter"] = py::array_t<double>(static_cast<py::ssize_t>(all.size()), all.data());
  }
  const Triple outSpacing{ { output->GetSpacing()[0], output->GetSpacing()[1], output->GetSpacing()[2] } };
  const Triple outOrigin{ { output->GetOrigin()[0], output->GetOrigin()[1], output->GetOrigin()[2] } };
  return py::make_tuple(ToNumpy<ImageType>(output), outSpacing, outOrigin, info);
}

/** Whether `hardware` ('cpu' or 'cuda') asks for CUDA (ChooseHardware's checks). */
bool
UseCuda(const std::string & hardware)
{
  return ChooseHardware(hardware, false) != "cpu";
}

/** The collimator blur (sigma0, slope), both finite and >= 0. */
cbct::CollimatorBlur
Psf(const std::array<double, 2> & psf)
{
  cbct::CollimatorBlur blur;
  blur.sigma0 = psf[0];
  blur.slope = psf[1];
  if (!std::isfinite(psf[0]) || !std::isfinite(psf[1]) || psf[0] < 0. || psf[1] < 0.)
    throw py::value_error("psf is (" + py::repr(py::float_(psf[0])).cast<std::string>() + ", " +
                          py::repr(py::float_(psf[1])).cast<std::string>() +
                          "); expected (sigma0, slope): sigma at the detector (mm) and its growth per mm of distance, both >= 0");
  return blur;
}

/** The attenuation map of an optional (array, spacing, origin), or null. */
ImageType::Pointer
AttenuationMap(const py::object & mu, const Triple & spacing, const Triple & origin)
{
  if (mu.is_none())
    return nullptr;
  const FloatArray array = mu.cast<FloatArray>();
  CheckDimensions(array, "attenuation", 3, "3 dimensions (z, y, x)");
  return FromNumpy<ImageType>(array, spacing, origin);
}

/** cbct-forward --fp emission: the attenuated, collimator-blurred projections of an activity volume. */
py::array_t<float>
EmissionProject(const FloatArray & activityArray, const Triple & activitySpacing, const Triple & activityOrigin,
                const GeometryHandle & geometry, const std::array<unsigned long, 2> & size, const std::array<double, 2> & spacing,
                const std::array<double, 2> & origin, const py::object & mu, const Triple & muSpacing, const Triple & muOrigin,
                const std::array<double, 2> & psf, const std::string & hardware, const py::object & progress)
{
  CheckDimensions(activityArray, "activity", 3, "3 dimensions (z, y, x)");
  const unsigned int count = geometry.geometry->GetNumberOfProjections();
  if (count == 0)
    throw py::value_error("geometry has no projections");
  auto activity = FromNumpy<ImageType>(activityArray, activitySpacing, activityOrigin);
  auto attenuation = AttenuationMap(mu, muSpacing, muOrigin);
  auto detector = cbct::ConstantImageSource<ImageType>::New();
  ImageType::SpacingType detectorSpacing;
  ImageType::PointType detectorOrigin;
  detectorSpacing[0] = spacing[0];
  detectorSpacing[1] = spacing[1];
  detectorSpacing[2] = 1.;
  detectorOrigin[0] = origin[0];
  detectorOrigin[1] = origin[1];
  detectorOrigin[2] = 0.;
  detector->SetSize(ImageType::SizeType{ { size[0], size[1], count } });
  detector->SetSpacing(detectorSpacing);
  detector->SetOrigin(detectorOrigin);
  // The CUDA twin derives from ForwardProjectionImageFilter (with the emission projector chosen).
  cbct::ForwardProjectionImageFilter<ImageType>::Pointer forward;
#if CBCT_PY_WITH_CUDA
  if (UseCuda(hardware))
    forward = cbct::CudaEmissionForwardProjectionImageFilter<ImageType>::New().GetPointer();
  else
#else
  UseCuda(hardware);
#endif
    forward = cbct::EmissionForwardProjectionImageFilter<ImageType>::New();
  forward->SetInput(0, detector->GetOutput());
  forward->SetVolume(activity);
  forward->SetAttenuationMap(attenuation);
  forward->SetCollimatorBlur(Psf(psf));
  forward->SetGeometry(geometry.geometry);
  RunWithProgress(forward, [&] { forward->Update(); }, progress);
  ImageType::Pointer output = forward->GetOutput();
  output->DisconnectPipeline();
  return ToNumpy<ImageType>(output);
}

/** Poisson counts around expected counts (cbct-simulate --poisson). */
py::array_t<float>
PoissonNoise(const FloatArray & array, std::uint64_t seed)
{
  CheckDimensions(array, "projections", 3, "3 dimensions (projection, v, u)");
  auto input = FromNumpy<ImageType>(array, Triple{ { 1., 1., 1. } }, Triple{ { 0., 0., 0. } });
  auto noise = cbct::PoissonNoiseImageFilter<ImageType>::New();
  noise->SetInput(input);
  noise->SetSeed(seed);
  {
    py::gil_scoped_release release;
    noise->Update();
  }
  ImageType::Pointer output = noise->GetOutput();
  output->DisconnectPipeline();
  return ToNumpy<ImageType>(output);
}

/** cbct-osem: OSEM/MLEM with the chosen projector (the emission one with an attenuation map or a blur). */
py::array_t<float>
Osem(const FloatArray & projectionsArray, const Triple & projectionSpacing, const Triple & projectionOrigin,
     const GeometryHandle & geometry, const std::array<unsigned long, 3> & size, const Triple & spacing, const Triple & origin,
     unsigned int iterations, unsigned int perSubset, const std::string & projector, const py::object & mu,
     const Triple & muSpacing, const Triple & muOrigin, const std::array<double, 2> & psf, const std::string & hardware,
     const py::object & progress)
{
  CheckDimensions(projectionsArray, "projections", 3, "3 dimensions (projection, v, u)");
  cbct::ForwardProjectorKind kind = cbct::ForwardProjectorKind::Joseph;
  if (projector == "raycast")
    kind = cbct::ForwardProjectorKind::RayCast;
  else if (projector == "emission")
    kind = cbct::ForwardProjectorKind::Emission;
  else if (projector != "joseph")
    throw py::value_error("projector is '" + projector + "'; expected 'joseph', 'raycast' or 'emission'");
  auto projections = FromNumpy<ImageType>(projectionsArray, projectionSpacing, projectionOrigin);
  auto attenuation = AttenuationMap(mu, muSpacing, muOrigin);
  auto grid = cbct::ConstantImageSource<ImageType>::New();
  ImageType::SpacingType gridSpacing;
  ImageType::PointType gridOrigin;
  for (unsigned int d = 0; d < 3; ++d)
  {
    gridSpacing[d] = spacing[d];
    gridOrigin[d] = origin[d];
  }
  grid->SetSize(ImageType::SizeType{ { size[0], size[1], size[2] } });
  grid->SetSpacing(gridSpacing);
  grid->SetOrigin(gridOrigin);
  grid->SetConstant(0.f); // starts from 1
  cbct::OSEMConeBeamReconstructionFilter<ImageType>::Pointer osem;
#if CBCT_PY_WITH_CUDA
  if (UseCuda(hardware))
    osem = cbct::CudaOSEMConeBeamReconstructionFilter<ImageType>::New().GetPointer();
  else
#else
  UseCuda(hardware);
#endif
    osem = cbct::OSEMConeBeamReconstructionFilter<ImageType>::New();
  osem->SetInput(0, grid->GetOutput());
  osem->SetProjections(projections);
  osem->SetGeometry(geometry.geometry);
  osem->SetForwardProjector(kind);
  osem->SetAttenuationMap(attenuation);
  osem->SetCollimatorBlur(Psf(psf));
  osem->SetNumberOfIterations(iterations);
  osem->SetNumberOfProjectionsPerSubset(perSubset);
  RunWithProgress(osem, [&] { osem->Update(); }, progress);
  ImageType::Pointer output = osem->GetOutput();
  output->DisconnectPipeline();
  return ToNumpy<ImageType>(output);
}

/** The grid of an iterative reconstruction: the initial volume's (an array with spacing and origin), or
 * a volume of zeros of `size`, `spacing`, `origin` when no initial volume is given. */
struct IterativeGrid
{
  py::object initial = py::none(); // or a float32 (z, y, x) array
  Triple initialSpacing{ { 1., 1., 1. } };
  Triple initialOrigin{ { 0., 0., 0. } };
  std::array<unsigned long, 3> size{ { 1, 1, 1 } }; // x, y, z
  Triple spacing{ { 1., 1., 1. } };
  Triple origin{ { 0., 0., 0. } };
};

ImageType::Pointer
InitialVolume(const IterativeGrid & grid)
{
  if (!grid.initial.is_none())
  {
    const FloatArray array = grid.initial.cast<FloatArray>();
    CheckDimensions(array, "initial", 3, "3 dimensions (z, y, x)");
    return FromNumpy<ImageType>(array, grid.initialSpacing, grid.initialOrigin);
  }
  auto source = cbct::ConstantImageSource<ImageType>::New();
  ImageType::SizeType size;
  ImageType::SpacingType spacing;
  ImageType::PointType origin;
  for (unsigned int d = 0; d < 3; ++d)
  {
    size[d] = grid.size[d];
    spacing[d] = grid.spacing[d];
    origin[d] = grid.origin[d];
  }
  source->SetSize(size);
  source->SetSpacing(spacing);
  source->SetOrigin(origin);
  source->SetConstant(0.f);
  source->Update();
  return source->GetOutput();
}

/** Runs an iterative filter (its method's parameters set) on the projections from the grid's volume,
 * without the GIL; returns the volume and {hardware, iterations, total_s}. */
py::tuple
RunIterative(cbct::IterativeReconstructionFilter<ImageType> * filter, const FloatArray & projectionsArray,
             const Triple & projectionSpacing, const Triple & projectionOrigin, const GeometryHandle & geometry,
             const IterativeGrid & grid, unsigned int iterations, const std::string & hardware, const py::object & progress)
{
  CheckDimensions(projectionsArray, "projections", 3, "3 dimensions (projection, v, u)");
  if (iterations < 1)
    throw py::value_error("niterations is 0; expected an integer >= 1");
  ImageType::Pointer projections = FromNumpy<ImageType>(projectionsArray, projectionSpacing, projectionOrigin);
  ImageType::Pointer initial = InitialVolume(grid);
  filter->SetInput(0, initial);
  filter->SetProjections(projections);
  filter->SetGeometry(geometry.geometry);
  filter->SetNumberOfIterations(iterations);
  {
    py::gil_scoped_release release;
    filter->UpdateOutputInformation(); // checks the geometry against the projections before the work
  }
  const auto start = std::chrono::steady_clock::now();
  RunWithProgress(filter, [&] { filter->Update(); }, progress);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ImageType::Pointer volume = filter->GetOutput();
  volume->DisconnectPipeline();
  py::dict info;
  info["hardware"] = hardware;
  info["iterations"] = filter->GetCurrentIteration();
  info["total_s"] = seconds;
  return py::make_tuple(ToNumpy<ImageType>(volume), info);
}

/** A new TCpu filter, or its CUDA twin TCuda when `hardware` names a CUDA device. */
template <typename TCpu, typename TCuda>
typename TCpu::Pointer
NewIterative(const std::string & hardware)
{
#if CBCT_PY_WITH_CUDA
  if (hardware != "cpu")
    return TCuda::New().GetPointer();
#endif
  (void)hardware;
  return TCpu::New().GetPointer();
}

py::tuple
AsdPocs(const FloatArray & projections, const Triple & projectionSpacing, const Triple & projectionOrigin,
        const GeometryHandle & geometry, const IterativeGrid & grid, unsigned int iterations, double lambda,
        double lambdaReduction, unsigned int projectionsPerSubset, bool positivity, double alpha, double alphaReduction,
        double ratio, unsigned int tvIterations, double maxL2Error, double epsilon, const std::string & hardware,
        const py::object & progress)
{
  using Cpu = cbct::ASDPOCSConeBeamReconstructionFilter<ImageType>;
#if CBCT_PY_WITH_CUDA
  using Cuda = cbct::CudaASDPOCSConeBeamReconstructionFilter<ImageType>;
#else
  using Cuda = Cpu;
#endif
  const std::string used = ChooseHardware(hardware, true);
  auto filter = NewIterative<Cpu, Cuda>(used);
  filter->SetLambda(lambda);
  filter->SetLambdaReduction(lambdaReduction);
  filter->SetNumberOfProjectionsPerSubset(projectionsPerSubset);
  filter->SetEnforcePositivity(positivity);
  filter->SetAlpha(alpha);
  filter->SetAlphaReduction(alphaReduction);
  filter->SetRatioMax(ratio);
  filter->SetNumberOfTVIterations(tvIterations);
  filter->SetDataTolerance(maxL2Error);
  filter->SetEpsilon(epsilon);
  py::tuple result = RunIterative(filter, projections, projectionSpacing, projectionOrigin, geometry, grid, iterations, used, progress);
  py::dict info = result[1];
  info["tv_steps"] = filter->GetTVStepSizes();
  return result;
}

py::tuple
AdmmTv(const FloatArray & projections, const Triple & projectionSpacing, const Triple & projectionOrigin,
       const GeometryHandle & geometry, IterativeGrid grid, unsigned int iterations, double alpha, double beta,
       unsigned int cgIterations, bool positivity, const std::string & init, const std::string & hardware,
       const py::object & progress)
{
  using Cpu = cbct::ADMMTotalVariationConeBeamReconstructionFilter<ImageType>;
#if CBCT_PY_WITH_CUDA
  using Cuda = cbct::CudaADMMTotalVariationConeBeamReconstructionFilter<ImageType>;
#else
  using Cuda = Cpu;
#endif
  const std::string used = ChooseHardware(hardware, true);
  auto filter = NewIterative<Cpu, Cuda>(used);
  // alpha or beta NaN: chosen from the problem's scales, as cbct-admmtv does without --alpha/--beta.
  if (std::isnan(alpha) || std::isnan(beta))
  {
    CheckDimensions(projections, "projections", 3, "3 dimensions (projection, v, u)");
    const ImageType::Pointer initial = InitialVolume(grid);
    const auto size = initial->GetLargestPossibleRegion().GetSize();
    const unsigned long volumeSize[3] = { size[0], size[1], size[2] };
    const double volumeSpacing[3] = { initial->GetSpacing()[0], initial->GetSpacing()[1], initial->GetSpacing()[2] };
    const auto weights = cbct::ADMMTotalVariationWeights::Automatic(geometry.geometry, projectionSpacing[0],
                                                                    projectionSpacing[1], projections.data(),
                                                                    static_cast<std::size_t>(projections.size()),
                                                                    volumeSize, volumeSpacing);
    if (std::isnan(beta))
      beta = weights.beta;
    if (std::isnan(alpha))
      alpha = weights.alpha / weights.beta * beta;
  }
  filter->SetAlpha(alpha);
  filter->SetBeta(beta);
  filter->SetNumberOfCGIterations(cgIterations);
  filter->SetEnforcePositivity(positivity);
  // init "fdk" without an initial volume: FDK of the projections on the grid, negatives set to 0, as
  // cbct-admmtv --init fdk does on the CPU (the same bits); zero where FDK cannot reconstruct the scan.
  std::string started = grid.initial.is_none() ? "zero" : "initial";
  if (init == "fdk" && grid.initial.is_none())
  {
    CheckDimensions(projections, "projections", 3, "3 dimensions (projection, v, u)");
    const ImageType::Pointer zero = InitialVolume(grid);
    const ImageType::Pointer stack = FromNumpy<ImageType>(projections, projectionSpacing, projectionOrigin);
    ImageType::Pointer warm;
    {
      py::gil_scoped_release release;
      try
      {
        warm = cbct::FDKWarmStart<cbct::FDKConeBeamReconstructionFilter<ImageType>>(stack.GetPointer(), geometry.geometry,
                                                                                    zero.GetPointer());
      }
      catch (const itk::ExceptionObject &)
      {
        warm = nullptr; // a geometry FDK cannot reconstruct: from zero
      }
    }
    if (warm)
    {
      grid.initial = ToNumpy<ImageType>(warm);
      grid.initialSpacing = { warm->GetSpacing()[0], warm->GetSpacing()[1], warm->GetSpacing()[2] };
      grid.initialOrigin = { warm->GetOrigin()[0], warm->GetOrigin()[1], warm->GetOrigin()[2] };
      started = "fdk";
    }
  }
  py::tuple result = RunIterative(filter, projections, projectionSpacing, projectionOrigin, geometry, grid, iterations, used, progress);
  py::dict info = result[1];
  info["alpha"] = alpha;
  info["beta"] = beta;
  info["positivity"] = positivity;
  info["init"] = started;
  return result;
}

bool
HasCuda()
{
  return CBCT_PY_WITH_CUDA != 0;
}

py::dict
ParametersDict(const Geometry::Parameters & p)
{
  py::dict d;
  d["sid"] = p.sourceToIsocenterDistance;
  d["sdd"] = p.sourceToDetectorDistance;
  d["angle"] = p.gantryAngle / kDegree;
  d["proj_offset_x"] = p.projectionOffsetX;
  d["proj_offset_y"] = p.projectionOffsetY;
  d["out_of_plane_angle"] = p.outOfPlaneAngle / kDegree;
  d["in_plane_angle"] = p.inPlaneAngle / kDegree;
  d["source_offset_x"] = p.sourceOffsetX;
  d["source_offset_y"] = p.sourceOffsetY;
  return d;
}

/** Per-projection values as a 1D float64 array. */
template <typename F>
py::array_t<double>
PerProjection(const GeometryHandle & g, F value)
{
  const unsigned int n = g.geometry->GetNumberOfProjections();
  py::array_t<double> result(static_cast<py::ssize_t>(n));
  auto r = result.mutable_unchecked<1>();
  for (unsigned int k = 0; k < n; ++k)
    r(k) = value(k);
  return result;
}

/** Writes a (z, y, x) float32 array as an image file: beside its place, inspected complete, then
 * renamed into place (cbct::AtomicOutput), so that a failure leaves a previous file as it was. */
void
WriteImageFile(const FloatArray & array, const Triple & spacing, const Triple & origin, const std::string & path)
{
  CheckDimensions(array, "array", 3, "3 dimensions (z, y, x)");
  auto image = FromNumpy<ImageType>(array, spacing, origin);
  py::gil_scoped_release release;
  cbct::AtomicOutput output(path);
  auto writer = itk::ImageFileWriter<ImageType>::New();
  writer->SetFileName(output.TemporaryPath());
  writer->SetInput(image);
  writer->Update();
  cbct::ImageFileContents::Inspect(output.TemporaryPath()).CheckComplete();
  output.Commit();
}

/** Reads an image file as the apps do: inspected before its pixels are read (a file cut short is an
 * error naming the bytes expected and found), scalar, at most 3D, on a canonical grid (`stack`: the
 * third axis counts projections). Returns (array (z, y, x) float32, spacing, origin). */
py::tuple
ReadImageFile(const std::string & path, bool stack)
{
  ImageType::Pointer image;
  {
    py::gil_scoped_release release;
    const auto contents = cbct::ImageFileContents::InspectAndCheck(path);
    for (std::size_t d = 3; d < contents.Dimensions().size(); ++d)
      if (contents.Dimensions()[d] > 1)
        cbct::ThrowBadParameter("image file " + path, contents.Description(), "an image of at most 3 dimensions");
    if (contents.Components() != 1)
      cbct::ThrowBadParameter("image file " + path, contents.Description(), "one value per pixel (a scalar image)");
    auto reader = itk::ImageFileReader<ImageType>::New();
    reader->SetFileName(path);
    reader->Update();
    image = reader->GetOutput();
    image->DisconnectPipeline();
    image = cbct::CanonicalGrid<ImageType>(image, path, stack);
  }
  Triple spacing, origin;
  for (unsigned int d = 0; d < 3; ++d)
  {
    spacing[d] = image->GetSpacing()[d];
    origin[d] = image->GetOrigin()[d];
  }
  return py::make_tuple(ToNumpy<ImageType>(image), spacing, origin);
}

} // namespace

PYBIND11_MODULE(_conebeamct, m)
{
  m.doc() = "Compiled core of conebeamct (use the package conebeamct, not this module directly)";

  // The exception type lives as long as the process (a static py::object would be released after the
  // interpreter is gone).
  static PyObject * itkError = nullptr;
  {
    py::exception<itk::ExceptionObject> type(m, "ITKError", PyExc_RuntimeError);
    type.doc() = "An error of the ConeBeamCT C++ library (an itk::ExceptionObject), with its message.";
    itkError = type.inc_ref().ptr();
  }
  py::register_exception_translator([](std::exception_ptr p) {
    try
    {
      if (p)
        std::rethrow_exception(p);
    }
    catch (const itk::ExceptionObject & e)
    {
      // The description is the message (ITK's what() adds the C++ file and line).
      PyErr_SetString(itkError, e.GetDescription());
    }
  });

  py::class_<GeometryHandle>(m, "Geometry", R"(Cone-beam scan geometry, one entry per projection (RTK's convention).

Each projection is either RTK's parameters (source-to-isocenter distance sid, source-to-detector
distance sdd, gantry angle, detector and source offsets, in-plane and out-of-plane angles; mm and
degrees) or a bare 3x4 matrix mapping world (mm) to detector (mm) coordinates.

Geometry() is empty; Geometry.circular(...) makes a circular scan; Geometry.read(path) reads RTK's
ThreeDCircularGeometry XML. A projection whose sdd is 0 is parallel beam (RTK's convention; SPECT), and
then every projection must be: sid is then the detector's distance from the rotation axis.)")
    .def(py::init<>())
    .def_static(
      "circular",
      [](long long n, double arc, double sid, double sdd, double firstAngle, double offsetX, double offsetY) {
        if (n < 1)
          throw py::value_error("n is " + std::to_string(n) + "; expected a number of projections >= 1");
        if (!std::isfinite(arc) || !(arc > 0.) || arc > 360.)
          throw py::value_error("arc is " + py::repr(py::float_(arc)).cast<std::string>() +
                                "; expected an angle in degrees in (0, 360]");
        GeometryHandle g;
        const auto count = static_cast<unsigned int>(n);
        // Projection k at first + k * arc / n, as cbct-simulate and RTK's rtksimulatedgeometry.
        for (unsigned int k = 0; k < count; ++k)
          g.geometry->AddProjection(sid, sdd, firstAngle + k * arc / count, offsetX, offsetY);
        return g;
      },
      py::arg("n"), py::arg("arc") = 360., py::arg("sid") = 1000., py::arg("sdd") = 1500.,
      py::arg("first_angle") = 0., py::arg("proj_offset_x") = 0., py::arg("proj_offset_y") = 0.,
      "A circular scan of n projections, projection k at gantry angle first_angle + k * arc / n, as cbct-simulate "
      "makes it: arc and first_angle in degrees; sid (source to isocenter), sdd (source to detector) and the "
      "detector offsets proj_offset_x, proj_offset_y in mm. sdd=0 makes it parallel beam (sid: the detector's "
      "distance from the axis).")
    .def(
      "add_projection",
      [](GeometryHandle & g, double sid, double sdd, double angle, double pox, double poy, double outOfPlane,
         double inPlane, double sox, double soy) {
        g.geometry->AddProjection(sid, sdd, angle, pox, poy, outOfPlane, inPlane, sox, soy);
      },
      py::arg("sid"), py::arg("sdd"), py::arg("angle"), py::arg("proj_offset_x") = 0., py::arg("proj_offset_y") = 0.,
      py::arg("out_of_plane_angle") = 0., py::arg("in_plane_angle") = 0., py::arg("source_offset_x") = 0.,
      py::arg("source_offset_y") = 0.,
      "Adds a projection from RTK's parameters: sid, sdd, proj_offset_x, proj_offset_y, source_offset_x and "
      "source_offset_y in mm; the gantry angle, out_of_plane_angle and in_plane_angle in degrees.")
    .def(
      "add_matrix",
      [](GeometryHandle & g, py::array_t<double, py::array::c_style | py::array::forcecast> matrix) {
        if (matrix.ndim() != 2 || matrix.shape(0) != 3 || matrix.shape(1) != 4)
        {
          std::string shape = "(";
          for (py::ssize_t d = 0; d < matrix.ndim(); ++d)
            shape += (d ? ", " : "") + std::to_string(matrix.shape(d));
          shape += matrix.ndim() == 1 ? ",)" : ")";
          throw py::value_error("matrix has shape " + shape + "; expected (3, 4)");
        }
        Geometry::MatrixType mat;
        auto a = matrix.unchecked<2>();
        for (unsigned int i = 0; i < 3; ++i)
          for (unsigned int j = 0; j < 4; ++j)
            mat[i][j] = a(i, j);
        g.geometry->AddProjection(mat);
      },
      py::arg("matrix"),
      "Adds a projection given by its 3x4 world (mm) to detector (mm) matrix; any scale and sign (it is "
      "normalised).")
    .def_static(
      "read",
      [](const std::string & path) {
        auto reader = cbct::ThreeDCircularProjectionGeometryXMLFileReader::New();
        reader->SetFilename(path);
        reader->GenerateOutputInformation();
        GeometryHandle g;
        g.geometry = reader->GetGeometry();
        return g;
      },
      py::arg("path"), "Reads RTK's ThreeDCircularGeometry XML.")
    .def(
      "write",
      [](const GeometryHandle & g, const std::string & path) {
        auto writer = cbct::ThreeDCircularProjectionGeometryXMLFileWriter::New();
        writer->SetFilename(path);
        writer->SetObject(const_cast<Geometry *>(g.geometry.GetPointer()));
        writer->WriteFile();
      },
      py::arg("path"), "Writes RTK's ThreeDCircularGeometry XML.")
    .def("clear", [](GeometryHandle & g) { g.geometry->Clear(); }, "Removes every projection.")
    .def("__len__", [](const GeometryHandle & g) { return g.geometry->GetNumberOfProjections(); })
    .def(
      "is_parallel", [](const GeometryHandle & g) { return g.geometry->GetNumberOfProjections() > 0 && g.geometry->IsParallel(0); },
      "Whether the projections are parallel beam (sdd 0).")
    .def_property(
      "radius_cylindrical_detector", [](const GeometryHandle & g) { return g.geometry->GetRadiusCylindricalDetector(); },
      [](GeometryHandle & g, double radius) { g.geometry->SetRadiusCylindricalDetector(radius); },
      "RTK's RadiusCylindricalDetector in mm: 0 for a flat panel, else a cylindrical detector of that radius (the "
      "panel bent about an axis parallel to v, u its arc length; equal to sdd: centred on the source, as a CT "
      "scanner's). Checked against every projection (the source must be inside the cylinder); read and written in "
      "the geometry XML; project_phantom, fdk (a cylinder centred on the source) and the iterative methods follow it.")
    .def(
      "is_helical", [](const GeometryHandle & g) { return cbct::HelicalOrbit::Of(g.geometry).IsHelical(); },
      "Whether the source travels along the rotation axis y as it turns, at a constant feed (a helical scan, as RTK "
      "writes it: source_offset_y = proj_offset_y = the table's position): fdk then applies helical FDK.")
    .def(
      "helical_feed", [](const GeometryHandle & g) { return cbct::HelicalOrbit::Of(g.geometry).FeedPerTurn(); },
      "The source's fitted travel along +y per turn in mm (negative: towards -y), whether or not the orbit is "
      "helical.")
    .def(
      "matrices",
      [](const GeometryHandle & g) {
        const unsigned int n = g.geometry->GetNumberOfProjections();
        py::array_t<double> result({ static_cast<py::ssize_t>(n), py::ssize_t(3), py::ssize_t(4) });
        auto r = result.mutable_unchecked<3>();
        for (unsigned int k = 0; k < n; ++k)
        {
          const auto & mat = g.geometry->GetMatrix(k);
          for (unsigned int i = 0; i < 3; ++i)
            for (unsigned int j = 0; j < 4; ++j)
              r(k, i, j) = mat[i][j];
        }
        return result;
      },
      "The normalised 3x4 world-to-detector matrices, an (n, 3, 4) float64 array (a copy).")
    .def(
      "has_parameters",
      [](const GeometryHandle & g, long long k) { return g.geometry->HasParameters(g.Index(k)); }, py::arg("k"),
      "Whether projection k was given by RTK parameters (False: as a bare matrix).")
    .def(
      "parameters",
      [](const GeometryHandle & g, long long k) -> py::object {
        const unsigned int i = g.Index(k);
        if (!g.geometry->HasParameters(i))
          return py::none();
        return ParametersDict(g.geometry->GetParameters(i));
      },
      py::arg("k"),
      "RTK parameters of projection k as a dict (sid, sdd, angle, proj_offset_x, proj_offset_y, "
      "out_of_plane_angle, in_plane_angle, source_offset_x, source_offset_y; mm and degrees), or None when it "
      "was given as a matrix.")
    .def(
      "gantry_angles",
      [](const GeometryHandle & g) {
        return PerProjection(g, [&](unsigned int k) { return g.geometry->GetGantryAngle(k) / kDegree; });
      },
      "Gantry angle of each projection in degrees, in [0, 360) (for a matrix: the source's azimuth); an (n,) "
      "float64 array.")
    .def(
      "source_to_isocenter_distances",
      [](const GeometryHandle & g) {
        return PerProjection(g, [&](unsigned int k) { return g.geometry->GetSourceToIsocenterDistance(k); });
      },
      "Source-to-isocenter distance of each projection in mm, an (n,) float64 array.")
    .def(
      "source_to_detector_distances",
      [](const GeometryHandle & g) {
        return PerProjection(g, [&](unsigned int k) { return g.geometry->GetSourceToDetectorDistance(k); });
      },
      "Source-to-detector distance of each projection in mm, an (n,) float64 array.")
    .def(
      "source_positions",
      [](const GeometryHandle & g) {
        const unsigned int n = g.geometry->GetNumberOfProjections();
        py::array_t<double> result({ static_cast<py::ssize_t>(n), py::ssize_t(3) });
        auto r = result.mutable_unchecked<2>();
        for (unsigned int k = 0; k < n; ++k)
        {
          const auto s = g.geometry->GetSourcePosition(k);
          for (unsigned int d = 0; d < 3; ++d)
            r(k, d) = s[d];
        }
        return result;
      },
      "Source position of each projection, an (n, 3) array of world (x, y, z) in mm.")
    .def("__repr__", [](const GeometryHandle & g) {
      const unsigned int n = g.geometry->GetNumberOfProjections();
      std::string text = "<conebeamct.Geometry of " + std::to_string(n) + " projection" + (n == 1 ? "" : "s");
      if (n > 0)
      {
        char range[64];
        std::snprintf(range, sizeof(range), ", %.1f deg covered", g.geometry->GetAngularRange() / kDegree);
        text += range;
      }
      return text + ">";
    });

  m.def("_project_phantom", &ProjectPhantom, py::arg("geometry"), py::arg("size"), py::arg("spacing"),
        py::arg("origin"), py::arg("phantom"), py::arg("scale"), py::arg("progress"));
  m.def("_voxelize_phantom", &VoxelizePhantom, py::arg("size"), py::arg("spacing"), py::arg("origin"),
        py::arg("phantom"), py::arg("scale"), py::arg("supersampling"), py::arg("progress"));
  m.def("_fdk", &Fdk, py::arg("projections"), py::arg("projection_spacing"), py::arg("projection_origin"),
        py::arg("geometry"), py::arg("size"), py::arg("spacing"), py::arg("origin"), py::arg("window"),
        py::arg("cutoff"), py::arg("displaced"), py::arg("hardware"), py::arg("divisions"), py::arg("pad"),
        py::arg("hann_y"), py::arg("fov"), py::arg("memory"), py::arg("memory_text"), py::arg("progress"));
  m.def("_preprocess", &Preprocess, py::arg("projections"), py::arg("spacing"), py::arg("origin"),
        py::arg("intensities"), py::arg("i0"), py::arg("idark"), py::arg("air_threshold"), py::arg("minimum_signal"),
        py::arg("lower_crop"), py::arg("upper_crop"), py::arg("binning"), py::arg("median_radius"),
        py::arg("median_multiplier"), py::arg("wpc"), py::arg("spr"), py::arg("nonneg"), py::arg("rings"),
        py::arg("rings_size"), py::arg("rings_snr"), py::arg("rings_rows"), py::arg("rings_level"), py::arg("rings_wavelet"), py::arg("rings_sigma"),
        py::arg("rings_pad"), py::arg("progress"));
  m.def("_emission_project", &EmissionProject, py::arg("activity"), py::arg("activity_spacing"), py::arg("activity_origin"),
        py::arg("geometry"), py::arg("size"), py::arg("spacing"), py::arg("origin"), py::arg("attenuation"),
        py::arg("attenuation_spacing"), py::arg("attenuation_origin"), py::arg("psf"), py::arg("hardware"), py::arg("progress"));
  m.def("_poisson_noise", &PoissonNoise, py::arg("projections"), py::arg("seed"));
  m.def("_osem", &Osem, py::arg("projections"), py::arg("projection_spacing"), py::arg("projection_origin"), py::arg("geometry"),
        py::arg("size"), py::arg("spacing"), py::arg("origin"), py::arg("iterations"), py::arg("projections_per_subset"),
        py::arg("projector"), py::arg("attenuation"), py::arg("attenuation_spacing"), py::arg("attenuation_origin"),
        py::arg("psf"), py::arg("hardware"), py::arg("progress"));
  py::class_<IterativeGrid>(m, "_IterativeGrid")
    .def(py::init<>())
    .def_readwrite("initial", &IterativeGrid::initial)
    .def_readwrite("initial_spacing", &IterativeGrid::initialSpacing)
    .def_readwrite("initial_origin", &IterativeGrid::initialOrigin)
    .def_readwrite("size", &IterativeGrid::size)
    .def_readwrite("spacing", &IterativeGrid::spacing)
    .def_readwrite("origin", &IterativeGrid::origin);
  m.def("_asd_pocs", &AsdPocs, py::arg("projections"), py::arg("projection_spacing"), py::arg("projection_origin"),
        py::arg("geometry"), py::arg("grid"), py::arg("niterations"), py::arg("lambda_"), py::arg("lambda_red"),
        py::arg("nprojpersubset"), py::arg("positivity"), py::arg("alpha"), py::arg("alpha_red"), py::arg("ratio"),
        py::arg("tviter"), py::arg("maxl2err"), py::arg("epsilon"), py::arg("hardware"), py::arg("progress"));
  m.def("_admm_tv", &AdmmTv, py::arg("projections"), py::arg("projection_spacing"), py::arg("projection_origin"),
        py::arg("geometry"), py::arg("grid"), py::arg("niterations"), py::arg("alpha"), py::arg("beta"), py::arg("cgiter"),
        py::arg("positivity"), py::arg("init"), py::arg("hardware"), py::arg("progress"));
  m.def("_write_image", &WriteImageFile, py::arg("array"), py::arg("spacing"), py::arg("origin"), py::arg("path"));
  m.def("_read_image", &ReadImageFile, py::arg("path"), py::arg("stack"));
  m.def("has_cuda", &HasCuda, "Whether this build has the CUDA FDK (a device is still needed to use it).");
  m.def(
    "cuda_device",
    []() -> py::object {
      std::string description;
      if (!HasCuda() || !cbct::CudaDeviceAvailable(&description))
        return py::none();
      return py::str(description);
    },
    "The CUDA device fdk(hardware='auto') would use (name, memory, compute capability), or None when "
    "this build has no CUDA FDK or no device is present.");
  m.def(
    "set_number_of_threads",
    [](int n) {
      if (n < 1)
        throw py::value_error("number of threads is " + std::to_string(n) + "; expected an integer >= 1");
      itk::MultiThreaderBase::SetGlobalDefaultNumberOfThreads(n);
    },
    py::arg("n"), "Sets ITK's default number of threads (for every later call).");
  m.def(
    "get_number_of_threads", [] { return itk::MultiThreaderBase::GetGlobalDefaultNumberOfThreads(); },
    "ITK's default number of threads.");

  // The bindings in their own source files (cbctPythonBindings.h).
  const cbct::python::GeometryOf geometryOf = [](const py::handle & g) -> const Geometry * {
    if (!py::isinstance<GeometryHandle>(g))
      throw py::type_error("geometry is a " + py::str(py::type::of(g).attr("__name__")).cast<std::string>() +
                           "; expected a conebeamct.Geometry");
    return g.cast<const GeometryHandle &>().geometry.GetPointer();
  };
  cbct::python::RegisterProjectors(m, geometryOf);
  cbct::python::RegisterIterative(m, geometryOf);
  cbct::python::RegisterFourDROOSTER(m, geometryOf);
  cbct::python::RegisterFourDFDK(m, geometryOf);
  cbct::python::RegisterBreathingSignal(m);
  cbct::python::RegisterMemory(m);
  const cbct::python::MakeGeometry makeGeometry = [](Geometry::Pointer geometry) {
    GeometryHandle handle;
    handle.geometry = geometry;
    return py::cast(std::move(handle));
  };
  cbct::python::RegisterScan(m, makeGeometry);
  cbct::python::RegisterCalibration(m, geometryOf, makeGeometry);
}
