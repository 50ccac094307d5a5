//! Pass rates per check level. A level counts only the cases it applies to (messages: cases
//! where torch raised; values: cases where torch returned a tensor; ...), and a case passes a
//! level when the backend answered, agreed on ok vs error, and no check of that level differs.

use crate::backend::Level;
use crate::case::{LoadedCase, Outcome, ResultValue};
use crate::runner::suite::{Entry, Status, SuiteResult};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Passed and applicable case counts of one level.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LevelCount {
    pub passed: usize,
    pub applicable: usize,
}

impl LevelCount {
    /// `passed/applicable (pct%)`, or `n/a` when nothing applied.
    pub fn cell(&self) -> String {
        match self.percent() {
            Some(pct) => format!("{}/{} ({pct})", self.passed, self.applicable),
            None => "n/a".to_string(),
        }
    }

    /// The pass rate as the reports print it (`97.3%`, `100%`; `99.9%` short of all), or
    /// `None` when nothing applied.
    ///
    /// ```
    /// use bcast_conformance::report::levels::LevelCount;
    /// assert_eq!(LevelCount { passed: 1999, applicable: 2000 }.percent().unwrap(), "99.9%");
    /// assert_eq!(LevelCount { passed: 0, applicable: 0 }.percent(), None);
    /// ```
    pub fn percent(&self) -> Option<String> {
        if self.applicable == 0 {
            return None;
        }
        let pct = 100.0 * self.passed as f64 / self.applicable as f64;
        let text = format!("{pct:.1}%").replace(".0%", "%");
        // Short of all is never rounded up to all (99.95% and above).
        Some(if self.passed < self.applicable && text == "100%" {
            "99.9%".to_string()
        } else {
            text
        })
    }
}

/// Whether a level's checks apply to a case with this expectation; `grads` applies to the
/// cases that ask for gradients (`has_grad`), whatever their outcome.
pub fn level_applies(level: Level, expect: &Outcome, has_grad: bool) -> bool {
    match (level, expect) {
        (Level::Shapes, _) => true,
        (Level::Grads, _) => has_grad,
        (Level::Errors | Level::Messages, Outcome::Error(_)) => true,
        (Level::Inplace, Outcome::Ok(_)) => true,
        (Level::Dtypes | Level::Values | Level::Strides | Level::Aliasing, Outcome::Ok(ok)) => {
            matches!(ok.result, ResultValue::Tensor(_) | ResultValue::Tensors(_))
        }
        _ => false,
    }
}

/// How one case of a run counts at the levels the run checked: `(level, passed)` for each one
/// that applies to it; nothing for a case skipped or without expectation. A level is judged on
/// the backend's whole answer (the entry's [`failed_levels`](Entry::failed_levels)), not the
/// clipped copy the report keeps; a backend that did not answer, or answered the other kind,
/// fails every level that applies.
pub fn case_levels(
    result: &SuiteResult,
    entry: &Entry,
    cases: &[LoadedCase],
) -> Vec<(Level, bool)> {
    let case = &cases[entry.index].case;
    let expect = match &case.expect {
        Some(expect) if entry.status != Status::Skip => expect,
        _ => return Vec::new(),
    };
    let failed = entry.failed_levels.as_ref();
    result
        .levels
        .iter()
        .filter(|level| level_applies(**level, expect, case.grad.is_some()))
        .map(|level| (*level, failed.is_some_and(|f| !f.contains(level))))
        .collect()
}

/// Per-level counts of a run, for the levels it checked (see [`case_levels`]); cases skipped
/// or without expectation do not count.
pub fn level_counts(result: &SuiteResult, cases: &[LoadedCase]) -> BTreeMap<Level, LevelCount> {
    let mut counts: BTreeMap<Level, LevelCount> = result
        .levels
        .iter()
        .map(|l| (*l, LevelCount::default()))
        .collect();
    for e in &result.entries {
        add_case(&mut counts, case_levels(result, e, cases));
    }
    counts
}

/// What a run did with the cases of one op (the call's `fn`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpCounts {
    /// Cases run (not skipped).
    pub run: usize,
    pub skipped: usize,
    /// Cases that passed every level checked (pass or xpass).
    pub passed: usize,
    /// Per level checked, as [`level_counts`] counts (`applicable` 0 where the level applies
    /// to none of the op's cases).
    pub levels: BTreeMap<Level, LevelCount>,
}

/// The counts of a run op by op, for every op of a case it reached. Summed over the ops, each
/// level's counts are those of [`level_counts`].
pub fn op_counts(result: &SuiteResult, cases: &[LoadedCase]) -> BTreeMap<String, OpCounts> {
    let mut by_op: BTreeMap<String, OpCounts> = BTreeMap::new();
    for e in &result.entries {
        let op = by_op
            .entry(cases[e.index].case.call.fn_.clone())
            .or_insert_with(|| OpCounts {
                levels: result
                    .levels
                    .iter()
                    .map(|l| (*l, LevelCount::default()))
                    .collect(),
                ..OpCounts::default()
            });
        match e.status {
            Status::Skip => op.skipped += 1,
            Status::Pass | Status::Xpass => {
                op.run += 1;
                op.passed += 1;
            }
            Status::Fail | Status::Xfail => op.run += 1,
        }
        add_case(&mut op.levels, case_levels(result, e, cases));
    }
    by_op
}

fn add_case(counts: &mut BTreeMap<Level, LevelCount>, judged: Vec<(Level, bool)>) {
    for (level, passed) in judged {
        let count = counts.entry(level).or_default();
        count.applicable += 1;
        count.passed += usize::from(passed);
    }
}
