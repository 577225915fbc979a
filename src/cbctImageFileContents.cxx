#include "cbctImageFileContents.h"

#include "cbctImageFileMeasures.h"
#include "cbctInputChecks.h"
#include "cbctPngDecoding.h"

#include <itkImageIOBase.h>
#include <itkImageIOFactory.h>

#include <limits>
#include <sstream>

namespace cbct
{

namespace
{
constexpr std::uint64_t Saturated = std::numeric_limits<std::uint64_t>::max();

std::uint64_t
Multiply(std::uint64_t a, std::uint64_t b)
{
  std::uint64_t product;
  return __builtin_mul_overflow(a, b, &product) ? Saturated : product;
}
} // namespace

std::uint64_t
ImageFileContents::Pixels() const
{
  std::uint64_t pixels = 1;
  for (std::uint64_t n : m_Dimensions)
    pixels = Multiply(pixels, n);
  return pixels;
}

std::string
ImageFileContents::Description() const
{
  std::ostringstream text;
  for (std::size_t d = 0; d < m_Dimensions.size(); ++d)
    text << (d ? " x " : "") << m_Dimensions[d];
  text << " pixels of " << (m_Components > 1 ? std::to_string(m_Components) + " x " : std::string()) << m_ComponentName;
  return text.str();
}

ImageFileContents
ImageFileContents::Inspect(const std::string & path)
{
  ImageFileContents contents;
  contents.m_Path = path;
  // Before ITK's factory: its TIFF reader's CanReadFile() already walks the directories with libtiff,
  // which never ends on a chain that loops back (CheckTiffTags() refuses it; a file that is not a TIFF
  // is left alone).
  detail::CheckTiffTags(path);
  itk::ImageIOBase::Pointer io = itk::ImageIOFactory::CreateImageIO(path.c_str(), itk::IOFileModeEnum::ReadMode);
  if (io.IsNull())
  {
    // HDF5 (and MINC2) refuses to open a file shorter than its superblock says: say so in bytes.
    const detail::Measurement hdf5 = detail::MeasureHdf5(path);
    if (hdf5.measured && hdf5.found < hdf5.expected)
    {
      contents.m_Format = "HDF5";
      contents.m_Files = { path };
      contents.m_Measured = true;
      contents.m_Expected = hdf5.expected;
      contents.m_Found = hdf5.found;
      contents.m_Unit = hdf5.unit;
      contents.m_ShortFile = path;
      contents.m_Subject = hdf5.subject;
      contents.m_Why = hdf5.why;
      return contents;
    }
    ThrowBadParameter("image file " + path, "in no format ITK reads", "an image file (.mha, .mhd, .nrrd, .nii, .tif, ...)");
  }
  // The ImageIO's name without "ImageIO" (MetaImageIO: "MetaImage").
  std::string format = io->GetNameOfClass();
  if (format.size() > 7 && format.compare(format.size() - 7, 7, "ImageIO") == 0)
    format.erase(format.size() - (format == "MetaImageIO" ? 2 : 7));
  contents.m_Format = format;
  if (format == "MetaImage")
    detail::CheckMetaImageHeader(path);
  if (format == "Nifti")
    detail::CheckNiftiHeader(path);
  // A PNG is decoded whole first: ITK 5.2's reader lets libpng abort the process on a damaged chunk.
  // One whose header does not even decode is not handed to ITK at all: it is reported cut short
  // when it is (the clearer message), damaged otherwise.
  if (format == "PNG")
  {
    const detail::PngDecoding png = detail::DecodePng(path);
    contents.m_Damage = png.error;
    if (!png.headerRead)
    {
      const detail::Measurement m = detail::MeasurePng(path);
      contents.m_Files = { path };
      contents.m_Measured = m.measured;
      contents.m_Expected = m.expected;
      contents.m_Found = m.found;
      contents.m_Unit = m.unit;
      contents.m_ShortFile = path;
      contents.m_Subject = m.subject;
      contents.m_Why = m.why;
      return contents;
    }
  }
  io->SetFileName(path);
  io->ReadImageInformation();
  for (unsigned int d = 0; d < io->GetNumberOfDimensions(); ++d)
    contents.m_Dimensions.push_back(io->GetDimensions(d));
  contents.m_Components = io->GetNumberOfComponents();
  contents.m_ComponentName = itk::ImageIOBase::GetComponentTypeAsString(io->GetComponentType());
  if (io->GetComponentType() == itk::IOComponentEnum::UNKNOWNCOMPONENTTYPE)
    ThrowBadParameter("pixel type of " + path, "unknown", "a known pixel type (integers or floating point)");
  contents.m_ComponentBytes = static_cast<unsigned int>(io->GetComponentSize());
  const std::uint64_t values = Multiply(contents.Pixels(), contents.m_Components);
  const std::uint64_t bytes = Multiply(values, contents.m_ComponentBytes);

  detail::Measurement m;
  if (format == "MetaImage")
    m = detail::MeasureMetaImage(path, bytes, values);
  else if (format == "Nrrd")
    m = detail::MeasureNrrd(path, bytes, values);
  else if (format == "Nifti")
    m = detail::MeasureNifti(path, bytes);
  else if (format == "TIFF")
    m = detail::MeasureTiff(path);
  else if (format == "VTK")
    m = detail::MeasureVtk(path, bytes, values);
  else if (format == "Gipl")
    m = detail::MeasureGipl(path, bytes);
  else if (format == "MRC")
    m = detail::MeasureMrc(path, bytes);
  else if (format == "BMP")
    m = detail::MeasureBmp(path);
  else if (format == "PNG")
    m = detail::MeasurePng(path);
  else if (format == "JPEG")
    m = detail::MeasureJpeg(path);
  else if (format == "HDF5" || format == "MINC")
    m = detail::MeasureHdf5(path);

  contents.m_Files.push_back(path);
  for (const std::string & file : m.dataFiles)
    if (file != path)
      contents.m_Files.push_back(file);
  contents.m_Measured = m.measured;
  contents.m_Expected = m.expected;
  contents.m_Found = m.found;
  contents.m_Unit = m.unit;
  contents.m_ShortFile = m.shortFile.empty() ? path : m.shortFile;
  contents.m_Subject = m.subject.empty() ? "pixel data of " + path : m.subject;
  contents.m_Why = m.why;
  return contents;
}

void
ImageFileContents::CheckComplete() const
{
  if (this->Complete() && !this->Intact())
    ThrowBadParameter(m_Format + " file " + m_Path, "damaged (libpng: " + m_Damage + ")",
                      "a file whose chunks, checksums and pixel data decode whole");
  if (this->Complete())
    return;
  std::ostringstream found, expected;
  found << m_Found << " " << m_Unit;
  expected << m_Expected << " " << m_Unit << " (";
  if (m_Unit == "bytes" || m_Unit == "values")
    expected << this->Description() << ", ";
  expected << m_Why << "): the file is cut short";
  if (m_Unit == "bytes of file")
    ThrowBadParameter(m_Subject, found.str(), "at least " + expected.str());
  ThrowBadParameter(m_Subject, found.str(), expected.str());
}

ImageFileContents
ImageFileContents::InspectAndCheck(const std::string & path)
{
  ImageFileContents contents = Inspect(path);
  contents.CheckComplete();
  return contents;
}

} // namespace cbct
