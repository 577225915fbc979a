// cbct-view: a volume as three orthogonal slices with window/level and a volume rendering, or a
// projection stack as one projection at a time; interactive on a display, or one offscreen
// picture with --screenshot. Built only when VTK is found.
#include "cbctAppSupport.h"

#include <itkImage.h>

#include <vtkCallbackCommand.h>
#include <vtkCamera.h>
#include <vtkColorTransferFunction.h>
#include <vtkImageData.h>
#include <vtkImageImport.h>
#include <vtkImageProperty.h>
#include <vtkImageSlice.h>
#include <vtkImageSliceMapper.h>
#include <vtkInteractorStyleImage.h>
#include <vtkInteractorStyleTrackballCamera.h>
#include <vtkNew.h>
#include <vtkPNGWriter.h>
#include <vtkPiecewiseFunction.h>
#include <vtkRenderWindow.h>
#include <vtkRenderWindowInteractor.h>
#include <vtkRenderer.h>
#include <vtkSmartPointer.h>
#include <vtkSmartVolumeMapper.h>
#include <vtkVolume.h>
#include <vtkVolumeProperty.h>
#include <vtkWindowToImageFilter.h>

#include <algorithm>
#include <array>
#include <cstdlib>

namespace
{
using ImageType = itk::Image<float, 3>;
using namespace cbct::apps;

struct Options
{
  std::string input;
  bool stack = false;
  std::string screenshot;
  std::string size = "1000,800";
  double window = std::numeric_limits<double>::quiet_NaN();
  double level = std::numeric_limits<double>::quiet_NaN();
  std::string slice;
  double azimuth = 30.;
  double elevation = 20.;
  bool noVolumeRendering = false;
  int threads = 0;
};

/** A vtkImageData on the ITK image's buffer, without a copy (the ITK image must outlive it).
 * Origin and spacing are the ITK image's; the direction is taken as the identity. */
vtkSmartPointer<vtkImageData>
ToVtk(ImageType * image)
{
  const auto region = image->GetBufferedRegion();
  auto import = vtkSmartPointer<vtkImageImport>::New();
  import->SetDataScalarTypeToFloat();
  import->SetNumberOfScalarComponents(1);
  int extent[6];
  double spacing[3], origin[3];
  for (unsigned int d = 0; d < 3; ++d)
  {
    extent[2 * d] = static_cast<int>(region.GetIndex(d));
    extent[2 * d + 1] = static_cast<int>(region.GetIndex(d) + region.GetSize(d)) - 1;
    spacing[d] = image->GetSpacing()[d];
    origin[d] = image->GetOrigin()[d];
  }
  import->SetWholeExtent(extent);
  import->SetDataExtent(extent);
  import->SetDataSpacing(spacing);
  import->SetDataOrigin(origin);
  import->SetImportVoidPointer(image->GetBufferPointer(), 1); // 1: VTK does not free it
  import->Update();
  return import->GetOutput();
}

/** Display range: 1st to 99.9th percentile of the finite values (as cbct-slices). */
std::pair<double, double>
AutoRange(const ImageType * image)
{
  const std::size_t count = image->GetBufferedRegion().GetNumberOfPixels();
  const std::size_t step = std::max<std::size_t>(1, count / 2000000);
  std::vector<float> samples;
  const float * buffer = image->GetBufferPointer();
  for (std::size_t i = 0; i < count; i += step)
    if (std::isfinite(buffer[i]))
      samples.push_back(buffer[i]);
  if (samples.empty())
    return { 0., 1. };
  std::sort(samples.begin(), samples.end());
  const double low = std::min(0.f, samples[static_cast<std::size_t>(0.001 * (samples.size() - 1))]);
  double high = samples[static_cast<std::size_t>(0.999 * (samples.size() - 1))];
  if (!(high > low))
    high = low + 1.;
  return { low, high };
}

/** One orthogonal slice through `index` along `axis` in `renderer`, seen face on with `up` upwards
 * (the caller fits it with FitScale()); returns the mapper (to move the slice). */
vtkSmartPointer<vtkImageSliceMapper>
AddSlice(vtkRenderer * renderer, vtkImageData * data, int axis, int index, double window, double level,
         const std::array<double, 3> & up)
{
  auto mapper = vtkSmartPointer<vtkImageSliceMapper>::New();
  mapper->SetInputData(data);
  mapper->SetOrientation(axis);
  mapper->SetSliceNumber(index);
  mapper->SliceAtFocalPointOff();
  mapper->SliceFacesCameraOff();
  vtkNew<vtkImageSlice> slice;
  slice->SetMapper(mapper);
  slice->GetProperty()->SetColorWindow(window);
  slice->GetProperty()->SetColorLevel(level);
  slice->GetProperty()->SetInterpolationTypeToNearest();
  renderer->AddViewProp(slice);

  // Camera on the slice's normal, parallel projection, the slice's larger extent filling the view.
  double bounds[6];
  mapper->GetBounds(bounds);
  const double centre[3] = { (bounds[0] + bounds[1]) / 2, (bounds[2] + bounds[3]) / 2, (bounds[4] + bounds[5]) / 2 };
  vtkCamera * camera = renderer->GetActiveCamera();
  camera->ParallelProjectionOn();
  camera->SetFocalPoint(centre);
  double position[3] = { centre[0], centre[1], centre[2] };
  // Look along -normal or +normal so that the horizontal axis points right (a right-handed view).
  const int horizontal = axis == 0 ? 2 : 0;
  const int vertical = axis == 1 ? 2 : 1;
  // normal = horizontal x vertical
  double h[3] = { 0, 0, 0 }, v[3] = { up[0], up[1], up[2] };
  h[horizontal] = 1.;
  const double n[3] = { h[1] * v[2] - h[2] * v[1], h[2] * v[0] - h[0] * v[2], h[0] * v[1] - h[1] * v[0] };
  for (int d = 0; d < 3; ++d)
    position[d] += 1000. * n[d];
  camera->SetPosition(position);
  camera->SetViewUp(up[0], up[1], up[2]);
  renderer->ResetCameraClippingRange(); // the caller sets the parallel scale (FitScale)
  return mapper;
}

/** Parallel scale that fits a `width` x `height` slice in a viewport of aspect `aspect` (w/h). */
double
FitScale(double width, double height, double aspect)
{
  return 0.5 * 1.02 * std::max(height, width / aspect);
}

struct Viewer
{
  std::vector<vtkSmartPointer<vtkImageSliceMapper>> mappers; // stack: one; volume: axial, coronal, sagittal
  vtkRenderWindow * window = nullptr;
};

void
OnKey(vtkObject * caller, unsigned long, void * clientData, void *)
{
  auto * viewer = static_cast<Viewer *>(clientData);
  auto * interactor = static_cast<vtkRenderWindowInteractor *>(caller);
  const std::string key = interactor->GetKeySym() ? interactor->GetKeySym() : "";
  int step = 0;
  if (key == "Up" || key == "Prior")
    step = key == "Prior" ? 10 : 1;
  else if (key == "Down" || key == "Next")
    step = key == "Next" ? -10 : -1;
  if (step == 0 || viewer->mappers.empty())
    return;
  vtkImageSliceMapper * mapper = viewer->mappers.front();
  const int n = std::clamp(mapper->GetSliceNumber() + step, mapper->GetSliceNumberMinValue(), mapper->GetSliceNumberMaxValue());
  mapper->SetSliceNumber(n);
  viewer->window->Render();
}

int
View(const Options & o)
{
  ApplyThreads(o.threads);
  CheckReadableFile("--input", o.input, "image file");
  const auto size = ParseSizes("--size", o.size, 2);
  if (size[0] < 16 || size[1] < 16 || size[0] > 8192 || size[1] > 8192)
    Bad("--size", Quoted(o.size), "W,H from 16 to 8192 pixels");
  if (!o.screenshot.empty())
  {
    CheckOutputDirectory("--screenshot", o.screenshot);
    if (itksys::SystemTools::LowerCase(itksys::SystemTools::GetFilenameLastExtension(o.screenshot)) != ".png")
      Bad("--screenshot", Quoted(o.screenshot), "a .png file name");
  }
  if (!std::isnan(o.window) && !(std::isfinite(o.window) && o.window > 0.))
    Bad("--window", o.window, "a width > 0");
  if (!std::isnan(o.level))
    CheckFinite("--level", o.level);
  CheckFinite("--azimuth", o.azimuth);
  CheckFinite("--elevation", o.elevation);
  const char * display = std::getenv("DISPLAY");
  if (display == nullptr || *display == '\0')
    throw Error(std::string(o.screenshot.empty() ? "no display" : "--screenshot") +
                ": this VTK renders through X and DISPLAY is not set (run under xvfb-run for offscreen pictures)");

  if (!o.screenshot.empty())
    CheckOutputsAreNotInputs({ { "--screenshot", o.screenshot } }, { { "--input", o.input, true } });
  auto image = ReadImage<ImageType>("--input", o.input, o.stack ? ImageRole::ProjectionStack : ImageRole::Volume);
  const auto region = image->GetBufferedRegion();
  int dims[3];
  for (unsigned int d = 0; d < 3; ++d)
    dims[d] = static_cast<int>(region.GetSize(d));
  int slices[3] = { dims[0] / 2, dims[1] / 2, dims[2] / 2 };
  if (!o.slice.empty())
  {
    const auto values = ParseNumbers("--slice", o.slice, { o.stack ? 1u : 3u }, o.stack ? "a projection index" : "X,Y,Z voxel indices");
    for (std::size_t d = 0; d < values.size(); ++d)
    {
      const int axis = o.stack ? 2 : static_cast<int>(d);
      if (values[d] != std::floor(values[d]) || values[d] < 0 || values[d] >= dims[axis])
        Bad("--slice", Quoted(o.slice), "voxel indices inside the image (0.." + std::to_string(dims[axis] - 1) + " along axis " +
                                          std::to_string(axis) + ")");
      slices[axis] = static_cast<int>(values[d]);
    }
  }
  double window = o.window, level = o.level;
  if (std::isnan(window) || std::isnan(level))
  {
    const auto range = AutoRange(image);
    if (std::isnan(window))
      window = range.second - range.first;
    if (std::isnan(level))
      level = (range.first + range.second) / 2.;
  }
  // Index extents start at the buffered region's index.
  for (unsigned int d = 0; d < 3; ++d)
    slices[d] += static_cast<int>(region.GetIndex(d));

  vtkSmartPointer<vtkImageData> data = ToVtk(image);
  vtkNew<vtkRenderWindow> renderWindow;
  renderWindow->SetSize(static_cast<int>(size[0]), static_cast<int>(size[1]));
  renderWindow->SetWindowName(("cbct-view " + o.input).c_str());
  if (!o.screenshot.empty())
    renderWindow->SetOffScreenRendering(1);
  const double aspectOfWindow = static_cast<double>(size[0]) / size[1];
  const double background[3] = { 0.1, 0.1, 0.2 };

  Viewer viewer;
  viewer.window = renderWindow;
  if (o.stack)
  {
    // One projection (u right, v up), Up/Down to scroll.
    vtkNew<vtkRenderer> renderer;
    renderer->SetBackground(background);
    renderWindow->AddRenderer(renderer);
    viewer.mappers.push_back(AddSlice(renderer, data, 2, slices[2], window, level, { 0., 1., 0. }));
    renderer->GetActiveCamera()->SetParallelScale(
      FitScale(dims[0] * image->GetSpacing()[0], dims[1] * image->GetSpacing()[1], aspectOfWindow));
  }
  else
  {
    // 2 x 2: axial (x right, z up) top left, coronal (x right, y up) top right, sagittal (z right,
    // y up) bottom left, volume rendering bottom right.
    const double viewports[4][4] = { { 0., .5, .5, 1. }, { .5, .5, 1., 1. }, { 0., 0., .5, .5 }, { .5, 0., 1., .5 } };
    const int axes[3] = { 1, 2, 0 };
    const std::array<double, 3> ups[3] = { { 0., 0., 1. }, { 0., 1., 0. }, { 0., 1., 0. } };
    const auto & spacing = image->GetSpacing();
    for (int k = 0; k < 3; ++k)
    {
      vtkNew<vtkRenderer> renderer;
      renderer->SetViewport(viewports[k][0], viewports[k][1], viewports[k][2], viewports[k][3]);
      renderer->SetBackground(background);
      renderWindow->AddRenderer(renderer);
      viewer.mappers.push_back(AddSlice(renderer, data, axes[k], slices[axes[k]], window, level, ups[k]));
      const int horizontal = axes[k] == 0 ? 2 : 0;
      const int vertical = axes[k] == 1 ? 2 : 1;
      renderer->GetActiveCamera()->SetParallelScale(
        FitScale(dims[horizontal] * spacing[horizontal], dims[vertical] * spacing[vertical], aspectOfWindow));
    }
    vtkNew<vtkRenderer> renderer3d;
    renderer3d->SetViewport(viewports[3][0], viewports[3][1], viewports[3][2], viewports[3][3]);
    renderer3d->SetBackground(0.05, 0.05, 0.05);
    renderWindow->AddRenderer(renderer3d);
    if (!o.noVolumeRendering)
    {
      vtkNew<vtkSmartVolumeMapper> volumeMapper;
      volumeMapper->SetInputData(data);
      vtkNew<vtkPiecewiseFunction> opacity;
      const double low = level - window / 2., high = level + window / 2.;
      opacity->AddPoint(low, 0.);
      opacity->AddPoint(high, 0.3);
      vtkNew<vtkColorTransferFunction> colour;
      colour->AddRGBPoint(low, 0., 0., 0.);
      colour->AddRGBPoint(high, 1., 1., 1.);
      vtkNew<vtkVolume> volume;
      volume->SetMapper(volumeMapper);
      volume->GetProperty()->SetScalarOpacity(opacity);
      volume->GetProperty()->SetColor(colour);
      volume->GetProperty()->SetInterpolationTypeToLinear();
      renderer3d->AddVolume(volume);
    }
    vtkCamera * camera = renderer3d->GetActiveCamera();
    camera->SetFocalPoint(0., 0., 0.);
    camera->SetPosition(0., 0., 1.);
    camera->SetViewUp(0., 1., 0.);
    renderer3d->ResetCamera();
    camera->Azimuth(o.azimuth);
    camera->Elevation(o.elevation);
    camera->OrthogonalizeViewUp();
    renderer3d->ResetCameraClippingRange();
  }

  if (!o.screenshot.empty())
  {
    renderWindow->Render();
    vtkNew<vtkWindowToImageFilter> grab;
    grab->SetInput(renderWindow);
    grab->SetInputBufferTypeToRGB();
    grab->ReadFrontBufferOff();
    grab->Update();
    WriteAtomically("--screenshot", o.screenshot, [&](const std::string & temporary) {
      vtkNew<vtkPNGWriter> writer;
      writer->SetFileName(temporary.c_str());
      writer->SetInputConnection(grab->GetOutputPort());
      writer->Write();
      if (writer->GetErrorCode() != 0)
        throw Error("--screenshot " + o.screenshot + ": could not write the picture");
    });
    std::cout << "wrote " << o.screenshot << " (" << size[0] << " x " << size[1] << ", window " << window << ", level "
              << level << ")" << std::endl;
    return 0;
  }

  vtkNew<vtkRenderWindowInteractor> interactor;
  interactor->SetRenderWindow(renderWindow);
  vtkSmartPointer<vtkInteractorObserver> style;
  if (o.stack)
    style = vtkSmartPointer<vtkInteractorStyleImage>::New();
  else
    style = vtkSmartPointer<vtkInteractorStyleTrackballCamera>::New();
  interactor->SetInteractorStyle(style);
  vtkNew<vtkCallbackCommand> keys;
  keys->SetCallback(OnKey);
  keys->SetClientData(&viewer);
  interactor->AddObserver(vtkCommand::KeyPressEvent, keys);
  renderWindow->Render();
  interactor->Start();
  return 0;
}
} // namespace

