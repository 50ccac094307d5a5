//! Oracles: checks that panic when the engine is wrong, so that fuzz targets, property tests
//! and replayed regressions can drive them with any input. Each takes raw bytes (drawn through
//! [`arbitrary::Unstructured`]) and returns normally when everything agrees.

pub mod decode;
pub mod shapes;
pub mod view_chain;
