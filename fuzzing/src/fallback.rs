//! An oracle made of two backends: the first answers what it can, and a case it cannot
//! express (a [`FailureKind::Unsupported`](bcast_conformance::backend::FailureKind) answer) goes
//! to the second. `bcast diff` puts libtorch first and Python torch (the PyTorch adapter,
//! through the protocol) second, so the calls that exist only in Python (`alpha=` on a method,
//! `torch.broadcast_shapes`, the argument parser's `TypeError`s, ...) are compared too.
//!
//! ```
//! use bcast_conformance::backend::reference::ReferenceBackend;
//! use bcast_conformance::backend::Backend;
//! use bcast_fuzzing::fallback::FallbackOracle;
//! use bcast_fuzzing::generators::{find_family, generate};
//! let mut oracle = FallbackOracle::new(ReferenceBackend, Some(ReferenceBackend));
//! let case = generate(find_family("expand").unwrap(), 1, 0);
//! assert!(oracle.run(&case).is_ok());
//! assert_eq!((oracle.tally.first, oracle.tally.second), (1, 0));
//! ```

use bcast_conformance::backend::{Backend, BackendFailure, Capabilities};
use bcast_conformance::case::{Case, Outcome};

/// How many cases each side answered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FallbackTally {
    /// Answered (or failed on) by the first backend.
    pub first: u64,
    /// Handed to the second because the first could not express them.
    pub second: u64,
}

/// The first backend, and the second for what the first cannot express.
pub struct FallbackOracle<A, B> {
    first: A,
    second: Option<B>,
    /// Which side answered, case by case.
    pub tally: FallbackTally,
}

impl<A: Backend, B: Backend> FallbackOracle<A, B> {
    /// `second` may be absent: then the oracle is `first` alone.
    pub fn new(first: A, second: Option<B>) -> Self {
        FallbackOracle {
            first,
            second,
            tally: FallbackTally::default(),
        }
    }

    /// Whether a second backend is there.
    pub fn has_second(&self) -> bool {
        self.second.is_some()
    }
}

impl<A: Backend, B: Backend> Backend for FallbackOracle<A, B> {
    fn name(&self) -> String {
        match &self.second {
            Some(second) => format!("{} (else {})", self.first.name(), second.name()),
            None => self.first.name(),
        }
    }

    /// The first backend's levels and dtypes (the comparison's); every op when a second
    /// backend takes what the first lacks.
    fn capabilities(&self) -> Capabilities {
        let mut caps = self.first.capabilities();
        if self.second.is_some() {
            caps.ops = None;
        }
        caps
    }

    fn run(&mut self, case: &Case) -> Result<Outcome, BackendFailure> {
        match (self.first.run(case), self.second.as_mut()) {
            // A result outside the schema (a quantized or bit dtype) is outside it for the
            // second too.
            (Err(f), Some(second)) if f.is_unsupported() && !f.is_outside_schema() => {
                self.tally.second += 1;
                second.run(case).map_err(outside_schema_of_second)
            }
            (answer, _) => {
                self.tally.first += 1;
                answer
            }
        }
    }
}

/// The PyTorch adapter answers a case whose result the schema cannot hold (a quantized or bit
/// tensor) with a failure that says so, as the protocol has no other answer for it; for the
/// oracle that is outside the schema, as it is when libtorch says it.
fn outside_schema_of_second(f: BackendFailure) -> BackendFailure {
    let marker = BackendFailure::OUTSIDE_SCHEMA;
    match f.message.find(marker) {
        Some(at) if !f.is_unsupported() => {
            BackendFailure::outside_schema(&f.message[at + marker.len()..])
        }
        _ => f,
    }
}
