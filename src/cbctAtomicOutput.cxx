#include "cbctAtomicOutput.h"

#include "cbctInputChecks.h"

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace cbct
{

namespace
{
// The hidden directories alive now, for the signal handlers: fixed storage, since a handler may
// only make async-signal-safe calls (no allocation, no locks).
constexpr int Slots = 32;
char g_Directories[Slots][PATH_MAX];
std::atomic<bool> g_Claimed[Slots]; // taken by an AtomicOutput
std::atomic<bool> g_InUse[Slots];   // its name complete: the handler may remove it
const int CleanedSignals[] = { SIGINT, SIGTERM, SIGHUP };

/** Removes the files of `directory` and the directory with system calls only (getdents64, unlinkat,
 * rmdir): async-signal-safe. */
void
RemoveDirectorySignalSafe(const char * directory)
{
  const int fd = open(directory, O_RDONLY | O_DIRECTORY);
  if (fd >= 0)
  {
    alignas(8) char buffer[4096];
    for (;;)
    {
      const long bytes = syscall(SYS_getdents64, fd, buffer, sizeof(buffer));
      if (bytes <= 0)
        break;
      for (long offset = 0; offset < bytes;)
      {
        // struct linux_dirent64: ino (8), off (8), reclen (2), type (1), name.
        unsigned short length;
        std::memcpy(&length, buffer + offset + 16, sizeof(length));
        const char * name = buffer + offset + 19;
        if (!(name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))))
          unlinkat(fd, name, 0);
        offset += length;
      }
    }
    close(fd);
  }
  rmdir(directory);
}

extern "C" void
CleanUpAndReraise(int signal)
{
  for (int slot = 0; slot < Slots; ++slot)
    if (g_InUse[slot].load())
      RemoveDirectorySignalSafe(g_Directories[slot]);
  struct sigaction plain;
  std::memset(&plain, 0, sizeof(plain));
  plain.sa_handler = SIG_DFL;
  sigaction(signal, &plain, nullptr);
  raise(signal);
}

/** Installs the clean-up for the signals whose disposition is still the default (a program with
 * handlers of its own, such as Python's for SIGINT, keeps them). */
void
InstallSignalHandlers()
{
  static std::once_flag once;
  std::call_once(once, [] {
    for (int signal : CleanedSignals)
    {
      struct sigaction current;
      if (sigaction(signal, nullptr, &current) != 0 || current.sa_handler != SIG_DFL)
        continue;
      struct sigaction handler;
      std::memset(&handler, 0, sizeof(handler));
      handler.sa_handler = CleanUpAndReraise;
      sigemptyset(&handler.sa_mask);
      sigaction(signal, &handler, nullptr);
    }
  });
}

int
Register(const std::string & directory)
{
  if (directory.size() >= PATH_MAX)
    return -1;
  for (int slot = 0; slot < Slots; ++slot)
  {
    bool expected = false;
    if (g_Claimed[slot].compare_exchange_strong(expected, true))
    {
      std::memcpy(g_Directories[slot], directory.c_str(), directory.size() + 1);
      g_InUse[slot].store(true);
      return slot;
    }
  }
  return -1; // more than Slots outputs at once: no clean-up on signals for this one
}

void
Unregister(int slot)
{
  if (slot < 0)
    return;
  g_InUse[slot].store(false);
  g_Claimed[slot].store(false);
}

std::string
ParentDirectory(const std::string & path)
{
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return ".";
  if (slash == 0)
    return "/";
  return path.substr(0, slash);
}

std::string
FileName(const std::string & path)
{
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::vector<std::string>
Entries(const std::string & directory)
{
  std::vector<std::string> names;
  if (DIR * dir = opendir(directory.c_str()))
  {
    while (const dirent * entry = readdir(dir))
    {
      const std::string name = entry->d_name;
      if (name != "." && name != "..")
        names.push_back(name);
    }
    closedir(dir);
  }
  return names;
}

void
Sync(const std::string & path, bool directory)
{
  const int fd = open(path.c_str(), directory ? (O_RDONLY | O_DIRECTORY) : O_RDONLY);
  if (fd >= 0)
  {
    fsync(fd);
    close(fd);
  }
}
} // namespace

