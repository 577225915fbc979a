"""Damaged and unusual MetaImage files for the apps' bad-input tests, made from a good one.

Usage: make_damaged.py GOOD.mha (writes the files below into the current directory)
Standard library only (struct, zlib): no numpy needed.

  nan.mha          projections with a NaN, a +Inf and a -Inf
  inf_volume.mha   the same pixels as a volume with one +Inf
  short_zlib.mha   compressed data (CompressedData = True) cut to a third of the stream
  zero_spacing.mha ElementSpacing 0 along u
  oblique.mha      a direction rotated by 30 degrees about z
  four_d.mha       a 4D image (2 time points)
  rgb.mha          three channels per pixel
  reversed.mha     the projections with u reversed and ElementSpacing -s (the same detector)
  missing_data.mhd a header whose data file does not exist
  good.png         an 8-bit grey PNG of 32 x 32 pixels (a projection of one row of the scan)
  bad_chunk.png    good.png with its first chunk's type damaged (ITK 5.2's reader let libpng abort
                   the process on it: found by cbctFuzzProjectionFile)
  bad_crc.png      good.png with its pixel data's (IDAT's) CRC changed: it does not match the data
"""
import math
import struct
import sys
import zlib

KEY = b"ElementDataFile = LOCAL\n"


def read(path):
    blob = open(path, "rb").read()
    at = blob.index(KEY)
    header = blob[:at].decode().splitlines()
    fields = {}
    order = []
    for line in header:
        key, _, value = line.partition("=")
        fields[key.strip()] = value.strip()
        order.append(key.strip())
    return fields, order, bytearray(blob[at + len(KEY):])


def write(path, fields, order, data, data_file="LOCAL"):
    lines = [f"{key} = {fields[key]}" for key in order if key in fields]
    lines += [f"{key} = {fields[key]}" for key in fields if key not in order]
    text = "\n".join(lines) + f"\nElementDataFile = {data_file}\n"
    with open(path, "wb") as out:
        out.write(text.encode())
        if data_file == "LOCAL":
            out.write(bytes(data))


def main(good):
    fields, order, data = read(good)
    nu, nv, nk = (int(x) for x in fields["DimSize"].split())

    bad = bytearray(data)
    for index, value in ((nu * 3 + 5, math.nan), (nu * nv + 7, math.inf), (nu * nv * 2 + 1, -math.inf)):
        struct.pack_into("<f", bad, 4 * index, value)
    write("nan.mha", fields, order, bad)

    inf = bytearray(data)
    struct.pack_into("<f", inf, 4 * (len(inf) // 8), math.inf)
    volume = dict(fields, ElementSpacing="8 8 8", Offset="-124 -124 -36")
    write("inf_volume.mha", volume, order, inf)

    stream = zlib.compress(bytes(data))
    compressed = dict(fields, CompressedData="True", CompressedDataSize=str(len(stream) // 3))
    write("short_zlib.mha", compressed, order, stream[: len(stream) // 3])

    spacing = fields["ElementSpacing"].split()
    write("zero_spacing.mha", dict(fields, ElementSpacing=" ".join(["0"] + spacing[1:])), order, data)

    c, s = math.cos(math.radians(30)), math.sin(math.radians(30))
    write("oblique.mha", dict(fields, TransformMatrix=f"{c} {s} 0 {-s} {c} 0 0 0 1"), order, data)

    four = dict(fields, NDims="4", DimSize=f"{nu} {nv} {nk // 2} 2", ElementSpacing=" ".join(spacing + ["1"]),
                Offset=fields["Offset"] + " 0", TransformMatrix="1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1",
                CenterOfRotation="0 0 0 0")
    write("four_d.mha", four, order, data[: 4 * nu * nv * (nk // 2) * 2])

    rgb = dict(fields, ElementNumberOfChannels="3", DimSize=f"{nu} {nv} 1")
    write("rgb.mha", rgb, order, data[: 4 * nu * nv * 3])

    # u reversed: pixel i of a row is pixel nu - 1 - i of the original; the first pixel is at the
    # original's last u, and the spacing is negative.
    reversed_data = bytearray(len(data))
    for row in range(nv * nk):
        for i in range(nu):
            src = 4 * (row * nu + i)
            dst = 4 * (row * nu + nu - 1 - i)
            reversed_data[dst:dst + 4] = data[src:src + 4]
    su = float(spacing[0])
    offset = [float(x) for x in fields["Offset"].split()]
    offset[0] += (nu - 1) * su
    write("reversed.mha", dict(fields, ElementSpacing=" ".join([repr(-su)] + spacing[1:]),
                               Offset=" ".join(repr(x) for x in offset)), order, reversed_data)

    write("missing_data.mhd", fields, order, b"", data_file="missing_data.raw")

    good = png_file(32, 32, [bytes((x * 8 + y * 3) & 255 for x in range(32)) for y in range(32)])
    open("good.png", "wb").write(good)
    bad_chunk = bytearray(good)
    bad_chunk[12:16] = b"I\x00DR"  # the first chunk's type, IHDR: not a chunk type at all
    open("bad_chunk.png", "wb").write(bytes(bad_chunk))
    bad_crc = bytearray(good)
    idat = good.index(b"IDAT")
    length = struct.unpack(">I", good[idat - 4:idat])[0]
    bad_crc[idat + 4 + length] ^= 0x01  # the IDAT chunk's CRC (its data intact: they still inflate)
    open("bad_crc.png", "wb").write(bytes(bad_crc))


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_file(width, height, rows):
    """An 8-bit grey PNG of `rows` (bytes each), without filtering."""
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    pixels = zlib.compress(b"".join(b"\x00" + row for row in rows))
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", header) + png_chunk(b"IDAT", pixels)
            + png_chunk(b"IEND", b""))


if __name__ == "__main__":
    main(sys.argv[1])
