// The ring removal target on small simulated scans (a numerical suite: left out of the sanitized
// build): detector columns whose gain is off by 1-3 % lose their rings at least 5x, and the error of
// the reconstruction elsewhere changes by less than 2 %, on a Shepp-Logan head and water cylinders on
// and off the axis, 256 and 512 columns, with and without Poisson noise. CBCT_RING_SWEEP=1 runs every
// case with four noise seeds (the guide's table), CBCT_RING_CASE one case, CBCT_RING_METHOD one
// method, CBCT_RING_DETECTION_ROWS and CBCT_RING_ROWS the detection's and the scan's rows.
#include "cbctProjectionPreprocessingFilter.h"
#include "cbctStripeRemovalTestHelpers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

using namespace cbct;
using namespace cbct::test;

// ---- The ring target: a small simulated scan ----------------------------------------------------

namespace
{
/** The mean absolute error against `truth` over radii < `radius` voxels of every slice, leaving out
 * the voxels within `margin` voxels of the radii in `rings`. */
double
ErrorAwayFromRings(const ImageType * volume, const ImageType * truth, double radius, const std::vector<double> & rings,
                   double margin)
{
  const auto size = volume->GetBufferedRegion().GetSize();
  const double cx = 0.5 * (size[0] - 1.), cz = 0.5 * (size[2] - 1.);
  double sum = 0., count = 0.;
  for (std::size_t y = 0; y < size[1]; ++y)
    for (std::size_t z = 0; z < size[2]; ++z)
      for (std::size_t x = 0; x < size[0]; ++x)
      {
        const double r = std::hypot(x - cx, z - cz);
        if (r >= radius)
          continue;
        bool nearRing = false;
        for (double ring : rings)
          nearRing = nearRing || std::abs(r - ring) <= margin;
        if (nearRing)
          continue;
        const std::size_t i = (z * size[1] + y) * size[0] + x;
        sum += std::abs(static_cast<double>(volume->GetBufferPointer()[i]) - truth->GetBufferPointer()[i]);
        count += 1.;
      }
  return sum / count;
}

ImageType::Pointer
RemoveRings(const ImageType * projections, const ProjectionPreprocessing & settings)
{
  auto chain = ProjectionPreprocessingFilter<ImageType>::New();
  chain->SetInput(projections);
  chain->SetParameters(settings);
  chain->Update();
  ImageType::Pointer out = chain->GetOutput();
  out->DisconnectPipeline();
  return out;
}

/** A slab of a few axial slices around the orbit's plane: `voxels` x `slices` x `voxels` of
 * `spacing` mm. */
template <typename TSource>
void
SlabGrid(TSource * source, unsigned int voxels, unsigned int slices, double spacing)
{
  CentredGrid(source, ImageType::SizeType{ { voxels, slices, voxels } }, spacing, spacing, spacing);
}

/** A water cylinder (axis along y) of 40 mm radius, its centre (20, 8) mm * `shift` from the axis,
 * holding a denser rod and a hollow off the axis (densities as the Shepp-Logan's, 2 for water, before
 * the scan's 0.01). Off the axis its edge's trace moves across the detector with the angle; on it
 * (shift 0) the edge is constant along the angle, as a stripe is. */
GeometricPhantom::Pointer
WaterCylinder(double shift)
{
  auto phantom = GeometricPhantom::New();
  auto add = [&](double density, double x, double z, double radius) {
    GeometricPhantom::Ellipsoid solid;
    solid.shape = GeometricPhantom::Shape::Cylinder;
    solid.density = density;
    solid.center = { { x, 0., z } };
    solid.semiAxes = { { radius, 80., radius } };
    phantom->AddEllipsoid(solid);
  };
  add(2., 20. * shift, 8. * shift, 40.);
  add(1., 30., 0., 8.);
  add(-1., 8., 22., 6.);
  return phantom;
}

/** The ring target's scan: an object with water-like densities (the Shepp-Logan's 2 per mm taken as
 * 0.02 per mm: line integrals up to about 2, as a real scan's), `projections` over 360 degrees onto
 * `columns` x 2 pixels (192 mm wide) at magnification 1.5, Poisson noise of `i0` counts through air
 * (none when 0), and FDK reconstructions of the orbit's plane (one axial slice of `columns`^2
 * voxels over 128 mm). */
struct RingScan
{
  unsigned int columns, projections, voxels;
  double pixel, voxel;
  ThreeDCircularProjectionGeometry::Pointer geometry;
  GeometricPhantom::Pointer phantom;
  ImageType::Pointer clean, faulty, truth, reference;
  std::vector<double> ringRadii;

