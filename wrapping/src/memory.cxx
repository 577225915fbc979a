// conebeamct._conebeamct._memory_size and _format_bytes: the `memory=` argument of the Python
// functions, read as the apps read --memory (cbct::MemorySize: "8G", "512M", "1.5GiB", bytes) and
// sizes written as their messages write them (cbct::HostMemory::Format), so that both say the same.
#include "cbctPythonBindings.h"
#include "cbctPythonSupport.h"

#include "cbctHostMemory.h"
#include "cbctMemorySize.h"

#include <itkMacro.h>

#include <cstdint>
#include <string>

namespace cbct::python
{

void
RegisterMemory(py::module_ & m)
{
  m.def(
    "_memory_size",
    [](const std::string & text) -> std::uint64_t {
      try
      {
        return MemorySize::Parse(text, "memory");
      }
      catch (const itk::ExceptionObject & e)
      {
        std::string message = e.GetDescription(); // "memory is '8X'; expected a memory size ..."
        const std::string prefix = "ITK ERROR: ";
        if (message.rfind(prefix, 0) == 0)
          message = message.substr(prefix.size());
        throw py::value_error(message);
      }
    },
    py::arg("text"), "The bytes a memory size names ('8G', '512M', '1.5GiB', '300000000'); ValueError naming memory otherwise.");
  m.def(
    "_format_bytes", [](std::uint64_t bytes) { return HostMemory::Format(bytes); }, py::arg("bytes"),
    "Bytes as the apps' messages write them: '512 bytes', '1.50 MiB', '12.0 GiB'.");
}

} // namespace cbct::python
