#!/usr/bin/env python3
"""Warp a picture with gridops: a random affine warp and a rotation, each with every
interpolation mode, side by side in one PNG.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/warp_image.py [IN.png] [-o OUT.png]

Without IN.png a test card is drawn with Pillow. Needs python3-pil and python3-numpy.
"""

import argparse
import math

import numpy as np
from PIL import Image, ImageDraw

import gridops

MODES = ["nearest", "bilinear", "bicubic"]


def test_card(size=256):
    img = Image.new("RGB", (size, size), "white")
    d = ImageDraw.Draw(img)
    step = size // 8
    for i in range(8):
        for j in range(8):
            if (i + j) % 2:
                d.rectangle([i * step, j * step, (i + 1) * step - 1, (j + 1) * step - 1], fill=(40, 40, 40))
    d.ellipse([size // 4, size // 4, 3 * size // 4, 3 * size // 4], outline=(220, 30, 30), width=6)
    d.line([0, 0, size - 1, size - 1], fill=(30, 90, 220), width=4)
    d.text((8, 8), "gridops", fill=(10, 160, 60))
    return img


def rotation(deg, scale=1.0):
    a = math.radians(deg)
    return np.array([[[math.cos(a) / scale, -math.sin(a) / scale, 0.0],
                      [math.sin(a) / scale, math.cos(a) / scale, 0.0]]], np.float32)


def random_affine(rng):
    m = np.eye(2) + rng.uniform(-0.35, 0.35, (2, 2))
    t = rng.uniform(-0.2, 0.2, (2, 1))
    return np.concatenate([m, t], axis=1)[None].astype(np.float32)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("input", nargs="?", help="a PNG (default: a drawn test card)")
    ap.add_argument("-o", "--output", default="warp_image.png")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--padding", default="zeros", choices=["zeros", "border", "reflection"])
    args = ap.parse_args()

    img = Image.open(args.input).convert("RGB") if args.input else test_card()
    # (1, H, W, 3) channels-last, as the picture is stored: no transpose needed
    x = np.asarray(img, np.float32)[None] / 255.0
    n, h, w, c = x.shape
    rng = np.random.default_rng(args.seed)
    rows = []
    for theta in (random_affine(rng), rotation(30.0, 1.1)):
        grid = gridops.affine_grid(theta, (n, c, h, w), align_corners=False)
        tiles = [x[0]]
        for mode in MODES:
            y = gridops.grid_sample(x, grid, mode, args.padding, layout="channels_last")
            tiles.append(y[0])
        rows.append(np.concatenate(tiles, axis=1))
    sheet = np.clip(np.concatenate(rows, axis=0), 0.0, 1.0)
    Image.fromarray((sheet * 255 + 0.5).astype(np.uint8)).save(args.output)
    print(f"{args.output}: rows = random affine, rotation 30 deg; columns = input, {', '.join(MODES)}")


if __name__ == "__main__":
    main()
