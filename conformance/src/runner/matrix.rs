//! Measuring implementations for the conformance matrix: each runs every case with every level
//! wanted, and its row holds what it passed, level by level.

use super::suite::{run_suite, SuiteOptions};
use crate::backend::registry::Implementation;
use crate::backend::Level;
use crate::case::LoadedCase;
use crate::report::matrix::MatrixRow;

/// Runs the cases through each implementation, calling `progress` with its name first.
pub fn measure(
    implementations: Vec<Implementation>,
    cases: &[LoadedCase],
    mut progress: impl FnMut(&str),
) -> Vec<MatrixRow> {
    let options = SuiteOptions {
        levels: Level::ALL.into_iter().collect(),
        ..SuiteOptions::default()
    };
    implementations
        .into_iter()
        .map(|mut imp| {
            progress(&imp.backend.name());
            let result = run_suite(imp.backend.as_mut(), cases, &options, |_, _| {});
            MatrixRow::measure(&imp.via, &result, cases)
        })
        .collect()
}
