# GDCM for the tests that write DICOM files (DICOM-CT-PD projections): its headers and libraries,
# found directly (Debian's libgdcm-dev, which ITK's GDCM module uses). GDCM's own package file is not
# used: it names GDCM's command-line tools, which Debian ships in another package, and CMake then prints
# a warning for each missing one at every configure. Sets CBCT_GDCM_FOUND, CBCT_GDCM_INCLUDE_DIR and
# CBCT_GDCM_LIBRARIES. The library itself does not use GDCM (cbctDicomDataSet.h says why).
find_path(CBCT_GDCM_INCLUDE_DIR gdcmWriter.h PATH_SUFFIXES gdcm-3.0 gdcm-3.1 gdcm-2.8)
find_library(CBCT_GDCM_MSFF gdcmMSFF)
find_library(CBCT_GDCM_DSED gdcmDSED)
find_library(CBCT_GDCM_COMMON gdcmCommon)
if(CBCT_GDCM_INCLUDE_DIR AND CBCT_GDCM_MSFF AND CBCT_GDCM_DSED AND CBCT_GDCM_COMMON)
  set(CBCT_GDCM_FOUND TRUE)
  set(CBCT_GDCM_LIBRARIES ${CBCT_GDCM_MSFF} ${CBCT_GDCM_DSED} ${CBCT_GDCM_COMMON})
else()
  set(CBCT_GDCM_FOUND FALSE)
endif()
