// Phase files (RTK's signal file): reading, writing, every kind of bad value, and the weights that
// link projections to the frames of a 4D sequence.
#include "cbctPhaseSignal.h"
#include "cbctTestFolder.h"

#include <itkMacro.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

namespace
{
using cbct::PhaseSignal;

std::string
TempFile(const std::string & name, const std::string & contents)
{
  const std::string path = cbct::test::TestFile(name);
  std::ofstream(path) << contents;
  return path;
}

// The message of the exception `read` throws, or "" when it throws none.
template <typename F>
std::string
ErrorOf(F read)
{
  try
  {
    read();
  }
  catch (const itk::ExceptionObject & e)
  {
    return e.GetDescription();
  }
  return {};
}

TEST(PhaseSignal, ReadsValuesCommentsAndBlankLines)
{
  const std::string path = TempFile("good.txt", "# phases\n0\n0.25  \n\n0.5 # mid\n\t0.999\r\n");
  const auto phases = PhaseSignal::Read(path, 4);
  ASSERT_EQ(phases.size(), 4u);
  EXPECT_EQ(phases[0], 0.);
  EXPECT_EQ(phases[1], 0.25);
  EXPECT_EQ(phases[2], 0.5);
  EXPECT_EQ(phases[3], 0.999);
  EXPECT_EQ(PhaseSignal::Read(path).size(), 4u);
  std::remove(path.c_str());
}

TEST(PhaseSignal, BadFilesAreRefusedNamingLineValueAndExpectation)
{
  struct Case
  {
    std::string contents;
    std::string expected;
  };
  const Case cases[] = {
    { "0.1\n1.0\n", "line 2" },       { "0.1\n-0.2\n", "[0, 1)" },   { "0.1\nnan\n", "line 2" },
    { "0.1\ninf\n", "[0, 1)" },       { "0.1\nabc\n", "not a number" }, { "0.1\n0.2x\n", "'0.2x'" },
    { "# nothing\n\n", "no phase" },  { "0.1\n0.2\n0.3\n", "3 phases but there are 2" },
  };
  int index = 0;
  for (const auto & c : cases)
  {
    const std::string path = TempFile("bad" + std::to_string(index++) + ".txt", c.contents);
    const std::string message = ErrorOf([&] { PhaseSignal::Read(path, 2); });
    EXPECT_NE(message.find(c.expected), std::string::npos) << c.contents << " -> " << message;
    EXPECT_NE(message.find(path), std::string::npos) << message;
    std::remove(path.c_str());
  }
  EXPECT_NE(ErrorOf([] { PhaseSignal::Read("/nonexistent/phases.txt"); }).find("Cannot open"), std::string::npos);
}

TEST(PhaseSignal, WriteRoundTripsExactlyAndChecksFirst)
{
  std::vector<double> phases;
  for (int k = 0; k < 100; ++k)
  {
    phases.push_back(std::fmod(k * 0.0731 + 1. / 3., 1.));
  }
  const std::string path = cbct::test::TestFile("out.txt");
  PhaseSignal::Write(path, phases);
  EXPECT_EQ(PhaseSignal::Read(path, phases.size()), phases);

  // A bad value: refused, and the good file already there is untouched.
  std::vector<double> bad = phases;
  bad[7] = std::numeric_limits<double>::quiet_NaN();
  const std::string message = ErrorOf([&] { PhaseSignal::Write(path, bad); });
  EXPECT_NE(message.find("index 7"), std::string::npos) << message;
  EXPECT_EQ(PhaseSignal::Read(path).size(), phases.size());
  std::remove(path.c_str());
}

TEST(PhaseSignal, CheckNamesTheSource)
{
  EXPECT_NE(ErrorOf([] { PhaseSignal::Check({ 0.1, 1.5 }, 2, "the phases array"); }).find("index 1 of the phases array"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { PhaseSignal::Check({ 0.1 }, 2, "the phases array"); }).find("1 phases but there are 2"),
            std::string::npos);
  EXPECT_EQ(ErrorOf([] { PhaseSignal::Check({ 0.1, 0.9 }, 2, "x"); }), "");
}

TEST(PhaseSignal, InterpolationWeightsFollowRTK)
{
  const std::vector<double> phases = { 0., 0.1, 0.25, 0.6, 0.95, std::nextafter(1., 0.) };
  const auto links = PhaseSignal::InterpolationWeights(phases, 4);
  ASSERT_EQ(links.size(), phases.size());
  // Phase 0: frame 0 alone.
  EXPECT_EQ(links[0].lower, 0u);
  EXPECT_EQ(links[0].upper, 1u);
  EXPECT_DOUBLE_EQ(links[0].lowerWeight, 1.);
  EXPECT_DOUBLE_EQ(links[0].upperWeight, 0.);
  // 0.1 * 4 = 0.4: 0.6 to frame 0, 0.4 to frame 1.
  EXPECT_EQ(links[1].lower, 0u);
  EXPECT_NEAR(links[1].upperWeight, 0.4, 1e-12);
  EXPECT_NEAR(links[1].lowerWeight, 0.6, 1e-12);
  // 0.25: exactly frame 1.
  EXPECT_EQ(links[2].lower, 1u);
  EXPECT_NEAR(links[2].lowerWeight, 1., 1e-12);
  // 0.6 * 4 = 2.4: frames 2 and 3.
  EXPECT_EQ(links[3].lower, 2u);
  EXPECT_EQ(links[3].upper, 3u);
  EXPECT_NEAR(links[3].upperWeight, 0.4, 1e-12);
  // 0.95 * 4 = 3.8: frame 3 and, cyclically, frame 0.
  EXPECT_EQ(links[4].lower, 3u);
  EXPECT_EQ(links[4].upper, 0u);
  EXPECT_NEAR(links[4].upperWeight, 0.8, 1e-12);
  // Just below 1: frame 3 (weight ~0) and frame 0 (weight ~1), indices in range.
  EXPECT_EQ(links[5].lower, 3u);
  EXPECT_EQ(links[5].upper, 0u);
  EXPECT_NEAR(links[5].upperWeight, 1., 1e-9);
  for (const auto & link : links)
  {
    EXPECT_LT(link.lower, 4u);
    EXPECT_LT(link.upper, 4u);
    EXPECT_NEAR(link.lowerWeight + link.upperWeight, 1., 1e-15);
  }
  // One frame: everything in frame 0.
  for (const auto & link : PhaseSignal::InterpolationWeights(phases, 1))
  {
    EXPECT_EQ(link.lower, 0u);
    EXPECT_EQ(link.upper, 0u);
  }
  EXPECT_NE(ErrorOf([&] { PhaseSignal::InterpolationWeights(phases, 0); }).find("at least 1"), std::string::npos);
  EXPECT_NE(ErrorOf([] { PhaseSignal::InterpolationWeights({ 0.5, 1.2 }, 3); }).find("1.2"), std::string::npos);
}

TEST(PhaseSignal, NearestFrameAndCyclicDistance)
{
  EXPECT_EQ(PhaseSignal::NearestFrame(0., 10), 0u);
  EXPECT_EQ(PhaseSignal::NearestFrame(0.04, 10), 0u);
  EXPECT_EQ(PhaseSignal::NearestFrame(0.06, 10), 1u);
  EXPECT_EQ(PhaseSignal::NearestFrame(0.05, 10), 0u); // ties go to the lower frame
  EXPECT_EQ(PhaseSignal::NearestFrame(0.96, 10), 0u); // wraps to frame 0
  EXPECT_EQ(PhaseSignal::NearestFrame(0.94, 10), 9u);
  EXPECT_EQ(PhaseSignal::NearestFrame(0.7, 1), 0u);
  EXPECT_NEAR(PhaseSignal::CyclicDistance(0.95, 0.05), 0.1, 1e-12);
  EXPECT_NEAR(PhaseSignal::CyclicDistance(0.2, 0.7), 0.5, 1e-12);
  EXPECT_NEAR(PhaseSignal::CyclicDistance(0.3, 0.1), 0.2, 1e-12);
  EXPECT_NE(ErrorOf([] { PhaseSignal::NearestFrame(std::nan(""), 4); }).find("[0, 1)"), std::string::npos);
}
} // namespace
