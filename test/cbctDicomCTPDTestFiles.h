#ifndef cbctDicomCTPDTestFiles_h
#define cbctDicomCTPDTestFiles_h

// DICOM-CT-PD projection files written through GDCM (an implementation of the DICOM encoding
// independent of the reader's), for cbctDicomCTPDScanTest: one file per projection, each tag as the
// format defines it (VR FL for the private geometry, DS for the rescale pair, US for counts).

#include <gdcmDataSet.h>
#include <gdcmFile.h>
#include <gdcmTrace.h>
#include <gdcmWriter.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace cbct::test
{

/** One projection's tags and stored values. */
struct CTPDProjection
{
  unsigned int rows = 24;    // NumberofDetectorRows
  unsigned int columns = 48; // NumberofDetectorColumns
  float columnSpacing = 1.6f;
  float rowSpacing = 1.6f;
  std::string shape = "CYLINDRICAL";
  float phi0 = 0.f, z0 = 0.f, rho0 = 400.f, d0 = 800.f;
  float centralColumn = 24.5f, centralRow = 12.5f;
  float dphi = 0.f, dz = 0.f, drho = 0.f;
  std::string ffs = "FFSNONE";
  std::string logFlag = "YES";
  std::vector<float> photons; // none when empty
  std::string slope = "0.0009765625";
  std::string intercept = "-1";
  int instance = 1;
  unsigned int angularSteps = 64; // NumberofSourceAngularSteps
  bool rowsFastest = true; // the Mayo layout: (0028,0010) Rows = detector columns
  bool implicitVR = false;
  bool signedPixels = false;
  std::vector<std::uint16_t> stored; // columns x rows values, in the file's order
};

/** Where the value of (column, row) (from 1) goes in the file's order. */
inline std::size_t
StoredIndex(const CTPDProjection & p, unsigned int column, unsigned int row)
{
  return p.rowsFastest ? std::size_t(column - 1) * p.rows + (row - 1) : std::size_t(row - 1) * p.columns + (column - 1);
}

namespace ctpd
{
inline void
Put(gdcm::DataSet & set, std::uint16_t group, std::uint16_t element, gdcm::VR vr, const void * bytes, std::size_t length)
{
  gdcm::DataElement e(gdcm::Tag(group, element));
  e.SetVR(vr);
  e.SetByteValue(static_cast<const char *>(bytes), static_cast<std::uint32_t>(length));
  set.Replace(e);
}
inline void
PutText(gdcm::DataSet & set, std::uint16_t group, std::uint16_t element, gdcm::VR vr, std::string text)
{
  if (text.size() % 2 != 0)
    text.push_back(vr == gdcm::VR::UI ? '\0' : ' ');
  Put(set, group, element, vr, text.data(), text.size());
}
inline void
PutFloats(gdcm::DataSet & set, std::uint16_t group, std::uint16_t element, const std::vector<float> & values)
{
  Put(set, group, element, gdcm::VR::FL, values.data(), 4 * values.size());
}
inline void
PutShort(gdcm::DataSet & set, std::uint16_t group, std::uint16_t element, std::uint16_t value)
{
  Put(set, group, element, gdcm::VR::US, &value, 2);
}
} // namespace ctpd

/** Writes `p` to `path`; `edit` may change the data set before it is written (damaged files). */
inline void
WriteCTPD(const std::string & path, const CTPDProjection & p, const std::function<void(gdcm::DataSet &)> & edit = {})
{
  using namespace ctpd;
  gdcm::Trace::SetWarning(false);
  gdcm::Writer writer;
  gdcm::File & file = writer.GetFile();
  gdcm::DataSet & set = file.GetDataSet();
  file.GetHeader().SetDataSetTransferSyntax(p.implicitVR ? gdcm::TransferSyntax::ImplicitVRLittleEndian
                                                          : gdcm::TransferSyntax::ExplicitVRLittleEndian);
  PutText(set, 0x0008, 0x0016, gdcm::VR::UI, "1.2.840.10008.5.1.4.1.1.2"); // CT Image Storage, as the Mayo files
  PutText(set, 0x0008, 0x0018, gdcm::VR::UI, "1.2.826.0.1.3680043.2.1125.1." + std::to_string(p.instance));
  PutText(set, 0x0008, 0x0060, gdcm::VR::CS, "CT");
  PutText(set, 0x0020, 0x0013, gdcm::VR::IS, std::to_string(p.instance));
  PutShort(set, 0x0028, 0x0002, 1);
  PutText(set, 0x0028, 0x0004, gdcm::VR::CS, "MONOCHROME2");
  PutShort(set, 0x0028, 0x0010, static_cast<std::uint16_t>(p.rowsFastest ? p.columns : p.rows));
  PutShort(set, 0x0028, 0x0011, static_cast<std::uint16_t>(p.rowsFastest ? p.rows : p.columns));
  PutShort(set, 0x0028, 0x0100, 16);
  PutShort(set, 0x0028, 0x0101, 16);
  PutShort(set, 0x0028, 0x0102, 15);
  PutShort(set, 0x0028, 0x0103, p.signedPixels ? 1 : 0);
  PutText(set, 0x0028, 0x1052, gdcm::VR::DS, p.intercept);
  PutText(set, 0x0028, 0x1053, gdcm::VR::DS, p.slope);
  PutText(set, 0x7029, 0x0010, gdcm::VR::LO, "DLX_DETECTOR"); // private creators (any text)
  PutShort(set, 0x7029, 0x1010, static_cast<std::uint16_t>(p.rows));
  PutShort(set, 0x7029, 0x1011, static_cast<std::uint16_t>(p.columns));
  PutFloats(set, 0x7029, 0x1002, { p.columnSpacing });
  PutFloats(set, 0x7029, 0x1006, { p.rowSpacing });
  PutText(set, 0x7029, 0x100B, gdcm::VR::CS, p.shape);
  PutText(set, 0x7031, 0x0010, gdcm::VR::LO, "DLX_DYNAMICS");
  PutFloats(set, 0x7031, 0x1001, { p.phi0 });
  PutFloats(set, 0x7031, 0x1002, { p.z0 });
  PutFloats(set, 0x7031, 0x1003, { p.rho0 });
  PutFloats(set, 0x7031, 0x1031, { p.d0 });
  PutFloats(set, 0x7031, 0x1033, { p.centralColumn, p.centralRow });
  PutText(set, 0x7033, 0x0010, gdcm::VR::LO, "DLX_SOURCE");
  PutFloats(set, 0x7033, 0x100B, { p.dphi });
  PutFloats(set, 0x7033, 0x100C, { p.dz });
  PutFloats(set, 0x7033, 0x100D, { p.drho });
  PutText(set, 0x7033, 0x100E, gdcm::VR::CS, p.ffs);
  PutShort(set, 0x7033, 0x1013, static_cast<std::uint16_t>(p.angularSteps));
  if (!p.photons.empty())
    PutFloats(set, 0x7033, 0x1065, p.photons);
  PutText(set, 0x7037, 0x1009, gdcm::VR::CS, "HELICAL");
  PutText(set, 0x7037, 0x100A, gdcm::VR::CS, "FANBEAM");
  PutText(set, 0x7039, 0x1009, gdcm::VR::CS, p.logFlag);
  PutFloats(set, 0x7041, 0x1001, { 0.0192f });
  std::vector<std::uint16_t> stored = p.stored;
  stored.resize(std::size_t(p.rows) * p.columns, 0);
  Put(set, 0x7FE0, 0x0010, gdcm::VR::OW, stored.data(), 2 * stored.size());
  if (edit)
    edit(set);
  writer.SetFileName(path.c_str());
  if (!writer.Write())
    throw std::runtime_error("GDCM could not write " + path);
}

} // namespace cbct::test

#endif
