#!/usr/bin/env python3
"""The Python steps of scripts/demo-4d.sh (numpy and PIL only: ITK's Python is not needed).

  phases SIMULATED FOUND         how far the phases cbct-signal found are from the simulation's: their
                                 mean cyclic offset and the largest cyclic error once it is taken out
  mae VOLUME[:FRAME] --phase P --box ...
                                 its mean absolute error against the phantom at phase P within a box
  centroid VOLUME[:FRAME] --threshold T --box ...
                                 the y of the voxels above T within a box (where the nodule is)
  voxelize LIKE.mha OUT.mha --phase P ...
                                 the phantom at phase P on LIKE's grid
  split FOURD.mha PREFIX         each frame of a 4D MetaImage as a 3D one, PREFIX00.mha, PREFIX01.mha, ...
  picture OUT.png --phantom TXT ...
                                 coronal (x-y) slices side by side, labelled (see --help of the command)

The MetaImage reader is the small part of the format the apps write: one header, LOCAL data, raw or
zlib-compressed, an axis-aligned grid.
"""
import argparse
import os
import sys
import zlib

import numpy

TYPES = {"MET_FLOAT": "<f4", "MET_DOUBLE": "<f8", "MET_SHORT": "<i2", "MET_USHORT": "<u2",
         "MET_UCHAR": "u1", "MET_CHAR": "i1", "MET_INT": "<i4", "MET_UINT": "<u4"}


def read_mha(path):
    """Header (a dict of strings) and the voxels, indexed [frame,] z, y, x."""
    with open(path, "rb") as f:
        data = f.read()
    header, offset = {}, 0
    while True:
        end = data.index(b"\n", offset)
        key, _, value = data[offset:end].decode("ascii").partition("=")
        header[key.strip()] = value.strip()
        offset = end + 1
        if key.strip() == "ElementDataFile":
            break
    if header["ElementDataFile"] != "LOCAL":
        sys.exit(f"{path}: data in another file ({header['ElementDataFile']}) is not read here")
    if header.get("ElementNumberOfChannels", "1") != "1":
        sys.exit(f"{path}: one value per voxel expected")
    shape = [int(v) for v in header["DimSize"].split()]
    dtype = numpy.dtype(TYPES[header["ElementType"]])
    if header.get("BinaryDataByteOrderMSB", "False") == "True":
        dtype = dtype.newbyteorder(">")
    raw = data[offset:]
    if header.get("CompressedData", "False") == "True":
        raw = zlib.decompress(raw)
    count = int(numpy.prod(shape))
    if len(raw) < count * dtype.itemsize:
        sys.exit(f"{path}: {len(raw)} bytes of data where DimSize {shape} needs {count * dtype.itemsize}")
    voxels = numpy.frombuffer(raw[:count * dtype.itemsize], dtype).astype(numpy.float32)
    return header, voxels.reshape(shape[::-1])


def write_mha(path, header, voxels):
    """A 3D float MetaImage with the first three axes of `header`'s grid, written beside and renamed."""
    def first3(key):
        return " ".join(header[key].split()[:3])
    matrix = header.get("TransformMatrix", "1 0 0 0 1 0 0 0 1").split()
    n = int(header["NDims"])
    matrix = [matrix[r * n + c] for r in range(3) for c in range(3)]
    text = (f"ObjectType = Image\nNDims = 3\nBinaryData = True\nBinaryDataByteOrderMSB = False\n"
            f"CompressedData = False\nTransformMatrix = {' '.join(matrix)}\nOffset = {first3('Offset')}\n"
            f"ElementSpacing = {first3('ElementSpacing')}\nDimSize = {first3('DimSize')}\n"
            f"ElementType = MET_FLOAT\nElementDataFile = LOCAL\n")
    with open(path + ".part", "wb") as f:
        f.write(text.encode("ascii"))
        f.write(numpy.ascontiguousarray(voxels, "<f4").tobytes())
    os.replace(path + ".part", path)


