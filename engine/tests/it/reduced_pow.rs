//! `pow` of `float16` and `bfloat16` tensors by a Python number and by a 0-d tensor, against
//! torch (`tests/data/reduced_pow.json`, written by
//! `python -m bcast_suite.engine_tables reduced_pow`): torch rounds the exponent to the base's
//! dtype first and takes fast paths for some exponents (`bfloat16` only), so `2.001` squares
//! and `float16`'s `pow(-0.0, -0.5)` is `inf`. Every value matches torch's bit for bit (any NaN
//! matching any NaN). The table's tensors (768 elements) lie in torch's vectorised loop; its
//! scalar loop rounds `bfloat16`'s `rsqrt` (the exponent -0.5) twice, a unit off at times.

use crate::tables;

use bcast_engine::ops::{self, BinaryOp, Operand};
use serde_json::Value;

fn arg(v: &Value) -> Operand {
    match v.get("tensor") {
        Some(t) => Operand::Tensor(tables::tensor(t)),
        None => Operand::Number(tables::number(&v["number"])),
    }
}

#[test]
fn reduced_pow_matches_torch() {
    let rows = tables::load("reduced_pow");
    let mut failures = Vec::new();
    for row in &rows {
        let args: Vec<Operand> = row["args"].as_array().unwrap().iter().map(arg).collect();
        let got = ops::binary(BinaryOp::Pow, args[0].clone(), args[1].clone(), None);
        let result = tables::check_outcome(got, &row["outcome"], |got, want| {
            tables::check_tensor(got, &want)
        });
        if let Err(e) = result {
            let base = args[0].as_tensor().unwrap().dtype();
            failures.push(format!("pow({base}, {}): {e}", row["args"][1]));
        }
    }
    assert_eq!(rows.len(), 96);
    assert!(
        failures.is_empty(),
        "{} of {} rows differ from torch:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}
