//! JUnit XML: one test suite per fixture file, one test case per case (named by its id, with
//! the op as class name). Expected failures and skips are skipped test cases; an unexpected pass
//! is a failure only under `--strict-xfail`.

use crate::case::LoadedCase;
use crate::runner::describe_failure;
use crate::runner::suite::{Status, SuiteResult};
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
use std::collections::BTreeMap;

/// The JUnit XML document of a run.
pub fn junit_xml(
    result: &SuiteResult,
    cases: &[LoadedCase],
    strict_xfail: bool,
) -> Result<String, String> {
    let mut suites: BTreeMap<String, TestSuite> = BTreeMap::new();
    for e in &result.entries {
        let loaded = &cases[e.index];
        let verdict = &e.report.verdict;
        let mut status = match e.status {
            Status::Pass => TestCaseStatus::success(),
            Status::Xpass if !strict_xfail => TestCaseStatus::success(),
            Status::Fail | Status::Xpass => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                s.set_description(describe_failure(loaded, &e.report));
                s
            }
            Status::Xfail | Status::Skip => TestCaseStatus::skipped(),
        };
        let message = match e.status {
            Status::Xfail => format!("expected failure: {}", verdict.headline()),
            Status::Xpass => "unexpected pass of an expected failure".to_string(),
            _ => match e.pinned_note() {
                Some(note) => format!("{} [{note}]", verdict.headline()),
                None => verdict.headline(),
            },
        };
        if e.status != Status::Pass {
            status.set_message(message);
        }
        let mut case = TestCase::new(e.report.id.clone(), status);
        case.set_classname(loaded.case.call.fn_.clone());
        case.set_time(e.elapsed);
        let file = loaded.file.display().to_string();
        suites
            .entry(file.clone())
            .or_insert_with(|| TestSuite::new(file))
            .add_test_case(case);
    }
    let mut report = Report::new(format!("bcast conformance: {}", result.backend));
    report.add_test_suites(suites.into_values());
    report.to_string().map_err(|e| e.to_string())
}
