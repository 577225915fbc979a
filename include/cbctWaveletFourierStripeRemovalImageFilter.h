#ifndef cbctWaveletFourierStripeRemovalImageFilter_h
#define cbctWaveletFourierStripeRemovalImageFilter_h

#include "cbctStripeRemovalImageFilter.h"
#include "cbctWaveletFourierStripeRemoval.h"

#include <memory>

namespace cbct
{

/** \class WaveletFourierStripeRemovalImageFilter
 * \brief Münch et al.'s combined wavelet-Fourier stripe removal (WaveletFourierStripeRemoval: Opt.
 * Express 17:8567, 2009; TomoPy's remove_stripe_fw; `--rings wavelet`) on every detector row of a
 * projection stack of line integrals (StripeRemovalImageFilter says what a row means in cone beam).
 *
 * Parameters as TomoPy names them: Level (0: automatic), Wavelet ("db5"), Sigma (2: the damping's
 * width in frequency indices; larger removes stripes that vary more along the angle, and more of the
 * object) and Pad (true).
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT WaveletFourierStripeRemovalImageFilter : public StripeRemovalImageFilter<TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(WaveletFourierStripeRemovalImageFilter);

  using Self = WaveletFourierStripeRemovalImageFilter;
  using Superclass = StripeRemovalImageFilter<TImage>;
  using Pointer = itk::SmartPointer<Self>;
  using ParametersType = WaveletFourierStripeRemoval::Parameters;

  itkNewMacro(Self);
  itkTypeMacro(WaveletFourierStripeRemovalImageFilter, StripeRemovalImageFilter);

  void
  SetParameters(const ParametersType & parameters)
  {
    m_Parameters = parameters;
    this->Modified();
  }
  const ParametersType &
  GetParameters() const
  {
    return m_Parameters;
  }
  /** The level the last update used (the automatic one when Level is 0). */
  unsigned int
  GetLevelUsed() const
  {
    return m_Removal ? m_Removal->GetLevel() : 0;
  }

protected:
  WaveletFourierStripeRemovalImageFilter() = default;
  /** The sinogram filter of the update under way (after BeforeSinograms()). */
  const WaveletFourierStripeRemoval *
  GetRemoval() const
  {
    return m_Removal.get();
  }
  ~WaveletFourierStripeRemovalImageFilter() override = default;

  void
  BeforeSinograms(std::size_t projections, std::size_t columns) override
  {
    m_Removal = std::make_unique<WaveletFourierStripeRemoval>(m_Parameters, projections, columns);
  }
  void
  FilterSinogram(const float * in, std::ptrdiff_t inStride, float * out, std::ptrdiff_t outStride) const override
  {
    m_Removal->Filter(in, inStride, out, outStride);
  }
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "Level: " << m_Parameters.level << ", Wavelet: " << m_Parameters.wavelet
       << ", Sigma: " << m_Parameters.sigma << ", Pad: " << m_Parameters.pad << std::endl;
  }

private:
  ParametersType m_Parameters;
  std::unique_ptr<WaveletFourierStripeRemoval> m_Removal;
};

} // namespace cbct

#endif
