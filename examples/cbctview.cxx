// cbct-view: a volume as three orthogonal slices with window/level and a volume rendering, or a
// projection stack as one projection at a time; interactive on a display, or one offscreen
// picture with --screenshot. Built only when VTK is found.
#include "cbctAppSupport.h"
#include "cbctDisplayWindow.h"

#include <itkImage.h>

#include <vtkActor.h>
#include <vtkCallbackCommand.h>
#include <vtkCamera.h>
#include <vtkColorTransferFunction.h>
#include <vtkCoordinate.h>
#include <vtkGPUVolumeRayCastMapper.h>
#include <vtkImageData.h>
#include <vtkImageImport.h>
#include <vtkImageProperty.h>
#include <vtkImageSlice.h>
#include <vtkImageSliceMapper.h>
#include <vtkInteractorStyleTrackballCamera.h>
#include <vtkLineSource.h>
#include <vtkLookupTable.h>
#include <vtkNew.h>
#include <vtkPNGWriter.h>
#include <vtkObjectFactory.h>
#include <vtkPiecewiseFunction.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderWindow.h>
#include <vtkRenderWindowInteractor.h>
#include <vtkRenderingOpenGLConfigure.h> // VTK_USE_X, VTK_OPENGL_HAS_EGL, VTK_OPENGL_HAS_OSMESA
#include <vtkRenderer.h>
#include <vtkScalarBarActor.h>
#include <vtkSmartPointer.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>
#include <vtkVolume.h>
#include <vtkVolumeProperty.h>
#include <vtkWindowToImageFilter.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <sstream>

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
  std::string keys;
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

/** A round length for a scale bar: 1, 2 or 5 times a power of ten, at most `limit`. */
double
RoundLength(double limit)
{
  const double power = std::pow(10., std::floor(std::log10(limit)));
  for (const double m : { 5., 2., 1. })
    if (m * power <= limit)
      return m * power;
  return power;
}

std::string
Formatted(double value, int digits = 4)
{
  std::ostringstream text;
  text << std::setprecision(digits) << value;
  return text.str();
}

vtkSmartPointer<vtkTextActor>
AddText(vtkRenderer * renderer, const std::string & text, int fontSize, const double colour[3])
{
  auto actor = vtkSmartPointer<vtkTextActor>::New();
  actor->SetInput(text.c_str());
  actor->GetTextProperty()->SetFontSize(fontSize);
  actor->GetTextProperty()->SetColor(colour[0], colour[1], colour[2]);
  actor->GetTextProperty()->SetFontFamilyToArial();
  renderer->AddViewProp(actor);
  return actor;
}

const double LabelColour[3] = { 1., 0.85, 0.2 }; // text, letters and scale bars: yellow, apart from the grey image

/** One orthogonal slice view: the image, its label (plane and position in mm), orientation letters
 * at its edges (RTK's world axes: y is the rotation axis; no patient orientation is assumed), a
 * scale bar below it and a value bar (the window's grey ramp) on its right. */
struct SliceView
{
  vtkSmartPointer<vtkRenderer> renderer;
  vtkSmartPointer<vtkImageSliceMapper> mapper;
  vtkSmartPointer<vtkImageSlice> slice;
  vtkSmartPointer<vtkTextActor> label;
  vtkSmartPointer<vtkScalarBarActor> valueBar;
  int axis = 2;
  bool stack = false;
  double origin = 0., spacing = 1.; // along `axis`
};

/** What the label says: the plane and where the slice is. */
std::string
SliceLabel(const SliceView & view)
{
  const int index = view.mapper->GetSliceNumber();
  if (view.stack)
    return "projection " + std::to_string(index);
  static const char * planes[3] = { "sagittal z-y", "axial x-z", "coronal x-y" };
  static const char * names[3] = { "x", "y", "z" };
  return std::string(planes[view.axis]) + "   " + names[view.axis] + " = " +
         Formatted(view.origin + index * view.spacing, 5) + " mm";
}

/** Sets up `view` (axis, stack, origin and spacing already set): camera on the slice's normal,
 * parallel projection, the slice fitted with margins for the letters, the scale bar and the value
 * bar; `up` is the world direction shown upwards. */
