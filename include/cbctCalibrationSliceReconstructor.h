#ifndef cbctCalibrationSliceReconstructor_h
#define cbctCalibrationSliceReconstructor_h

#include "ConeBeamCTExport.h"
#include "cbctRampFilterResponse.h"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <itkImage.h>
#include <itkObject.h>
#include <itkObjectFactory.h>

#include <memory>
#include <string>

namespace cbct
{

/** \class CalibrationSliceReconstructor
 * \brief FDK of a few axial slices for a candidate geometry: what SharpnessCalibration scores.
 *
 * A slab of `thickness` x-z slices (n x n voxels centred on the rotation axis) at height y is
 * reconstructed by the library's FDK filter, FDKConeBeamReconstructionFilter on the CPU or
 * CudaFDKConeBeamReconstructionFilter on a GPU, whose composite asks only for the detector rows the
 * slab projects onto: each candidate geometry weights and filters those rows alone (the weights
 * depend on the geometry: Parker's and the displaced detector's follow where the axis is) and
 * backprojects n x n x thickness voxels.
 *
 * The projections are set once (on a GPU: copied into a CudaImage once, then kept on the device as
 * its data manager allows). The CPU backprojection walks thin slabs in runs along z rather than in
 * columns along y (a column of one voxel would waste seven of the eight vector lanes).
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT CalibrationSliceReconstructor : public itk::Object
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CalibrationSliceReconstructor);

  using Self = CalibrationSliceReconstructor;
  using Superclass = itk::Object;
  using Pointer = itk::SmartPointer<Self>;
  using ImageType = itk::Image<float, 3>;
  using GeometryType = ThreeDCircularProjectionGeometry;

  itkNewMacro(Self);
  itkTypeMacro(CalibrationSliceReconstructor, itk::Object);

  enum class Hardware
  {
    Cpu,
    Cuda
  };

  /** Whether this build has CUDA and a device is present; `description` says which or why not. */
  static bool
  CudaAvailable(std::string * description = nullptr);

  /** Cuda throws when CudaAvailable() is false. */
  void
  SetHardware(Hardware hardware);
  Hardware
  GetHardware() const
  {
    return m_Hardware;
  }

  /** The ramp filter's window and cut-off (default Hann, 1: noise weighs less in the scores). */
  void
  SetRampWindow(RampWindow window, double cutOff);

  /** Displaced-detector weighting where the FDK weighting decides it is needed (default on). Off keeps
   * a full-fan scan's candidates from being weighted as half fans: with the slab's field of view
   * beyond a candidate axis' near reach the weighting would turn on, and an axis error would then
   * scale the outer region radially instead of doubling its edges (measured: the sharpness then grows
   * with the offset instead of peaking). */
  void
  SetDisplacedDetectorWeighting(bool on);

  /** The projection stack (line integrals; its third axis indexes the geometry's projections). */
  void
  SetProjections(const ImageType * projections);

  /** The slab of `thickness` slices at height y (mm), n x n voxels of `spacing` mm centred on the
   * rotation axis, reconstructed with `geometry`. */
  ImageType::Pointer
  Reconstruct(const GeometryType * geometry, double y, unsigned int n, double spacing, unsigned int thickness = 1);

  /** Where Reconstruct()'s time went since the projections were set (seconds, and how many times). The
   * weighted and ramp-filtered rows are kept and shared by every candidate geometry whose FDK weights
   * are the same (an axis offset of the stage, a roll, a tilt): only the backprojection runs per
   * candidate, from the device's copy on a GPU. */
  struct Timings
  {
    double filtering = 0.;      ///< FDK weighting and ramp filter (with the projections' upload on a GPU)
    double backProjection = 0.; ///< the slabs' backprojection
    double transfers = 0.;      ///< the projections' copy for the device and the slabs' return to the host
    unsigned int filterings = 0, backProjections = 0;
  };
  const Timings &
  GetTimings() const
  {
    return m_Timings;
  }

protected:
  CalibrationSliceReconstructor();
  ~CalibrationSliceReconstructor() override;

  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  struct CudaState; // the CudaImage copy of the projections and its filtered rows (CUDA builds)
  struct CpuState;  // the filtered rows (CPU)

  void
  ForgetFiltered();

  Hardware m_Hardware = Hardware::Cpu;
  RampWindow m_Window = RampWindow::Hann;
  double m_CutOff = 1.;
  bool m_DisplacedDetectorWeighting = true;
  ImageType::ConstPointer m_Projections;
  std::unique_ptr<CudaState> m_Cuda;
  std::unique_ptr<CpuState> m_Cpu;
  Timings m_Timings;
};

} // namespace cbct

#endif