AtomicOutput::AtomicOutput(const std::string & path)
{
  if (path.empty())
    ThrowBadParameter("output file name", "empty", "the path of a file to write");
  m_FinalPath = path;
  struct stat link;
  if (lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
  {
    char resolved[PATH_MAX];
    if (realpath(path.c_str(), resolved) != nullptr)
      m_FinalPath = resolved;
  }
  const std::string name = FileName(m_FinalPath);
  if (name.empty() || name == "." || name == "..")
    ThrowBadParameter("output file name", "'" + path + "'", "the path of a file, not a directory");
  m_Directory = ParentDirectory(m_FinalPath);
  std::string pattern = m_Directory + "/." + name + ".partial-XXXXXX";
  if (mkdtemp(&pattern[0]) == nullptr)
  {
    const std::string why = std::strerror(errno);
    ThrowBadParameter("output " + path, "not writable (cannot create a file in " + m_Directory + ": " + why + ")",
                      "a file in an existing, writable directory");
  }
  m_TemporaryDirectory = pattern;
  m_TemporaryPath = m_TemporaryDirectory + "/" + name;
  InstallSignalHandlers();
  m_Slot = Register(m_TemporaryDirectory);
}

AtomicOutput::~AtomicOutput()
{
  if (!m_Committed)
    this->RemoveTemporaryDirectory();
}

void
AtomicOutput::RemoveTemporaryDirectory()
{
  if (m_TemporaryDirectory.empty())
    return;
  for (const std::string & entry : Entries(m_TemporaryDirectory))
    unlink((m_TemporaryDirectory + "/" + entry).c_str());
  rmdir(m_TemporaryDirectory.c_str());
  Unregister(m_Slot);
  m_Slot = -1;
  m_TemporaryDirectory.clear();
}

bool
AtomicOutput::SameFile(const std::string & a, const std::string & b)
{
  struct stat sa, sb;
  if (stat(a.c_str(), &sa) != 0 || stat(b.c_str(), &sb) != 0)
    return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

void
AtomicOutput::Commit()
{
  if (m_Committed)
    return;
  const std::string name = FileName(m_FinalPath);
  struct stat written;
  if (stat(m_TemporaryPath.c_str(), &written) != 0)
  {
    this->RemoveTemporaryDirectory();
    ThrowBadParameter("output " + m_FinalPath, "not written", "a file written to AtomicOutput::TemporaryPath()");
  }
  // The file named by the output goes last: a reader who finds it finds its companions.
  std::vector<std::string> entries;
  for (const std::string & entry : Entries(m_TemporaryDirectory))
    if (entry != name)
      entries.push_back(entry);
  entries.push_back(name);
  for (const std::string & entry : entries)
  {
    const std::string destination = m_Directory + "/" + entry;
    for (const std::string & input : m_Protected)
      if (SameFile(destination, input))
      {
        this->RemoveTemporaryDirectory();
        ThrowBadParameter("output " + m_FinalPath, "writing " + destination + ", which is the input " + input,
                          "an output that replaces none of the inputs (nothing was written)");
      }
  }
  for (const std::string & entry : entries)
    Sync(m_TemporaryDirectory + "/" + entry, false);
  for (const std::string & entry : entries)
  {
    const std::string from = m_TemporaryDirectory + "/" + entry;
    const std::string to = m_Directory + "/" + entry;
    if (rename(from.c_str(), to.c_str()) != 0)
    {
      const std::string why = std::strerror(errno);
      this->RemoveTemporaryDirectory();
      ThrowBadParameter("output " + m_FinalPath, "not moved into place (rename " + from + " to " + to + ": " + why + ")",
                        "a writable directory");
    }
  }
  Sync(m_Directory, true);
  m_Committed = true;
  rmdir(m_TemporaryDirectory.c_str());
  Unregister(m_Slot);
  m_Slot = -1;
}

} // namespace cbct
