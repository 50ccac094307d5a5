//! The conformance suite in `cargo test`: every fixture runs against the reference engine at
//! every level. A failure names the case, its source, the differences, and a torch snippet.

use bcast_conformance::backend::reference::ReferenceBackend;
use bcast_conformance::backend::Level;
use bcast_conformance::case::load_dir;
use bcast_conformance::runner::{describe_failure, run_case};
use std::collections::BTreeSet;
use std::path::Path;

fn run_fixture_dir(dir: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(dir);
    let cases = load_dir(&root).unwrap_or_else(|e| panic!("cannot load fixtures: {e}"));
    let levels: BTreeSet<Level> = Level::ALL.into_iter().collect();
    let mut backend = ReferenceBackend;
    let mut failures = Vec::new();
    for loaded in &cases {
        let report = run_case(&mut backend, &loaded.case, &levels);
        if report.verdict.is_failure() {
            failures.push(describe_failure(loaded, &report));
        }
    }
    let shown: Vec<&String> = failures.iter().take(20).collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases in fixtures/{dir} fail:\n\n{}",
        failures.len(),
        cases.len(),
        shown
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn docs_fixtures_pass() {
    run_fixture_dir("docs");
}

#[test]
fn torch_fixtures_pass() {
    run_fixture_dir("torch");
}

#[test]
fn regression_fixtures_pass() {
    run_fixture_dir("regressions");
}
