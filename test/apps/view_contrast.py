#!/usr/bin/env python3
"""The viewers' default window shows soft tissue: the ventricles of an FDK reconstruction of the
Shepp-Logan head stand out from the brain around them in the pictures' pixels.

  view_contrast.py BINDIR WORKDIR [XVFB_RUN]

Simulates the demo's scan small (60 views, 64^3 voxels of 2 mm), reconstructs it with cbct-fdk, and
renders it with default settings: cbct-view --screenshot (under XVFB_RUN when there is no DISPLAY;
left out when neither is there or cbct-view is not built) and cbct-slices. In the axial slice through
the ventricles (y = -15 mm) the pixels are mapped back to mm (from where the slice lies in the picture)
and classified with the phantom's own ellipsoids: ventricle (1.00) and brain (1.02), each at least
3 mm from any edge. Asserts that the viewer's window is at most 0.5 wide and that the ventricles'
mean grey is below the brain's by at least 15 grey levels and 3 standard deviations of the brain's
pixels. The same measure on the full-range window (key b: the 1st to 99.9th percentile, the old
default) must fail, so that the test can tell the two apart. Also: the labels are drawn (yellow
pixels), keys b,a,plus give 0.8 times the default window, and without DISPLAY cbct-view either
renders (a VTK with EGL or OSMesa) or says in one line that it needs xvfb-run.
"""
import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from view_check import read_png  # noqa: E402

failures = []
SCALE = 60.  # mm, as the demo
# Kak & Slaney's head in ConeBeamCT's axes (src/cbctGeometricPhantom.cxx): density, centre, semi-axes, angle about y.
ROWS = [(2.00, 0., 0., 0., 0.69, 0.90, 0.92, 0.), (-0.98, 0., 0., 0., 0.6624, 0.880, 0.874, 0.),
        (-0.02, -0.22, -0.25, 0., 0.41, 0.21, 0.16, 108.), (-0.02, 0.22, -0.25, 0., 0.31, 0.22, 0.11, 72.),
        (0.02, 0., -0.25, 0.35, 0.21, 0.50, 0.25, 0.), (0.02, 0., -0.25, 0.10, 0.046, 0.046, 0.046, 0.),
        (0.01, -0.08, -0.25, -0.65, 0.046, 0.020, 0.023, 0.), (0.01, 0.06, -0.25, -0.65, 0.046, 0.020, 0.023, 90.),
        (0.02, 0.06, 0.625, -0.105, 0.056, 0.10, 0.040, 90.), (-0.02, 0., 0.625, 0.10, 0.056, 0.10, 0.056, 0.)]
SLICE_Y = -15.  # mm: through the ventricles (index 24 of 64 voxels of 2 mm from -63 mm)


def density(x, y, z):
    total = 0.
    for d, cx, cy, cz, ax, ay, az, angle in ROWS:
        px, py, pz = x - cx * SCALE, y - cy * SCALE, z - cz * SCALE
        c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        qx, qz = c * px + s * pz, -s * px + c * pz
        if (qx / (ax * SCALE)) ** 2 + (py / (ay * SCALE)) ** 2 + (qz / (az * SCALE)) ** 2 <= 1.:
            total += d
    return total


def region(x, z, margin=3.):
    """'ventricle', 'brain' or None (elsewhere, or within `margin` mm of an edge)."""
    values = {round(density(x + dx, SLICE_Y, z + dz), 4)
              for dx, dz in ((0, 0), (margin, 0), (-margin, 0), (0, margin), (0, -margin))}
    if values == {1.0}:
        return "ventricle"
    if values == {1.02}:
        return "brain"
    return None


def grey(p):
    return p if isinstance(p, int) else (p[0] + p[1] + p[2]) / 3.


