#ifndef cbctFuzzInput_h
#define cbctFuzzInput_h

// Shared by the fuzz targets: the readers under test take file names, so each input is written to
// a file of this process's own directory (in /dev/shm when it exists: no disk traffic) first.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

namespace cbct::fuzz
{

/** Writes `data` to FILENAME in this process's directory and returns the path. */
inline std::string
WriteInput(const std::uint8_t * data, std::size_t size, const std::string & filename)
{
  static const std::string directory = [] {
    const char * base = std::getenv("CBCT_FUZZ_TMPDIR");
    std::string root = base != nullptr ? base : (access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    std::string d = root + "/cbct-fuzz-" + std::to_string(getpid());
    mkdir(d.c_str(), 0700);
    return d;
  }();
  const std::string path = directory + "/" + filename;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(data), static_cast<std::streamsize>(size));
  return path;
}

} // namespace cbct::fuzz

#endif
