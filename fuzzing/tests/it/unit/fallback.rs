//! `fallback`: which backend of a [`FallbackOracle`] answers, and what it hands on.

use bcast_conformance::backend::reference::ReferenceBackend;
use bcast_conformance::backend::{Backend, BackendFailure, Capabilities, FailureKind};
use bcast_conformance::case::{Case, Outcome};
use bcast_fuzzing::fallback::{FallbackOracle, FallbackTally};

/// A backend that cannot express anything.
struct Nothing;

impl Backend for Nothing {
    fn name(&self) -> String {
        "nothing".to_string()
    }
    fn capabilities(&self) -> Capabilities {
        ReferenceBackend.capabilities()
    }
    fn run(&mut self, _: &Case) -> Result<Outcome, BackendFailure> {
        Err(BackendFailure::unsupported("no op at all"))
    }
}

/// A backend that crashes on everything.
struct Crashes;

impl Backend for Crashes {
    fn name(&self) -> String {
        "crashes".to_string()
    }
    fn capabilities(&self) -> Capabilities {
        ReferenceBackend.capabilities()
    }
    fn run(&mut self, _: &Case) -> Result<Outcome, BackendFailure> {
        Err(BackendFailure::new(FailureKind::Crashed, "boom"))
    }
}

fn a_case() -> Case {
    bcast_fuzzing::generators::generate(
        bcast_fuzzing::generators::find_family("expand").unwrap(),
        3,
        1,
    )
}

#[test]
fn what_the_first_cannot_express_goes_to_the_second() {
    let mut oracle = FallbackOracle::new(Nothing, Some(ReferenceBackend));
    let case = a_case();
    assert_eq!(oracle.run(&case), ReferenceBackend.run(&case));
    assert_eq!(
        oracle.tally,
        FallbackTally {
            first: 0,
            second: 1
        }
    );
    assert!(oracle.capabilities().ops.is_none());
    assert_eq!(oracle.name(), "nothing (else reference)");
}

#[test]
fn a_failure_of_the_first_is_its_own_not_handed_on() {
    let mut oracle = FallbackOracle::new(Crashes, Some(ReferenceBackend));
    let failure = oracle.run(&a_case()).unwrap_err();
    assert_eq!(failure.kind, FailureKind::Crashed);
    assert_eq!(
        oracle.tally,
        FallbackTally {
            first: 1,
            second: 0
        }
    );
}

/// A backend whose every result is outside the schema.
struct Quantized;

impl Backend for Quantized {
    fn name(&self) -> String {
        "quantized".to_string()
    }
    fn capabilities(&self) -> Capabilities {
        ReferenceBackend.capabilities()
    }
    fn run(&mut self, _: &Case) -> Result<Outcome, BackendFailure> {
        Err(BackendFailure::outside_schema("a QInt8 result"))
    }
}

#[test]
fn a_result_outside_the_schema_is_not_handed_on() {
    let mut oracle = FallbackOracle::new(Quantized, Some(ReferenceBackend));
    assert!(oracle.run(&a_case()).unwrap_err().is_outside_schema());
    assert_eq!(
        oracle.tally,
        FallbackTally {
            first: 1,
            second: 0
        }
    );
}

#[test]
fn without_a_second_the_first_answers_alone() {
    let mut oracle = FallbackOracle::<_, ReferenceBackend>::new(Nothing, None);
    assert!(oracle.run(&a_case()).unwrap_err().is_unsupported());
    assert_eq!(
        oracle.tally,
        FallbackTally {
            first: 1,
            second: 0
        }
    );
    assert_eq!(oracle.name(), "nothing");
}

/// A second backend that answers as the PyTorch adapter does for a quantized result.
struct AdapterOutsideSchema;

impl Backend for AdapterOutsideSchema {
    fn name(&self) -> String {
        "adapter".to_string()
    }
    fn capabilities(&self) -> Capabilities {
        ReferenceBackend.capabilities()
    }
    fn run(&mut self, _: &Case) -> Result<Outcome, BackendFailure> {
        Err(BackendFailure::bad_input(
            "the adapter could not run the case: outside the schema: a torch.qint8 result",
        ))
    }
}

#[test]
fn the_seconds_outside_the_schema_is_unsupported_and_other_failures_stay() {
    let mut oracle = FallbackOracle::new(Nothing, Some(AdapterOutsideSchema));
    let failure = oracle.run(&a_case()).unwrap_err();
    assert!(failure.is_outside_schema(), "{failure:?}");
    assert!(failure.message.ends_with("a torch.qint8 result"));
    let mut oracle = FallbackOracle::new(Nothing, Some(Crashes));
    assert_eq!(
        oracle.run(&a_case()).unwrap_err().kind,
        FailureKind::Crashed
    );
}
