#ifndef cbctFourDTestProblem_h
#define cbctFourDTestProblem_h

// The 4D ROOSTER tests' problem: a breathing phantom (a static body with a sphere moving along y)
// scanned by 90 projections over 360 degrees during 7.3 breathing cycles, and 4D helpers.
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctFourDFDKConeBeamReconstructionFilter.h"
#include "cbctPhaseSignal.h"
#include "cbctTestHelpers.h"

#include <itkImage.h>

#include <cmath>
#include <vector>

namespace cbct::test
{

using SeriesType = itk::Image<float, 4>;

/** The phantom at `phase`: a body (density 1, semi-axes 24 x 22 x 24 mm), a static insert (+0.5)
 * and a sphere of 7 mm (+1) whose centre moves along y as -6 + 12 sin^2(pi phase) mm. */
inline GeometricPhantom::Pointer
MovingPhantom(double phase)
{
  auto phantom = GeometricPhantom::New();
  GeometricPhantom::Ellipsoid body;
  body.density = 1.;
  body.semiAxes = { { 24., 22., 24. } };
  phantom->AddEllipsoid(body);
  GeometricPhantom::Ellipsoid insert;
  insert.density = 0.5;
  insert.center = { { 12., 4., -8. } };
  insert.semiAxes = { { 5., 5., 5. } };
  phantom->AddEllipsoid(insert);
  GeometricPhantom::Ellipsoid sphere;
  sphere.density = 1.;
  const double s = std::sin(M_PI * phase);
  sphere.center = { { -4., -6. + 12. * s * s, 3. } };
  sphere.semiAxes = { { 7., 7., 7. } };
  phantom->AddEllipsoid(sphere);
  return phantom;
}

/** A 4D image of `frames` frames on a centred grid of `voxels`^3 of `spacing` mm, all 0. */
inline SeriesType::Pointer
ZeroSeries(unsigned int voxels, double spacing, unsigned int frames)
{
  auto series = SeriesType::New();
  SeriesType::SizeType size{ { voxels, voxels, voxels, frames } };
  series->SetRegions(size);
  SeriesType::SpacingType s;
  SeriesType::PointType origin;
  for (unsigned int d = 0; d < 3; ++d)
  {
    s[d] = spacing;
    origin[d] = -0.5 * (voxels - 1.) * spacing;
  }
  s[3] = 1.;
  origin[3] = 0.;
  series->SetSpacing(s);
  series->SetOrigin(origin);
  series->Allocate(true);
  return series;
}

/** Frame `f` of `series` as a 3D image (a copy). */
inline ImageType::Pointer
Frame(const SeriesType * series, unsigned int f)
{
  auto frame = ImageType::New();
  ImageType::SizeType size;
  ImageType::SpacingType spacing;
  ImageType::PointType origin;
  for (unsigned int d = 0; d < 3; ++d)
  {
    size[d] = series->GetLargestPossibleRegion().GetSize(d);
    spacing[d] = series->GetSpacing()[d];
    origin[d] = series->GetOrigin()[d];
  }
  frame->SetRegions(size);
  frame->SetSpacing(spacing);
  frame->SetOrigin(origin);
  frame->Allocate();
  const std::size_t voxels = frame->GetBufferedRegion().GetNumberOfPixels();
  std::copy(series->GetBufferPointer() + f * voxels, series->GetBufferPointer() + (f + 1) * voxels, frame->GetBufferPointer());
  return frame;
}

/** The scan of the breathing phantom and each frame's truth. */
struct FourDProblem
{
  static constexpr unsigned int Voxels = 32;
  static constexpr double Spacing = 2.;
  static constexpr unsigned int Pixels = 56;
  static constexpr double PixelMm = 2.;

  unsigned int frames;
  unsigned int count;
  std::vector<double> angles; // degrees
  std::vector<double> phases;
  ThreeDCircularProjectionGeometry::Pointer geometry;
  ImageType::Pointer projections;
  std::vector<ImageType::Pointer> truth; // frame f: the phantom at phase f / frames (2^3 supersamples)

  explicit FourDProblem(unsigned int numberOfFrames = 5, unsigned int numberOfProjections = 90, double cycles = 7.3)
    : frames(numberOfFrames)
    , count(numberOfProjections)
  {
    geometry = ThreeDCircularProjectionGeometry::New();
    for (unsigned int k = 0; k < count; ++k)
    {
      angles.push_back(360. * k / count);
      const double x = cycles * k / count;
      phases.push_back(x - std::floor(x));
      geometry->AddProjection(1000., 1500., angles.back());
    }
    projections = ImageType::New();
    ImageType::SizeType size{ { Pixels, Pixels, count } };
    auto first = Project({ 0 });
    projections->CopyInformation(first);
    projections->SetRegions(size);
    projections->Allocate();
    const std::size_t perProjection = Pixels * Pixels;
    for (unsigned int k = 0; k < count; ++k)
    {
      auto one = ThreeDCircularProjectionGeometry::New();
      one->AddProjection(1000., 1500., angles[k]);
      auto image = ProjectPhantom(one, MovingPhantom(phases[k]), Pixels, PixelMm);
      std::copy(image->GetBufferPointer(), image->GetBufferPointer() + perProjection, projections->GetBufferPointer() + k * perProjection);
    }
    for (unsigned int f = 0; f < frames; ++f)
      truth.push_back(VoxelizedPhantom(MovingPhantom(static_cast<double>(f) / frames), Voxels, Spacing, 2));
  }

  /** The projections (and geometry) of the indices `which`, in that order. */
  ImageType::Pointer
  Project(const std::vector<unsigned int> & which) const
  {
    auto g = ThreeDCircularProjectionGeometry::New();
    for (unsigned int k : which)
      g->AddProjection(1000., 1500., angles.empty() ? 0. : angles[k]);
    return ProjectPhantom(g, MovingPhantom(0.), Pixels, PixelMm);
  }

  /** 4D FDK (FourDFDKConeBeamReconstructionFilter: each projection in its nearest frame, with the
   * frame's own angular weights), as a 4D image. */
  SeriesType::Pointer
  FourDFDK() const
  {
    auto zero = ZeroVolume(Voxels, Spacing);
    auto fdk = FourDFDKConeBeamReconstructionFilter<ImageType, SeriesType>::New();
    fdk->SetInput(0, zero->GetOutput());
    fdk->SetProjections(projections);
    fdk->SetGeometry(geometry);
    fdk->SetPhases(phases);
    fdk->SetNumberOfFrames(frames);
    fdk->Update();
    SeriesType::Pointer out = fdk->GetOutput();
    out->DisconnectPipeline();
    return out;
  }

  /** Mean absolute error of frame f of `series` against its truth over the whole volume (NaN if any
   * value is NaN). */
  double
  FrameMAE(const SeriesType * series, unsigned int f) const
  {
    auto frame = Frame(series, f);
    return Compare(frame, truth[f], truth[f]->GetLargestPossibleRegion(), 2.).meanAbsoluteError;
  }
};

} // namespace cbct::test

#endif
