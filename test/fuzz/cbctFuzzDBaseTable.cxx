// libFuzzer target: the dBase III table reader (cbct::DBaseTable) that reads Elekta XVI 4.5's
// IMAGE.DBF and FRAME.DBF: header, field descriptors and records checked against the file, then
// every field of every record read as text and as a number. Any input must be refused with an
// itk::ExceptionObject or read; nothing may crash, leak or allocate more than the file can fill.
#include "cbctDBaseTable.h"
#include "cbctFuzzInput.h"

#include <itkMacro.h>

extern "C" int
LLVMFuzzerTestOneInput(const std::uint8_t * data, std::size_t size)
{
  const std::string path = cbct::fuzz::WriteInput(data, size, "TABLE.DBF");
  try
  {
    const cbct::DBaseTable table = cbct::DBaseTable::Read(path);
    for (std::size_t r = 0; r < table.NumberOfRecords(); ++r)
    {
      for (const auto & field : table.Fields())
      {
        (void)table.GetString(r, field.name);
        try
        {
          (void)table.GetNumber(r, field.name);
        }
        catch (const itk::ExceptionObject &)
        {
        }
      }
    }
  }
  catch (const itk::ExceptionObject &)
  {
  }
  return 0;
}
