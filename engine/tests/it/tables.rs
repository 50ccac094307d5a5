//! Reading the torch-generated tables of `tests/data/` (written by
//! `python/bcast_suite/engine_tables.py`) and comparing engine values with torch's.

#![allow(dead_code)]

use bcast_engine::{Buffer, DType, Error, Layout, Scalar, Storage, Tensor};
use serde_json::Value;

/// A table's rows.
pub fn load(name: &str) -> Vec<Value> {
    let path = format!("{}/tests/data/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let table: Value = serde_json::from_str(&text).unwrap();
    table["rows"].as_array().expect("rows").clone()
}

/// A dtype from its name.
pub fn dtype(v: &Value) -> DType {
    DType::from_name(v.as_str().expect("dtype name")).expect("known dtype")
}

fn hex_bytes(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

/// A `{"dtype", "shape", "hex"}` tensor.
pub fn tensor(v: &Value) -> Tensor {
    let d = dtype(&v["dtype"]);
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap() as usize)
        .collect();
    let buffer = Buffer::from_le_bytes(d, &hex_bytes(v["hex"].as_str().unwrap())).unwrap();
    Tensor::from_storage(&Storage::new(buffer), Layout::contiguous(&shape)).unwrap()
}

/// A Python number written as `{"bool"}`, `{"int"}`, `{"float": text}` or `{"complex": [re, im]}`
/// (floats as Python's `repr`, so `nan` and `inf` survive).
pub fn number(v: &Value) -> Scalar {
    if let Some(b) = v.get("bool") {
        return Scalar::Bool(b.as_bool().unwrap());
    }
    if let Some(i) = v.get("int") {
        return Scalar::Int(i.as_i64().unwrap());
    }
    if let Some(f) = v.get("float") {
        return Scalar::Float(float(f));
    }
    let c = v["complex"].as_array().unwrap();
    Scalar::Complex(float(&c[0]), float(&c[1]))
}

fn float(v: &Value) -> f64 {
    match v.as_str().unwrap() {
        "nan" => f64::NAN,
        "-nan" => -f64::NAN,
        "inf" => f64::INFINITY,
        "-inf" => f64::NEG_INFINITY,
        s => s.parse().unwrap(),
    }
}

fn same_float(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// Whether two values are the same: integers equal, floats bit for bit except that any NaN
/// matches any NaN (torch's own NaN payloads depend on its loop's path).
pub fn same_value(a: Scalar, b: Scalar) -> bool {
    match (a, b) {
        (Scalar::Float(x), Scalar::Float(y)) => same_float(x, y),
        (Scalar::Complex(a, b), Scalar::Complex(c, d)) => same_float(a, c) && same_float(b, d),
        (x, y) => x == y,
    }
}

/// Compares an engine tensor with torch's: dtype, shape and every value ([`same_value`]).
pub fn check_tensor(got: &Tensor, want: &Tensor) -> Result<(), String> {
    if got.dtype() != want.dtype() {
        return Err(format!("dtype {} != torch's {}", got.dtype(), want.dtype()));
    }
    if got.shape() != want.shape() {
        return Err(format!(
            "shape {:?} != torch's {:?}",
            got.shape(),
            want.shape()
        ));
    }
    let (g, w) = (got.to_scalars(), want.to_scalars());
    for (i, (x, y)) in g.iter().zip(&w).enumerate() {
        if !same_value(*x, *y) {
            return Err(format!("element {i}: {x:?} != torch's {y:?}"));
        }
    }
    Ok(())
}

/// Compares an engine error with torch's `{"error": class, "message": text}`.
pub fn check_error(got: &Error, want: &Value) -> Result<(), String> {
    let (class, message) = (
        want["error"].as_str().unwrap(),
        want["message"].as_str().unwrap(),
    );
    if got.kind().name() != class || got.message() != message {
        return Err(format!(
            "error {}: {:?} != torch's {class}: {message:?}",
            got.kind().name(),
            got.message()
        ));
    }
    Ok(())
}

/// Compares an engine outcome with torch's (`{"tensor": ...}` or an error): `same` judges a
/// result against torch's tensor; an error must be torch's, class and message.
pub fn check_outcome(
    got: bcast_engine::Result<Tensor>,
    want: &Value,
    same: impl FnOnce(&Tensor, Tensor) -> Result<(), String>,
) -> Result<(), String> {
    match (got, want.get("tensor")) {
        (Ok(t), Some(w)) => same(&t, tensor(w)),
        (Err(e), None) => check_error(&e, want),
        (Ok(t), None) => Err(format!(
            "{} {:?} where torch raises {want}",
            t.dtype(),
            t.shape()
        )),
        (Err(e), Some(_)) => Err(format!("{e} where torch answers")),
    }
}
