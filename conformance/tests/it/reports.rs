//! Per-level pass rates and the matrix, measured on a backend that is wrong at exactly one
//! level: the reference engine with every result stride shifted by one.

use bcast_conformance::backend::reference::ReferenceBackend;
use bcast_conformance::backend::{Backend, BackendFailure, Capabilities, Level};
use bcast_conformance::case::{load_file, Case, Outcome, ResultValue};
use bcast_conformance::report::levels::level_counts;
use bcast_conformance::report::matrix::{render_matrix, MatrixRow};
use bcast_conformance::runner::suite::{run_suite, Status, SuiteOptions};
use std::path::Path;

/// The reference engine, with every non-empty result stride off by one; claims no aliasing.
struct WrongStrides;

impl Backend for WrongStrides {
    fn name(&self) -> String {
        "wrong-strides".to_string()
    }

    fn capabilities(&self) -> Capabilities {
        let mut caps = Capabilities::everything();
        caps.levels.remove(&Level::Aliasing);
        caps
    }

    fn run(&mut self, case: &Case) -> Result<Outcome, BackendFailure> {
        let mut outcome = ReferenceBackend.run(case)?;
        if let Outcome::Ok(ok) = &mut outcome
            && let ResultValue::Tensor(t) = &mut ok.result
        {
            t.strides.iter_mut().for_each(|s| *s += 1);
        }
        Ok(outcome)
    }
}

#[test]
fn a_backend_wrong_at_one_level_fails_only_that_level() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/expand.json");
    let cases = load_file(&path).unwrap();
    let options = SuiteOptions {
        levels: Level::ALL.into_iter().collect(),
        ..SuiteOptions::default()
    };
    let result = run_suite(&mut WrongStrides, &cases, &options, |_, _| {});
    let ok_tensors: Vec<&Case> = cases
        .iter()
        .map(|c| &c.case)
        .filter(|c| matches!(&c.expect, Some(Outcome::Ok(ok)) if matches!(ok.result, ResultValue::Tensor(_))))
        .collect();
    let zero_dim = ok_tensors
        .iter()
        .filter(|c| match &c.expect {
            Some(Outcome::Ok(ok)) => {
                matches!(&ok.result, ResultValue::Tensor(t) if t.shape.is_empty())
            }
            _ => false,
        })
        .count();
    let errors = cases.len() - ok_tensors.len();
    let counts = level_counts(&result, &cases);
    let cell = |l: Level| (counts[&l].passed, counts[&l].applicable);
    assert_eq!(cell(Level::Strides), (zero_dim, ok_tensors.len()));
    assert_eq!(cell(Level::Shapes), (cases.len(), cases.len()));
    assert_eq!(cell(Level::Values), (ok_tensors.len(), ok_tensors.len()));
    assert_eq!(cell(Level::Messages), (errors, errors));
    assert!(
        !counts.contains_key(&Level::Aliasing),
        "not claimed, not counted"
    );
    assert_eq!(result.count(Status::Fail), ok_tensors.len() - zero_dim);

    let row = MatrixRow::measure("in-process", &result, &cases);
    let table = render_matrix(
        "bcast-dev matrix",
        &[row],
        &cases,
        &["candle (built without feature `candle`)".into()],
    );
    let line = table
        .lines()
        .find(|l| l.starts_with("| wrong-strides"))
        .unwrap();
    // The cells: "", name, via, run, skipped, all claimed levels, then shapes ... strides.
    let cells: Vec<&str> = line.split('|').map(str::trim).collect();
    assert_eq!(cells[3], cases.len().to_string());
    assert_eq!(cells[12], "—", "aliasing is not claimed: {line}");
    assert!(
        cells[13].starts_with(&format!("{zero_dim}/{}", ok_tensors.len())),
        "{line}"
    );
    assert!(table.contains("Not measured: candle"));
    let ops: std::collections::BTreeSet<&str> =
        cases.iter().map(|c| c.case.call.fn_.as_str()).collect();
    assert!(
        table.contains(&format!("{} cases of {} op forms", cases.len(), ops.len())),
        "{table}"
    );
}

#[test]
fn levels_are_judged_on_the_whole_answer_not_the_clipped_report() {
    // The torch-labelled cases whose written storages hold more values than a report keeps:
    // the report's copy of the answer is clipped, the level counts must not see it.
    use bcast_case::MAX_FULL_VALUES;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/torch/binary_math.json");
    let cases: Vec<_> = load_file(&path)
        .unwrap()
        .into_iter()
        .filter(|c| match &c.case.expect {
            Some(Outcome::Ok(ok)) => ok
                .storages
                .iter()
                .flat_map(|s| s.values())
                .any(|v| v.len() > MAX_FULL_VALUES),
            _ => false,
        })
        .collect();
    assert!(!cases.is_empty(), "no case writes a storage that large");
    let options = SuiteOptions {
        levels: Level::ALL.into_iter().collect(),
        ..SuiteOptions::default()
    };
    let result = run_suite(&mut ReferenceBackend, &cases, &options, |_, _| {});
    assert_eq!(result.count(Status::Pass), cases.len());
    let clipped = result.entries.iter().any(|e| match &e.report.got {
        Some(Outcome::Ok(ok)) => ok
            .storages
            .iter()
            .flat_map(|s| s.values())
            .any(|v| v.len() == MAX_FULL_VALUES),
        _ => false,
    });
    assert!(clipped, "the report keeps a clipped answer");
    for (level, count) in level_counts(&result, &cases) {
        assert_eq!(count.passed, count.applicable, "{level:?}");
    }
}
