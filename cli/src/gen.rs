//! `bcast gen`: generated cases, unlabelled, as JSON lines.

use bcast_fuzzing::generators::{families, find_family, generate};
use clap::Args;
use std::io::Write;
use std::process::ExitCode;

/// Arguments of `bcast gen`.
#[derive(Debug, Args)]
pub struct GenArgs {
    /// The family to draw from (see --list).
    #[arg(long)]
    pub family: Option<String>,
    /// The seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// How many cases.
    #[arg(long, default_value_t = 100)]
    pub count: u64,
    /// The index of the first case (`bcast diff` names a finding by its index: `bcast gen
    /// --family F --seed S --start INDEX --count 1` is that case, unlabelled).
    #[arg(long, default_value_t = 0)]
    pub start: u64,
    /// List the families and stop.
    #[arg(long)]
    pub list: bool,
}

/// Runs `bcast gen`.
pub fn gen(args: GenArgs) -> Result<ExitCode, String> {
    if args.list {
        for f in families() {
            println!("{:<20} {}", f.name, f.about);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let name = args.family.ok_or("--family is required (see --list)")?;
    let family = find_family(&name).ok_or_else(|| format!("no family {name:?} (see --list)"))?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let end = args
        .start
        .checked_add(args.count)
        .ok_or("--start plus --count exceeds the last index")?;
    for index in args.start..end {
        let case = generate(family, args.seed, index);
        let line = serde_json::to_string(&case).map_err(|e| e.to_string())?;
        writeln!(out, "{line}").map_err(|e| e.to_string())?;
    }
    Ok(ExitCode::SUCCESS)
}
