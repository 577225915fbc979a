// conebeamct._conebeamct.Projector: the system matrix A of a geometry, a volume grid and a detector
// (Joseph's projector or the ray caster, with the exact adjoint or the voxel-based backprojector), on
// the CPU or a CUDA device, applied to arrays wherever they live: numpy arrays on the host, CUDA
// arrays (CuPy, PyTorch; __cuda_array_interface__ or DLPack) on their device without a host copy.
#include "cbctPythonSupport.h"
#include "cbctPythonBindings.h"

#include "cbctJosephOperator.h"
#include "cbctProjectorOperator.h"
#include "cbctRayCastOperator.h"
#include "cbctThreeDCircularProjectionGeometry.h"
#include "cbctVoxelBackProjectionOperator.h"

#include <numeric>

#if CBCT_USE_CUDA
#  include "cbctCudaDevice.h"
#  include "cbctCudaIterativeSupport.h"
#  include "cbctCudaProjectorFactory.h"
#endif

namespace cbct::python
{
namespace
{

/** The projector: grids, the choice of projector pair, and the operator on its hardware. */
class Projector
{
public:
  Projector(const ThreeDCircularProjectionGeometry * geometry,
            const std::array<py::ssize_t, 3> & volumeShape,
            const Triple & volumeSpacing,
            const Triple & volumeOrigin,
            const std::array<py::ssize_t, 2> & detectorShape, // (v, u)
            const std::array<double, 2> & detectorSpacing,   // (u, v)
            const std::array<double, 2> & detectorOrigin,    // (u, v)
            const std::string & forward,
            const std::string & back,
            double step,
            const std::string & hardware,
            int device)
    : m_Geometry(geometry)
  {
    const auto count = static_cast<py::ssize_t>(geometry->GetNumberOfProjections());
    if (count == 0)
      throw py::value_error("geometry has no projections");
    if (forward != "joseph" && forward != "raycast")
      throw py::value_error("projector is '" + forward + "'; expected 'joseph' or 'raycast'");
    if (back != "adjoint" && back != "voxel")
      throw py::value_error("backprojector is '" + back + "'; expected 'adjoint' or 'voxel'");
    if (!std::isfinite(step) || step < 0.)
      throw py::value_error("step is " + py::repr(py::float_(step)).cast<std::string>() +
                            "; expected the ray caster's sample distance > 0 in mm, or 0 for the smallest voxel spacing");
    for (unsigned int d = 0; d < 3; ++d)
      if (volumeShape[d] < 1 || !(volumeSpacing[d] > 0.) || !std::isfinite(volumeSpacing[d]) || !std::isfinite(volumeOrigin[d]))
        throw py::value_error("volume grid: shape " + ShapeText(volumeShape, 3) + ", spacing and origin must be positive "
                              "sizes, finite spacings > 0 and finite coordinates");
    m_VolumeShape = volumeShape;
    m_ProjectionShape = { count, detectorShape[0], detectorShape[1] };
    m_Volume = ImageGrid<ImageType>(volumeShape, volumeSpacing, volumeOrigin);
    m_Projections = ImageGrid<ImageType>(m_ProjectionShape, { detectorSpacing[0], detectorSpacing[1], 1. },
                                         { detectorOrigin[0], detectorOrigin[1], 0. });
    m_ForwardKind = forward == "raycast" ? ForwardProjectorKind::RayCast : ForwardProjectorKind::Joseph;
    m_BackKind = back == "voxel" ? BackProjectorKind::VoxelBased : BackProjectorKind::Adjoint;
    m_Step = step > 0. ? step : std::min({ volumeSpacing[0], volumeSpacing[1], volumeSpacing[2] });
    m_All.resize(static_cast<std::size_t>(count));
    std::iota(m_All.begin(), m_All.end(), 0u);

    if (hardware == "cpu")
    {
      if (m_ForwardKind == ForwardProjectorKind::RayCast)
        m_Cpu.reset(new RayCastOperator<ImageType>(m_Volume, m_Projections, m_Geometry, m_Step));
      else
        m_Cpu.reset(new JosephOperator<ImageType>(m_Volume, m_Projections, m_Geometry));
      if (m_BackKind == BackProjectorKind::VoxelBased)
        m_Cpu.reset(new VoxelBackProjectionOperator<ImageType>(std::move(m_Cpu), m_Volume, m_Projections, m_Geometry));
    }
    else if (hardware == "cuda")
    {
#if CBCT_USE_CUDA
      CheckCudaDevices({ device });
      m_Device = device;
      SetCudaDevice(device);
      m_Cuda = MakeCudaProjectorOperator(m_ForwardKind, m_BackKind, m_Step, m_Volume, m_Projections, m_Geometry);
      m_CudaSubset = m_Cuda->Subset(m_All);
#else
      (void)device;
      throw py::value_error("hardware is 'cuda' but this build of ConeBeamCT has no CUDA");
#endif
    }
    else
      throw py::value_error("hardware is '" + hardware + "'; expected 'cpu' or 'cuda'");
  }

  std::string
  Hardware() const
  {
    return m_Cpu ? "cpu" : "cuda:" + std::to_string(m_Device);
  }
  py::tuple
  VolumeShape() const
  {
    return py::make_tuple(m_VolumeShape[0], m_VolumeShape[1], m_VolumeShape[2]);
  }
  py::tuple
  ProjectionShape() const
  {
    return py::make_tuple(m_ProjectionShape[0], m_ProjectionShape[1], m_ProjectionShape[2]);
  }

