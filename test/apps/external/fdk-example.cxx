// Reader -> FDK -> writer: a cone-beam reconstruction as an ITK pipeline (docs/guide/cpp.md's example).
#include "cbctConstantImageSource.h"
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctThreeDCircularProjectionGeometryXMLFileReader.h"

#include <itkImageFileReader.h>
#include <itkImageFileWriter.h>

int
main(int argc, char * argv[])
{
  if (argc != 4)
  {
    std::cerr << "usage: " << argv[0] << " geometry.xml projections.mha volume.mha" << std::endl;
    return 1;
  }
  using ImageType = itk::Image<float, 3>;
  try
  {
    // The scan geometry (RTK's XML).
    auto geometryReader = cbct::ThreeDCircularProjectionGeometryXMLFileReader::New();
    geometryReader->SetFilename(argv[1]);
    geometryReader->GenerateOutputInformation();

    // The projections: line integrals, u x v x projection.
    auto projections = itk::ImageFileReader<ImageType>::New();
    projections->SetFileName(argv[2]);

    // The grid to reconstruct on: 64^3 voxels of 2 mm centred on the isocenter.
    auto volume = cbct::ConstantImageSource<ImageType>::New();
    ImageType::SizeType size;
    size.Fill(64);
    ImageType::SpacingType spacing;
    spacing.Fill(2.);
    ImageType::PointType origin;
    origin.Fill(-0.5 * (64 - 1) * 2.);
    volume->SetSize(size);
    volume->SetSpacing(spacing);
    volume->SetOrigin(origin);

    auto fdk = cbct::FDKConeBeamReconstructionFilter<ImageType>::New();
    fdk->SetInput(0, volume->GetOutput());
    fdk->SetProjections(projections->GetOutput());
    fdk->SetGeometry(geometryReader->GetGeometry());
    fdk->GetRampFilter()->SetWindow(cbct::RampWindow::Hann);

    auto writer = itk::ImageFileWriter<ImageType>::New();
    writer->SetFileName(argv[3]);
    writer->SetInput(fdk->GetOutput());
    writer->Update();
  }
  catch (const itk::ExceptionObject & e)
  {
    std::cerr << "error: " << e.GetDescription() << std::endl;
    return 1;
  }
  return 0;
}
