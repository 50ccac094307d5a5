//! Element-wise ops over the thirteen dtypes against torch (`tests/data/elementwise.json`):
//! result dtype and values (bit for bit, but for the transcendental ops, which torch computes
//! with vectorised approximations) or torch's exact error.

use crate::tables;

use bcast_engine::ops::{self, BinaryOp, CompareOp, Operand, UnaryOp};
use bcast_engine::{DType, Result, Scalar, Tensor};
use serde_json::Value;

fn arg(v: &Value) -> Operand {
    match v.get("tensor") {
        Some(t) => Operand::Tensor(tables::tensor(t)),
        None => Operand::Number(tables::number(&v["number"])),
    }
}

fn tensor_arg(o: &Operand) -> &Tensor {
    o.as_tensor().expect("a tensor argument")
}

/// Runs one row's call in the engine.
fn run(row: &Value) -> Result<Tensor> {
    let name = row["op"].as_str().unwrap();
    let args: Vec<Operand> = row["args"].as_array().unwrap().iter().map(arg).collect();
    let out = row
        .get("out")
        .map(|d| Tensor::zeros(&[0], tables::dtype(d)).unwrap());
    let inplace = row.get("inplace").and_then(Value::as_bool).unwrap_or(false);
    // `out=` a clone of the first argument.
    let out = match row.get("out_of") {
        Some(_) => Some(tensor_arg(&args[0]).clone_tensor().unwrap()),
        None => out,
    };
    if name == "where" {
        return ops::r#where(
            tensor_arg(&args[0]),
            args[1].clone(),
            args[2].clone(),
            out.as_ref(),
        );
    }
    if let Some(mut op) = BinaryOp::from_name(name) {
        if let Some(alpha) = row.get("alpha") {
            op = op.with_alpha(tables::number(alpha)).unwrap();
        }
        if inplace {
            let a = tensor_arg(&args[0]).clone_tensor().unwrap();
            return ops::binary_(op, &a, args[1].clone());
        }
        return ops::binary(op, args[0].clone(), args[1].clone(), out.as_ref());
    }
    if let Some(op) = CompareOp::from_name(name) {
        return ops::compare(op, args[0].clone(), args[1].clone(), out.as_ref());
    }
    let op = UnaryOp::from_name(name).unwrap_or_else(|| panic!("unknown op {name}"));
    ops::unary(op, tensor_arg(&args[0]), out.as_ref())
}

/// Whether the engine's value is torch's within the rounding of `dtype` (for the ops torch
/// computes with approximations).
fn close(got: Scalar, want: Scalar, dtype: DType, precision: DType) -> bool {
    let tol = match precision {
        DType::Float16 => 1e-3,
        DType::BFloat16 => 8e-3,
        DType::Float32 => 4e-6,
        _ => 1e-13,
    };
    let near = |g: f64, w: f64| {
        g.to_bits() == w.to_bits()
            || (g.is_nan() && w.is_nan())
            || (g - w).abs()
                <= tol
                    * w.abs().max(if dtype.to_real() == DType::Float64 {
                        1e-300
                    } else {
                        1e-30
                    })
    };
    match (got, want) {
        (Scalar::Float(g), Scalar::Float(w)) => near(g, w),
        (Scalar::Complex(a, b), Scalar::Complex(c, d)) => {
            // A complex result's parts are approximate relative to its modulus.
            let m = c.hypot(d);
            let near_m = |g: f64, w: f64| near(g, w) || (g - w).abs() <= tol * m;
            near_m(a, c) && near_m(b, d)
        }
        (g, w) => tables::same_value(g, w),
    }
}

fn approximate(row: &Value) -> bool {
    let name = row["op"].as_str().unwrap();
    UnaryOp::from_name(name).is_some_and(UnaryOp::is_transcendental)
        || name == "pow"
        || name == "sqrt"
        || name == "reciprocal"
        || name == "div"
        || name == "abs"
}

