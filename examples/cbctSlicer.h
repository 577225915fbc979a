#ifndef cbctSlicer_h
#define cbctSlicer_h

// 3D Slicer command-line modules (the Slicer Execution Model): every app answers --xml with its
// description, made by walking the CLI11 options (so it cannot drift from --help), accepts
// --returnparameterfile FILE (output parameters as "name = value" lines) and
// --processinformationaddress (progress as <filter-progress> lines on stdout, see
// cbctProgressBar.h). What CLI11 cannot tell (images versus strings, output channels,
// constraints, enumerations, groups) an app declares with SlicerModule().
//
// Slicer's parser of descriptions (SlicerExecutionModel's ModuleDescriptionParser) refuses a whole
// module when one <longflag> or <name> holds anything but letters, digits and underscores, so a
// long option is advertised in its underscore spelling (--new-spacing as new_spacing), which every
// app also accepts (AddUnderscoreAliases(), called by Run()). Slicer then passes each number and
// enumeration on every run ("--flag value", the value in its widget) and a string, vector, file or
// image only when it is filled in (booleans: the bare flag when true).

#include <CLI/CLI.hpp>

#include <cmath>
#include <fstream>
#include <iomanip>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace cbct::apps
{

/** What the Execution Model needs about one option beyond what CLI11 knows. Empty fields are
 * derived from the option: the type from its C++ type (boolean for a flag, integer, double,
 * string), no channel, no constraints, the group "Parameters". */
struct SlicerParameter
{
  std::string type;                  // image, file, directory, integer-vector, double-vector, string-enumeration, ...
  std::string channel;               // input or output (images, files, directories)
  std::string group;                 // the <parameters> group's label
  std::string minimum, maximum, step; // <constraints>
  std::vector<std::string> elements; // string-enumeration values
  std::string fileExtensions;        // e.g. ".xml"
  std::string imageType;             // e.g. scalar (the type attribute of <image>)
  std::string defaultValue;          // when the option has no captured default
  bool whenGiven = false;            // the app tells "given" from "not given" (see SlicerWhenGiven())
};

/** `p` for an option whose presence the app checks against other options (--dimension with --like,
 * --idark with line integrals): its default stays out of the description, so that Slicer passes
 * the option only when the user fills it in (the description says what empty means). */
inline SlicerParameter
SlicerWhenGiven(SlicerParameter p)
{
  p.whenGiven = true;
  return p;
}

/** An output parameter that is no option: a value the app computes and writes to
 * --returnparameterfile (e.g. cbct-compare's MAE). */
struct SlicerReturnParameter
{
  std::string name;
  std::string type; // float, double, integer, string
  std::string label;
  std::string description;
};

struct SlicerModuleDescription
{
  std::string title;
  std::map<std::string, SlicerParameter> parameters; // by SlicerKey(): "--output", or a positional's name
  std::vector<SlicerReturnParameter> returns;
};

/** The description of this process's app (one app per executable). */
inline SlicerModuleDescription &
SlicerModule()
{
  static SlicerModuleDescription module;
  return module;
}

/** Sets the title and adds (or replaces) the declared parameters. */
inline void
DescribeForSlicer(const std::string & title, const std::map<std::string, SlicerParameter> & parameters,
                  const std::vector<SlicerReturnParameter> & returns = {})
{
  SlicerModule().title = title;
  for (const auto & entry : parameters)
    SlicerModule().parameters[entry.first] = entry.second;
  SlicerModule().returns = returns;
}

/** The values written to --returnparameterfile, in the order they were set. */
inline std::vector<std::pair<std::string, std::string>> &
SlicerReturnValues()
{
  static std::vector<std::pair<std::string, std::string>> values;
  return values;
}

inline void
SetSlicerReturnValue(const std::string & name, double value)
{
  std::ostringstream text;
  text << std::setprecision(std::numeric_limits<double>::max_digits10) << value;
  for (auto & entry : SlicerReturnValues())
    if (entry.first == name)
    {
      entry.second = text.str();
      return;
    }
  SlicerReturnValues().emplace_back(name, text.str());
}

inline std::string
XmlEscaped(const std::string & text)
{
  std::string out;
  for (char c : text)
    switch (c)
    {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  return out;
}

/** "first-angle" -> "first_angle": the <longflag> of a long option, in the characters Slicer's
 * parser takes (letters, digits, underscores). */
inline std::string
SlicerLongFlag(const std::string & longName)
{
  std::string out = longName;
  for (char & c : out)
    if (c == '-')
      c = '_';
  return out;
}

namespace detail
{
/** Hands out the member of CLI::Option that holds its long names. CLI11 (2.x) fixes an option's
 * names when the option is made and has no call that adds one later; a class derived from
 * CLI::Option may form a pointer to that protected member, and through it the names of any
 * option can be appended to (CLI11 finds options by walking these names). Never instantiated. */
struct OptionLongNames : CLI::Option
{
  static std::vector<std::string> CLI::Option::*
  Member()
  {
    return &OptionLongNames::lnames_;
  }
};
} // namespace detail

/** Gives every long option whose name has a hyphen the underscore spelling as well: --new-spacing
 * also answers --new_spacing, the <longflag> Slicer passes (RTK's spellings, e.g. --newspacing,
 * stay as the app declared them). --help lists both. Run() calls it once the app's options are
 * declared, so that every app, including one added later, accepts what its description
 * advertises. A spelling that already names another option is left to that option (SlicerXml()
 * then refuses to advertise it). */
inline void
AddUnderscoreAliases(CLI::App & app)
{
  for (CLI::Option * option : app.get_options())
  {
    std::vector<std::string> & names = option->*detail::OptionLongNames::Member();
    const std::vector<std::string> declared = names;
    for (const std::string & name : declared)
    {
      const std::string alias = SlicerLongFlag(name);
      if (alias != name && app.get_option_no_throw("--" + alias) == nullptr)
        names.push_back(alias);
    }
  }
}

/** "first-angle" -> "firstAngle": the parameter's <name>, a C++ identifier as Slicer expects. */
inline std::string
SlicerName(const std::string & longName)
{
  std::string out;
  bool upper = false;
  for (char c : longName)
  {
    if (c == '-' || c == '_')
      upper = true;
    else
    {
      out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
      upper = false;
    }
  }
  return out;
}

/** "first-angle" -> "First angle". */
inline std::string
SlicerLabel(const std::string & longName)
{
  std::string out = longName;
  for (char & c : out)
    if (c == '-' || c == '_')
      c = ' ';
  if (!out.empty())
    out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

/** Whether an option is one of the Execution Model's parameters: not --help, --version or the
 * hidden options of the Slicer protocol itself (group ""). */
inline bool
IsSlicerParameter(const CLI::Option * option)
{
  if (option->get_group().empty() || option->get_single_name().empty())
    return false;
  const std::string name = option->get_single_name();
  return name != "help" && name != "version";
}

/** Whether an option is only positional (no flag): an <index> parameter, which Slicer passes after
 * the flagged ones, in the order of the indices. */
inline bool
IsSlicerPositional(const CLI::Option * option)
{
  return option->get_lnames().empty() && option->get_snames().empty();
}

/** The key of an option in SlicerModuleDescription::parameters: "--" and its first long name, or
 * (a positional option) its name. */
inline std::string
SlicerKey(const CLI::Option * option)
{
  return option->get_lnames().empty() ? option->get_single_name() : "--" + option->get_lnames().front();
}

/** The app's Execution Model XML. Throws when a declared parameter names no option. */
inline std::string
SlicerXml(const CLI::App & app, const std::string & version)
{
  const SlicerModuleDescription & module = SlicerModule();
  const auto options = app.get_options([](const CLI::Option * o) { return IsSlicerParameter(o); });
  for (const auto & entry : module.parameters)
  {
    bool found = false;
    for (const CLI::Option * option : options)
      found = found || SlicerKey(option) == entry.first;
    if (!found)
      throw std::logic_error("Slicer description names " + entry.first + ", which is no option of " + app.get_name());
  }

  // Positional options are <index> parameters, numbered in the order CLI11 fills them.
  std::map<const CLI::Option *, int> indices;
  for (const CLI::Option * option : options)
    if (IsSlicerPositional(option))
      indices[option] = static_cast<int>(indices.size());

  // Groups in the order of their first option.
  std::vector<std::string> groups;
  std::map<std::string, std::vector<const CLI::Option *>> byGroup;
  for (const CLI::Option * option : options)
  {
    const auto it = module.parameters.find(SlicerKey(option));
    const std::string group = it != module.parameters.end() && !it->second.group.empty() ? it->second.group : "Parameters";
    if (byGroup.find(group) == byGroup.end())
      groups.push_back(group);
    byGroup[group].push_back(option);
  }

  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
    << "<executable>\n"
    << "  <category>Reconstruction</category>\n"
    << "  <title>" << XmlEscaped(module.title.empty() ? app.get_name() : module.title) << "</title>\n"
    << "  <description>" << XmlEscaped(app.get_description()) << "</description>\n"
    << "  <version>" << XmlEscaped(version) << "</version>\n"
    << "  <documentation-url>https://github.com/ConeBeamCT/ConeBeamCT/blob/main/slicer/README.md</documentation-url>\n"
    << "  <license>Apache 2.0</license>\n"
    << "  <contributor>ConeBeamCT developers</contributor>\n"
    << "  <acknowledgements>Geometry and file conventions follow RTK.</acknowledgements>\n";
  for (const std::string & group : groups)
  {
    x << "  <parameters>\n    <label>" << XmlEscaped(group) << "</label>\n    <description>" << XmlEscaped(group)
      << " of " << XmlEscaped(app.get_name()) << "</description>\n";
    for (const CLI::Option * option : byGroup[group])
    {
      const std::string longName = option->get_single_name(); // the first long name, else the positional's
      SlicerParameter p;
      const auto it = module.parameters.find(SlicerKey(option));
      if (it != module.parameters.end())
        p = it->second;
      if (p.type.empty())
      {
        const std::string cliType = option->get_type_name();
        if (option->get_expected_min() == 0 && option->get_expected_max() == 0)
          p.type = "boolean";
        else if (cliType == "INT" || cliType == "UINT")
          p.type = "integer";
        else if (cliType == "FLOAT")
          p.type = "double";
        else
          p.type = "string";
      }
      std::string defaultValue = p.defaultValue.empty() ? option->get_default_str() : p.defaultValue;
      if (p.type == "boolean")
        defaultValue = "false";
      std::string description = option->get_description();
      if (p.whenGiven && !defaultValue.empty())
      {
        description += " (empty: " + defaultValue + ")";
        defaultValue.clear();
      }
      // Slicer passes a number on every run (its widget's value, 0 when the description gives no
      // default), so a number whose absence means something (--max: the 99.9th percentile) is
      // described as a string, which Slicer leaves out while it is empty.
      if ((p.type == "integer" || p.type == "float" || p.type == "double") && defaultValue.empty())
      {
        p.type = "string";
        p.minimum.clear();
        p.maximum.clear();
        p.step.clear();
      }
      std::string longFlag;
      if (!option->get_lnames().empty())
      {
        longFlag = SlicerLongFlag(longName);
        if (!option->check_lname(longFlag))
          throw std::logic_error("Slicer description of " + app.get_name() + ": --" + longFlag + " is no name of --" +
                                 longName + " (another option has it)");
      }
      std::string tag = "<" + p.type;
      if (p.type == "image" && !p.imageType.empty())
        tag += " type=\"" + p.imageType + "\"";
      if ((p.type == "file" || p.type == "image") && !p.fileExtensions.empty())
        tag += " fileExtensions=\"" + p.fileExtensions + "\"";
      x << "    " << tag << ">\n";
      x << "      <name>" << SlicerName(longName) << "</name>\n";
      if (!option->get_snames().empty())
        x << "      <flag>" << option->get_snames().front() << "</flag>\n";
      if (!longFlag.empty())
        x << "      <longflag>" << longFlag << "</longflag>\n";
      if (indices.count(option) > 0)
        x << "      <index>" << indices.at(option) << "</index>\n";
      x << "      <label>" << XmlEscaped(SlicerLabel(longName)) << "</label>\n";
      if (option->get_required())
        description += " (required)";
      x << "      <description>" << XmlEscaped(description) << "</description>\n";
      if (!defaultValue.empty())
        x << "      <default>" << XmlEscaped(defaultValue) << "</default>\n";
      if (!p.channel.empty())
        x << "      <channel>" << p.channel << "</channel>\n";
      for (const std::string & element : p.elements)
        x << "      <element>" << XmlEscaped(element) << "</element>\n";
      if (!p.minimum.empty() || !p.maximum.empty() || !p.step.empty())
      {
        x << "      <constraints>\n";
        if (!p.minimum.empty())
          x << "        <minimum>" << p.minimum << "</minimum>\n";
        if (!p.maximum.empty())
          x << "        <maximum>" << p.maximum << "</maximum>\n";
        if (!p.step.empty())
          x << "        <step>" << p.step << "</step>\n";
        x << "      </constraints>\n";
      }
      x << "    </" << p.type << ">\n";
    }
    x << "  </parameters>\n";
  }
  if (!module.returns.empty())
  {
    x << "  <parameters>\n    <label>Results</label>\n    <description>Values written to --returnparameterfile</description>\n";
    for (const SlicerReturnParameter & r : module.returns)
      x << "    <" << r.type << ">\n      <name>" << r.name << "</name>\n      <label>" << XmlEscaped(r.label)
        << "</label>\n      <description>" << XmlEscaped(r.description) << "</description>\n      <channel>output</channel>\n    </"
        << r.type << ">\n";
    x << "  </parameters>\n";
  }
  x << "</executable>\n";
  return x.str();
}

/** Writes the return values as "name = value" lines; returns false when the file cannot be written. */
inline bool
WriteSlicerReturnParameters(const std::string & path)
{
  std::ofstream out(path);
  if (!out)
    return false;
  for (const auto & entry : SlicerReturnValues())
    out << entry.first << " = " << entry.second << "\n";
  return static_cast<bool>(out);
}

} // namespace cbct::apps

#endif
