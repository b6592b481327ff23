"""One vocabulary: one contact type, feature tuples and status strings in Python objects, the
same values as arrays in JSON (ccd.batch / the command line), integer codes of arrays
documented by ccd.STATUS_CODES / ccd.FEATURE_CODES, errors in Python terms."""

import re

import numpy as np
import pytest

import ccd
from conftest import REPO, TETRA_F, TETRA_V

TETRA_JSON = (
    '{"vertices": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]],'
    ' "triangles": [[0,2,1],[0,1,3],[0,3,2],[1,2,3]]}'
)
E = np.eye(4)


def at(x):
    m = np.eye(4)
    m[0, 3] = x
    return m


def test_one_contact_type():
    assert ccd.ShapeContact is ccd.Contact
    mesh = ccd.Mesh(TETRA_V, TETRA_F)
    c1 = ccd.rigid_toc(mesh, E, E, mesh, at(3), at(-1))
    c2 = ccd.toc(mesh, E, mesh, ccd.Motion(at(3), at(-1)))
    w = ccd.World()
    w.add(mesh, E, static=True)
    w.add(mesh, ccd.Motion(at(3), at(-1)))
    c3 = w.step().contact
    for c in (c1, c2, c3):
        assert type(c) is ccd.Contact
        assert (c.part_a, c.part_b) == (0, 0)
        assert c.status == "converged"
        assert abs(c.toc - 0.5) < 1e-3
        for f in c.features:
            assert f[0] in ccd.FEATURE_CODES and len(f) == (3 if f[0] == "edge" else 2)
    # the repr spells features as the tuples do, not as Rust's Vertex(5)
    r = repr(c1)
    assert r.startswith("ccd.Contact(") and "features=((" in r and "Vertex" not in r and "Face(" not in r
    assert repr(c1.feature_a) in r and repr(c1.feature_b) in r
    d = ccd.distance(mesh, E, mesh, at(3))
    assert repr(d.feature_a) in repr(d) and "Vertex(" not in repr(d)


def test_codes_tables():
    assert ccd.STATUS_CODES == {
        "no_contact": ccd.NO_CONTACT,
        "converged": ccd.CONVERGED,
        "initially_touching": ccd.INITIALLY_TOUCHING,
        "out_of_iterations": ccd.OUT_OF_ITERATIONS,
        "stalled": ccd.STALLED,
    }
    assert [ccd.STATUS_CODES[n] for n in ccd.STATUS_NAMES] == list(range(5))
    assert ccd.FEATURE_NAMES == ("vertex", "edge", "face")
    assert [ccd.FEATURE_CODES[n] for n in ccd.FEATURE_NAMES] == [0, 1, 2]


def test_status_strings_match_codes_in_arrays():
    """A Contact's status string and the code toc_batch gives for the same motion agree."""
    box, ball = ccd.Box([1, 1, 1]), ccd.Ball(0.25)
    starts = np.stack([at(3), at(0.6), at(30)])
    ends = np.stack([at(-3), at(0.6), at(31)])
    toc, status = ccd.toc_batch(box, E, E, ball, starts, ends)
    names = np.array(ccd.STATUS_NAMES)[status]
    for i in range(3):
        c = ccd.toc(box, E, ball, ccd.Motion(starts[i], ends[i]))
        assert names[i] == ("no_contact" if c is None else c.status)
    assert list(names) == ["converged", "initially_touching", "no_contact"]
    # the kernels' codes are the same table
    x0 = np.array([[[0.2, 0.2, 1], [0, 0, 0], [1, 0, 0], [0, 1, 0]]], float)
    x1 = x0.copy()
    x1[0, 0, 2] = -1
    _, st = ccd.vertex_face(x0, x1)
    assert ccd.STATUS_NAMES[st[0]] == "converged"


def test_deforming_rows_use_feature_codes():
    # two triangles, the upper one falling through the lower one
    faces = np.array([[0, 1, 2], [3, 4, 5]])
    x0 = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0.1, 0.1, 1], [1.1, 0.1, 1], [0.1, 1.1, 1]], float)
    x1 = x0.copy()
    x1[3:, 2] = -1
    scene = ccd.DeformingScene(faces, x0, x1)
    c = scene.contacts()
    feats = [ccd.feature(row) for row in c["feature_a"]] + [ccd.feature(row) for row in c["feature_b"]]
    assert ("vertex", 3) in feats and ("face", 0) in feats
    assert all(ccd.STATUS_NAMES[s] == "converged" for s in c["status"])
    # the same scene through the JSON of the command line: the same feature values
    mesh0 = '{"vertices": %s, "triangles": %s}' % (x0.tolist(), faces.tolist())
    mesh1 = '{"vertices": %s, "triangles": %s}' % (x1.tolist(), faces.tolist())
    rec = ccd.batch('{"kind": "frames", "f0": %s, "f1": %s, "all": true}' % (mesh0, mesh1))[0]
    json_feats = {tuple(x["feature_a"]) for x in rec["ok"]["contacts"]} | {
        tuple(x["feature_b"]) for x in rec["ok"]["contacts"]
    }
    assert json_feats == set(feats)
    assert {x["status"] for x in rec["ok"]["contacts"]} == {"converged"}


