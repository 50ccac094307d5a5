//! `bcast matrix`: measures the backends named, level by level, and prints the conformance
//! matrix as a Markdown table (the one `bcast-dev matrix` writes into README.md, measured by
//! the same function); with `--html`, it also writes the matrix as a page.

use crate::paths::{check_outputs, Named};
use bcast_conformance::backend::registry::{open_implementation, AdapterLimits};
use bcast_conformance::report::html::matrix_page;
use bcast_conformance::report::matrix::{measure, render_matrix};
use bcast_conformance::runner::jobs::checked_jobs;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Arguments of `bcast matrix`.
#[derive(Debug, Args)]
pub struct MatrixArgs {
    /// Fixture files or directories (default: the corpus embedded in the binary).
    pub paths: Vec<PathBuf>,
    /// A backend to measure, as `bcast run --backend` takes it: `reference`, an in-process
    /// name, or the command line of a protocol adapter; repeatable, one row each.
    #[arg(long = "backend", value_name = "BACKEND", required = true)]
    pub backends: Vec<String>,
    /// Per-case timeout of a protocol adapter, in milliseconds [default: 5000].
    #[arg(long)]
    pub timeout_ms: Option<u64>,
    /// Also write the matrix as an HTML page: every backend's level and op x level heat maps.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Measure each backend through N instances at once (N adapter processes, or N threads of
    /// an in-process backend), as `bcast run --jobs` does [default: 1].
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
}

/// Runs `bcast matrix`: exit 0 once every backend is measured, whatever its pass rates; 2 when
/// the fixtures do not load or a backend does not start.
pub fn matrix(args: MatrixArgs) -> Result<ExitCode, String> {
    let jobs = checked_jobs(args.jobs)?;
    if let Some(path) = &args.html {
        let fixtures = bcast_case::fixture_files(&args.paths).unwrap_or_default();
        let inputs: Vec<Named<'_>> = fixtures
            .iter()
            .map(|f| ("a fixture file the matrix reads", f.as_path()))
            .collect();
        check_outputs(&[("--html", path.as_path())], &inputs, &[])?;
        crate::run::check_writable(path)?;
    }
    let (cases, source) = crate::corpus::load(&args.paths)?;
    if cases.is_empty() {
        return Err(format!("no fixture case in {source}"));
    }
    let defaults = AdapterLimits::default();
    let limits = AdapterLimits {
        case: args.timeout_ms.map_or(defaults.case, Duration::from_millis),
        ..defaults
    };
    let implementations = args
        .backends
        .iter()
        .map(|spec| open_implementation(spec, limits))
        .collect::<Result<Vec<_>, _>>()?;
    let rows = measure(implementations, &cases, jobs, |name| {
        eprintln!("measuring {name}")
    })?;
    print!("{}", render_matrix("bcast matrix", &rows, &cases, &[]));
    if let Some(path) = &args.html {
        let page = matrix_page(&rows, &cases)?;
        std::fs::write(path, page).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}