void
BuildSliceView(SliceView & view, vtkImageData * data, int index, double aspect, const std::array<double, 3> & up,
               int fontSize, vtkLookupTable * greys)
{
  vtkRenderer * renderer = view.renderer;
  view.mapper = vtkSmartPointer<vtkImageSliceMapper>::New();
  view.mapper->SetInputData(data);
  view.mapper->SetOrientation(view.axis);
  view.mapper->SetSliceNumber(index);
  view.mapper->SliceAtFocalPointOff();
  view.mapper->SliceFacesCameraOff();
  view.slice = vtkSmartPointer<vtkImageSlice>::New();
  view.slice->SetMapper(view.mapper);
  view.slice->GetProperty()->SetInterpolationTypeToNearest();
  renderer->AddViewProp(view.slice);

  // The slice's extent in the world: horizontal axis h (to the right), vertical axis v (upwards).
  double bounds[6];
  data->GetBounds(bounds);
  const int h = view.axis == 0 ? 2 : 0;
  const int v = view.axis == 1 ? 2 : 1;
  double spacing[3];
  data->GetSpacing(spacing);
  const double hMin = bounds[2 * h] - 0.5 * spacing[h], hMax = bounds[2 * h + 1] + 0.5 * spacing[h];
  const double vMin = bounds[2 * v] - 0.5 * spacing[v], vMax = bounds[2 * v + 1] + 0.5 * spacing[v];
  const double width = hMax - hMin, height = vMax - vMin;
  // In front of every slice, towards the camera: where the overlays are drawn.
  double n[3] = { 0., 0., 0. };
  {
    double hv[3] = { 0., 0., 0. };
    hv[h] = 1.;
    n[0] = hv[1] * up[2] - hv[2] * up[1];
    n[1] = hv[2] * up[0] - hv[0] * up[2];
    n[2] = hv[0] * up[1] - hv[1] * up[0];
  }
  const double front = n[view.axis] > 0 ? bounds[2 * view.axis + 1] + spacing[view.axis] : bounds[2 * view.axis] - spacing[view.axis];
  auto world = [&](double x, double y, double out[3]) {
    out[h] = x;
    out[v] = y;
    out[view.axis] = front;
  };

  // Camera: the image in the left part of the view (the value bar on the right), margins around
  // it for the letters, the label above and the scale bar below.
  const double viewWidth = std::max(1.3 * width, 1.4 * height * aspect);
  const double viewHeight = viewWidth / aspect;
  const double centreH = hMin + 0.5 * width + 0.07 * viewWidth, centreV = vMin + 0.5 * height;
  double focal[3], position[3];
  world(centreH, centreV, focal);
  focal[view.axis] = 0.5 * (bounds[2 * view.axis] + bounds[2 * view.axis + 1]);
  for (int d = 0; d < 3; ++d)
    position[d] = focal[d] + 1000. * std::max(width, height) * n[d];
  vtkCamera * camera = renderer->GetActiveCamera();
  camera->ParallelProjectionOn();
  camera->SetFocalPoint(focal);
  camera->SetPosition(position);
  camera->SetViewUp(up[0], up[1], up[2]);
  camera->SetParallelScale(0.5 * viewHeight);

  // Label: plane and position, top left.
  view.label = AddText(renderer, SliceLabel(view), fontSize, LabelColour);
  view.label->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
  view.label->GetPositionCoordinate()->SetValue(0.02, 0.98);
  view.label->GetTextProperty()->SetVerticalJustificationToTop();

  // Orientation letters at the middle of each edge, just outside the image.
  static const char * names[3] = { "x", "y", "z" };
  const std::string hName = view.stack ? "u" : names[h], vName = view.stack ? "v" : names[v];
  const double gap = 0.01 * viewWidth;
  struct Letter
  {
    std::string text;
    double x, y;
    int horizontal, vertical; // justification: 0 left/bottom, 1 centred, 2 right/top
  };
  const Letter letters[4] = { { "-" + hName, hMin - gap, centreV, 2, 1 },
                              { "+" + hName, hMax + gap, centreV, 0, 1 },
                              { "+" + vName, hMin + 0.5 * width, vMax + gap, 1, 0 },
                              { "-" + vName, hMin + 0.5 * width, vMin - gap, 1, 2 } };
  for (const Letter & letter : letters)
  {
    auto actor = AddText(renderer, letter.text, fontSize, LabelColour);
    actor->GetTextProperty()->SetBold(true);
    actor->GetTextProperty()->SetJustification(letter.horizontal);
    actor->GetTextProperty()->SetVerticalJustification(letter.vertical);
    double p[3];
    world(letter.x, letter.y, p);
    actor->GetPositionCoordinate()->SetCoordinateSystemToWorld();
    actor->GetPositionCoordinate()->SetValue(p);
  }

  // Scale bar: a round length of at most a third of the image's width, below its left corner.
  const double length = RoundLength(width / 3.);
  double a[3], b[3], textAt[3];
  const double barV = vMin - 0.06 * viewHeight;
  world(hMin, barV, a);
  world(hMin + length, barV, b);
  world(hMin + length + gap, barV, textAt);
  vtkNew<vtkLineSource> line;
  line->SetPoint1(a);
  line->SetPoint2(b);
  vtkNew<vtkPolyDataMapper> lineMapper;
  lineMapper->SetInputConnection(line->GetOutputPort());
  vtkNew<vtkActor> bar;
  bar->SetMapper(lineMapper);
  bar->GetProperty()->SetColor(LabelColour[0], LabelColour[1], LabelColour[2]);
  bar->GetProperty()->SetLineWidth(std::max(2., fontSize / 5.));
  bar->GetProperty()->LightingOff();
  renderer->AddActor(bar);
  auto barText = AddText(renderer, Formatted(length) + " mm", fontSize, LabelColour);
  barText->GetTextProperty()->SetVerticalJustificationToCentered();
  barText->GetPositionCoordinate()->SetCoordinateSystemToWorld();
  barText->GetPositionCoordinate()->SetValue(textAt);

  // Value bar: the window's greys from black (lower) to white (upper), on the right.
  view.valueBar = vtkSmartPointer<vtkScalarBarActor>::New();
  view.valueBar->SetLookupTable(greys);
  view.valueBar->SetNumberOfLabels(5);
  view.valueBar->SetLabelFormat("%.4g");
  view.valueBar->SetBarRatio(0.3);
  view.valueBar->SetTextPositionToPrecedeScalarBar();
  view.valueBar->SetUnconstrainedFontSize(true);
  view.valueBar->GetLabelTextProperty()->SetFontSize(fontSize * 4 / 5);
  view.valueBar->GetLabelTextProperty()->SetColor(LabelColour[0], LabelColour[1], LabelColour[2]);
  view.valueBar->GetLabelTextProperty()->ShadowOff();
  view.valueBar->GetLabelTextProperty()->ItalicOff();
  view.valueBar->GetLabelTextProperty()->BoldOff();
  view.valueBar->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
  view.valueBar->GetPositionCoordinate()->SetValue(0.84, 0.12);
  view.valueBar->SetWidth(0.14);
  view.valueBar->SetHeight(0.72);
  renderer->AddViewProp(view.valueBar);
  renderer->ResetCameraClippingRange();
}

