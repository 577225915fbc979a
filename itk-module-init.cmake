# CUDA set-up, shared by the ITK-module build and the plain-CMake build.
# CUDA is switched on when a CUDA compiler is found (CUDA 13 lives in /usr/local/cuda on our machines);
# CBCT_USE_CUDA=OFF forces the CPU-only build.
include(CheckLanguage)
if(NOT DEFINED CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
  set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc CACHE FILEPATH "CUDA compiler")
endif()
check_language(CUDA)
if(CMAKE_CUDA_COMPILER)
  option(CBCT_USE_CUDA "Build the CUDA filters" ON)
else()
  set(CBCT_USE_CUDA OFF CACHE BOOL "Build the CUDA filters (no CUDA compiler found)" FORCE)
endif()
if(CBCT_USE_CUDA)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    # Hopper (H100/H200) is what we benchmark on; override with -DCMAKE_CUDA_ARCHITECTURES=...
    set(CMAKE_CUDA_ARCHITECTURES 90)
  endif()
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
endif()