int
main(int argc, char ** argv)
{
  Options o;
  CLI::App app{ "Shows a volume as three orthogonal slices (axial x-z top left, coronal x-y top right, sagittal "
                "z-y bottom left) with window/level and a volume rendering (bottom right), or with --stack a "
                "projection stack one projection at a time (Up/Down, PageUp/PageDown scroll). Interactive on a "
                "display; --screenshot renders one picture offscreen instead.",
                "cbct-view" };
  app.add_option("-i,--input", o.input, "Volume or projection stack (.mha, .nrrd, .nii, .tif, ...)")->required();
  app.add_flag("--stack", o.stack, "The input is a projection stack: show projection --slice (default the middle)");
  app.add_option("--screenshot", o.screenshot, "Render offscreen into this .png and exit");
  app.add_option("--size", o.size, "Window or picture size in pixels: W,H")->capture_default_str();
  app.add_option("--window", o.window, "Width of the displayed value range (default from the 1st to the 99.9th "
                                       "percentile, from 0 when that is lower)");
  app.add_option("--level", o.level, "Centre of the displayed value range");
  app.add_option("--slice", o.slice, "Voxel indices X,Y,Z where the slices cross (default the centre); with --stack "
                                     "the projection index");
  app.add_option("--azimuth", o.azimuth, "Volume rendering: camera azimuth (degrees)")->capture_default_str();
  app.add_option("--elevation", o.elevation, "Volume rendering: camera elevation (degrees)")->capture_default_str();
  app.add_flag("--no-volume-rendering", o.noVolumeRendering, "Leave the volume rendering out (faster without a GPU)");
  AddCommonOptions(app, o.threads);
  DescribeForSlicer("CBCT View", {
    { "--input", SlicerIo("image", "input", "Input") },
    { "--stack", SlicerIn("Input") },
    { "--screenshot", SlicerIo("file", "output", "Output", ".png") },
    { "--size", SlicerIn("Output", "integer-vector") },
    { "--window", SlicerIn("Display") },
    { "--level", SlicerIn("Display") },
    { "--slice", SlicerIn("Display", "integer-vector") },
    { "--azimuth", SlicerRange("Display", "-360", "360", "5") },
    { "--elevation", SlicerRange("Display", "-90", "90", "5") },
    { "--no-volume-rendering", SlicerIn("Display") },
  });
  return Run(app, argc, argv, [&] { return View(o); });
}
