#include "cbctSlabVolumeWriter.h"

#include "cbctAtomicOutput.h"
#include "cbctImageFileContents.h"

#include <itkImageFileWriter.h>
#include <itkMetaDataObject.h>
#include <itkImageIOFactory.h>
#include <itkTIFFImageIO.h>
#include <itksys/SystemTools.hxx>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <regex>
#include <sstream>

#include <fcntl.h>
#include <unistd.h>

namespace cbct
{

namespace
{
using ImageType = SlabVolumeWriter::ImageType;

std::string
Lower(const std::string & text)
{
  return itksys::SystemTools::LowerCase(text);
}

bool
EndsWith(const std::string & text, const std::string & suffix)
{
  return text.size() > suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

[[noreturn]] void
Fail(const std::string & message)
{
  itkGenericExceptionMacro(<< message);
}

/** The pixels of rows [y0, y0 + h) of `slab` for plane z: nx x h floats, contiguous in the slab. */
const float *
SlabRows(const ImageType * slab, itk::IndexValueType z)
{
  const auto & buffered = slab->GetBufferedRegion();
  const std::size_t plane = buffered.GetSize(0) * buffered.GetSize(1);
  return slab->GetBufferPointer() + static_cast<std::size_t>(z - buffered.GetIndex(2)) * plane;
}
} // namespace

/** Where and how the slabs go. */
class SlabVolumeWriter::Layout
{
public:
  virtual ~Layout() = default;
  virtual void
  Write(const ImageType * slab) = 0;
  virtual void
  Commit() = 0;
  void
  SetProtectedFiles(const std::vector<std::string> & files)
  {
    m_Output->SetProtectedFiles(files);
  }

protected:
  std::unique_ptr<AtomicOutput> m_Output;
};

/** MetaImage: each slab pasted by ITK's streamed writer. */
class SlabVolumeWriter::MetaImageLayout : public SlabVolumeWriter::Layout
{
public:
  MetaImageLayout(const std::string & path, const ImageType * volume)
    : m_Volume(volume)
  {
    m_Output = std::make_unique<AtomicOutput>(path);
  }
  void
  Write(const ImageType * slab) override
  {
    // ITK's MetaImage writer (from the factory: the module does not depend on ITKIOMeta).
    itk::ImageIOBase::Pointer io =
      itk::ImageIOFactory::CreateImageIO(m_Output->TemporaryPath().c_str(), itk::IOFileModeEnum::WriteMode);
    if (io.IsNull() || std::string(io->GetNameOfClass()) != "MetaImageIO")
      Fail("no MetaImage writer is registered for " + m_Output->FinalPath());
    io->SetMetaDataDictionary(m_Volume->GetMetaDataDictionary());
    auto writer = itk::ImageFileWriter<ImageType>::New();
    writer->SetFileName(m_Output->TemporaryPath());
    writer->SetImageIO(io);
    writer->SetUseInputMetaDataDictionary(false);
    writer->UseCompressionOff();
    writer->SetInput(slab);
    const auto & region = slab->GetBufferedRegion();
    itk::ImageIORegion paste(3);
    for (unsigned int d = 0; d < 3; ++d)
    {
      paste.SetIndex(d, region.GetIndex(d) - slab->GetLargestPossibleRegion().GetIndex(d));
      paste.SetSize(d, region.GetSize(d));
    }
    writer->SetIORegion(paste);
    writer->Update();
  }
  void
  Commit() override
  {
    ImageFileContents::Inspect(m_Output->TemporaryPath()).CheckComplete();
    m_Output->Commit();
  }

private:
  const ImageType * m_Volume;
};

/** NRRD: the header written here, the rows of each slab at their offsets. */
class SlabVolumeWriter::NrrdLayout : public SlabVolumeWriter::Layout
{
public:
  NrrdLayout(const std::string & path, const ImageType * volume)
  {
    static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the NRRD header says endian: little");
    m_Output = std::make_unique<AtomicOutput>(path);
    const bool detached = EndsWith(Lower(path), ".nhdr");
    const std::string header = m_Output->TemporaryPath();
    m_DataPath = detached ? header.substr(0, header.size() - 5) + ".raw" : header;
    const auto & whole = volume->GetLargestPossibleRegion();
    m_Size = whole.GetSize();
    std::ostringstream text;
    text << std::setprecision(17);
    text << "NRRD0004\n# Complete NRRD file format specification at:\n# http://teem.sourceforge.net/nrrd/format.html\n";
    text << "type: float\ndimension: 3\nspace: left-posterior-superior\n";
    text << "sizes: " << m_Size[0] << " " << m_Size[1] << " " << m_Size[2] << "\n";
    text << "space directions:";
    for (unsigned int c = 0; c < 3; ++c)
      text << " (" << volume->GetDirection()(0, c) * volume->GetSpacing()[c] << ","
           << volume->GetDirection()(1, c) * volume->GetSpacing()[c] << ","
           << volume->GetDirection()(2, c) * volume->GetSpacing()[c] << ")";
    text << "\nkinds: domain domain domain\nendian: little\nencoding: raw\n";
    // The origin of the largest possible region's first voxel (a region may start elsewhere than 0).
    ImageType::PointType origin;
    volume->TransformIndexToPhysicalPoint(whole.GetIndex(), origin);
    text << "space origin: (" << origin[0] << "," << origin[1] << "," << origin[2] << ")\n";
    const itk::MetaDataDictionary & dictionary = volume->GetMetaDataDictionary();
    for (const std::string & key : dictionary.GetKeys())
    {
      std::string value;
      if (key.find(':') != std::string::npos || key.empty() || key.find('\n') != std::string::npos ||
          !itk::ExposeMetaData<std::string>(dictionary, key, value))
        continue;
      std::replace(value.begin(), value.end(), '\n', ' ');
      text << key << ":=" << value << "\n";
    }
    if (detached)
      text << "data file: " << itksys::SystemTools::GetFilenameName(m_DataPath) << "\n";
    text << "\n";
    const std::string bytes = text.str();
    m_Offset = detached ? 0 : bytes.size();
    WholeFile(header, bytes, detached ? 0 : m_Offset + DataBytes());
    if (detached)
      WholeFile(m_DataPath, std::string(), DataBytes());
  }
  void
  Write(const ImageType * slab) override
  {
    const auto & region = slab->GetBufferedRegion();
    const std::size_t rowBytes = m_Size[0] * sizeof(float);
    const std::size_t bytes = rowBytes * region.GetSize(1);
    const int file = open(m_DataPath.c_str(), O_WRONLY);
    if (file < 0)
      Fail("could not open " + m_DataPath + ": " + std::strerror(errno));
    for (itk::IndexValueType z = region.GetIndex(2); z < region.GetIndex(2) + static_cast<long>(region.GetSize(2)); ++z)
    {
      const off_t at = static_cast<off_t>(m_Offset + (static_cast<std::size_t>(z) * m_Size[1] + static_cast<std::size_t>(region.GetIndex(1))) * rowBytes);
      const char * data = reinterpret_cast<const char *>(SlabRows(slab, z));
      for (std::size_t done = 0; done < bytes;)
      {
        const ssize_t wrote = pwrite(file, data + done, bytes - done, at + static_cast<off_t>(done));
        if (wrote <= 0)
        {
          const std::string why = std::strerror(errno);
          close(file);
          Fail("could not write " + m_DataPath + ": " + why);
        }
        done += static_cast<std::size_t>(wrote);
      }
    }
    if (close(file) != 0)
      Fail("could not write " + m_DataPath + ": " + std::strerror(errno));
  }
  void
  Commit() override
  {
    ImageFileContents::Inspect(m_Output->TemporaryPath()).CheckComplete();
    m_Output->Commit();
  }

private:
  std::uint64_t
  DataBytes() const
  {
    return static_cast<std::uint64_t>(m_Size[0]) * m_Size[1] * m_Size[2] * sizeof(float);
  }
  /** Writes `text` to `path` and makes the file `size` bytes (when larger; sparse). */
  static void
  WholeFile(const std::string & path, const std::string & text, std::uint64_t size)
  {
    const int file = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (file < 0)
      Fail("could not create " + path + ": " + std::strerror(errno));
    bool ok = text.empty() || write(file, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    if (ok && size > text.size())
      ok = ftruncate(file, static_cast<off_t>(size)) == 0;
    const std::string why = std::strerror(errno);
    if (close(file) != 0 || !ok)
      Fail("could not write " + path + ": " + why);
  }

  std::string m_DataPath;
  std::uint64_t m_Offset = 0;
  ImageType::SizeType m_Size;
};

/** A TIFF file per x-z slice, numbered along y. */
class SlabVolumeWriter::SliceStackLayout : public SlabVolumeWriter::Layout
{
public:
  SliceStackLayout(const std::string & pattern, const ImageType * volume)
    : m_Pattern(pattern)
    , m_Volume(volume)
  {
    const auto & whole = volume->GetLargestPossibleRegion();
    m_FirstY = whole.GetIndex(1);
    // The last slice names the output: it is moved into place last, after every other slice.
    m_Output = std::make_unique<AtomicOutput>(SliceFile(pattern, static_cast<long long>(whole.GetSize(1)) - 1));
    m_Directory = itksys::SystemTools::GetFilenamePath(m_Output->TemporaryPath());
  }
  void
  Write(const ImageType * slab) override
  {
    using SliceType = itk::Image<float, 2>;
    const auto & region = slab->GetBufferedRegion();
    const std::size_t nx = region.GetSize(0), rows = region.GetSize(1), nz = region.GetSize(2);
    auto slice = SliceType::New();
    SliceType::RegionType sliceRegion;
    sliceRegion.SetSize(0, nx);
    sliceRegion.SetSize(1, nz);
    slice->SetRegions(sliceRegion);
    SliceType::SpacingType spacing;
    spacing[0] = m_Volume->GetSpacing()[0];
    spacing[1] = m_Volume->GetSpacing()[2];
    slice->SetSpacing(spacing);
    slice->Allocate();
    for (std::size_t r = 0; r < rows; ++r)
    {
      for (std::size_t z = 0; z < nz; ++z)
        std::copy_n(SlabRows(slab, region.GetIndex(2) + static_cast<itk::IndexValueType>(z)) + r * nx, nx,
                    slice->GetBufferPointer() + z * nx);
      const long long y = region.GetIndex(1) + static_cast<long long>(r) - m_FirstY;
      const std::string name = itksys::SystemTools::GetFilenameName(SliceFile(m_Pattern, y));
      auto writer = itk::ImageFileWriter<SliceType>::New();
      writer->SetImageIO(itk::TIFFImageIO::New());
      writer->SetFileName(m_Directory + "/" + name);
      writer->SetInput(slice);
      writer->Update();
    }
  }
  void
  Commit() override
  {
    ImageFileContents::Inspect(m_Output->TemporaryPath()).CheckComplete();
    m_Output->Commit();
  }

private:
  std::string m_Pattern;
  const ImageType * m_Volume;
  itk::IndexValueType m_FirstY = 0;
  std::string m_Directory;
};

bool
SlabVolumeWriter::IsSliceStack(const std::string & path)
{
  const std::string lower = Lower(path);
  if (!EndsWith(lower, ".tif") && !EndsWith(lower, ".tiff"))
    return false;
  const std::string name = itksys::SystemTools::GetFilenameName(path);
  if (itksys::SystemTools::GetFilenamePath(path).find('%') != std::string::npos)
    return false;
  static const std::regex oneConversion("^[^%]*%0?[0-9]*[diu][^%]*$");
  return std::regex_match(name, oneConversion);
}

bool
SlabVolumeWriter::WritesSlabs(const std::string & path)
{
  const std::string lower = Lower(path);
  for (const char * suffix : { ".mha", ".mhd", ".nrrd", ".nhdr" })
    if (EndsWith(lower, suffix))
      return true;
  return IsSliceStack(path);
}

std::string
SlabVolumeWriter::SliceFile(const std::string & pattern, long long y)
{
  std::vector<char> name(pattern.size() + 32);
  // The conversion is one integer one (IsSliceStack()); the value is passed as int.
  std::snprintf(name.data(), name.size(), pattern.c_str(), static_cast<int>(y));
  return name.data();
}

SlabVolumeWriter::SlabVolumeWriter(const std::string & path, const ImageType * volume)
{
  m_Information = ImageType::New();
  m_Information->CopyInformation(volume);
  m_Information->SetLargestPossibleRegion(volume->GetLargestPossibleRegion());
  m_Information->SetMetaDataDictionary(volume->GetMetaDataDictionary());
  const std::string lower = Lower(path);
  if (IsSliceStack(path))
    m_Layout = std::make_unique<SliceStackLayout>(path, m_Information);
  else if (EndsWith(lower, ".mha") || EndsWith(lower, ".mhd"))
    m_Layout = std::make_unique<MetaImageLayout>(path, m_Information);
  else if (EndsWith(lower, ".nrrd") || EndsWith(lower, ".nhdr"))
    m_Layout = std::make_unique<NrrdLayout>(path, m_Information);
  else
    Fail("a volume is written slab by slab as MetaImage (.mha, .mhd), NRRD (.nrrd, .nhdr) or a TIFF stack of one "
         "file per slice (a name such as DIR/slice_%04d.tif); " +
         path + " is none of them");
  m_RowsWritten.assign(volume->GetLargestPossibleRegion().GetSize(1), false);
}

SlabVolumeWriter::~SlabVolumeWriter() = default;

void
SlabVolumeWriter::SetProtectedFiles(const std::vector<std::string> & files)
{
  m_Layout->SetProtectedFiles(files);
}

void
SlabVolumeWriter::Write(const ImageType * slab)
{
  const auto & whole = m_Information->GetLargestPossibleRegion();
  const auto & region = slab->GetBufferedRegion();
  if (slab->GetLargestPossibleRegion() != whole || region.GetIndex(0) != whole.GetIndex(0) ||
      region.GetSize(0) != whole.GetSize(0) || region.GetIndex(2) != whole.GetIndex(2) ||
      region.GetSize(2) != whole.GetSize(2) || !whole.IsInside(region))
  {
    std::ostringstream message;
    message << "SlabVolumeWriter: a slab must be whole along x and z of the volume " << whole << "; got " << region;
    Fail(message.str());
  }
  for (itk::SizeValueType r = 0; r < region.GetSize(1); ++r)
    if (m_RowsWritten[static_cast<std::size_t>(region.GetIndex(1) - whole.GetIndex(1)) + r])
      Fail("SlabVolumeWriter: row " + std::to_string(region.GetIndex(1) + static_cast<long>(r)) + " written twice");
  m_Layout->Write(slab);
  for (itk::SizeValueType r = 0; r < region.GetSize(1); ++r)
    m_RowsWritten[static_cast<std::size_t>(region.GetIndex(1) - whole.GetIndex(1)) + r] = true;
  m_BytesWritten += region.GetNumberOfPixels() * sizeof(float);
}

std::uint64_t
SlabVolumeWriter::BytesWritten() const
{
  return m_BytesWritten;
}

std::uint64_t
SlabVolumeWriter::VolumeBytes() const
{
  return m_Information->GetLargestPossibleRegion().GetNumberOfPixels() * sizeof(float);
}

void
SlabVolumeWriter::Commit()
{
  const auto missing = std::find(m_RowsWritten.begin(), m_RowsWritten.end(), false);
  if (missing != m_RowsWritten.end())
    Fail("SlabVolumeWriter: row " +
         std::to_string(m_Information->GetLargestPossibleRegion().GetIndex(1) + (missing - m_RowsWritten.begin())) +
         " of the volume was never written");
  m_Layout->Commit();
}

} // namespace cbct