  RingScan(unsigned int columns_, unsigned int projections_, const std::vector<unsigned int> & badColumns,
           const std::vector<double> & gains, double i0, GeometricPhantom::Pointer phantom_ = SheppLogan(),
           unsigned int seed = 7, unsigned int rows = 2)
    : columns(columns_)
    , projections(projections_)
    , voxels(columns_)
    , pixel(192. / columns_)
    , voxel(128. / columns_)
    , geometry(CircularGeometry(projections_))
    , phantom(phantom_)
  {
    auto source = PhantomProjectionSource<ImageType>::New();
    CentredGrid(source, ImageType::SizeType{ { columns, rows, projections } }, pixel, pixel, 1.);
    auto origin = source->GetOrigin();
    origin[2] = 0.;
    source->SetOrigin(origin);
    source->SetGeometry(geometry);
    source->SetPhantom(phantom);
    source->Update();
    clean = source->GetOutput();
    clean->DisconnectPipeline();
    std::mt19937 random(seed);
    for (std::size_t i = 0; i < clean->GetBufferedRegion().GetNumberOfPixels(); ++i)
    {
      float & p = clean->GetBufferPointer()[i];
      p *= 0.01f;
      if (i0 > 0.) // Poisson noise of i0 counts through air
      {
        std::poisson_distribution<long> counts(i0 * std::exp(-p));
        p = static_cast<float>(std::log(i0 / std::max(1L, counts(random))));
      }
    }
    faulty = ImageType::New();
    faulty->CopyInformation(clean);
    faulty->SetRegions(clean->GetBufferedRegion());
    faulty->Allocate();
    std::copy(clean->GetBufferPointer(), clean->GetBufferPointer() + clean->GetBufferedRegion().GetNumberOfPixels(),
              faulty->GetBufferPointer());
    AddColumnGainErrors(faulty, badColumns, gains);
    for (unsigned int c : badColumns)
      ringRadii.push_back(std::abs(c - 0.5 * (columns - 1.)) * pixel / 1.5 / voxel);
    auto volume = PhantomVolumeSource<ImageType>::New();
    SlabGrid(volume.GetPointer(), voxels, 1, voxel);
    volume->SetPhantom(phantom);
    volume->SetSupersampling(2);
    volume->Update();
    truth = volume->GetOutput();
    truth->DisconnectPipeline();
    for (std::size_t i = 0; i < truth->GetBufferedRegion().GetNumberOfPixels(); ++i)
      truth->GetBufferPointer()[i] *= 0.01f;
    reference = Reconstruct(clean);
  }

  ImageType::Pointer
  Reconstruct(const ImageType * projections_) const
  {
    auto zero = ConstantImageSource<ImageType>::New();
    SlabGrid(zero.GetPointer(), voxels, 1, voxel);
    auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
    fdk->SetInput(0, zero->GetOutput());
    fdk->SetProjections(projections_);
    fdk->SetGeometry(geometry);
    fdk->Update();
    ImageType::Pointer out = fdk->GetOutput();
    out->DisconnectPipeline();
    return out;
  }

  /** Out to 90 % of the reconstructed disc. */
  unsigned int
  Radius() const
  {
    return static_cast<unsigned int>(0.45 * voxels);
  }
  double
  RingAmplitudeOf(const ImageType * volume, const ImageType * withoutErrors) const
  {
    return RingAmplitude(volume, withoutErrors, 0, 0, this->Radius());
  }
  double
  ErrorAwayFromTheRings(const ImageType * volume) const
  {
    return ErrorAwayFromRings(volume, truth, this->Radius(), ringRadii, 2.);
  }
};
} // namespace