def image_box(rows, x0, x1, y0, y1):
    """Where the slice lies in rows[y0:y1][x0:x1]: the rows whose longest run of grey pixels (r == g == b)
    is at least 80 % of the longest, and the run's median start and end."""
    runs = []
    for y in range(y0, y1):
        best, start = (0, 0, 0), None
        for x in range(x0, x1 + 1):
            p = rows[y][x] if x < x1 else None
            is_grey = p is not None and (isinstance(p, int) or p[0] == p[1] == p[2])
            if is_grey and start is None:
                start = x
            elif not is_grey and start is not None:
                if x - start > best[0]:
                    best = (x - start, start, x)
                start = None
        runs.append((y,) + best)
    longest = max(r[1] for r in runs)
    image = [r for r in runs if r[1] >= 0.8 * longest]
    starts = sorted(r[2] for r in image)
    ends = sorted(r[3] for r in image)
    return starts[len(starts) // 2], ends[len(ends) // 2], image[0][0], image[-1][0] + 1


def contrast(what, rows, box, extent, must_show):
    """Ventricle versus brain in the axial slice drawn in box = (left, right, top, bottom) pixels,
    `extent` = (x_min, x_max, z_min, z_max) mm."""
    left, right, top, bottom = box
    xmin, xmax, zmin, zmax = extent
    samples = {"ventricle": [], "brain": []}
    for py in range(top, bottom):
        z = zmax - (py + 0.5 - top) / (bottom - top) * (zmax - zmin)
        for px in range(left, right):
            x = xmin + (px + 0.5 - left) / (right - left) * (xmax - xmin)
            kind = region(x, z)
            if kind:
                samples[kind].append(grey(rows[py][px]))
    if len(samples["ventricle"]) < 20 or len(samples["brain"]) < 100:
        failures.append("%s: only %d ventricle and %d brain pixels found in the slice (box %s)" %
                        (what, len(samples["ventricle"]), len(samples["brain"]), box))
        return
    mean = {k: sum(v) / len(v) for k, v in samples.items()}
    sd = math.sqrt(sum((g - mean["brain"]) ** 2 for g in samples["brain"]) / len(samples["brain"]))
    difference = mean["brain"] - mean["ventricle"]
    shown = difference >= 15. and difference >= 3. * sd
    print("%s: ventricle %.1f (%d pixels), brain %.1f (%d pixels, sd %.1f): difference %.1f grey levels -> %s" %
          (what, mean["ventricle"], len(samples["ventricle"]), mean["brain"], len(samples["brain"]), sd, difference,
           "visible" if shown else "not visible"))
    if shown != must_show:
        failures.append("%s: the ventricles are %s, expected %s" % (what, "visible" if shown else "not visible",
                                                                    "visible" if must_show else "not visible"))


def run(command):
    print(" ".join(command))
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    print(result.stdout.strip())
    if result.returncode != 0:
        failures.append("%s exited with %d" % (os.path.basename(command[0]), result.returncode))
    return result


def view(bindir, xvfb, png, extra):
    width, height = 800, 640
    command = [os.path.join(bindir, "cbct-view"), "-i", "fdk.mha", "--screenshot", png, "--size",
               "%d,%d" % (width, height), "--slice", "32,24,32", "--no-volume-rendering"] + extra
    if xvfb:
        command = [xvfb, "-a", "-s", "-screen 0 1280x1024x24"] + command
    result = run(command)
    if result.returncode != 0:
        return None, None
    match = re.search(r"window ([-+0-9.eE]+), level", result.stdout)
    _, _, rows = read_png(png)
    # The axial view is the top left quarter.
    return float(match.group(1)) if match else None, (rows, image_box(rows, 0, width // 2, 0, height // 2))


def main(argv):
    if len(argv) not in (3, 4):
        sys.stderr.write(__doc__)
        return 2
    bindir, work = os.path.abspath(argv[1]), argv[2]
    xvfb = argv[3] if len(argv) == 4 and argv[3] and os.path.isfile(argv[3]) else None
    if os.environ.get("DISPLAY"):
        xvfb = None  # a display is there: render on it
    os.makedirs(work, exist_ok=True)
    os.chdir(work)
    run([os.path.join(bindir, "cbct-simulate"), "--nproj", "60", "--sid", "1000", "--sdd", "1500", "--detector-size",
         "80", "--detector-spacing", "3", "--phantom", "shepplogan", "--phantom-scale", "60", "-g", "geometry.xml", "-o",
         "projections.mha"])
    run([os.path.join(bindir, "cbct-fdk"), "-g", "geometry.xml", "--projections", "projections.mha", "--dimension",
         "64", "--spacing", "2", "-o", "fdk.mha"])
    if failures:
        return report()
    extent = (-64., 64., -64., 64.)

    # cbct-slices: its axial tile (x-z, at --point's y) is the first, drawn with --zoom 4.
    result = run([os.path.join(bindir, "cbct-slices"), "-i", "fdk.mha", "-o", "slices.png", "--point",
                  "0,%g,0" % SLICE_Y, "--zoom", "4"])
    if os.path.isfile("slices.png"):
        width, height, rows = read_png("slices.png")
        box = image_box(rows, 0, width // 3, 0, height)  # three tiles of equal width, then the value bar
        contrast("cbct-slices, default window", rows, box, extent, True)
        if "no labels" not in result.stdout:
            labels("cbct-slices", rows)

    viewer = os.path.join(bindir, "cbct-view")
    if not os.path.isfile(viewer):
        print("cbct-view is not built: only cbct-slices checked")
    elif not xvfb and not os.environ.get("DISPLAY"):
        print("no xvfb-run and no DISPLAY: cbct-view not checked (apt-get install xvfb)")
    else:
        window, picture = view(bindir, xvfb, "view.png", [])
        if picture:
            if window is None or not window <= 0.5:
                failures.append("cbct-view's default window is %s wide, expected at most 0.5" % window)
            contrast("cbct-view, default window %s" % window, picture[0], picture[1], extent, True)
            labels("cbct-view", picture[0])
        default = window
        window, picture = view(bindir, xvfb, "view-full.png", ["--keys", "b"])
        if picture:
            contrast("cbct-view, full-range window %s (the old default)" % window, picture[0], picture[1], extent, False)
        # Keys: + narrows the window to 0.8 of its width, a brings back the soft-tissue window.
        window, _ = view(bindir, xvfb, "view-keys.png", ["--keys", "b,a,plus"])
        if not (default and window and abs(window - 0.8 * default) <= 1e-3 * default):
            failures.append("keys b,a,plus: window %s, expected 0.8 x %s" % (window, default))
        else:
            print("keys b,a,plus: window %s = 0.8 x %s" % (window, default))
        # Without a display: a picture (a VTK with EGL or OSMesa) or one line saying how (xvfb-run).
        environment = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
        result = subprocess.run([viewer, "-i", "fdk.mha", "--screenshot", "no-display.png"], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, universal_newlines=True, env=environment)
        print("without DISPLAY: " + result.stdout.strip())
        if result.returncode == 0 and not os.path.isfile("no-display.png"):
            failures.append("without DISPLAY: exit 0 and no picture")
        elif result.returncode != 0 and not ("DISPLAY is not set" in result.stdout and "xvfb-run" in result.stdout):
            failures.append("without DISPLAY: exit %d without the message naming DISPLAY and xvfb-run" % result.returncode)
    return report()


def labels(what, rows):
    """The labels, letters and bars are drawn in yellow (255, 217, 51): some hundreds of such pixels."""
    yellow = sum(1 for row in rows for p in row if not isinstance(p, int) and p[0] > 200 and p[1] > 150 and p[2] < 120)
    if yellow < 300:
        failures.append("%s: %d yellow pixels, expected the labels, letters and scale bars" % (what, yellow))
    else:
        print("%s: %d yellow pixels (labels, letters, scale bars)" % (what, yellow))


def report():
    for message in failures:
        print("FAIL: " + message)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
