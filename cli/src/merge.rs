//! `bcast merge-reports`: the JSON reports of a sharded run (`--shard K/N --json PART`) merged
//! into the report of the whole (see `report::merge`), and with `--junit`/`--html` the whole
//! run's JUnit XML and HTML page (see `report::replay`).

use crate::paths::{check_outputs, Named};
use bcast_conformance::report::html::run_page;
use bcast_conformance::report::junit::junit_xml;
use bcast_conformance::report::merge::merge_reports;
use bcast_conformance::report::replay::replay;
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
    /// Also write the whole run's JUnit XML, as `bcast run --junit` writes it.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Also write the whole run's HTML page, as `bcast run --html` writes it.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// With --junit: an expected failure that passed is a failure, as with `bcast run
    /// --strict-xfail`.
    #[arg(long)]
    pub strict_xfail: bool,
    /// The fixture files or directories the parts ran (by default the corpus embedded in
    /// bcast), for --junit and --html: their cases give the pages their ops and torch repros.
    #[arg(long, value_name = "PATH")]
    pub fixtures: Vec<PathBuf>,
}

/// Merges; exits 0 when the parts make one report, 2 (with the reason) when they do not.
pub fn merge(args: MergeArgs) -> Result<ExitCode, String> {
    let outputs: Vec<Named<'_>> = [
        ("-o", &args.output),
        ("--junit", &args.junit),
        ("--html", &args.html),
    ]
    .into_iter()
    .filter_map(|(option, path)| Some((option, path.as_deref()?)))
    .collect();
    let fixture_files = bcast_case::fixture_files(&args.fixtures).unwrap_or_default();
    let inputs: Vec<Named<'_>> = args
        .reports
        .iter()
        .map(|p| ("a report it merges", p.as_path()))
        .chain(
            fixture_files
                .iter()
                .map(|f| ("a fixture file it reads", f.as_path())),
        )
        .collect();
    check_outputs(&outputs, &inputs, &[])?;
    if !args.fixtures.is_empty() && args.junit.is_none() && args.html.is_none() {
        return Err("--fixtures names the cases of --junit and --html; give one of them".into());
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
    if args.junit.is_some() || args.html.is_some() {
        write_pages(&args, &whole)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes the JUnit XML and the HTML page of the merged run (`whole`), read back over the
/// fixture cases it ran (`report::replay`).
fn write_pages(args: &MergeArgs, whole: &impl serde::Serialize) -> Result<(), String> {
    let (cases, _) = crate::corpus::load(&args.fixtures)?;
    let text = serde_json::to_string(whole).map_err(|e| e.to_string())?;
    let result = replay(&text, &cases).map_err(|e| {
        let from = if args.fixtures.is_empty() {
            "the embedded corpus (name the fixtures the parts ran with --fixtures)"
        } else {
            "--fixtures"
        };
        format!("the merged report and {from}: {e}")
    })?;
    drop(text);
    if let Some(path) = &args.junit {
        let xml = junit_xml(&result, &cases, args.strict_xfail)?;
        std::fs::write(path, xml).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if let Some(path) = &args.html {
        let page = run_page(&result, &cases)?;
        std::fs::write(path, page).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}
