//! `bcast run`: the conformance suite against a backend, with a summary table, optional JUnit
//! and JSON reports, and an exit code that is non-zero exactly on unexpected failures.

use crate::backend::registry::{open_backend, AdapterTimeouts};
use crate::backend::Level;
use crate::case::load_paths;
use crate::report::json::json_report;
use crate::report::junit::junit_xml;
use crate::report::summary::{summary_line, summary_table};
use crate::runner::describe_failure;
use crate::runner::select::{CaseFilter, IdPattern};
use crate::runner::suite::{run_suite, Status, SuiteOptions};
use crate::runner::xfail::XfailList;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Arguments of `bcast run`.
#[derive(Debug, Args, Default)]
pub struct RunArgs {
    /// Fixture files or directories (default: fixtures/).
    pub paths: Vec<PathBuf>,
    /// Only cases of this op (`torch.add`, `Tensor.expand`, ...); repeatable.
    #[arg(long = "op", value_name = "FN")]
    pub ops: Vec<String>,
    /// Only cases with this tag; repeatable.
    #[arg(long = "tag")]
    pub tags: Vec<String>,
    /// Only cases whose id matches: a glob, or `re:REGEX`; repeatable.
    #[arg(long = "id", value_name = "PATTERN")]
    pub ids: Vec<String>,
    /// `reference`, `ndarray`, `candle`, or the command line of a protocol adapter
    /// (see PROTOCOL.md), e.g. "python3 scripts/adapters/numpy_adapter.py".
    #[arg(long)]
    pub backend: Option<String>,
    /// Expected failures: one case id or pattern per line, `#` comments.
    #[arg(long, value_name = "FILE")]
    pub xfail: Option<PathBuf>,
    /// Also fail when an expected failure passes.
    #[arg(long)]
    pub strict_xfail: bool,
    /// Check levels, comma-separated (default: all), intersected with what the backend claims.
    #[arg(long)]
    pub levels: Option<String>,
    /// Write a JUnit XML report.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write a JSON report.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Per-case timeout of a protocol adapter, in milliseconds [default: 5000].
    #[arg(long)]
    pub timeout_ms: Option<u64>,
    /// How long a protocol adapter may take to say hello, in milliseconds [default: 60000].
    #[arg(long)]
    pub handshake_timeout_ms: Option<u64>,
    /// Print only the summary, not each failure.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Runs the suite; exits 1 on unexpected failures (and unexpected passes with
/// `--strict-xfail`), 2 when the run cannot start.
pub fn run(args: RunArgs) -> Result<ExitCode, String> {
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from("fixtures")]
    } else {
        args.paths
    };
    let filter = CaseFilter {
        ops: args.ops,
        tags: args.tags,
        ids: args
            .ids
            .iter()
            .map(|p| IdPattern::parse(p))
            .collect::<Result<_, _>>()?,
    };
    let options = SuiteOptions {
        levels: match &args.levels {
            Some(list) => Level::parse_list(list)?,
            None => Level::ALL.into_iter().collect(),
        },
        xfail: match &args.xfail {
            Some(path) => XfailList::load(path)?,
            None => XfailList::default(),
        },
    };
    let mut cases = load_paths(&paths).map_err(|e| e.to_string())?;
    cases.retain(|c| filter.accepts(&c.case));
    let defaults = AdapterTimeouts::default();
    let timeouts = AdapterTimeouts {
        case: args.timeout_ms.map_or(defaults.case, Duration::from_millis),
        handshake: args
            .handshake_timeout_ms
            .map_or(defaults.handshake, Duration::from_millis),
    };
    let spec = args.backend.as_deref().unwrap_or("reference");
    let mut backend = open_backend(spec, timeouts)?;

    let bar = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(cases.len() as u64);
        if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} {wide_msg}") {
            bar.set_style(style);
        }
        bar
    } else {
        ProgressBar::hidden()
    };
    let result = run_suite(backend.as_mut(), &cases, &options, |loaded, entry| {
        bar.inc(1);
        bar.set_message(entry.report.id.clone());
        if !args.quiet && matches!(entry.status, Status::Fail | Status::Xpass) {
            let text = describe_failure(loaded, &entry.report);
            let head = if entry.status == Status::Xpass {
                "UNEXPECTED PASS of an expected failure: "
            } else {
                "FAIL "
            };
            bar.suspend(|| eprintln!("{head}{text}"));
        }
    });
    bar.finish_and_clear();

    print!("{}", summary_table(&result, &cases));
    println!("{}", summary_line(&result));
    if let Some(path) = &args.junit {
        let xml = junit_xml(&result, &cases, args.strict_xfail)?;
        std::fs::write(path, xml).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&json_report(&result, &cases))
            .map_err(|e| e.to_string())?;
        std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(if result.gate_holds(args.strict_xfail) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
