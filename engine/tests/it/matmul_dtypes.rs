//! Products over the thirteen dtypes against torch (`tests/data/matmul.json`, written by
//! `python/bcast_suite/engine_tables.py`): `dot`, `mv`, `mm`, `bmm` on each of its CPU paths,
//! `matmul` batched and folded, and `einsum` through `bmm`, through `mul` and with a sum first,
//! on every pair of dtypes: the result dtype and every value bit for bit (NaN matches NaN),
//! or torch's exact error. Long sums (k = 1000) pin float16/bfloat16 accumulation in float32
//! with one rounding at the end, and integer sums wrapping.

use crate::tables;

use bcast_engine::{linalg, Result, Tensor};
use serde_json::Value;

/// The row's call on its operands (the first one's last dim taken with `step`).
fn run(row: &Value) -> Result<Tensor> {
    let a = tables::tensor(&row["args"][0]["tensor"]);
    let b = tables::tensor(&row["args"][1]["tensor"]);
    let step = row["step"].as_i64().unwrap();
    let a = if step > 1 {
        a.slice(-1, None, None, step)?
    } else {
        a
    };
    match row["call"].as_str().unwrap() {
        "dot" => linalg::dot(&a, &b),
        "mv" => linalg::mv(&a, &b),
        "mm" => linalg::mm(&a, &b),
        "bmm" => linalg::bmm(&a, &b),
        "matmul" => linalg::matmul(&a, &b),
        call => match call.strip_prefix("einsum:") {
            Some(equation) => linalg::einsum(equation, &[a, b]),
            None => panic!("unknown call {call}"),
        },
    }
}

fn check(row: &Value) -> std::result::Result<(), String> {
    tables::check_outcome(run(row), &row["outcome"], |t, w| {
        tables::check_tensor(&t.contiguous().unwrap(), &w)
    })
}

#[test]
fn products_match_torch_on_every_pair_of_dtypes() {
    let rows = tables::load("matmul");
    let failures: Vec<String> = rows
        .iter()
        .filter_map(|row| {
            check(row).err().map(|e| {
                format!(
                    "{} ({} {}): {e}",
                    row["form"],
                    row["args"][0]["tensor"]["dtype"],
                    row["args"][1]["tensor"]["dtype"],
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
    assert_eq!(rows.len(), 2627);
}

/// The long float16/bfloat16 sums are there to tell accumulators apart: rounding to the dtype
/// after every step gives other values for each of them.
#[test]
fn long_half_sums_tell_one_rounding_from_many() {
    let rows = tables::load("matmul");
    let mut told = 0;
    for row in &rows {
        let form = row["form"].as_str().unwrap();
        let dtype = row["args"][0]["tensor"]["dtype"].as_str().unwrap();
        if !(form.ends_with("-long") || form.ends_with("-partial-overflow"))
            || !(dtype == "float16" || dtype == "bfloat16")
        {
            continue;
        }
        let want = tables::tensor(&row["outcome"]["tensor"]);
        let per_step = per_step_rounding(row);
        assert!(
            tables::check_tensor(&per_step, &want).is_err(),
            "{form} {dtype}: rounding every step gives torch's values too"
        );
        told += 1;
    }
    assert_eq!(told, 13);
}

/// `a @ b` (or `dot`, `mv`) in the operands' reduced dtype with a rounding after every
/// multiply and every add: what torch does not do.
fn per_step_rounding(row: &Value) -> Tensor {
    let a = tables::tensor(&row["args"][0]["tensor"]);
    let b = tables::tensor(&row["args"][1]["tensor"]);
    let dtype = a.dtype();
    let round = |x: f64| {
        Tensor::from_vec(vec![x as f32], &[1])
            .unwrap()
            .to_dtype(dtype)
            .unwrap()
            .to_scalars()[0]
            .to_f64()
    };
    let (sa, sb) = (a.shape().to_vec(), b.shape().to_vec());
    let k = *sa.last().unwrap();
    let n = if sa.len() > 1 { sa[sa.len() - 2] } else { 1 };
    let p = if sb.len() > 1 { sb[sb.len() - 1] } else { 1 };
    let (av, bv) = (a.to_scalars(), b.to_scalars());
    let mut out = Vec::new();
    for i in 0..n {
        for j in 0..p {
            let mut acc = 0.0;
            for kk in 0..k {
                let prod = round(av[i * k + kk].to_f64() * bv[kk * p + j].to_f64());
                acc = round(acc + prod);
            }
            out.push(acc as f32);
        }
    }
    let shape: Vec<usize> = match row["call"].as_str().unwrap() {
        "dot" => vec![],
        "mv" => vec![n],
        _ => row["outcome"]["tensor"]["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_u64().unwrap() as usize)
            .collect(),
    };
    Tensor::from_vec(out, &shape)
        .unwrap()
        .to_dtype(dtype)
        .unwrap()
}
