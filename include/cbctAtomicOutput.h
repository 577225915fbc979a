#ifndef cbctAtomicOutput_h
#define cbctAtomicOutput_h

#include "ConeBeamCTExport.h"

#include <string>
#include <vector>

namespace cbct
{

/** \class AtomicOutput
 * \brief Writes an output file beside its final place and renames it into place once complete, so
 * that a run that fails or is killed never leaves a partial file where a good one was.
 *
 * The constructor makes a hidden directory next to the output (`.NAME.partial-XXXXXX`, in the same
 * directory, hence on the same file system, so that the final rename is atomic); the caller writes
 * to TemporaryPath(), which has the output's own file name, so that formats that write companion
 * files (MetaImage .mhd + .raw, NRRD .nhdr + .raw, Analyze/NIfTI .hdr + .img) name them as they
 * would beside the output. Commit() flushes every file to disk (fsync), renames the companions into
 * place first and the file named by the output last, then removes the directory. Without Commit()
 * (an exception, an early return) the destructor removes the directory and everything in it.
 *
 * A single-file output is replaced atomically: a reader sees the old file or the new one, never a
 * mix. With companions the files are renamed one by one (companions first): a run killed between
 * two renames leaves a new companion beside the old header. A run killed by SIGKILL before Commit()
 * leaves its hidden directory behind and the old output untouched; SIGINT, SIGTERM and SIGHUP, when
 * the process has no handler of its own for them, remove the directory before the process ends.
 *
 * Files that must not be replaced (the run's inputs) can be named with SetProtectedFiles(): Commit()
 * then refuses, before renaming anything, to replace any of them (compared by device and inode, so
 * that another spelling of the same path, a symbolic or a hard link are recognised).
 *
 * A symbolic link as output is followed: the file it points to is replaced and the link is kept.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT AtomicOutput
{
public:
  /** Prepares to write `path`; throws itk::ExceptionObject when its directory does not exist or is
   * not writable. */
  explicit AtomicOutput(const std::string & path);
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput &) = delete;
  AtomicOutput &
  operator=(const AtomicOutput &) = delete;

  /** Where to write: a file of the output's name in the hidden directory. */
  const std::string &
  TemporaryPath() const
  {
    return m_TemporaryPath;
  }

  /** The output's final path (after following a symbolic link). */
  const std::string &
  FinalPath() const
  {
    return m_FinalPath;
  }

  /** Files Commit() must not replace (inputs); paths that do not exist are ignored. */
  void
  SetProtectedFiles(const std::vector<std::string> & files)
  {
    m_Protected = files;
  }

  /** Moves what was written into place; throws itk::ExceptionObject when nothing was written at
   * TemporaryPath(), when a file would replace a protected one, or when a rename fails (then the
   * files not yet renamed are removed). */
  void
  Commit();

  /** Whether `a` and `b` name the same existing file (device and inode); false when either does
   * not exist. */
  static bool
  SameFile(const std::string & a, const std::string & b);

private:
  void
  RemoveTemporaryDirectory();

  std::string m_FinalPath;
  std::string m_Directory;
  std::string m_TemporaryDirectory;
  std::string m_TemporaryPath;
  std::vector<std::string> m_Protected;
  int m_Slot = -1; // in the table the signal handlers clean up
  bool m_Committed = false;
};

} // namespace cbct

#endif
