//! Reductions over the thirteen dtypes against torch (`tests/data/reduce.json`): result dtype,
//! values (floats to the rounding of their dtype: torch sums in its own order) or torch's
//! exact error.

use crate::tables;

use bcast_engine::{reduce, DType, Result, Scalar, Tensor};
use serde_json::Value;

fn run(row: &Value) -> Result<Tensor> {
    let x = tables::tensor(&row["args"][0]["tensor"]);
    let dims: Vec<i64> = row["dims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_i64().unwrap())
        .collect();
    let dtype = row.get("dtype").map(tables::dtype);
    match row["op"].as_str().unwrap() {
        "sum" => reduce::sum(&x, &dims, false, dtype),
        "mean" => reduce::mean(&x, &dims, false, dtype),
        "amax" => reduce::amax(&x, &dims, false),
        "amin" => reduce::amin(&x, &dims, false),
        "var" => reduce::var(&x, &dims, 1.0, false),
        "std" => reduce::std(&x, &dims, 1.0, false),
        op => panic!("unknown reduction {op}"),
    }
}

fn close(g: f64, w: f64, dtype: DType) -> bool {
    let tol = match dtype {
        DType::Float16 => 1e-3,
        DType::BFloat16 => 8e-3,
        DType::Float32 => 1e-6,
        _ => 1e-14,
    };
    g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()) || (g - w).abs() <= tol * w.abs()
}

fn check(row: &Value) -> std::result::Result<(), String> {
    tables::check_outcome(run(row), &row["outcome"], |t, w| {
        if t.dtype() != w.dtype() || t.shape() != w.shape() {
            return Err(format!(
                "{} {:?} != torch's {} {:?}",
                t.dtype(),
                t.shape(),
                w.dtype(),
                w.shape()
            ));
        }
        let real = w.dtype().to_real();
        for (i, (g, x)) in t.to_scalars().into_iter().zip(w.to_scalars()).enumerate() {
            let ok = match (g, x) {
                (Scalar::Float(a), Scalar::Float(b)) => close(a, b, real),
                (Scalar::Complex(a, b), Scalar::Complex(c, d)) => {
                    close(a, c, real) && close(b, d, real)
                }
                (a, b) => a == b,
            };
            if !ok {
                return Err(format!("element {i}: {g:?} != torch's {x:?}"));
            }
        }
        Ok(())
    })
}

#[test]
fn reductions_match_torch_on_every_dtype() {
    let rows = tables::load("reduce");
    let failures: Vec<String> = rows
        .iter()
        .filter_map(|row| {
            check(row).err().map(|e| {
                format!(
                    "{}({}, dims={}, dtype={}): {e}",
                    row["op"],
                    row["args"][0]["tensor"]["dtype"],
                    row["dims"],
                    row.get("dtype").unwrap_or(&Value::Null)
                )
            })
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} rows differ:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
    assert_eq!(rows.len(), 290);
}