fn check(row: &Value) -> std::result::Result<(), String> {
    let got = run(row);
    let want = &row["outcome"];
    match (got, want.get("tensor")) {
        (Ok(t), Some(w)) => {
            let w = tables::tensor(w);
            let complex = w.dtype().is_complex() || tensor_args_complex(row);
            // The coarsest dtype the value went through: the output's, or an input's (the
            // op computes in that; integers in float32).
            let precision = row["args"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|a| {
                    a.get("tensor")
                        .map(|t| tables::dtype(&t["dtype"]).to_real())
                })
                .map(|d| if d.is_floating() { d } else { DType::Float32 })
                .chain([w.dtype().to_real()])
                .filter(|d| d.is_floating())
                .min_by_key(|d| d.itemsize())
                .unwrap_or(DType::Float32);
            if approximate(row) && (w.dtype().is_floating() || complex) {
                if t.dtype() != w.dtype() || t.shape() != w.shape() {
                    return Err(format!(
                        "{} {:?} != torch's {} {:?}",
                        t.dtype(),
                        t.shape(),
                        w.dtype(),
                        w.shape()
                    ));
                }
                for (i, (g, x)) in t.to_scalars().into_iter().zip(w.to_scalars()).enumerate() {
                    if !close(g, x, w.dtype(), precision) {
                        return Err(format!("element {i}: {g:?} != torch's {x:?}"));
                    }
                }
                Ok(())
            } else {
                tables::check_tensor(&t, &w)
            }
        }
        (Err(e), None) => tables::check_error(&e, want),
        (Ok(t), None) => Err(format!(
            "{} {:?} where torch raises {want}",
            t.dtype(),
            t.to_scalars()
        )),
        (Err(e), Some(_)) => Err(format!("{e} where torch answers")),
    }
}

/// How many rows of the table torch computes in `complex32` (340 of 3,005 as written).
const COMPLEX32_ROWS: usize = 340;

/// Whether a row has a `complex32` operand, or a `float16` tensor with a complex number, or a
/// `complex32` result.
fn computes_in_complex32(row: &Value) -> bool {
    let args = row["args"].as_array().unwrap();
    let has_tensor = |dtype: &str| {
        args.iter()
            .any(|a| a.get("tensor").is_some_and(|t| t["dtype"] == dtype))
    };
    let complex_number = args
        .iter()
        .any(|a| a.get("number").is_some_and(|n| n.get("complex").is_some()));
    has_tensor("complex32")
        || (has_tensor("float16") && complex_number)
        || row["outcome"]
            .get("tensor")
            .is_some_and(|t| t["dtype"] == "complex32")
}

fn tensor_args_complex(row: &Value) -> bool {
    row["args"].as_array().unwrap().iter().any(|a| {
        a.get("tensor")
            .is_some_and(|t| t["dtype"].as_str().unwrap().starts_with("complex"))
            || a.get("number").is_some_and(|n| n.get("complex").is_some())
    })
}

#[test]
fn elementwise_ops_match_torch_on_every_dtype() {
    let rows = tables::load("elementwise");
    let mut failures = Vec::new();
    for row in &rows {
        if let Err(e) = check(row) {
            let args: Vec<String> = row["args"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| match a.get("tensor") {
                    Some(t) => t["dtype"].as_str().unwrap().to_string(),
                    None => a["number"].to_string(),
                })
                .collect();
            let extra: Vec<String> = ["alpha", "out", "inplace", "out_of"]
                .iter()
                .filter_map(|k| row.get(*k).map(|v| format!("{k}={v}")))
                .collect();
            failures.push(format!(
                "{}({}) {}: {e}",
                row["op"],
                args.join(", "),
                extra.join(" ")
            ));
        }
    }
    // complex32 operands, and float16 with a complex number (which torch computes in
    // complex32), are among the rows checked.
    let complex32 = rows.iter().filter(|r| computes_in_complex32(r)).count();
    assert!(complex32 >= COMPLEX32_ROWS, "{complex32} complex32 rows");
    let limit = std::env::var("SHOW")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    assert!(
        failures.is_empty(),
        "{} of {} rows differ:\n{}",
        failures.len(),
        rows.len(),
        failures
            .iter()
            .take(limit)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
