#!/usr/bin/env python3
"""cbct-view --screenshot of a known volume: a ramp along x (value = x index) of 64 x 48 x 32 voxels.

  view_check.py CBCT_VIEW WORKDIR [XVFB_RUN]

Checks that the PNG has the requested size and that, after window/level (window 63, level 31.5 map
x = 0..63 to grey 0..255), the row through the middle of the axial (top left) and coronal (top right)
views rises from black to white from left to right, that the sagittal view (bottom left) shows the
constant grey of the requested --slice x, that the volume rendering (bottom right) is not blank,
and that --stack shows one slice of the stack as a ramp. A blank, misplaced or mirrored picture fails.
"""
import os
import struct
import subprocess
import sys
import zlib

NX, NY, NZ = 64, 48, 32
WIDTH, HEIGHT = 640, 480
BACKGROUND = (26, 26, 51)  # 0.1, 0.1, 0.2 of 255, the slice views' background

failures = []


def fail(message):
    failures.append(message)


def write_ramp(path):
    header = ("ObjectType = Image\nNDims = 3\nBinaryData = True\nBinaryDataByteOrderMSB = False\n"
              "DimSize = %d %d %d\nElementSpacing = 1 1 1\nOffset = 0 0 0\nElementType = MET_FLOAT\n"
              "ElementDataFile = LOCAL\n" % (NX, NY, NZ))
    row = struct.pack("<%df" % NX, *[float(x) for x in range(NX)])
    with open(path, "wb") as f:
        f.write(header.encode("ascii"))
        f.write(row * (NY * NZ))


def read_png(path):
    """8-bit RGB or RGBA PNG, not interlaced -> (width, height, rows of (r, g, b))."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            if depth != 8 or colour not in (2, 6) or interlace != 0:
                raise ValueError("PNG is not 8-bit RGB(A): depth %d, colour type %d" % (depth, colour))
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        previous = line
    return width, height, rows


def grey_run(row, x0, x1):
    """The grey values (r == g == b) of the longest contiguous run of grey pixels in row[x0:x1]: the
    slice (the value bar beside it is a shorter run; labels and letters are yellow)."""
    best, run = [], []
    for x in range(x0, x1):
        if row[x][0] == row[x][1] == row[x][2]:
            run.append(row[x][0])
            if len(run) > len(best):
                best = list(run)
        else:
            run = []
    return best


def check_ramp(what, values, viewport_width):
    if len(values) < viewport_width // 2:
        fail("%s: %d grey pixels across, expected at least half the view (%d)" % (what, len(values), viewport_width // 2))
        return
    if any(b < a for a, b in zip(values, values[1:])):
        fail("%s: grey values do not rise from left to right: %s" % (what, values[::8]))
    if values[0] > 10 or values[-1] < 245:
        fail("%s: grey values run from %d to %d, expected about 0 to 255" % (what, values[0], values[-1]))
    print("%s: %d pixels, grey %d .. %d, rising" % (what, len(values), values[0], values[-1]))


def screenshot(app, xvfb, png, extra):
    command = [app, "-i", "ramp.mha", "--screenshot", png, "--size", "%d,%d" % (WIDTH, HEIGHT),
               "--window", "63", "--level", "31.5"] + extra
    if xvfb:
        command = [xvfb, "-a", "-s", "-screen 0 1280x1024x24"] + command
    print(" ".join(command))
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    print(result.stdout.strip())
    if result.returncode != 0:
        fail("cbct-view exited with %d" % result.returncode)
        return None
    if not os.path.isfile(png):
        fail("%s was not written" % png)
        return None
    width, height, rows = read_png(png)
    if (width, height) != (WIDTH, HEIGHT):
        fail("%s is %d x %d, not %d x %d" % (png, width, height, WIDTH, HEIGHT))
        return None
    return rows


def main(argv):
    if len(argv) not in (3, 4):
        sys.stderr.write(__doc__)
        return 2
    app, work = os.path.abspath(argv[1]), argv[2]
    xvfb = argv[3] if len(argv) == 4 and not os.environ.get("DISPLAY") else None
    if xvfb and not os.path.isfile(xvfb):
        xvfb = None
    os.makedirs(work, exist_ok=True)
    os.chdir(work)
    for name in ("views.png", "stack.png"):
        if os.path.exists(name):
            os.remove(name)
    write_ramp("ramp.mha")

    slice_x = 16
    rows = screenshot(app, xvfb, "views.png", ["--slice", "%d,24,10" % slice_x])
    if rows is not None:
        half_w, half_h = WIDTH // 2, HEIGHT // 2
        check_ramp("axial view (top left)", grey_run(rows[half_h // 2], 0, half_w), half_w)
        check_ramp("coronal view (top right)", grey_run(rows[half_h // 2], half_w, WIDTH), half_w)
        sagittal = grey_run(rows[half_h + half_h // 2], 0, half_w)
        expected = round(255. * slice_x / 63.)
        if len(sagittal) < half_w // 4 or any(abs(v - expected) > 3 for v in sagittal):
            fail("sagittal view (bottom left): %d grey pixels of %s, expected about %d everywhere (x = %d)" %
                 (len(sagittal), sorted(set(sagittal))[:10], expected, slice_x))
        else:
            print("sagittal view (bottom left): %d pixels of grey %d (x = %d)" % (len(sagittal), sagittal[0], slice_x))
        rendered = [p for row in rows[half_h:] for p in row[half_w:] if max(p) > 40]
        if len(rendered) < half_w * half_h // 20:
            fail("volume rendering (bottom right): only %d bright pixels" % len(rendered))
        else:
            print("volume rendering (bottom right): %d bright pixels" % len(rendered))

    rows = screenshot(app, xvfb, "stack.png", ["--stack", "--slice", "5", "--no-volume-rendering"])
    if rows is not None:
        check_ramp("--stack view", grey_run(rows[HEIGHT // 2], 0, WIDTH), WIDTH)

    for message in failures:
        print("FAIL: " + message)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
