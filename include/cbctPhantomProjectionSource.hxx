#ifndef cbctPhantomProjectionSource_hxx
#define cbctPhantomProjectionSource_hxx

#include "cbctDetectorCoordinates.h"

#include <itkImageScanlineIterator.h>
#include <itkTotalProgressReporter.h>
#include <vnl/algo/vnl_matrix_inverse.h>

namespace cbct
{

template <typename TOutputImage>
PhantomProjectionSource<TOutputImage>::PhantomProjectionSource()
{
  this->DynamicMultiThreadingOn();
}

template <typename TOutputImage>
void
PhantomProjectionSource<TOutputImage>::VerifyPreconditions() ITKv5_CONST
{
  Superclass::VerifyPreconditions();
  if (m_Geometry.IsNull() || m_Geometry->GetNumberOfProjections() == 0)
    ThrowBadParameter("PhantomProjectionSource geometry", "empty", "a geometry with at least one projection");
  if (m_Phantom.IsNull())
    ThrowBadParameter("PhantomProjectionSource phantom", "none", "a GeometricPhantom");
}

template <typename TOutputImage>
void
PhantomProjectionSource<TOutputImage>::GenerateOutputInformation()
{
  // The third axis is the projection axis: as many slices as the geometry has projections.
  if (m_Geometry.IsNotNull())
  {
    auto size = this->GetSize();
    size[2] = m_Geometry->GetNumberOfProjections();
    this->SetSize(size);
  }
  Superclass::GenerateOutputInformation();
}

template <typename TOutputImage>
void
PhantomProjectionSource<TOutputImage>::DynamicThreadedGenerateData(const OutputImageRegionType & region)
{
  TOutputImage * output = this->GetOutput();
  const DetectorCoordinates detector(output);
  const auto firstProjection = output->GetLargestPossibleRegion().GetIndex(2);
  itk::TotalProgressReporter progress(this, output->GetRequestedRegion().GetNumberOfPixels());

  itk::ImageScanlineIterator<TOutputImage> it(output, region);
  itk::IndexValueType currentSlice = itk::NumericTraits<itk::IndexValueType>::max();
  std::array<double, 3> source{};
  vnl_matrix_fixed<double, 3, 3> inverse;
  double sdd = 0.;
  bool parallel = false;
  unsigned int k = 0;
  while (!it.IsAtEnd())
  {
    const auto index = it.GetIndex();
    if (index[2] != currentSlice)
    {
      currentSlice = index[2];
      k = static_cast<unsigned int>(currentSlice - firstProjection);
      parallel = m_Geometry->IsParallel(k);
      const auto & m = m_Geometry->GetMatrix(k);
      vnl_matrix_fixed<double, 3, 3> left;
      for (unsigned int r = 0; r < 3; ++r)
        for (unsigned int c = 0; c < 3; ++c)
          left(r, c) = m(r, c);
      if (!parallel)
        inverse = vnl_matrix_inverse<double>(left.as_ref()).as_matrix();
      const auto s = m_Geometry->GetSourcePosition(k);
      source = { { s[0], s[1], s[2] } };
      sdd = m_Geometry->GetSourceToDetectorDistance(k);
    }
    while (!it.IsAtEndOfLine())
    {
      const auto pixel = it.GetIndex();
      const double u = detector.U(pixel[0], pixel[1]);
      const double v = detector.V(pixel[0], pixel[1]);
      double integral = 0.;
      if (parallel)
      {
        // The whole line through the pixel's detector point along the rays.
        const auto point = m_Geometry->GetDetectorPoint(k, u, v);
        const auto along = m_Geometry->GetRayDirection(k);
        integral = m_Phantom->LineIntegral({ { point[0], point[1], point[2] } }, { { along[0], along[1], along[2] } }, true);
      }
      else
      {
        // Detector point X satisfies M X + t = w (u, v, 1) with w = -SDD (see the geometry's header),
        // hence X - S = -SDD * M^-1 (u, v, 1); a cylindrical detector's pixel through the flat panel's
        // point of its ray.
        double fu = u, fv = v;
        if (!m_Geometry->IsCylindrical() || m_Geometry->FlatFromCylindrical(k, u, v, fu, fv))
        {
          std::array<double, 3> direction;
          for (unsigned int r = 0; r < 3; ++r)
            direction[r] = -sdd * (inverse(r, 0) * fu + inverse(r, 1) * fv + inverse(r, 2));
          integral = m_Phantom->LineIntegral(source, direction);
        }
      }
      it.Set(static_cast<typename TOutputImage::PixelType>(integral));
      ++it;
    }
    progress.Completed(region.GetSize(0));
    it.NextLine();
  }
}

} // namespace cbct

#endif
