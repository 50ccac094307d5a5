//! A run read back from its JSON report: the run's own, or the merge of a sharded run's parts
//! (`bcast merge-reports`), as the [`SuiteResult`] the other reports are written from, so that
//! the JUnit and HTML reports of a merged run are those of the whole run.
//!
//! Each case of the report is found among the fixture cases by its id; its verdict comes back
//! from its status, differences, backend failure (`failure_kind` and `detail`) and skip reason,
//! and the levels it failed from `failed_levels`. What a report keeps of an answer (`got`) is
//! clipped, so a replayed run is the run as its report saw it.
//!
//! ```
//! use bcast_conformance::backend::reference::ReferenceBackend;
//! use bcast_conformance::case::load_file;
//! use bcast_conformance::report::json::json_report;
//! use bcast_conformance::report::replay::replay;
//! use bcast_conformance::report::summary::level_line;
//! use bcast_conformance::runner::suite::{run_suite, SuiteOptions};
//! let cases = load_file(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/numel.json").as_ref()).unwrap();
//! let result = run_suite(&mut ReferenceBackend, &cases, &SuiteOptions::default(), |_, _| {});
//! let text = serde_json::to_string(&json_report(&result, &cases)).unwrap();
//! let again = replay(&text, &cases).unwrap();
//! assert_eq!(level_line(&again, &cases), level_line(&result, &cases));
//! assert!(replay(&text, &cases[..1]).unwrap_err().contains("is not among the fixture cases"));
//! ```

use crate::backend::{BackendFailure, Level};
use crate::case::{LoadedCase, Outcome};
use crate::compare::Mismatch;
use crate::runner::shard::Selection;
use crate::runner::suite::{Entry, Status, Stopped, SuiteResult};
use crate::runner::xfail::{kind_of_token, Reason};
use crate::runner::{CaseReport, Verdict};
use serde::Deserialize;
use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

/// What replaying reads of a report.
#[derive(Deserialize)]
struct Report {
    backend: String,
    levels: Vec<String>,
    selection: Selection,
    stopped: Option<String>,
    cases: Vec<ReportCase>,
}

/// What replaying reads of a case (the fields of `report::json::JsonCase`).
#[derive(Deserialize)]
struct ReportCase {
    id: String,
    status: Status,
    #[serde(default)]
    detail: Option<String>,
    #[serde(default)]
    mismatches: Vec<ReportMismatch>,
    #[serde(default)]
    got: Option<Outcome>,
    #[serde(default)]
    xfail_reasons: Vec<String>,
    #[serde(default)]
    failed_levels: Option<Vec<String>>,
    #[serde(default)]
    failure_kind: Option<String>,
    elapsed_ms: f64,
}

/// A difference (`report::json::JsonMismatch`) read back.
#[derive(Deserialize)]
struct ReportMismatch {
    level: String,
    place: String,
    expected: String,
    got: String,
}

fn level(name: &str) -> Result<Level, String> {
    Level::from_name(name).ok_or_else(|| format!("unknown level {name:?}"))
}

/// The run a JSON report (`report_json`, its text) describes, over `cases`, the fixture cases
/// it was run on (its `SuiteResult`'s entries index into them), or why the report does not
/// describe a run over them: a case id they lack, a field out of place.
pub fn replay(report_json: &str, cases: &[LoadedCase]) -> Result<SuiteResult, String> {
    let report: Report =
        serde_json::from_str(report_json).map_err(|e| format!("not a bcast report: {e}"))?;
    let index: HashMap<&str, usize> = cases
        .iter()
        .enumerate()
        .map(|(i, c)| (c.case.id.as_str(), i))
        .collect();
    let levels = report
        .levels
        .iter()
        .map(|l| level(l))
        .collect::<Result<BTreeSet<Level>, String>>()?;
    let entries = report
        .cases
        .into_iter()
        .map(|case| entry(case, &index))
        .collect::<Result<Vec<Entry>, String>>()?;
    Ok(SuiteResult {
        backend: report.backend,
        levels,
        entries,
        selected: report.selection.cases,
        stopped: report.stopped.map(Stopped::Reported),
    })
}

fn entry(case: ReportCase, index: &HashMap<&str, usize>) -> Result<Entry, String> {
    let id = case.id;
    let at = |what: String| format!("case {id}: {what}");
    let &position = index
        .get(id.as_str())
        .ok_or_else(|| format!("case {id} of the report is not among the fixture cases given"))?;
    let failed = matches!(case.status, Status::Fail | Status::Xfail);
    let verdict = match case.status {
        Status::Pass | Status::Xpass => Verdict::Pass,
        Status::Skip => Verdict::Skip(
            case.detail
                .as_deref()
                .map(|d| d.strip_prefix("skipped: ").unwrap_or(d).to_string())
                .unwrap_or_default(),
        ),
        Status::Fail | Status::Xfail => match &case.failure_kind {
            Some(token) => {
                let kind = kind_of_token(token)
                    .ok_or_else(|| at(format!("unknown failure kind {token:?}")))?;
                let detail = case.detail.as_deref().unwrap_or_default();
                let prefix = format!("backend failure ({}): ", kind.name());
                let message = detail.strip_prefix(&prefix).unwrap_or(detail);
                Verdict::BackendFailure(BackendFailure::new(kind, message))
            }
            None => Verdict::Fail(
                case.mismatches
                    .into_iter()
                    .map(|m| {
                        Ok(Mismatch {
                            level: level(&m.level).map_err(&at)?,
                            place: m.place,
                            expected: m.expected,
                            got: m.got,
                        })
                    })
                    .collect::<Result<Vec<Mismatch>, String>>()?,
            ),
        },
    };
    let failed_levels = match (failed, case.failed_levels) {
        (true, Some(names)) => names
            .iter()
            .map(|n| level(n))
            .collect::<Result<BTreeSet<Level>, String>>()
            .map_err(&at)?,
        (true, None) => {
            return Err(at(
                "a failure without failed_levels (a report of an older bcast)".into(),
            ))
        }
        (false, _) => BTreeSet::new(),
    };
    let pinned = case
        .xfail_reasons
        .iter()
        .map(|r| Reason::parse(r).map_err(&at))
        .collect::<Result<Vec<Reason>, String>>()?;
    if !case.elapsed_ms.is_finite() || case.elapsed_ms < 0.0 {
        return Err(at(format!("elapsed_ms {} is no duration", case.elapsed_ms)));
    }
    Ok(Entry {
        index: position,
        status: case.status,
        report: CaseReport {
            id,
            verdict,
            got: case.got,
        },
        elapsed: Duration::from_secs_f64(case.elapsed_ms / 1000.0),
        pinned,
        failed_levels: Some(failed_levels),
    })
}
