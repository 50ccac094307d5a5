//! Differential testing: a case runs through the engine under test and through an oracle
//! (libtorch via tch, in `bcast diff`), and the engine's outcome is compared with the
//! oracle's as the expectation. A difference is shrunk to a minimal case and written as a
//! regression fixture labelled with the oracle's outcome.
//!
//! ```
//! use bcast_conformance::backend::reference::ReferenceBackend;
//! use bcast_fuzzing::diff::{diff_case, DiffVerdict};
//! use bcast_fuzzing::generators::{find_family, generate};
//! let case = generate(find_family("expand").unwrap(), 1, 0);
//! // The engine against itself always agrees.
//! let run = diff_case(&mut ReferenceBackend, &mut ReferenceBackend, &case);
//! assert_eq!(run.verdict, DiffVerdict::Agree);
//! ```

use bcast_conformance::backend::{Backend, Level};
use bcast_conformance::case::{schema_for, Case, FixtureFile, Outcome, Source};
use bcast_conformance::compare::{compare_outcomes_of, Mismatch};
use std::collections::BTreeSet;
use std::fmt;
use std::time::{Duration, Instant};

/// Which backend of a differential run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Side {
    /// The engine under test.
    Engine,
    /// The expectation (libtorch).
    Oracle,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Engine => "engine",
            Side::Oracle => "oracle",
        })
    }
}

/// How one case went.
#[derive(Debug, Clone, PartialEq)]
pub enum DiffVerdict {
    /// Both backends produced the same outcome at every level both claim.
    Agree,
    /// The engine's outcome differs from the oracle's.
    Mismatch(Vec<Mismatch>),
    /// One side cannot express the case (an engine op not written yet, a Python-only call).
    Unsupported { side: Side, reason: String },
    /// One side crashed or answered nonsense.
    Failure { side: Side, reason: String },
}

impl DiffVerdict {
    /// Whether this is a finding: a mismatch or a failure.
    pub fn is_finding(&self) -> bool {
        matches!(self, DiffVerdict::Mismatch(_) | DiffVerdict::Failure { .. })
    }

    /// Whether `other` shows the same finding: a mismatch at the same first level, or a
    /// failure of the same side.
    pub fn same_finding(&self, other: &DiffVerdict) -> bool {
        match (self, other) {
            (DiffVerdict::Mismatch(a), DiffVerdict::Mismatch(b)) => a
                .first()
                .is_some_and(|first| b.iter().any(|m| m.level == first.level)),
            (DiffVerdict::Failure { side: a, .. }, DiffVerdict::Failure { side: b, .. }) => a == b,
            _ => false,
        }
    }

    /// One line describing the finding.
    pub fn summary(&self) -> String {
        match self {
            DiffVerdict::Agree => "agree".to_string(),
            DiffVerdict::Mismatch(ms) => ms
                .iter()
                .map(|m| m.to_string())
                .collect::<Vec<_>>()
                .join("; "),
            DiffVerdict::Unsupported { side, reason } => format!("{side} unsupported: {reason}"),
            DiffVerdict::Failure { side, reason } => format!("{side} failed: {reason}"),
        }
    }
}

/// One case through both backends.
#[derive(Debug, Clone)]
pub struct DiffRun {
    pub verdict: DiffVerdict,
    /// The oracle's outcome, when it produced one.
    pub oracle: Option<Outcome>,
    /// The engine's outcome, when it ran and produced one.
    pub engine: Option<Outcome>,
    pub oracle_time: Duration,
    pub engine_time: Duration,
}

/// The check levels both backends claim.
pub fn shared_levels(engine: &dyn Backend, oracle: &dyn Backend) -> BTreeSet<Level> {
    engine
        .capabilities()
        .levels
        .intersection(&oracle.capabilities().levels)
        .copied()
        .collect()
}

/// Runs `case` through the oracle, then (unless the oracle cannot express it) the engine,
/// and compares at every level both claim. A case the engine declines
/// ([`Backend::declines`]: one it knows it does not compute as torch does) is unsupported on
/// its side, and neither runs it.
pub fn diff_case(engine: &mut dyn Backend, oracle: &mut dyn Backend, case: &Case) -> DiffRun {
    let levels = shared_levels(engine, oracle);
    diff_case_at(engine, oracle, case, &levels)
}

