//! `bcast-dev discrepancies`: every document claim that torch contradicts (see `claims`).

use crate::claims::build_report;
use crate::readme::write_section;
use bcast_conformance::case::load_paths;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `bcast-dev discrepancies`.
#[derive(Debug, Args, Default)]
pub struct DiscrepanciesArgs {
    /// Fixture files or directories (default: fixtures/docs).
    pub paths: Vec<PathBuf>,
    /// Print a Markdown fragment (for the README) instead of text.
    #[arg(long)]
    pub markdown: bool,
    /// Write the Markdown fragment into this README, between `<!-- discrepancies:start -->`
    /// and `<!-- discrepancies:end -->`.
    #[arg(long)]
    pub readme: Option<PathBuf>,
}

/// Prints the report; discrepancies are findings, not failures, so it exits 0.
pub fn discrepancies(args: DiscrepanciesArgs) -> Result<ExitCode, String> {
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from("fixtures/docs")]
    } else {
        args.paths
    };
    let cases = load_paths(&paths).map_err(|e| e.to_string())?;
    let report = build_report(&cases);
    if let Some(readme) = &args.readme {
        write_section(readme, "discrepancies", &report.to_markdown())?;
        eprintln!("wrote the discrepancies into {}", readme.display());
        return Ok(ExitCode::SUCCESS);
    }
    print!(
        "{}",
        if args.markdown {
            report.to_markdown()
        } else {
            report.to_text()
        }
    );
    Ok(ExitCode::SUCCESS)
}
