//! torch's type promotion over the thirteen dtypes (`tests/data/result_type.json`): every pair of
//! operands among dimensioned tensors, 0-d tensors and Python numbers, a sample of triples,
//! and `promote_types` / `can_cast` on every pair of dtypes.

use crate::tables;

use bcast_engine::result_type::{result_type, Participant};
use bcast_engine::DType;
use serde_json::Value;

fn participant(v: &Value) -> Participant {
    match v.get("number") {
        Some(n) => Participant::number(tables::number(n)),
        None => Participant::tensor(
            tables::dtype(&v["dtype"]),
            v["ndim"].as_u64().unwrap() as usize,
        ),
    }
}

#[test]
fn promotion_matches_torch() {
    let rows = tables::load("result_type");
    // Rows of two operands, of three, and of promote_types.
    let (mut failures, mut counts) = (Vec::new(), [0usize; 3]);
    for row in &rows {
        let want = row["result"].as_str().unwrap();
        if let Some(pair) = row.get("promote_types") {
            let (a, b) = (tables::dtype(&pair[0]), tables::dtype(&pair[1]));
            counts[2] += 1;
            if a.promote(b).name() != want {
                failures.push(format!(
                    "promote_types({a}, {b}) = {} != {want}",
                    a.promote(b)
                ));
            }
            if a.can_cast_to(b) != row["can_cast"].as_bool().unwrap() {
                failures.push(format!("can_cast({a}, {b})"));
            }
            continue;
        }
        let ops: Vec<Participant> = row["operands"]
            .as_array()
            .unwrap()
            .iter()
            .map(participant)
            .collect();
        counts[ops.len() - 2] += 1;
        let got = result_type(&ops);
        if got.name() != want {
            failures.push(format!("{}: {got:?} != torch's {want}", row["operands"]));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
    // 31 operands (13 dtypes dimensioned and 0-d, 5 numbers), every pair but two numbers.
    assert_eq!(counts, [31 * 31 - 25, 600, DType::ALL.len().pow(2)]);
}
