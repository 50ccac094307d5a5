//! The conformance suite and differential harness for PyTorch broadcasting semantics.
//!
//! Fixtures (see `fixtures/README.md`) hold cases labelled by real PyTorch; a [`Backend`](backend::Backend)
//! runs them; the runner compares, level by level, and names every difference.

pub mod backend;
pub mod bench;
pub mod case;
pub mod claims;
pub mod cli;
pub mod compare;
pub mod diff;
pub mod gen;
pub mod ops;
pub mod oracles;
pub mod quote;
pub mod report;
pub mod repro;
pub mod runner;
pub mod shrink;
