#!/usr/bin/env python3
"""png_check.py PNG MIN_COLOURS MIN_INK: exit 0 when the screenshot is not
blank: at least MIN_COLOURS distinct colours, and at least MIN_INK (a
fraction) of its pixels other than the background (the top-left pixel).
A PNG decoder of its own (8-bit RGB or RGBA, not interlaced): the test
needs nothing but python3's standard library."""
import struct
import sys
import zlib


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(
                ">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                sys.exit(f"{path}: expected 8-bit RGB(A), got {depth}/{colour}")
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
    raw, stride = zlib.decompress(idat), width * bpp
    prev, rows, i = bytearray(stride), [], 0
    for _ in range(height):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return [bytes(r[x:x + 3]) for r in rows for x in range(0, stride, bpp)]


def main():
    path, min_colours, min_ink = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    px = pixels(path)
    background = px[0]
    ink = sum(p != background for p in px) / len(px)
    colours = len(set(px))
    print(f"{path}: {len(px)} pixels, {colours} colours, {ink:.1%} ink")
    if colours < min_colours or ink < min_ink:
        sys.exit(f"{path}: blank (want {min_colours} colours, {min_ink:.0%} ink)")


main()
