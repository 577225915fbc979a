// libFuzzer target: a Varian settings file (Scan.xml / ProjectionInfo.xml, cbct::VarianScan): the
// input is parsed (expat; leaf elements by local name), then used as the settings of a TrueBeam XIM
// frame lacking KVSourceVrt/KVDetectorVrt (so Scan.xml's SAD and SID are read) and of an OBI HND
// frame (CalibratedSAD/SID, CalibratedDetectorOffsetX/Y, FanType, DetectorPosLat). Any input must be
// refused with an itk::ExceptionObject or give finite geometry that RTK's geometry class accepts;
// nothing may crash or leak.
#include "cbctFuzzInput.h"
#include "cbctVarianScan.h"

#include <itkMetaDataObject.h>

#include <cmath>
#include <cstdlib>

namespace
{
void
CheckRecord(const cbct::VarianScan::ProjectionRecord & r)
{
  const double values[] = { r.sourceToIsocenterDistance, r.sourceToDetectorDistance, r.gantryAngleDegrees,
                            r.projectionOffsetX,         r.projectionOffsetY,        r.normChamber };
  for (double v : values)
    if (!std::isfinite(v))
      std::abort();
  auto geometry = cbct::ThreeDCircularProjectionGeometry::New();
  geometry->AddProjection(r.sourceToIsocenterDistance, r.sourceToDetectorDistance, r.gantryAngleDegrees,
                          r.projectionOffsetX, r.projectionOffsetY);
}
} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const std::uint8_t * data, std::size_t size)
{
  const std::string path = cbct::fuzz::WriteInput(data, size, "Scan.xml");
  cbct::VarianScan::XmlSettings settings;
  try
  {
    settings = cbct::VarianScan::ReadXmlSettings(path);
  }
  catch (const itk::ExceptionObject &)
  {
    return 0;
  }
  itk::MetaDataDictionary xim;
  itk::EncapsulateMetaData<double>(xim, "KVSourceRtn", 33.);
  itk::EncapsulateMetaData<double>(xim, "KVDetectorLat", -16.);
  itk::EncapsulateMetaData<int>(xim, "KVNormChamber", 240000);
  itk::EncapsulateMetaData<double>(xim, "PixelWidth", 0.0388);
  itk::EncapsulateMetaData<double>(xim, "PixelHeight", 0.0388);
  try
  {
    CheckRecord(cbct::VarianScan::FromXimProperties(xim, "Proj_00000.xim", settings));
  }
  catch (const itk::ExceptionObject &)
  {
  }
  itk::MetaDataDictionary hnd;
  itk::EncapsulateMetaData<double>(hnd, "dCTProjectionAngle", 12.);
  itk::EncapsulateMetaData<double>(hnd, "dSAD", 100.);       // cm
  itk::EncapsulateMetaData<double>(hnd, "dSFD", 99999999.);  // Varian's mark for unknown
  itk::EncapsulateMetaData<double>(hnd, "dIDUPosVrt", -50.); // cm
  itk::EncapsulateMetaData<double>(hnd, "dIDUPosLat", 148.); // mm
  itk::EncapsulateMetaData<double>(hnd, "dCTNormChamber", 3000.);
  itk::EncapsulateMetaData<double>(hnd, "dIDUResolutionX", 0.388);
  itk::EncapsulateMetaData<double>(hnd, "dIDUResolutionY", 0.388);
  try
  {
    CheckRecord(cbct::VarianScan::FromHndHeader(hnd, "Proj_00000.hnd", settings));
  }
  catch (const itk::ExceptionObject &)
  {
  }
  return 0;
}
