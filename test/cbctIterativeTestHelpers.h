#ifndef cbctIterativeTestHelpers_h
#define cbctIterativeTestHelpers_h

// Helpers shared by the iterative reconstruction tests (SART, CGLS, OSEM).
#include "cbctTestHelpers.h"

#include <gtest/gtest.h>
#include <itkCommand.h>

#include <array>
#include <cmath>
#include <random>
#include <iostream>
#include <string>
#include <vector>

namespace cbct::test
{

/** An image of zeros on the grid of `like`. */
inline ImageType::Pointer
Zeros(const ImageType * like)
{
  auto image = ImageType::New();
  image->CopyInformation(like);
  image->SetRegions(like->GetLargestPossibleRegion());
  image->Allocate(true);
  return image;
}

/** A copy of `image` as TImage: the same values, 0 (`zero`) or uniform in [0, 1) (`seed` > 0). */
template <typename TImage>
typename TImage::Pointer
Copy(const ImageType * image, bool zero = false, unsigned int seed = 0)
{
  auto out = TImage::New();
  out->CopyInformation(image);
  out->SetRegions(image->GetLargestPossibleRegion());
  out->Allocate();
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(0.f, 1.f);
  const float * in = image->GetBufferPointer();
  float * o = out->GetBufferPointer();
  for (std::size_t i = 0; i < image->GetBufferedRegion().GetNumberOfPixels(); ++i)
    o[i] = zero ? 0.f : (seed ? uniform(generator) : in[i]);
  return out;
}

/** Whether every value is finite (a NaN or an infinity fails the comparisons). */
inline bool
AllFinite(const ImageType * image)
{
  const float * p = image->GetBufferPointer();
  for (std::size_t i = 0; i < image->GetBufferedRegion().GetNumberOfPixels(); ++i)
    if (!std::isfinite(p[i]))
      return false;
  return true;
}

/** The inner product of two images of the same grid, in double (adjointness checks). */
inline double
Dot(const ImageType * a, const ImageType * b)
{
  double sum = 0.;
  itk::ImageRegionConstIterator<ImageType> ia(a, a->GetBufferedRegion()), ib(b, b->GetBufferedRegion());
  for (; !ia.IsAtEnd(); ++ia, ++ib)
    sum += static_cast<double>(ia.Get()) * ib.Get();
  return sum;
}

/** The region the iterative tests measure: the 64^3 volume's central 32 rows along y. */
inline ImageType::RegionType
Central()
{
  ImageType::RegionType central(ImageType::SizeType{ { 64, 32, 64 } });
  central.SetIndex(1, 16);
  return central;
}

/** Runs filter->Update() and returns the mean absolute error of its output against `truth` in
 * `region` after each iteration (at each itk::IterationEvent). */
template <typename TFilter>
std::vector<double>
UpdateWatchingErrors(TFilter * filter, const ImageType * truth, const ImageType::RegionType & region)
{
  struct Context
  {
    std::vector<double> errors;
    const ImageType * truth;
    ImageType::RegionType region;
  } context{ {}, truth, region };
  auto observer = itk::CStyleCommand::New();
  observer->SetClientData(&context);
  observer->SetCallback([](itk::Object * caller, const itk::EventObject &, void * data) {
    auto * c = static_cast<Context *>(data);
    c->errors.push_back(Compare(static_cast<TFilter *>(caller)->GetOutput(), c->truth, c->region).meanAbsoluteError);
  });
  const unsigned long tag = filter->AddObserver(itk::IterationEvent(), observer);
  filter->Update();
  filter->RemoveObserver(tag);
  return context.errors;
}

/** Prints "<what>: MAE m, PSNR p dB; MAE per iteration: e1 e2 ...". */
inline void
PrintQuality(const std::string & what, const Quality & q, const std::vector<double> & errors)
{
  std::cout << what << ": MAE " << q.meanAbsoluteError << ", PSNR " << q.psnr << " dB; MAE per iteration:";
  for (double e : errors)
    std::cout << " " << e;
  std::cout << std::endl;
}

/** Expects filter->Update() to throw an itk::ExceptionObject whose description contains `word`. */
template <typename TFilter>
void
ExpectError(TFilter * filter, const std::string & word)
{
  try
  {
    filter->Update();
    FAIL() << "no exception for " << word;
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find(word), std::string::npos) << e.GetDescription();
  }
}

/** A skull-like shell, a brain and two inserts: the "ellipsoid phantom" of the iterative tests.
 * Its densities are all >= 0 (shell 1, brain 0.5, inserts 1 and 0.2), so it also suits OSEM. */
inline GeometricPhantom::Pointer
Ellipsoids()
{
  auto phantom = GeometricPhantom::New();
  auto add = [&](double density, std::array<double, 3> c, std::array<double, 3> a, double angle) {
    GeometricPhantom::Ellipsoid e;
    e.density = density;
    e.center = c;
    e.semiAxes = a;
    e.angleY = angle;
    phantom->AddEllipsoid(e);
  };
  add(1., { { 0., 0., 0. } }, { { 45., 40., 55. } }, 0.);
  add(-0.5, { { 0., 0., 0. } }, { { 40., 36., 50. } }, 0.);
  add(0.5, { { -15., 5., 10. } }, { { 12., 15., 8. } }, 0.5);
  add(-0.3, { { 18., -8., -12. } }, { { 8., 10., 14. } }, -0.3);
  return phantom;
}

} // namespace cbct::test

#endif
