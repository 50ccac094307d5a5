//! `bcast merge-reports`: the JSON reports of a sharded run (`--shard K/N --json PART`) merged
//! into the report of the whole (see `report::merge`).

use bcast_conformance::report::merge::merge_reports;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `bcast merge-reports`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The reports of the parts (`bcast run --json`).
    #[arg(required = true)]
    pub reports: Vec<PathBuf>,
    /// Write the merged report here instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Merges; exits 0 when the parts make one report, 2 (with the reason) when they do not.
pub fn merge(args: MergeArgs) -> Result<ExitCode, String> {
    let parts = args
        .reports
        .iter()
        .map(|path| {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
        })
        .collect::<Result<Vec<serde_json::Value>, String>>()?;
    let whole = merge_reports(&parts)?;
    let text = serde_json::to_string_pretty(&whole).map_err(|e| e.to_string())? + "\n";
    match &args.output {
        Some(path) => std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?,
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}
