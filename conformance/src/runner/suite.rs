//! Running a selection of cases through one backend: each case gets a [`Status`] (pass, fail,
//! expected failure, unexpected pass, skip), and the run says whether the gate holds.

use super::xfail::{Judgement, Reason, XfailList};
use super::{run_case, CaseReport, Verdict};
use crate::backend::{Backend, FailureKind, Level};
use crate::case::{Case, LoadedCase, Outcome};
use crate::compare::compare_case;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// How a case counts in a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Every claimed check agreed.
    Pass,
    /// A claimed check disagreed, or the backend failed, and the case was not expected to fail
    /// (or was expected to fail for another reason, see [`Entry::pinned`]).
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
    /// use bcast_conformance::backend::BackendFailure;
    /// let hung = BackendFailure::bad_input("hung");
    /// assert_eq!(Status::of(&Verdict::BackendFailure(hung), true), Status::Xfail);
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
    /// The reasons the xfail list pins for this case, when it failed for another one (it is
    /// then an unexpected failure); empty otherwise.
    pub pinned: Vec<Reason>,
    /// The check levels (all of them, claimed or not) at which the answer differs from the
    /// expectation, judged on the whole answer before [`CaseReport::got`] is clipped for the
    /// report; `None` when the backend did not answer or answered the other kind (returned
    /// where torch raised, or the reverse). The per-level pass rates count from it.
    pub failed_levels: Option<BTreeSet<Level>>,
}

impl Entry {
    /// One line for an unexpected failure or pass (`--format short`): `FAIL id: level: place:
    /// expected X, got Y`, `FAIL id: backend failure (kind): message`, `XPASS id: ...`.
    ///
    /// ```
    /// use bcast_conformance::backend::{BackendFailure, FailureKind};
    /// use bcast_conformance::runner::suite::{Entry, Status};
    /// use bcast_conformance::runner::{CaseReport, Verdict};
    /// let hung = BackendFailure::new(FailureKind::TimedOut, "no answer\nwithin 5 s");
    /// let report = CaseReport { id: "a/1".into(), verdict: Verdict::BackendFailure(hung), got: None };
    /// let entry = Entry {
    ///     index: 0, status: Status::Fail, report, elapsed: Default::default(), pinned: vec![],
    ///     failed_levels: None,
    /// };
    /// assert_eq!(entry.short_line(), "FAIL a/1: backend failure (timed out): no answer within 5 s");
    /// ```
    pub fn short_line(&self) -> String {
        let id = &self.report.id;
        let mut line = match (&self.status, &self.report.verdict) {
            (Status::Xpass, _) => {
                format!("XPASS {id}: passes, but the xfail list expects it to fail")
            }
            (_, Verdict::Fail(ms)) => match ms.as_slice() {
                [] => format!("FAIL {id}"),
                [m, rest @ ..] => {
                    let more = if rest.is_empty() {
                        String::new()
                    } else {
                        format!(" (and {} more differences)", rest.len())
                    };
                    format!(
                        "FAIL {id}: {}: {}: expected {}, got {}{more}",
                        m.level, m.place, m.expected, m.got
                    )
                }
            },
            (_, verdict) => format!("FAIL {id}: {}", verdict.headline()),
        };
        if let Some(note) = self.pinned_note() {
            line.push_str(&format!(" [{note}]"));
        }
        super::one_line(&line)
    }

    /// For a case the xfail list expects to fail for other reasons: `expected to fail with
    /// reason=values, fails with reason=shapes`.
    pub fn pinned_note(&self) -> Option<String> {
        if self.pinned.is_empty() {
            return None;
        }
        let pinned: Vec<String> = self.pinned.iter().map(|r| format!("reason={r}")).collect();
        let actual = Reason::of(&self.report.verdict)
            .map_or("no reason".to_string(), |r| format!("reason={r}"));
        Some(format!(
            "expected to fail with {}, fails with {actual}",
            pinned.join(" or ")
        ))
    }
}

/// What a run needs besides the backend and the cases.
#[derive(Debug, Clone, Default)]
pub struct SuiteOptions {
    /// The levels wanted (intersected with what the backend claims).
    pub levels: BTreeSet<Level>,
    pub xfail: XfailList,
    /// Stop the run after this many backend timeouts in a row (`None`: never).
    pub max_consecutive_timeouts: Option<usize>,
    /// Stop the run once this much time has passed (`None`: never).
    pub deadline: Option<Duration>,
}

impl SuiteOptions {
    /// The default of `--max-timeouts`: a hanging adapter costs this many case timeouts.
    pub const DEFAULT_MAX_TIMEOUTS: usize = 5;
}

/// Why a run stopped before its last case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stopped {
    /// The backend timed out on this many cases in a row.
    Timeouts(usize),
    /// The run's deadline passed.
    Deadline(Duration),
    /// What a report read back says (`report::replay`): a merged run's parts, each `K/N: why`.
    Reported(String),
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stopped::Timeouts(n) => write!(
                f,
                "the backend timed out on {n} cases in a row (--max-timeouts {n})"
            ),
            Stopped::Deadline(d) => write!(f, "the run's deadline of {} s passed", d.as_secs_f64()),
            Stopped::Reported(why) => f.write_str(why),
        }
    }
}

