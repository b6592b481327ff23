#!/usr/bin/env python3
"""Regenerates the binary test meshes in this folder (run from this folder)."""
import struct

CUBE_V = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
CUBE_T = [(0, 2, 1), (0, 3, 2), (4, 5, 6), (4, 6, 7), (0, 1, 5), (0, 5, 4),
          (1, 2, 6), (1, 6, 5), (2, 3, 7), (2, 7, 6), (3, 0, 4), (3, 4, 7)]


def stl(header):
    out = header.ljust(80, b" ") + struct.pack("<I", len(CUBE_T))
    for t in CUBE_T:
        out += struct.pack("<3f", 0, 0, 0)
        for i in t:
            out += struct.pack("<3f", *CUBE_V[i])
        out += b"\0\0"
    return out


# Binary STL whose 80-byte header starts with "solid", as some exporters write.
cube = stl(b"solid cube written by a careless exporter")
open("cube_binary.stl", "wb").write(cube)
open("truncated_binary.stl", "wb").write(cube[:84 + 50 * 7 + 20])

# Binary little-endian PLY: double xyz, extra float normal + uchar rgb, a quad face, and a
# face element with an extra scalar before the list (uint count, uint indices).
head = b"""ply
format binary_little_endian 1.0
comment quad split into 2 triangles plus one triangle
element vertex 5
property double x
property double y
property double z
property float nx
property uchar red
property uchar green
property uchar blue
element face 2
property int flags
property list uint uint vertex_indices
end_header
"""
pts = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0.5, 0.5, 1.25)]
body = b"".join(struct.pack("<3df3B", *p, 0.5, 10, 20, 30) for p in pts)
body += struct.pack("<iI4I", 7, 4, 0, 1, 2, 3) + struct.pack("<iI3I", 7, 3, 0, 1, 4)
open("quad_le_double.ply", "wb").write(head + body)

# Binary big-endian PLY: float xyz + uchar rgb (like the n-body frames), uchar/int faces.
head = b"""ply
format binary_big_endian 1.0
element vertex 8
property float x
property float y
property float z
property uchar red
property uchar green
property uchar blue
element face 12
property list uchar int vertex_indices
end_header
"""
body = b"".join(struct.pack(">3f3B", *v, 1, 2, 3) for v in CUBE_V)
body += b"".join(struct.pack(">B3i", 3, *t) for t in CUBE_T)
cube_be = head + body
open("cube_be_float.ply", "wb").write(cube_be)
open("truncated_body.ply", "wb").write(cube_be[: len(cube_be) - 30])
