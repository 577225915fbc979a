#!/usr/bin/env python3
"""Line profile of a reconstruction against the phantom, from cbct-compare --profile's CSV.

  cbct-compare -i fdk.mha --profile profile.csv --profile-y -15
  python3 scripts/plot-profile.py profile.csv -o profile.png [--title TEXT]

Needs matplotlib (Debian: apt-get install python3-matplotlib); without it, says so and exits with 3.
"""
import argparse
import csv
import sys


def main():
    parser = argparse.ArgumentParser(description="Line profile PNG: reconstruction vs truth.")
    parser.add_argument("csv", help="cbct-compare --profile output")
    parser.add_argument("-o", "--output", required=True, help="output PNG")
    parser.add_argument("--title", help="chart title (default: the CSV's comment line)")
    args = parser.parse_args()

    title, x, reconstruction, truth = None, [], [], []
    with open(args.csv) as f:
        for line in f:
            if line.startswith("#"):
                title = title or line[1:].strip()
                continue
            row = next(csv.reader([line]))
            try:
                values = [float(v) for v in row]
            except ValueError:
                continue  # the header
            x.append(values[0])
            reconstruction.append(values[1])
            truth.append(values[2])
    if not x:
        sys.stderr.write("plot-profile.py: error: no x_mm,reconstruction,truth line in %s\n" % args.csv)
        return 1
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.stderr.write("plot-profile.py: error: matplotlib is not installed, no profile written "
                         "(Debian: apt-get install python3-matplotlib; pip install matplotlib)\n")
        return 3
    figure, axes = plt.subplots(figsize=(9, 4.5), dpi=100)
    axes.step(x, truth, where="mid", label="phantom (truth)", color="black", linewidth=1)
    axes.plot(x, reconstruction, label="reconstruction", color="tab:red", linewidth=1.2)
    axes.set_xlabel("x (mm)")
    axes.set_ylabel("attenuation")
    axes.set_title(args.title or title or args.csv, fontsize=10)
    axes.legend()
    axes.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(args.output)
    print("wrote %s (%d points)" % (args.output, len(x)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
