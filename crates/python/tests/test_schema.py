"""The JSON Schema of the command line (docs/schema/ccd-cli.schema.json) against real output:
every query kind (with and without contact), the frames options (all, resting, separation),
the articulated query and every error kind, run through ccd.batch, which is the command
line's batch loop (ccd-cli's run_batch writes the same bytes as `ccd batch`). Also checks
that the schema rejects what the command line does not write, so that the test can fail."""

import copy
import json

import jsonschema
import pytest

import ccd
from conftest import REPO

SCHEMA_PATH = REPO / "docs" / "schema" / "ccd-cli.schema.json"
DATA = REPO / "crates" / "cli" / "tests" / "data"

# a box post 0.2 wide at x in [0.4, 0.6], z in [0, 2]: the arm's upper link (1 long, up z,
# turning about y) sweeps through it between q = 0 and q = 1.5
POST = {
    "vertices": [[x, y, z] for x in (0.4, 0.6) for y in (-0.1, 0.1) for z in (0.0, 2.0)],
    "triangles": [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                  [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]],
}
# two triangles 0.5 apart in z, the upper one moving down by 0.45: resting apart / separation
F0 = {"vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0.1, 0.1, 0.5], [1.1, 0.1, 0.5], [0.1, 1.1, 0.5]],
      "triangles": [[0, 1, 2], [3, 4, 5]]}
F1 = copy.deepcopy(F0)
for v in F1["vertices"][3:]:
    v[2] -= 0.45


def lines():
    """(line, expectation) pairs: the CLI's test data plus the kinds and options it lacks."""
    out = [(line, "ok") for line in (DATA / "queries.jsonl").read_text().splitlines() if line.strip()]
    out += [
        ('{"kind": "rigid", "a": "tetra.obj", "b": "cube.stl", "mode": "boolean",'
         ' "b_start": [[1,0,0,3],[0,1,0,0],[0,0,1,0],[0,0,0,1]], "b_end": [-1, 0, 0, 1, 0, 0, 0]}', "ok"),
        ('{"kind": "edge_edge", "id": [1, "a"], "tolerance": 1e-8,'
         ' "x0": [[-1,0,0],[1,0,0],[0,-1,1],[0,1,1]], "x1": [[-1,0,0],[1,0,0],[0,-1,3],[0,1,3]]}', "ok"),
        ('{"kind": "frames", "id": "resting-apart", "f0": %s, "f1": %s, "resting": "separate",'
         ' "tolerance": 0.6, "separation": {"scale": 0.2}}' % (json.dumps(F0), json.dumps(F1)), "ok"),
        ('{"kind": "frames", "f0": "f0.ply", "f1": "f1.ply"}', "ok"),
        ('{"kind": "articulated", "id": "swing", "urdf": "arm.urdf", "environment": %s,'
         ' "q0": [0], "q1": [1.5]}' % json.dumps(POST), "ok"),
        ('{"kind": "articulated", "urdf": "arm.urdf", "environment": %s, "q0": [0], "q1": [-1],'
         ' "mode": "boolean"}' % json.dumps(POST), "ok"),
    ]
    out += [(line, "error") for line in (DATA / "bad.jsonl").read_text().splitlines() if line.strip()]
    out += [
        ('{"kind": "rigid", "a": "tetra.obj", "b": "tetra.obj", "a_start": [0, 0, 0, 3, 0, 0, 0]}', "error"),
        ('{"kind": "articulated", "urdf": "arm.urdf", "environment": "tetra.obj", "q0": [0, 1], "q1": [0, 1]}', "error"),
    ]
    return out


@pytest.fixture(scope="module")
def schema():
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


def validator(schema, name):
    """A validator of one definition (#/$defs/name) of the schema."""
    sub = {"$schema": schema["$schema"], "$ref": f"#/$defs/{name}", "$defs": schema["$defs"]}
    return jsonschema.Draft202012Validator(sub)


@pytest.fixture(scope="module")
def records():
    cases = lines()
    recs = ccd.batch([line for line, _ in cases], base_dir=DATA, threads=1)
    assert len(recs) == len(cases)
    return cases, recs


def test_every_query_line_is_valid(schema):
    query = validator(schema, "query")
    for line, expect in lines():
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue  # "this line is not JSON"
        errors = list(query.iter_errors(value))
        if expect == "ok":
            assert not errors, (line[:120], [e.message for e in errors][:3])


def test_every_record_is_valid(schema, records):
    record, whole = validator(schema, "record"), jsonschema.Draft202012Validator(schema)
    cases, recs = records
    kinds, errors, nulls = set(), set(), set()
    for (line, expect), rec in zip(cases, recs):
        assert expect in rec, (line[:120], rec)
        for v in (record, whole):
            problems = [e.message for e in v.iter_errors(rec)]
            assert not problems, (line[:120], json.dumps(rec)[:300], problems[:3])
        if "ok" in rec:
            kinds.add(rec["ok"]["kind"])
            if rec["ok"]["toc"] is None:
                nulls.add(rec["ok"]["kind"])
        else:
            errors.add(rec["error"]["kind"])
    assert kinds == {"rigid", "vertex_face", "edge_edge", "frames", "articulated"}
    assert {"rigid", "edge_edge", "articulated"} <= nulls
    assert errors == {"parse", "file", "input"}
    frames = [r["ok"] for r in recs if r.get("id") == "resting-apart"][0]
    assert frames["resting"] and "stepsize" in frames and "limiting" in frames, frames
    swing = [r["ok"] for r in recs if r.get("id") == "swing"][0]
    assert swing["contact"]["link_a"] == "upper" and swing["contact"]["link_b"] is None


def test_the_schema_rejects_other_spellings(schema, records):
    """The schema is strict: the earlier feature spelling, a capitalised status, a missing or
    an extra field fail it (so the test above could fail)."""
    record = validator(schema, "record")
    _, recs = records
    rigid = next(r for r in recs if "ok" in r and r["ok"]["kind"] == "rigid" and r["ok"]["contact"])
    assert record.is_valid(rigid)
    mutations = []
    old = copy.deepcopy(rigid)
    old["ok"]["contact"]["feature_a"] = {"Vertex": old["ok"]["contact"]["feature_a"][1]}
    mutations.append(old)
    cap = copy.deepcopy(rigid)
    cap["ok"]["contact"]["status"] = "Converged"
    mutations.append(cap)
    missing = copy.deepcopy(rigid)
    del missing["ok"]["contact"]["normal"]
    mutations.append(missing)
    extra = copy.deepcopy(rigid)
    extra["ok"]["depth"] = 0.0
    mutations.append(extra)
    both = copy.deepcopy(rigid)
    both["error"] = {"kind": "input", "message": "x"}
    mutations.append(both)
    late = copy.deepcopy(rigid)
    late["ok"]["toc"] = 1.5
    mutations.append(late)
    for m in mutations:
        assert not record.is_valid(m), json.dumps(m)[:200]
    query = validator(schema, "query")
    assert not query.is_valid({"kind": "rigid", "a": "x.obj", "b": "x.obj", "tolerence": 0.1})
    assert not query.is_valid({"kind": "rigid", "a": "x.obj", "b": "x.obj", "a_start": [1, 2]})
    assert not query.is_valid({"kind": "spin", "a": "x.obj"})


def test_schema_enums_are_the_python_vocabulary(schema):
    defs = schema["$defs"]
    assert set(defs["status"]["enum"]) == set(ccd.STATUS_NAMES) - {"no_contact"}
    kinds = [alt["prefixItems"][0]["const"] for alt in defs["feature"]["oneOf"]]
    assert kinds == list(ccd.FEATURE_NAMES)
