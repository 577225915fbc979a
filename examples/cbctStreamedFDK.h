#ifndef cbctStreamedFDK_h
#define cbctStreamedFDK_h

// cbct-fdk within a memory budget (--memory, or what the machine has free): the projections are
// streamed from their files and the volume written slab by slab, so that neither is ever whole in
// memory.
//
//   files -> StreamedProjectionSource -> [preprocessing] -> FDK (batches of projections) -> slab
//   ^ rows of a batch of projections      (rows the slab needs)     one slab of the volume   writer
//
// cbct::FDKMemoryPlan cuts the volume into slabs along y (the rotation axis) and the projections into
// batches: what each slab holds is measured on the pipeline itself, by asking it for the slab
// (PropagateRequestedRegion: the rows the backprojection needs, widened by the ramp filter and the
// preprocessing where they need more) and counting the bytes of every image of that request. Each
// slab is then reconstructed (the FDK filter asks the source for one batch of projections at a time)
// and written (cbct::SlabVolumeWriter: MetaImage, NRRD, a TIFF stack of one file per slice), or, for
// another output format, copied into the volume, which must then fit too. The volume equals the
// in-memory run's bit for bit: the same rows are filtered the same way, and every voxel sums the same
// projections in the same order.
#include "cbctDetectorAxisCheck.h"
#include "cbctFDKFilterOptions.h"
#include "cbctFDKMemoryPlan.h"
#include "cbctFDKSlabCost.h"
#include "cbctGridOptions.h"
#include "cbctMemoryBudget.h"
#include "cbctPreprocessingOptions.h"
#include "cbctProgressBar.h"
#include "cbctSlabVolumeWriter.h"
#include "cbctStreamedProjectionSource.h"

#include <itkCastImageFilter.h>
#include <itkMultiThreaderBase.h>

#include <functional>
#include <type_traits>

