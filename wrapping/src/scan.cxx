// conebeamct._read_scan: a scanner's scan (cbct::ScanImporter: Varian, Elekta XVI, Nikon, Bruker) as
// projections, its geometry and what was read; conebeamct.read_scan wraps it.
#include "cbctMissingAirScanError.h"
#include "cbctPythonBindings.h"
#include "cbctPythonSupport.h"
#include "cbctScanImporter.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

namespace py = pybind11;

namespace cbct::python
{
namespace
{

/** A numpy (projection, v, u) view of a raw stack of T; the array keeps the image alive. */
template <typename T>
py::array
RawToNumpy(itk::Image<T, 3> * image)
{
  using ImagePointer = typename itk::Image<T, 3>::Pointer;
  const auto size = image->GetBufferedRegion().GetSize();
  auto * owner = new ImagePointer(image);
  py::capsule capsule(owner, [](void * p) { delete static_cast<ImagePointer *>(p); });
  return py::array_t<T>({ static_cast<py::ssize_t>(size[2]), static_cast<py::ssize_t>(size[1]),
                          static_cast<py::ssize_t>(size[0]) },
                        image->GetBufferPointer(), capsule);
}

/** (array, spacing, origin, geometry, info): the scan at `paths` (one, or several read as one:
 * ScanSeries) read by the vendor's reader that recognises it (or `format`'s), as line integrals
 * (float32) or, with `raw`, as stored. */
py::tuple
ReadScan(const std::vector<std::string> & paths,
         const std::string & format,
         bool raw,
         const cbct::ScanImporter::Options & options,
         const MakeGeometry & makeGeometry)
{
  cbct::ScannerScan::Pointer scan;
  cbct::ScannerScan::ProjectionsType::Pointer lineIntegrals;
  cbct::ScanImporter::RawProjections rawProjections;
  try
  {
    py::gil_scoped_release release;
    scan = cbct::ScanImporter::Open(paths, format, options);
    if (raw)
      rawProjections = cbct::ScanImporter::ReadRaw(scan);
    else
      lineIntegrals = cbct::ScanImporter::ReadLineIntegrals(scan);
    // A geometry no scanner has (a detector wholly beside the rotation axis) is never returned.
    cbct::ScanImporter::CheckDetectorReachesAxis(scan, raw ? rawProjections.image.GetPointer()
                                                           : static_cast<const itk::ImageBase<3> *>(lineIntegrals.GetPointer()));
  }
  catch (cbct::MissingAirScanError & e)
  {
    // The library names what it looked for; how to ask for the fallback is said in read_scan's words.
    e.SetDescription(std::string(e.GetDescription()) +
                     ". To normalise with a constant I0 instead, pass air_fallback=True (I0: the scan's brightest "
                     "reading, or air_fallback_i0=I0, in counts at the scan's mean norm-chamber reading); or "
                     "raw=True for the readings as stored, which need no air scan");
    throw;
  }
  py::array array;
  const itk::ImageBase<3> * stack = nullptr;
  if (raw)
  {
    cbct::ScanImporter::VisitRaw(rawProjections, [&](auto * image) { array = RawToNumpy(image); });
    stack = rawProjections.image;
  }
  else
  {
    array = ToNumpy<cbct::ScannerScan::ProjectionsType>(lineIntegrals);
    stack = lineIntegrals;
  }
  Triple spacing, origin;
  for (unsigned int d = 0; d < 3; ++d)
  {
    spacing[d] = stack->GetSpacing()[d];
    origin[d] = stack->GetOrigin()[d];
  }
  py::dict info;
  info["format"] = scan->Format();
  info["log"] = scan->Log();
  info["files"] = scan->ProjectionFiles();
  info["raw"] = raw;
  if (paths.size() == 1)
    info["path"] = paths.front();
  else
    info["path"] = paths;
  return py::make_tuple(array, spacing, origin, makeGeometry(scan->Geometry()), info);
}

} // namespace

void
RegisterScan(py::module_ & m, const MakeGeometry & makeGeometry)
{
  m.def(
    "_read_scan",
    [makeGeometry](const std::vector<std::string> & paths, const std::string & format, bool raw, bool airFallback,
                   double airFallbackI0) {
      cbct::ScanImporter::Options options;
      options.airScanFallback = airFallback;
      options.fallbackI0 = airFallbackI0;
      options.readingsOnly = raw; // the readings as stored need no air scan
      return ReadScan(paths, format, raw, options, makeGeometry);
    },
    py::arg("paths"), py::arg("format"), py::arg("raw"), py::arg("air_fallback"), py::arg("air_fallback_i0"));
  m.def("_scan_formats", [] {
    std::vector<std::string> names;
    for (const auto & vendor : cbct::ScanImporter::Vendors())
      names.push_back(vendor.name);
    return names;
  });
}

} // namespace cbct::python