  /** A x (forward) or A^T y (back) of `input`, a result in the same memory as the input. */
  py::object
  Apply(const py::handle & object, bool forward, bool checkFinite)
  {
    const auto & inShape = forward ? m_VolumeShape : m_ProjectionShape;
    const auto & outShape = forward ? m_ProjectionShape : m_VolumeShape;
    ArrayArgument in = ReadArray(object, forward ? "volume" : "projections", inShape);
    if (checkFinite)
      in.CheckFinite();
    if (in.memory == Memory::Host)
    {
      py::array_t<float> out({ outShape[0], outShape[1], outShape[2] });
      float * result = out.mutable_data();
      if (m_Cpu)
      {
        py::gil_scoped_release release;
        if (forward)
          m_Cpu->Forward(in.data, result, m_All, false);
        else
          m_Cpu->Back(in.data, result, m_All, false);
      }
      else
        ApplyCudaToHost(in, result, forward);
      return std::move(out);
    }
#if CBCT_USE_CUDA
    if (!m_Cuda)
      throw py::value_error(in.name + " is on " + in.Where() + " but this projector is on the CPU: make it with "
                            "hardware='cuda', or give a host array");
    if (in.device != m_Device)
      throw py::value_error(in.name + " is on " + in.Where() + " but this projector is on " + Hardware());
    auto out = std::make_shared<DeviceArray>(outShape, m_Device);
    {
      SetCudaDevice(m_Device);
      SynchronizeCuda(); // the caller's work on its streams is done before the input is read
      py::gil_scoped_release release;
      RunCuda(in.data, out->Data(), forward);
      SynchronizeCuda(); // the result is ready for any stream
    }
    return py::cast(out);
#else
    throw py::type_error(in.name + " is on a CUDA device but this build has no CUDA");
#endif
  }

private:
#if CBCT_USE_CUDA
  void
  RunCuda(const float * in, float * out, bool forward)
  {
    std::lock_guard<std::mutex> lock(m_CudaMutex); // the operator's textures and buffers are shared
    if (forward)
      m_Cuda->Forward(in, out, m_CudaSubset, static_cast<int>(m_All.size()));
    else
      m_Cuda->Back(in, out, m_CudaSubset, static_cast<int>(m_All.size()), false);
  }
#endif

  /** A CUDA projector applied to host arrays: upload, apply, download (what the device path saves). */
  void
  ApplyCudaToHost(const ArrayArgument & in, float * result, bool forward)
  {
#if CBCT_USE_CUDA
    SetCudaDevice(m_Device);
    py::gil_scoped_release release;
    const std::size_t outCount = forward ? m_Cuda->PixelsPerProjection() * m_All.size() : m_Cuda->Voxels();
    CudaDeviceBuffer<float> x(in.Size()), y(outCount);
    CudaUpload(x.Data(), in.data, in.Size(), in.name);
    RunCuda(x.Data(), y.Data(), forward);
    CudaDownload(result, y.Data(), outCount, "result");
#else
    (void)in;
    (void)result;
    (void)forward;
#endif
  }

  ThreeDCircularProjectionGeometry::ConstPointer m_Geometry;
  ImageType::Pointer m_Volume;
  ImageType::Pointer m_Projections;
  std::array<py::ssize_t, 3> m_VolumeShape;
  std::array<py::ssize_t, 3> m_ProjectionShape;
  ForwardProjectorKind m_ForwardKind = ForwardProjectorKind::Joseph;
  BackProjectorKind m_BackKind = BackProjectorKind::Adjoint;
  double m_Step = 0.;
  std::vector<unsigned int> m_All;
  std::unique_ptr<ProjectorOperator> m_Cpu;
  int m_Device = -1;
#if CBCT_USE_CUDA
  std::unique_ptr<CudaProjectorOperator> m_Cuda;
  CudaDeviceBuffer<unsigned int> * m_CudaSubset = nullptr;
  std::mutex m_CudaMutex;
#endif
};

} // namespace

void
RegisterProjectors(py::module_ & m, const GeometryOf & geometryOf)
{
  RegisterDeviceArray(m);
  m.def("has_cuda_arrays", &HasCudaArrays, "Whether this build takes CUDA arrays (CuPy, PyTorch) on their device.");
  py::class_<Projector>(m, "_Projector")
    .def(py::init([geometryOf](const py::handle & geometry, std::array<py::ssize_t, 3> volumeShape, Triple volumeSpacing,
                               Triple volumeOrigin, std::array<py::ssize_t, 2> detectorShape,
                               std::array<double, 2> detectorSpacing, std::array<double, 2> detectorOrigin,
                               const std::string & forward, const std::string & back, double step,
                               const std::string & hardware, int device) {
           return std::make_unique<Projector>(geometryOf(geometry), volumeShape, volumeSpacing, volumeOrigin, detectorShape,
                                              detectorSpacing, detectorOrigin, forward, back, step, hardware, device);
         }),
         py::arg("geometry"), py::arg("volume_shape"), py::arg("volume_spacing"), py::arg("volume_origin"),
         py::arg("detector_shape"), py::arg("detector_spacing"), py::arg("detector_origin"), py::arg("projector"),
         py::arg("backprojector"), py::arg("step"), py::arg("hardware"), py::arg("device"))
    .def_property_readonly("hardware", &Projector::Hardware)
    .def_property_readonly("volume_shape", &Projector::VolumeShape)
    .def_property_readonly("projection_shape", &Projector::ProjectionShape)
    .def(
      "forward", [](Projector & p, const py::handle & x, bool check) { return p.Apply(x, true, check); }, py::arg("volume"),
      py::arg("check_finite") = true)
    .def(
      "back", [](Projector & p, const py::handle & y, bool check) { return p.Apply(y, false, check); },
      py::arg("projections"), py::arg("check_finite") = true);
}

} // namespace cbct::python
