#ifndef cbctStreamedProjectionSource_h
#define cbctStreamedProjectionSource_h

// The projection stack of the files of --projections or --path/--regexp as a pipeline source that
// reads only what it is asked for: the detector rows and the projections of its requested region,
// file by file. An FDK reconstruction under a memory budget streams the stack through it, a slab of
// the volume and a batch of projections at a time (cbct-fdk --memory).
#include "cbctProjectionRows.h"

#include <itkImageIOFactory.h>
#include <itkImageSource.h>

#include <cstring>
#include <limits>

namespace cbct::apps
{

/** \class StreamedProjectionSource
 * \brief The stack ProjectionStackInformation() describes, read region by region.
 *
 * GenerateData() reads the requested rows of the requested projections from each file that holds
 * some: with the file's ImageIO reading only that region where its format streams (raw MetaImage,
 * NRRD and NIfTI data), else the whole file, cropped (one file at a time: a TIFF or PNG per
 * projection; compressed files). The readings are converted to float there (16-bit readings stay
 * 16 bits until then), and checked as everywhere: NaN and infinities are an error naming the file,
 * or replaced (--replace-nonfinite).
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class StreamedProjectionSource : public itk::ImageSource<TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(StreamedProjectionSource);
  using Self = StreamedProjectionSource;
  using Superclass = itk::ImageSource<TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(StreamedProjectionSource, itk::ImageSource);

  /** The files, their stack's grid (ProjectionStackInformation()), the option that named them and
   * --replace-nonfinite's value (empty: non-finite values are an error; its text for warnings). */
  void
  SetFiles(const std::vector<std::string> & files, const itk::ImageBase<3> * stack, const std::string & option,
           const std::vector<double> & nonFiniteReplacement, const std::string & replacementText)
  {
    m_Files = files;
    m_Stack = itk::ImageBase<3>::New();
    m_Stack->CopyInformation(stack);
    m_Stack->SetLargestPossibleRegion(stack->GetLargestPossibleRegion());
    m_Option = option;
    m_Replacement = nonFiniteReplacement;
    m_ReplacementText = replacementText;
    m_FileProjections.clear();
    m_Streams.clear();
    m_ReadingBytes = 0;
    m_AllFloat = true;
    m_Cached.clear();
    m_CachedFile = std::numeric_limits<std::size_t>::max();
    for (const std::string & file : files)
    {
      auto io = OpenFile(file);
      m_AllFloat = m_AllFloat && io->GetComponentType() == itk::IOComponentEnum::FLOAT;
      const unsigned int dimensions = io->GetNumberOfDimensions();
      m_FileProjections.push_back(dimensions >= 3 ? io->GetDimensions(2) : 1);
      m_ReadingBytes = std::max<std::uint64_t>(m_ReadingBytes, io->GetComponentSize());
      // Whether a band of rows is read alone (else ITK's ImageIO reads the whole file).
      itk::ImageIORegion band(dimensions);
      for (unsigned int d = 0; d < dimensions; ++d)
      {
        band.SetIndex(d, 0);
        band.SetSize(d, io->GetDimensions(d));
      }
      if (dimensions >= 2 && io->GetDimensions(1) > 1)
      {
        band.SetIndex(1, 1);
        band.SetSize(1, 1);
      }
      m_Streams.push_back(io->GenerateStreamableReadRegionFromRequestedRegion(band) == band);
    }
    this->Modified();
  }

  /** Bytes a request of `pixels` pixels holds while it is read: its floats, and the readings of a file
   * before their conversion (none for float files read a band at a time, read in place). */
  std::uint64_t
  BytesWhileReading(std::uint64_t pixels) const
  {
    const bool inPlace = m_ReadingBytes == sizeof(float) && this->StreamsEveryFile() && m_AllFloat;
    return pixels * (sizeof(float) + (inPlace ? 0 : m_ReadingBytes));
  }

  /** Bytes of one reading in the files (2 for 16-bit readings). */
  std::uint64_t
  GetReadingBytes() const
  {
    return m_ReadingBytes;
  }
  /** Whether every file is read a band of rows at a time (else some are read whole, one at a time). */
  bool
  StreamsEveryFile() const
  {
    return std::all_of(m_Streams.begin(), m_Streams.end(), [](bool s) { return s; });
  }
  /** The largest file's pixels, for files that are read whole: what one of them holds at once. */
  std::uint64_t
  LargestUnstreamedFilePixels() const
  {
    std::uint64_t pixels = 0;
    const auto & size = m_Stack->GetLargestPossibleRegion().GetSize();
    for (std::size_t f = 0; f < m_Files.size(); ++f)
      if (!m_Streams[f])
        pixels = std::max<std::uint64_t>(pixels, static_cast<std::uint64_t>(size[0]) * size[1] * m_FileProjections[f]);
    return pixels;
  }
  /** Bytes read from the files so far. */
  std::uint64_t
  GetBytesRead() const
  {
    return m_BytesRead;
  }

protected:
  StreamedProjectionSource() = default;

