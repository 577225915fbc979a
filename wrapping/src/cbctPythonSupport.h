#ifndef cbctPythonSupport_h
#define cbctPythonSupport_h

// What every binding of conebeamct._conebeamct shares (projectors, iterative methods, FDK, phantoms,
// and whatever comes next): images between numpy and ITK without copies, the checks of an array
// argument, and running ITK's work without the GIL while a Python progress callback is served.
//
// The pattern of a binding:
//   auto x = cbct::python::ReadArray(object, "volume", { nz, ny, nx });   // numpy, DLPack or CUDA array interface
//   x.CheckFinite();                                                      // NaN or infinity: ValueError naming it
//   cbct::python::RunWithProgress(filter, [&] { filter->Update(); }, progress);   // GIL released
//   return cbct::python::ToNumpy<ImageType>(filter->GetOutput());         // no copy
#include "cbctConfiguration.h"

#include <itkImage.h>
#include <itkProcessObject.h>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>

namespace cbct::python
{
namespace py = pybind11;

using ImageType = itk::Image<float, 3>;
using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;
using Triple = std::array<double, 3>;

/** "(a, b, c)", Python's spelling of a shape. */
template <typename TSizes>
std::string
ShapeText(const TSizes & shape, std::size_t ndim)
{
  std::string text = "(";
  for (std::size_t d = 0; d < ndim; ++d)
    text += (d ? ", " : "") + std::to_string(shape[d]);
  return text + (ndim == 1 ? ",)" : ")");
}

/** Throws ValueError unless `array` has `ndim` dimensions: "name has shape (..); expected ...". */
inline void
CheckDimensions(const py::array & array, const char * name, py::ssize_t ndim, const char * expected)
{
  if (array.ndim() == ndim)
    return;
  throw py::value_error(std::string(name) + " has shape " + ShapeText(array.shape(), array.ndim()) + "; expected " +
                        expected);
}

/** A numpy (z, y, x) view of an image's buffer; the returned array keeps the image alive. */
template <typename TImage>
py::array_t<float>
ToNumpy(typename TImage::Pointer image)
{
  const auto size = image->GetBufferedRegion().GetSize();
  float * buffer = image->GetBufferPointer(); // a CUDA image brings its host copy up to date here
  auto * owner = new typename TImage::Pointer(image);
  py::capsule capsule(owner, [](void * p) { delete static_cast<typename TImage::Pointer *>(p); });
  return py::array_t<float>({ static_cast<py::ssize_t>(size[2]), static_cast<py::ssize_t>(size[1]),
                              static_cast<py::ssize_t>(size[0]) },
                            buffer, capsule);
}

/** An image with a (z, y, x) array's size and the given spacing and origin (x, y, z), no buffer. */
template <typename TImage>
typename TImage::Pointer
ImageGrid(const std::array<py::ssize_t, 3> & zyx, const Triple & spacing, const Triple & origin)
{
  auto image = TImage::New();
  typename TImage::SizeType size;
  typename TImage::SpacingType itkSpacing;
  typename TImage::PointType itkOrigin;
  for (unsigned int d = 0; d < 3; ++d)
  {
    size[d] = static_cast<itk::SizeValueType>(zyx[2 - d]);
    itkSpacing[d] = spacing[d];
    itkOrigin[d] = origin[d];
  }
  image->SetRegions(typename TImage::RegionType(size));
  image->SetSpacing(itkSpacing);
  image->SetOrigin(itkOrigin);
  return image;
}

/** An image on the buffer of a (z, y, x) float32 C-contiguous array: imported without a copy for an
 * itk::Image (the array must outlive it), copied for a CUDA image (its data manager owns its buffer). */
template <typename TImage>
typename TImage::Pointer
FromNumpy(const FloatArray & array, const Triple & spacing, const Triple & origin)
{
  auto image = ImageGrid<TImage>({ array.shape(0), array.shape(1), array.shape(2) }, spacing, origin);
  const auto count = static_cast<itk::SizeValueType>(array.size());
  if constexpr (std::is_same_v<TImage, ImageType>)
  {
    image->GetPixelContainer()->SetImportPointer(const_cast<float *>(array.data()), count, false);
  }
  else
  {
    image->Allocate();
    std::memcpy(image->GetBufferPointer(), array.data(), count * sizeof(float));
  }
  return image;
}

/** Runs `update` without the GIL, calling progress(fraction) with the GIL while `observed` reports
 * progress, with increasing fractions only. `pieces` streamed pieces (StartEvents of `observed`) make
 * one progress from 0 to 1. A Python exception raised by the callback aborts the work and is raised
 * again here. */
void
RunWithProgress(itk::ProcessObject * observed, const std::function<void()> & update, const py::object & progress,
                unsigned int pieces = 1);

/** Where an array argument's memory is. */
enum class Memory
{
  Host,
  Cuda
};

/** \brief An array argument of float32 in C order, wherever its memory is: a numpy array (or any
 * object numpy takes without a copy), an object with `__cuda_array_interface__` (CuPy, Numba,
 * PyTorch's CUDA tensors) or with `__dlpack__` (PyTorch, CuPy, JAX), on the host or a CUDA device.
 * Holds what keeps the memory alive; never copies. */
class ArrayArgument
{
public:
  ArrayArgument() = default;
  ArrayArgument(const ArrayArgument &) = delete;
  ArrayArgument & operator=(const ArrayArgument &) = delete;
  ArrayArgument(ArrayArgument &&) = default;
  ArrayArgument & operator=(ArrayArgument &&) = default;
  ~ArrayArgument();