/** The viewer's state: its views, the window shown and what follows it. */
struct Viewer
{
  std::vector<SliceView> views; // stack: one; volume: axial, coronal, sagittal
  vtkRenderWindow * window = nullptr;
  vtkRenderer * volumeRenderer = nullptr;
  vtkSmartPointer<vtkLookupTable> greys;
  vtkSmartPointer<vtkPiecewiseFunction> opacity;
  vtkSmartPointer<vtkColorTransferFunction> colour;
  cbct::DisplayWindow shown, softTissue, fullRange;
  double dataMaximum = 1.;
  // Mouse window/level drag (left button on a slice view).
  bool dragging = false;
  int dragStart[2] = { 0, 0 };
  cbct::DisplayWindow dragFrom;
};

/** Shows `window` on every slice, the value bars and the volume rendering. The rendering's opacity
 * ramps across the window (darker, thinner structures such as the ventricles stay see-through
 * inside brighter tissue) and stays low above it (bone), so the skull does not hide the inside. */
void
ApplyWindow(Viewer & viewer, const cbct::DisplayWindow & window)
{
  viewer.shown = window;
  for (SliceView & view : viewer.views)
  {
    view.slice->GetProperty()->SetColorWindow(window.Width());
    view.slice->GetProperty()->SetColorLevel(window.Level());
  }
  viewer.greys->SetTableRange(window.lower, window.upper);
  viewer.greys->Build();
  if (viewer.opacity)
  {
    const double w = window.Width(), lower = window.lower, upper = window.upper;
    const double top = std::max(viewer.dataMaximum, upper + w);
    viewer.opacity->RemoveAllPoints();
    viewer.opacity->AddPoint(lower - 1e-3 * w, 0.);
    viewer.opacity->AddPoint(lower + 0.35 * w, 0.);
    viewer.opacity->AddPoint(upper, 0.12);
    viewer.opacity->AddPoint(upper + 0.5 * w, 0.02);
    viewer.opacity->AddPoint(top, 0.05);
    viewer.colour->RemoveAllPoints();
    viewer.colour->AddRGBPoint(lower, 0.25, 0.05, 0.02);
    viewer.colour->AddRGBPoint(window.Level(), 0.9, 0.45, 0.2);
    viewer.colour->AddRGBPoint(upper, 1., 0.9, 0.7);
    viewer.colour->AddRGBPoint(top, 1., 1., 1.);
  }
}

