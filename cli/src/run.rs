//! `bcast run`: the conformance suite against a backend, with a summary table, optional JUnit,
//! JSON and HTML reports, and an exit code that is non-zero exactly on unexpected failures.

use crate::paths::{check_outputs, Named};
use bcast_conformance::backend::registry::{open_backend, AdapterLimits};
use bcast_conformance::backend::{Capabilities, Level};
use bcast_conformance::case::LoadedCase;
use bcast_conformance::report::html::run_page;
use bcast_conformance::report::json::json_report;
use bcast_conformance::report::junit::junit_xml;
use bcast_conformance::report::summary::{level_line, summary_line, summary_table};
use bcast_conformance::runner::jobs::{checked_jobs, instances, run_suite_jobs};
use bcast_conformance::runner::select::{CaseFilter, IdPattern};
use bcast_conformance::runner::shard::{Selection, Shard};
use bcast_conformance::runner::suite::{Status, SuiteOptions, SuiteResult};
use bcast_conformance::runner::xfail::XfailList;
use bcast_conformance::runner::{checked_levels, describe_failure, Verdict};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::{BTreeMap, BTreeSet};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// Arguments of `bcast run`.
#[derive(Debug, Args, Default)]
pub struct RunArgs {
    /// Fixture files or directories (default: the corpus embedded in the binary, which is
    /// the repository's fixtures/ as it was built; `bcast corpus export DIR` writes it out).
    pub paths: Vec<PathBuf>,
    /// Only cases of this op (`torch.add`, `Tensor.expand`, ...); repeatable.
    #[arg(long = "op", value_name = "FN")]
    pub ops: Vec<String>,
    /// Only cases with this tag; repeatable.
    #[arg(long = "tag")]
    pub tags: Vec<String>,
    /// Leave out cases of this op; repeatable.
    #[arg(long = "exclude-op", value_name = "FN")]
    pub exclude_ops: Vec<String>,
    /// Leave out cases with this tag; repeatable.
    #[arg(long = "exclude-tag", value_name = "TAG")]
    pub exclude_tags: Vec<String>,
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
    /// Write the xfail file that makes this run's failures expected (a baseline): the
    /// entries of --xfail that still hold or that this run did not judge, and every unexpected
    /// failure as `ID  reason=R  # first difference`. Read it back with --xfail.
    #[arg(long, value_name = "FILE")]
    pub write_xfail: Option<PathBuf>,
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
    /// Write an HTML report: one self-contained page with the summary, an op x level heat
    /// map and every failure with its torch repro, behind filters (REPORT.md).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Per-case timeout of a protocol adapter, in milliseconds [default: 5000].
    #[arg(long)]
    pub timeout_ms: Option<u64>,
    /// How long a protocol adapter may take to say hello, in milliseconds [default: 60000].
    #[arg(long)]
    pub handshake_timeout_ms: Option<u64>,
    /// How each failure is printed: `full` (its source, every difference and a torch repro
    /// snippet) or `short` (one line: `FAIL id: level: place: expected X, got Y`).
    #[arg(long, value_enum, default_value_t = FailureFormat::Full)]
    pub format: FailureFormat,
    /// Print only the summary, not each failure.
    #[arg(long, short)]
    pub quiet: bool,
    /// Exit 0 even when no case ran (by default a run that checked nothing fails).
    #[arg(long)]
    pub allow_empty: bool,
    /// The longest answer line a protocol adapter may write, in MiB [default: 256].
    #[arg(long, value_name = "MIB")]
    pub max_line_mb: Option<u64>,
    /// Stop the run after this many backend timeouts in a row; 0 never stops [default: 5].
    #[arg(long, value_name = "N")]
    pub max_timeouts: Option<usize>,
    /// Stop the run after this many seconds (the case in flight finishes first).
    #[arg(long, value_name = "SECONDS")]
    pub deadline: Option<f64>,
    /// Run through N instances of the backend at once (N adapter processes, or N threads of
    /// an in-process backend); verdicts and report order are those of one [default: 1].
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
    /// Run only part K of N (1 <= K <= N) of the selected cases, chosen by a stable hash of
    /// each case's id, so N machines together run every case once.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
}

