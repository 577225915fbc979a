#ifndef cbctCalibrationReport_h
#define cbctCalibrationReport_h

// cbct-calibrate --report DIR: what the calibration fitted and how sure it is (DIR/calibration.txt:
// the parameters, their uncertainties, warnings and the log), every score curve as numbers
// (DIR/scores.csv) and drawn (DIR/scores.png: one panel per curve, the fitted value marked), on the
// RGB canvas and bitmap font of cbct-compare's report (no plotting library). The directory appears
// only complete (ReportDirectory).
#include "cbctCompareReport.h"
#include "cbctGeometryCalibrationResult.h"

#include <algorithm>
#include <fstream>
#include <limits>

namespace cbct::apps
{

/** One panel: the curve's score against its parameter, the fitted value as a red vertical line. */
inline void
DrawScoreCurve(Canvas & canvas, int left, int top, int width, int height, const cbct::CalibrationScoreCurve & curve)
{
  const Rgb black{ 0, 0, 0 }, grey{ 110, 110, 110 }, blue{ 31, 119, 180 }, red{ 214, 39, 40 };
  const std::string title = curve.parameter + " (" + curve.method + "): " + curve.score +
                            (curve.higherIsBetter ? ", higher is better" : ", lower is better");
  canvas.Text(left, top, title, black);
  const int plotLeft = left + 70, plotRight = left + width - 10;
  const int plotTop = top + BitmapFontHeight + 8, plotBottom = top + height - 2 * BitmapFontHeight - 6;
  canvas.Rectangle(plotLeft, plotTop, plotRight, plotBottom, grey);
  if (curve.values.size() < 2)
    return;
  double low = std::numeric_limits<double>::infinity(), high = -low;
  for (double s : curve.scores)
    if (std::isfinite(s))
    {
      low = std::min(low, s);
      high = std::max(high, s);
    }
  if (!(high > low))
    high = low + 1.;
  const double x0 = curve.values.front(), x1 = curve.values.back();
  auto px = [&](double x) { return plotLeft + static_cast<int>(std::lround((x - x0) / (x1 - x0) * (plotRight - plotLeft))); };
  auto py = [&](double s) {
    return plotBottom - static_cast<int>(std::lround((s - low) / (high - low) * (plotBottom - plotTop - 4))) - 2;
  };
  canvas.Text(left, plotTop, Number(high), grey);
  canvas.Text(left, plotBottom - BitmapFontHeight, Number(low), grey);
  const std::string unit = " " + curve.unit;
  canvas.Text(plotLeft, plotBottom + 3, Number(x0) + unit, grey);
  const std::string last = Number(x1) + unit;
  canvas.Text(plotRight - Canvas::TextWidth(last), plotBottom + 3, last, grey);
  const std::string fitted = "fitted " + Number(curve.fitted) + unit;
  const int fx = px(curve.fitted);
  canvas.Line(fx, plotTop + 1, fx, plotBottom - 1, red);
  canvas.Text(std::clamp(fx - Canvas::TextWidth(fitted) / 2, plotLeft, plotRight - Canvas::TextWidth(fitted)),
              plotBottom + 3 + BitmapFontHeight, fitted, red);
  for (std::size_t i = 0; i < curve.values.size(); ++i)
  {
    if (!std::isfinite(curve.scores[i]))
      continue;
    const int x = px(curve.values[i]), y = py(curve.scores[i]);
    if (i > 0 && std::isfinite(curve.scores[i - 1]))
      canvas.Line(px(curve.values[i - 1]), py(curve.scores[i - 1]), x, y, blue);
    for (int d = -1; d <= 1; ++d)
    {
      canvas.Put(x + d, y, blue);
      canvas.Put(x, y + d, blue);
    }
  }
}

/** The report into `directory` (checked by CheckReportDirectory() before the work): calibration.txt,
 * scores.csv and scores.png. `summary` heads calibration.txt (what was read and written). */
inline void
WriteCalibrationReport(const std::string & directory, const cbct::GeometryCalibrationResult & result,
                       const std::vector<std::string> & summary)
{
  ReportDirectory report(directory);
  {
    std::ofstream text(report.Path("calibration.txt"));
    for (const std::string & line : summary)
      text << line << "\n";
    text << "method: " << result.method << "\n";
    for (const std::string & line : result.Describe())
      text << line << "\n";
    for (const std::string & warning : result.warnings)
      text << "warning: " << warning << "\n";
    text << "log:\n";
    for (const std::string & line : result.log)
      text << "  " << line << "\n";
    if (!text)
      throw Error("--report " + directory + ": could not write calibration.txt");
  }
  {
    std::ofstream csv(report.Path("scores.csv"));
    csv << "parameter,method,unit,value,score,fitted,score_kind\n";
    csv << std::setprecision(10);
    for (const auto & curve : result.curves)
      for (std::size_t i = 0; i < curve.values.size(); ++i)
        csv << curve.parameter << "," << curve.method << "," << curve.unit << "," << curve.values[i] << ","
            << curve.scores[i] << "," << curve.fitted << ",\"" << curve.score << "\"\n";
    if (!csv)
      throw Error("--report " + directory + ": could not write scores.csv");
  }
  const int width = 760, panel = 230, margin = 10;
  const int panels = std::max<int>(1, static_cast<int>(result.curves.size()));
  Canvas canvas(width, margin + panels * panel, { 255, 255, 255 });
  if (result.curves.empty())
    canvas.Text(margin, margin, "no score curves were computed", { 0, 0, 0 });
  for (std::size_t i = 0; i < result.curves.size(); ++i)
    DrawScoreCurve(canvas, margin, margin + static_cast<int>(i) * panel, width - 2 * margin, panel - 10, result.curves[i]);
  try
  {
    canvas.WritePng(report.Path("scores.png"));
  }
  catch (const itk::ExceptionObject & e)
  {
    throw Error("--report " + directory + ": could not write scores.png (" + OneLine(WithoutItkPrefix(e.GetDescription())) +
                ")");
  }
  report.Commit();
}

} // namespace cbct::apps

#endif
