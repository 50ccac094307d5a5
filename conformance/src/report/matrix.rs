//! The conformance matrix: one row per implementation, one column per check level, each cell
//! the measured pass rate (see [`level_counts`]): printed by `bcast matrix`, and written into
//! README.md between markers by `bcast-dev matrix`.

use super::levels::{level_counts, op_counts, LevelCount, OpCounts};
use crate::backend::registry::Implementation;
use crate::backend::Level;
use crate::case::LoadedCase;
use crate::runner::jobs::run_suite_jobs;
use crate::runner::suite::{run_suite, Status, SuiteOptions, SuiteResult};
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
    /// The same counts op by op (the HTML matrix draws them).
    pub by_op: BTreeMap<String, OpCounts>,
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
            by_op: op_counts(result, cases),
        }
    }
}

/// Runs the cases through each implementation with every level wanted, through `jobs`
/// instances of it at once (as `bcast run --jobs`: the same verdicts, the run refused when an
/// instance says another hello), calling `progress` with its name first; each row holds what it
/// passed, level by level. `bcast matrix` and `bcast-dev matrix` both measure with this.
///
/// ```
/// use bcast_conformance::backend::registry::{open_implementation, AdapterLimits};
/// use bcast_conformance::case::load_file;
/// use bcast_conformance::report::matrix::measure;
/// let cases = load_file(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/numel.json").as_ref()).unwrap();
/// let open = || open_implementation("reference", AdapterLimits::default()).unwrap();
/// let one = measure(vec![open()], &cases, 1, |_| {}).unwrap();
/// let two = measure(vec![open()], &cases, 2, |_| {}).unwrap();
/// assert_eq!((one[0].run, one[0].passed), (cases.len(), cases.len()));
/// assert_eq!((two[0].run, two[0].passed), (one[0].run, one[0].passed));
/// ```
pub fn measure(
    implementations: Vec<Implementation>,
    cases: &[LoadedCase],
    jobs: usize,
    mut progress: impl FnMut(&str),
) -> Result<Vec<MatrixRow>, String> {
    let options = SuiteOptions {
        levels: Level::ALL.into_iter().collect(),
        ..SuiteOptions::default()
    };
    implementations
        .into_iter()
        .map(|mut imp| {
            progress(&imp.backend.name());
            let result = if jobs <= 1 {
                run_suite(imp.backend.as_mut(), cases, &options, |_, _| {})
            } else {
                let open = &*imp.open_another;
                run_suite_jobs(imp.backend, open, jobs, cases, &options, |_, _| {})?
            };
            Ok(MatrixRow::measure(&imp.via, &result, cases))
        })
        .collect()
}

/// The matrix as a Markdown table, with the ops measured and a note of what was not measured;
/// `measured_by` names the command in its first sentence (`bcast-dev matrix`).
pub fn render_matrix(
    measured_by: &str,
    rows: &[MatrixRow],
    cases: &[LoadedCase],
    absent: &[String],
) -> String {
    let ops: BTreeSet<&str> = cases.iter().map(|c| c.case.call.fn_.as_str()).collect();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Measured by `{measured_by}` over {} cases of {} op forms. A cell is passed/applicable \
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
            table_cell(&row.name),
            table_cell(&row.via),
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

/// Text made safe for a Markdown table cell: `|` escaped, line breaks as spaces.
fn table_cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}