def phases(args):
    simulated = numpy.loadtxt(args.simulated, ndmin=1)
    found = numpy.loadtxt(args.found, ndmin=1)
    if simulated.shape != found.shape:
        sys.exit(f"{args.simulated} has {simulated.size} phases, {args.found} {found.size}")
    difference = numpy.angle(numpy.exp(2j * numpy.pi * (found - simulated))) / (2 * numpy.pi)  # in [-0.5, 0.5]
    offset = numpy.angle(numpy.mean(numpy.exp(2j * numpy.pi * difference))) / (2 * numpy.pi)
    error = numpy.abs(numpy.angle(numpy.exp(2j * numpy.pi * (difference - offset)))) / (2 * numpy.pi)
    print(f"phases found vs simulated ({simulated.size} projections): mean offset {offset:+.3f} cycle, "
          f"largest error once it is taken out {error.max():.3f} cycle (mean {error.mean():.3f})")


def split(args):
    header, voxels = read_mha(args.fourd)
    if voxels.ndim != 4:
        sys.exit(f"{args.fourd}: a 4D image expected, DimSize is {header['DimSize']}")
    for f in range(voxels.shape[0]):
        write_mha(f"{args.prefix}{f:02d}.mha", header, voxels[f])


def phantom(path, shift, xs, ys, zs, samples=2):
    """The ellipsoid file's densities over the voxels centred at zs, ys, xs (mm), indexed [z, y, x], each the
    mean of samples^3 points; `shift` maps an ellipsoid's index to its (dx, dy, dz). Axis-aligned ellipsoids
    only (the demo's own file)."""
    sub = (numpy.arange(samples) + 0.5) / samples - 0.5
    def axis(centres, a):  # the sample coordinates along axis a of a 6D [z, y, x, sz, sy, sx] array
        step = centres[1] - centres[0] if centres.size > 1 else 1.0
        values = centres[:, None] + step * sub[None, :]
        shape = [1] * 6
        shape[a], shape[a + 3] = centres.size, samples
        return values.reshape(shape)
    z, y, x = axis(zs, 0), axis(ys, 1), axis(xs, 2)
    density = numpy.zeros((zs.size, ys.size, xs.size) + (samples,) * 3, numpy.float32)
    index = 0
    with open(path) as f:
        for line in f:
            words = line.split("#")[0].split()
            if not words:
                continue
            if words[0] != "ellipsoid" or len(words) != 8:
                sys.exit(f"{path}: only 'ellipsoid DENSITY CX CY CZ AX AY AZ' lines are read here: {line.strip()}")
            d, cx, cy, cz, ax, ay, az = map(float, words[1:])
            dx, dy, dz = shift.get(index, (0, 0, 0))
            density += d * ((((x - cx - dx) / ax) ** 2 + ((y - cy - dy) / ay) ** 2 + ((z - cz - dz) / az) ** 2) <= 1)
            index += 1
    return density.mean(axis=(3, 4, 5))


def moving_shift(args, phase):
    d = args.amplitude * numpy.sin(numpy.pi * phase) ** (2 * args.exponent)
    return {i: (0, d, 0) for i in args.moving}


def grid_axes(header):
    origin = [float(v) for v in header["Offset"].split()[:3]]
    spacing = [float(v) for v in header["ElementSpacing"].split()[:3]]
    size = [int(v) for v in header["DimSize"].split()[:3]]
    return [origin[a] + spacing[a] * numpy.arange(size[a]) for a in range(3)], spacing


def mae(args):
    """The mean absolute error of a frame against the phantom at a phase, within a box (mm)."""
    path, _, frame = args.volume.partition(":")
    header, voxels = read_mha(path)
    if frame:
        voxels = voxels[int(frame)]
    (xs, ys, zs), _ = grid_axes(header)
    box = args.box
    ix = (xs >= box[0]) & (xs <= box[1])
    iy = (ys >= box[2]) & (ys <= box[3])
    iz = (zs >= box[4]) & (zs <= box[5])
    truth = phantom(args.phantom, moving_shift(args, args.phase), xs[ix], ys[iy], zs[iz])
    part = voxels[numpy.ix_(iz, iy, ix)]
    print(f"{numpy.abs(part - truth).mean():.4f}")


