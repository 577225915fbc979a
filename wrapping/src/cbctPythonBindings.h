#ifndef cbctPythonBindings_h
#define cbctPythonBindings_h

// The parts of conebeamct._conebeamct that live in their own source files, each registered from the
// module's init (conebeamct.cxx). `geometryOf` gives the C++ geometry of a Python conebeamct.Geometry
// (the class is defined in conebeamct.cxx) and raises TypeError for anything else.
#include "cbctThreeDCircularProjectionGeometry.h"

#include <pybind11/pybind11.h>

#include <functional>

namespace cbct::python
{
using GeometryOf = std::function<const ThreeDCircularProjectionGeometry *(const pybind11::handle &)>;

/** Projector (forward projection and backprojection on host and CUDA arrays) and DeviceArray
 * (projectors.cxx). */
void
RegisterProjectors(pybind11::module_ & m, const GeometryOf & geometryOf);

/** SART/OS-SART/SIRT, CGLS and OSEM (iterative.cxx). */
void
RegisterIterative(pybind11::module_ & m, const GeometryOf & geometryOf);

/** 4D ROOSTER (fourd_rooster.cxx). */
void
RegisterFourDROOSTER(pybind11::module_ & m, const GeometryOf & geometryOf);

/** _fourd_fdk: 4D FDK, conebeamct.fourd_fdk's work (fourd.cxx). */
void
RegisterFourDFDK(pybind11::module_ & m, const GeometryOf & geometryOf);

/** _breathing_signal: conebeamct.breathing_signal's work (signal.cxx). */
void
RegisterBreathingSignal(pybind11::module_ & m);

/** _memory_size and _format_bytes: the `memory=` argument read as the apps read --memory (memory.cxx). */
void
RegisterMemory(pybind11::module_ & m);

/** A Python conebeamct.Geometry holding a C++ geometry (the class is defined in conebeamct.cxx). */
using MakeGeometry = std::function<pybind11::object(ThreeDCircularProjectionGeometry::Pointer)>;

/** _read_scan and _scan_formats: scanner scans through cbct::ScanImporter (scan.cxx). */
void
RegisterScan(pybind11::module_ & m, const MakeGeometry & makeGeometry);

/** _calibrate: the geometry found from the projections, conebeamct.calibrate's work (calibration.cxx). */
void
RegisterCalibration(pybind11::module_ & m, const GeometryOf & geometryOf, const MakeGeometry & makeGeometry);
} // namespace cbct::python

#endif