  void
  GenerateOutputInformation() override
  {
    TImage * output = this->GetOutput();
    output->CopyInformation(m_Stack);
    output->SetLargestPossibleRegion(m_Stack->GetLargestPossibleRegion());
  }

  void
  GenerateData() override
  {
    TImage * output = this->GetOutput();
    const auto region = output->GetRequestedRegion();
    output->SetBufferedRegion(region);
    output->Allocate();
    const auto & whole = m_Stack->GetLargestPossibleRegion();
    const itk::IndexValueType first = region.GetIndex(2), end = first + static_cast<itk::IndexValueType>(region.GetSize(2));
    itk::IndexValueType next = whole.GetIndex(2);
    for (std::size_t f = 0; f < m_Files.size(); ++f)
    {
      const itk::IndexValueType fileFirst = next, fileEnd = next + static_cast<itk::IndexValueType>(m_FileProjections[f]);
      next = fileEnd;
      const itk::IndexValueType from = std::max(first, fileFirst), to = std::min(end, fileEnd);
      if (from >= to)
        continue;
      auto part = region;
      part.SetIndex(2, from);
      part.SetSize(2, static_cast<itk::SizeValueType>(to - from));
      this->ReadPart(f, part, fileFirst);
    }
  }

private:
  itk::ImageIOBase::Pointer
  OpenFile(const std::string & file) const
  {
    auto io = itk::ImageIOFactory::CreateImageIO(file.c_str(), itk::IOFileModeEnum::ReadMode);
    if (io.IsNull())
      throw Error(m_Option + ": " + file + ": no ImageIO can read it");
    io->SetFileName(file);
    try
    {
      io->ReadImageInformation();
    }
    catch (const itk::ExceptionObject & e)
    {
      throw Error(m_Option + ": " + file + ": " + FirstLine(WithoutItkPrefix(e.GetDescription())));
    }
    io->SetUseStreamedReading(true);
    return io;
  }

  /** Projections part.index(2)... of file f (whose first projection is `fileFirst` in the stack). */
  void
  ReadPart(std::size_t f, const typename TImage::RegionType & part, itk::IndexValueType fileFirst)
  {
    const std::string & file = m_Files[f];
    auto io = this->OpenFile(file);
    const auto & whole = m_Stack->GetLargestPossibleRegion();
    const unsigned int dimensions = io->GetNumberOfDimensions();
    itk::ImageIORegion wanted(dimensions);
    for (unsigned int d = 0; d < dimensions; ++d)
    {
      wanted.SetIndex(d, 0);
      wanted.SetSize(d, io->GetDimensions(d));
    }
    wanted.SetIndex(0, part.GetIndex(0) - whole.GetIndex(0));
    wanted.SetSize(0, part.GetSize(0));
    if (dimensions >= 2)
    {
      wanted.SetIndex(1, part.GetIndex(1) - whole.GetIndex(1));
      wanted.SetSize(1, part.GetSize(1));
    }
    if (dimensions >= 3)
    {
      wanted.SetIndex(2, part.GetIndex(2) - fileFirst);
      wanted.SetSize(2, part.GetSize(2));
    }
    const itk::ImageIORegion read = io->GenerateStreamableReadRegionFromRequestedRegion(wanted);
    io->SetIORegion(read);
    TImage * output = this->GetOutput();
    const auto & buffered = output->GetBufferedRegion();
    if (io->GetComponentType() == itk::IOComponentEnum::FLOAT && read == wanted &&
        part.GetSize(0) == buffered.GetSize(0) && part.GetSize(1) == buffered.GetSize(1))
    {
      // Float readings of whole buffered rows: straight into place, no second copy.
      try
      {
        io->Read(output->GetBufferPointer() + output->ComputeOffset(part.GetIndex()));
      }
      catch (const itk::ExceptionObject & e)
      {
        throw Error(m_Option + ": " + file + ": " + FirstLine(WithoutItkPrefix(e.GetDescription())));
      }
      m_BytesRead += read.GetNumberOfPixels() * sizeof(float);
      this->CheckNonFinite(output, part, file);
      return;
    }
    const std::size_t componentBytes = io->GetComponentSize();
    // A file read whole (its format reads no region alone) is kept until another is read: the next
    // batch or slab of a single such file then does not decompress it again.
    const bool readWhole = read != wanted;
    std::vector<char> own;
    if (!(readWhole && m_CachedFile == f && m_Cached.size() == read.GetNumberOfPixels() * componentBytes))
    {
      std::vector<char> & buffer = readWhole ? m_Cached : own;
      m_Cached.clear();
      m_Cached.shrink_to_fit();
      m_CachedFile = std::numeric_limits<std::size_t>::max();
      buffer.resize(read.GetNumberOfPixels() * componentBytes);
      try
      {
        io->Read(buffer.data());
      }
      catch (const itk::ExceptionObject & e)
      {
        throw Error(m_Option + ": " + file + ": " + FirstLine(WithoutItkPrefix(e.GetDescription())));
      }
      m_BytesRead += buffer.size();
      if (readWhole)
        m_CachedFile = f;
    }
    const std::vector<char> & buffer = readWhole ? m_Cached : own;
    // Copy the wanted rows of each projection (the read region may be larger), converted to float.
    const std::size_t readColumns = read.GetSize(0), readRows = dimensions >= 2 ? read.GetSize(1) : 1;
    const std::size_t columns = part.GetSize(0), rows = part.GetSize(1);
    for (itk::SizeValueType k = 0; k < part.GetSize(2); ++k)
    {
      const std::size_t readSlice = dimensions >= 3 ? static_cast<std::size_t>(wanted.GetIndex(2) + static_cast<long>(k) - read.GetIndex(2)) : 0;
      for (std::size_t r = 0; r < rows; ++r)
      {
        const std::size_t readRow = dimensions >= 2 ? static_cast<std::size_t>(wanted.GetIndex(1) - read.GetIndex(1)) + r : 0;
        const std::size_t readAt =
          (readSlice * readRows + readRow) * readColumns + static_cast<std::size_t>(wanted.GetIndex(0) - read.GetIndex(0));
        typename TImage::IndexType at;
        at[0] = part.GetIndex(0);
        at[1] = part.GetIndex(1) + static_cast<itk::IndexValueType>(r);
        at[2] = part.GetIndex(2) + static_cast<itk::IndexValueType>(k);
        float * out = output->GetBufferPointer() + output->ComputeOffset(at);
        ConvertReadings(io->GetComponentType(), buffer.data() + readAt * componentBytes, columns, out, file);
      }
    }
    // NaN and infinities: refused or replaced, naming the file.
    this->CheckNonFinite(output, part, file);
  }

