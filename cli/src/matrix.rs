//! `bcast matrix`: measures the backends named, level by level, and prints the conformance
//! matrix as a Markdown table (the one `bcast-dev matrix` writes into README.md, measured by
//! the same function). It writes no file.

use bcast_conformance::backend::registry::{open_implementation, AdapterLimits};
use bcast_conformance::report::matrix::{measure, render_matrix};
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
}

/// Runs `bcast matrix`: exit 0 once every backend is measured, whatever its pass rates; 2 when
/// the fixtures do not load or a backend does not start.
pub fn matrix(args: MatrixArgs) -> Result<ExitCode, String> {
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
    let rows = measure(implementations, &cases, |name| {
        eprintln!("measuring {name}")
    });
    print!("{}", render_matrix("bcast matrix", &rows, &cases, &[]));
    Ok(ExitCode::SUCCESS)
}