/// A finished run.
#[derive(Debug, Clone)]
pub struct SuiteResult {
    pub backend: String,
    /// The levels actually checked: wanted and claimed, and always [`Level::ALWAYS`].
    pub levels: BTreeSet<Level>,
    pub entries: Vec<Entry>,
    /// How many cases were given; more than `entries` when the run stopped early.
    pub selected: usize,
    /// Why the run stopped before its last case, if it did.
    pub stopped: Option<Stopped>,
}

impl SuiteResult {
    /// How many cases have this status.
    pub fn count(&self, status: Status) -> usize {
        self.entries.iter().filter(|e| e.status == status).count()
    }

    /// How many cases were run and judged (not skipped).
    pub fn executed(&self) -> usize {
        self.entries.len() - self.count(Status::Skip)
    }

    /// Whether the gate holds: the run finished, no unexpected failure, and with
    /// `strict_xfail` no unexpected pass. A run that executed no case holds only when
    /// `allow_empty` says an empty run is fine.
    pub fn gate_holds(&self, strict_xfail: bool, allow_empty: bool) -> bool {
        self.stopped.is_none()
            && (allow_empty || self.executed() > 0)
            && self.count(Status::Fail) == 0
            && !(strict_xfail && self.count(Status::Xpass) > 0)
    }
}

/// Counts a backend's timeouts in a row (skips neither break nor extend a streak) and says
/// when they reach `--max-timeouts`.
pub(crate) struct TimeoutStreak {
    max: Option<usize>,
    in_a_row: usize,
}

impl TimeoutStreak {
    pub(crate) fn new(max: Option<usize>) -> TimeoutStreak {
        TimeoutStreak { max, in_a_row: 0 }
    }

    /// Counts one verdict; `Some` when the run must stop.
    pub(crate) fn after(&mut self, verdict: &Verdict) -> Option<Stopped> {
        match verdict {
            Verdict::BackendFailure(f) if f.kind == FailureKind::TimedOut => self.in_a_row += 1,
            Verdict::Skip(_) => {}
            _ => self.in_a_row = 0,
        }
        self.max
            .filter(|&max| self.in_a_row >= max)
            .map(Stopped::Timeouts)
    }
}

/// Runs one case and gives it its status: the step [`run_suite`] and the parallel runner
/// ([`super::jobs`]) share.
pub(crate) fn judge(
    backend: &mut dyn Backend,
    index: usize,
    loaded: &LoadedCase,
    options: &SuiteOptions,
) -> Entry {
    let start = Instant::now();
    let mut report = run_case(backend, &loaded.case, &options.levels);
    let elapsed = start.elapsed();
    let failed_levels = failed_levels(&loaded.case, report.got.as_ref());
    report.got = report.got.map(|got| got.clipped_for_report());
    let (status, pinned) = match options.xfail.judge(&report.id, &report.verdict) {
        Judgement::NotListed => (Status::of(&report.verdict, false), Vec::new()),
        Judgement::Listed => (Status::of(&report.verdict, true), Vec::new()),
        Judgement::OtherReason(pinned) => (Status::Fail, pinned),
    };
    Entry {
        index,
        status,
        report,
        elapsed,
        pinned,
        failed_levels,
    }
}

/// The levels at which `got` differs from the case's expectation (see
/// [`Entry::failed_levels`]).
fn failed_levels(case: &Case, got: Option<&Outcome>) -> Option<BTreeSet<Level>> {
    let (expect, got) = (case.expect.as_ref()?, got?);
    let same_kind = matches!(
        (expect, got),
        (Outcome::Ok(_), Outcome::Ok(_)) | (Outcome::Error(_), Outcome::Error(_))
    );
    let all: BTreeSet<Level> = Level::ALL.into_iter().collect();
    same_kind.then(|| {
        compare_case(case, got, &all)
            .into_iter()
            .map(|m| m.level)
            .collect()
    })
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
    let began = Instant::now();
    let mut timeouts = TimeoutStreak::new(options.max_consecutive_timeouts);
    let mut stopped = None;
    for (index, loaded) in cases.iter().enumerate() {
        if let Some(deadline) = options.deadline
            && began.elapsed() >= deadline
        {
            stopped = Some(Stopped::Deadline(deadline));
            break;
        }
        let entry = judge(backend, index, loaded, options);
        let too_many = timeouts.after(&entry.report.verdict);
        progress(loaded, &entry);
        entries.push(entry);
        if let Some(why) = too_many {
            stopped = Some(why);
            break;
        }
    }
    SuiteResult {
        backend: backend.name(),
        levels: super::checked_levels(&claimed, &options.levels),
        entries,
        selected: cases.len(),
        stopped,
    }
}
