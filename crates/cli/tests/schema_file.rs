//! The JSON Schema file `docs/schema/ccd-cli.schema.json` against the `ccd` binary's real
//! output: `ccd toc` and `ccd frames` results (with and without contact, with the step size
//! and resting pairs) and every record of `ccd batch` on the test data (results of every
//! kind and error records). The validator here covers exactly the keywords the schema uses
//! (`$ref` to `#/$defs/…`, `anyOf`, `oneOf`, `type`, `const`, `enum`, `properties`,
//! `required`, `additionalProperties: false`, `items`, `prefixItems`, `minItems`,
//! `maxItems`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `minLength`)
//! and fails on any other, so a schema edit cannot slip past it; the Python suite validates
//! the same file with the `jsonschema` package (crates/python/tests/test_schema.py).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn schema() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/schema/ccd-cli.schema.json");
    let text = std::fs::read_to_string(&path).expect("the schema file exists");
    serde_json::from_str(&text).expect("the schema is JSON")
}

fn ccd(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_ccd"))
        .args(args)
        .current_dir(data())
        .output()
        .expect("ccd runs");
    assert!(
        matches!(out.status.code(), Some(0 | 3)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// Errors of `value` against `schema` (a sub-schema of `root`), with JSON-pointer-ish paths.
fn check(root: &Value, schema: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
    let Some(obj) = schema.as_object() else {
        panic!("{at}: sub-schema is not an object: {schema}");
    };
    for (key, rule) in obj {
        match key.as_str() {
            "description" | "title" | "$schema" | "$defs" => {}
            "$ref" => {
                let name = rule
                    .as_str()
                    .and_then(|r| r.strip_prefix("#/$defs/"))
                    .unwrap_or_else(|| panic!("unsupported $ref {rule}"));
                let target = &root["$defs"][name];
                assert!(!target.is_null(), "$ref to a missing definition {name}");
                check(root, target, value, at, errors);
            }
            "anyOf" | "oneOf" => {
                let alternatives = rule.as_array().expect("an array of schemas");
                let passing = alternatives
                    .iter()
                    .filter(|alt| {
                        let mut e = Vec::new();
                        check(root, alt, value, at, &mut e);
                        e.is_empty()
                    })
                    .count();
                let ok = if key == "anyOf" {
                    passing >= 1
                } else {
                    passing == 1
                };
                if !ok {
                    errors.push(format!(
                        "{at}: {passing} alternatives of {key} match {value}"
                    ));
                }
            }
            "type" => {
                let types: Vec<&str> = match rule {
                    Value::String(s) => vec![s.as_str()],
                    Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                    _ => panic!("bad type {rule}"),
                };
                let ok = types.iter().any(|t| match *t {
                    "object" => value.is_object(),
                    "array" => value.is_array(),
                    "string" => value.is_string(),
                    "number" => value.is_number(),
                    "integer" => value.is_i64() || value.is_u64(),
                    "boolean" => value.is_boolean(),
                    "null" => value.is_null(),
                    other => panic!("unknown type {other}"),
                });
                if !ok {
                    errors.push(format!("{at}: {value} is not of type {rule}"));
                }
            }
            "const" => {
                if value != rule {
                    errors.push(format!("{at}: {value} is not {rule}"));
                }
            }
            "enum" => {
                if !rule.as_array().expect("enum array").contains(value) {
                    errors.push(format!("{at}: {value} is not one of {rule}"));
                }
            }
            "properties" => {
                if let Some(v) = value.as_object() {
                    for (name, sub) in rule.as_object().expect("properties object") {
                        if let Some(x) = v.get(name) {
                            check(root, sub, x, &format!("{at}/{name}"), errors);
                        }
                    }
                }
            }
            "required" => {
                if let Some(v) = value.as_object() {
                    for name in rule.as_array().expect("required array") {
                        let name = name.as_str().expect("a name");
                        if !v.contains_key(name) {
                            errors.push(format!("{at}: missing {name}"));
                        }
                    }
                }
            }
            "additionalProperties" => {
                assert_eq!(rule, &json!(false), "only additionalProperties: false");
                if let Some(v) = value.as_object() {
                    let known = obj.get("properties").and_then(Value::as_object);
                    for name in v.keys() {
                        if !known.is_some_and(|k| k.contains_key(name)) {
                            errors.push(format!("{at}: unexpected field {name}"));
                        }
                    }
                }
            }
            "items" => {
                if let Some(v) = value.as_array() {
                    for (i, x) in v.iter().enumerate() {
                        check(root, rule, x, &format!("{at}/{i}"), errors);
                    }
                }
            }
            "prefixItems" => {
                if let Some(v) = value.as_array() {
                    for (i, (sub, x)) in rule
                        .as_array()
                        .expect("prefixItems array")
                        .iter()
                        .zip(v)
                        .enumerate()
                    {
                        check(root, sub, x, &format!("{at}/{i}"), errors);
                    }
                }
            }
            "minItems" | "maxItems" => {
                if let Some(v) = value.as_array() {
                    let n = rule.as_u64().expect("a count");
                    let len = v.len() as u64;
                    if (key == "minItems" && len < n) || (key == "maxItems" && len > n) {
                        errors.push(format!("{at}: {len} items against {key} {n}"));
                    }
                }
            }
            "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
                if let Some(x) = value.as_f64() {
                    let bound = rule.as_f64().expect("a bound");
                    let ok = match key.as_str() {
                        "minimum" => x >= bound,
                        "maximum" => x <= bound,
                        "exclusiveMinimum" => x > bound,
                        _ => x < bound,
                    };
                    if !ok {
                        errors.push(format!("{at}: {x} against {key} {bound}"));
                    }
                }
            }
            "minLength" => {
                if let Some(s) = value.as_str()
                    && (s.chars().count() as u64) < rule.as_u64().expect("a length")
                {
                    errors.push(format!("{at}: string shorter than {rule}"));
                }
            }
            other => panic!("the schema uses {other:?}, which this validator does not know"),
        }
    }
}

fn errors_of(root: &Value, def: &str, value: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    check(
        root,
        &json!({ "$ref": format!("#/$defs/{def}") }),
        value,
        "",
        &mut errors,
    );
    errors
}

fn assert_valid(root: &Value, def: &str, text: &str) -> Value {
    let value: Value = serde_json::from_str(text).expect("the output is JSON");
    let errors = errors_of(root, def, &value);
    assert!(errors.is_empty(), "{def} {text}: {errors:#?}");
    // the root schema accepts it too
    let mut e = Vec::new();
    check(root, root, &value, "", &mut e);
    assert!(e.is_empty(), "root {text}: {e:#?}");
    value
}

#[test]
fn toc_and_frames_results_match_the_schema() {
    let root = schema();
    let hit = assert_valid(
        &root,
        "result",
        &ccd(&[
            "toc",
            "tetra.obj",
            "cube.stl",
            "--b-start",
            "3,0,0,1,0,0,0",
            "--b-end",
            "-1,0,0,1,0,0,0",
        ]),
    );
    assert!(hit["contact"]["feature_a"].is_array(), "{hit}");
    let miss = assert_valid(
        &root,
        "result",
        &ccd(&[
            "toc",
            "tetra.obj",
            "tetra.obj",
            "--b-start",
            "0,5,0,1,0,0,0",
        ]),
    );
    assert!(miss["toc"].is_null());
    for args in [
        &["frames", "f0.ply", "f1.ply"][..],
        &["frames", "f0.ply", "f1.ply", "--all"],
        &["frames", "f0.ply", "f1.ply", "--stepsize"],
    ] {
        let v = assert_valid(&root, "result", &ccd(args));
        assert_eq!(v["kind"], "frames");
    }
}

#[test]
fn batch_records_match_the_schema() {
    let root = schema();
    let mut kinds = std::collections::BTreeSet::new();
    for file in ["queries.jsonl", "bad.jsonl"] {
        let input = std::fs::read_to_string(data().join(file)).expect("test data");
        for line in input.lines().filter(|l| !l.trim().is_empty()) {
            if let Ok(query) = serde_json::from_str::<Value>(line)
                && file == "queries.jsonl"
            {
                let errors = errors_of(&root, "query", &query);
                assert!(errors.is_empty(), "query {line}: {errors:#?}");
            }
        }
        for record in ccd(&["batch", file]).lines() {
            let v = assert_valid(&root, "record", record);
            kinds.insert(
                v["ok"]["kind"]
                    .as_str()
                    .or_else(|| v["error"]["kind"].as_str())
                    .expect("a kind")
                    .to_owned(),
            );
        }
    }
    let expected = [
        "edge_edge",
        "file",
        "frames",
        "parse",
        "rigid",
        "vertex_face",
    ];
    assert_eq!(kinds.into_iter().collect::<Vec<_>>(), expected);
}

#[test]
fn the_schema_rejects_other_spellings() {
    let root = schema();
    let good = assert_valid(
        &root,
        "result",
        &ccd(&[
            "toc",
            "tetra.obj",
            "cube.stl",
            "--b-start",
            "3,0,0,1,0,0,0",
            "--b-end",
            "-1,0,0,1,0,0,0",
        ]),
    );
    let mutate = |f: &dyn Fn(&mut Value)| {
        let mut v = good.clone();
        f(&mut v);
        errors_of(&root, "result", &v)
    };
    assert!(!mutate(&|v| v["contact"]["feature_a"] = json!({"Vertex": 1})).is_empty());
    assert!(!mutate(&|v| v["contact"]["feature_a"] = json!(["corner", 1])).is_empty());
    assert!(!mutate(&|v| v["contact"]["status"] = json!("Converged")).is_empty());
    assert!(!mutate(&|v| v["toc"] = json!(1.5)).is_empty());
    assert!(!mutate(&|v| v["depth"] = json!(0.0)).is_empty());
    assert!(
        !mutate(&|v| {
            v["contact"].as_object_mut().unwrap().remove("normal");
        })
        .is_empty()
    );
    let query = json!({"kind": "rigid", "a": "x.obj", "b": "x.obj", "tolerence": 0.1});
    assert!(!errors_of(&root, "query", &query).is_empty());
}
