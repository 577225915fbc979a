#!/usr/bin/env python3
"""Writes examples/cbctBitmapFont.h: the printable ASCII glyphs (32..126) of the X11 misc-fixed 6x13
font, a public-domain bitmap font (Debian's xfonts-base, /usr/share/fonts/X11/misc/6x13.pcf.gz), as
13 rows of 6 bits per glyph. cbct-compare --report draws its labels with it, so the apps need no
font library. Needs Pillow (PIL) to read the PCF file. Usage: scripts/make-bitmap-font.py [PCF] > examples/cbctBitmapFont.h"""
import gzip
import sys

from PIL import PcfFontFile

path = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/fonts/X11/misc/6x13.pcf.gz"
opener = gzip.open if path.endswith(".gz") else open
font = PcfFontFile.PcfFontFile(opener(path, "rb"))
width, height = 6, 13
rows = []
for code in range(32, 127):
    (advance, _), _, box, image = font.glyph[code]
    assert advance == width and box == (0, 0, width, height), (chr(code), advance, box)
    glyph = []
    for y in range(height):
        bits = 0
        for x in range(width):
            if image.getpixel((x, y)):
                bits |= 1 << (width - 1 - x)
        glyph.append(bits)
    rows.append((code, glyph))

print("#ifndef cbctBitmapFont_h")
print("#define cbctBitmapFont_h")
print()
print("// The printable ASCII glyphs of the X11 misc-fixed 6x13 font (public domain), written by")
print("// scripts/make-bitmap-font.py: 13 rows per glyph, bit 5 the leftmost of 6 columns.")
print()
print("namespace cbct::apps")
print("{")
print(f"constexpr int BitmapFontWidth = {width};")
print(f"constexpr int BitmapFontHeight = {height};")
print(f"constexpr unsigned char BitmapFontGlyphs[95][{height}] = {{")
for code, glyph in rows:
    name = {32: "space", 92: "backslash"}.get(code, chr(code))
    print("  { " + ", ".join(f"0x{b:02x}" for b in glyph) + f" }}, // {code} {name!s}")
print("};")
print("} // namespace cbct::apps")
print()
print("#endif")
