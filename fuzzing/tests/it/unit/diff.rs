//! `diff`: verdicts from the two outcomes of a case, and which verdicts are the same finding.

use bcast_conformance::backend::reference::ReferenceBackend;
use bcast_conformance::backend::{Backend, BackendFailure, Capabilities, Level};
use bcast_conformance::case::{Case, ErrorOutcome, OkOutcome, Outcome, ResultValue};
use bcast_conformance::compare::Mismatch;
use bcast_fuzzing::diff::{diff_case, DiffVerdict, Side};
use bcast_fuzzing::generators::{find_family, generate};

/// An oracle that answers the same thing for every case.
struct Fixed(Result<Outcome, BackendFailure>);

impl Backend for Fixed {
    fn name(&self) -> String {
        "fixed".into()
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::everything()
    }
    fn run(&mut self, _: &Case) -> Result<Outcome, BackendFailure> {
        self.0.clone()
    }
}

fn error(kind: &str) -> Outcome {
    Outcome::Error(ErrorOutcome::new(kind, "m"))
}

#[test]
fn verdicts_follow_the_outcomes() {
    let case = generate(find_family("expand").unwrap(), 3, 1);
    let mut engine = ReferenceBackend;
    let ok = Outcome::Ok(OkOutcome {
        result: ResultValue::Int(-7),
        storages: None,
        warnings: None,
        grads: None,
        backward_error: None,
    });
    let run = diff_case(&mut engine, &mut Fixed(Ok(ok)), &case);
    assert!(
        matches!(run.verdict, DiffVerdict::Mismatch(_)),
        "{:?}",
        run.verdict
    );
    let run = diff_case(
        &mut engine,
        &mut Fixed(Err(BackendFailure::unsupported("x"))),
        &case,
    );
    assert!(matches!(
        run.verdict,
        DiffVerdict::Unsupported {
            side: Side::Oracle,
            ..
        }
    ));
    let run = diff_case(
        &mut engine,
        &mut Fixed(Err(BackendFailure::bad_input("boom"))),
        &case,
    );
    assert!(matches!(
        run.verdict,
        DiffVerdict::Failure {
            side: Side::Oracle,
            ..
        }
    ));
    let mut missing_op = case.clone();
    missing_op.call.fn_ = "torch.logsumexp".into();
    let run = diff_case(
        &mut engine,
        &mut Fixed(Ok(error("RuntimeError"))),
        &missing_op,
    );
    assert!(
        matches!(&run.verdict, DiffVerdict::Unsupported { side: Side::Engine, reason } if reason.contains("torch.logsumexp")),
        "{:?}",
        run.verdict
    );
}

#[test]
fn findings_match_by_level_and_side() {
    let m = |level| Mismatch {
        level,
        place: "p".into(),
        expected: "a".into(),
        got: "b".into(),
    };
    let values = DiffVerdict::Mismatch(vec![m(Level::Values)]);
    assert!(values.same_finding(&DiffVerdict::Mismatch(vec![
        m(Level::Shapes),
        m(Level::Values)
    ])));
    assert!(!values.same_finding(&DiffVerdict::Mismatch(vec![m(Level::Strides)])));
    assert!(!values.same_finding(&DiffVerdict::Agree));
    let crash = DiffVerdict::Failure {
        side: Side::Engine,
        reason: "a".into(),
    };
    assert!(crash.same_finding(&DiffVerdict::Failure {
        side: Side::Engine,
        reason: "b".into()
    }));
    assert!(!crash.same_finding(&DiffVerdict::Failure {
        side: Side::Oracle,
        reason: "a".into()
    }));
}
