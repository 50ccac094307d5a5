//! Cases through libtorch from Rust (feature `torch`): every fixture, which checks the tch
//! backend against the torch-labelled corpus and the corpus against libtorch (its families
//! reach every op of the catalogue in every form); and the op cases of
//! `tests/data/tch_ops.json` (from `scripts/tch_op_cases.py`), which add broadcasting, strided
//! and aliased inputs to the call forms of the first families. Calls that exist only in Python are skipped and
//! listed; any other difference fails, as does an op of the catalogue the backend does not
//! interpret.

#![cfg(feature = "torch")]

use bcast_conformance::backend::tch::TchBackend;
use bcast_conformance::backend::{Backend, Level};
use bcast_conformance::case::{load_paths, Arg, Outcome};
use bcast_conformance::runner::{describe_failure, run_case, Verdict};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

fn check_against_tch(path: &str) {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    let cases =
        load_paths(std::slice::from_ref(&path)).unwrap_or_else(|e| panic!("cannot load: {e}"));
    let levels: BTreeSet<Level> = Level::ALL.into_iter().collect();
    let mut backend = TchBackend::new().unwrap_or_else(|e| panic!("{e}"));
    let started = Instant::now();
    let mut agree = 0;
    let mut python_only: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for loaded in &cases {
        let report = run_case(&mut backend, &loaded.case, &levels);
        let reason = match &report.verdict {
            Verdict::Pass => {
                agree += 1;
                continue;
            }
            Verdict::Skip(reason) => reason.clone(),
            Verdict::BackendFailure(f) if f.is_unsupported() => f.to_string(),
            Verdict::Fail(_) | Verdict::BackendFailure(_) => {
                failures.push(describe_failure(loaded, &report));
                continue;
            }
        };
        // Every op of the catalogue that exists in libtorch is interpreted.
        if reason.contains("tch backend has no op") {
            failures.push(format!("case {}: {reason}", loaded.case.id));
            continue;
        }
        // The backend's account of Python's argument parser must match what Python raised.
        if reason.contains("raises TypeError") {
            let raised = match &loaded.case.expect {
                Some(Outcome::Error(e)) => e.kind.as_str(),
                _ => "no error",
            };
            if raised != "TypeError" {
                failures.push(format!(
                    "case {}: {reason}, but Python: {raised}",
                    loaded.case.id
                ));
            }
        }
        *python_only.entry(reason).or_default() += 1;
    }
    eprintln!(
        "{} on {}: {} cases in {:.2?}: {agree} agree, {} Python-only, {} differ",
        backend.name(),
        path.display(),
        cases.len(),
        started.elapsed(),
        python_only.values().sum::<usize>(),
        failures.len()
    );
    for (reason, n) in &python_only {
        eprintln!("  skipped {n}: {reason}");
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from libtorch:\n\n{}",
        failures.len(),
        cases.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn every_fixture_agrees_with_libtorch() {
    check_against_tch("../fixtures");
}

#[test]
fn every_op_form_agrees_with_libtorch() {
    check_against_tch("tests/data/tch_ops.json");
}

/// The forms Python reaches ATen with and tch's generated API does not: `alpha=` (through
/// the shim's `at::add`/`at::sub`), two Python numbers (two wrapped-number tensors) and
/// einsum's sublist format (turned into an equation as Python does). Every fixture of these
/// forms runs through libtorch and agrees with the label; none is left to "unsupported".
#[test]
fn python_forms_that_reach_aten_run_through_libtorch() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let cases = load_paths(&[path]).unwrap_or_else(|e| panic!("cannot load: {e}"));
    let levels: BTreeSet<Level> = Level::ALL.into_iter().collect();
    let mut backend = TchBackend::new().unwrap_or_else(|e| panic!("{e}"));
    let number = |a: &Arg| matches!(a, Arg::Int(_) | Arg::Float(_) | Arg::Bool(_));
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for loaded in &cases {
        let call = &loaded.case.call;
        let form = if call.kwargs.contains_key("alpha") {
            "alpha="
        } else if call.fn_.starts_with("torch.")
            && call.args.len() == 2
            && call.args.iter().all(number)
        {
            "two numbers"
        } else if call.fn_ == "torch.einsum" && matches!(call.args.first(), Some(Arg::Tensor(_))) {
            "einsum sublists"
        } else {
            continue;
        };
        let report = run_case(&mut backend, &loaded.case, &levels);
        // Python's own checks (a subscript outside [0, 52), a keyword it rejects) raise before
        // ATen: the backend raises them as the emulated argument parser words them
        // (`bcast_case::pyargs`), or leaves them Python-only by a named rule.
        if let Some(Outcome::Error(e)) = &loaded.case.expect
            && matches!(e.kind.as_str(), "ValueError" | "TypeError")
        {
            assert!(
                match &report.verdict {
                    Verdict::Pass => true,
                    Verdict::BackendFailure(f) => f.message.contains("Python-only"),
                    _ => false,
                },
                "{form}: {}",
                describe_failure(loaded, &report)
            );
            continue;
        }
        assert_eq!(
            report.verdict,
            Verdict::Pass,
            "{form}: {}",
            describe_failure(loaded, &report)
        );
        *counts.entry(form).or_default() += 1;
    }
    eprintln!("through libtorch: {counts:?}");
    for form in ["alpha=", "two numbers", "einsum sublists"] {
        assert!(
            counts.get(form).copied().unwrap_or(0) > 0,
            "no fixture of the form {form}"
        );
    }
}

/// A view libtorch cannot build (a stride beyond int64, as the contiguous strides of a
/// `[1, 0, 2^62, 2]` tensor are) is a case torch cannot express: unsupported, not a failure.
#[test]
fn a_stride_beyond_int64_is_unsupported() {
    let case: bcast_conformance::case::Case = serde_json::from_value(serde_json::json!({
        "id": "beyond-int64",
        "storages": {"s": {"dtype": "float32", "values": [1.0]}},
        "tensors": {"t": {"storage": "s", "shape": [1, 0, 4611686018427387904u64, 2],
                          "strides": [9223372036854775808u64, 9223372036854775808u64, 2, 1]}},
        "call": {"fn": "torch.neg", "args": [{"tensor": "t"}]},
        "expect": {"error": {"type": "RuntimeError", "message": "m"}}
    }))
    .unwrap();
    let levels: BTreeSet<Level> = Level::ALL.into_iter().collect();
    let mut backend = TchBackend::new().unwrap_or_else(|e| panic!("{e}"));
    match run_case(&mut backend, &case, &levels).verdict {
        Verdict::BackendFailure(f) => {
            assert!(f.is_unsupported(), "{f}");
            assert!(f.message.contains("exceeds int64"), "{f}");
        }
        other => panic!("not unsupported: {other:?}"),
    }
}
