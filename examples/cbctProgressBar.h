#ifndef cbctProgressBar_h
#define cbctProgressBar_h

// A progress bar on stderr for the command-line apps: an itk::Command observing a filter's
// ProgressEvent. It draws only when stderr is a terminal, so logs and pipes stay clean. When 3D Slicer
// runs the app (see cbctSlicer.h) it reports instead in Slicer's form on stdout:
// <filter-start>, <filter-progress>FRACTION</filter-progress> lines and <filter-end>.

#include <itkCommand.h>
#include <itkProcessObject.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <unistd.h>

namespace cbct::apps
{

/** How progress is shown: not at all, as a bar on a terminal, or as Slicer's XML lines. */
enum class ProgressStyle
{
  Automatic, // a bar when stderr is a terminal, else nothing
  Slicer
};

inline ProgressStyle &
CurrentProgressStyle()
{
  static ProgressStyle style = ProgressStyle::Automatic;
  return style;
}

/** Whether a progress line is drawn and not yet ended by a newline (an error message then starts
 * on a line of its own). */
inline bool &
ProgressLineOpen()
{
  static bool open = false;
  return open;
}

/** Ends an unfinished progress line, so that what is printed next starts on a fresh line. */
inline void
EndProgressLine()
{
  if (ProgressLineOpen())
  {
    std::fputc('\n', stderr);
    std::fflush(stderr);
    ProgressLineOpen() = false;
  }
}

/** \class ProgressBar
 * \brief Shows a filter's progress as "label [#######.......]  47%  stage", redrawn with '\r'.
 *
 * \code
 * auto bar = cbct::apps::ProgressBar::Attach(fdk, "cbct-fdk", slabs);  // nullptr: no terminal
 * if (bar)
 * {
 *   bar->AddStage(fdk->GetRampFilter(), "ramp filtering", 0.2);
 *   bar->AddStage(fdk->GetBackProjectionFilter(), "backprojection", 0.8);
 * }
 * streamer->Update();
 * \endcode
 * A filter that runs several times (once per streamed piece) is followed over all its runs when
 * their number is given; the line ends with a newline after the last one. Sub-filters registered with
 * AddStage() name the stage being run and then make the progress (see AddStage()).
 */
class ProgressBar : public itk::Command
{
public:
  using Self = ProgressBar;
  using Superclass = itk::Command;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);

  /** Whether progress is shown at all: in Slicer's form, or as a bar when stderr is a terminal. */
  static bool
  Enabled()
  {
    return CurrentProgressStyle() == ProgressStyle::Slicer || isatty(STDERR_FILENO) != 0;
  }

  /** Observes `filter`, which will run `pieces` times; returns nullptr when stderr is no terminal. */
  static Pointer
  Attach(itk::ProcessObject * filter, const std::string & label, unsigned int pieces = 1)
  {
    if (!Enabled() || filter == nullptr)
      return nullptr;
    Pointer bar = Self::New();
    bar->m_Filter = filter;
    bar->m_Label = label;
    bar->m_Pieces = std::max(1u, pieces);
    filter->AddObserver(itk::ProgressEvent(), bar);
    filter->AddObserver(itk::EndEvent(), bar);
    return bar;
  }

  /** Names the stage shown while `stage` (a sub-filter of the observed one) runs. Once stages are
   * registered, the bar follows them instead of the observed filter: the run's progress is the
   * weighted sum of the progress of the stages started in this run. */
  void
  AddStage(itk::ProcessObject * stage, const std::string & name, double weight = 1.)
  {
    if (stage == nullptr)
      return;
    m_Stages.push_back({ stage, name, weight, false, false });
    stage->AddObserver(itk::StartEvent(), this);
    stage->AddObserver(itk::ProgressEvent(), this);
  }

  /** A text shown after the stage, asked for at each redraw (e.g. the bytes written so far). */
  void
  SetDetail(std::function<std::string()> detail)
  {
    m_Detail = std::move(detail);
  }

  void
  Execute(itk::Object * caller, const itk::EventObject & event) override
  {
    this->Execute(static_cast<const itk::Object *>(caller), event);
  }

