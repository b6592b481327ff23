#!/usr/bin/env python3
"""Writes the seed inputs under corpus/<target>/seed-*: the workspace's test files and hand-made cases.

Text targets (obj, ply, stl, urdf) get files as they would appear on disk; the structured
targets get the bytes that `arbitrary` 1.x decodes into the `Input` of the target (the
encoding mirrors its decoder: little-endian integers, `bool` from a byte's low bit, `Option`
as a bool then the value, an enum variant `i` of `n` as a u32 `v` with `(v * n) >> 32 == i`,
and the last field, a `Vec`, taking the rest: each element after a byte with bit 0 set). Each seed is named after what it covers; the
findings of issue 14 are `seed-issue14-*`. Run from fuzz/: `python3 seeds.py`.
"""
import math
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def put(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


# ---- arbitrary encoding ----
def u8(x):
    return struct.pack("<B", x)


def i8(x):
    return struct.pack("<b", x)


def u16(x):
    return struct.pack("<H", x)


def i16(x):
    return struct.pack("<h", x)


def f64(x):
    return struct.pack("<d", x)


def variant(i, n):
    return struct.pack("<I", (i * 2**32 + n - 1) // n)


def none():
    return b"\x00"


def some(b):
    return b"\x01" + b


def points(exp, coords, offset=None, raw=None):
    """ccd_fuzz::Points<N>: exp, coords, offset (coords, exp), raw (index, value)."""
    b = i16(exp) + b"".join(i16(c) for p in coords for c in p)
    b += none() if offset is None else some(b"".join(i16(c) for c in offset[0]) + i16(offset[1]))
    b += none() if raw is None else some(u8(raw[0]) + f64(raw[1]))
    return b


def rest(*elements):
    """A trailing `Vec` (take-rest): each element after a `true` byte."""
    return b"".join(b"\x01" + e for e in elements)


def tol_default():
    return variant(0, 3)


def tol_raw(v):
    return variant(2, 3) + f64(v)


# ---- mesh files ----
def mesh_seeds():
    put("obj", "issue14-texcoord-index", "v 0 0 0\nvt 0 0\nf 1/-214748364 1/1 1/1\n")
    put("obj", "issue14-normal-index", "v 0 0 0\nvn 0 0 1\nf 1//-1073741824 1//1 1//1\n")
    put("obj", "negative-position-index", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -2147483648\n")
    put("obj", "quad-groups", "o a\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\ng b\nf 1 3 4\n")
    put("obj", "extreme-coordinates", "v 1e308 -1e308 4.9e-324\nv 0 0 0\nv -0 1 2\nf 1 2 3\n")
    junk = (
        "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
        "property float z\nelement junk 18446744073709551615\nelement face 1\n"
        "property list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"
    )
    put("ply", "issue14-huge-element-count", junk)
    put("ply", "huge-vertex-count-binary",
        b"ply\nformat binary_little_endian 1.0\nelement vertex 4294967295\nproperty double x\n"
        b"property double y\nproperty double z\nend_header\n" + b"\x00" * 48)
    put("ply", "list-count-overflow",
        "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
        "element face 1\nproperty list uint int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n"
        "4294967295 0 1 2\n")
    tri = struct.pack("<12f", 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0)
    put("stl", "binary-one-triangle", b"\x00" * 80 + struct.pack("<I", 1) + tri + b"\x00\x00")
    put("stl", "binary-huge-count", b"\x00" * 80 + struct.pack("<I", 0xFFFFFFFF) + tri + b"\x00\x00")
    put("stl", "ascii-tetra-nan",
        "solid t\nfacet normal 0 0 0\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex nan 1 0\n"
        "endloop\nendfacet\nendsolid t\n")
    put("stl", "ascii-word-binary", "solid " + "x" * 74 + "\x01\x00\x00\x00" + "\x00" * 50)


# ---- URDF: 4 bytes of primitive_segments, the URDF, NUL, the SRDF ----
def urdf(segments, text, srdf=""):
    return struct.pack("<I", segments) + text.encode() + b"\x00" + srdf.encode()


def robot(collision):
    return (
        '<robot name="r"><link name="a"><collision><geometry>' + collision +
        '</geometry></collision></link><link name="b"/>'
        '<joint name="j" type="revolute"><parent link="a"/><child link="b"/>'
        '<origin xyz="0 0 1" rpy="0 0 1.5"/><axis xyz="0 0 1"/>'
        '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>'
    )


def urdf_seeds():
    srdf = '<robot name="r"><disable_collisions link1="a" link2="b" reason="Adjacent"/></robot>'
    put("urdf", "two-links", urdf(16, robot('<box size="1 2 3"/>'), srdf))
    put("urdf", "cylinder-capsule", urdf(3, robot('<cylinder radius="0.1" length="1"/>') ))
    put("urdf", "issue14-segments-100000", urdf(100000, robot('<sphere radius="1"/>')))
    put("urdf", "issue14-segments-max", urdf(0xFFFFFFFF, robot('<sphere radius="1"/>')))
    for name, path in [
        ("issue14-mesh-parent-dir", "../../outside/secret.stl"),
        ("issue14-mesh-absolute", "/etc/hostname"),
        ("issue14-mesh-file-uri", "file:///etc/hostname"),
        ("issue14-mesh-package-escape", "package://fuzz_description/../../outside/secret.stl"),
        ("mesh-device-file", "/dev/zero"),
    ]:
        put("urdf", name, urdf(16, robot('<mesh filename="' + path + '" scale="1 1 1"/>')))
    put("urdf", "srdf-unknown-link", urdf(16, robot('<box size="1 1 1"/>'),
                                          '<robot name="r"><disable_collisions link1="a" link2="zz"/></robot>'))
    put("urdf", "cycle", urdf(16, '<robot name="r"><link name="a"/><link name="b"/>'
                                  '<joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint>'
                                  '<joint name="k" type="fixed"><parent link="b"/><child link="a"/></joint></robot>'))


# ---- LA kernels: Points<8> (x0[0..4], x1[0..4]), Tolerance, Option<u16> ----
def la_seeds():
    # vertex falling through the triangle z = 0 (contact at t = 1/2), lattice spacing 2^e
    vf = [(51, 51, 256), (0, 0, 0), (256, 0, 0), (0, 256, 0),
          (51, 51, -256), (0, 0, 0), (256, 0, 0), (0, 256, 0)]
    # edge along x at y = 128 falling through an edge along y at x = 128 (t = 1/2)
    ee = [(0, 128, 256), (256, 128, 256), (128, 0, 0), (128, 256, 0),
          (0, 128, -256), (256, 128, -256), (128, 0, 0), (128, 256, 0)]
    for target, pts in [("la_vertex_face", vf), ("la_edge_edge", ee)]:
        put(target, "unit", points(-8, pts) + tol_default() + none())
        # issue 14: misses at ~1e300 (VF), ~9e149 and ~1e162 (EE), touching at ~1e-151
        for label, exp in [("1e300", 989), ("9e149", 489), ("1e162", 530), ("1e-151", -510),
                           ("1e100", 324), ("subnormal", -1074)]:
            put(target, "issue14-scale-" + label, points(exp, pts) + tol_default() + none())
        # small features at a huge common offset (~1e99 + 2^250 lattice)
        put(target, "offset-1e99", points(250, pts, offset=((1, 1, 1), 330)) + tol_default() + none())
        put(target, "nan", points(-8, pts, raw=(5, math.nan)) + tol_default() + none())
        put(target, "tolerance-nan", points(-8, pts) + tol_raw(math.nan) + none())
        put(target, "no-iterations", points(-8, pts) + tol_default() + some(u16(0)))


# ---- rigid CA ----
def pose(rot=(0, 0, 0, 1), trans=(0, 0, 0)):
    return b"".join(i8(c) for c in rot) + b"".join(i16(c) for c in trans)


def ca_seeds():
    a = [(0, 0, 0), (256, 0, 0), (0, 256, 0), (0, 0, 256), (256, 256, 0), (0, 0, 0)]
    b = [(50, 50, -100), (50, 50, 100), (100, 20, 0), (0, 0, 0), (1, 2, 3), (4, 5, 6)]
    tris = [[(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)], [(0, 1, 2), (0, 1, 2), (0, 1, 2), (0, 1, 2)]]
    tri_bytes = b"".join(u8(i) for mesh in tris for t in mesh for i in t)
    def case(exp, poses, boolean=False, tol=None):
        p = [pose(*x) for x in poses]
        return (points(exp, a + b) + tri_bytes + u8(3) + u8(0) + b"".join(p)
                + (tol_default() if tol is None else tol) + none() + u8(1 if boolean else 0))
    still = ((0, 0, 0, 1), (0, 0, 0))
    away = ((0, 0, 0, 1), (0, 0, 2000))
    turned = ((0, 0, 40, 100), (300, 0, 0))
    put("ca_rigid", "intersecting-at-start", case(-8, [still, still, still, away]))
    put("ca_rigid", "intersecting-at-end", case(-8, [still, still, away, still]))
    put("ca_rigid", "rotating", case(-8, [still, turned, away, still]))
    put("ca_rigid", "boolean", case(-8, [still, still, away, still], boolean=True))
    # issue 14: None for intersecting triangles at ~1e-151; toc after the intersection at ~1e100
    put("ca_rigid", "issue14-scale-1e-151", case(-510, [still, still, away, still]))
    put("ca_rigid", "issue14-scale-1e100", case(324, [still, still, away, still]))
    put("ca_rigid", "scale-1e300", case(989, [still, still, away, still]))
    # a 10-minute run's finding (late contacts and misses at 9e77..1e94: degree-4 products of
    # the bounding-sphere start overflowed from 2^256 on), as reported (raw libFuzzer input)
    put("ca_rigid", "finding-reported-at-2e77", bytes.fromhex(
        "f800ff0000000000000100000000000000010000000000000001000100010000000000000000320032009c"
        "ff3200320064006400040000000000000000000100020003000400250006000000000102000103080203"
        "010200020301020300010200010200010200010200010203000000010000000000000000000001000000"
        "000000000000d007000000010000000000000000000000200000"))
    # two triangles meeting tip to tip at 1.2e77 (crates/ca-rigid/tests/rescaling.rs, tips):
    # the overflowed start put the first evaluation at t = 0.375, after the touch at 0.25
    tips = [(256, 0, 0), (0, 256, 0), (0, -256, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0),
            (-256, 0, 0), (0, 0, 256), (0, 0, -256), (0, 0, 0), (0, 0, 0), (0, 0, 0)]
    tip_tris = b"".join(u8(i) for i in [0, 1, 2] * 8)
    put("ca_rigid", "finding-late-toc-tips-at-1e77",
        points(248, tips) + tip_tris + u8(0) + u8(0)
        + pose() + pose() + pose(trans=(1024, 0, 0)) + pose(trans=(-1024, 0, 0))
        + tol_default() + none() + u8(0))


# ---- Interval: registers [(Num, Num); 4], interior u8, program Vec<(Op, u8)> ----
NUM = 3
def small(k):
    return variant(0, NUM) + i16(k)


def scaled(k, e):
    return variant(1, NUM) + i16(k) + i16(e)


def raw(v):
    return variant(2, NUM) + f64(v)


IOPS = ["Add", "Sub", "Mul", "Div", "CheckedDiv", "Recip", "Neg", "Sqr", "Powi", "Sqrt", "Sin",
        "Cos", "Hull", "Intersection", "AddF", "SubF", "MulF"]


def iop(name, *args):
    return variant(IOPS.index(name), len(IOPS)) + b"".join(args)


def interval_seeds():
    regs = lambda rs: b"".join(lo + hi for lo, hi in rs)
    unit = [(small(-256), small(256)), (small(0), small(512)), (scaled(3, 1000), scaled(5, 1000)),
            (raw(-math.inf), raw(math.inf))]
    prog = rest(
        iop("Add", u8(0), u8(1)) + u8(0), iop("Mul", u8(0), u8(2)) + u8(1),
        iop("Sin", u8(1)) + u8(2), iop("Sqrt", u8(1)) + u8(3), iop("Div", u8(0), u8(1)) + u8(0),
        iop("Powi", u8(2), u8(7)) + u8(2),
    )
    put("interval", "mixed", regs(unit) + u8(100) + prog)
    # issue 14: overflow to [inf, inf]; NaN endpoints from [-inf, inf] - [-inf, -inf]
    big = [(raw(1e300), raw(1e300))] * 4
    put("interval", "issue14-overflow", regs(big) + u8(0) + rest(iop("Mul", u8(0), u8(1)) + u8(2)))
    inf = [(raw(-math.inf), raw(math.inf)), (raw(-math.inf), raw(-math.inf)), (small(1), small(2)),
           (small(1), small(2))]
    put("interval", "issue14-nan-endpoints", regs(inf) + u8(0) + rest(iop("Sub", u8(0), u8(1)) + u8(2)))
    huge = [(raw(-1e300), raw(1e300)), (scaled(1, 1023), scaled(1, 1023)), (raw(5e-324), raw(1e-300)),
            (small(-1), small(1))]
    put("interval", "extremes", regs(huge) + u8(255) + rest(
        iop("Cos", u8(0)) + u8(0), iop("Recip", u8(2)) + u8(1), iop("MulF", u8(1), raw(1e308)) + u8(3)))


# ---- TaylorModel: domain (Num, Num), leaves [Leaf; 4], samples [u16; 3], program ----
LEAVES = ["Constant", "Time", "Affine", "Sin", "Cos"]
TOPS = ["Add", "Sub", "Mul", "Neg", "AddF", "MulF"]


def leaf(name, *args):
    return variant(LEAVES.index(name), len(LEAVES)) + b"".join(args)


def top(name, *args):
    return variant(TOPS.index(name), len(TOPS)) + b"".join(args)


def taylor_seeds():
    samples = u16(0) + u16(32768) + u16(65535)
    leaves = (leaf("Sin", small(256), small(0)) + leaf("Cos", small(512), small(100))
              + leaf("Affine", small(3), small(-7)) + leaf("Time"))
    prog = rest(top("Mul", u8(0), u8(1)) + u8(0), top("Add", u8(0), u8(2)) + u8(1),
                top("Mul", u8(1), u8(3)) + u8(2), top("Neg", u8(2)) + u8(3))
    put("taylor", "unit", small(0) + small(256) + leaves + samples + prog)
    # issue 14: c·sin(ωt + φ) with |c| ≥ 1e153 misses the interior maximum (domain [0, 4])
    # samples at t = π/2 (the maximum), 2 and 4
    put("taylor", "issue14-big-sine", small(0) + small(1024) + leaves + u16(25736) + u16(32768) + u16(65535)
        + rest(top("MulF", u8(0), raw(1e153)) + u8(0)))
    # issue 14: cos_affine(1e300, ·) * sin_affine(·) on [0, 0]
    trig = (leaf("Cos", raw(1e300), small(0)) + leaf("Sin", small(256), small(0)) + leaf("Time")
            + leaf("Time"))
    put("taylor", "issue14-cos-1e300", small(0) + small(0) + trig + samples
        + rest(top("Mul", u8(0), u8(1)) + u8(0)))
    # issue 14: wide finite domains give NaN enclosures
    put("taylor", "issue14-wide-domain", raw(-1.7e308) + raw(1.7e308) + leaves + samples + prog)


def workspace_seeds():
    """The workspace's own test files: mesh files, and URDFs (16 segments, no SRDF)."""
    root = os.path.dirname(HERE)
    geo = os.path.join(root, "crates/geometry/tests/data")
    for name in sorted(os.listdir(geo)):
        ext = name.rsplit(".", 1)[-1]
        if ext in ("obj", "ply", "stl"):
            with open(os.path.join(geo, name), "rb") as f:
                put(ext, "data-" + name, f.read())
    kin = os.path.join(root, "crates/kinematics/tests/data")
    for name in sorted(os.listdir(kin)):
        if name.endswith(".urdf"):
            with open(os.path.join(kin, name)) as f:
                put("urdf", "data-" + name[:-5], urdf(16, f.read()))


# ---- batch lines (ccd-cli): one JSONL line as bytes ----
TET = '{"vertices":[[0,0,0],[1,0,0],[0,1,0],[0,0,1]],"triangles":[[0,2,1],[0,1,3],[0,3,2],[1,2,3]]}'
FALL0 = ('{"vertices":[[0,0,0],[1,0,0],[0,1,0],[0.1,0.1,1],[1.1,0.1,1],[0.1,1.1,1]],'
         '"triangles":[[0,1,2],[3,4,5]]}')
FALL1 = FALL0.replace(",1]", ",-1]")


def json_seeds():
    put("json", "rigid-quaternion-poses", '{"kind":"rigid","id":1,"a":%s,"b":%s,'
        '"b_start":[3,0,0,1,0,0,0],"b_end":[-1,0,0,0.7071068,0,0,0.7071068]}' % (TET, TET))
    put("json", "rigid-matrix-boolean", '{"kind":"rigid","a":%s,"b":%s,"mode":"Boolean",'
        '"b_start":[[1,0,0,3],[0,1,0,0],[0,0,1,0],[0,0,0,1]],"tolerance":1e-6}' % (TET, TET))
    put("json", "vertex-face", '{"kind":"vertex_face","x0":[[0.2,0.2,1],[0,0,0],[1,0,0],[0,1,0]],'
        '"x1":[[0.2,0.2,-1],[0,0,0],[1,0,0],[0,1,0]]}')
    put("json", "edge-edge", '{"kind":"edge_edge","id":"e","max_iterations":3,'
        '"x0":[[-1,0,0],[1,0,0],[0,-1,1],[0,1,1]],"x1":[[-1,0,0],[1,0,0],[0,-1,-1],[0,1,-1]]}')
    put("json", "frames-all", '{"kind":"frames","all":true,"f0":%s,"f1":%s}' % (FALL0, FALL1))
    put("json", "articulated-path", '{"kind":"articulated","urdf":"arm.urdf","environment":%s,'
        '"q0":[0],"q1":[1]}' % TET)
    put("json", "path-mesh", '{"kind":"rigid","a":"a.obj","b":"b.stl"}')
    put("json", "huge-numbers", '{"kind":"vertex_face","tolerance":1e-300,"x0":[[1e300,0,0],'
        '[0,0,0],[1,0,0],[0,1,0]],"x1":[[-1e300,0,0],[0,0,0],[1,0,0],[0,1,0]]}')


if __name__ == "__main__":
    json_seeds()
    workspace_seeds()
    mesh_seeds()
    urdf_seeds()
    la_seeds()
    ca_seeds()
    interval_seeds()
    taylor_seeds()
