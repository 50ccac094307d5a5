//! The differential pipeline against libtorch (feature `torch`): generated and hand-written
//! cases through the reference engine and tch, and a deliberately broken engine whose
//! findings must shrink to minimal regression cases labelled by libtorch.

#![cfg(feature = "torch")]

use bcast_conformance::backend::reference::ReferenceBackend;
use bcast_conformance::backend::registry::{default_python, python_adapter, AdapterLimits};
use bcast_conformance::backend::subprocess::SubprocessBackend;
use bcast_conformance::backend::tch::{run_tch, TchBackend};
use bcast_conformance::backend::{Backend, BackendFailure, Capabilities};
use bcast_conformance::case::{load_paths, validate_case, Case, Outcome, ResultValue};
use bcast_fuzzing::diff::{diff_case, regression_case, DiffVerdict, Side};
use bcast_fuzzing::fallback::FallbackOracle;
use bcast_fuzzing::generators::{find_family, generate, GRAD_FAMILY};
use bcast_fuzzing::shrink::{candidates, complexity, shrink};
use std::path::Path;

/// The reference engine with a planted bug: results of two or more dims report their
/// strides reversed.
struct ReversedStrides;

impl Backend for ReversedStrides {
    fn name(&self) -> String {
        "reference with reversed strides".into()
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::everything()
    }
    fn run(&mut self, case: &Case) -> Result<Outcome, BackendFailure> {
        let mut outcome = ReferenceBackend.run(case)?;
        if let Outcome::Ok(ok) = &mut outcome
            && let ResultValue::Tensor(t) = &mut ok.result
            && t.strides.len() >= 2
        {
            t.strides.reverse();
        }
        Ok(outcome)
    }
}

#[test]
fn generated_expand_cases_agree_with_libtorch() {
    let family = find_family("expand").expect("the expand family");
    let mut oracle = TchBackend::new().unwrap_or_else(|e| panic!("{e}"));
    for index in 0..500 {
        let case = generate(family, 7, index);
        let run = diff_case(&mut ReferenceBackend, &mut oracle, &case);
        assert_eq!(run.verdict, DiffVerdict::Agree, "{}", case.id);
    }
}

/// The PyTorch adapter under the project's venv python, when there is one.
fn python_torch() -> Option<SubprocessBackend> {
    let Some(python) = default_python() else {
        eprintln!("no venv python: the Python side of the differential is not tested here");
        return None;
    };
    let backend = python_adapter(&python, "torch_adapter.py", AdapterLimits::default());
    assert_eq!(backend.start_error(), None, "the PyTorch adapter starts");
    Some(backend)
}

/// `torch.broadcast_shapes` exists only in Python: libtorch alone cannot compare it, and with
/// Python torch behind it every generated case is compared, and agrees.
#[test]
fn python_only_calls_are_compared_through_python_torch() {
    let family = find_family("broadcast_shapes").expect("the broadcast_shapes family");
    let Some(python) = python_torch() else {
        return;
    };
    let tch = TchBackend::new().unwrap_or_else(|e| panic!("{e}"));
    let mut alone = TchBackend::new().unwrap_or_else(|e| panic!("{e}"));
    let mut oracle = FallbackOracle::new(tch, Some(python));
    for index in 0..60 {
        let case = generate(family, 11, index);
        let by_tch = diff_case(&mut ReferenceBackend, &mut alone, &case);
        assert!(
            matches!(
                by_tch.verdict,
                DiffVerdict::Unsupported {
                    side: Side::Oracle,
                    ..
                }
            ),
            "{}: {}",
            case.id,
            by_tch.verdict.summary()
        );
        let run = diff_case(&mut ReferenceBackend, &mut oracle, &case);
        assert_eq!(
            run.verdict,
            DiffVerdict::Agree,
            "{}: {}",
            case.id,
            run.verdict.summary()
        );
    }
    assert_eq!(oracle.tally.second, 60);
}

/// A first backend that can express nothing, so that every case goes to the second.
struct Nothing;

impl Backend for Nothing {
    fn name(&self) -> String {
        "nothing".into()
    }
    fn capabilities(&self) -> Capabilities {
        ReferenceBackend.capabilities()
    }
    fn run(&mut self, _: &Case) -> Result<Outcome, BackendFailure> {
        Err(BackendFailure::unsupported("no op at all"))
    }
}

