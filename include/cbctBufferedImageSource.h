#ifndef cbctBufferedImageSource_h
#define cbctBufferedImageSource_h

#include <itkImageSource.h>

namespace cbct
{

/** \class BufferedImageSource
 * \brief An image already in memory, handed to a pipeline with its largest possible region kept.
 *
 * An image without a source takes its buffered region for its largest possible one when a pipeline
 * updates. A band of detector rows read for an MPI rank must instead stay a band of the whole
 * projections, so that the filters after it (cropping, I0 from whole projections) see the whole
 * detector's grid; and a slab of the volume summed over a batch of projections must stay a slab of the
 * volume for the next batch (FDKConeBeamReconstructionFilter). The output is the image itself
 * (grafted): a filter running in place on it writes into the image's buffer.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class BufferedImageSource : public itk::ImageSource<TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(BufferedImageSource);

  using Self = BufferedImageSource;
  using Superclass = itk::ImageSource<TImage>;
  using Pointer = itk::SmartPointer<Self>;
  using ConstPointer = itk::SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(BufferedImageSource, itk::ImageSource);

  /** The image to hand out: its largest possible region, spacing, origin and direction, and its
   * buffer (which must hold what the pipeline requests). */
  void
  SetImage(TImage * image)
  {
    if (m_Image != image)
    {
      m_Image = image;
      this->Modified();
    }
  }

protected:
  BufferedImageSource() = default;
  ~BufferedImageSource() override = default;

  void
  GenerateOutputInformation() override
  {
    if (!m_Image)
      itkExceptionMacro("no image given (SetImage)");
    this->GetOutput()->CopyInformation(m_Image);
    this->GetOutput()->SetLargestPossibleRegion(m_Image->GetLargestPossibleRegion());
  }

  void
  GenerateData() override
  {
    const auto & requested = this->GetOutput()->GetRequestedRegion();
    if (!m_Image->GetBufferedRegion().IsInside(requested))
      itkExceptionMacro("the region requested, " << requested << ", is outside the rows held, "
                                                 << m_Image->GetBufferedRegion());
    this->GraftOutput(m_Image);
  }

  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "Image: " << m_Image.GetPointer() << std::endl;
  }

private:
  typename TImage::Pointer m_Image;
};

} // namespace cbct

#endif
