//! The fill recipes and the sampled positions against the golden vectors of
//! `tests/data/fill_vectors.json`, which `python/tests/test_fill_vectors.py` checks the Python
//! implementation against; and the fill helper of the repro snippets, run in Python.

use bcast_case::{DType, ValueKind};
use bcast_conformance::backend::reference::sample_positions;
use bcast_conformance::backend::registry::default_python;
use bcast_conformance::case::{fill_values, splitmix64, storage_values, Case, Fill, FillKind, Num};
use bcast_conformance::repro::python_snippet;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn vectors() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fill_vectors.json");
    let text = std::fs::read_to_string(&path).expect("the golden vectors are readable");
    serde_json::from_str(&text).expect("the golden vectors are JSON")
}

/// Whether `got` is exactly the float JSON element `want` (a number, or "inf", "-inf", "nan").
fn same_float(f: f64, want: &Value) -> bool {
    match want.as_str() {
        Some("inf") => f == f64::INFINITY,
        Some("-inf") => f == f64::NEG_INFINITY,
        Some("nan") => f.is_nan(),
        _ => want.as_f64().is_some_and(|w| w.to_bits() == f.to_bits()),
    }
}

/// Whether `got` is exactly the JSON element `want` of a storage of `dtype`, and a value of
/// the dtype.
fn same(dtype: DType, got: Num, want: &Value) -> bool {
    got.fits(dtype)
        && match (dtype.value_kind(), got) {
            (ValueKind::Bool, Num::Bool(b)) => want.as_bool() == Some(b),
            (ValueKind::Int, Num::Int(i)) => want.as_i64() == Some(i),
            (ValueKind::Float, Num::Float(f)) => same_float(f, want),
            (ValueKind::Complex, Num::Complex(re, im)) => want
                .as_array()
                .is_some_and(|p| p.len() == 2 && same_float(re, &p[0]) && same_float(im, &p[1])),
            _ => false,
        }
}

fn assert_values(what: &str, dtype: DType, got: &[Num], want: &[Value]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            same(dtype, *g, w),
            "{what}[{i}]: {g:?}, the vectors say {w}"
        );
    }
}

#[test]
fn splitmix64_steps_as_the_vectors_say() {
    let chain = vectors()["splitmix64"].as_array().unwrap().clone();
    assert!(!chain.is_empty());
    for step in chain {
        let (next, output) = splitmix64(step["state"].as_u64().unwrap());
        assert_eq!(next, step["next"].as_u64().unwrap(), "{step}");
        assert_eq!(output, step["output"].as_u64().unwrap(), "{step}");
    }
}

#[test]
fn every_fill_recipe_gives_the_vectors_values() {
    let fills = vectors()["fills"].as_array().unwrap().clone();
    assert!(fills.len() >= 20, "{} vectors", fills.len());
    for entry in &fills {
        let dtype = DType::from_name(entry["dtype"].as_str().unwrap()).unwrap();
        let fill: Fill = serde_json::from_value(entry["fill"].clone()).unwrap();
        let want = entry["values"].as_array().unwrap();
        assert_values(&entry.to_string(), dtype, &fill_values(dtype, &fill), want);
    }
}

#[test]
fn the_vectors_cover_every_dtype_and_kind() {
    let fills = vectors()["fills"].as_array().unwrap().clone();
    for dtype in DType::ALL {
        for kind in ["arange", "random"] {
            assert!(
                fills
                    .iter()
                    .any(|e| e["dtype"] == dtype.name() && e["fill"]["kind"] == kind),
                "no {kind} vector of {}",
                dtype.name()
            );
        }
    }
}

#[test]
fn arange_past_the_exact_range_wraps_or_rounds_as_the_vectors_say() {
    let entries = vectors()["arange_at"].as_array().unwrap().clone();
    assert!(entries.len() >= 20, "{} vectors", entries.len());
    for entry in &entries {
        let dtype = DType::from_name(entry["dtype"].as_str().unwrap()).unwrap();
        let index = entry["index"].as_u64().unwrap() as usize;
        let fill = Fill {
            kind: FillKind::Arange,
            len: index + 1,
            seed: 0,
        };
        let got = fill_values(dtype, &fill)[index];
        assert!(same(dtype, got, &entry["value"]), "{entry}: {got:?}");
    }
}

