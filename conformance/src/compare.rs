//! Comparing an outcome with the expectation: see [`bcast_case::compare`].

pub use bcast_case::compare::*;
