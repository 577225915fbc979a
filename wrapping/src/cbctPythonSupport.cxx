#include "cbctPythonSupport.h"

#include <itkCommand.h>

#include <cstdint>

#if CBCT_USE_CUDA
#  include "cbctCudaCheck.h"
#  include "cbctCudaDevice.h"
#  include "cbctCudaIterativeSupport.h"
#  include <cuda_runtime_api.h>
#endif

namespace cbct::python
{

void
RunWithProgress(itk::ProcessObject * observed, const std::function<void()> & update, const py::object & progress,
                unsigned int pieces)
{
  if (!progress.is_none() && !PyCallable_Check(progress.ptr()))
    throw py::type_error("progress must be callable (it is called with the fraction done, 0 to 1), or None");
  struct State
  {
    unsigned int piece = 0;
    double last = -1.; // ITK's accumulated progress can step back a little: report only increases
    std::unique_ptr<py::error_already_set> error;
  } state;
  unsigned long startTag = 0, progressTag = 0;
  const bool observe = !progress.is_none();
  if (observe)
  {
    startTag = observed->AddObserver(itk::StartEvent(), [&state](const itk::EventObject &) { ++state.piece; });
    progressTag = observed->AddObserver(itk::ProgressEvent(), [&, observed](const itk::EventObject &) {
      py::gil_scoped_acquire gil;
      if (state.error)
        return;
      const double done =
        std::min(1., ((state.piece > 0 ? state.piece - 1 : 0) + static_cast<double>(observed->GetProgress())) / pieces);
      if (!(done > state.last))
        return;
      state.last = done;
      try
      {
        progress(done);
      }
      catch (py::error_already_set & e)
      {
        state.error = std::make_unique<py::error_already_set>(std::move(e));
        observed->AbortGenerateDataOn();
      }
    });
  }
  auto removeObservers = [&] {
    if (observe)
    {
      observed->RemoveObserver(startTag);
      observed->RemoveObserver(progressTag);
    }
  };
  try
  {
    py::gil_scoped_release release;
    update();
  }
  catch (...)
  {
    removeObservers();
    if (state.error)
      throw py::error_already_set(*state.error);
    throw;
  }
  removeObservers();
  if (state.error)
    throw py::error_already_set(*state.error);
}

// ---------------------------------------------------------------------------------------------------
// DLPack: the C ABI of its version 0.x tensors (the unversioned "dltensor" capsule every producer
// offers), written from the specification (dmlc/dlpack, include/dlpack/dlpack.h).
namespace
{
struct DLDevice
{
  std::int32_t device_type; // 1 CPU, 2 CUDA, 3 CUDA pinned host, 13 CUDA managed
  std::int32_t device_id;
};
struct DLDataType
{
  std::uint8_t code; // 2: IEEE float
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct DLTensor
{
  void * data;
  DLDevice device;
  std::int32_t ndim;
  DLDataType dtype;
  std::int64_t * shape;
  std::int64_t * strides; // in elements; null: C order
  std::uint64_t byte_offset;
};
struct DLManagedTensor
{
  DLTensor dl_tensor;
  void * manager_ctx;
  void (*deleter)(DLManagedTensor * self);
};
constexpr std::int32_t kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13;
constexpr std::uint8_t kDLFloat = 2;

[[noreturn]] void
BadType(const std::string & name, const std::string & what)
{
  throw py::type_error(name + " " + what);
}

void
CheckShape(const std::string & name, const std::array<py::ssize_t, 3> & shape,
           const std::array<py::ssize_t, 3> & expected)
{
  if (shape[0] == 0 || shape[1] == 0 || shape[2] == 0)
    throw py::value_error(name + " has shape " + ShapeText(shape, 3) + "; expected no empty axis");
  if (expected[0] != 0 && shape != expected)
    throw py::value_error(name + " has shape " + ShapeText(shape, 3) + "; expected " + ShapeText(expected, 3));
}

void
CheckDimensionCount(const std::string & name, const std::vector<py::ssize_t> & shape)
{
  if (shape.size() != 3)
    throw py::value_error(name + " has shape " + ShapeText(shape, shape.size()) + "; expected 3 dimensions (z, y, x)");
}

/** Whether `strides` (bytes; empty: none given) are those of C order for `shape` and 4-byte items. */
bool
IsCOrder(const std::vector<py::ssize_t> & shape, const std::vector<py::ssize_t> & strides)
{
  if (strides.empty())
    return true;
  py::ssize_t expected = 4;
  for (std::size_t d = shape.size(); d-- > 0;)
  {
    if (shape[d] != 1 && strides[d] != expected)
      return false;
    expected *= shape[d];
  }
  return true;
}

/** The CUDA device holding `pointer`, or -1 for host memory (or a build without CUDA). */
int
DeviceOf(const void * pointer, const std::string & name)
{
#if CBCT_USE_CUDA
  cudaPointerAttributes attributes{};
  const cudaError_t status = cudaPointerGetAttributes(&attributes, pointer);
  if (status != cudaSuccess)
  {
    cudaGetLastError();
    throw py::value_error(name + ": its data pointer is not known to CUDA (" + cudaGetErrorString(status) + ")");
  }
  return attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged ? attributes.device : -1;
#else
  (void)pointer;
  (void)name;
  return -1;
#endif
}

void
RequireCudaBuild(const std::string & name, const std::string & where)
{
  if (!HasCudaArrays())
    throw py::type_error(name + " is on " + where + " but this build of ConeBeamCT has no CUDA: give a numpy array "
                                                    "(or copy it to the host first)");
}

ArrayArgument
ReadCudaArrayInterface(const py::handle & object, const std::string & name, const std::array<py::ssize_t, 3> & expected)
{
  const py::dict interface = object.attr("__cuda_array_interface__");
  const std::string typestr = py::str(interface["typestr"]);
  if (typestr != "<f4" && typestr != "=f4")
    BadType(name, "has dtype '" + typestr + "' (CUDA array interface); expected float32 ('<f4'): convert it on the "
                  "device first, e.g. x.float() or x.astype('float32')");
  std::vector<py::ssize_t> shape;
  for (const auto & s : py::tuple(interface["shape"]))
    shape.push_back(s.cast<py::ssize_t>());
  CheckDimensionCount(name, shape);
  std::vector<py::ssize_t> strides;
  if (interface.contains("strides") && !interface["strides"].is_none())
    for (const auto & s : py::tuple(interface["strides"]))
      strides.push_back(s.cast<py::ssize_t>());
  if (!IsCOrder(shape, strides))
    BadType(name, "is not C-contiguous (strides " + ShapeText(strides, strides.size()) +
                    " bytes); expected a contiguous array: x.contiguous() or cupy.ascontiguousarray(x)");
  if (interface.contains("mask") && !interface["mask"].is_none())
    BadType(name, "is a masked CUDA array; expected a plain one");
  const py::tuple data = interface["data"];
  if (data[1].cast<bool>())
    BadType(name, "is read-only; ConeBeamCT never writes its inputs but needs a writable pointer type: give a "
                  "writable array");
  ArrayArgument result;
  result.name = name;
  result.shape = { shape[0], shape[1], shape[2] };
  CheckShape(name, result.shape, expected);
  result.data = reinterpret_cast<float *>(data[0].cast<std::uintptr_t>());
  RequireCudaBuild(name, "a CUDA device");
  result.device = DeviceOf(result.data, name);
  result.memory = result.device >= 0 ? Memory::Cuda : Memory::Host;
  result.keepAlive = py::reinterpret_borrow<py::object>(object);
  return result;
}

ArrayArgument
ReadDLPack(const py::handle & object, const std::string & name, const std::array<py::ssize_t, 3> & expected)
{
  py::object capsuleObject = object.attr("__dlpack__")();
  PyObject * capsule = capsuleObject.ptr();
  if (!PyCapsule_IsValid(capsule, "dltensor"))
    BadType(name, "gave a DLPack capsule that is not an unused 'dltensor'");
  auto * managed = static_cast<DLManagedTensor *>(PyCapsule_GetPointer(capsule, "dltensor"));
  // Ours from now on: the capsule must not release it, the last ArrayArgument owner does.
  PyCapsule_SetName(capsule, "used_dltensor");
  std::shared_ptr<void> owner(managed, [](void * p) {
    auto * m = static_cast<DLManagedTensor *>(p);
    if (m->deleter)
      m->deleter(m);
  });
  const DLTensor & t = managed->dl_tensor;
  if (t.dtype.code != kDLFloat || t.dtype.bits != 32 || t.dtype.lanes != 1)
    BadType(name, "has a DLPack dtype of code " + std::to_string(t.dtype.code) + ", " + std::to_string(t.dtype.bits) +
                    " bits; expected float32: convert it first, e.g. x.float()");
  std::vector<py::ssize_t> shape(t.shape, t.shape + t.ndim);
  CheckDimensionCount(name, shape);
  std::vector<py::ssize_t> strides;
  if (t.strides)
    for (int d = 0; d < t.ndim; ++d)
      strides.push_back(static_cast<py::ssize_t>(t.strides[d]) * 4);
  if (!IsCOrder(shape, strides))
    BadType(name, "is not C-contiguous (DLPack strides); expected a contiguous array: x.contiguous()");
  ArrayArgument result;
  result.name = name;
  result.shape = { shape[0], shape[1], shape[2] };
  CheckShape(name, result.shape, expected);
  result.data = reinterpret_cast<float *>(static_cast<char *>(t.data) + t.byte_offset);
  switch (t.device.device_type)
  {
    case kDLCPU:
    case kDLCUDAHost:
      result.memory = Memory::Host;
      break;
    case kDLCUDA:
    case kDLCUDAManaged:
      RequireCudaBuild(name, "a CUDA device");
      result.memory = Memory::Cuda;
      result.device = t.device.device_id;
      break;
    default:
      BadType(name, "is on DLPack device type " + std::to_string(t.device.device_type) +
                      "; expected the host or a CUDA device");
  }
  result.dlpack = std::move(owner);
  result.keepAlive = py::reinterpret_borrow<py::object>(object);
  return result;
}
} // namespace

ArrayArgument::~ArrayArgument()
{
  // Releasing Python objects needs the GIL; the owners are released where the GIL is held (the
  // bindings keep their ArrayArguments outside their GIL-free sections).
}

void
ArrayArgument::CheckFinite() const
{
  bool finite = true;
  if (memory == Memory::Host)
  {
    py::gil_scoped_release release;
    finite = std::all_of(data, data + Size(), [](float v) { return std::isfinite(v); });
  }
  else
  {
#if CBCT_USE_CUDA
    SetCudaDevice(device);
    SynchronizeCuda();
    py::gil_scoped_release release;
    CudaSquaredNorm norm;
    finite = std::isfinite(norm(data, Size())); // a NaN or an infinity makes the sum of squares one (in double)
#endif
  }
  if (!finite)
    throw py::value_error(name + " has NaN or infinite values; expected finite numbers");
}

ArrayArgument
ReadArray(const py::handle & object, const std::string & name, const std::array<py::ssize_t, 3> & expected)
{
  if (py::isinstance<py::array>(object))
  {
    const auto array = py::reinterpret_borrow<py::array>(object);
    if (!py::isinstance<py::array_t<float>>(array) || !array.dtype().is(py::dtype::of<float>()))
      BadType(name, "has dtype " + py::str(array.dtype()).cast<std::string>() + "; expected float32");
    if (!(array.flags() & py::array::c_style))
      BadType(name, "is not C-contiguous; expected a contiguous array (numpy.ascontiguousarray)");
    std::vector<py::ssize_t> shape(array.shape(), array.shape() + array.ndim());
    CheckDimensionCount(name, shape);
    ArrayArgument result;
    result.name = name;
    result.shape = { shape[0], shape[1], shape[2] };
    CheckShape(name, result.shape, expected);
    result.data = static_cast<float *>(const_cast<void *>(array.data()));
    result.keepAlive = array;
    return result;
  }
  if (py::hasattr(object, "__cuda_array_interface__"))
    return ReadCudaArrayInterface(object, name, expected);
  if (py::hasattr(object, "__dlpack__"))
    return ReadDLPack(object, name, expected);
  BadType(name, "is a " + py::str(py::type::of(object).attr("__name__")).cast<std::string>() +
                  "; expected a numpy array, or an array with __cuda_array_interface__ or __dlpack__ (CuPy, PyTorch)");
}

// ---------------------------------------------------------------------------------------------------
bool
HasCudaArrays()
{
  return CBCT_USE_CUDA != 0;
}

std::string
ChooseHardware(const std::string & hardware, bool allowAuto)
{
  if (hardware != "cpu" && hardware != "cuda" && !(allowAuto && hardware == "auto"))
    throw py::value_error("hardware is '" + hardware + "'; expected " +
                          (allowAuto ? "'cpu', 'cuda' or 'auto'" : "'cpu' or 'cuda'"));
  if (hardware == "cpu")
    return "cpu";
#if CBCT_USE_CUDA
  std::string device;
  if (CudaDeviceAvailable(&device))
    return "cuda (" + device + ")";
  if (hardware == "cuda")
    throw py::value_error("hardware is 'cuda' but no CUDA device is available" +
                          (device.empty() ? std::string() : " (" + device + ")"));
  return "cpu";
#else
  if (hardware == "cuda")
    throw py::value_error("hardware is 'cuda' but this build of ConeBeamCT has no CUDA");
  return "cpu";
#endif
}

void
SetCudaDevice(int device)
{
#if CBCT_USE_CUDA
  CudaCheck(cudaSetDevice(device), "cudaSetDevice (" + std::to_string(device) + ")");
#else
  (void)device;
#endif
}

void
SynchronizeCuda()
{
#if CBCT_USE_CUDA
  CudaCheck(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
#endif
}

DeviceArray::DeviceArray(std::array<py::ssize_t, 3> shape, int device)
  : m_Shape(shape)
  , m_Device(device)
{
#if CBCT_USE_CUDA
  const std::size_t bytes = static_cast<std::size_t>(shape[0]) * shape[1] * shape[2] * sizeof(float);
  SetCudaDevice(device);
  CudaCheck(cudaMalloc(reinterpret_cast<void **>(&m_Data), bytes), "cudaMalloc (result array)", bytes);
#else
  throw std::logic_error("DeviceArray: this build has no CUDA");
#endif
}

DeviceArray::~DeviceArray()
{
#if CBCT_USE_CUDA
  if (m_Data)
  {
    int current = 0;
    cudaGetDevice(&current);
    cudaSetDevice(m_Device);
    cudaFree(m_Data);
    cudaSetDevice(current);
  }
#endif
}

namespace
{
/** What a DLPack tensor exported from a DeviceArray owns: the array (shared) and its shape. */
struct ExportedTensor
{
  DLManagedTensor managed;
  std::shared_ptr<DeviceArray> array;
  std::int64_t shape[3];
};

py::capsule
ExportDLPack(const std::shared_ptr<DeviceArray> & array)
{
  auto * exported = new ExportedTensor();
  exported->array = array;
  for (int d = 0; d < 3; ++d)
    exported->shape[d] = array->Shape()[d];
  DLTensor & t = exported->managed.dl_tensor;
  t.data = array->Data();
  t.device = { kDLCUDA, array->Device() };
  t.ndim = 3;
  t.dtype = { kDLFloat, 32, 1 };
  t.shape = exported->shape;
  t.strides = nullptr;
  t.byte_offset = 0;
  exported->managed.manager_ctx = exported;
  exported->managed.deleter = [](DLManagedTensor * self) { delete static_cast<ExportedTensor *>(self->manager_ctx); };
  // A capsule never consumed (still named "dltensor") releases the tensor itself.
  PyObject * capsule = PyCapsule_New(&exported->managed, "dltensor", [](PyObject * c) {
    if (PyCapsule_IsValid(c, "dltensor"))
    {
      auto * m = static_cast<DLManagedTensor *>(PyCapsule_GetPointer(c, "dltensor"));
      m->deleter(m);
    }
  });
  if (!capsule)
  {
    delete exported;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(capsule);
}
} // namespace

void
RegisterDeviceArray(py::module_ & m)
{
  py::class_<DeviceArray, std::shared_ptr<DeviceArray>>(
    m, "DeviceArray",
    "A float32 (z, y, x) array that ConeBeamCT allocated on a CUDA device; take it without a copy with "
    "torch.from_dlpack(a), cupy.from_dlpack(a) or cupy.asarray(a). Ready to read on any stream (the device is "
    "synchronised before it is returned).")
    .def_property_readonly("shape", [](const DeviceArray & a) { return py::make_tuple(a.Shape()[0], a.Shape()[1], a.Shape()[2]); })
    .def_property_readonly("device", &DeviceArray::Device, "The CUDA device index.")
    .def_property_readonly("__cuda_array_interface__",
                           [](const DeviceArray & a) {
                             py::dict d;
                             d["shape"] = py::make_tuple(a.Shape()[0], a.Shape()[1], a.Shape()[2]);
                             d["typestr"] = "<f4";
                             d["data"] = py::make_tuple(reinterpret_cast<std::uintptr_t>(a.Data()), false);
                             d["version"] = 3;
                             d["strides"] = py::none();
                             d["stream"] = py::none(); // synchronised: no stream to wait on
                             return d;
                           })
    .def(
      "__dlpack__",
      [](const std::shared_ptr<DeviceArray> & a, const py::args &, const py::kwargs &) { return ExportDLPack(a); },
      "A DLPack capsule of this array (no copy); the stream argument is accepted and not needed (the data is ready).")
    .def("__dlpack_device__", [](const DeviceArray & a) { return py::make_tuple(kDLCUDA, a.Device()); })
    .def("__repr__", [](const DeviceArray & a) {
      return "<conebeamct.DeviceArray " + ShapeText(a.Shape(), 3) + " float32 on cuda:" + std::to_string(a.Device()) + ">";
    });
}

} // namespace cbct::python
