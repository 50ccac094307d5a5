//! The `bcast` command line. With no subcommand it runs the main job: the conformance suite
//! against the embedded reference engine.

mod bench;
#[cfg(feature = "torch")]
mod diff;
mod discrepancies;
mod gen;
mod matrix;
mod ops;
mod run;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Conformance suite and differential harness for PyTorch broadcasting semantics.
#[derive(Debug, Parser)]
#[command(name = "bcast", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run fixtures against a backend (the default).
    Run(Box<run::RunArgs>),
    /// Write generated, unlabelled cases as JSON lines (label them with scripts/label.py).
    Gen(gen::GenArgs),
    /// List every document claim (fixtures/docs) that torch contradicts.
    Discrepancies(discrepancies::DiscrepanciesArgs),
    /// Measure every available implementation and write the pass-rate matrix into README.md.
    Matrix(matrix::MatrixArgs),
    /// List the op catalogue: every op form the cases call, with keywords and an example.
    Ops(ops::OpsArgs),
    /// Time the engine against libtorch (feature torch) and ndarray (feature ndarray).
    Bench(bench::BenchArgs),
    /// Random differential testing against libtorch; shrinks and writes every mismatch.
    #[cfg(feature = "torch")]
    Diff(diff::DiffArgs),
}

/// Parses the command line and runs it.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        None => run::run(run::RunArgs::default()),
        Some(Command::Run(args)) => run::run(*args),
        Some(Command::Gen(args)) => gen::gen(args),
        Some(Command::Discrepancies(args)) => discrepancies::discrepancies(args),
        Some(Command::Matrix(args)) => matrix::matrix(args),
        Some(Command::Bench(args)) => bench::bench(args),
        Some(Command::Ops(args)) => ops::ops(args),
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
