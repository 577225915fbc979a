#include "cbctElektaXVIScan.h"

#include "cbctLineIntegralSupport.h"

#include "cbctDBaseTable.h"
#include "cbctHisImageIO.h"
#include "cbctHisImageIOFactory.h"

#include <expat.h>
#include <itksys/Directory.hxx>
#include <itksys/SystemTools.hxx>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <exception>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <locale>
#include <map>
#include <memory>
#include <sstream>

namespace cbct
{

namespace
{
[[noreturn]] void
Fail(const std::string & message)
{
  itkGenericExceptionMacro(<< message);
}

std::string
Lower(std::string text)
{
  for (char & c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string
Stripped(const std::string & text)
{
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos)
    return std::string();
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

bool
IsDirectory(const std::string & path)
{
  return itksys::SystemTools::FileIsDirectory(path);
}

/** The entries of `folder` (names only), sorted; empty when it cannot be listed. */
std::vector<std::string>
Entries(const std::string & folder)
{
  std::vector<std::string> names;
  itksys::Directory directory;
  if (!directory.Load(folder))
    return names;
  for (unsigned long i = 0; i < directory.GetNumberOfFiles(); ++i)
  {
    const std::string name = directory.GetFile(i);
    if (name != "." && name != "..")
      names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

/** The path of the regular file of `folder` named `name` in any case; empty when none. Files copied
 * from XVI's Windows disks keep whatever case they had. */
std::string
FindFile(const std::string & folder, const std::string & name)
{
  const std::string wanted = Lower(name);
  for (const std::string & entry : Entries(folder))
  {
    const std::string path = folder + "/" + entry;
    if (Lower(entry) == wanted && !IsDirectory(path))
      return path;
  }
  return std::string();
}

bool
HasHisExtension(const std::string & name)
{
  return Lower(itksys::SystemTools::GetFilenameLastExtension(name)) == ".his";
}

bool
StartsWith(const std::string & text, const std::string & prefix)
{
  return text.compare(0, prefix.size(), prefix) == 0;
}

/** What a .his file of the scan folder is: a projection, or a flood or dark field (this reader's
 * naming: flood*.his, dark*.his, any case). */
enum class HisRole
{
  Projection,
  Flood,
  Dark
};

HisRole
RoleOf(const std::string & name)
{
  const std::string lower = Lower(name);
  if (StartsWith(lower, "flood"))
    return HisRole::Flood;
  if (StartsWith(lower, "dark"))
    return HisRole::Dark;
  return HisRole::Projection;
}

/** The number a file name starts with (00012.<UID>.his: 12), or -1. */
long
LeadingNumber(const std::string & name)
{
  std::size_t digits = 0;
  while (digits < name.size() && digits < 9 && std::isdigit(static_cast<unsigned char>(name[digits])))
    ++digits;
  if (digits == 0 || digits >= name.size() || name[digits] != '.')
    return -1;
  return std::stol(name.substr(0, digits));
}

/** The projection .his files of `folder` (full paths), by their leading number when every name has
 * one, else by name. */
std::vector<std::string>
ProjectionHisFiles(const std::string & folder, bool * numbered)
{
  std::vector<std::string> names;
  for (const std::string & entry : Entries(folder))
  {
    if (HasHisExtension(entry) && RoleOf(entry) == HisRole::Projection && !IsDirectory(folder + "/" + entry))
      names.push_back(entry);
  }
  *numbered = !names.empty() && std::all_of(names.begin(), names.end(), [](const std::string & n) {
    return LeadingNumber(n) >= 0;
  });
  if (*numbered)
  {
    std::stable_sort(names.begin(), names.end(), [](const std::string & a, const std::string & b) {
      return LeadingNumber(a) < LeadingNumber(b);
    });
  }
  std::vector<std::string> paths;
  for (const std::string & n : names)
    paths.push_back(folder + "/" + n);
  return paths;
}

/** The first .his file of `folder` whose role is `role`; empty when none. */
std::string
FieldFile(const std::string & folder, HisRole role)
{
  for (const std::string & entry : Entries(folder))
  {
    if (HasHisExtension(entry) && RoleOf(entry) == role && !IsDirectory(folder + "/" + entry))
      return folder + "/" + entry;
  }
  return std::string();
}

/** IMAGE.DBF and FRAME.DBF in `folder` or up to three folders above (XVI's database root is three
 * above a scan folder: <root>/patient_<ID>/IMAGES/img_<UID>). False when not found together. */
bool
FindTables(const std::string & folder, std::string * imageDbf, std::string * frameDbf)
{
  std::string current = itksys::SystemTools::CollapseFullPath(folder);
  for (int level = 0; level <= 3 && !current.empty(); ++level)
  {
    const std::string image = FindFile(current, "IMAGE.DBF");
    const std::string frame = FindFile(current, "FRAME.DBF");
    if (!image.empty() && !frame.empty())
    {
      *imageDbf = image;
      *frameDbf = frame;
      return true;
    }
    const std::string parent = itksys::SystemTools::GetParentDirectory(current);
    if (parent == current)
      break;
    current = parent;
  }
  return false;
}

double
ParseNumber(const std::string & text, const std::string & where)
{
  std::istringstream in(text);
  in.imbue(std::locale::classic());
  double value = 0.;
  in >> value;
  if (text.empty() || in.fail() || !(in >> std::ws).eof() || !std::isfinite(value))
  {
    Fail(where + " is '" + text + "'; expected a finite number");
  }
  return value;
}

bool
ParseFlag(const std::string & text, const std::string & where)
{
  const std::string lower = Lower(text);
  if (lower == "true" || lower == "1")
    return true;
  if (lower == "false" || lower == "0")
    return false;
  Fail(where + " is '" + text + "'; expected True or False");
}

/** "3, 4, 7-9" for a sorted list of sequence numbers (the log's one line). */
std::string
Ranges(const std::vector<long> & values)
{
  std::ostringstream out;
  for (std::size_t i = 0; i < values.size();)
  {
    std::size_t j = i;
    while (j + 1 < values.size() && values[j + 1] == values[j] + 1)
      ++j;
    if (i > 0)
      out << ", ";
    out << values[i];
    if (j > i)
      out << "-" << values[j];
    i = j + 1;
  }
  return out.str();
}

// ---- _Frames.xml (XVI 5), parsed with expat directly: a handler's exception is kept and thrown again
// once expat returns, never unwound through the C parser.
struct FramesXmlContext
{
  XML_Parser parser = nullptr;
  std::string path;
  std::exception_ptr error;
  int depth = 0;
  int frameDepth = -1; // depth of the open <Frame>, -1 outside one
  std::string text;
  std::map<std::string, std::string> fields; // the open frame's child elements
  std::vector<std::map<std::string, std::string>> frames;
};

template <typename F>
void
Guarded(void * data, F handler)
{
  auto * context = static_cast<FramesXmlContext *>(data);
  if (context->error)
    return;
  try
  {
    handler(*context);
  }
  catch (...)
  {
    context->error = std::current_exception();
    XML_StopParser(context->parser, XML_FALSE);
  }
}

extern "C" void
OnFramesStart(void * data, const XML_Char * name, const XML_Char **)
{
  Guarded(data, [&](FramesXmlContext & c) {
    ++c.depth;
    c.text.clear();
    if (std::string(name) == "Frame")
    {
      if (c.frameDepth >= 0)
        Fail("_Frames.xml " + c.path + ": a <Frame> inside a <Frame>");
      c.frameDepth = c.depth;
      c.fields.clear();
    }
  });
}

extern "C" void
OnFramesEnd(void * data, const XML_Char * name)
{
  Guarded(data, [&](FramesXmlContext & c) {
    const std::string element(name);
    if (element == "Frame" && c.depth == c.frameDepth)
    {
      c.frames.push_back(c.fields);
      c.frameDepth = -1;
    }
    else if (c.frameDepth >= 0 && c.depth == c.frameDepth + 1)
    {
      c.fields[element] = Stripped(c.text);
    }
    c.text.clear();
    --c.depth;
  });
}

extern "C" void
OnFramesText(void * data, const XML_Char * text, int length)
{
  Guarded(data, [&](FramesXmlContext & c) {
    // Only the text of a frame's child elements is kept; a bound keeps a hostile file from growing it.
    if (c.frameDepth < 0)
      return;
    if (c.text.size() + static_cast<std::size_t>(length) > 4096)
      Fail("_Frames.xml " + c.path + ": the text of an element of <Frame> " + std::to_string(c.frames.size() + 1) +
           " is longer than 4096 characters");
    c.text.append(text, static_cast<std::size_t>(length));
  });
}

/** The value of the first of `names` present in `fields`; `found` says whether one was. */
std::string
FirstOf(const std::map<std::string, std::string> & fields, std::initializer_list<const char *> names, bool * found)
{
  for (const char * name : names)
  {
    const auto it = fields.find(name);
    if (it != fields.end())
    {
      *found = true;
      return it->second;
    }
  }
  *found = false;
  return std::string();
}
} // namespace

bool
ElektaXVIScan::Recognizes(const std::string & path)
{
  if (path.empty() || !itksys::SystemTools::FileExists(path))
    return false;
  if (!IsDirectory(path))
    return Lower(itksys::SystemTools::GetFilenameName(path)) == "_frames.xml";
  bool numbered = false;
  if (ProjectionHisFiles(path, &numbered).empty())
    return false;
  if (!FindFile(path, "_Frames.xml").empty())
    return true;
  std::string imageDbf, frameDbf;
  const std::string name = Lower(itksys::SystemTools::GetFilenameName(itksys::SystemTools::CollapseFullPath(path)));
  return StartsWith(name, "img_") && FindTables(path, &imageDbf, &frameDbf);
}

ElektaXVIScan::Pointer
ElektaXVIScan::Open(const std::string & path)
{
  if (path.empty() || !itksys::SystemTools::FileExists(path))
  {
    Fail("Elekta XVI scan " + path + " does not exist; expected a scan folder img_<UID> or its _Frames.xml");
  }
  // The importer reads the projection files through ITK's object factory: make sure it knows HIS.
  HisImageIOFactory::RegisterOneFactory();
  Pointer scan = Self::New();
  std::string folder = path;
  std::string xml;
  if (!IsDirectory(path))
  {
    if (Lower(itksys::SystemTools::GetFilenameName(path)) != "_frames.xml")
    {
      Fail("Elekta XVI scan " + path + " is a file other than _Frames.xml; expected a scan folder img_<UID> or its _Frames.xml");
    }
    xml = path;
    folder = itksys::SystemTools::GetFilenamePath(itksys::SystemTools::CollapseFullPath(path));
  }
  else
  {
    xml = FindFile(folder, "_Frames.xml");
  }
  while (folder.size() > 1 && folder.back() == '/')
    folder.pop_back();
  scan->m_Folder = folder;
  scan->AddToLog("Elekta XVI scan folder " + folder);

  scan->m_FloodFile = FieldFile(folder, HisRole::Flood);
  scan->m_DarkFile = FieldFile(folder, HisRole::Dark);

  if (!xml.empty())
  {
    scan->SetFormat("Elekta XVI 5 (HIS + _Frames.xml)");
    scan->ReadFramesXml(xml);
  }
  else
  {
    std::string imageDbf, frameDbf;
    if (!FindTables(folder, &imageDbf, &frameDbf))
    {
      Fail("Elekta XVI scan folder " + folder +
           " has no _Frames.xml (XVI 5), and no IMAGE.DBF and FRAME.DBF (XVI 4.5) were found in it or the three folders above it");
    }
    scan->SetFormat("Elekta XVI 4.5 (HIS + IMAGE.DBF/FRAME.DBF)");
    scan->ReadDatabase(folder, imageDbf, frameDbf);
  }
  scan->ReadDetectorGrid();
  return scan;
}

void
ElektaXVIScan::ReadFramesXml(const std::string & xml)
{
  std::ifstream in(xml, std::ios::binary);
  if (!in)
  {
    Fail("_Frames.xml " + xml + " cannot be opened for reading");
  }
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
  {
    Fail("_Frames.xml " + xml + " is larger than 2 GiB");
  }
  const std::unique_ptr<XML_ParserStruct, decltype(&XML_ParserFree)> parser(XML_ParserCreate(nullptr), XML_ParserFree);
  if (!parser)
  {
    throw std::bad_alloc();
  }
  FramesXmlContext context;
  context.parser = parser.get();
  context.path = xml;
  XML_SetUserData(parser.get(), &context);
  XML_SetElementHandler(parser.get(), OnFramesStart, OnFramesEnd);
  XML_SetCharacterDataHandler(parser.get(), OnFramesText);
  const XML_Status status = XML_Parse(parser.get(), text.data(), static_cast<int>(text.size()), XML_TRUE);
  if (context.error)
  {
    std::rethrow_exception(context.error);
  }
  if (status == XML_STATUS_ERROR)
  {
    std::ostringstream message;
    message << "_Frames.xml " << xml << ": " << XML_ErrorString(XML_GetErrorCode(parser.get())) << " at line "
            << XML_GetCurrentLineNumber(parser.get()) << ", column " << XML_GetCurrentColumnNumber(parser.get());
    Fail(message.str());
  }
  if (context.frames.empty())
  {
    Fail("_Frames.xml " + xml + " has no <Frame> element; expected one per projection");
  }
  AddToLog("geometry from " + xml + ": " + std::to_string(context.frames.size()) + " <Frame> elements");

  std::vector<Frame> frames;
  for (std::size_t i = 0; i < context.frames.size(); ++i)
  {
    const auto & fields = context.frames[i];
    std::ostringstream where;
    where << "_Frames.xml " << xml << ", <Frame> " << i + 1;
    Frame frame;
    bool found = false;
    const std::string seq = FirstOf(fields, { "Seq" }, &found);
    if (found)
    {
      const double value = ParseNumber(seq, where.str() + " <Seq>");
      if (value < 0 || value > 1e9 || value != std::floor(value))
        Fail(where.str() + " <Seq> is '" + seq + "'; expected a whole number >= 0");
      frame.seq = static_cast<long>(value);
      where << " (Seq " << frame.seq << ")";
    }
    // Anonymised _Frames.xml files have been seen with letters cut from these names (RTK reads
    // "antryAngle", "Gantryngle", "Uentre", "Ventre" too); "Angle" is an older name of GantryAngle.
    const std::string angle = FirstOf(fields, { "GantryAngle", "Angle", "antryAngle", "Gantryngle" }, &found);
    if (!found)
      Fail(where.str() + " has no <GantryAngle>");
    frame.angle = ParseNumber(angle, where.str() + " <GantryAngle>");
    const std::string u = FirstOf(fields, { "UCentre", "Uentre" }, &found);
    if (!found)
      Fail(where.str() + " has no <UCentre> (the flex map's detector centre)");
    frame.uCentre = ParseNumber(u, where.str() + " <UCentre>");
    const std::string v = FirstOf(fields, { "VCentre", "Ventre" }, &found);
    if (!found)
      Fail(where.str() + " has no <VCentre> (the flex map's detector centre)");
    frame.vCentre = ParseNumber(v, where.str() + " <VCentre>");
    const std::string exposed = FirstOf(fields, { "Exposed" }, &found);
    if (found)
      frame.exposed = ParseFlag(exposed, where.str() + " <Exposed>");
    const std::string inactive = FirstOf(fields, { "Inactive" }, &found);
    if (found)
      frame.inactive = ParseFlag(inactive, where.str() + " <Inactive>");
    frames.push_back(frame);
  }
  const bool allSequenced =
    std::all_of(frames.begin(), frames.end(), [](const Frame & f) { return f.seq >= 0; });

  bool numbered = false;
  const std::vector<std::string> files = ProjectionHisFiles(m_Folder, &numbered);
  if (files.empty())
  {
    Fail("Elekta XVI scan folder " + m_Folder + " has no .his projection files");
  }
  this->MatchFramesToFiles(frames, files, allSequenced && numbered);
  this->AddFrames(frames, "_Frames.xml: GantryAngle, UCentre, VCentre");
}

void
ElektaXVIScan::ReadDatabase(const std::string & folder, const std::string & imageDbf, const std::string & frameDbf)
{
  const std::string name = itksys::SystemTools::GetFilenameName(itksys::SystemTools::CollapseFullPath(folder));
  if (!StartsWith(Lower(name), "img_") || name.size() <= 4)
  {
    Fail("Elekta XVI 4.5 scan folder " + folder + " is not named img_<DICOM UID>; its UID links it to " + imageDbf);
  }
  const std::string uid = name.substr(4);
  AddToLog("geometry from the XVI 4.5 database: " + imageDbf + " and " + frameDbf + ", scan DICOM_UID " + uid +
           " (from the folder name)");

  const DBaseTable images = DBaseTable::Read(imageDbf);
  for (const char * field : { "DICOM_UID", "DBID" })
  {
    if (!images.HasField(field))
      Fail("dBase table " + imageDbf + " has no field " + field + "; expected XVI's IMAGE table");
  }
  std::string dbid;
  for (std::size_t r = 0; r < images.NumberOfRecords() && dbid.empty(); ++r)
  {
    if (images.GetString(r, "DICOM_UID") == uid)
      dbid = images.GetString(r, "DBID");
  }
  if (dbid.empty())
  {
    Fail("dBase table " + imageDbf + " has no record with DICOM_UID " + uid + " (the scan folder's UID) and a DBID");
  }
  AddToLog("IMAGE.DBF: DICOM_UID " + uid + " has DBID " + dbid);

  const DBaseTable frameTable = DBaseTable::Read(frameDbf);
  for (const char * field : { "IMA_DBID", "PROJ_ANG", "U_CENTRE", "V_CENTRE" })
  {
    if (!frameTable.HasField(field))
      Fail("dBase table " + frameDbf + " has no field " + field + "; expected XVI's FRAME table");
  }
  std::vector<Frame> frames;
  for (std::size_t r = 0; r < frameTable.NumberOfRecords(); ++r)
  {
    if (frameTable.GetString(r, "IMA_DBID") != dbid)
      continue;
    Frame frame;
    frame.seq = static_cast<long>(frames.size()) + 1;
    frame.angle = frameTable.GetNumber(r, "PROJ_ANG");
    frame.uCentre = frameTable.GetNumber(r, "U_CENTRE");
    frame.vCentre = frameTable.GetNumber(r, "V_CENTRE");
    frames.push_back(frame);
  }
  if (frames.empty())
  {
    Fail("dBase table " + frameDbf + " has no record with IMA_DBID " + dbid + " (the DBID of scan " + uid + ")");
  }
  AddToLog("FRAME.DBF: " + std::to_string(frames.size()) + " records with IMA_DBID " + dbid +
           ", in record order");
  bool numbered = false;
  const std::vector<std::string> files = ProjectionHisFiles(folder, &numbered);
  if (files.size() != frames.size())
  {
    Fail("Elekta XVI 4.5 scan folder " + folder + " has " + std::to_string(files.size()) + " .his projection files but " +
         frameDbf + " has " + std::to_string(frames.size()) + " frames of scan " + uid + "; expected one file per frame");
  }
  this->MatchFramesToFiles(frames, files, false);
  this->AddFrames(frames, "FRAME.DBF: PROJ_ANG, U_CENTRE, V_CENTRE");
}

void
ElektaXVIScan::MatchFramesToFiles(std::vector<Frame> & frames, const std::vector<std::string> & files, bool bySequence)
{
  if (bySequence)
  {
    std::map<long, std::string> byNumber;
    for (const std::string & file : files)
    {
      const long number = LeadingNumber(itksys::SystemTools::GetFilenameName(file));
      if (!byNumber.emplace(number, file).second)
        Fail("Elekta XVI scan folder " + m_Folder + " has two .his files numbered " + std::to_string(number) + ": " +
             byNumber[number] + " and " + file);
    }
    std::stable_sort(frames.begin(), frames.end(), [](const Frame & a, const Frame & b) { return a.seq < b.seq; });
    for (std::size_t i = 1; i < frames.size(); ++i)
    {
      if (frames[i].seq == frames[i - 1].seq)
        Fail("_Frames.xml of " + m_Folder + " has two frames with Seq " + std::to_string(frames[i].seq));
    }
    std::size_t used = 0;
    for (Frame & frame : frames)
    {
      const auto it = byNumber.find(frame.seq);
      if (it != byNumber.end())
      {
        frame.file = it->second;
        ++used;
      }
      else if (frame.exposed && !frame.inactive)
      {
        Fail("Elekta XVI scan folder " + m_Folder + " has no .his file numbered " + std::to_string(frame.seq) +
             " for the exposed, active frame Seq " + std::to_string(frame.seq) + " of _Frames.xml");
      }
    }
    AddToLog("frames matched to files by Seq and the number each file name starts with");
    if (used < files.size())
    {
      AddToLog(std::to_string(files.size() - used) + " .his file(s) with no frame in _Frames.xml left out");
    }
    return;
  }
  if (frames.size() != files.size())
  {
    Fail("Elekta XVI scan folder " + m_Folder + " has " + std::to_string(files.size()) + " .his projection files and " +
         std::to_string(frames.size()) + " frames; without frame numbers in the file names they must match one to one");
  }
  for (std::size_t i = 0; i < frames.size(); ++i)
    frames[i].file = files[i];
  AddToLog("frames matched to the .his files in name order");
}

void
ElektaXVIScan::AddFrames(const std::vector<Frame> & frames, const std::string & source)
{
  auto geometry = ThreeDCircularProjectionGeometry::New();
  std::vector<std::string> files;
  std::vector<long> inactive, unexposed;
  double minAngle = std::numeric_limits<double>::infinity(), maxAngle = -minAngle;
  double minU = minAngle, maxU = -minAngle, minV = minAngle, maxV = -minAngle;
  for (const Frame & frame : frames)
  {
    if (frame.inactive)
    {
      inactive.push_back(frame.seq);
      continue;
    }
    if (!frame.exposed)
    {
      unexposed.push_back(frame.seq);
      continue;
    }
    // RTK: AddProjection(1000, 1536, angle, -UCentre, -VCentre); the geometry wraps the angle.
    geometry->AddProjection(SourceToIsocenterDistance, SourceToDetectorDistance, frame.angle, -frame.uCentre,
                            -frame.vCentre);
    files.push_back(frame.file);
    minAngle = std::min(minAngle, frame.angle);
    maxAngle = std::max(maxAngle, frame.angle);
    minU = std::min(minU, frame.uCentre);
    maxU = std::max(maxU, frame.uCentre);
    minV = std::min(minV, frame.vCentre);
    maxV = std::max(maxV, frame.vCentre);
  }
  if (!inactive.empty())
    AddToLog("left out " + std::to_string(inactive.size()) + " frame(s) marked Inactive: Seq " + Ranges(inactive));
  if (!unexposed.empty())
    AddToLog("left out " + std::to_string(unexposed.size()) + " frame(s) not Exposed: Seq " + Ranges(unexposed));
  if (files.empty())
  {
    Fail("Elekta XVI scan folder " + m_Folder + ": every frame is inactive or not exposed; nothing to reconstruct");
  }
  std::ostringstream line;
  line << files.size() << " projections from " << source << "; SourceToIsocenterDistance "
       << SourceToIsocenterDistance << " mm and SourceToDetectorDistance " << SourceToDetectorDistance
       << " mm (XVI's kV geometry, not in the files)";
  AddToLog(line.str());
  line.str("");
  line << "gantry angle = XVI angle, wrapped to [0, 360) (XVI " << minAngle << " to " << maxAngle << " deg)";
  AddToLog(line.str());
  line.str("");
  line << "ProjectionOffsetX = -UCentre (" << -maxU << " to " << -minU << " mm), ProjectionOffsetY = -VCentre ("
       << -maxV << " to " << -minV << " mm): the flex map's detector centre per frame";
  AddToLog(line.str());
  SetGeometry(geometry);
  SetProjectionFiles(std::move(files));
}

void
ElektaXVIScan::ReadDetectorGrid()
{
  const std::vector<std::string> & files = ProjectionFiles();
  for (std::size_t i = 0; i < files.size(); ++i)
  {
    const HisImageIO::Header h = HisImageIO::ReadHeader(files[i]);
    if (h.numberOfFrames != 1)
    {
      Fail("HIS file " + files[i] + " holds " + std::to_string(h.numberOfFrames) +
           " frames; an XVI projection file holds one");
    }
    if (i == 0)
    {
      m_Width = h.width;
      m_Height = h.height;
      m_Correction = h.correction;
    }
    else if (h.width != m_Width || h.height != m_Height)
    {
      std::ostringstream message;
      message << "HIS file " << files[i] << " is " << h.width << " x " << h.height << " pixels; " << files[0]
              << " is " << m_Width << " x " << m_Height << "; expected every projection the same size";
      Fail(message.str());
    }
    else if (h.correction != m_Correction)
    {
      m_Correction = -1; // mixed: the log says so, and flood/dark are then not applied
    }
  }
  const std::array<double, 2> spacing{ { HisImageIO::PanelWidth / m_Width, HisImageIO::PanelWidth / m_Height } };
  SetDetectorGrid(spacing, { { -0.5 * (m_Width - 1.) * spacing[0], -0.5 * (m_Height - 1.) * spacing[1] } });
  std::ostringstream line;
  line << "detector " << m_Width << " x " << m_Height << " pixels of " << spacing[0] << " x " << spacing[1]
       << " mm (HIS has no pixel size: the XVI panel's 409.6 mm / pixels), centred on (0, 0)";
  AddToLog(line.str());
  line.str("");
  if (m_Correction < 0)
    line << "HIS_Correction differs between the projection files";
  else
    line << "HIS_Correction of the projections " << m_Correction << " (1 offset, 2 gain, 4 bad pixel)";
  AddToLog(line.str());
}

double
ElektaXVIScan::IntensityFromReading(double reading)
{
  // RTK's table: r = 0 and r = 65535 read as r = 1.
  if (!std::isfinite(reading) || reading <= 0. || reading >= ReadingScale - 1.)
    return ReadingScale - 1.;
  return ReadingScale - reading;
}

double
ElektaXVIScan::LineIntegral(double intensity, double airIntensity, double darkIntensity)
{
  double signal = intensity - darkIntensity;
  double air = airIntensity - darkIntensity;
  // !(x >= 1) also catches NaN.
  if (!(signal >= 1.))
    signal = 1.;
  if (!(air >= 1.))
    air = 1.;
  return std::log(air) - std::log(signal);
}

namespace
{
/** A flood or dark field: the mean reading per pixel over its frames. */
std::vector<double>
ReadField(const std::string & path, unsigned int width, unsigned int height, const char * what)
{
  auto io = HisImageIO::New();
  io->SetFileName(path);
  io->ReadImageInformation();
  const HisImageIO::Header & h = io->GetHeader();
  if (h.width != width || h.height != height)
  {
    std::ostringstream message;
    message << what << " field " << path << " is " << h.width << " x " << h.height << " pixels; the projections are "
            << width << " x " << height;
    Fail(message.str());
  }
  std::vector<std::uint16_t> pixels(static_cast<std::size_t>(h.dataBytes / 2));
  io->Read(pixels.data());
  const std::size_t n = static_cast<std::size_t>(width) * height;
  std::vector<double> mean(n, 0.);
  for (std::size_t f = 0; f < h.numberOfFrames; ++f)
    for (std::size_t i = 0; i < n; ++i)
      mean[i] += pixels[f * n + i];
  for (double & m : mean)
    m /= h.numberOfFrames;
  return mean;
}
} // namespace

void
ElektaXVIScan::ToLineIntegrals(ProjectionsType * readings) const
{
  if (readings == nullptr)
  {
    Fail("ElektaXVIScan::ToLineIntegrals: no projections given");
  }
  const auto region = readings->GetBufferedRegion();
  const auto size = region.GetSize();
  if (size[0] != m_Width || size[1] != m_Height || size[2] != ProjectionFiles().size())
  {
    std::ostringstream message;
    message << "ElektaXVIScan::ToLineIntegrals: projections are " << size[0] << " x " << size[1] << " x " << size[2]
            << "; the scan " << m_Folder << " has " << ProjectionFiles().size() << " projections of " << m_Width << " x "
            << m_Height;
    Fail(message.str());
  }
  const std::size_t n = static_cast<std::size_t>(m_Width) * m_Height;
  std::vector<double> air(n, ReadingScale), dark(n, 0.);
  const bool gainDone = m_Correction >= 0 && (m_Correction & 2) != 0;
  const bool offsetDone = m_Correction >= 0 && (m_Correction & 1) != 0;
  const bool useFlood = !m_FloodFile.empty() && m_Correction >= 0 && !gainDone;
  const bool useDark = !m_DarkFile.empty() && m_Correction >= 0 && !offsetDone;
  if (!m_FloodFile.empty() && !useFlood)
    AddToLog("flood field " + m_FloodFile + " not applied: the projections' HIS_Correction says they are gain corrected (or differs between files)");
  if (!m_DarkFile.empty() && !useDark)
    AddToLog("dark field " + m_DarkFile + " not applied: the projections' HIS_Correction says they are offset corrected (or differs between files)");
  if (useFlood)
  {
    const std::vector<double> flood = ReadField(m_FloodFile, m_Width, m_Height, "flood");
    for (std::size_t i = 0; i < n; ++i)
      air[i] = IntensityFromReading(flood[i]);
    AddToLog("I0 per pixel from the flood field " + m_FloodFile + ": I0 = 65536 - flood reading (mean of its frames)");
  }
  else
  {
    AddToLog("I0 = 65536 for every pixel (RTK's lookup table for raw XVI frames; no flood field applied)");
  }
  if (useDark)
  {
    const std::vector<double> field = ReadField(m_DarkFile, m_Width, m_Height, "dark");
    for (std::size_t i = 0; i < n; ++i)
      dark[i] = IntensityFromReading(field[i]);
    AddToLog("Id per pixel from the dark field " + m_DarkFile + ": Id = 65536 - dark reading (mean of its frames)");
  }
  else
  {
    AddToLog("Id = 0 (no dark field applied)");
  }
  AddToLog("I = 65536 - r (XVI stores r = 65536 - I; r <= 0 or r >= 65535 read as r = 1, as RTK's table does)");

  // Per detector pixel, once: Id and I0 - Id (at least one count).
  std::size_t clampedAir = 0;
  std::vector<float> darks(n), opens(n);
  for (std::size_t i = 0; i < n; ++i)
  {
    double open = air[i] - dark[i];
    if (!(open >= 1.)) // !(x >= 1) also catches NaN
    {
      open = 1.;
      ++clampedAir;
    }
    darks[i] = static_cast<float>(dark[i]);
    opens[i] = static_cast<float>(open);
  }
  // p = ln((I0 - Id) / (I - Id)) as LineIntegral(), several projections at a time, each pixel without a
  // branch so that the loop vectorises (detail::FastLog: within about 1 ulp of ln).
  struct Counts
  {
    std::size_t remapped = 0, clampedSignal = 0;
  };
  const float scale = static_cast<float>(ReadingScale);
  const auto counts = detail::ConvertEachProjection(readings, [&](std::size_t, float * projection, std::size_t count) {
    unsigned int remappedHere = 0, clampedHere = 0;
    for (std::size_t i = 0; i < count; ++i)
    {
      const float r = projection[i];
      const bool inTable = r > 0.f && r < scale - 1.f; // false for NaN; +-inf are outside
      remappedHere += !inTable;
      const float intensity = inTable ? scale - r : scale - 1.f; // IntensityFromReading()
      float signal = intensity - darks[i];
      clampedHere += !(signal >= 1.f);
      signal = signal > 1.f ? signal : 1.f;
      projection[i] = detail::FastLog(opens[i] / signal);
    }
    return Counts{ remappedHere, clampedHere };
  });
  std::size_t clampedSignal = 0, remapped = 0;
  for (const Counts & c : counts)
  {
    remapped += c.remapped;
    clampedSignal += c.clampedSignal;
  }
  AddToLog("line integral p = ln(I0 - Id) - ln(I - Id), both differences taken as at least 1 (one count)");
  std::ostringstream line;
  line << remapped << " reading(s) <= 0, >= 65535 or not finite read as r = 1; " << clampedSignal
       << " pixel(s) with I - Id < 1 and " << clampedAir << " detector pixel(s) with I0 - Id < 1 clamped to 1";
  AddToLog(line.str());
}

void
ElektaXVIScan::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Format: " << Format() << std::endl;
  os << indent << "Folder: " << m_Folder << std::endl;
  os << indent << "Projections: " << ProjectionFiles().size() << " of " << m_Width << " x " << m_Height << std::endl;
  os << indent << "Flood field: " << (m_FloodFile.empty() ? "(none)" : m_FloodFile) << std::endl;
  os << indent << "Dark field: " << (m_DarkFile.empty() ? "(none)" : m_DarkFile) << std::endl;
}

} // namespace cbct
