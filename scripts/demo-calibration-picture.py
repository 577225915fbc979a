#!/usr/bin/env python3
"""Two pictures side by side, each with a caption above it (scripts/demo-calibration.sh).

Usage: demo-calibration-picture.py LEFT.png RIGHT.png OUTPUT.png LEFT_CAPTION RIGHT_CAPTION
"""

import sys

from PIL import Image, ImageDraw


def main(left, right, output, left_caption, right_caption):
    images = [Image.open(left).convert("RGB"), Image.open(right).convert("RGB")]
    margin, caption = 8, 18
    width = sum(image.width for image in images) + 3 * margin
    height = max(image.height for image in images) + caption + 2 * margin
    picture = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(picture)
    x = margin
    for image, text in zip(images, (left_caption, right_caption)):
        draw.text((x, margin), text, fill="black")
        picture.paste(image, (x, margin + caption))
        x += image.width + margin
    picture.save(output)


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    main(*sys.argv[1:])
