//! Running a selection of cases through one backend: each case gets a [`Status`] (pass, fail,
//! expected failure, unexpected pass, skip), and the run says whether the gate holds.

use super::xfail::XfailList;
use super::{run_case, CaseReport, Verdict};
use crate::backend::{Backend, Level};
use crate::case::LoadedCase;
use serde::Serialize;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// How a case counts in a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Every claimed check agreed.
    Pass,
    /// A claimed check disagreed, or the backend failed, and the case was not expected to fail.
    Fail,
    /// It failed, as the expected-failures list says.
    Xfail,
    /// It passed although listed as an expected failure.
    Xpass,
    /// The backend does not claim the case's op or one of its dtypes.
    Skip,
}

impl Status {
    /// Every status, in report order.
    pub const ALL: [Status; 5] = [
        Status::Pass,
        Status::Fail,
        Status::Xfail,
        Status::Xpass,
        Status::Skip,
    ];

    /// The status's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Xfail => "xfail",
            Status::Xpass => "xpass",
            Status::Skip => "skip",
        }
    }

    /// The status of a verdict, given whether the case is expected to fail.
    ///
    /// ```
    /// use bcast_conformance::runner::suite::Status;
    /// use bcast_conformance::runner::Verdict;
    /// assert_eq!(Status::of(&Verdict::Pass, true), Status::Xpass);
    /// assert_eq!(Status::of(&Verdict::BackendFailure("hung".into()), true), Status::Xfail);
    /// assert_eq!(Status::of(&Verdict::Fail(vec![]), false), Status::Fail);
    /// assert_eq!(Status::of(&Verdict::Skip("dtype".into()), true), Status::Skip);
    /// ```
    pub fn of(verdict: &Verdict, expected_to_fail: bool) -> Status {
        match (verdict, expected_to_fail) {
            (Verdict::Skip(_), _) => Status::Skip,
            (Verdict::Pass, false) => Status::Pass,
            (Verdict::Pass, true) => Status::Xpass,
            (_, false) => Status::Fail,
            (_, true) => Status::Xfail,
        }
    }
}

/// One case of a run.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Index into the cases the run was given.
    pub index: usize,
    pub status: Status,
    pub report: CaseReport,
    /// How long the backend took.
    pub elapsed: Duration,
}

/// What a run needs besides the backend and the cases.
#[derive(Debug, Clone, Default)]
pub struct SuiteOptions {
    /// The levels wanted (intersected with what the backend claims).
    pub levels: BTreeSet<Level>,
    pub xfail: XfailList,
}

/// A finished run.
#[derive(Debug, Clone)]
pub struct SuiteResult {
    pub backend: String,
    /// The levels actually checked: wanted and claimed.
    pub levels: BTreeSet<Level>,
    pub entries: Vec<Entry>,
}

impl SuiteResult {
    /// How many cases have this status.
    pub fn count(&self, status: Status) -> usize {
        self.entries.iter().filter(|e| e.status == status).count()
    }

    /// Whether the gate holds: no unexpected failure, and with `strict_xfail` no unexpected pass.
    pub fn gate_holds(&self, strict_xfail: bool) -> bool {
        self.count(Status::Fail) == 0 && !(strict_xfail && self.count(Status::Xpass) > 0)
    }
}

/// Runs `cases` through `backend`, calling `progress` after each case.
pub fn run_suite(
    backend: &mut dyn Backend,
    cases: &[LoadedCase],
    options: &SuiteOptions,
    mut progress: impl FnMut(&LoadedCase, &Entry),
) -> SuiteResult {
    let claimed = backend.capabilities().levels;
    let mut entries = Vec::with_capacity(cases.len());
    for (index, loaded) in cases.iter().enumerate() {
        let start = Instant::now();
        let report = run_case(backend, &loaded.case, &options.levels);
        let elapsed = start.elapsed();
        let status = Status::of(&report.verdict, options.xfail.expects_failure(&report.id));
        let entry = Entry {
            index,
            status,
            report,
            elapsed,
        };
        progress(loaded, &entry);
        entries.push(entry);
    }
    SuiteResult {
        backend: backend.name(),
        levels: claimed.intersection(&options.levels).copied().collect(),
        entries,
    }
}