  /** Refuses or replaces the non-finite values of `part` of `image`, naming `file`. */
  void
  CheckNonFinite(TImage * image, const typename TImage::RegionType & part, const std::string & file) const
  {
    const NonFiniteValues found = FindNonFinite(image, part, m_Replacement);
    if (found.Count() > 0 && m_Replacement.empty())
      throw Error(m_Option + ": projection file " + file + " holds non-finite values: " +
                  found.Describe("pixel (u, v, projection)") +
                  "; expected finite line integrals (--replace-nonfinite VALUE replaces them)");
    if (found.Count() > 0)
      PrintWarning("--replace-nonfinite: replaced the non-finite values of " + file + " by " + m_ReplacementText + ": " +
                   found.Describe("pixel (u, v, projection)"));
  }

  /** `count` readings of `type` at `from` as floats at `to`. */
  void
  ConvertReadings(itk::IOComponentEnum type, const char * from, std::size_t count, float * to, const std::string & file) const
  {
    auto convert = [&](auto sample) {
      using T = decltype(sample);
      for (std::size_t i = 0; i < count; ++i)
      {
        T value;
        std::memcpy(&value, from + i * sizeof(T), sizeof(T));
        to[i] = static_cast<float>(value);
      }
    };
    switch (type)
    {
      case itk::IOComponentEnum::UCHAR: convert(static_cast<unsigned char>(0)); break;
      case itk::IOComponentEnum::CHAR: convert(static_cast<signed char>(0)); break;
      case itk::IOComponentEnum::USHORT: convert(static_cast<unsigned short>(0)); break;
      case itk::IOComponentEnum::SHORT: convert(static_cast<short>(0)); break;
      case itk::IOComponentEnum::UINT: convert(static_cast<unsigned int>(0)); break;
      case itk::IOComponentEnum::INT: convert(static_cast<int>(0)); break;
      case itk::IOComponentEnum::ULONG: convert(static_cast<unsigned long>(0)); break;
      case itk::IOComponentEnum::LONG: convert(static_cast<long>(0)); break;
      case itk::IOComponentEnum::ULONGLONG: convert(static_cast<unsigned long long>(0)); break;
      case itk::IOComponentEnum::LONGLONG: convert(static_cast<long long>(0)); break;
      case itk::IOComponentEnum::FLOAT: convert(0.f); break;
      case itk::IOComponentEnum::DOUBLE: convert(0.); break;
      default:
        throw Error(m_Option + ": " + file + ": pixels of type " + itk::ImageIOBase::GetComponentTypeAsString(type) +
                    "; expected integers or floating-point values");
    }
  }

  std::vector<std::string> m_Files;
  std::vector<itk::SizeValueType> m_FileProjections;
  std::vector<bool> m_Streams;
  itk::ImageBase<3>::Pointer m_Stack;
  std::string m_Option;
  std::vector<double> m_Replacement;
  std::string m_ReplacementText;
  std::uint64_t m_ReadingBytes = 0;
  bool m_AllFloat = true;
  std::vector<char> m_Cached; // the readings of the file last read whole
  std::size_t m_CachedFile = std::numeric_limits<std::size_t>::max();
  std::uint64_t m_BytesRead = 0;
};

} // namespace cbct::apps

#endif