/** The slice view under the display point (x, y), or null. */
SliceView *
ViewAt(Viewer & viewer, vtkRenderWindowInteractor * interactor, int x, int y)
{
  vtkRenderer * renderer = interactor->FindPokedRenderer(x, y);
  for (SliceView & view : viewer.views)
    if (view.renderer == renderer)
      return &view;
  return nullptr;
}

void
MoveSlice(SliceView & view, int step)
{
  vtkImageSliceMapper * mapper = view.mapper;
  const int n = std::clamp(mapper->GetSliceNumber() + step, mapper->GetSliceNumberMinValue(), mapper->GetSliceNumberMaxValue());
  mapper->SetSliceNumber(n);
  view.label->SetInput(SliceLabel(view).c_str());
}

/** Applies one key (a VTK key symbol) to `target` (the slice view under the mouse; null: the first
 * view). Returns whether anything changed. The keys are listed in --help and docs/guide/viewing.md. */
bool
ApplyKey(Viewer & viewer, const std::string & key, SliceView * target)
{
  if (viewer.views.empty())
    return false;
  SliceView & view = target ? *target : viewer.views.front();
  const cbct::DisplayWindow w = viewer.shown;
  if (key == "Up" || key == "Down" || key == "Prior" || key == "Next")
    MoveSlice(view, key == "Up" ? 1 : key == "Down" ? -1 : key == "Prior" ? 10 : -10);
  else if (key == "plus" || key == "equal" || key == "KP_Add") // narrower: more contrast
    ApplyWindow(viewer, { w.Level() - 0.4 * w.Width(), w.Level() + 0.4 * w.Width() });
  else if (key == "minus" || key == "KP_Subtract") // wider
    ApplyWindow(viewer, { w.Level() - 0.625 * w.Width(), w.Level() + 0.625 * w.Width() });
  else if (key == "bracketright") // brighter structures: level up by a tenth of the width
    ApplyWindow(viewer, { w.lower + 0.1 * w.Width(), w.upper + 0.1 * w.Width() });
  else if (key == "bracketleft")
    ApplyWindow(viewer, { w.lower - 0.1 * w.Width(), w.upper - 0.1 * w.Width() });
  else if (key == "a")
    ApplyWindow(viewer, viewer.softTissue);
  else if (key == "b")
    ApplyWindow(viewer, viewer.fullRange);
  else
    return false;
  return true;
}

void
OnKey(vtkObject * caller, unsigned long, void * clientData, void *)
{
  auto * viewer = static_cast<Viewer *>(clientData);
  auto * interactor = static_cast<vtkRenderWindowInteractor *>(caller);
  const std::string key = interactor->GetKeySym() ? interactor->GetKeySym() : "";
  const int * p = interactor->GetEventPosition();
  if (ApplyKey(*viewer, key, ViewAt(*viewer, interactor, p[0], p[1])))
    viewer->window->Render();
}

/** Trackball rotation and zoom in the volume rendering; on a slice view, left drag sets the window
 * (right: wider, left: narrower) and level (up: higher), the wheel moves the slice, right drag zooms. */
class ViewerInteractorStyle : public vtkInteractorStyleTrackballCamera
{
public:
  static ViewerInteractorStyle * New();
  vtkTypeMacro(ViewerInteractorStyle, vtkInteractorStyleTrackballCamera);
  Viewer * viewer = nullptr;

