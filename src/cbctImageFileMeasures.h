#ifndef cbctImageFileMeasures_h
#define cbctImageFileMeasures_h

// How much pixel data each format's files hold, for ImageFileContents (private to the library).
// Each function is given the image file, what its header promises (`expected`: bytes of pixel data;
// `values`: pixels x components, for ASCII data) and returns a Measurement; it throws
// itk::ExceptionObject on a header it cannot make sense of or a data file that is missing.
// One source file per format: cbctImageFileMeasuresMetaImage.cxx, ...Nrrd.cxx, ...Nifti.cxx,
// ...Tiff.cxx, and ...OtherFormats.cxx for VTK, GIPL, MRC, BMP, PNG, JPEG and HDF5; what they share
// is cbctImageFileMeasuresShared.h.
#include "cbctImageFileContents.h"

#include <cstdint>
#include <string>

namespace cbct::detail
{

using Measurement = ImageFileContents::Measurement;

/** Refuses a MetaImage header that ITK 5.2's MetaIO would read past its arrays with (NDims outside
 * 1..10) or read differently on its second pass and write past ITK's buffer with (a key given twice,
 * an array before NDims or of another length, bytes that are not text): both found by
 * cbctFuzzProjectionFile. Before ITK reads it. */
void
CheckMetaImageHeader(const std::string & path);
/** Refuses a NIfTI or Analyze header whose spacing, origin or orientation (pixdim, the quaternion
 * and its offsets when qform_code > 0, srow_x/y/z when sform_code > 0) holds a non-finite value or
 * one above 1e15: ITK 5.2's NiftiImageIO takes an SVD of the matrix they make, and vnl aborts the
 * process on a non-finite matrix (found by cbctFuzzProjectionFile). Before ITK reads it. */
void
CheckNiftiHeader(const std::string & path);
/** Refuses a TIFF file (every directory) holding fewer values of a tag than libtiff reads for it
 * (DateTime: a string shorter than 19 characters; PageNumber, WhitePoint, ...), or an ASCII value of
 * one character that is not NUL: ITK 5.2's TIFFImageIO copies as many values as libtiff reads for
 * the tag, or the strlen() of the text, past the end of what the file gave; and a file whose
 * directories are not all pages like the first one (size, sample format, subfile type) or hold a
 * reduced-resolution image or a mask: ITK sizes the image from the first and writes the others past
 * its end (heap buffer overflows, found by cbctFuzzProjectionFile); and a chain of directories that
 * loops back, which libtiff follows forever. A file that is not a TIFF (by its first four bytes) is
 * left alone. Before ITK reads it: before ITK's factory tries its readers on the file. */
void
CheckTiffTags(const std::string & path);
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
