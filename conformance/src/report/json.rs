//! The JSON report of a run: the backend, the levels checked, the counts, the pass rates per
//! level, and every case with its status, its differences, what torch did where it failed and
//! what the backend answered. Every field is documented in `REPORT.md`.

use super::levels::{case_levels, level_counts, LevelCount};
use crate::case::{LoadedCase, Outcome};
use crate::compare::Mismatch;
use crate::runner::shard::{Selection, Shard};
use crate::runner::suite::{Status, SuiteResult};
use crate::runner::xfail::kind_token;
use crate::runner::Verdict;
use serde::Serialize;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// The whole report: of a run (its cases are [`JsonCase`]s), or of the parts of one merged
/// (`report::merge`: its cases are kept as the parts wrote them).
#[derive(Debug, Serialize)]
pub struct JsonReport<'a, C = JsonCase<'a>> {
    pub backend: Cow<'a, str>,
    pub levels: Vec<&'static str>,
    /// The cases the filters selected, before `--shard`.
    pub selection: Selection,
    /// The parts of the selection the report holds (`1/1`: all of it).
    pub shards: Vec<Shard>,
    /// Whether every part ran to its last case.
    pub finished: bool,
    /// Why a part stopped before its last case, if one did.
    pub stopped: Option<String>,
    /// Whether the report holds every case of the selection: every part, each finished.
    pub complete: bool,
    pub counts: BTreeMap<&'static str, usize>,
    /// Per level checked: cases that passed it, and cases it applies to.
    pub level_counts: BTreeMap<&'static str, LevelCount>,
    pub cases: Vec<C>,
}

impl JsonReport<'_> {
    /// The report of part `shard` of the selection `selection` (by default a report is of a
    /// run of the whole selection: its cases).
    pub fn in_shard(mut self, shard: Shard, selection: Selection) -> Self {
        self.complete = self.finished && shard.count == 1;
        self.shards = vec![shard];
        self.selection = selection;
        self
    }
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
    /// For a failure (fail, xfail): the levels checked that it failed, as `level_counts`
    /// counts them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_levels: Option<Vec<&'static str>>,
    /// For a backend failure: its kind, as `reason=backend:KIND` spells it (`timed-out`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_kind: Option<String>,
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

impl From<&Mismatch> for JsonMismatch {
    fn from(m: &Mismatch) -> JsonMismatch {
        JsonMismatch {
            level: m.level.name(),
            place: m.place.clone(),
            expected: m.expected.clone(),
            got: m.got.clone(),
        }
    }
}

/// Builds the report of a run of the whole selection `cases` (see [`JsonReport::in_shard`]).
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
                Verdict::Fail(ms) => ms.iter().map(JsonMismatch::from).collect(),
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
                failed_levels: verdict.is_failure().then(|| {
                    case_levels(result, e, cases)
                        .into_iter()
                        .filter(|(_, passed)| !passed)
                        .map(|(level, _)| level.name())
                        .collect()
                }),
                failure_kind: match verdict {
                    Verdict::BackendFailure(f) => Some(kind_token(f.kind)),
                    _ => None,
                },
                elapsed_ms: e.elapsed.as_secs_f64() * 1000.0,
            }
        })
        .collect();
    JsonReport {
        backend: Cow::Borrowed(&result.backend),
        levels: result.levels.iter().map(|l| l.name()).collect(),
        selection: Selection::of(cases.iter().map(|c| c.case.id.as_str())),
        shards: vec![Shard::WHOLE],
        finished: result.stopped.is_none(),
        stopped: result.stopped.as_ref().map(|s| s.to_string()),
        complete: result.stopped.is_none(),
        counts,
        level_counts: level_counts(result, cases)
            .into_iter()
            .map(|(level, count)| (level.name(), count))
            .collect(),
        cases: judged,
    }
}
