#ifndef cbctConstantImageSource_h
#define cbctConstantImageSource_h

#include <itkGenerateImageSource.h>
#include <itkImageScanlineIterator.h>

namespace cbct
{

/** \class ConstantImageSource
 * \brief An image of given size, spacing, origin and direction filled with one value.
 *
 * The usual first input of a reconstruction: it says on which grid to reconstruct. Generates only
 * the requested region, so it streams.
 * \ingroup ConeBeamCT
 */
template <typename TOutputImage>
class ITK_TEMPLATE_EXPORT ConstantImageSource : public itk::GenerateImageSource<TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(ConstantImageSource);

  using Self = ConstantImageSource;
  using Superclass = itk::GenerateImageSource<TOutputImage>;
  using Pointer = itk::SmartPointer<Self>;
  using PixelType = typename TOutputImage::PixelType;
  using OutputImageRegionType = typename TOutputImage::RegionType;

  itkNewMacro(Self);
  itkTypeMacro(ConstantImageSource, itk::GenerateImageSource);

  itkSetMacro(Constant, PixelType);
  itkGetConstMacro(Constant, PixelType);

protected:
  ConstantImageSource()
  {
    this->DynamicMultiThreadingOn();
    m_Constant = itk::NumericTraits<PixelType>::ZeroValue();
  }
  ~ConstantImageSource() override = default;

  void
  DynamicThreadedGenerateData(const OutputImageRegionType & region) override
  {
    itk::ImageScanlineIterator<TOutputImage> it(this->GetOutput(), region);
    while (!it.IsAtEnd())
    {
      while (!it.IsAtEndOfLine())
      {
        it.Set(m_Constant);
        ++it;
      }
      it.NextLine();
    }
  }

  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "Constant: " << m_Constant << std::endl;
  }

private:
  PixelType m_Constant;
};

} // namespace cbct

#endif