#[test]
fn sampled_positions_are_the_vectors_positions() {
    let samples = vectors()["samples"].as_array().unwrap().clone();
    assert!(samples.iter().any(|s| s["positions"].is_null()));
    assert!(samples.iter().any(|s| !s["positions"].is_null()));
    for entry in samples {
        let numel = entry["numel"].as_u64().unwrap() as usize;
        let want: Option<Vec<usize>> = serde_json::from_value(entry["positions"].clone()).unwrap();
        assert_eq!(sample_positions(numel), want, "numel {numel}");
    }
}

/// A case whose storages cover both fill kinds, every dtype, a seed past 2^63 and literal values.
fn filled_case() -> Case {
    serde_json::from_str(
        r#"{"id": "fills", "storages": {
            "a": {"dtype": "float32", "fill": {"kind": "random", "seed": 7, "len": 40}},
            "b": {"dtype": "float64", "fill": {"kind": "random", "seed": 18446744073709551615, "len": 9}},
            "c": {"dtype": "int64", "fill": {"kind": "random", "seed": 3, "len": 30}},
            "d": {"dtype": "bool", "fill": {"kind": "random", "seed": 11, "len": 17}},
            "e": {"dtype": "int64", "fill": {"kind": "arange", "len": 5}},
            "f": {"dtype": "bool", "fill": {"kind": "arange", "len": 4}},
            "g": {"dtype": "float32", "fill": {"kind": "arange", "len": 3}},
            "h": {"dtype": "float64", "values": [1.5, "nan", "-inf"]},
            "i": {"dtype": "uint8", "fill": {"kind": "random", "seed": 5, "len": 9}},
            "j": {"dtype": "int8", "fill": {"kind": "arange", "len": 300}},
            "k": {"dtype": "int16", "fill": {"kind": "random", "seed": 6, "len": 7}},
            "l": {"dtype": "int32", "fill": {"kind": "arange", "len": 5}},
            "m": {"dtype": "float16", "fill": {"kind": "arange", "len": 2100}},
            "n": {"dtype": "bfloat16", "fill": {"kind": "random", "seed": 8, "len": 11}},
            "o": {"dtype": "complex64", "fill": {"kind": "random", "seed": 9, "len": 6}},
            "p": {"dtype": "complex128", "values": [[1.5, "-inf"], ["nan", -0.25]]},
            "q": {"dtype": "bfloat16", "values": [0.5, "inf", -65280.0, 0.0001220703125]}},
          "tensors": {"x": {"storage": "a", "shape": [4, 10], "strides": [10, 1]}},
          "call": {"fn": "Tensor.clone", "args": [{"tensor": "x"}]}}"#,
    )
    .unwrap()
}

#[test]
fn the_repro_snippet_builds_the_storages_the_rust_fills_give() {
    let Some(python) = default_python() else {
        eprintln!("no python with torch (BCAST_PYTHON or the venv): the repro snippet is not run");
        return;
    };
    let case = filled_case();
    let mut script = python_snippet(&case);
    script.push_str("import json\nprint(json.dumps({");
    for name in case.storages.keys() {
        script.push_str(&format!(
            "{name:?}: [[repr(v.real), repr(v.imag)] if isinstance(v, complex) else repr(v) \
             for v in {name}.tolist()], "
        ));
    }
    script.push_str("}))\n");
    let package = Path::new(env!("CARGO_MANIFEST_DIR")).join("../python");
    let out = Command::new(&python)
        .env("PYTHONPATH", package)
        .arg("-c")
        .arg(&script)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "the snippet failed:\n{script}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let printed: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    for (name, spec) in &case.storages {
        let dtype = DType::from_name(&spec.dtype).unwrap();
        let want: Vec<Value> = storage_values(spec)
            .unwrap()
            .into_iter()
            .map(|v| python_repr(dtype, v))
            .collect();
        let got: Vec<Value> = serde_json::from_value(printed[name].clone()).unwrap();
        assert_eq!(got, want, "storage {name} of the snippet:\n{script}");
    }
}

/// What Python's `repr` prints for an element of a torch tensor of `dtype` after `tolist()`
/// (a complex element: the reprs of its parts).
fn python_repr(dtype: DType, v: Num) -> Value {
    let float = |f: f64| {
        if f.is_nan() {
            "nan".to_string()
        } else if f.is_infinite() {
            if f > 0.0 { "inf" } else { "-inf" }.to_string()
        } else {
            format!("{f:?}")
        }
    };
    match (dtype.value_kind(), v) {
        (ValueKind::Bool, Num::Bool(b)) => if b { "True" } else { "False" }.into(),
        (ValueKind::Int, Num::Int(i)) => i.to_string().into(),
        (_, Num::Complex(re, im)) => Value::from(vec![float(re), float(im)]),
        (_, v) => float(v.to_f64()).into(),
    }
}
