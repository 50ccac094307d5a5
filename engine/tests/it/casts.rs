//! `x.to(dtype)` between every pair of the thirteen dtypes on edge values, against torch's CPU
//! casts (`tests/data/casts.json`).

use crate::tables;

#[test]
fn every_cast_matches_torch() {
    let rows = tables::load("casts");
    assert_eq!(rows.len(), 13 * 13);
    let (mut failures, mut elements) = (Vec::new(), 0);
    for row in &rows {
        let x = tables::tensor(&row["input"]);
        let want = tables::tensor(&row["output"]);
        elements += x.numel();
        let got = x.to_dtype(tables::dtype(&row["dst"])).unwrap();
        if let Err(e) = tables::check_tensor(&got, &want) {
            failures.push(format!("{} -> {}: {e}", row["src"], row["dst"]));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} casts differ:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
    assert!(elements > 3000, "{elements}");
}
