//! The `bcast` command line. With no subcommand it runs the main job: the conformance suite
//! (the corpus embedded in the binary) against the embedded reference engine.
//!
//! Maintainer tooling (the benchmark, the document claims, the README writers) is the other
//! binary, `bcast-dev` (crate `bcast-tooling`).

mod corpus;
#[cfg(feature = "torch")]
mod diff;
mod gen;
mod matrix;
mod merge;
mod ops;
mod paths;
mod run;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Conformance suite and differential harness for PyTorch broadcasting semantics.
#[derive(Debug, Parser)]
#[command(name = "bcast", about, disable_version_flag = true)]
struct Cli {
    /// Print the version and what the embedded corpus holds (cases, files, schema versions,
    /// the torch version that labelled it).
    #[arg(short = 'V', long)]
    version: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
enum Command {
    /// Run fixtures against a backend (the default).
    Run(Box<run::RunArgs>),
    /// Write generated, unlabelled cases as JSON lines (label them with scripts/label.py).
    Gen(gen::GenArgs),
    /// Measure backends level by level and print the conformance matrix (Markdown).
    Matrix(matrix::MatrixArgs),
    /// List the op catalogue: every op form the cases call, with keywords and an example.
    Ops(ops::OpsArgs),
    /// Merge the JSON reports of a sharded run (`--shard K/N --json PART`) into one.
    MergeReports(merge::MergeArgs),
    /// The corpus embedded in the binary: `bcast corpus export DIR` writes its files.
    Corpus(corpus::CorpusArgs),
    /// Random differential testing against libtorch; shrinks and writes every mismatch.
    #[cfg(feature = "torch")]
    Diff(diff::DiffArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.version {
        println!("{}", corpus::version_text());
        return ExitCode::SUCCESS;
    }
    let result = match cli.command {
        None => run::run(run::RunArgs::default()),
        Some(Command::Run(args)) => run::run(*args),
        Some(Command::Gen(args)) => gen::gen(args),
        Some(Command::Matrix(args)) => matrix::matrix(args),
        Some(Command::Ops(args)) => ops::ops(args),
        Some(Command::MergeReports(args)) => merge::merge(args),
        Some(Command::Corpus(args)) => corpus::corpus(args),
        #[cfg(feature = "torch")]
        Some(Command::Diff(args)) => diff::diff(args),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("bcast: {message}");
            ExitCode::from(2)
        }
    }
}
