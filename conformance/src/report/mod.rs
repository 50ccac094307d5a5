//! Reports of a run: the human summary table, JUnit XML, JSON, per-level pass rates, and the
//! conformance matrix written into README.md.

pub mod json;
pub mod junit;
pub mod levels;
pub mod matrix;
pub mod merge;
pub mod summary;
