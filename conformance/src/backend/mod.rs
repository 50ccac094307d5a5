//! What an implementation under test provides: a [`Backend`] runs a case and reports the
//! outcome in the schema's terms, and declares which ops, dtypes and check levels it claims.
//!
//! Backends: the reference engine ([`reference`](mod@reference)), any program that speaks the JSON-lines
//! protocol of `PROTOCOL.md` ([`subprocess`]), and other Rust tensor crates compiled in by a
//! cargo feature ([`foreign`]). [`registry`] turns a `--backend` spec into one of them.

pub mod foreign;
pub mod reference;
pub mod registry;
pub mod subprocess;
#[cfg(feature = "torch")]
pub mod tch;

pub use bcast_case::{Backend, BackendFailure, Capabilities, FailureKind, Level};
