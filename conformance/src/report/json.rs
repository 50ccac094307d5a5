//! The JSON report of a run: the backend, the levels checked, the counts, the pass rates per
//! level, and every case with its status, its differences, what torch did where it failed and
//! what the backend answered. Every field is documented in `REPORT.md`.

use super::levels::{level_counts, LevelCount};
use crate::case::{LoadedCase, Outcome};
use crate::runner::suite::{Status, SuiteResult};
use crate::runner::Verdict;
use serde::Serialize;
use std::collections::BTreeMap;

/// The whole report.
#[derive(Debug, Serialize)]
pub struct JsonReport<'a> {
    pub backend: &'a str,
    pub levels: Vec<&'static str>,
    pub counts: BTreeMap<&'static str, usize>,
    /// Per level checked: cases that passed it, and cases it applies to.
    pub level_counts: BTreeMap<&'static str, LevelCount>,
    pub cases: Vec<JsonCase<'a>>,
}

/// One case of the report.
#[derive(Debug, Serialize)]
pub struct JsonCase<'a> {
    pub id: &'a str,
    pub file: String,
    pub op: &'a str,
    pub status: Status,
    /// Why it was skipped, or how it failed (absent for a plain pass).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Every difference, level by level.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mismatches: Vec<JsonMismatch>,
    /// What torch did (the fixture's expectation), for a case that failed (fail or xfail).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<&'a Outcome>,
    /// What the backend answered (absent when it failed to answer or the case was skipped).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub got: Option<&'a Outcome>,
    /// The reasons the xfail list pins for the case, when it failed for another one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub xfail_reasons: Vec<String>,
    pub elapsed_ms: f64,
}

/// One difference.
#[derive(Debug, Serialize)]
pub struct JsonMismatch {
    pub level: &'static str,
    pub place: String,
    pub expected: String,
    pub got: String,
}

/// Builds the report of a run.
pub fn json_report<'a>(result: &'a SuiteResult, cases: &'a [LoadedCase]) -> JsonReport<'a> {
    let counts = Status::ALL
        .into_iter()
        .map(|s| (s.name(), result.count(s)))
        .collect();
    let judged = result
        .entries
        .iter()
        .map(|e| {
            let loaded = &cases[e.index];
            let verdict = &e.report.verdict;
            let mismatches = match verdict {
                Verdict::Fail(ms) => ms
                    .iter()
                    .map(|m| JsonMismatch {
                        level: m.level.name(),
                        place: m.place.clone(),
                        expected: m.expected.clone(),
                        got: m.got.clone(),
                    })
                    .collect(),
                _ => Vec::new(),
            };
            JsonCase {
                id: &e.report.id,
                file: loaded.file.display().to_string(),
                op: &loaded.case.call.fn_,
                status: e.status,
                detail: (*verdict != Verdict::Pass).then(|| verdict.headline()),
                mismatches,
                expected: verdict
                    .is_failure()
                    .then_some(loaded.case.expect.as_ref())
                    .flatten(),
                got: e.report.got.as_ref(),
                xfail_reasons: e.pinned.iter().map(|r| r.to_string()).collect(),
                elapsed_ms: e.elapsed.as_secs_f64() * 1000.0,
            }
        })
        .collect();
    JsonReport {
        backend: &result.backend,
        levels: result.levels.iter().map(|l| l.name()).collect(),
        counts,
        level_counts: level_counts(result, cases)
            .into_iter()
            .map(|(level, count)| (level.name(), count))
            .collect(),
        cases: judged,
    }
}
