// libFuzzer target: an Elekta XVI 5 scan's _Frames.xml (cbct::ElektaXVIScan::Open): the input is the
// _Frames.xml of a scan folder that holds three valid 8 x 4 HIS projections numbered 1 to 3; the
// frames are parsed (expat), matched to the files by Seq, filtered (Inactive, Exposed) and turned
// into RTK geometry, then a stack of the scan's size is converted to line integrals. Any input must
// be refused with an itk::ExceptionObject or read; nothing may crash or leak, and every line
// integral must be finite.
#include "cbctElektaXVIScan.h"
#include "cbctFuzzInput.h"

#include <cmath>
#include <cstdlib>
#include <string>

namespace
{
void
WriteHis(const std::string & path)
{
  // 68-byte header (magic 0x7000, header size 68, no image header, corners 0,0..7,3, one frame), then
  // 8 x 4 16-bit pixels.
  std::string bytes(68 + 64, '\0');
  const auto put16 = [&](std::size_t at, unsigned value) {
    bytes[at] = static_cast<char>(value & 0xff);
    bytes[at + 1] = static_cast<char>(value >> 8);
  };
  put16(0, 0x7000);
  put16(2, 68);
  put16(16, 7);
  put16(18, 3);
  put16(20, 1);
  for (unsigned i = 0; i < 32; ++i)
    put16(68 + 2 * i, 1000 * i);
  cbct::fuzz::WriteInput(reinterpret_cast<const std::uint8_t *>(bytes.data()), bytes.size(), path);
}
} // namespace

extern "C" int
LLVMFuzzerInitialize(int *, char ***)
{
  WriteHis("00001.1.2.3.his");
  WriteHis("00002.1.2.3.his");
  WriteHis("00003.1.2.3.his");
  return 0;
}

extern "C" int
LLVMFuzzerTestOneInput(const std::uint8_t * data, std::size_t size)
{
  const std::string path = cbct::fuzz::WriteInput(data, size, "_Frames.xml");
  try
  {
    const auto scan = cbct::ElektaXVIScan::Open(path);
    auto stack = cbct::ScannerScan::ProjectionsType::New();
    cbct::ScannerScan::ProjectionsType::SizeType stackSize = { { 8, 4, scan->ProjectionFiles().size() } };
    stack->SetRegions(stackSize);
    stack->Allocate();
    for (std::size_t i = 0; i < 32 * scan->ProjectionFiles().size(); ++i)
      stack->GetBufferPointer()[i] = static_cast<float>(i * 2047 % 70000) - 100.f;
    scan->ToLineIntegrals(stack);
    for (std::size_t i = 0; i < 32 * scan->ProjectionFiles().size(); ++i)
      if (!std::isfinite(stack->GetBufferPointer()[i]))
        std::abort();
  }
  catch (const itk::ExceptionObject &)
  {
  }
  return 0;
}