  std::string name;
  float * data = nullptr;
  std::array<py::ssize_t, 3> shape{ { 0, 0, 0 } };
  Memory memory = Memory::Host;
  int device = -1; ///< the CUDA device of Memory::Cuda

  std::size_t
  Size() const
  {
    return static_cast<std::size_t>(shape[0]) * shape[1] * shape[2];
  }
  /** "cpu" or "cuda:N". */
  std::string
  Where() const
  {
    return memory == Memory::Host ? "cpu" : "cuda:" + std::to_string(device);
  }
  /** Throws ValueError naming the argument when a value is NaN or infinite (on the device: a
   * squared-norm reduction there, one number copied back). */
  void
  CheckFinite() const;

  py::object keepAlive;            ///< the numpy array or the CUDA-array object
  std::shared_ptr<void> dlpack;    ///< the DLPack tensor, released (its deleter called) with the last owner
};

/** Reads `object` as a 3D float32 C-order array named `name` (for messages); `expected` is the shape
 * it must have (z, y, x), or zeros for any. Raises TypeError (dtype, layout, unknown object) or
 * ValueError (dimensions, shape, empty) naming `name`, the value and what was expected. */
ArrayArgument
ReadArray(const py::handle & object, const std::string & name, const std::array<py::ssize_t, 3> & expected);

/** \brief A float32 array the library allocated on a CUDA device, handed to Python without a copy:
 * it offers `__cuda_array_interface__` (version 3) and `__dlpack__`/`__dlpack_device__`, so that
 * torch.from_dlpack(), cupy.from_dlpack() and cupy.asarray() take it as it is. */
class DeviceArray
{
public:
  DeviceArray(std::array<py::ssize_t, 3> shape, int device);
  ~DeviceArray();
  DeviceArray(const DeviceArray &) = delete;
  DeviceArray & operator=(const DeviceArray &) = delete;

  float *
  Data() const
  {
    return m_Data;
  }
  const std::array<py::ssize_t, 3> &
  Shape() const
  {
    return m_Shape;
  }
  int
  Device() const
  {
    return m_Device;
  }

private:
  float * m_Data = nullptr;
  std::array<py::ssize_t, 3> m_Shape;
  int m_Device;
};

/** Registers DeviceArray as conebeamct._conebeamct.DeviceArray. */
void
RegisterDeviceArray(py::module_ & m);

/** Whether this build can take CUDA arrays (a CUDA build). */
bool
HasCudaArrays();

/** Where a function's `hardware` argument sends the work: "cuda (DEVICE)" or "cpu". `hardware` is
 * 'cpu', 'cuda' or, where `allowAuto`, 'auto' (CUDA when this build has it and a device is
 * present). ValueError naming the value for anything else, and for 'cuda' without a CUDA build or
 * device. */
std::string
ChooseHardware(const std::string & hardware, bool allowAuto);

/** Makes `device` current for the calling thread (CUDA builds; no-op otherwise). */
void
SetCudaDevice(int device);

/** Waits for every stream of the current device: the synchronisation before reading CUDA inputs
 * and after writing CUDA results (see wrapping/README.md, "Streams"). */
void
SynchronizeCuda();

} // namespace cbct::python

#endif