@pytest.mark.parametrize("row", [[3, 0, -1], [0, -1, -1], [1, 2, -1], [0, 1], "vertex", [0, 1, 2, 3]])
def test_feature_rejects(row):
    with pytest.raises(ValueError, match="row"):
        ccd.feature(row)


def test_json_features_are_python_tuples():
    """ccd.batch (the command line's JSON) writes a feature as the Python tuple's array."""
    line = (
        '{"kind": "rigid", "a": %s, "b": %s, "b_start": [3, 0, 0, 1, 0, 0, 0], "b_end": [-1, 0, 0, 1, 0, 0, 0]}'
        % (TETRA_JSON, TETRA_JSON)
    )
    rec = ccd.batch(line)[0]["ok"]
    mesh = ccd.Mesh(TETRA_V, TETRA_F)
    c = ccd.rigid_toc(mesh, E, E, mesh, at(3), at(-1))
    assert rec["contact"]["status"] == c.status
    assert tuple(rec["contact"]["feature_a"]) == c.feature_a
    assert tuple(rec["contact"]["feature_b"]) == c.feature_b
    assert rec["contact"]["toc"] == c.toc
    # modes and resting in the Python spelling; the older names are still read
    for mode in ("boolean", "Boolean", "toc", "Toc"):
        assert "ok" in ccd.batch(line[:-1] + ', "mode": "%s"}' % mode)[0]
    assert "error" in ccd.batch(line[:-1] + ', "mode": "BOOLEAN"}')[0]


def test_urdf_package_error_names_the_argument(tmp_path):
    (tmp_path / "p.urdf").write_text(
        "<robot name='m'><link name='a'><collision><geometry>"
        "<mesh filename='package://missing_pkg/m.stl'/></geometry></collision></link></robot>"
    )
    with pytest.raises(ccd.CcdError) as e:
        ccd.Robot.load(tmp_path / "p.urdf")
    msg = str(e.value)
    assert "packages=" in msg and "missing_pkg" in msg and "::" not in msg, msg
    scene = ccd.PlanningScene()
    with pytest.raises(ccd.CcdError) as e:
        scene.add_robot(tmp_path / "p.urdf")
    assert "packages=" in str(e.value) and "::" not in str(e.value), str(e.value)


def test_no_doubled_reasons():
    """A reason is said once ("X", never "X: X"), and no Rust paths leak."""
    msgs = []
    for bad in (
        lambda: ccd.toc(ccd.Ball(1), [[np.nan] * 4] * 4, ccd.Ball(1), E),
        lambda: ccd.Motion(([0, 0, 0, 2], [0, 0, 0])),
        lambda: ccd.Ball(0),
        lambda: ccd.Box([1, -1, 1]),
        lambda: ccd.Mesh(np.zeros((0, 3)), np.zeros((0, 3), int)),
    ):
        with pytest.raises(ValueError) as e:
            bad()
        msgs.append(str(e.value))
    for m in msgs:
        parts = m.split(": ")
        assert all(parts[i] != parts[i + 1] for i in range(len(parts) - 1)), m
        assert "::" not in m and "untagged" not in m, m


def test_batch_file_errors_name_the_file_once(tmp_path):
    rec = ccd.batch(
        '{"kind": "articulated", "urdf": "nope.urdf", "environment": %s, "q0": [0], "q1": [0]}' % TETRA_JSON,
        base_dir=tmp_path,
    )[0]
    msg = rec["error"]["message"]
    assert rec["error"]["kind"] == "file" and msg.count("nope.urdf") == 1, msg


def test_docs_table_lists_the_codes():
    text = (REPO / "docs" / "python.md").read_text()
    for name, code in ccd.STATUS_CODES.items():
        assert re.search(rf"\|\s*`{code}`\s*\|\s*`\"{name}\"`", text), name
    for name, code in ccd.FEATURE_CODES.items():
        assert re.search(rf"\|\s*`{code}`\s*\|\s*`\"{name}\"`", text), name
