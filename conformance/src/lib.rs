//! The conformance suite and differential harness for PyTorch broadcasting semantics.
//!
//! Fixtures (see `fixtures/README.md`) hold cases labelled by real PyTorch; a [`Backend`](backend::Backend)
//! runs them; the runner compares, level by level, and names every difference.

// As in bcast-engine: the body of an `unsafe fn` is an unsafe context (the 2021 edition's rule).
#![allow(unsafe_op_in_unsafe_fn)]
pub mod backend;
pub mod case;
pub mod compare;
pub mod ops;
pub mod quote;
pub mod report;
pub mod repro;
pub mod runner;