def voxelize(args):
    """The phantom at a phase on the grid of another volume (2 x 2 x 2 samples per voxel)."""
    header, _ = read_mha(args.like)
    (xs, ys, zs), _ = grid_axes(header)
    write_mha(args.output, header, phantom(args.phantom, moving_shift(args, args.phase), xs, ys, zs))


def centroid(args):
    """The y (mm) of the centroid of the voxels above a threshold within a box: where a structure is."""
    path, _, frame = args.volume.partition(":")
    header, voxels = read_mha(path)
    if frame:
        voxels = voxels[int(frame)]
    (xs, ys, zs), _ = grid_axes(header)
    box = args.box
    z, y, x = numpy.meshgrid(zs, ys, xs, indexing="ij")
    inside = ((x >= box[0]) & (x <= box[1]) & (y >= box[2]) & (y <= box[3]) & (z >= box[4]) & (z <= box[5]) &
              (voxels > args.threshold))
    print(f"{y[inside].mean():.1f}" if inside.any() else "none")


def font(size):
    from PIL import ImageFont
    for name in ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "DejaVuSans.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            pass
    return ImageFont.load_default()


def picture(args):
    from PIL import Image, ImageDraw
    zoom, gap, title_height = args.zoom, 10, 34
    panels = []  # (column, row, label, slice as [y, x] with y up, spacing)
    grid = None
    for column, row, path, frame, label in (p.split(":", 4) for p in args.panel):
        header, voxels = read_mha(path)
        if frame != "":
            voxels = voxels[int(frame)]
        (xs, ys, zs), spacing = grid_axes(header)
        k = int(numpy.argmin(numpy.abs(zs - args.z)))
        grid = grid or (xs, ys, spacing, voxels.shape, zs[k])
        panels.append((int(column), int(row), label, voxels[k], spacing))
    xs, ys, spacing, shape, z = grid
    for p in args.truth:  # COLUMN:ROW:PHASE:LABEL, the phantom with its moving ellipsoids at PHASE
        column, row, phase, label = p.split(":", 3)
        plane = phantom(args.phantom, moving_shift(args, float(phase)), xs, ys, numpy.array([z]), samples=3)[0]
        panels.append((int(column), int(row), label, plane, spacing))
    columns = max(p[0] for p in panels) + 1
    rows = max(p[1] for p in panels) + 1
    width, height = shape[2] * zoom, shape[1] * zoom
    titles, captions = args.title.split("|") if args.title else [], args.caption.split("|") if args.caption else []
    header_height = 6 + 19 * len(titles)
    canvas = Image.new("RGB", (gap + columns * (width + gap),
                               header_height + rows * (title_height + height + gap) + 8 + 15 * max(1, len(captions))),
                       (24, 24, 40))
    draw = ImageDraw.Draw(canvas)
    big, small = font(15), font(12)
    for i, text in enumerate(titles):
        draw.text((gap, 5 + 19 * i), text, fill=(255, 255, 255), font=big)
    for column, row, label, plane, _ in panels:
        grey = numpy.clip((plane - args.min) / (args.max - args.min), 0, 1)
        tile = Image.fromarray((255 * grey[::-1]).astype(numpy.uint8)).resize((width, height), Image.NEAREST)
        left = gap + column * (width + gap)
        top = header_height + row * (title_height + height + gap)
        for i, text in enumerate(label.split("|")):
            draw.text((left, top + 2 + 15 * i), text, fill=(255, 220, 120) if i == 0 else (210, 210, 210),
                      font=small)
        canvas.paste(tile, (left, top + title_height))
        for y_mm, colour in zip(args.marks, ((90, 200, 255), (255, 110, 110))):  # the ellipsoid's extremes
            py = top + title_height + int(round((ys[-1] - y_mm) / spacing[1] * zoom + zoom / 2))
            for px in range(left, left + width, 6):
                draw.line([(px, py), (px + 2, py)], fill=colour)
    bar = int(round(50 / spacing[0] * zoom))
    base = header_height + rows * (title_height + height + gap) + 2
    draw.line([(gap, base + 8), (gap + bar, base + 8)], fill=(255, 220, 120), width=2)
    draw.text((gap + bar + 6, base), "50 mm", fill=(255, 220, 120), font=small)
    for i, text in enumerate(captions):
        draw.text((gap + bar + 56, base + 15 * i), text, fill=(210, 210, 210), font=small)
    canvas.save(args.output + ".part.png", optimize=True)
    os.replace(args.output + ".part.png", args.output)
    print(f"wrote {args.output} ({canvas.size[0]} x {canvas.size[1]})")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("phases", help="compare two phase files")
    p.add_argument("simulated")
    p.add_argument("found")
    p = commands.add_parser("split", help="each frame of a 4D MetaImage as a 3D one")
    p.add_argument("fourd")
    p.add_argument("prefix")
    moving = argparse.ArgumentParser(add_help=False)
    moving.add_argument("--phantom", help="the ellipsoid file of cbct-simulate --phantom")
    moving.add_argument("--moving", type=lambda s: [int(v) for v in s.split(",")], default=[],
                        help="indices of the breathing ellipsoids")
    moving.add_argument("--amplitude", type=float, default=10, help="their displacement along y at end-inhale (mm)")
    moving.add_argument("--exponent", type=float, default=1, help="n of the waveform sin^2n")
    p = commands.add_parser("mae", parents=[moving], help="MAE of a frame against the phantom at a phase, in a box")
    p.add_argument("volume", help="VOLUME.mha or VOLUME.mha:FRAME of a 4D one")
    p.add_argument("--phase", type=float, required=True)
    p.add_argument("--box", type=lambda s: [float(v) for v in s.split(",")], required=True,
                   help="X0,X1,Y0,Y1,Z0,Z1 (mm): the voxels whose centres are inside")
    p = commands.add_parser("voxelize", parents=[moving], help="the phantom at a phase on another volume's grid")
    p.add_argument("like")
    p.add_argument("output")
    p.add_argument("--phase", type=float, required=True)
    p = commands.add_parser("centroid", help="y of the centroid of the voxels above a threshold, in a box")
    p.add_argument("volume", help="VOLUME.mha or VOLUME.mha:FRAME of a 4D one")
    p.add_argument("--threshold", type=float, required=True)
    p.add_argument("--box", type=lambda s: [float(v) for v in s.split(",")], required=True,
                   help="X0,X1,Y0,Y1,Z0,Z1 (mm): the voxels whose centres are inside")
    p = commands.add_parser("picture", parents=[moving], help="labelled coronal slices side by side")
    p.add_argument("output")
    p.add_argument("--panel", action="append", default=[],
                   help="COLUMN:ROW:VOLUME.mha:FRAME:LABEL (FRAME empty for a 3D volume; '|' starts a line)")
    p.add_argument("--truth", action="append", default=[], help="COLUMN:ROW:PHASE:LABEL, the --phantom at PHASE")
    p.add_argument("--marks", type=lambda s: [float(v) for v in s.split(",")], default=[],
                   help="y (mm) of dashed lines across every panel: blue, then red")
    p.add_argument("--z", type=float, default=0, help="the plane (mm; the nearest voxel's)")
    p.add_argument("--min", type=float, default=0)
    p.add_argument("--max", type=float, default=1)
    p.add_argument("--zoom", type=int, default=3)
    p.add_argument("--title", default="", help="'|' starts a line")
    p.add_argument("--caption", default="", help="under the panels, after the scale bar; '|' starts a line")
    args = parser.parse_args()
    {"phases": phases, "split": split, "mae": mae, "centroid": centroid, "voxelize": voxelize, "picture": picture}[args.command](args)


if __name__ == "__main__":
    main()
