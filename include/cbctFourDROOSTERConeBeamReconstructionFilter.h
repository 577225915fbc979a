#ifndef cbctFourDROOSTERConeBeamReconstructionFilter_h
#define cbctFourDROOSTERConeBeamReconstructionFilter_h

#include "cbctCpuReconstructionBackend.h"
#include "cbctFourDOperations.h"
#include "cbctInputChecks.h"
#include "cbctJosephOperator.h"
#include "cbctPhaseSignal.h"
#include "cbctRayCastOperator.h"
#include "cbctThreeDCircularProjectionGeometry.h"
#include "cbctTotalVariationDenoising.h"

#include <itkCommand.h>
#include <itkImage.h>
#include <itkImageToImageFilter.h>

#include <array>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace cbct
{

/** \class FourDROOSTERConeBeamReconstructionFilter
 * \brief 4D ROOSTER (Mory et al. 2016; RTK's rtkfourdrooster): a respiratory-correlated sequence of
 * volumes reconstructed from one projection stack and the phase of each projection, with the frames
 * linked by the phase interpolation weights and regularised in space and time.
 *
 * Input 0 is the initial 4D volume (x, y, z as a volume, the 4th axis the frames; its grid is the
 * output's), SetProjections() the projection stack p (line integrals), SetPhases() the phase of each
 * projection (PhaseSignal: one value in [0, 1) per projection), SetGeometry() their geometry.
 *
 * The forward model: projection k is sum_f w(k, f) A_k x_f, w RTK's interpolation weights
 * (PhaseSignal::InterpolationWeights(): the two frames around the projection's phase, mixed
 * linearly); its adjoint backprojects projection k into those two frames with the same weights.
 * Each frame is projected only along the projections that see it, so one 4D projection costs two 3D
 * projections of the whole stack (one per linked frame), whatever the number of frames.
 *
 * Each of NumberOfIterations main iterations (\c --niter) runs, as RTK's filter does:
 *  1. NumberOfCGIterations (\c --cgiter) steps of conjugate gradients on the normal equations
 *     M^T M x = M^T p of the 4D model M, from the current x (CGLS: r = p - M x, s = M^T r, ...);
 *  2. positivity: x = max(x, 0) (PositivityOff(): \c --nopositivity);
 *  3. with a motion mask (SetMotionMask(), \c --motionmask; a 3D image on the frames' grid): where the
 *     mask is 0 the frames are replaced by their mean (RTK's AverageOutOfROI: no motion there);
 *  4. GammaSpace > 0 (\c --gamma_space): each frame denoised by total variation in space (the ROF
 *     model with lambda = GammaSpace, TV in mm: DenoiseTotalVariation(), NumberOfTVIterations
 *     (\c --tviter) Chambolle steps);
 *  5. GammaTime > 0 (\c --gamma_time): each voxel's time series denoised by total variation along the
 *     frames, cyclic (the last frame is followed by the first: the breathing cycle), lambda =
 *     GammaTime, NumberOfTVIterations Chambolle steps (FourDOperations::TemporalTotalVariation()).
 * The larger the gammas, the smoother. GetResidualNorms() records |p - M x| at the end of each
 * iteration's conjugate gradients (before the regularisation steps). An itk::IterationEvent follows
 * each main iteration (GetCurrentIteration()); AbortGenerateDataOn() from an observer stops after the
 * current one.
 *
 * The projector pair is Joseph's (default) or the ray caster (SetForwardProjector()), always with its
 * exact adjoint (conjugate gradients need it). Memory: 3 4D volumes, 4 projection stacks and 5
 * volumes (spatial TV), plus one 4D volume for the temporal TV.
 * CudaFourDROOSTERConeBeamReconstructionFilter runs the same steps (Reconstruct()) on the GPU.
 *
 * \dot
 * digraph FourDROOSTER {
 *   rankdir=LR;
 *   cg [label="4D conjugate gradients\n(cgiter)"]; pos [label="positivity"]; mask [label="motion mask"];
 *   space [label="spatial TV\n(gamma_space)"]; time [label="temporal TV\n(gamma_time)"];
 *   cg -> pos -> mask -> space -> time -> cg [label="niter"];
 * }
 * \enddot
 * \ingroup ConeBeamCT
 */
template <typename TVolumeSeries, typename TProjectionStack = itk::Image<typename TVolumeSeries::PixelType, 3>>
class ITK_TEMPLATE_EXPORT FourDROOSTERConeBeamReconstructionFilter : public itk::ImageToImageFilter<TVolumeSeries, TVolumeSeries>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(FourDROOSTERConeBeamReconstructionFilter);
  using Self = FourDROOSTERConeBeamReconstructionFilter;
  using Superclass = itk::ImageToImageFilter<TVolumeSeries, TVolumeSeries>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(FourDROOSTERConeBeamReconstructionFilter, itk::ImageToImageFilter);

  static_assert(TVolumeSeries::ImageDimension == 4, "the reconstruction is a 4D image (x, y, z, frame)");
  static_assert(TProjectionStack::ImageDimension == 3, "projections are a 3D stack (u, v, projection)");
  static_assert(std::is_same<typename TVolumeSeries::PixelType, float>::value &&
                  std::is_same<typename TProjectionStack::PixelType, float>::value,
                "the projectors work on float images");

  using VolumeType = TProjectionStack; ///< one frame (and the motion mask): a 3D float image

  itkSetConstObjectMacro(Geometry, ThreeDCircularProjectionGeometry);
  itkGetConstObjectMacro(Geometry, ThreeDCircularProjectionGeometry);

  void
  SetProjections(const TProjectionStack * projections)
  {
    this->itk::ProcessObject::SetInput("Projections", const_cast<TProjectionStack *>(projections));
  }
  const TProjectionStack *
  GetProjections() const
  {
    return static_cast<const TProjectionStack *>(this->itk::ProcessObject::GetInput("Projections"));
  }
  /** Optional: 0 where nothing moves (there the frames are averaged), non-zero elsewhere; a 3D image
   * on the grid of the frames (the output's first three axes). */
  void
  SetMotionMask(const VolumeType * mask)
  {
    this->itk::ProcessObject::SetInput("MotionMask", const_cast<VolumeType *>(mask));
  }
  const VolumeType *
  GetMotionMask() const
  {
    return static_cast<const VolumeType *>(this->itk::ProcessObject::GetInput("MotionMask"));
  }

  /** The phase of each projection, in [0, 1) (checked, with their count, when the filter runs). */
  void
  SetPhases(const std::vector<double> & phases)
  {
    if (phases != m_Phases)
    {
      m_Phases = phases;
      this->Modified();
    }
  }
  const std::vector<double> &
  GetPhases() const
  {
    return m_Phases;
  }

  itkSetMacro(NumberOfIterations, unsigned int);
  itkGetConstMacro(NumberOfIterations, unsigned int);
  itkSetMacro(NumberOfCGIterations, unsigned int);
  itkGetConstMacro(NumberOfCGIterations, unsigned int);
  itkSetMacro(NumberOfTVIterations, unsigned int);
  itkGetConstMacro(NumberOfTVIterations, unsigned int);
  /** Spatial TV weight (mm times the volume's units); 0 (the default): no spatial regularisation. */
  itkSetMacro(GammaSpace, double);
  itkGetConstMacro(GammaSpace, double);
  /** Temporal TV weight (the volume's units); 0 (the default): no temporal regularisation. */
  itkSetMacro(GammaTime, double);
  itkGetConstMacro(GammaTime, double);
  itkSetMacro(Positivity, bool);
  itkGetConstMacro(Positivity, bool);
  itkBooleanMacro(Positivity);
  /** Joseph's (default) or the ray caster; the emission projector is refused. */
  void
  SetForwardProjector(ForwardProjectorKind kind)
  {
    if (kind != m_ForwardProjector)
    {
      m_ForwardProjector = kind;
      this->Modified();
    }
  }
  ForwardProjectorKind
  GetForwardProjector() const
  {
    return m_ForwardProjector;
  }
  /** The ray caster's step in mm; 0 (the default): the smallest voxel spacing. */
  itkSetMacro(RayCastStep, double);
  itkGetConstMacro(RayCastStep, double);

  /** Where the time of the last update went, in seconds (summed over iterations): the transfers of the
   * frames, projections and mask to the backend and of the frames back (upload, download), the
   * conjugate gradients' projections (forward: M, back: M^T, two 3D projections of the stack each) and
   * their vector steps (axpy, norms), positivity and the motion mask, the spatial and the temporal
   * total variation. Measured only with StageTiming on, which waits for the device at the end of each
   * stage (a little slower: the device idles while the host catches up); all zero otherwise. */
  struct StageTimes
  {
    double upload = 0., forward = 0., back = 0., vectors = 0., positivity = 0., spatialTV = 0., temporalTV = 0.,
           download = 0.;
  };
  itkSetMacro(StageTiming, bool);
  itkGetConstMacro(StageTiming, bool);
  itkBooleanMacro(StageTiming);
  const StageTimes &
  GetStageTimes() const
  {
    return m_StageTimes;
  }

  itkGetConstMacro(CurrentIteration, unsigned int);
  /** |p - M x| after each main iteration's conjugate gradients (index 0: the first iteration). */
  const std::vector<double> &
  GetResidualNorms() const
  {
    return m_ResidualNorms;
  }

  /** One frame's grid as a 3D image without buffer (the first three axes of `series`). */
  static typename VolumeType::Pointer
  FrameGrid(const TVolumeSeries * series)
  {
    auto frame = VolumeType::New();
    typename VolumeType::RegionType region;
    typename VolumeType::SpacingType spacing;
    typename VolumeType::PointType origin;
    typename VolumeType::DirectionType direction;
    const auto & largest = series->GetLargestPossibleRegion();
    for (unsigned int i = 0; i < 3; ++i)
    {
      region.SetIndex(i, largest.GetIndex(i));
      region.SetSize(i, largest.GetSize(i));
      spacing[i] = series->GetSpacing()[i];
      origin[i] = series->GetOrigin()[i];
      for (unsigned int j = 0; j < 3; ++j)
        direction(i, j) = series->GetDirection()(i, j);
    }
    frame->SetRegions(region);
    frame->SetSpacing(spacing);
    frame->SetOrigin(origin);
    frame->SetDirection(direction);
    return frame;
  }

  /** Frame f's weight in each projection: the interpolation weights of `phases` gathered per frame. */
  static std::vector<std::vector<float>>
  FrameWeights(const std::vector<double> & phases, unsigned int frames)
  {
    std::vector<std::vector<float>> weights(frames, std::vector<float>(phases.size(), 0.f));
    const auto links = PhaseSignal::InterpolationWeights(phases, frames);
    for (std::size_t k = 0; k < links.size(); ++k)
    {
      // Summed: with one frame both links name it.
      weights[links[k].lower][k] += static_cast<float>(links[k].lowerWeight);
      weights[links[k].upper][k] += static_cast<float>(links[k].upperWeight);
    }
    return weights;
  }

protected:
  FourDROOSTERConeBeamReconstructionFilter()
  {
    this->SetNumberOfRequiredInputs(1);
    this->AddRequiredInputName("Projections");
    this->AddOptionalInputName("MotionMask");
  }
  ~FourDROOSTERConeBeamReconstructionFilter() override = default;

  /** The inputs live on different grids: the checks are VerifyPreconditions()'s. */
  void
  VerifyInputInformation() ITKv5_CONST override
  {}

  void
  VerifyPreconditions() ITKv5_CONST override
  {
    Superclass::VerifyPreconditions();
    if (m_Geometry.IsNull())
      ThrowBadParameter("4D ROOSTER geometry", "none", "a ThreeDCircularProjectionGeometry");
    const unsigned int count = m_Geometry->GetNumberOfProjections();
    PhaseSignal::Check(m_Phases, count, "the 4D ROOSTER phases (one per projection of the geometry)");
    if (m_NumberOfIterations < 1)
      ThrowBadParameter("4D ROOSTER iterations (niter)", m_NumberOfIterations, "at least 1");
    if (m_NumberOfCGIterations < 1)
      ThrowBadParameter("4D ROOSTER conjugate gradient iterations (cgiter)", m_NumberOfCGIterations, "at least 1");
    if (!(m_GammaSpace >= 0.) || !std::isfinite(m_GammaSpace))
      ThrowBadParameter("4D ROOSTER spatial TV weight (gamma_space)", m_GammaSpace, "a finite value >= 0 (0: none)");
    if (!(m_GammaTime >= 0.) || !std::isfinite(m_GammaTime))
      ThrowBadParameter("4D ROOSTER temporal TV weight (gamma_time)", m_GammaTime, "a finite value >= 0 (0: none)");
    if ((m_GammaSpace > 0. || m_GammaTime > 0.) && m_NumberOfTVIterations < 1)
      ThrowBadParameter("4D ROOSTER TV iterations (tviter)", m_NumberOfTVIterations, "at least 1 when a gamma is > 0");
    if (m_ForwardProjector == ForwardProjectorKind::Emission)
      ThrowBadParameter("4D ROOSTER forward projector", ToString(m_ForwardProjector), "joseph or raycast");
    if (!(m_RayCastStep >= 0.) || !std::isfinite(m_RayCastStep))
      ThrowBadParameter("ray-cast step (mm)", m_RayCastStep, "a finite value > 0, or 0 for the smallest voxel spacing");
  }

  void
  GenerateOutputInformation() override
  {
    Superclass::GenerateOutputInformation();
    const TProjectionStack * projections = this->GetProjections();
    const auto count = projections->GetLargestPossibleRegion().GetSize(2);
    if (count != m_Geometry->GetNumberOfProjections())
      ThrowBadParameter("number of projection images", count,
                        "the geometry's number of projections (" + std::to_string(m_Geometry->GetNumberOfProjections()) + ")");
    const TVolumeSeries * series = this->GetInput(0);
    for (unsigned int i = 0; i < 4; ++i)
      if (series->GetLargestPossibleRegion().GetSize(i) < 1)
        ThrowBadParameter("4D ROOSTER volume size along axis " + std::to_string(i), series->GetLargestPossibleRegion().GetSize(i),
                          "at least 1");
    if (const VolumeType * mask = this->GetMotionMask())
    {
      const auto grid = FrameGrid(series);
      bool same = mask->GetLargestPossibleRegion().GetSize() == grid->GetLargestPossibleRegion().GetSize();
      for (unsigned int i = 0; i < 3 && same; ++i)
        same = std::abs(mask->GetSpacing()[i] - grid->GetSpacing()[i]) <= 1e-6 * grid->GetSpacing()[i] &&
               std::abs(mask->GetOrigin()[i] - grid->GetOrigin()[i]) <= 1e-6 * (1. + std::abs(grid->GetOrigin()[i])) + 1e-4 * grid->GetSpacing()[i];
      if (!same)
      {
        std::ostringstream got, expected;
        got << "size " << mask->GetLargestPossibleRegion().GetSize() << ", spacing " << mask->GetSpacing() << ", origin " << mask->GetOrigin();
        expected << "the frames' grid (size " << grid->GetLargestPossibleRegion().GetSize() << ", spacing " << grid->GetSpacing()
                 << ", origin " << grid->GetOrigin() << ")";
        ThrowBadParameter("motion mask grid", got.str(), expected.str());
      }
    }
  }
  void
  GenerateInputRequestedRegion() override
  {
    if (auto * input = const_cast<TVolumeSeries *>(this->GetInput(0)))
      input->SetRequestedRegionToLargestPossibleRegion();
    if (auto * projections = const_cast<TProjectionStack *>(this->GetProjections()))
      projections->SetRequestedRegionToLargestPossibleRegion();
    if (auto * mask = const_cast<VolumeType *>(this->GetMotionMask()))
      mask->SetRequestedRegionToLargestPossibleRegion();
  }
  void
  EnlargeOutputRequestedRegion(itk::DataObject * output) override
  {
    output->SetRequestedRegionToLargestPossibleRegion();
  }

  /** The ray caster's step for `frame`: RayCastStep, or its smallest spacing when 0. */
  double
  RayCastStepFor(const VolumeType * frame) const
  {
    if (m_RayCastStep > 0.)
      return m_RayCastStep;
    const auto & spacing = frame->GetSpacing();
    return std::min(spacing[0], std::min(spacing[1], spacing[2]));
  }

  /** What GenerateData() does on either backend: allocates the output, sets TBackend up (with the
   * projector pair makeOperator(frameGrid)) and TOperations on one frame's grid, uploads the frames,
   * the projections and the mask, runs Reconstruct() and downloads the frames. */
  template <typename TBackend, typename TOperations, typename TMakeOperator>
  void
  Run(TMakeOperator && makeOperator, bool currentEveryIteration)
  {
    TVolumeSeries * output = this->GetOutput();
    output->SetBufferedRegion(output->GetRequestedRegion());
    output->Allocate();
    const TVolumeSeries * initial = this->GetInput(0);
    const TProjectionStack * projections = this->GetProjections();
    const auto grid = FrameGrid(output);
    const unsigned int frames = static_cast<unsigned int>(output->GetLargestPossibleRegion().GetSize(3));
    const unsigned int count = m_Geometry->GetNumberOfProjections();
    TBackend backend(makeOperator(grid.GetPointer(), projections), MakeTVGrid(grid), count);
    m_StageTimes = StageTimes{};
    const auto uploadStart = std::chrono::steady_clock::now();
    const std::size_t voxels = backend.Voxels();
    TOperations operations(FrameWeights(m_Phases, frames), backend.PixelsPerProjection(), voxels);
    std::vector<typename TBackend::Vector> x = operations.MakeFrames(frames);
    for (unsigned int f = 0; f < frames; ++f)
      backend.Upload(initial->GetBufferPointer() + f * voxels, x[f], voxels);
    typename TBackend::Vector measured(backend.Pixels());
    backend.Upload(projections->GetBufferPointer(), measured, backend.Pixels());
    std::unique_ptr<typename TBackend::Vector> mask;
    if (const VolumeType * m = this->GetMotionMask())
    {
      mask.reset(new typename TBackend::Vector(voxels));
      backend.Upload(m->GetBufferPointer(), *mask, voxels);
    }
    if (m_StageTiming)
    {
      backend.Synchronize();
      m_StageTimes.upload += std::chrono::duration<double>(std::chrono::steady_clock::now() - uploadStart).count();
    }
    auto current = [&] {
      const auto start = std::chrono::steady_clock::now();
      for (unsigned int f = 0; f < frames; ++f)
        backend.Download(x[f], output->GetBufferPointer() + f * voxels, voxels);
      m_StageTimes.download += m_StageTiming ? std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() : 0.;
    };
    this->Reconstruct(backend, operations, x, measured, mask.get(), current, currentEveryIteration);
  }

  void
  GenerateData() override
  {
    this->template Run<CpuReconstructionBackend, FourDOperations>(
      [this](const VolumeType * grid, const TProjectionStack * projections) {
        std::unique_ptr<ProjectorOperator> pair;
        if (m_ForwardProjector == ForwardProjectorKind::RayCast)
          pair.reset(new RayCastOperator<VolumeType>(grid, projections, m_Geometry, this->RayCastStepFor(grid)));
        else
          pair.reset(new JosephOperator<VolumeType>(grid, projections, m_Geometry));
        return pair;
      },
      true);
  }

  /** The method on `backend` and `operations` (CPU or CUDA): the frames x (updated in place), the
   * measured projections p, the motion mask (may be null); `current()` puts x in the output, called
   * before each IterationEvent when `always` or when the filter has observers, and at the end. */
  template <typename TBackend, typename TOperations>
  void
  Reconstruct(TBackend & backend, TOperations & operations, std::vector<typename TBackend::Vector> & x,
              const typename TBackend::Vector & p, const typename TBackend::Vector * mask, const std::function<void()> & current,
              bool always)
  {
    using Vector = typename TBackend::Vector;
    const auto frames = static_cast<unsigned int>(x.size());
    const std::size_t voxels = backend.Voxels(), pixels = backend.Pixels();
    const std::vector<std::vector<float>> weights = FrameWeights(m_Phases, frames);
    // The projections that see each frame (weight != 0): the only ones its projections need.
    std::vector<typename TBackend::Subset> subsets;
    std::vector<bool> seen(frames, false);
    for (unsigned int f = 0; f < frames; ++f)
    {
      std::vector<unsigned int> indices;
      for (unsigned int k = 0; k < weights[f].size(); ++k)
        if (weights[f][k] != 0.f)
          indices.push_back(k);
      seen[f] = !indices.empty();
      subsets.push_back(backend.MakeSubset(seen[f] ? indices : std::vector<unsigned int>{ 0 }));
    }
    std::vector<Vector> s = operations.MakeFrames(frames), d = operations.MakeFrames(frames);
    Vector r(pixels), q(pixels), work(pixels);
    // With StageTiming: the time from the last mark to now (after the device finished) added to a stage.
    auto last = std::chrono::steady_clock::now();
    auto mark = [&](double StageTimes::*stage) {
      if (!m_StageTiming)
        return;
      backend.Synchronize();
      const auto now = std::chrono::steady_clock::now();
      m_StageTimes.*stage += std::chrono::duration<double>(now - last).count();
      last = now;
    };
    auto forward = [&](const std::vector<Vector> & volume, Vector & out) { // out = M volume
      mark(&StageTimes::vectors);
      backend.Fill(out, 0.f);
      for (unsigned int f = 0; f < frames; ++f)
        if (seen[f])
        {
          backend.Forward(volume[f], work, subsets[f]);
          operations.WeightFrame(f, work, out, true);
        }
      mark(&StageTimes::forward);
    };
    auto back = [&](const Vector & in, std::vector<Vector> & volume) { // volume = M^T in
      mark(&StageTimes::vectors);
      for (unsigned int f = 0; f < frames; ++f)
        if (seen[f])
        {
          operations.WeightFrame(f, in, work, false);
          backend.Back(work, volume[f], subsets[f], false);
        }
        else
          backend.Fill(volume[f], 0.f);
      mark(&StageTimes::back);
    };
    auto squaredNorm = [&](const std::vector<Vector> & volume) {
      double sum = 0.;
      for (const Vector & frame : volume)
        sum += backend.SquaredNorm(frame);
      return sum;
    };
    std::array<Vector, 3> dual{ Vector(voxels), Vector(voxels), Vector(voxels) };
    Vector z(voxels);
    const bool spatial = m_GammaSpace > 0., temporal = m_GammaTime > 0.;

    m_ResidualNorms.clear();
    const bool observed = always || this->HasObserver(itk::IterationEvent());
    unsigned int & k = m_CurrentIteration;
    for (k = 1; k <= m_NumberOfIterations && !this->GetAbortGenerateData(); ++k)
    {
      // 1. Conjugate gradients on M^T M x = M^T p from the current x (CGLS).
      forward(x, r);
      backend.SubtractFrom(p, r);
      back(r, s);
      for (unsigned int f = 0; f < frames; ++f)
        backend.Copy(s[f], d[f]);
      double gamma = squaredNorm(s);
      for (unsigned int n = 0; n < m_NumberOfCGIterations && gamma > 0.; ++n)
      {
        forward(d, q);
        const double qq = backend.SquaredNorm(q);
        if (!(qq > 0.))
          break;
        const double alpha = gamma / qq;
        for (unsigned int f = 0; f < frames; ++f)
          backend.Axpy(alpha, d[f], x[f]);
        backend.Axpy(-alpha, q, r);
        back(r, s);
        const double next = squaredNorm(s);
        for (unsigned int f = 0; f < frames; ++f)
          backend.Xpby(s[f], next / gamma, d[f]);
        gamma = next;
      }
      m_ResidualNorms.push_back(std::sqrt(backend.SquaredNorm(r)));
      mark(&StageTimes::vectors);
      // 2. Positivity.
      if (m_Positivity)
        for (Vector & frame : x)
          operations.ClampNonNegative(frame);
      // 3. No motion outside the mask.
      if (mask)
        operations.AverageOutsideMask(x, *mask);
      mark(&StageTimes::positivity);
      // 4. Total variation in space, frame by frame.
      if (spatial)
        for (Vector & frame : x)
          DenoiseTotalVariation(backend, frame, frame, m_GammaSpace, m_NumberOfTVIterations, dual, z);
      mark(&StageTimes::spatialTV);
      // 5. Total variation along time.
      if (temporal)
        operations.TemporalTotalVariation(x, m_GammaTime, m_NumberOfTVIterations);
      mark(&StageTimes::temporalTV);

      if (observed)
        current();
      this->UpdateProgress(static_cast<float>(k) / m_NumberOfIterations);
      this->InvokeEvent(itk::IterationEvent());
      last = std::chrono::steady_clock::now(); // the download and the observers are not a stage here
    }
    k = std::min(k, m_NumberOfIterations + 1) - 1;
    if (!observed || k == 0)
      current();
  }

  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "NumberOfIterations: " << m_NumberOfIterations << ", NumberOfCGIterations: " << m_NumberOfCGIterations
       << ", NumberOfTVIterations: " << m_NumberOfTVIterations << std::endl;
    os << indent << "GammaSpace: " << m_GammaSpace << ", GammaTime: " << m_GammaTime << ", Positivity: " << m_Positivity << std::endl;
    os << indent << "ForwardProjector: " << ToString(m_ForwardProjector) << ", Phases: " << m_Phases.size() << std::endl;
  }

  // Set by GenerateData() (also the CUDA twin's).
  unsigned int m_CurrentIteration = 0;
  std::vector<double> m_ResidualNorms;
  StageTimes m_StageTimes;

private:
  ThreeDCircularProjectionGeometry::ConstPointer m_Geometry;
  std::vector<double> m_Phases;
  unsigned int m_NumberOfIterations = 5;
  unsigned int m_NumberOfCGIterations = 4;
  unsigned int m_NumberOfTVIterations = 10;
  double m_GammaSpace = 0.;
  double m_GammaTime = 0.;
  bool m_Positivity = true;
  ForwardProjectorKind m_ForwardProjector = ForwardProjectorKind::Joseph;
  double m_RayCastStep = 0.;
  bool m_StageTiming = false;
};

} // namespace cbct

#endif