namespace cbct::apps
{

/** Bytes an FDK run in memory holds at its peak, for the choice between it and the streamed run: the
 * files read (ProjectionInputs::ReadingBytes()), the preprocessed stack, the volume and its slab
 * buffers, and the weighted and filtered projections of a slab (all of them with one slab). */
inline std::uint64_t
InMemoryFDKBytes(const ProjectionInputs & inputs, std::uint64_t voxels, long long divisions, bool preprocessed)
{
  const auto slabs = static_cast<std::uint64_t>(std::max<long long>(1, divisions));
  std::uint64_t bytes = inputs.ReadingBytes() + FloatBytes(voxels) + FloatBytes((voxels * 2 + slabs - 1) / slabs) +
                        FloatBytes((inputs.Pixels() * 2 + slabs - 1) / slabs);
  if (preprocessed)
    bytes += FloatBytes(inputs.Pixels());
  return bytes;
}

/** The FDK reconstruction of the options `o` (cbct-fdk's) within `budget` bytes of host memory (the
 * whole process's; `budgetWhy` says where it comes from), written to o.output. `name`: "cbct-fdk".
 * An MPI rank passes its slab of the volume as `rankSlab` (a function of the volume's region): the
 * slab is then reconstructed within the budget and returned whole (for cbct::MPISlabWriter), nothing
 * is written, and the slab itself counts against the budget. */
template <typename TImage, typename TFDK, typename TOptions, typename TSetDevices>
PreprocessingImage::Pointer
ReconstructWithinBudget(TOptions & o, std::uint64_t budget, const std::string & budgetWhy, const std::string & name,
                        const TSetDevices & setDevices,
                        const std::function<itk::ImageRegion<3>(const itk::ImageRegion<3> &)> & rankSlab = {})
{
  using RawImage = PreprocessingImage;
  constexpr bool cuda = !std::is_same_v<TImage, RawImage>;
  Stopwatch total;
  const std::string option = o.projections.empty() ? "--path/--regexp" : "--projections";
  if (!ScanPath(o).empty())
    throw Error("--scan " + ScanPath(o) + " with a memory budget (" + budgetWhy + "): a scan is read whole; import it " +
                "first (cbct-import SCAN -o projections.mha -g geometry.xml) and give --projections and --geometry, " +
                "which are read a batch of rows at a time");
  auto geometry = ReadGeometry(o);
  SetProvenance("ConeBeamCT_Geometry", DescribeGeometryForProvenance(geometry, o.geometry));

  // The pipeline: the files' rows, preprocessed, as the FDK filter's projections.
  std::vector<std::string> files;
  const RawImage::Pointer raw =
    ProjectionStackInformation<RawImage>(o, files, "when the projections are read a batch of rows at a time (" + budgetWhy + ")");
  SetProjectionKind(o.preprocessing, ProjectionFilesHoldIntegers(files, option));
  auto source = StreamedProjectionSource<RawImage>::New();
  source->SetFiles(files, raw, option, o.nonFiniteReplacement, o.replaceNonFinite);
  typename ProjectionPreprocessingFilter<RawImage>::Pointer preprocessing;
  const RawImage * lines = source->GetOutput();
  if (!o.preprocessing.settings.DoesNothing())
  {
    preprocessing = NewPreprocessingFilter(o.preprocessing, source->GetOutput(), option);
    lines = preprocessing->GetOutput();
  }
  typename itk::CastImageFilter<RawImage, TImage>::Pointer toDevice; // CUDA images: the same pixels
  const TImage * projections = nullptr;
  if constexpr (cuda)
  {
    toDevice = itk::CastImageFilter<RawImage, TImage>::New();
    toDevice->SetInput(lines);
    projections = toDevice->GetOutput();
  }
  else
    projections = lines;

  auto grid = cbct::ConstantImageSource<TImage>::New();
  ApplyGrid(grid.GetPointer(), o.grid);
  grid->SetConstant(0.f);
  auto fdk = TFDK::New();
  fdk->SetInput(0, grid->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  ApplyFDKFilterOptions(fdk.GetPointer(), o);
  setDevices(fdk.GetPointer());
  try
  {
    fdk->UpdateOutputInformation(); // checks the geometry against the projections before the work
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string projectionsOption = o.projections.empty() ? "--path/--regexp" : "--projections " + o.projections;
    throw Error(projectionsOption + " with --geometry " + o.geometry + ": " + WithoutItkPrefix(e.GetDescription()));
  }
  CheckDetectorReachesAxis(o, files, geometry, lines, AxisMissIs::Error);
  LogCentredDetector(o.verbose ? &std::cout : nullptr, name, o, files, raw.GetPointer());

  // What a slab holds, measured on the pipeline asked for it (one batch of the smallest size).
  const TImage * volume = fdk->GetOutput();
  const auto whole = volume->GetLargestPossibleRegion();
  const itk::ImageRegion<3> region = rankSlab ? rankSlab(whole) : whole; // what this process reconstructs
  const std::uint64_t count = raw->GetLargestPossibleRegion().GetSize(2);
  const bool slabsWritten = !rankSlab && SlabVolumeWriter::WritesSlabs(o.output);
  const std::uint64_t readingBytes = source->GetReadingBytes();
  const std::uint64_t unstreamedFile = source->LargestUnstreamedFilePixels() * readingBytes;
  const auto & settings = o.preprocessing.settings; // each step's output is an image of the request's size
  const std::uint64_t steps = static_cast<std::uint64_t>(settings.Crops()) + settings.Medians() + settings.Bins() +
                              settings.CorrectsScatter() + settings.intensities + settings.PrecorrectsWater();
  auto pixelBytes = [](const itk::ImageBase<3> * image) {
    return static_cast<std::uint64_t>(image->GetRequestedRegion().GetNumberOfPixels()) * sizeof(float);
  };
  // Batches of projections on the CPU; the CUDA filter takes a slab's rows of every projection at once
  // (it streams them to the device in batches itself).
  const std::uint64_t smallestBatch = cuda ? count : std::min<std::uint64_t>(count, cbct::BackProjectionBatch);
  const auto cost = [&](const itk::ImageRegion<3> & slab) {
    FDKMemoryPlan::Cost c = FDKSlabCost(fdk.GetPointer(), slab, smallestBatch, cuda);
    // What the slab asks of the files (one batch), and each image of it on the way: the readings
    // before their conversion (none for float files read in place), each preprocessing step's output,
    // the CUDA image's copy.
    const auto & read = source->GetOutput()->GetRequestedRegion();
    const std::uint64_t batch = std::max<std::uint64_t>(1, read.GetSize(2));
    std::uint64_t perBatch = source->BytesWhileReading(read.GetNumberOfPixels());
    if (preprocessing)
      perBatch += pixelBytes(lines) * steps;
    if constexpr (cuda)
      perBatch += pixelBytes(lines);
    c.perProjection += (perBatch + batch - 1) / batch;
    c.rows = read.GetSize(1);
    c.fixed += unstreamedFile;
    if (!slabsWritten) // the volume (a rank's slab), assembled for a writer that takes it whole
      c.fixed += FloatBytes(region.GetNumberOfPixels());
    return c;
  };
  const std::uint64_t work = WorkBudget(o.memoryBudget, budget);
  const std::uint64_t program = budget - work;
  const std::uint64_t smallest = FDKMemoryPlan::SmallestBudget(region, count, cost, smallestBatch);
  if (smallest > work)
    throw Error("a memory budget of " + HostMemory::Format(budget) + " (" + budgetWhy +
                ") is too small for this reconstruction: its smallest plan (slabs of one row of voxels along y, batches of " +
                std::to_string(smallestBatch) + " projections) needs " +
                HostMemory::Format(smallest) + " besides the " + HostMemory::Format(program) +
                " the program holds; expected --memory " + SuggestedMemoryOption(smallest + program) + " or more" +
                (slabsWritten || rankSlab ? "" : " (less with .mha, .nrrd or a TIFF stack DIR/slice_%04d.tif, written slab by slab)") +
                (rankSlab ? " on each rank (less with more ranks)" : "") + ", or a smaller volume");
  const FDKMemoryPlan plan = FDKMemoryPlan::Make(region, count, work, cost, smallestBatch);
  fdk->SetProjectionsPerBatch(plan.ProjectionsPerBatch());
  if (o.verbose)
  {
    std::cout << name << ": memory budget " << HostMemory::Format(budget) << " (" << budgetWhy << "), "
              << HostMemory::Format(budget - work) << " of it the program's own: " << plan.Describe() << std::endl;
    std::cout << name << ": projections read from " << files.size() << " file" << (files.size() == 1 ? "" : "s") << " ("
              << readingBytes * 8 << "-bit readings), "
              << (source->StreamsEveryFile() ? "each request's rows alone" : "each file whole, one at a time")
              << "; volume " << DescribeGrid(grid->GetOutput(), "voxels") << " written "
              << (rankSlab ? "by the ranks together" : slabsWritten ? "slab by slab" : "whole once complete") << " to "
              << o.output << std::endl;
  }

  // The volume's grid and metadata, for the writer.
  auto information = RawImage::New();
  information->CopyInformation(volume);
  information->SetLargestPossibleRegion(whole);
  information->SetMetaDataDictionary(WithProvenance(volume->GetMetaDataDictionary()));
  std::unique_ptr<SlabVolumeWriter> writer;
  RawImage::Pointer assembled;
  if (slabsWritten)
  {
    try
    {
      writer = std::make_unique<SlabVolumeWriter>(o.output, information);
      writer->SetProtectedFiles(InputFiles());
    }
    catch (const itk::ExceptionObject & e)
    {
      throw Error("--output " + o.output + ": could not write the file (" + OneLine(WithoutItkPrefix(e.GetDescription())) + ")");
    }
  }
  else
  {
    assembled = RawImage::New();
    assembled->CopyInformation(information);
    assembled->SetLargestPossibleRegion(whole);
    assembled->SetBufferedRegion(region);
    assembled->SetRequestedRegion(region);
    assembled->SetMetaDataDictionary(information->GetMetaDataDictionary());
    assembled->Allocate();
  }

  ProgressBar::Pointer bar;
  if (!rankSlab || region.GetIndex(1) == whole.GetIndex(1)) // under mpirun: the first rank's
    bar = ProgressBar::Attach(fdk, name, static_cast<unsigned int>(plan.Slabs().size()));
  if (bar)
    bar->SetDetail([&]() {
      const std::uint64_t done = writer ? writer->BytesWritten() : 0;
      return writer ? HostMemory::Format(done) + " of " + HostMemory::Format(writer->VolumeBytes()) + " written" : std::string();
    });
  std::size_t s = 0;
  for (const FDKMemoryPlan::Slab & slab : plan.Slabs())
  {
    ++s;
    Stopwatch clock;
    fdk->GetOutput()->SetRequestedRegion(slab.region);
    fdk->GetOutput()->Update();
    const double seconds = clock.Seconds();
    clock.Restart();
    const TImage * reconstructed = fdk->GetOutput();
    // The slab as a plain image over the same buffer (a CUDA image's host copy is current after the update).
    auto slabImage = RawImage::New();
    slabImage->CopyInformation(information);
    slabImage->SetLargestPossibleRegion(whole);
    slabImage->SetBufferedRegion(reconstructed->GetBufferedRegion());
    slabImage->SetRequestedRegion(reconstructed->GetBufferedRegion());
    slabImage->GetPixelContainer()->SetImportPointer(const_cast<float *>(reconstructed->GetBufferPointer()),
                                                     reconstructed->GetBufferedRegion().GetNumberOfPixels(), false);
    if (writer)
    {
      try
      {
        writer->Write(slabImage);
      }
      catch (const itk::ExceptionObject & e)
      {
        throw Error("--output " + o.output + ": could not write the file (" + OneLine(WithoutItkPrefix(e.GetDescription())) + ")");
      }
    }
    else
      itk::ImageAlgorithm::Copy(slabImage.GetPointer(), assembled.GetPointer(), slab.region, slab.region);
    if (o.verbose)
    {
      EndProgressLine();
      std::cout << name << ": slab " << s << " of " << plan.Slabs().size() << ": y [" << slab.region.GetIndex(1) << ", "
                << slab.region.GetIndex(1) + static_cast<long>(slab.region.GetSize(1)) << "), " << slab.cost.rows
                << " detector rows, reconstructed in " << FormatSeconds(seconds) << ", "
                << (writer ? "written in " + FormatSeconds(clock.Seconds()) + " (" + HostMemory::Format(writer->BytesWritten()) +
                               " of " + HostMemory::Format(writer->VolumeBytes()) + ")"
                           : std::string("kept"))
                << std::endl;
    }
    // Free the slab's buffers before the next slab allocates its own.
    fdk->GetOutput()->ReleaseData();
    fdk->GetBackProjectionFilter()->GetOutput()->ReleaseData(); // the CPU filter's output shares its buffer
    grid->GetOutput()->ReleaseData();
    source->GetOutput()->ReleaseData();
    if (preprocessing)
      preprocessing->GetOutput()->ReleaseData();
    if constexpr (cuda)
      toDevice->GetOutput()->ReleaseData();
  }
  if (o.verbose)
    std::cout << name << ": weighting " << FormatSeconds(fdk->GetWeightingTime()) << ", ramp filtering "
              << FormatSeconds(fdk->GetFilteringTime()) << ", backprojection " << FormatSeconds(fdk->GetBackProjectionTime())
              << "; " << HostMemory::Format(source->GetBytesRead()) << " read from the projection files" << std::endl;
  if (rankSlab)
    return assembled;
  Stopwatch clock;
  if (writer)
  {
    try
    {
      writer->Commit();
    }
    catch (const itk::ExceptionObject & e)
    {
      throw Error("--output " + o.output + ": could not write the file (" + OneLine(WithoutItkPrefix(e.GetDescription())) + ")");
    }
  }
  else
    WriteImage("--output", assembled.GetPointer(), o.output);
  if (o.verbose)
    std::cout << name << ": wrote " << o.output << " (" << FormatSeconds(clock.Seconds()) << "), total "
              << FormatSeconds(total.Seconds()) << "; " << DescribePeakMemory(budget) << std::endl;
  return nullptr;
}

} // namespace cbct::apps

#endif