/// How `bcast run` prints each unexpected failure.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum FailureFormat {
    /// The case, its source, every difference and a Python snippet that reproduces it.
    #[default]
    Full,
    /// One line per failure: the case id and its first difference or backend failure.
    Short,
}

/// Runs the suite; exits 1 on unexpected failures (and unexpected passes or stale xfail
/// patterns with `--strict-xfail`), on a run that stopped early and on one in which the
/// backend ran no case; 2 when the run cannot start (no case selected included).
pub fn run(args: RunArgs) -> Result<ExitCode, String> {
    let outputs = outputs(&args);
    check_outputs_are_not_inputs(&args, &args.paths, &outputs)?;
    for (_, report) in &outputs {
        check_writable(report)?;
    }
    let deadline = match args.deadline {
        Some(s) if s.is_finite() && s > 0.0 => {
            Some(Duration::try_from_secs_f64(s).map_err(|_| {
                format!("--deadline {s}: more seconds than this runner can count; give fewer")
            })?)
        }
        Some(s) => return Err(format!("--deadline {s}: give a positive number of seconds")),
        None => None,
    };
    let jobs = checked_jobs(args.jobs)?;
    let shard = args.shard.as_deref().map(Shard::parse).transpose()?;
    let filter = CaseFilter {
        ops: args.ops,
        tags: args.tags,
        exclude_ops: args.exclude_ops,
        exclude_tags: args.exclude_tags,
        ids: args
            .ids
            .iter()
            .map(|p| IdPattern::parse(p).map_err(|e| format!("--id: {e}")))
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
        max_consecutive_timeouts: match args.max_timeouts {
            Some(0) => None,
            Some(n) => Some(n),
            None => Some(SuiteOptions::DEFAULT_MAX_TIMEOUTS),
        },
        deadline,
    };
    let (mut cases, source) = crate::corpus::load(&args.paths)?;
    let loaded = cases.len();
    // Stale: an entry that lists no case of the fixtures read. One whose cases are left out by
    // the filters or --shard is not judged by this run, as --write-xfail keeps it.
    let stale = options
        .xfail
        .unmatched(cases.iter().map(|c| c.case.id.as_str()));
    cases.retain(|c| filter.accepts(&c.case));
    let selection = Selection::of(cases.iter().map(|c| c.case.id.as_str()));
    if let Some(shard) = shard {
        let selected = cases.len();
        cases.retain(|c| shard.contains(&c.case.id));
        eprintln!(
            "shard {shard}: {} of the {selected} selected cases",
            cases.len()
        );
    }
    if cases.is_empty() {
        let why = if loaded == 0 {
            format!("no fixture case in {source}")
        } else {
            format!(
                "none of the {loaded} cases in {source} matches the filters (--op, --tag, --id)"
            )
        };
        if !args.allow_empty {
            return Err(format!(
                "no case to run: {why} (--allow-empty accepts that)"
            ));
        }
        eprintln!("no case to run: {why}");
    }
    let defaults = AdapterLimits::default();
    let timeouts = AdapterLimits {
        case: args.timeout_ms.map_or(defaults.case, Duration::from_millis),
        handshake: args
            .handshake_timeout_ms
            .map_or(defaults.handshake, Duration::from_millis),
        max_line_bytes: match args.max_line_mb {
            Some(0) => return Err("--max-line-mb 0: a line needs at least 1 MiB".to_string()),
            Some(mb) => mb.saturating_mul(1 << 20),
            None => defaults.max_line_bytes,
        },
    };
    if instances(jobs, cases.len()) < jobs {
        eprintln!(
            "note: --jobs {jobs} capped at {}, the number of selected cases",
            instances(jobs, cases.len())
        );
    }
    let spec = args.backend.as_deref().unwrap_or("reference");
    let backend = open_backend(spec, timeouts)?;
    for note in claim_notes(&backend.capabilities(), &options.levels, &cases) {
        eprintln!("note: {note}");
    }

    let bar = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(cases.len() as u64);
        if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} {wide_msg}") {
            bar.set_style(style);
        }
        bar
    } else {
        ProgressBar::hidden()
    };
    let open = || open_backend(spec, timeouts);
    let result = run_suite_jobs(backend, &open, jobs, &cases, &options, |loaded, entry| {
        bar.inc(1);
        bar.set_message(entry.report.id.clone());
        if !args.quiet && matches!(entry.status, Status::Fail | Status::Xpass) {
            let text = match args.format {
                FailureFormat::Short => entry.short_line(),
                FailureFormat::Full => {
                    let head = match (entry.status, entry.pinned_note()) {
                        (Status::Xpass, _) => {
                            "UNEXPECTED PASS of an expected failure: ".to_string()
                        }
                        (_, Some(note)) => format!("FAIL ({note}) "),
                        (_, None) => "FAIL ".to_string(),
                    };
                    format!("{head}{}", describe_failure(loaded, &entry.report))
                }
            };
            bar.suspend(|| eprintln!("{text}"));
        }
    });
    bar.finish_and_clear();
    let result = result?;

    print!("{}", summary_table(&result, &cases));
    println!("{}", level_line(&result, &cases));
    println!("{}", summary_line(&result));
    let mut holds = result.gate_holds(args.strict_xfail, args.allow_empty);
    if let Some(why) = &result.stopped {
        eprintln!(
            "the run stopped after {} of {} cases: {why}",
            result.entries.len(),
            result.selected
        );
    }
    if result.executed() == 0 && !cases.is_empty() && result.stopped.is_none() {
        let verb = if args.allow_empty { "note" } else { "FAIL" };
        eprintln!(
            "{verb}: the backend ran none of the {} selected cases ({})",
            cases.len(),
            skip_reasons(&result)
        );
    }
    let verb = if args.strict_xfail { "FAIL" } else { "note" };
    print_capped(
        stale.iter().map(|entry| {
            format!(
                "{verb}: the xfail pattern {:?} matches no case of this run (line {})",
                entry.pattern.to_string(),
                entry.line
            )
        }),
        |more| format!("{verb}: and {more} more xfail patterns that match no case"),
    );
    if args.strict_xfail && !stale.is_empty() {
        holds = false;
    }
    let review = options.xfail.review(&result);
    print_capped(
        review.passing.iter().map(|(entry, n)| {
            format!(
                "{verb}: the xfail entry {} (line {}) is stale: its {n} case(s) pass now",
                entry.pattern, entry.line
            )
        }),
        |more| format!("{verb}: and {more} more stale xfail entries whose cases pass now"),
    );
    if let Some(path) = &args.write_xfail {
        let header = [
            format!(
                "Expected failures of {}, written by `bcast run --write-xfail`.",
                result.backend
            ),
            "One case id or pattern a line; `reason=R` pins why it fails (README, \"Baselines\")."
                .to_string(),
        ];
        let text = options.xfail.baseline(&result, &cases, &header);
        std::fs::write(path, &text).map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!(
            "wrote {} xfail entries to {} ({} kept, {} new)",
            text.lines().filter(|l| !l.starts_with('#')).count(),
            path.display(),
            review.holding.len() + review.unjudged.len(),
            result.count(Status::Fail)
        );
    }
    if let Some(path) = &args.junit {
        let xml = junit_xml(&result, &cases, args.strict_xfail)?;
        std::fs::write(path, xml).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if let Some(path) = &args.json {
        let mut report = json_report(&result, &cases);
        if let Some(shard) = shard {
            report = report.in_shard(shard, selection);
        }
        let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if let Some(path) = &args.html {
        let page = run_page(&result, &cases)?;
        std::fs::write(path, page).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(if holds {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The files the run writes, each with its option.
fn outputs(args: &RunArgs) -> Vec<Named<'_>> {
    [
        ("--junit", &args.junit),
        ("--json", &args.json),
        ("--html", &args.html),
        ("--write-xfail", &args.write_xfail),
    ]
    .into_iter()
    .filter_map(|(option, path)| Some((option, path.as_deref()?)))
    .collect()
}

/// Refuses, before the run, an output that is a file the run reads (a fixture file, the
/// --xfail file: only --write-xfail may rewrite that one) or two outputs that are one file.
fn check_outputs_are_not_inputs(
    args: &RunArgs,
    paths: &[PathBuf],
    outputs: &[Named<'_>],
) -> Result<(), String> {
    // A path that does not load is reported by the loader, with its reason.
    let fixtures = bcast_case::fixture_files(paths).unwrap_or_default();
    let mut inputs: Vec<Named<'_>> = fixtures
        .iter()
        .map(|f| ("a fixture file the run reads", f.as_path()))
        .collect();
    inputs.extend(args.xfail.as_deref().map(|x| ("the --xfail file", x)));
    check_outputs(outputs, &inputs, &[("--write-xfail", "the --xfail file")])
}

/// At most this many notes of one kind are printed; the rest are counted.
const MAX_NOTES: usize = 20;

/// Prints the first [`MAX_NOTES`] lines on stderr, then `more(n)` for the `n` left.
fn print_capped(lines: impl Iterator<Item = String>, more: impl Fn(usize) -> String) {
    let mut left = 0usize;
    for (i, line) in lines.enumerate() {
        if i < MAX_NOTES {
            eprintln!("{line}");
        } else {
            left += 1;
        }
    }
    if left > 0 {
        eprintln!("{}", more(left));
    }
}

/// Fails before the run, not after it, when a report cannot be written there.
pub(crate) fn check_writable(path: &Path) -> Result<(), String> {
    if path.is_dir() {
        return Err(format!(
            "{}: is a directory, not a report file",
            path.display()
        ));
    }
    let existed = path.exists();
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map_err(|e| format!("{}: cannot write the report there: {e}", path.display()))?;
    if !existed {
        // Leave nothing behind should the run not get as far as writing it.
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// What the backend's claim means for this run, where it narrows it more than its author may
/// think: only the outcome checked, or claimed ops that no selected case uses.
fn claim_notes(caps: &Capabilities, wanted: &BTreeSet<Level>, cases: &[LoadedCase]) -> Vec<String> {
    let mut notes = Vec::new();
    let checked = checked_levels(&caps.levels, wanted);
    if checked.len() == 1 {
        let names = |set: &BTreeSet<Level>| -> String {
            let v: Vec<&str> = set.iter().map(|l| l.name()).collect();
            if v.is_empty() {
                "none".to_string()
            } else {
                v.join(",")
            }
        };
        notes.push(format!(
            "only the outcome is checked (ok or error, result kind, shapes): the backend claims \
             levels {} and the run wants {}",
            names(&caps.levels),
            names(wanted)
        ));
    }
    if let Some(ops) = &caps.ops {
        let used: BTreeSet<&str> = cases.iter().map(|c| c.case.call.fn_.as_str()).collect();
        let unused: Vec<&str> = ops
            .iter()
            .map(String::as_str)
            .filter(|op| !used.contains(op))
            .collect();
        if !unused.is_empty() {
            notes.push(unused_ops_note(&unused));
        }
    }
    notes
}

/// The note on claimed ops that no selected case calls: the first [`UNUSED_OPS_SHOWN`] by
/// name, then how many more (a run over part of the corpus leaves most ops out).
fn unused_ops_note(unused: &[&str]) -> String {
    let shown = unused[..unused.len().min(UNUSED_OPS_SHOWN)].join(", ");
    let more = unused.len().saturating_sub(UNUSED_OPS_SHOWN);
    let rest = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!(
        "the backend claims {} op(s) that no selected case calls: {shown}{rest}",
        unused.len()
    )
}

/// How many unused claimed ops [`unused_ops_note`] names.
const UNUSED_OPS_SHOWN: usize = 8;

/// The skip reasons of a run, most frequent first: `op torch.add not claimed: 12, ...`.
fn skip_reasons(result: &SuiteResult) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for e in &result.entries {
        if let Verdict::Skip(why) = &e.report.verdict {
            *counts.entry(why.as_str()).or_default() += 1;
        }
    }
    let mut counts: Vec<(&str, usize)> = counts.into_iter().collect();
    counts.sort_by_key(|&(_, n)| std::cmp::Reverse(n));
    let shown: Vec<String> = counts
        .iter()
        .take(5)
        .map(|(why, n)| format!("{why}: {n}"))
        .collect();
    let more = counts.len().saturating_sub(5);
    if more > 0 {
        format!("{}, and {more} other reasons", shown.join(", "))
    } else {
        shown.join(", ")
    }
}
