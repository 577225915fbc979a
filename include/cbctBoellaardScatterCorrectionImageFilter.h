#ifndef cbctBoellaardScatterCorrectionImageFilter_h
#define cbctBoellaardScatterCorrectionImageFilter_h

#include <itkImageToImageFilter.h>

#include <vector>

namespace cbct
{

/** \class BoellaardScatterCorrectionImageFilter
 * \brief Subtracts a constant scatter estimate from each projection of intensities (Boellaard et al.,
 * Med Phys 1997; RTK's --spr, --nonneg and --airthres).
 *
 * Scatter is taken as the same in every pixel of a projection, in proportion to the signal behind the
 * object. Per projection, with N its number of pixels:
 *   behind = (sum of the pixels <= AirThreshold) / N   (pixels above it saw air and count as 0),
 *   scatter = ScatterToPrimaryRatio * behind, lowered where needed so that the darkest pixel keeps at
 *   least NonNegativityThreshold: scatter = min(scatter, darkest - NonNegativityThreshold);
 * and every pixel loses `scatter`. It works on intensities (before the logarithm), on whole projections.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT BoellaardScatterCorrectionImageFilter : public itk::ImageToImageFilter<TImage, TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(BoellaardScatterCorrectionImageFilter);

  using Self = BoellaardScatterCorrectionImageFilter;
  using Superclass = itk::ImageToImageFilter<TImage, TImage>;
  using Pointer = itk::SmartPointer<Self>;
  using OutputImageRegionType = typename TImage::RegionType;

  itkNewMacro(Self);
  itkTypeMacro(BoellaardScatterCorrectionImageFilter, itk::ImageToImageFilter);

  /** Pixels above this saw air (32000 by default, RTK's). */
  itkSetMacro(AirThreshold, double);
  itkGetConstMacro(AirThreshold, double);
  /** Scatter as a fraction of the mean signal behind the object (0 by default: no correction). */
  itkSetMacro(ScatterToPrimaryRatio, double);
  itkGetConstMacro(ScatterToPrimaryRatio, double);
  /** The darkest pixel keeps at least this (20 by default, RTK's). */
  itkSetMacro(NonNegativityThreshold, double);
  itkGetConstMacro(NonNegativityThreshold, double);

  /** The scatter subtracted from each projection of the largest region in the last update. */
  const std::vector<double> &
  GetScatter() const
  {
    return m_Scatter;
  }

protected:
  BoellaardScatterCorrectionImageFilter();
  ~BoellaardScatterCorrectionImageFilter() override = default;

  void
  VerifyPreconditions() ITKv5_CONST override;
  /** Whole projections: the scatter of a projection depends on all its pixels. */
  void
  GenerateInputRequestedRegion() override;
  void
  BeforeThreadedGenerateData() override;
  void
  DynamicThreadedGenerateData(const OutputImageRegionType & region) override;
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  double m_AirThreshold = 32000.;
  double m_ScatterToPrimaryRatio = 0.;
  double m_NonNegativityThreshold = 20.;
  std::vector<double> m_Scatter;
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctBoellaardScatterCorrectionImageFilter.hxx"
#endif

#endif
