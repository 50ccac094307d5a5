//! Pass rates per check level. A level counts only the cases it applies to (messages: cases
//! where torch raised; values: cases where torch returned a tensor; ...), and a case passes a
//! level when the backend answered, agreed on ok vs error, and no check of that level differs.

use crate::backend::Level;
use crate::case::{LoadedCase, Outcome, ResultValue};
use crate::runner::suite::{Status, SuiteResult};
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
        if self.applicable == 0 {
            return "n/a".to_string();
        }
        let pct = 100.0 * self.passed as f64 / self.applicable as f64;
        format!("{}/{} ({})", self.passed, self.applicable, format_pct(pct))
    }
}

fn format_pct(pct: f64) -> String {
    if pct > 99.95 && pct < 100.0 {
        "99.9%".to_string()
    } else {
        format!("{pct:.1}%").replace(".0%", "%")
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

/// Per-level counts of a run, for the levels it checked; cases skipped or without expectation
/// do not count. A case's levels are judged on the backend's whole answer (the entry's
/// [`failed_levels`](crate::runner::suite::Entry::failed_levels)), not the clipped copy the
/// report keeps.
pub fn level_counts(result: &SuiteResult, cases: &[LoadedCase]) -> BTreeMap<Level, LevelCount> {
    let mut counts: BTreeMap<Level, LevelCount> = result
        .levels
        .iter()
        .map(|l| (*l, LevelCount::default()))
        .collect();
    for e in result.entries.iter().filter(|e| e.status != Status::Skip) {
        let case = &cases[e.index].case;
        let Some(expect) = &case.expect else { continue };
        let failed = e.failed_levels.as_ref();
        for (level, count) in counts.iter_mut() {
            if !level_applies(*level, expect, case.grad.is_some()) {
                continue;
            }
            count.applicable += 1;
            if failed.is_some_and(|f| !f.contains(level)) {
                count.passed += 1;
            }
        }
    }
    counts
}
