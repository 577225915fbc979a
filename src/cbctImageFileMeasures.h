#ifndef cbctImageFileMeasures_h
#define cbctImageFileMeasures_h

// How much pixel data each format's files hold, for ImageFileContents (private to the library).
// Each function is given the image file, what its header promises (`expected`: bytes of pixel data;
// `values`: pixels x components, for ASCII data) and returns a Measurement; it throws
// itk::ExceptionObject on a header it cannot make sense of or a data file that is missing.
#include "cbctImageFileContents.h"

#include <cstdint>
#include <string>

namespace cbct::detail
{

using Measurement = ImageFileContents::Measurement;

Measurement
MeasureMetaImage(const std::string & path, std::uint64_t expected, std::uint64_t values);
Measurement
MeasureNrrd(const std::string & path, std::uint64_t expected, std::uint64_t values);
Measurement
MeasureNifti(const std::string & path, std::uint64_t expected);
Measurement
MeasureTiff(const std::string & path);
Measurement
MeasureVtk(const std::string & path, std::uint64_t expected, std::uint64_t values);
Measurement
MeasureGipl(const std::string & path, std::uint64_t expected);
Measurement
MeasureMrc(const std::string & path, std::uint64_t expected);
Measurement
MeasureBmp(const std::string & path);
Measurement
MeasurePng(const std::string & path);
Measurement
MeasureJpeg(const std::string & path);
Measurement
MeasureHdf5(const std::string & path);

} // namespace cbct::detail

#endif
