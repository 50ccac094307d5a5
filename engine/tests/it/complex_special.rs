//! Complex special values against torch (`tests/data/complex_special.json`, written by
//! `python -m bcast_suite.engine_tables complex_special`): every unary op, `mul`, `div` and
//! `pow` on the values whose parts are each 0, -0, 1, -1, inf, -inf or NaN. torch's CPU
//! kernels follow C99 Annex G there (glibc's `csqrt`, `cexp`, `csin`, ... through
//! `std::complex`), and do so at every position of a tensor (its vectorised loops agree with
//! its scalar one on these values). A part torch gives as NaN, an infinity or a zero must be
//! the same in the engine (the sign of a NaN aside); a finite non-zero part may differ by the
//! rounding of the dtype.

use crate::tables;

use bcast_engine::ops::{self, BinaryOp, Operand, UnaryOp};
use bcast_engine::{DType, Result, Scalar, Tensor};
use serde_json::Value;

fn arg(v: &Value) -> Operand {
    match v.get("tensor") {
        Some(t) => Operand::Tensor(tables::tensor(t)),
        None => Operand::Number(tables::number(&v["number"])),
    }
}

fn run(row: &Value) -> Result<Tensor> {
    let name = row["op"].as_str().unwrap();
    let args: Vec<Operand> = row["args"].as_array().unwrap().iter().map(arg).collect();
    if let Some(op) = BinaryOp::from_name(name) {
        return ops::binary(op, args[0].clone(), args[1].clone(), None);
    }
    let op = UnaryOp::from_name(name).unwrap_or_else(|| panic!("unknown op {name}"));
    ops::unary(op, args[0].as_tensor().unwrap(), None)
}

/// A part of torch's result and the engine's agree: the same special value, or finite and
/// non-zero within `tol` of each other (relative).
fn part_agrees(got: f64, want: f64, tol: f64) -> bool {
    if want.is_nan() || got.is_nan() {
        return want.is_nan() && got.is_nan();
    }
    if want.is_infinite() || want == 0.0 || got.is_infinite() || got == 0.0 {
        return got.to_bits() == want.to_bits();
    }
    (got - want).abs() <= tol * want.abs()
}

fn input_text(row: &Value, i: usize) -> String {
    row["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| match a.get("tensor") {
            Some(t) => format!("{:?}", tables::tensor(t).to_scalars()[i]),
            None => a["number"].to_string(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn complex_special_values_match_torch() {
    let rows = tables::load("complex_special");
    let mut failures = Vec::new();
    let mut checked = 0;
    for row in &rows {
        let want = tables::tensor(&row["outcome"]["tensor"]);
        let got = match run(row) {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("{}: {e}", row["op"]));
                continue;
            }
        };
        assert_eq!((got.dtype(), got.shape()), (want.dtype(), want.shape()));
        let tol = if want.dtype() == DType::Complex64 {
            1e-5
        } else {
            1e-12
        };
        for (i, (g, w)) in got
            .to_scalars()
            .into_iter()
            .zip(want.to_scalars())
            .enumerate()
        {
            checked += 1;
            let (Scalar::Complex(a, b), Scalar::Complex(c, d)) = (g, w) else {
                panic!("complex results")
            };
            if !(part_agrees(a, c, tol) && part_agrees(b, d, tol)) {
                failures.push(format!(
                    "{} {} ({}): engine ({a:?}, {b:?}), torch ({c:?}, {d:?})",
                    row["op"],
                    want.dtype(),
                    input_text(row, i)
                ));
            }
        }
    }
    assert!(checked > 5_000, "{checked} values checked");
    assert!(
        failures.is_empty(),
        "{} of {checked} values differ from torch:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
