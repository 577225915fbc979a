# ConeBeamCT as an ITK module: the dependencies it uses from ITK.
set(DOCUMENTATION "X-ray cone-beam CT reconstruction (FDK, geometry, phantoms) with CUDA and CPU filters.")

itk_module(ConeBeamCT
  DEPENDS
    ITKCommon
    ITKIOImageBase
    ITKIOXML
    ITKIOTIFF
    ITKFFT
    ITKImageGrid
  TEST_DEPENDS
    ITKTestKernel
  DESCRIPTION
    "${DOCUMENTATION}"
  EXCLUDE_FROM_DEFAULT
)
