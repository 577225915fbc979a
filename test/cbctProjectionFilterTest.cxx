// The generic forward and back projection filters on the CPU: with Joseph's projector they are the
// Joseph filters, with the ray caster an adjoint pair of their own; the Joseph filters keep Joseph
// whatever SetForwardProjector() says; the step is checked.
#include "cbctBackProjectionImageFilter.h"
#include "cbctForwardProjectionImageFilter.h"
#include "cbctIterativeTestHelpers.h"
#include "cbctJosephBackProjectionImageFilter.h"
#include "cbctJosephForwardProjectionImageFilter.h"

#include <gtest/gtest.h>


using namespace cbct;
using namespace cbct::test;

namespace
{
struct Pair
{
  ImageType::Pointer forward; // A x (+ 0)
  ImageType::Pointer back;    // A^T y (+ 0)
};

template <typename TForward, typename TBack>
Pair
Project(const ThreeDCircularProjectionGeometry * geometry, const ImageType * x, const ImageType * y,
        ForwardProjectorKind kind, double step = 0.)
{
  auto forward = TForward::New();
  forward->SetInput(0, Zeros(y));
  forward->SetVolume(x);
  forward->SetGeometry(geometry);
  forward->SetForwardProjector(kind);
  forward->SetRayCastStep(step);
  forward->Update();
  auto back = TBack::New();
  back->SetInput(0, Zeros(x));
  back->SetProjections(y);
  back->SetGeometry(geometry);
  back->SetForwardProjector(kind);
  back->SetRayCastStep(step);
  back->Update();
  return { forward->GetOutput(), back->GetOutput() };
}
} // namespace

class ProjectionFilters : public ::testing::Test
{
protected:
  ThreeDCircularProjectionGeometry::Pointer geometry = CircularGeometry(24, 360., 1000., 1500., 3., -2.);
  ImageType::Pointer x = Copy<ImageType>(VoxelizedPhantom(Ellipsoids(), 24, 5., 1), false, 1);
  ImageType::Pointer y = Copy<ImageType>(ProjectPhantom(geometry, Ellipsoids(), 32, 6.), false, 2);
};

TEST_F(ProjectionFilters, WithJosephTheyAreTheJosephFilters)
{
  const Pair generic =
    Project<ForwardProjectionImageFilter<ImageType>, BackProjectionImageFilter<ImageType>>(geometry, x, y, ForwardProjectorKind::Joseph);
  const Pair joseph = Project<JosephForwardProjectionImageFilter<ImageType>, JosephBackProjectionImageFilter<ImageType>>(
    geometry, x, y, ForwardProjectorKind::Joseph);
  EXPECT_EQ(RelativeDifference(generic.forward, joseph.forward), 0.);
  EXPECT_EQ(RelativeDifference(generic.back, joseph.back), 0.);
  EXPECT_GT(Dot(generic.forward, y), 0.);
}

TEST_F(ProjectionFilters, TheJosephFiltersKeepJosephWhenAskedForTheRayCaster)
{
  const Pair joseph = Project<JosephForwardProjectionImageFilter<ImageType>, JosephBackProjectionImageFilter<ImageType>>(
    geometry, x, y, ForwardProjectorKind::Joseph);
  const Pair asked = Project<JosephForwardProjectionImageFilter<ImageType>, JosephBackProjectionImageFilter<ImageType>>(
    geometry, x, y, ForwardProjectorKind::RayCast);
  EXPECT_EQ(RelativeDifference(asked.forward, joseph.forward), 0.);
  EXPECT_EQ(RelativeDifference(asked.back, joseph.back), 0.);
}

TEST_F(ProjectionFilters, WithTheRayCasterTheyAreAnAdjointPairCloseToJoseph)
{
  const Pair joseph =
    Project<ForwardProjectionImageFilter<ImageType>, BackProjectionImageFilter<ImageType>>(geometry, x, y, ForwardProjectorKind::Joseph);
  const Pair ray =
    Project<ForwardProjectionImageFilter<ImageType>, BackProjectionImageFilter<ImageType>>(geometry, x, y, ForwardProjectorKind::RayCast);
  const double ratio = Dot(ray.forward, y) / Dot(x, ray.back);
  const double difference = RelativeDifference(ray.forward, joseph.forward);
  std::cout << "ray caster: <Ax, y> / <x, A^T y> = " << ratio << "; forward vs Joseph " << difference << std::endl;
  EXPECT_NEAR(ratio, 1., 1e-3);
  EXPECT_GT(difference, 0.);   // a different projector
  EXPECT_LT(difference, 0.05); // of the same line integrals
  // A step of a tenth of a voxel samples the same integrals more finely.
  const Pair fine = Project<ForwardProjectionImageFilter<ImageType>, BackProjectionImageFilter<ImageType>>(
    geometry, x, y, ForwardProjectorKind::RayCast, 0.5);
  EXPECT_LT(RelativeDifference(fine.forward, ray.forward), 0.05);
  EXPECT_GT(RelativeDifference(fine.forward, ray.forward), 0.);
}

TEST_F(ProjectionFilters, ABadStepIsAnError)
{
  auto forward = ForwardProjectionImageFilter<ImageType>::New();
  forward->SetInput(0, Zeros(y));
  forward->SetVolume(x);
  forward->SetGeometry(geometry);
  forward->SetForwardProjector(ForwardProjectorKind::RayCast);
  for (double step : { -1., std::numeric_limits<double>::infinity() })
  {
    forward->SetRayCastStep(step);
    try
    {
      forward->Update();
      FAIL() << "no exception for step " << step;
    }
    catch (const itk::ExceptionObject & e)
    {
      EXPECT_NE(std::string(e.GetDescription()).find("ray-cast step (mm) is"), std::string::npos) << e.GetDescription();
    }
  }
}
