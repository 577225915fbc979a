#ifndef cbctMemoryBudget_h
#define cbctMemoryBudget_h

// --memory SIZE and --gpu-memory SIZE, the memory a reconstruction app may use on the host and on
// each CUDA device, declared once for every app that reconstructs. Without --memory the host budget
// is what the machine has free when the app starts (MemAvailable, or what the control group leaves:
// cbct::HostMemory), less a tenth for the page cache and the rest of the system; without --gpu-memory
// the CUDA filters take 90% of each device's free memory, as before.
//
// The budget covers the whole process: the program itself (its code, ITK's and CUDA's libraries:
// about 47 MB) is measured when the work is planned (ResidentBytes(), with RunningOverheadBytes() for
// what it comes to hold as the work runs) and only the rest is planned.
#include "cbctAppSupport.h"
#include "cbctHostMemory.h"
#include "cbctMemoryCheck.h"
#include "cbctMemorySize.h"

#include <itkMultiThreaderBase.h>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <fstream>
#include <string>

#include <sys/resource.h>
#include <unistd.h>

namespace cbct::apps
{

struct MemoryBudgetOptions
{
  // As given on the command line.
  std::string memory;
  std::string gpuMemory;
  // Parsed by ValidateMemoryBudget(); 0: not given.
  std::uint64_t hostBytes = 0;
  std::uint64_t deviceBytes = 0;
};

/** Adds --memory (with `memoryHelp`: what the app does with the budget) and, where the app's CUDA
 * filters take a device budget (`gpu`), --gpu-memory, with their Slicer descriptions, to `app`. */
inline void
AddMemoryBudgetOptions(CLI::App & app, MemoryBudgetOptions & o, std::map<std::string, SlicerParameter> & slicer,
                       const std::string & memoryHelp, bool gpu)
{
  app.add_option("--memory", o.memory,
                 "Host memory the run may use, e.g. 8G or 512M (K, M, G, T: powers of 1024; default: what the machine "
                 "has free, less a tenth): " +
                   memoryHelp);
  slicer["--memory"] = SlicerIn("Advanced", "string");
  if (!gpu)
    return;
  app.add_option("--gpu-memory", o.gpuMemory,
                 "Memory the run may use on each CUDA device, e.g. 6G (default: 90% of the device's free memory)");
  slicer["--gpu-memory"] = SlicerIn("Advanced", "string");
}

/** What cbct-fdk does with --memory. */
inline const char *
StreamedFDKMemoryHelp()
{
  return "the projections are read a band of detector rows and a batch of projections at a time and the volume is "
         "written slab by slab (.mha, .nrrd, or DIR/slice_%04d.tif, one file per slice), the same volume (--verbose "
         "prints the plan)";
}

/** What the apps that hold their projections and volume whole do with --memory. */
inline const char *
WholeRunMemoryHelp()
{
  return "a run whose projections and volumes need more is refused before it starts, saying how much it needs";
}

/** Parses --memory and --gpu-memory (a clear error naming the option otherwise). */
inline void
ValidateMemoryBudget(MemoryBudgetOptions & o)
{
  try
  {
    o.hostBytes = o.memory.empty() ? 0 : cbct::MemorySize::Parse(o.memory, "--memory");
    o.deviceBytes = o.gpuMemory.empty() ? 0 : cbct::MemorySize::Parse(o.gpuMemory, "--gpu-memory");
  }
  catch (const itk::ExceptionObject & e)
  {
    throw Error(WithoutItkPrefix(e.GetDescription()));
  }
}

/** A --memory value of at least `bytes`, rounded up to two significant digits: "1.3G", "520M". */
inline std::string
SuggestedMemoryOption(std::uint64_t bytes)
{
  const char * units[] = { "K", "M", "G", "T" };
  double value = static_cast<double>(bytes) / 1024.;
  int unit = 0;
  while (value >= 1000. && unit < 3)
  {
    value /= 1024.;
    ++unit;
  }
  const double step = value >= 100. ? 10. : value >= 10. ? 1. : 0.1;
  value = std::ceil(value / step - 1e-9) * step;
  std::ostringstream text;
  text << value << units[unit];
  return text.str();
}

/** Bytes this process holds in memory now (resident set: /proc/self/statm), 0 when unknown. */
inline std::uint64_t
ResidentBytes()
{
  std::ifstream statm("/proc/self/statm");
  std::uint64_t pages = 0, resident = 0;
  if (!(statm >> pages >> resident))
    return 0;
  const long page = sysconf(_SC_PAGE_SIZE);
  return resident * static_cast<std::uint64_t>(page > 0 ? page : 4096);
}

/** The most this process has held in memory so far (getrusage's maximum resident set size). */
inline std::uint64_t
PeakResidentBytes()
{
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) != 0)
    return 0;
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024; // kB on Linux
}