  void
  OnLeftButtonDown() override
  {
    const int * p = this->Interactor->GetEventPosition();
    if (viewer && ViewAt(*viewer, this->Interactor, p[0], p[1]) != nullptr)
    {
      viewer->dragging = true;
      viewer->dragStart[0] = p[0];
      viewer->dragStart[1] = p[1];
      viewer->dragFrom = viewer->shown;
      return;
    }
    vtkInteractorStyleTrackballCamera::OnLeftButtonDown();
  }
  void
  OnLeftButtonUp() override
  {
    if (viewer && viewer->dragging)
    {
      viewer->dragging = false;
      return;
    }
    vtkInteractorStyleTrackballCamera::OnLeftButtonUp();
  }
  void
  OnMouseMove() override
  {
    if (viewer && viewer->dragging)
    {
      const int * p = this->Interactor->GetEventPosition();
      const int * size = this->Interactor->GetRenderWindow()->GetSize();
      const double dx = static_cast<double>(p[0] - viewer->dragStart[0]) / std::max(1, size[0]);
      const double dy = static_cast<double>(p[1] - viewer->dragStart[1]) / std::max(1, size[1]);
      const cbct::DisplayWindow & from = viewer->dragFrom;
      const double width = from.Width() * std::exp(2. * dx), level = from.Level() + dy * from.Width();
      ApplyWindow(*viewer, { level - 0.5 * width, level + 0.5 * width });
      this->Interactor->Render();
      return;
    }
    vtkInteractorStyleTrackballCamera::OnMouseMove();
  }
  void
  OnMouseWheelForward() override
  {
    if (!Wheel(1))
      vtkInteractorStyleTrackballCamera::OnMouseWheelForward();
  }
  void
  OnMouseWheelBackward() override
  {
    if (!Wheel(-1))
      vtkInteractorStyleTrackballCamera::OnMouseWheelBackward();
  }

private:
  bool
  Wheel(int step)
  {
    const int * p = this->Interactor->GetEventPosition();
    SliceView * view = viewer ? ViewAt(*viewer, this->Interactor, p[0], p[1]) : nullptr;
    if (view == nullptr)
      return false;
    MoveSlice(*view, step);
    this->Interactor->Render();
    return true;
  }
};
vtkStandardNewMacro(ViewerInteractorStyle);

const char * KeysHelp = "slices: wheel or Up/Down (PageUp/PageDown: 10) move the slice under the mouse; left drag "
                        "sets the window (right/left: wider/narrower) and level (up/down); + and - narrower/wider, "
                        "] and [ level up/down, a soft-tissue window, b full range; right drag zooms. Volume "
                        "rendering: left drag rotates, wheel zooms. r resets the view under the mouse, q quits.";

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
  std::vector<std::string> keys;
  {
    std::istringstream list(o.keys);
    for (std::string key; std::getline(list, key, ',');)
      if (!key.empty())
        keys.push_back(key);
  }
  // A VTK built with EGL or OSMesa renders --screenshot without any display. One that renders only
  // through X (Debian 12's VTK 9.1: VTK_USE_X, neither VTK_OPENGL_HAS_EGL nor VTK_OPENGL_HAS_OSMESA)
  // needs an X server even offscreen, and an interactive window always needs a display.
#if defined(VTK_USE_X) && !defined(VTK_OPENGL_HAS_EGL) && !defined(VTK_OPENGL_HAS_OSMESA)
  constexpr bool screenshotNeedsX = true;
#else
  constexpr bool screenshotNeedsX = false;
