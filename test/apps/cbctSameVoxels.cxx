// cbctSameVoxels REFERENCE VOLUME: exit status 0 when VOLUME holds the voxels of REFERENCE bit for bit
// (headers aside), 1 otherwise, saying how many differ. VOLUME may be a TIFF stack of one file per
// slice (a name with a printf integer conversion, e.g. slices/slice_%04d.tif: slice y is the x-z plane
// at y, as cbct-fdk writes it). For the app tests of a memory budget: a streamed run must give the
// in-memory run's volume exactly.
#include "cbctSlabVolumeWriter.h"

#include <itkImageFileReader.h>

#include <cmath>
#include <cstring>
#include <iostream>

using ImageType = itk::Image<float, 3>;

int
main(int argc, char ** argv)
{
  if (argc != 3)
  {
    std::cerr << "usage: cbctSameVoxels REFERENCE VOLUME" << std::endl;
    return 2;
  }
  try
  {
    auto reader = itk::ImageFileReader<ImageType>::New();
    reader->SetFileName(argv[1]);
    reader->Update();
    const ImageType * reference = reader->GetOutput();
    const auto size = reference->GetLargestPossibleRegion().GetSize();
    std::size_t differ = 0, compared = 0;
    auto same = [&](float a, float b) {
      ++compared;
      if (std::memcmp(&a, &b, sizeof(float)) != 0)
        ++differ;
    };
    const std::string volume = argv[2];
    if (cbct::SlabVolumeWriter::IsSliceStack(volume))
    {
      for (std::size_t y = 0; y < size[1]; ++y)
      {
        auto slice = itk::ImageFileReader<itk::Image<float, 2>>::New();
        slice->SetFileName(cbct::SlabVolumeWriter::SliceFile(volume, static_cast<long long>(y)));
        slice->Update();
        const auto sliceSize = slice->GetOutput()->GetLargestPossibleRegion().GetSize();
        if (sliceSize[0] != size[0] || sliceSize[1] != size[2])
        {
          std::cerr << "slice " << y << " has " << sliceSize << " pixels; expected " << size[0] << " x " << size[2] << std::endl;
          return 1;
        }
        for (itk::IndexValueType z = 0; z < static_cast<itk::IndexValueType>(size[2]); ++z)
          for (itk::IndexValueType x = 0; x < static_cast<itk::IndexValueType>(size[0]); ++x)
            same(slice->GetOutput()->GetPixel({ { x, z } }),
                 reference->GetPixel({ { x, static_cast<itk::IndexValueType>(y), z } }));
      }
      if (itksys::SystemTools::FileExists(cbct::SlabVolumeWriter::SliceFile(volume, static_cast<long long>(size[1]))))
      {
        std::cerr << "the stack has a slice beyond the volume's " << size[1] << std::endl;
        return 1;
      }
    }
    else
    {
      auto other = itk::ImageFileReader<ImageType>::New();
      other->SetFileName(volume);
      other->Update();
      if (other->GetOutput()->GetLargestPossibleRegion().GetSize() != size)
      {
        std::cerr << volume << " has " << other->GetOutput()->GetLargestPossibleRegion().GetSize() << " voxels; expected "
                  << size << std::endl;
        return 1;
      }
      const std::size_t n = reference->GetLargestPossibleRegion().GetNumberOfPixels();
      for (std::size_t i = 0; i < n; ++i)
        same(other->GetOutput()->GetBufferPointer()[i], reference->GetBufferPointer()[i]);
    }
    if (differ > 0)
    {
      std::cerr << differ << " of " << compared << " voxels differ" << std::endl;
      return 1;
    }
    std::cout << compared << " voxels, bit for bit the same" << std::endl;
    return 0;
  }
  catch (const itk::ExceptionObject & e)
  {
    std::cerr << e.GetDescription() << std::endl;
    return 1;
  }
}