/// [`diff_case`] at the given levels (for loops that compute [`shared_levels`] once).
pub fn diff_case_at(
    engine: &mut dyn Backend,
    oracle: &mut dyn Backend,
    case: &Case,
    levels: &BTreeSet<Level>,
) -> DiffRun {
    if let Some(reason) = engine.declines(case) {
        return DiffRun {
            verdict: DiffVerdict::Unsupported {
                side: Side::Engine,
                reason: format!("declined: {reason}"),
            },
            oracle: None,
            engine: None,
            oracle_time: Duration::ZERO,
            engine_time: Duration::ZERO,
        };
    }
    let started = Instant::now();
    let oracle_result = bcast_conformance::runner::run_guarded(oracle, case);
    let oracle_time = started.elapsed();
    let mut run = DiffRun {
        verdict: DiffVerdict::Agree,
        oracle: None,
        engine: None,
        oracle_time,
        engine_time: Duration::ZERO,
    };
    let expected = match oracle_result {
        Ok(outcome) => outcome,
        Err(f) => {
            let side = Side::Oracle;
            run.verdict = if f.is_unsupported() {
                DiffVerdict::Unsupported {
                    side,
                    reason: f.message,
                }
            } else {
                DiffVerdict::Failure {
                    side,
                    reason: f.message,
                }
            };
            return run;
        }
    };
    if let Some(message) = internal_assert(&expected) {
        run.verdict = DiffVerdict::Unsupported {
            side: Side::Oracle,
            reason: format!("torch fails one of its internal asserts: {message}"),
        };
        return run;
    }
    let started = Instant::now();
    let engine_result = bcast_conformance::runner::run_guarded(engine, case);
    run.engine_time = started.elapsed();
    run.verdict = match &engine_result {
        Ok(got) => {
            let mismatches = compare_outcomes_of(case, &expected, got, levels);
            if mismatches.is_empty() {
                DiffVerdict::Agree
            } else {
                DiffVerdict::Mismatch(mismatches)
            }
        }
        Err(f) if f.is_unsupported() => DiffVerdict::Unsupported {
            side: Side::Engine,
            reason: f.message.clone(),
        },
        Err(f) => DiffVerdict::Failure {
            side: Side::Engine,
            reason: f.message.clone(),
        },
    };
    run.oracle = Some(expected);
    run.engine = engine_result.ok();
    run
}

/// The message of an outcome in which torch fails one of its own internal asserts (in the
/// call or in the backward), without the path of the build it names: a bug of torch's, not
/// an expectation (the labeller `scripts/label.py` leaves such cases out of the corpus too).
///
/// ```
/// use bcast_conformance::case::{ErrorOutcome, Outcome};
/// use bcast_fuzzing::diff::internal_assert;
/// let e = |m: &str| Outcome::Error(ErrorOutcome::new("RuntimeError", m));
/// let m = "fn_edge.is_valid() == this_edge.is_valid() INTERNAL ASSERT FAILED at \"/x/tensor.cpp\":136, please report a bug to PyTorch. ";
/// assert_eq!(internal_assert(&e(m)).as_deref(), Some("fn_edge.is_valid() == this_edge.is_valid()"));
/// assert_eq!(internal_assert(&e("derivative for aten::heaviside is not implemented")), None);
/// ```
pub fn internal_assert(outcome: &Outcome) -> Option<String> {
    let message = match outcome {
        Outcome::Error(e) => &e.message,
        Outcome::Ok(ok) => &ok.backward_error.as_ref()?.message,
    };
    let at = message.find(" INTERNAL ASSERT FAILED")?;
    Some(message[..at].to_string())
}

/// The regression case for a finding: `case` with the oracle's outcome as its expectation,
/// a regression source naming the finding and how it was found, and the tag `regression`
/// (the generator's tags described the case before shrinking).
pub fn regression_case(
    case: &Case,
    id: &str,
    finding: &str,
    found_by: &str,
    expect: Outcome,
) -> Case {
    Case {
        id: id.to_string(),
        source: Source {
            regression: Some(finding.to_string()),
            found_by: Some(found_by.to_string()),
            ..Source::default()
        },
        tags: vec!["regression".to_string()],
        expect: Some(expect),
        ..case.clone()
    }
}

/// A fixture file holding regression cases labelled by libtorch `torch_version`, with the
/// lowest schema version that holds them.
pub fn regression_file(cases: Vec<Case>, torch_version: &str, generator: &str) -> FixtureFile {
    FixtureFile {
        schema: schema_for(&cases),
        torch_version: Some(torch_version.to_string()),
        generator: Some(generator.to_string()),
        cases,
    }
}
