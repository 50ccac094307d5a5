//! `bcast run`: the conformance suite against a backend, with a summary.

use crate::backend::reference::ReferenceBackend;
use crate::backend::{Backend, Level};
use crate::case::load_paths;
use crate::runner::{describe_failure, run_case, Verdict};
use clap::Args;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `bcast run`.
#[derive(Debug, Args, Default)]
pub struct RunArgs {
    /// Fixture files or directories (default: fixtures/).
    pub paths: Vec<PathBuf>,
}

/// Runs the suite; exits non-zero when any case fails.
pub fn run(args: RunArgs) -> Result<ExitCode, String> {
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from("fixtures")]
    } else {
        args.paths
    };
    let cases = load_paths(&paths).map_err(|e| e.to_string())?;
    let levels: BTreeSet<Level> = Level::ALL.into_iter().collect();
    let mut backend = ReferenceBackend;
    let (mut pass, mut fail, mut skip) = (0, 0, 0);
    for loaded in &cases {
        let report = run_case(&mut backend, &loaded.case, &levels);
        match report.verdict {
            Verdict::Pass => pass += 1,
            Verdict::Skip(_) => skip += 1,
            _ => {
                fail += 1;
                eprintln!("{}", describe_failure(loaded, &report));
            }
        }
    }
    println!(
        "{}: {} cases, {pass} passed, {fail} failed, {skip} skipped",
        backend.name(),
        cases.len()
    );
    Ok(if fail == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
