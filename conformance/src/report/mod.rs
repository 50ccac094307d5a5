//! Reports of a run: the human summary table, JUnit XML, JSON, an HTML page, per-level pass
//! rates, and the conformance matrix written into README.md; a run read back from its JSON
//! report (`replay`), so that a merged run gets them too.

pub mod html;
pub mod json;
pub mod junit;
pub mod levels;
pub mod matrix;
pub mod merge;
pub mod replay;
pub mod summary;
