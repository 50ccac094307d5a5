//! `bcast-dev matrix`: measures every available implementation over the fixtures and writes the
//! table of pass rates per level into README.md between its markers.

use crate::readme::write_section;
use bcast_conformance::backend::registry::{
    available_implementations, default_python, AdapterLimits,
};
use bcast_conformance::case::load_paths;
use bcast_conformance::report::matrix::{measure, render_matrix};
use bcast_conformance::runner::jobs::checked_jobs;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `bcast-dev matrix`.
#[derive(Debug, Args)]
pub struct MatrixArgs {
    /// Fixture files or directories (default: fixtures/).
    pub paths: Vec<PathBuf>,
    /// The README whose `<!-- matrix:start -->` ... `<!-- matrix:end -->` part is replaced.
    #[arg(long, default_value = "README.md")]
    pub readme: PathBuf,
    /// Print the table instead of writing the README.
    #[arg(long)]
    pub print: bool,
    /// The python that runs the PyTorch and NumPy adapters [default: $BCAST_PYTHON, else
    /// ~/.cache/bcast-torch/venv/bin/python].
    #[arg(long)]
    pub python: Option<PathBuf>,
    /// Per-case timeout of a protocol adapter, in milliseconds.
    #[arg(long, default_value_t = 5000)]
    pub timeout_ms: u64,
    /// Measure each implementation through N instances at once (`bcast matrix --jobs`).
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
}

/// Runs `bcast-dev matrix`.
pub fn matrix(args: MatrixArgs) -> Result<ExitCode, String> {
    let jobs = checked_jobs(args.jobs)?;
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from("fixtures")]
    } else {
        args.paths
    };
    let cases = load_paths(&paths).map_err(|e| e.to_string())?;
    let python = args.python.or_else(default_python);
    let timeouts = AdapterLimits {
        case: std::time::Duration::from_millis(args.timeout_ms),
        ..AdapterLimits::default()
    };
    let (implementations, absent) = available_implementations(python.as_deref(), timeouts);
    let rows = measure(implementations, &cases, jobs, |name| {
        eprintln!("measuring {name}")
    })?;
    let table = render_matrix("bcast-dev matrix", &rows, &cases, &absent);
    if args.print {
        print!("{table}");
        return Ok(ExitCode::SUCCESS);
    }
    write_section(&args.readme, "matrix", &table)?;
    print!("{table}");
    eprintln!("wrote the matrix into {}", args.readme.display());
    Ok(ExitCode::SUCCESS)
}