/// The Python side of the oracle carries gradients: a gradient case handed to the PyTorch
/// adapter comes back with torch's gradients (or its backward error), and they agree with the
/// engine's, as libtorch's do.
#[test]
fn gradient_cases_through_python_torch_carry_their_gradients() {
    let family = find_family(GRAD_FAMILY).expect("the grad family");
    let Some(python) = python_torch() else {
        return;
    };
    let mut oracle = FallbackOracle::new(Nothing, Some(python));
    let mut tch = TchBackend::new().unwrap_or_else(|e| panic!("{e}"));
    let (mut with_grads, mut agreed) = (0, 0);
    for index in 0..60 {
        let case = generate(family, 13, index);
        let run = diff_case(&mut ReferenceBackend, &mut oracle, &case);
        match &run.verdict {
            DiffVerdict::Agree => agreed += 1,
            DiffVerdict::Unsupported { .. } => continue,
            other => panic!("{}: {}", case.id, other.summary()),
        }
        if let Some(Outcome::Ok(ok)) = &run.oracle {
            with_grads += usize::from(ok.grads.is_some());
        }
        // The same answer as libtorch's, where libtorch can express the call.
        let by_tch = diff_case(&mut ReferenceBackend, &mut tch, &case);
        assert!(
            matches!(
                by_tch.verdict,
                DiffVerdict::Agree | DiffVerdict::Unsupported { .. }
            ),
            "{}: {}",
            case.id,
            by_tch.verdict.summary()
        );
    }
    assert_eq!(oracle.tally.second, 60);
    assert!(
        agreed >= 50 && with_grads >= 20,
        "{agreed} agreed, {with_grads} with gradients"
    );
}

#[test]
fn hand_written_cases_agree_or_name_the_missing_side() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/tests/data/tch_ops.json");
    let cases = load_paths(&[path]).unwrap_or_else(|e| panic!("{e}"));
    let mut oracle = TchBackend::new().unwrap_or_else(|e| panic!("{e}"));
    let (mut agree, mut engine_missing) = (0, Vec::new());
    for loaded in &cases {
        let run = diff_case(&mut ReferenceBackend, &mut oracle, &loaded.case);
        match &run.verdict {
            DiffVerdict::Agree => agree += 1,
            DiffVerdict::Unsupported {
                side: Side::Engine,
                reason,
            } => engine_missing.push(format!("{}: {reason}", loaded.case.id)),
            DiffVerdict::Unsupported {
                side: Side::Oracle, ..
            } => {}
            other => panic!("{}: {}", loaded.case.id, other.summary()),
        }
    }
    // The engine covers most of the op forms libtorch has; what it lacks is named, never wrong.
    assert!(
        agree * 10 >= cases.len() * 7,
        "only {agree} of {} agree; the engine lacks: {engine_missing:#?}",
        cases.len()
    );
    println!("{agree} agree; the engine lacks {}:", engine_missing.len());
    for m in &engine_missing {
        println!("  {m}");
    }
}

#[test]
fn a_planted_bug_shrinks_to_a_minimal_regression() {
    let family = find_family("expand").expect("the expand family");
    let mut oracle = TchBackend::new().unwrap_or_else(|e| panic!("{e}"));
    let mut engine = ReversedStrides;
    let mut found = 0;
    for index in 0..300 {
        let case = generate(family, 9, index);
        let run = diff_case(&mut engine, &mut oracle, &case);
        if !run.verdict.is_finding() {
            continue;
        }
        found += 1;
        let small = shrink(&case, 3000, |c| {
            run.verdict
                .same_finding(&diff_case(&mut engine, &mut oracle, c).verdict)
        });
        let again = diff_case(&mut engine, &mut oracle, &small);
        assert!(run.verdict.same_finding(&again.verdict), "{}", case.id);
        assert!(validate_case(&small).is_ok());
        assert!(complexity(&small) <= complexity(&case));
        // Minimal: no one-step simplification keeps the finding.
        for c in candidates(&small) {
            if complexity(&c) < complexity(&small) && validate_case(&c).is_ok() {
                let v = diff_case(&mut engine, &mut oracle, &c).verdict;
                assert!(!run.verdict.same_finding(&v), "{} shrinks further", case.id);
            }
        }
        // The reversed strides differ only when the result has two dims of different
        // strides, so nothing smaller than two dims and one non-1 stride survives.
        let Some(Outcome::Ok(ok)) = &again.oracle else {
            panic!("{}: the oracle has no result", case.id)
        };
        let ResultValue::Tensor(t) = &ok.result else {
            panic!("not a tensor")
        };
        assert_eq!(t.shape.len(), 2, "{}: {:?}", case.id, t.shape);
        // The regression is labelled by libtorch: the oracle's outcome, which the real
        // engine reproduces.
        let expect = again.oracle.clone().expect("an oracle outcome");
        let regression = regression_case(&small, "regressions/test", "planted", "test", expect);
        assert_eq!(
            Some(run_tch(&regression).expect("tch runs it")),
            regression.expect
        );
        let fixed = diff_case(&mut ReferenceBackend, &mut oracle, &regression);
        assert_eq!(fixed.verdict, DiffVerdict::Agree);
        if found >= 5 {
            break;
        }
    }
    assert!(found >= 5, "the planted bug showed only {found} times");
}
