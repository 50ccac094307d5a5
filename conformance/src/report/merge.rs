//! Merging the JSON reports of the parts of one run (`bcast run --shard K/N --json PART`) into
//! the report of the whole: the cases of every part, the counts and per-level counts summed.
//!
//! The parts must come from the same backend at the same levels, and no case may appear in two
//! parts (shards of one selection never overlap). The merged cases are ordered by file, then
//! by id.
//!
//! ```
//! use bcast_conformance::report::merge::merge_reports;
//! use serde_json::json;
//! let part = |id: &str, status: &str, passed: u64| json!({
//!     "backend": "reference", "levels": ["shapes"],
//!     "counts": {"pass": passed, "fail": 1 - passed, "xfail": 0, "xpass": 0, "skip": 0},
//!     "level_counts": {"shapes": {"passed": passed, "applicable": 1}},
//!     "cases": [{"id": id, "file": "f.json", "op": "torch.add", "status": status, "elapsed_ms": 1.0}],
//! });
//! let whole = merge_reports(&[part("b", "fail", 0), part("a", "pass", 1)]).unwrap();
//! assert_eq!(whole["counts"]["pass"], 1);
//! assert_eq!(whole["counts"]["fail"], 1);
//! assert_eq!(whole["level_counts"]["shapes"], json!({"passed": 1, "applicable": 2}));
//! assert_eq!(whole["cases"][0]["id"], "a");
//! assert!(merge_reports(&[part("a", "pass", 1), part("a", "pass", 1)]).is_err());
//! ```

use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// The report of the whole run, or why the parts do not make one.
pub fn merge_reports(parts: &[Value]) -> Result<Value, String> {
    let first = parts.first().ok_or("no report to merge")?;
    let backend = &first["backend"];
    let levels = &first["levels"];
    let mut counts: Map<String, Value> = Map::new();
    let mut level_counts: Map<String, Value> = Map::new();
    let mut cases: Vec<Value> = Vec::new();
    let mut ids = BTreeSet::new();
    for (n, part) in parts.iter().enumerate() {
        let which = format!("report {}", n + 1);
        if !part.is_object() || !part["cases"].is_array() {
            return Err(format!("{which}: not a report of bcast run --json"));
        }
        if &part["backend"] != backend {
            return Err(format!(
                "{which}: backend {} differs from {backend} of report 1",
                part["backend"]
            ));
        }
        if &part["levels"] != levels {
            return Err(format!(
                "{which}: levels {} differ from {levels} of report 1",
                part["levels"]
            ));
        }
        add_counts(&mut counts, &part["counts"], &which)?;
        for (level, count) in part["level_counts"].as_object().into_iter().flatten() {
            let slot = level_counts
                .entry(level.clone())
                .or_insert_with(|| Value::Object(Map::new()));
            let Value::Object(slot) = slot else {
                unreachable!("level slots are objects")
            };
            add_counts(slot, count, &format!("{which}: level {level}"))?;
        }
        for case in part["cases"].as_array().into_iter().flatten() {
            let id = case["id"]
                .as_str()
                .ok_or(format!("{which}: a case without id"))?;
            if !ids.insert(id.to_string()) {
                return Err(format!(
                    "{which}: case {id} is in two reports (the parts of one run never overlap)"
                ));
            }
            cases.push(case.clone());
        }
    }
    cases.sort_by(|a, b| {
        let key = |c: &Value| {
            (
                c["file"].as_str().map(String::from),
                c["id"].as_str().map(String::from),
            )
        };
        key(a).cmp(&key(b))
    });
    let mut whole = Map::new();
    whole.insert("backend".into(), backend.clone());
    whole.insert("levels".into(), levels.clone());
    whole.insert("counts".into(), Value::Object(counts));
    whole.insert("level_counts".into(), Value::Object(level_counts));
    whole.insert("cases".into(), Value::Array(cases));
    Ok(Value::Object(whole))
}

/// Adds the integer fields of `part` into `sum`.
fn add_counts(sum: &mut Map<String, Value>, part: &Value, which: &str) -> Result<(), String> {
    let fields = part
        .as_object()
        .ok_or(format!("{which}: counts are not an object"))?;
    for (key, value) in fields {
        let n = value
            .as_u64()
            .ok_or(format!("{which}: count {key} is not a whole number"))?;
        let old = sum.get(key).and_then(Value::as_u64).unwrap_or(0);
        sum.insert(key.clone(), Value::from(old + n));
    }
    Ok(())
}