  void
  Execute(const itk::Object * caller, const itk::EventObject & event) override
  {
    if (caller == m_Filter)
    {
      if (itk::ProgressEvent().CheckEvent(&event) && m_Stages.empty())
        this->Draw(m_Filter->GetProgress(), false);
      else if (itk::EndEvent().CheckEvent(&event))
        this->EndPiece();
      return;
    }
    for (Stage & stage : m_Stages)
    {
      if (stage.filter != caller)
        continue;
      const bool start = itk::StartEvent().CheckEvent(&event);
      if (start)
      {
        stage.started = true;
        stage.reported = false; // its progress is still the last run's until it reports
        m_Stage = stage.name;
      }
      else
        stage.reported = true;
      this->Draw(this->StageFraction(), start);
      return;
    }
  }

protected:
  ProgressBar() = default;
  ~ProgressBar() override = default;

private:
  struct Stage
  {
    const itk::ProcessObject * filter;
    std::string name;
    double weight;
    bool started;  // in this run of the observed filter
    bool reported; // a ProgressEvent since it started
  };

  double
  StageFraction() const
  {
    double done = 0., all = 0.;
    for (const Stage & stage : m_Stages)
    {
      all += stage.weight;
      if (stage.started && stage.reported)
        done += stage.weight * stage.filter->GetProgress();
    }
    return all > 0. ? done / all : 0.;
  }

  void
  EndPiece()
  {
    ++m_PiecesDone;
    m_Fraction = 0.;
    for (Stage & stage : m_Stages)
      stage.started = false;
    if (m_PiecesDone >= m_Pieces)
    {
      m_Stage.clear();
      this->Draw(1., true);
      EndProgressLine();
      m_PiecesDone = 0;
    }
  }

  /** Draws the bar for the observed filter's progress `fraction` within its current run. */
  void
  Draw(double fraction, bool force)
  {
    m_Fraction = std::max(m_Fraction, std::clamp(fraction, 0., 1.)); // never backwards within a run
    const double overall = std::min(1., (m_PiecesDone + m_Fraction) / m_Pieces);
    const int permille = static_cast<int>(overall * 1000.);
    if (!force && permille == m_LastPermille)
      return;
    m_LastPermille = permille;
    if (CurrentProgressStyle() == ProgressStyle::Slicer)
    {
      this->ReportToSlicer(overall, m_PiecesDone >= m_Pieces); // EndPiece() after the last piece
      return;
    }
    constexpr int width = 30;
    const int filled = static_cast<int>(overall * width);
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.append(static_cast<std::size_t>(width - filled), '.');
    std::string stage = m_Stage;
    if (m_Pieces > 1 && m_PiecesDone < m_Pieces)
      stage = "slab " + std::to_string(m_PiecesDone + 1) + "/" + std::to_string(m_Pieces) + (stage.empty() ? "" : ": ") + stage;
    if (m_Detail)
    {
      const std::string detail = m_Detail();
      if (!detail.empty())
        stage += (stage.empty() ? "" : ", ") + detail;
    }
    // \033[K clears what a longer previous line left at its end.
    std::fprintf(stderr, "\r%s [%s] %5.1f%%  %s\033[K", m_Label.c_str(), bar.c_str(), 100. * overall, stage.c_str());
    std::fflush(stderr);
    ProgressLineOpen() = true;
  }

  /** Slicer's lines on stdout: <filter-start> once, <filter-progress> at each whole percent,
   * <filter-end> when all pieces are done. */
  void
  ReportToSlicer(double overall, bool end)
  {
    if (!m_SlicerStarted)
    {
      m_SlicerStarted = true;
      m_SlicerStart = std::chrono::steady_clock::now();
      std::printf("<filter-start>\n<filter-name>%s</filter-name>\n<filter-comment> \"%s\" </filter-comment>\n</filter-start>\n",
                  m_Label.c_str(), m_Label.c_str());
    }
    const int percent = static_cast<int>(overall * 100.);
    if (percent != m_LastPercent)
    {
      m_LastPercent = percent;
      std::printf("<filter-progress>%.2f</filter-progress>\n", percent / 100.);
    }
    if (end)
    {
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_SlicerStart).count();
      std::printf("<filter-end>\n<filter-name>%s</filter-name>\n<filter-time>%.3f</filter-time>\n</filter-end>\n",
                  m_Label.c_str(), seconds);
      m_SlicerStarted = false;
      m_LastPercent = -1;
    }
    std::fflush(stdout);
  }

  bool m_SlicerStarted = false;
  int m_LastPercent = -1;
  std::chrono::steady_clock::time_point m_SlicerStart;
  const itk::ProcessObject * m_Filter = nullptr;
  std::string m_Label;
  std::string m_Stage;
  std::function<std::string()> m_Detail;
  std::vector<Stage> m_Stages;
  unsigned int m_Pieces = 1;
  unsigned int m_PiecesDone = 0;
  double m_Fraction = 0.;
  int m_LastPermille = -1;
};

} // namespace cbct::apps

#endif
