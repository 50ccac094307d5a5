//! The human summary of a run: one row per op, one column per status, and a total.

use super::levels::level_counts;
use crate::case::LoadedCase;
use crate::runner::suite::{Status, SuiteResult};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The op x status table of a run, as aligned text.
///
/// ```
/// use bcast_conformance::backend::reference::ReferenceBackend;
/// use bcast_conformance::case::{Case, LoadedCase};
/// use bcast_conformance::runner::suite::{run_suite, SuiteOptions};
/// use bcast_conformance::report::summary::summary_table;
/// let case: Case = serde_json::from_str(r#"{"id": "t/1", "storages": {"s": {"dtype": "int64",
///     "values": [1]}}, "tensors": {"t": {"storage": "s", "shape": [1], "strides": [1]}},
///     "call": {"fn": "Tensor.numel", "args": [{"tensor": "t"}]},
///     "expect": {"ok": {"result": {"int": 1}}}}"#).unwrap();
/// let cases = vec![LoadedCase { case, file: "t.json".into(), torch_version: None }];
/// let result = run_suite(&mut ReferenceBackend, &cases, &SuiteOptions::default(), |_, _| {});
/// let table = summary_table(&result, &cases);
/// assert!(table.lines().any(|l| l.starts_with("Tensor.numel") && l.contains(" 1 ")));
/// ```
pub fn summary_table(result: &SuiteResult, cases: &[LoadedCase]) -> String {
    let mut rows: BTreeMap<&str, [usize; 5]> = BTreeMap::new();
    let mut total = [0usize; 5];
    for e in &result.entries {
        let op = cases[e.index].case.call.fn_.as_str();
        let column = Status::ALL.iter().position(|s| *s == e.status).unwrap_or(0);
        rows.entry(op).or_default()[column] += 1;
        total[column] += 1;
    }
    let width = rows.keys().map(|k| k.len()).max().unwrap_or(0).max(5);
    let mut s = String::new();
    let _ = write!(s, "{:<width$}", "op");
    for status in Status::ALL {
        let _ = write!(s, " {:>6}", status.name());
    }
    s.push('\n');
    let mut row = |name: &str, counts: &[usize; 5]| {
        let _ = write!(s, "{name:<width$}");
        for c in counts {
            let _ = write!(s, " {c:>6}");
        }
        s.push('\n');
    };
    for (op, counts) in &rows {
        row(op, counts);
    }
    row("total", &total);
    s
}

/// The per-level pass rates of a run, one line: each level checked, with the cases that passed
/// it out of those it applies to (see [`level_counts`]); skipped cases count nowhere.
///
/// ```
/// use bcast_conformance::backend::reference::ReferenceBackend;
/// use bcast_conformance::case::{Case, LoadedCase};
/// use bcast_conformance::runner::suite::{run_suite, SuiteOptions};
/// use bcast_conformance::report::summary::level_line;
/// let case: Case = serde_json::from_str(r#"{"id": "t/1", "storages": {"s": {"dtype": "int64",
///     "values": [1]}}, "tensors": {"t": {"storage": "s", "shape": [1], "strides": [1]}},
///     "call": {"fn": "Tensor.numel", "args": [{"tensor": "t"}]},
///     "expect": {"ok": {"result": {"int": 1}}}}"#).unwrap();
/// let cases = vec![LoadedCase { case, file: "t.json".into(), torch_version: None }];
/// let result = run_suite(&mut ReferenceBackend, &cases, &SuiteOptions::default(), |_, _| {});
/// assert_eq!(level_line(&result, &cases), "per level (passed/applicable): shapes 1/1 (100%)");
/// ```
pub fn level_line(result: &SuiteResult, cases: &[LoadedCase]) -> String {
    let cells: Vec<String> = level_counts(result, cases)
        .iter()
        .map(|(level, count)| format!("{level} {}", count.cell()))
        .collect();
    format!("per level (passed/applicable): {}", cells.join(", "))
}

/// The one-line verdict of a run.
pub fn summary_line(result: &SuiteResult) -> String {
    let levels: Vec<&str> = result.levels.iter().map(|l| l.name()).collect();
    let stopped = match &result.stopped {
        Some(why) => format!(
            "; STOPPED after {} of {} cases: {why}",
            result.entries.len(),
            result.selected
        ),
        None => String::new(),
    };
    format!(
        "{}: {} cases, {} passed, {} failed, {} xfailed, {} xpassed, {} skipped (levels: {}){stopped}",
        result.backend,
        result.entries.len(),
        result.count(Status::Pass),
        result.count(Status::Fail),
        result.count(Status::Xfail),
        result.count(Status::Xpass),
        result.count(Status::Skip),
        if levels.is_empty() {
            "none".to_string()
        } else {
            levels.join(",")
        }
    )
}