TEST(RingRemoval, GainErrorsOfAFewColumnsLoseTheirRingsAndTheRestKeepsItsError)
{
  // Four columns with gains off by +1, -2, +3 and +1.5 % (at the same fractions of the detector's
  // width), 180 projections. The ring artefact is what the gain errors change in the
  // reconstruction, each scan (with and without them) processed alike; its amplitude is the
  // largest polar mean of that change around the axis. The error is the mean absolute error
  // against the phantom (2 x 2 x 2 samples a voxel) away from the rings' radii. The sorting filter
  // (its defaults: the detection pooled over the rows, then each gain error's offset taken away)
  // on four cases: the head with and without noise, on 512 and 256 columns, and a water cylinder
  // centred on the axis (its edge is constant along the angle, as a stripe) and off it; the
  // wavelet-Fourier filter (in the detected columns) on three: noisy and noiseless, 512 and 256
  // columns, the head and both cylinders. Without noise a head's centred round detail in the
  // detected columns goes with the stripes and its error grows by 7 to 11 % (see the guide).
  struct Case
  {
    const char * name;
    unsigned int columns;
    double i0;
    int object; // 0: head, 1: cylinder off the axis, 2: cylinder on the axis
    bool wavelet;
  };
  const char * only = std::getenv("CBCT_RING_CASE"); // one case by name, for measurements
  std::vector<Case> cases{ { "head, 512 columns, noise", 512, 1e4, 0, true },
                           { "head, 256 columns, no noise", 256, 0., 0, false },
                           { "centred cylinder, 256 columns, noise", 256, 1e4, 2, true },
                           { "cylinder, 256 columns, no noise", 256, 0., 1, true } };
  // CBCT_RING_SWEEP=1: every object, width and noise, the noisy ones with seeds 7, 1, 2 and 3 of the
  // noise (the guide's table), both methods; CBCT_RING_ROWS: detector rows of the scan (2).
  std::vector<unsigned int> seeds{ 7 };
  if (std::getenv("CBCT_RING_SWEEP"))
  {
    cases.clear();
    static const char * objects[] = { "head", "cylinder off the axis", "centred cylinder" };
    static std::vector<std::string> names;
    names.clear();
    names.reserve(12);
    for (int object = 0; object < 3; ++object)
      for (unsigned int columns : { 512u, 256u })
        for (double i0 : { 1e4, 0. })
        {
          names.push_back(std::string(objects[object]) + ", " + std::to_string(columns) + (i0 > 0. ? ", noise" : ", no noise"));
          cases.push_back({ names.back().c_str(), columns, i0, object, true });
        }
    seeds = { 7, 1, 2, 3 };
  }
  const unsigned int scanRows = std::getenv("CBCT_RING_ROWS") ? std::atoi(std::getenv("CBCT_RING_ROWS")) : 2;
  for (const Case & test : cases)
  for (unsigned int seed : seeds)
  {
    if (only && std::string(only) != test.name)
      continue;
    if (seed != 7 && test.i0 == 0.)
      continue;
    const unsigned int c = test.columns / 2, s = test.columns;
    const RingScan scan(test.columns, 180, { c + 42 * s / 512, c + 73 * s / 512, c + 102 * s / 512, c - 56 * s / 512 },
                        { 0.01, -0.02, 0.03, 0.015 }, test.i0,
                        test.object == 0 ? SheppLogan() : WaterCylinder(test.object == 1 ? 1. : 0.), seed, scanRows);
    const auto rings = scan.Reconstruct(scan.faulty);
    const double before = scan.RingAmplitudeOf(rings, scan.reference);
    const double error = scan.ErrorAwayFromTheRings(scan.reference);
    EXPECT_GT(before, 1e-3) << test.name << ": the gain errors should make rings";
    for (const char * method : { "sorting", "wavelet" })
    {
      if (std::string(method) == "wavelet" && !test.wavelet)
        continue;
      if (std::getenv("CBCT_RING_METHOD") && std::string(std::getenv("CBCT_RING_METHOD")) != method)
        continue;
      ProjectionPreprocessing settings;
      settings.rings = method;
      if (std::getenv("CBCT_RING_DETECTION_ROWS"))
        settings.ringsRows = std::atoi(std::getenv("CBCT_RING_DETECTION_ROWS"));
      const auto corrected = scan.Reconstruct(RemoveRings(scan.faulty, settings));
      const auto correctedClean = scan.Reconstruct(RemoveRings(scan.clean, settings));
      const double after = scan.RingAmplitudeOf(corrected, correctedClean);
      const double againstClean = scan.RingAmplitudeOf(corrected, scan.reference);
      const double correctedError = scan.ErrorAwayFromTheRings(corrected);
      std::cout << test.name << ", seed " << seed << ", " << method << ": ring amplitude " << before << " -> " << after << " (" << before / after
                << " x; against the unprocessed scan " << before / againstClean << " x); error away from the rings "
                << error << " -> " << correctedError << " (" << 100. * (correctedError / error - 1.) << " %)" << std::endl;
      EXPECT_GE(before / after, 5.) << test.name << ", " << method;
      EXPECT_LT(std::abs(correctedError / error - 1.), 0.02) << test.name << ", " << method;
      if (std::string(method) == "sorting") // it changes only the columns it finds
        EXPECT_GE(before / againstClean, 5.) << test.name << ", " << method;
    }
  }
}
