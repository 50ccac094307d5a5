//! The corpus the commands read when given no path: the one compressed into the binary (crate
//! `bcast-corpus`, from the repository's `fixtures/` as it was at build time), so `bcast run`
//! works from any directory. `bcast corpus export DIR` writes it out; `bcast --version` names it.

use bcast_conformance::case::{load_paths, LoadedCase};
use bcast_corpus::Corpus;
use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `bcast corpus`.
#[derive(Debug, Args)]
pub struct CorpusArgs {
    #[command(subcommand)]
    command: CorpusCommand,
}

#[derive(Debug, Subcommand)]
enum CorpusCommand {
    /// Write the embedded corpus into DIR as the files of the repository's fixtures/
    /// (`bcast corpus export fixtures` gives them the names reports use), to read, edit or
    /// run with `bcast run DIR`.
    Export {
        /// The directory to write into (created if need be).
        dir: PathBuf,
        /// Overwrite files that are already there (by default that is an error, and nothing
        /// is written).
        #[arg(long)]
        force: bool,
    },
}

/// Runs `bcast corpus`.
pub fn corpus(args: CorpusArgs) -> Result<ExitCode, String> {
    match args.command {
        CorpusCommand::Export { dir, force } => {
            let corpus = Corpus::embedded().map_err(|e| e.to_string())?;
            let written = corpus.export(&dir, force)?;
            eprintln!("wrote {written} files to {}", dir.display());
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The cases of `paths` (fixture files or directories), or of the embedded corpus when there
/// are none, with how to name them in messages.
pub fn load(paths: &[PathBuf]) -> Result<(Vec<LoadedCase>, String), String> {
    if paths.is_empty() {
        let corpus = Corpus::embedded().map_err(|e| e.to_string())?;
        let cases = corpus.cases().map_err(|e| e.to_string())?;
        return Ok((cases, "the embedded corpus".to_string()));
    }
    let cases = load_paths(paths).map_err(|e| e.to_string())?;
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    Ok((cases, shown.join(", ")))
}

/// What `bcast --version` prints: the version, then the embedded corpus (case and file
/// counts, schema versions and the torch version that labelled it, all read from its files).
pub fn version_text() -> String {
    let version = format!("bcast {}", env!("CARGO_PKG_VERSION"));
    let corpus = Corpus::embedded().and_then(|c| c.summary());
    match corpus {
        Ok(s) => format!(
            "{version}\ncorpus: {s}; embedded ({:.1} MB, {:.1} MB as files: `bcast corpus export DIR`)",
            s.packed_bytes as f64 / 1e6,
            s.unpacked_bytes as f64 / 1e6
        ),
        Err(e) => format!("{version}\ncorpus: {e}"),
    }
}
