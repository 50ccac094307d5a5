//! The conformance suite in `cargo test`: every fixture runs against the reference engine at
//! every level. A failure names the case, its source, the differences, and a torch snippet.

use bcast_conformance::backend::reference::ReferenceBackend;
use bcast_conformance::backend::Level;
use bcast_conformance::case::{load_dir, load_file};
use bcast_conformance::runner::{describe_failure, run_case, Verdict};
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

/// The cases over the dtypes of schema 2 run through the reference engine and pass, and
/// together they cover all eight dtypes schema 1 lacks.
#[test]
fn cases_of_the_new_dtypes_run_and_pass() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/regressions/dtypes-schema.json");
    let cases = load_file(&path).unwrap_or_else(|e| panic!("cannot load fixtures: {e}"));
    assert!(cases.len() >= 20, "{} cases", cases.len());
    let levels: BTreeSet<Level> = Level::ALL.into_iter().collect();
    let mut dtypes = BTreeSet::new();
    for loaded in &cases {
        let report = run_case(&mut ReferenceBackend, &loaded.case, &levels);
        assert_eq!(
            report.verdict,
            Verdict::Pass,
            "{}",
            describe_failure(loaded, &report)
        );
        dtypes.extend(loaded.case.dtype_names().into_iter().map(String::from));
    }
    for new in [
        "uint8",
        "int8",
        "int16",
        "int32",
        "float16",
        "bfloat16",
        "complex64",
        "complex128",
    ] {
        assert!(dtypes.contains(new), "no case of {new}: {dtypes:?}");
    }
}
