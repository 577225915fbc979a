#!/usr/bin/env python3
"""Bar chart of cbct-bench's stage times.

  cbct-bench --problem S --runs 5 | python3 scripts/plot-bench.py -o bench.png
  python3 scripts/plot-bench.py bench-h100.jsonl bench-cpu.jsonl -o bench.png [--title TEXT] [--log]

Reads cbct-bench's JSON lines (from files or stdin; other lines are skipped) and draws, for each
problem and hardware, the stage times upload, weighting, filtering, backprojection, download and the
total: the "median" line when there is one, else the median of the timed runs. Needs matplotlib
(Debian: apt-get install python3-matplotlib); without it, says so and exits with 3.
"""
import argparse
import json
import statistics
import sys

STAGES = ["upload_s", "weighting_s", "filtering_s", "backprojection_s", "download_s", "total_s"]


def read_runs(paths):
    runs = []
    streams = [open(p) for p in paths] if paths else [sys.stdin]
    for stream in streams:
        for line in stream:
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if "problem" in record and "total_s" in record:
                runs.append(record)
    return runs


def summarize(runs):
    """(problem, hardware, device) -> {stage: seconds}: the median line, else the median of the runs."""
    groups = {}
    for r in runs:
        hardware = r.get("hardware", "?") + ("" if r.get("input", "float") == "float" else ", " + r["input"])
        groups.setdefault((r["problem"], hardware, r.get("device", "")), []).append(r)
    summary = {}
    for key, records in sorted(groups.items()):
        medians = [r for r in records if r.get("run") == "median"]
        if medians:
            summary[key] = {s: float(medians[-1].get(s, 0.)) for s in STAGES}
        else:
            summary[key] = {s: statistics.median(float(r.get(s, 0.)) for r in records) for s in STAGES}
    return summary


def main():
    parser = argparse.ArgumentParser(description="Bar chart of cbct-bench's stage times (PNG).")
    parser.add_argument("files", nargs="*", help="files of cbct-bench JSON lines (default: stdin)")
    parser.add_argument("-o", "--output", required=True, help="output PNG")
    parser.add_argument("--title", default="cbct-bench: FDK stage times", help="chart title")
    parser.add_argument("--log", action="store_true", help="logarithmic time axis (CPU and GPU together)")
    args = parser.parse_args()

    summary = summarize(read_runs(args.files))
    if not summary:
        sys.stderr.write("plot-bench.py: error: no cbct-bench JSON line (with \"problem\" and \"total_s\") in the input\n")
        return 1
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.stderr.write("plot-bench.py: error: matplotlib is not installed, no chart written "
                         "(Debian: apt-get install python3-matplotlib; pip install matplotlib)\n")
        return 3

    keys = list(summary)
    width = 0.8 / len(keys)
    figure, axes = plt.subplots(figsize=(9, 4.8), dpi=100)
    for i, key in enumerate(keys):
        problem, hardware, device = key
        values = [summary[key][s] * 1000. for s in STAGES]
        positions = [x + (i - (len(keys) - 1) / 2.) * width for x in range(len(STAGES))]
        label = "%s, %s%s" % (problem, hardware, " (%s)" % device if device else "")
        bars = axes.bar(positions, values, width, label=label)
        for bar, value in zip(bars, values):
            axes.annotate("%.3g" % value, (bar.get_x() + bar.get_width() / 2., bar.get_height()),
                          ha="center", va="bottom", fontsize=7)
    axes.set_xticks(range(len(STAGES)))
    axes.set_xticklabels([s[:-2] for s in STAGES])
    axes.set_ylabel("time (ms)")
    if args.log:
        axes.set_yscale("log")
    axes.set_title(args.title)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(args.output)
    print("wrote %s: %s" % (args.output, ", ".join("%s %s %.1f ms" % (k[0], k[1], summary[k]["total_s"] * 1000.)
                                                  for k in keys)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
