#ifndef cbctRowBandRegionOfInterestImageFilter_h
#define cbctRowBandRegionOfInterestImageFilter_h

#include <itkRegionOfInterestImageFilter.h>

namespace cbct
{

/** \class RowBandRegionOfInterestImageFilter
 * \brief itk::RegionOfInterestImageFilter that asks its input for only the part of the region of
 * interest that is requested of it.
 *
 * ITK's filter enlarges the region requested of it to its whole output and asks for its whole region
 * of interest, so a pipeline that wants a band of detector rows (an MPI rank's) would read every
 * row. Its pixels are copied from the requested part alone, so asking for that part is enough; the
 * output is the same. */
template <typename TImage>
class RowBandRegionOfInterestImageFilter : public itk::RegionOfInterestImageFilter<TImage, TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(RowBandRegionOfInterestImageFilter);

  using Self = RowBandRegionOfInterestImageFilter;
  using Superclass = itk::RegionOfInterestImageFilter<TImage, TImage>;
  using Pointer = itk::SmartPointer<Self>;
  using ConstPointer = itk::SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(RowBandRegionOfInterestImageFilter, itk::RegionOfInterestImageFilter);

protected:
  RowBandRegionOfInterestImageFilter() = default;
  ~RowBandRegionOfInterestImageFilter() override = default;

  /** The region requested stays as it is (ITK's filter makes it the whole output). */
  void
  EnlargeOutputRequestedRegion(itk::DataObject *) override
  {}

  void
  GenerateInputRequestedRegion() override
  {
    Superclass::GenerateInputRequestedRegion(); // the whole region of interest
    auto * input = const_cast<TImage *>(this->GetInput());
    if (!input)
      return;
    // The output's index i is the input's ROI start + i (the output starts at index 0).
    auto region = this->GetOutput()->GetRequestedRegion();
    const auto & roi = this->GetRegionOfInterest();
    for (unsigned int d = 0; d < TImage::ImageDimension; ++d)
      region.SetIndex(d, region.GetIndex(d) + roi.GetIndex(d));
    if (roi.IsInside(region))
      input->SetRequestedRegion(region);
  }
};

} // namespace cbct

#endif
