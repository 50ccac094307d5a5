//! `bcast merge-reports`: the JSON reports of a sharded run (`--shard K/N --json PART`) merged
//! into the report of the whole (see `report::merge`).

use crate::paths::check_outputs;
use bcast_conformance::report::merge::merge_reports;
use clap::Args;
use std::io::Write as _;
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
    /// Merge a set that lacks parts of the run, or holds parts stopped before their last case
    /// (by default refused); the merged report says so (`"complete": false`).
    #[arg(long)]
    pub allow_partial: bool,
}

/// Merges; exits 0 when the parts make one report, 2 (with the reason) when they do not.
pub fn merge(args: MergeArgs) -> Result<ExitCode, String> {
    if let Some(output) = &args.output {
        let inputs: Vec<(&str, &std::path::Path)> = args
            .reports
            .iter()
            .map(|p| ("a report it merges", p.as_path()))
            .collect();
        check_outputs(&[("-o", output)], &inputs, &[])?;
    }
    let texts = args
        .reports
        .iter()
        .map(|path| std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display())))
        .collect::<Result<Vec<String>, String>>()?;
    let names: Vec<String> = args
        .reports
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let parts: Vec<(&str, &str)> = names
        .iter()
        .zip(&texts)
        .map(|(name, text)| (name.as_str(), text.as_str()))
        .collect();
    let whole = merge_reports(&parts, args.allow_partial)?;
    if !whole.complete {
        eprintln!(
            "note: the merged report is incomplete: it holds part(s) {} of {}{}",
            whole
                .shards
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            whole.shards[0].count,
            whole
                .stopped
                .as_ref()
                .map_or(String::new(), |why| format!("; stopped: {why}"))
        );
    }
    // Written as it is serialized: no second copy of the cases in memory.
    let write = |out: &mut dyn std::io::Write| -> std::io::Result<()> {
        let mut out = std::io::BufWriter::new(out);
        serde_json::to_writer_pretty(&mut out, &whole)?;
        writeln!(out)?;
        out.flush()
    };
    match &args.output {
        Some(path) => std::fs::File::create(path).and_then(|mut f| write(&mut f)),
        None => write(&mut std::io::stdout().lock()),
    }
    .map_err(|e| {
        let to = args
            .output
            .as_ref()
            .map_or("standard output".to_string(), |p| p.display().to_string());
        format!("{to}: {e}")
    })?;
    Ok(ExitCode::SUCCESS)
}