/** "peak resident memory 58.2 MiB (59600 kB) of the 64.0 MiB budget", for --verbose. */
inline std::string
DescribePeakMemory(std::uint64_t budget)
{
  const std::uint64_t peak = PeakResidentBytes();
  return "peak resident memory " + cbct::HostMemory::Format(peak) + " (" + std::to_string(peak / 1024) + " kB) of the " +
         cbct::HostMemory::Format(budget) + " budget";
}

/** The host budget: --memory, or nine tenths of what the machine has free now. `why` receives a
 * phrase for --verbose ("--memory 1G", "90% of the 21.4 GiB available now"). */
inline std::uint64_t
HostBudget(const MemoryBudgetOptions & o, std::string & why)
{
  if (o.hostBytes > 0)
  {
    why = "--memory " + o.memory;
    return o.hostBytes;
  }
  const cbct::HostMemory host = cbct::HostMemory::Query();
  const std::uint64_t available = host.Available();
  why = "90% of the " + cbct::HostMemory::Format(available) + " available now; --memory sets it";
  return available / 10 * 9;
}

/** What the program comes to hold besides the work's buffers once the work runs: the code of the
 * libraries paged in as it is first run (about 4 MB of cbct-fdk's; the program's resident memory is
 * measured before), and each thread's stack and allocator arena (measured on the 2-core machine:
 * cbct-fdk's peak exceeded the program's memory at planning time plus the planned buffers by 6.5 MB
 * with one thread and 8 MB with two). */
inline std::uint64_t
RunningOverheadBytes()
{
  const std::uint64_t threads = itk::MultiThreaderBase::GetGlobalDefaultNumberOfThreads();
  return (std::uint64_t(6) << 20) + threads * (std::uint64_t(1) << 20);
}

/** What the budget leaves for the work's buffers once the program's own memory is counted (what it
 * holds now, and RunningOverheadBytes()); an error naming --memory when the program alone exceeds it. */
inline std::uint64_t
WorkBudget(const MemoryBudgetOptions & o, std::uint64_t budget)
{
  const std::uint64_t program = ResidentBytes() + RunningOverheadBytes();
  if (budget <= program)
    throw Error("--memory " + o.memory + " is less than the " + cbct::HostMemory::Format(program) +
                " the program itself holds (its code and libraries, and its threads once they run); expected a "
                "budget above that, e.g. --memory " +
                SuggestedMemoryOption(program + (std::uint64_t(64) << 20)));
  return budget - program;
}

/** Refuses a run whose buffers (`need`, what it holds at once) exceed --memory, saying both and the
 * remedy; without --memory, the machine's memory decides (CheckMemory()). */
inline void
CheckMemoryBudget(const MemoryBudgetOptions & o, const std::string & task, const MemoryNeed & need)
{
  if (o.hostBytes == 0)
  {
    CheckMemory(task, need);
    return;
  }
  const std::uint64_t program = ResidentBytes();
  const std::uint64_t total = need.Total();
  if (total > std::numeric_limits<std::uint64_t>::max() - program || total + program > o.hostBytes)
    throw Error("--memory " + o.memory + ": " + task + " needs at least " + need.Describe() + " besides the " +
                cbct::HostMemory::Format(program) + " the program holds, " +
                cbct::HostMemory::Format(total > std::numeric_limits<std::uint64_t>::max() - program ? total : total + program) +
                " in all; expected a budget of at least that (or " + need.remedy + ")");
}

} // namespace cbct::apps

#endif