#endif
  const char * display = std::getenv("DISPLAY");
  if ((display == nullptr || *display == '\0') && (o.screenshot.empty() || screenshotNeedsX))
    throw Error(o.screenshot.empty()
                  ? std::string("no display: DISPLAY is not set (the interactive viewer needs one; --screenshot FILE.png "
                                "renders a picture") +
                      (screenshotNeedsX ? ", under xvfb-run -a here)" : " without one)")
                  : std::string("--screenshot: this VTK renders through X and DISPLAY is not set (run under xvfb-run for "
                                "offscreen pictures: xvfb-run -a cbct-view ... --screenshot FILE.png; Debian: apt-get "
                                "install xvfb)"));

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
  const std::size_t count = region.GetNumberOfPixels();
  Viewer viewer;
  viewer.softTissue = cbct::SoftTissueWindow(image->GetBufferPointer(), count);
  viewer.fullRange = cbct::QuantileWindow(image->GetBufferPointer(), count, 0.01, 0.999);
  viewer.dataMaximum = cbct::QuantileWindow(image->GetBufferPointer(), count, 0., 1.).upper;
  // A projection stack has no air-tissue-bone histogram: its default is the full range.
  cbct::DisplayWindow window = o.stack ? viewer.fullRange : viewer.softTissue;
  {
    double width = window.Width(), level = window.Level();
    if (!std::isnan(o.window))
      width = o.window;
    if (!std::isnan(o.level))
      level = o.level;
    window = { level - 0.5 * width, level + 0.5 * width };
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
  const double background[3] = { 0.1, 0.1, 0.2 };
  const int fontSize = std::max(10, static_cast<int>(std::min(size[0], size[1])) / (o.stack ? 40 : 45));

  viewer.window = renderWindow;
  viewer.greys = vtkSmartPointer<vtkLookupTable>::New();
  viewer.greys->SetHueRange(0., 0.);
  viewer.greys->SetSaturationRange(0., 0.);
  viewer.greys->SetValueRange(0., 1.);
  viewer.greys->SetNumberOfTableValues(256);
  const auto & spacing = image->GetSpacing();
  const auto & origin = image->GetOrigin();
  auto makeView = [&](int axis, const double viewport[4], const std::array<double, 3> & up, double aspect) {
    SliceView view;
    view.renderer = vtkSmartPointer<vtkRenderer>::New();
    view.renderer->SetViewport(viewport[0], viewport[1], viewport[2], viewport[3]);
    view.renderer->SetBackground(background);
    renderWindow->AddRenderer(view.renderer);
    view.axis = axis;
    view.stack = o.stack;
    view.origin = origin[axis]; // slice numbers are ITK indices: VTK's extent starts at the region's index
    view.spacing = spacing[axis];
    BuildSliceView(view, data, slices[axis], aspect, up, fontSize, viewer.greys);
    viewer.views.push_back(view);
  };
  if (o.stack)
  {
    // One projection (u right, v up), Up/Down to scroll.
    const double whole[4] = { 0., 0., 1., 1. };
    makeView(2, whole, { 0., 1., 0. }, static_cast<double>(size[0]) / size[1]);
  }
  else
  {
    // 2 x 2: axial (x right, z up) top left, coronal (x right, y up) top right, sagittal (z right,
    // y up) bottom left, volume rendering bottom right.
    const double viewports[4][4] = { { 0., .5, .5, 1. }, { .5, .5, 1., 1. }, { 0., 0., .5, .5 }, { .5, 0., 1., .5 } };
    const int axes[3] = { 1, 2, 0 };
    const std::array<double, 3> ups[3] = { { 0., 0., 1. }, { 0., 1., 0. }, { 0., 1., 0. } };
    for (int k = 0; k < 3; ++k)
      makeView(axes[k], viewports[k], ups[k], static_cast<double>(size[0]) / size[1]);
    vtkNew<vtkRenderer> renderer3d;
    renderer3d->SetViewport(viewports[3][0], viewports[3][1], viewports[3][2], viewports[3][3]);
    renderer3d->SetBackground(0.05, 0.05, 0.05);
    renderWindow->AddRenderer(renderer3d);
    viewer.volumeRenderer = renderer3d;
    if (!o.noVolumeRendering)
    {
      // Rays start at a random offset within the first step (jittering): no wood-grain rings from
      // samples at the same depths; half-voxel steps.
      vtkNew<vtkGPUVolumeRayCastMapper> volumeMapper;
      volumeMapper->SetInputData(data);
      volumeMapper->UseJitteringOn();
      volumeMapper->AutoAdjustSampleDistancesOff();
      volumeMapper->SetSampleDistance(0.5 * std::min({ spacing[0], spacing[1], spacing[2] }));
      viewer.opacity = vtkSmartPointer<vtkPiecewiseFunction>::New();
      viewer.colour = vtkSmartPointer<vtkColorTransferFunction>::New();
      vtkNew<vtkVolume> volume;
      volume->SetMapper(volumeMapper);
      volume->GetProperty()->SetScalarOpacity(viewer.opacity);
      volume->GetProperty()->SetColor(viewer.colour);
      volume->GetProperty()->SetInterpolationTypeToLinear();
      // Opacities per 1/40 of the volume's diagonal, whatever its voxel size.
      volume->GetProperty()->SetScalarOpacityUnitDistance(
        std::sqrt(std::pow(dims[0] * spacing[0], 2) + std::pow(dims[1] * spacing[1], 2) + std::pow(dims[2] * spacing[2], 2)) / 40.);
      volume->GetProperty()->ShadeOff();
      renderer3d->AddVolume(volume);
    }
    auto title = AddText(renderer3d, "volume rendering", fontSize, LabelColour);
    title->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
    title->GetPositionCoordinate()->SetValue(0.02, 0.98);
    title->GetTextProperty()->SetVerticalJustificationToTop();
    vtkCamera * camera = renderer3d->GetActiveCamera();
    camera->SetFocalPoint(0., 0., 0.);
    camera->SetPosition(0., 0., 1.);
    camera->SetViewUp(0., 1., 0.);
    renderer3d->ResetCamera(data->GetBounds());
    camera->Azimuth(o.azimuth);
    camera->Elevation(o.elevation);
    camera->OrthogonalizeViewUp();
    camera->Zoom(1.3); // ResetCamera fits the bounding sphere: the box's corners, never in view

    renderer3d->ResetCameraClippingRange();
  }
  ApplyWindow(viewer, window);
  for (const std::string & key : keys)
    if (!ApplyKey(viewer, key, nullptr))
      Bad("--keys", Quoted(key), "key names, each one of Up, Down, Prior, Next, plus, minus, bracketleft, bracketright, a, b");

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
    std::cout << "wrote " << o.screenshot << " (" << size[0] << " x " << size[1] << ", window " << viewer.shown.Width()
              << ", level " << viewer.shown.Level() << ": " << viewer.shown.lower << " .. " << viewer.shown.upper << ")"
              << std::endl;
    return 0;
  }

  std::cout << "window " << viewer.shown.Width() << ", level " << viewer.shown.Level() << " (" << viewer.shown.lower
            << " .. " << viewer.shown.upper << "). " << KeysHelp << std::endl;
  vtkNew<vtkRenderWindowInteractor> interactor;
  interactor->SetRenderWindow(renderWindow);
  vtkNew<ViewerInteractorStyle> style;
  style->viewer = &viewer;
  interactor->SetInteractorStyle(style);
  vtkNew<vtkCallbackCommand> keyCallback;
  keyCallback->SetCallback(OnKey);
  keyCallback->SetClientData(&viewer);
  interactor->AddObserver(vtkCommand::KeyPressEvent, keyCallback);
  renderWindow->Render();
  interactor->Start();
  return 0;
}
} // namespace

