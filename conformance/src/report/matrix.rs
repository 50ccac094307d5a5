//! The conformance matrix: one row per implementation, one column per check level, each cell
//! the measured pass rate (see [`level_counts`]), written into README.md between markers.

use super::levels::{level_counts, LevelCount};
use crate::backend::Level;
use crate::case::LoadedCase;
use crate::runner::suite::{Status, SuiteResult};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// One measured implementation.
#[derive(Debug, Clone)]
pub struct MatrixRow {
    pub name: String,
    /// How it was reached (`in-process`, `protocol: ...`).
    pub via: String,
    pub run: usize,
    pub skipped: usize,
    /// Cases that passed every claimed level.
    pub passed: usize,
    /// Counts of the levels it claims; a level absent here is not claimed.
    pub levels: BTreeMap<Level, LevelCount>,
}

impl MatrixRow {
    /// The row of a finished run (run with every level wanted).
    pub fn measure(via: &str, result: &SuiteResult, cases: &[LoadedCase]) -> MatrixRow {
        let skipped = result.count(Status::Skip);
        MatrixRow {
            name: result.backend.clone(),
            via: via.to_string(),
            run: result.entries.len() - skipped,
            skipped,
            passed: result.count(Status::Pass) + result.count(Status::Xpass),
            levels: level_counts(result, cases),
        }
    }
}

/// The matrix as a Markdown table, with the ops measured and a note of what was not measured.
pub fn render_matrix(rows: &[MatrixRow], cases: &[LoadedCase], absent: &[String]) -> String {
    let ops: BTreeSet<&str> = cases.iter().map(|c| c.case.call.fn_.as_str()).collect();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Measured by `bcast-dev matrix` over {} cases of {} op forms. A cell is passed/applicable \
         cases of that level; `—` means the implementation does not claim the level; skipped \
         cases (op or dtype not claimed) count nowhere.",
        cases.len(),
        ops.len()
    );
    s.push('\n');
    let _ = write!(
        s,
        "| implementation | via | cases run | skipped | all claimed levels |"
    );
    for level in Level::ALL {
        let _ = write!(s, " {level} |");
    }
    s.push('\n');
    s.push_str("| --- | --- | ---: | ---: | ---: |");
    for _ in Level::ALL {
        s.push_str(" ---: |");
    }
    s.push('\n');
    for row in rows {
        let all = LevelCount {
            passed: row.passed,
            applicable: row.run,
        };
        let _ = write!(
            s,
            "| {} | {} | {} | {} | {} |",
            row.name,
            row.via,
            row.run,
            row.skipped,
            all.cell()
        );
        for level in Level::ALL {
            let cell = row.levels.get(&level).map_or("—".to_string(), |c| c.cell());
            let _ = write!(s, " {cell} |");
        }
        s.push('\n');
    }
    if !absent.is_empty() {
        s.push('\n');
        let _ = writeln!(s, "Not measured: {}.", absent.join("; "));
    }
    s
}
