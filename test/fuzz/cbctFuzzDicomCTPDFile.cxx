// libFuzzer target: the DICOM-CT-PD projection reader (cbct::DicomCTPDImageIO) through
// itk::ImageFileReader, as the scan importer and every app open these files (the reader given its
// ImageIO, so that no other DICOM reader is tried): the Part 10 preamble and meta information, the
// data set's elements and sequences (cbct::DicomDataSet, every length against the file), the format's
// tags (cbct::DicomCTPDFile, each checked), then the 16-bit pixels turned into the detector image. Any
// input must be refused with an itk::ExceptionObject or read; nothing may crash, leak or allocate more
// than the file can fill. Seeds: corpus/cbctFuzzDicomCTPDFile (projections of 8 x 4 elements written by
// GDCM as cbctDicomCTPDScanTest writes them: explicit and implicit VR, both pixel layouts, a flying
// focal spot, photon statistics).
#include "cbctDicomCTPDImageIO.h"
#include "cbctFuzzInput.h"

#include <itkImage.h>
#include <itkImageFileReader.h>

extern "C" int
LLVMFuzzerInitialize(int *, char ***)
{
  itk::Object::GlobalWarningDisplayOff();
  return 0;
}

extern "C" int
LLVMFuzzerTestOneInput(const std::uint8_t * data, std::size_t size)
{
  const std::string path = cbct::fuzz::WriteInput(data, size, "projection.dcm");
  try
  {
    auto io = cbct::DicomCTPDImageIO::New();
    io->CanReadFile(path.c_str());
    auto reader = itk::ImageFileReader<itk::Image<float, 2>>::New();
    reader->SetImageIO(io);
    reader->SetFileName(path);
    reader->Update();
  }
  catch (const itk::ExceptionObject &)
  {
  }
  return 0;
}