int
main(int argc, char ** argv)
{
  Options o;
  CLI::App app{ std::string("Shows a volume as three orthogonal slices (axial x-z top left, coronal x-y top right, "
                            "sagittal z-y bottom left), each labelled with its plane and position in mm, orientation "
                            "letters in RTK's world axes (y the rotation axis), a scale bar and a value bar, and a volume "
                            "rendering (bottom right); or with --stack a projection stack one projection at a time. The "
                            "default window shows soft tissue: centred on the histogram's dominant peak above the air, as "
                            "wide as its spread (bone saturates; key b shows the full range). Interactive on a display: ") +
                  KeysHelp + " --screenshot renders one picture offscreen instead (through X: under xvfb-run without a display).",
                "cbct-view" };
  app.add_option("-i,--input", o.input, "Volume or projection stack (.mha, .nrrd, .nii, .tif, ...)")->required();
  app.add_flag("--stack", o.stack, "The input is a projection stack: show projection --slice (default the middle)");
  app.add_option("--screenshot", o.screenshot, "Render offscreen into this .png and exit");
  app.add_option("--size", o.size, "Window or picture size in pixels: W,H")->capture_default_str();
  app.add_option("--window", o.window, "Width of the displayed value range (default: soft tissue, the dominant peak "
                                       "of the histogram above the air and its spread; with --stack the 1st to 99.9th "
                                       "percentile)");
  app.add_option("--level", o.level, "Centre of the displayed value range");
  app.add_option("--slice", o.slice, "Voxel indices X,Y,Z where the slices cross (default the centre); with --stack "
                                     "the projection index");
  app.add_option("--azimuth", o.azimuth, "Volume rendering: camera azimuth (degrees)")->capture_default_str();
  app.add_option("--elevation", o.elevation, "Volume rendering: camera elevation (degrees)")->capture_default_str();
  app.add_flag("--no-volume-rendering", o.noVolumeRendering, "Leave the volume rendering out (faster without a GPU)");
  // Key presses applied before the picture, as if typed (e.g. plus,plus,bracketright): for tests
  // and scripted pictures; hidden from --help and Slicer (group "").
  app.add_option("--keys", o.keys, "Comma-separated key names applied before rendering")->group("");
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
