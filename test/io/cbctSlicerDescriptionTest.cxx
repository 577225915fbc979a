// The apps' 3D Slicer module descriptions (examples/cbctSlicer.h): what Slicer's parser of
// descriptions demands (longflags of letters, digits and underscores; <index> for positionals) and
// what its command line needs (a default for every number it passes), and that every spelling a
// description advertises is an option the app accepts.
#include "cbctSlicer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace
{
using namespace cbct::apps;

/** The element of the parameter whose <name> is `name`, or "" when there is none. */
std::string
ParameterElement(const std::string & xml, const std::string & name)
{
  const auto at = xml.find("<name>" + name + "</name>");
  if (at == std::string::npos)
    return {};
  const auto begin = xml.rfind("\n    <", at);
  const auto end = xml.find("\n    </", at);
  return xml.substr(begin, end - begin);
}

/** A declared parameter (the apps use cbctAppSupport.h's SlicerIo/SlicerIn/SlicerRange). */
SlicerParameter
Declared(const std::string & group, const std::string & type, const std::string & channel = "",
         const std::string & minimum = "", const std::string & maximum = "")
{
  SlicerParameter p;
  p.group = group;
  p.type = type;
  p.channel = channel;
  p.minimum = minimum;
  p.maximum = maximum;
  if (!minimum.empty())
    p.step = "1";
  return p;
}

bool
Contains(const std::string & text, const std::string & part)
{
  return text.find(part) != std::string::npos;
}

/** Parses `arguments` (without the program name) with `app`. */
void
Parse(CLI::App & app, std::vector<std::string> arguments)
{
  std::vector<char *> argv{ const_cast<char *>("app") };
  for (std::string & argument : arguments)
    argv.push_back(argument.data());
  app.parse(static_cast<int>(argv.size()), argv.data());
}

class SlicerDescription : public ::testing::Test
{
protected:
  void
  SetUp() override
  {
    SlicerModule() = SlicerModuleDescription{};
  }
};

TEST_F(SlicerDescription, HyphenatedLongFlagsAreAdvertisedWithUnderscores)
{
  CLI::App app{ "test app", "cbct-test" };
  std::string spacing, output;
  double angle = 0.;
  app.add_option("--new-spacing,--newspacing", spacing, "Spacing");
  app.add_option("--first-angle", angle, "Angle")->capture_default_str();
  app.add_option("-o,--output", output, "Output")->required();
  DescribeForSlicer("Test", { { "--output", Declared("Output", "image", "output") } });
  AddUnderscoreAliases(app);
  const std::string xml = SlicerXml(app, "1");

  ASSERT_EQ(xml.rfind("<?xml ", 0), 0u);
  EXPECT_TRUE(Contains(ParameterElement(xml, "newSpacing"), "<longflag>new_spacing</longflag>"));
  EXPECT_TRUE(Contains(ParameterElement(xml, "firstAngle"), "<longflag>first_angle</longflag>"));
  EXPECT_TRUE(Contains(ParameterElement(xml, "firstAngle"), "<default>0</default>"));
  EXPECT_TRUE(Contains(ParameterElement(xml, "output"), "<flag>o</flag>"));
  EXPECT_TRUE(Contains(ParameterElement(xml, "output"), "<channel>output</channel>"));
  // No longflag with a hyphen anywhere: Slicer's parser would refuse the whole module.
  for (auto at = xml.find("<longflag>"); at != std::string::npos; at = xml.find("<longflag>", at + 1))
    EXPECT_EQ(xml.substr(at, xml.find("</longflag>", at) - at).find('-'), std::string::npos) << xml.substr(at, 40);
}

TEST_F(SlicerDescription, EverySpellingOfAnOptionIsAccepted)
{
  for (const std::string & spelling : { "--new-spacing", "--new_spacing", "--newspacing" })
  {
    CLI::App app{ "test app", "cbct-test" };
    std::string spacing;
    double angle = 0.;
    app.add_option("--new-spacing,--newspacing", spacing, "Spacing");
    app.add_option("--first-angle", angle, "Angle");
    AddUnderscoreAliases(app);
    Parse(app, { spelling, "1,2", "--first_angle", "12.5" });
    EXPECT_EQ(spacing, "1,2") << spelling;
    EXPECT_EQ(angle, 12.5);
    // --help lists the underscore spelling beside the others.
    EXPECT_TRUE(Contains(app.help(), "--new-spacing,--newspacing,--new_spacing"));
  }
}

TEST_F(SlicerDescription, AnUnderscoreSpellingTakenByAnotherOptionIsRefused)
{
  CLI::App app{ "test app", "cbct-test" };
  std::string a, b;
  app.add_option("--a-b", a, "A");
  app.add_option("--a_b", b, "B");
  AddUnderscoreAliases(app);
  Parse(app, { "--a_b", "x" });
  EXPECT_EQ(b, "x");
  EXPECT_EQ(a, "");
  EXPECT_THROW(SlicerXml(app, "1"), std::logic_error);
}

TEST_F(SlicerDescription, ANumberWithoutDefaultIsAString)
{
  // Slicer passes every number on every run (0 without a default), so a number whose absence
  // means something must be a string, which Slicer leaves out while it is empty.
  CLI::App app{ "test app", "cbct-test" };
  double maximum = 0., gap = 4.;
  int count = 3;
  app.add_option("--max", maximum, "Maximum (default: a percentile)");
  app.add_option("--gap", gap, "Gap")->capture_default_str();
  app.add_option("--count", count, "Count")->capture_default_str();
  DescribeForSlicer("Test", { { "--max", Declared("Display", "double", "", "0", "10") },
                              { "--count", Declared("Display", "", "", "1", "9") } });
  AddUnderscoreAliases(app);
  const std::string xml = SlicerXml(app, "1");
  const std::string max = ParameterElement(xml, "max");
  EXPECT_EQ(max.rfind("\n    <string>", 0), 0u) << max;
  EXPECT_FALSE(Contains(max, "<default>"));
  EXPECT_FALSE(Contains(max, "<constraints>"));
  EXPECT_EQ(ParameterElement(xml, "gap").rfind("\n    <double>", 0), 0u);
  EXPECT_TRUE(Contains(ParameterElement(xml, "gap"), "<default>4</default>"));
  const std::string countElement = ParameterElement(xml, "count");
  EXPECT_EQ(countElement.rfind("\n    <integer>", 0), 0u);
  EXPECT_TRUE(Contains(countElement, "<default>3</default>"));
  EXPECT_TRUE(Contains(countElement, "<minimum>1</minimum>"));
}

TEST_F(SlicerDescription, AnOptionWhosePresenceMattersHasNoDefault)
{
  CLI::App app{ "test app", "cbct-test" };
  std::string dimension = "256";
  double dark = 0.;
  app.add_option("--dimension", dimension, "Size")->capture_default_str();
  app.add_option("--idark", dark, "Dark")->capture_default_str();
  DescribeForSlicer("Test", { { "--dimension", SlicerWhenGiven(Declared("Output", "integer-vector")) },
                              { "--idark", SlicerWhenGiven(Declared("Input", "double", "", "-1", "1")) } });
  const std::string xml = SlicerXml(app, "1");
  const std::string size = ParameterElement(xml, "dimension");
  EXPECT_EQ(size.rfind("\n    <integer-vector>", 0), 0u) << size;
  EXPECT_FALSE(Contains(size, "<default>"));
  EXPECT_TRUE(Contains(size, "(empty: 256)"));
  const std::string idark = ParameterElement(xml, "idark");
  EXPECT_EQ(idark.rfind("\n    <string>", 0), 0u) << idark;
  EXPECT_FALSE(Contains(idark, "<default>"));
}

TEST_F(SlicerDescription, PositionalOptionsAreIndexParameters)
{
  CLI::App app{ "test app", "cbct-test" };
  std::string input, output;
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "Verbose");
  app.add_option("input", input, "Input")->required();
  app.add_option("output", output, "Output");
  DescribeForSlicer("Test", { { "input", Declared("IO", "image", "input") }, { "output", Declared("IO", "image", "output") } });
  AddUnderscoreAliases(app);
  const std::string xml = SlicerXml(app, "1");
  const std::string in = ParameterElement(xml, "input");
  const std::string out = ParameterElement(xml, "output");
  EXPECT_TRUE(Contains(in, "<index>0</index>")) << in;
  EXPECT_TRUE(Contains(out, "<index>1</index>")) << out;
  EXPECT_FALSE(Contains(in, "<longflag>"));
  EXPECT_FALSE(Contains(in, "<flag>"));
  EXPECT_TRUE(Contains(in, "<channel>input</channel>"));
  EXPECT_TRUE(Contains(ParameterElement(xml, "verbose"), "<longflag>verbose</longflag>"));
  EXPECT_TRUE(Contains(ParameterElement(xml, "verbose"), "<default>false</default>"));
}

} // namespace
