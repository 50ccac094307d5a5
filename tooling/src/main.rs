//! `bcast-dev`: the maintainers' tools, apart from the `bcast` that users install: the
//! benchmark against libtorch and ndarray, the document claims torch contradicts, and the
//! writers of README's generated sections.

use bcast_tooling::cli;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Maintainer tooling of the broadcasting conformance suite.
#[derive(Debug, Parser)]
#[command(name = "bcast-dev", version, about)]
struct Dev {
    #[command(subcommand)]
    command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
enum Command {
    /// Time the engine against libtorch (feature torch) and ndarray (feature ndarray).
    Bench(cli::bench::BenchArgs),
    /// List every document claim (fixtures/docs) that torch contradicts.
    Discrepancies(cli::discrepancies::DiscrepanciesArgs),
    /// Measure every available implementation and write the pass-rate matrix into README.md.
    Matrix(cli::matrix::MatrixArgs),
}

fn main() -> ExitCode {
    let result = match Dev::parse().command {
        Command::Bench(args) => cli::bench::bench(args),
        Command::Discrepancies(args) => cli::discrepancies::discrepancies(args),
        Command::Matrix(args) => cli::matrix::matrix(args),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("bcast-dev: {message}");
            ExitCode::from(2)
        }
    }
}
