#ifndef cbctPhantomVolumeSource_h
#define cbctPhantomVolumeSource_h

#include "cbctGeometricPhantom.h"
#include "cbctInputChecks.h"

#include <itkImageScanlineIterator.h>
#include <itkTotalProgressReporter.h>

#include <itkGenerateImageSource.h>

namespace cbct
{

/** \class PhantomVolumeSource
 * \brief The voxelized GeometricPhantom: ground truth for reconstructions.
 *
 * Each voxel is the mean density over Supersampling^3 points spread evenly inside it (1: the
 * voxel centre). Compare reconstructions against a supersampled reference (2 or more): centre
 * samples punish every edge voxel and hide half-voxel geometry errors. Multi-threaded, streams.
 * \ingroup ConeBeamCT
 */
template <typename TOutputImage>
class ITK_TEMPLATE_EXPORT PhantomVolumeSource : public itk::GenerateImageSource<TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(PhantomVolumeSource);

  using Self = PhantomVolumeSource;
  using Superclass = itk::GenerateImageSource<TOutputImage>;
  using Pointer = itk::SmartPointer<Self>;
  using OutputImageRegionType = typename TOutputImage::RegionType;

  itkNewMacro(Self);
  itkTypeMacro(PhantomVolumeSource, itk::GenerateImageSource);

  itkSetConstObjectMacro(Phantom, GeometricPhantom);
  itkGetConstObjectMacro(Phantom, GeometricPhantom);
  /** Samples per voxel along each axis (>= 1). */
  itkSetMacro(Supersampling, unsigned int);
  itkGetConstMacro(Supersampling, unsigned int);

protected:
  PhantomVolumeSource() { this->DynamicMultiThreadingOn(); }
  ~PhantomVolumeSource() override = default;

  void
  VerifyPreconditions() ITKv5_CONST override
  {
    Superclass::VerifyPreconditions();
    if (m_Phantom.IsNull())
      ThrowBadParameter("PhantomVolumeSource phantom", "none", "a GeometricPhantom");
    if (m_Supersampling < 1)
      ThrowBadParameter("PhantomVolumeSource supersampling", m_Supersampling, "an integer >= 1");
  }

  void
  DynamicThreadedGenerateData(const OutputImageRegionType & region) override
  {
    TOutputImage * output = this->GetOutput();
    const unsigned int n = m_Supersampling;
    itk::TotalProgressReporter progress(this, output->GetRequestedRegion().GetNumberOfPixels());
    itk::ImageScanlineIterator<TOutputImage> it(output, region);
    while (!it.IsAtEnd())
    {
      while (!it.IsAtEndOfLine())
      {
        const auto index = it.GetIndex();
        double sum = 0.;
        for (unsigned int a = 0; a < n; ++a)
          for (unsigned int b = 0; b < n; ++b)
            for (unsigned int c = 0; c < n; ++c)
            {
              itk::ContinuousIndex<double, 3> sub;
              sub[0] = index[0] + (c + 0.5) / n - 0.5;
              sub[1] = index[1] + (b + 0.5) / n - 0.5;
              sub[2] = index[2] + (a + 0.5) / n - 0.5;
              typename TOutputImage::PointType point;
              output->TransformContinuousIndexToPhysicalPoint(sub, point);
              sum += m_Phantom->Density({ { point[0], point[1], point[2] } });
            }
        it.Set(static_cast<typename TOutputImage::PixelType>(sum / (n * n * n)));
        ++it;
      }
      progress.Completed(region.GetSize(0));
      it.NextLine();
    }
  }

private:
  GeometricPhantom::ConstPointer m_Phantom;
  unsigned int m_Supersampling = 1;
};

} // namespace cbct

#endif
