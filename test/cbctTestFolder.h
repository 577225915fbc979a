#ifndef cbctTestFolder_h
#define cbctTestFolder_h

// Where a test writes its files: one folder per test in the temporary directory ($TMPDIR, else /tmp),
// made when the test first asks for it and removed with all it holds when the test ends, whether it
// passed or failed, so that a test run leaves nothing behind (scripts/test.sh checks that the temporary
// directory it gives the tests is empty at the end). CBCT_KEEP_TEST_FILES=1 in the environment keeps
// the folders, for looking at what a test wrote; each kept folder's path is printed.
//
//   TEST(Suite, Name)
//   {
//     WriteSomething(cbct::test::TestFile("projections.mha")); // $TMPDIR/cbct-Suite.Name-XXXXXX/projections.mha
//     const auto scan = cbct::test::FreshSubfolder("scan");     // an empty folder inside it
//   }

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include <stdlib.h> // mkdtemp

namespace cbct::test
{

/** Whether CBCT_KEEP_TEST_FILES=1: the tests keep the files they write. */
inline bool
KeepTestFiles()
{
  const char * keep = std::getenv("CBCT_KEEP_TEST_FILES");
  return keep != nullptr && std::string(keep) == "1";
}

namespace detail
{
/** The running test's folder ("" until a test asks for it). */
inline std::string &
CurrentFolder()
{
  static std::string folder;
  return folder;
}

/** Removes the running test's folder (or reports it kept) and forgets it. */
inline void
RemoveCurrentFolder()
{
  std::string & folder = CurrentFolder();
  if (folder.empty())
    return;
  if (KeepTestFiles())
    std::cout << "CBCT_KEEP_TEST_FILES=1: kept " << folder << std::endl;
  else
  {
    std::error_code ignored;
    std::filesystem::remove_all(folder, ignored);
  }
  folder.clear();
}

/** Removes the folder when its test ends, passed or failed (and one made outside a test, e.g. in
 * SetUpTestSuite, when its suite or the program ends). */
class TestFolderRemover : public ::testing::EmptyTestEventListener
{
  void
  OnTestEnd(const ::testing::TestInfo &) override
  {
    RemoveCurrentFolder();
  }
  void
  OnTestSuiteEnd(const ::testing::TestSuite &) override
  {
    RemoveCurrentFolder();
  }
  void
  OnTestProgramEnd(const ::testing::UnitTest &) override
  {
    RemoveCurrentFolder();
  }
};

// Registered once per test program, before main() runs the tests (gtest owns the listener).
inline const bool TestFolderRemoverRegistered = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new TestFolderRemover);
  return true;
}();
} // namespace detail

/** The running test's folder, $TMPDIR/cbct-Suite.Name-XXXXXX: made on the first call of a test (the
 * same folder for the rest of it), removed with its contents when the test ends unless
 * KeepTestFiles(). */
inline std::filesystem::path
CurrentTestFolder()
{
  std::string & folder = detail::CurrentFolder();
  if (folder.empty())
  {
    std::string name = "cbct-";
    if (const auto * info = ::testing::UnitTest::GetInstance()->current_test_info())
      name += std::string(info->test_suite_name()) + "." + info->name();
    else
      name += "suite";
    for (char & c : name)
      if (c == '/' || c == ' ')
        c = '_'; // parameterised tests' names hold '/'
    const std::string pattern = (std::filesystem::temp_directory_path() / (name + "-XXXXXX")).string();
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (mkdtemp(buffer.data()) == nullptr)
      throw std::runtime_error("cannot make the test's folder " + pattern);
    folder = buffer.data();
  }
  return folder;
}

/** The path of `name` in the running test's folder, as a string (`name` may hold subfolders, which
 * are not made). */
inline std::string
TestFile(const std::string & name)
{
  return (CurrentTestFolder() / name).string();
}

/** An empty folder `name` in the running test's folder: made, or emptied when it exists. */
inline std::filesystem::path
FreshSubfolder(const std::string & name)
{
  const auto folder = CurrentTestFolder() / name;
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  return folder;
}

} // namespace cbct::test

#endif
