"""ccd.batch: JSON Lines queries through the command line's schema (ccd-cli), in input order,
with error records for bad lines."""

import json

import numpy as np
import pytest

import ccd
from conftest import cube

TET = {"vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], "triangles": [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]}


def test_primitive_lines_equal_the_vectorised_kernels():
    rng = np.random.default_rng(2)
    x0 = rng.uniform(-1, 1, (300, 4, 3))
    x1 = x0 + rng.uniform(-1, 1, (300, 4, 3))
    for kind, kernel in (("vertex_face", ccd.vertex_face), ("edge_edge", ccd.edge_edge)):
        lines = [
            json.dumps({"kind": kind, "id": i, "x0": x0[i].tolist(), "x1": x1[i].tolist()})
            for i in range(len(x0))
        ]
        records = ccd.batch(lines, threads=2)
        toc, _ = kernel(x0, x1)
        assert [r["id"] for r in records] == list(range(len(x0)))
        got = np.array([np.nan if r["ok"]["toc"] is None else r["ok"]["toc"] for r in records])
        np.testing.assert_array_equal(got, toc)
        assert 0 < np.count_nonzero(~np.isnan(got)) < len(got)


def test_rigid_lines_from_files_and_inline(tmp_path, unit_cube):
    v, f = cube()
    (tmp_path / "cube.obj").write_text(
        "".join(f"v {x} {y} {z}\n" for x, y, z in v) + "".join(f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in f)
    )
    text = "\n".join(
        [
            json.dumps({"kind": "rigid", "id": "file", "a": "cube.obj", "b": "cube.obj", "b_start": [3, 0, 0, 1, 0, 0, 0], "b_end": [-1, 0, 0, 1, 0, 0, 0]}),
            "",
            json.dumps({"kind": "rigid", "id": "inline", "a": TET, "b": TET, "b_start": [3, 0, 0, 1, 0, 0, 0]}),
            '{"kind": "rigid", "a": "missing.obj", "b": "missing.obj"}',
            "not json",
            json.dumps({"kind": "vertex_face", "x0": [[0, 0, float("nan")]] * 4, "x1": [[0, 0, 0]] * 4}).replace("NaN", "1e999"),
        ]
    )
    records = ccd.batch(text, base_dir=tmp_path)
    assert [r["line"] for r in records] == [1, 3, 4, 5, 6]  # the blank line 2 is skipped
    expected = ccd.rigid_toc(unit_cube, np.eye(4), np.eye(4), unit_cube, _t(3), _t(-1))
    assert records[0]["id"] == "file" and records[0]["ok"]["contact"]["toc"] == expected.toc
    assert records[1]["ok"]["contact"] is None  # the inline tetra stands 3 away
    assert records[2]["error"]["kind"] == "file" and "missing.obj" in records[2]["error"]["message"]
    assert records[3]["error"]["kind"] == "parse"
    assert records[4]["error"]["kind"] in ("input", "parse")


def _t(x):
    m = np.eye(4)
    m[0, 3] = x
    return m


def test_bytes_and_bad_arguments():
    line = json.dumps({"kind": "edge_edge", "x0": [[-1, 0, 0], [1, 0, 0], [0, -1, 1], [0, 1, 1]], "x1": [[-1, 0, 0], [1, 0, 0], [0, -1, -1], [0, 1, -1]]})
    assert ccd.batch(line.encode())[0]["ok"]["toc"] == ccd.batch([line])[0]["ok"]["toc"]
    assert ccd.batch([]) == [] and ccd.batch("") == []
    with pytest.raises(TypeError, match="lines"):
        ccd.batch(42)
    with pytest.raises(TypeError, match=r"lines\[1\] must be str or bytes"):
        ccd.batch([line, 3])
    with pytest.raises(ValueError, match="more than one line"):
        ccd.batch([line + "\n" + line])
    with pytest.raises(ValueError, match="thread"):
        ccd.batch([line], threads=0)
