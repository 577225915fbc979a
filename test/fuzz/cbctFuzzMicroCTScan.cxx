// libFuzzer target: the micro-CT scan descriptions (cbct::NikonScan's .xtekct and _ctdata.txt,
// cbct::BrukerScan's SkyScan .log). The first byte picks the file the rest of the input becomes:
//   0: the .xtekct of a Nikon scan (projections sample_0001.tif, sample_0002.tif present);
//   1: the _ctdata.txt beside a fixed .xtekct of 2 projections;
//   2: the .log of a SkyScan scan (projections scan_0000.tif, scan_0001.tif present).
// Any input must be refused with an itk::ExceptionObject or opened; an opened scan's geometry and
// grid are then used, and its readings converted when they are small.
#include "cbctBrukerScan.h"
#include "cbctFuzzInput.h"
#include "cbctNikonScan.h"

#include <cmath>
#include <fstream>

namespace
{

/** A 1 x 1 16-bit TIFF (no compression, default orientation). */
std::string
TinyTiff()
{
  std::string tiff("II*\0", 4);
  auto u16 = [&tiff](unsigned v) {
    tiff += static_cast<char>(v & 0xff);
    tiff += static_cast<char>(v >> 8);
  };
  auto u32 = [&tiff](unsigned v) {
    for (int b = 0; b < 4; ++b)
      tiff += static_cast<char>((v >> (8 * b)) & 0xff);
  };
  const unsigned entries = 9, data = 8 + 2 + entries * 12 + 4;
  u32(8);
  u16(entries);
  auto entry = [&](unsigned tag, unsigned type, unsigned value) {
    u16(tag);
    u16(type);
    u32(1);
    if (type == 3)
    {
      u16(value);
      u16(0);
    }
    else
      u32(value);
  };
  entry(256, 3, 1);
  entry(257, 3, 1);
  entry(258, 3, 16);
  entry(259, 3, 1);
  entry(262, 3, 1);
  entry(273, 4, data);
  entry(277, 3, 1);
  entry(278, 3, 1);
  entry(279, 4, 2);
  u32(0);
  u16(1000);
  return tiff;
}

void
Write(const std::string & path, const std::string & bytes)
{
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/** The three scan folders, made once per process. */
struct Folders
{
  std::string nikon, ctdata, bruker;
  Folders()
  {
    const std::string marker = cbct::fuzz::WriteInput(nullptr, 0, "micro-ct");
    const std::string root = marker.substr(0, marker.rfind('/'));
    nikon = root + "/nikon";
    ctdata = root + "/ctdata";
    bruker = root + "/bruker";
    for (const std::string & folder : { nikon, ctdata, bruker })
      mkdir(folder.c_str(), 0700);
    const std::string tiff = TinyTiff();
    for (const std::string & folder : { nikon, ctdata })
    {
      Write(folder + "/sample_0001.tif", tiff);
      Write(folder + "/sample_0002.tif", tiff);
    }
    Write(bruker + "/scan_0000.tif", tiff);
    Write(bruker + "/scan_0001.tif", tiff);
    Write(ctdata + "/sample.xtekct",
          "[XTekCT]\nName=sample\nProjections=2\nWhiteLevel=1000\nDetectorPixelsX=1\nDetectorPixelsY=1\n"
          "DetectorPixelSizeX=0.2\nDetectorPixelSizeY=0.2\nSrcToObject=100\nSrcToDetector=400\n");
  }
};

void
Use(const cbct::ScannerScan * scan)
{
  const auto geometry = scan->Geometry();
  for (unsigned int k = 0; k < geometry->GetNumberOfProjections(); ++k)
    (void)geometry->GetMatrix(k);
  (void)scan->DetectorSpacing();
  (void)scan->DetectorOrigin();
}

/** The detector's pixels along `axis`, from its centred grid. */
double
Pixels(const cbct::ScannerScan * scan, int axis)
{
  return std::round(-2. * scan->DetectorOrigin()[axis] / scan->DetectorSpacing()[axis]) + 1.;
}

/** Converts a small stack of readings of `columns` x `rows` x the scan's projections. */
void
Convert(const cbct::ScannerScan * scan, double columns, double rows)
{
  const double count = static_cast<double>(scan->ProjectionFiles().size());
  if (!(columns * rows * count <= 4096.))
    return;
  auto readings = cbct::ScannerScan::ProjectionsType::New();
  readings->SetRegions(cbct::ScannerScan::ProjectionsType::SizeType{
    { static_cast<itk::SizeValueType>(columns), static_cast<itk::SizeValueType>(rows), scan->ProjectionFiles().size() } });
  readings->Allocate();
  readings->FillBuffer(500.f);
  scan->ToLineIntegrals(readings);
  const float * value = readings->GetBufferPointer();
  for (std::size_t i = 0; i < readings->GetBufferedRegion().GetNumberOfPixels(); ++i)
    if (!std::isfinite(value[i]))
      __builtin_trap(); // the readers promise finite line integrals
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const std::uint8_t * data, std::size_t size)
{
  static const Folders folders;
  if (size == 0)
    return 0;
  const std::string text(reinterpret_cast<const char *>(data) + 1, size - 1);
  try
  {
    switch (data[0] % 3)
    {
      case 0:
      {
        Write(folders.nikon + "/sample.xtekct", text);
        auto scan = cbct::NikonScan::Open(folders.nikon + "/sample.xtekct");
        Use(scan);
        Convert(scan, Pixels(scan, 0), Pixels(scan, 1));
        break;
      }
      case 1:
      {
        Write(folders.ctdata + "/_ctdata.txt", text);
        auto scan = cbct::NikonScan::Open(folders.ctdata + "/sample.xtekct");
        Use(scan);
        for (double angle : scan->StageAngles())
          if (!std::isfinite(angle))
            __builtin_trap();
        break;
      }
      default:
      {
        Write(folders.bruker + "/scan_.log", text);
        auto scan = cbct::BrukerScan::Open(folders.bruker + "/scan_.log");
        Use(scan);
        Convert(scan, Pixels(scan, 0), Pixels(scan, 1));
        break;
      }
    }
  }
  catch (const itk::ExceptionObject &)
  {
  }
  return 0;
}
