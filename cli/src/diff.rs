//! `bcast diff` (feature `torch`): random differential testing of the reference engine
//! against libtorch. Cases come from the shared generators; every mismatch is shrunk and
//! written as a regression fixture labelled by torch, ready for `fixtures/regressions/`.
//! Calls libtorch cannot express (they exist only in Python) go to Python torch through the
//! PyTorch adapter when a python with torch is at hand (`FallbackOracle`).
//!
//! `--jobs N` runs N workers, each with its own engine, libtorch backend and PyTorch adapter;
//! they take cases in blocks from one counter. A case's verdict depends only on the seed and
//! its index, so the summary is the same for every `--jobs`; findings are reported and shrunk
//! in index order after the run.

use bcast_conformance::backend::reference::ReferenceBackend;
use bcast_conformance::backend::registry::{default_python, python_adapter, AdapterLimits};
use bcast_conformance::backend::subprocess::SubprocessBackend;
use bcast_conformance::backend::tch::{torch_version, TchBackend};
use bcast_conformance::backend::Backend;
use bcast_conformance::case::fixture_json;
use bcast_engine::DType;
use bcast_fuzzing::diff::{
    diff_case_at, regression_case, regression_file, shared_levels, DiffVerdict, Side,
};
use bcast_fuzzing::fallback::FallbackOracle;
use bcast_fuzzing::generators::{
    draw_dtypes, drawn_dtypes, families, find_family, generate, Family, AGREED_DTYPES, GEN_DTYPES,
};
use bcast_fuzzing::shrink::shrink;
use clap::Args;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Arguments of `bcast diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// How many cases.
    #[arg(long, default_value_t = 1000)]
    pub count: u64,
    /// Draw from this family only (default: every family in turn).
    #[arg(long)]
    pub family: Option<String>,
    /// Where shrunk findings are written, one fixture file each [default:
    /// $CARGO_TARGET_DIR/diff-regressions, else target/diff-regressions].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// The python whose torch answers the calls libtorch cannot express, through the PyTorch
    /// adapter [default: $BCAST_PYTHON, else ~/.cache/bcast-torch/venv/bin/python].
    #[arg(long, value_name = "PYTHON")]
    pub python: Option<PathBuf>,
    /// Compare through libtorch alone: Python-only calls count as unsupported.
    #[arg(long)]
    pub no_python: bool,
    /// Workers, each with its own engine, libtorch and PyTorch adapter [default: the
    /// number of cores].
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
    /// Shrink and write at most this many findings.
    #[arg(long, default_value_t = 20)]
    pub max_findings: usize,
    /// Candidate cases tried while shrinking one finding.
    #[arg(long, default_value_t = 2000)]
    pub shrink_budget: usize,
    /// Draw only these dtypes (comma-separated names; `agreed`: the four of schema 1, bool,
    /// int64, float32 and float64) [default: all twelve].
    #[arg(long, value_delimiter = ',', value_name = "DTYPES")]
    pub dtypes: Vec<String>,
    /// Run the reference engine alone (no libtorch), to measure its speed.
    #[arg(long)]
    pub reference_only: bool,
}

/// The oracle of a run: libtorch, else Python torch through the PyTorch adapter.
type Oracle = FallbackOracle<TchBackend, SubprocessBackend>;

/// How the cases of one family went.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct FamilyTally {
    cases: u64,
    agree: u64,
    mismatch: u64,
    failure: u64,
    unsupported: u64,
    /// Answered by Python torch (the rest of the compared cases by libtorch).
    python: u64,
}

impl FamilyTally {
    fn add(&mut self, other: &FamilyTally) {
        self.cases += other.cases;
        self.agree += other.agree;
        self.mismatch += other.mismatch;
        self.failure += other.failure;
        self.unsupported += other.unsupported;
        self.python += other.python;
    }

    /// Cases both sides ran and compared.
    fn compared(&self) -> u64 {
        self.agree + self.mismatch
    }
}

/// A mismatch or failure, kept for reporting and shrinking after the run.
struct Finding {
    index: u64,
    family: &'static Family,
    verdict: DiffVerdict,
}

/// What one worker (or the whole run) saw.
#[derive(Default)]
struct Tally {
    families: BTreeMap<&'static str, FamilyTally>,
    unsupported: BTreeMap<(Side, String), u64>,
    findings: Vec<Finding>,
    engine_time: Duration,
    oracle_time: Duration,
    /// Why a worker's PyTorch adapter did not start, if it did not.
    python_notes: BTreeSet<String>,
}

impl Tally {
    fn merge(&mut self, other: Tally) {
        for (name, t) in &other.families {
            self.families.entry(name).or_default().add(t);
        }
        for (key, n) in other.unsupported {
            *self.unsupported.entry(key).or_default() += n;
        }
        self.findings.extend(other.findings);
        self.engine_time += other.engine_time;
        self.oracle_time += other.oracle_time;
        self.python_notes.extend(other.python_notes);
    }

    fn total(&self) -> FamilyTally {
        let mut all = FamilyTally::default();
        for t in self.families.values() {
            all.add(t);
        }
        all
    }
}

/// An unsupported reason without the case-specific part, so that reasons group.
fn reason_key(reason: &str) -> String {
    reason
        .strip_prefix("unsupported: ")
        .unwrap_or(reason)
        .to_string()
}

fn rate(n: u64, t: Duration) -> f64 {
    n as f64 / t.as_secs_f64().max(1e-9)
}

/// `part` of `whole` in percent, rounded down, so that only the whole reads 100.00.
fn percent(part: u64, whole: u64) -> f64 {
    (part as u128 * 10_000 / whole.max(1) as u128) as f64 / 100.0
}

/// Cases a worker takes from the counter at a time.
const BLOCK: u64 = 64;

/// Runs `bcast diff`; exits non-zero when any case differs or a backend fails.
pub fn diff(args: DiffArgs) -> Result<ExitCode, String> {
    let chosen: Vec<&'static Family> = match &args.family {
        Some(name) => {
            vec![find_family(name).ok_or_else(|| format!("no family {name:?} (see gen --list)"))?]
        }
        // Every family, the gradient family's backward compared at the level `grads`.
        None => families().iter().collect(),
    };
    let names: Vec<&str> = chosen.iter().map(|f| f.name).collect();
    let mut dtypes = Vec::new();
    for name in &args.dtypes {
        match name.as_str() {
            "agreed" => dtypes.extend(AGREED_DTYPES),
            _ => dtypes.push(DType::from_name(name).ok_or_else(|| format!("no dtype {name:?}"))?),
        }
    }
    draw_dtypes(&dtypes);
    if args.reference_only {
        return reference_only(&args, &chosen);
    }
    let out = args.out.clone().unwrap_or_else(default_out);
    let python = if args.no_python {
        None
    } else {
        let found = args.python.clone().or_else(default_python);
        if found.is_none() {
            eprintln!("note: no python with torch (--python, $BCAST_PYTHON or the venv): Python-only calls count as unsupported");
        }
        found
    };
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, 256);
    let version = torch_version();
    let started = Instant::now();
    let next = AtomicU64::new(0);
    let mut tally = Tally::default();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs)
            .map(|_| scope.spawn(|| work(&args, &chosen, &next, python.as_deref())))
            .collect();
        let mut first_error = None;
        for worker in workers {
            match worker.join() {
                Ok(Ok(part)) => tally.merge(part),
                Ok(Err(e)) => first_error = first_error.or(Some(e)),
                Err(_) => first_error = first_error.or(Some("a diff worker panicked".to_string())),
            }
        }
        first_error.map_or(Ok(()), Err)
    })?;
    let elapsed = started.elapsed();
    tally.findings.sort_by_key(|f| f.index);
    for note in &tally.python_notes {
        eprintln!("note: {note}: Python-only calls count as unsupported");
    }
    let written = shrink_findings(&args, &tally.findings, python.as_deref(), &out, &version)?;
    print_summary(
        &args,
        &names,
        &tally,
        jobs,
        elapsed,
        &version,
        python.is_some(),
    );
    if !written.is_empty() {
        println!(
            "  {} shrunk findings in {} (copy them into fixtures/regressions/ to keep them)",
            written.len(),
            out.display()
        );
    }
    let all = tally.total();
    Ok(if all.mismatch + all.failure == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// libtorch, with the PyTorch adapter under `python` behind it; the second element says why
/// the adapter is missing when it did not start.
fn open_oracle(python: Option<&Path>) -> Result<(Oracle, Option<String>), String> {
    let (second, note) = match python {
        None => (None, None),
        Some(python) => {
            let backend = python_adapter(python, "torch_adapter.py", AdapterLimits::default());
            match backend.start_error() {
                Some(why) => (
                    None,
                    Some(format!("the PyTorch adapter did not start ({why})")),
                ),
                None => (Some(backend), None),
            }
        }
    };
    Ok((FallbackOracle::new(TchBackend::new()?, second), note))
}

/// One worker: takes blocks of case indices from `next` until `args.count`, and tallies them.
fn work(
    args: &DiffArgs,
    chosen: &[&'static Family],
    next: &AtomicU64,
    python: Option<&Path>,
) -> Result<Tally, String> {
    let mut engine = ReferenceBackend;
    let (mut oracle, note) = open_oracle(python)?;
    let levels = shared_levels(&engine, &oracle);
    let mut tally = Tally::default();
    tally.python_notes.extend(note);
    loop {
        let start = next.fetch_add(BLOCK, Ordering::Relaxed);
        if start >= args.count {
            break;
        }
        for index in start..(start + BLOCK).min(args.count) {
            let family = chosen[(index % chosen.len() as u64) as usize];
            let case = generate(family, args.seed, index);
            let before = oracle.tally.second;
            let run = diff_case_at(&mut engine, &mut oracle, &case, &levels);
            tally.engine_time += run.engine_time;
            tally.oracle_time += run.oracle_time;
            let counts = tally.families.entry(family.name).or_default();
            counts.cases += 1;
            counts.python += u64::from(oracle.tally.second > before);
            match &run.verdict {
                DiffVerdict::Agree => counts.agree += 1,
                DiffVerdict::Unsupported { side, reason } => {
                    counts.unsupported += 1;
                    *tally
                        .unsupported
                        .entry((*side, reason_key(reason)))
                        .or_default() += 1
                }
                DiffVerdict::Mismatch(_) | DiffVerdict::Failure { .. } => {
                    if matches!(run.verdict, DiffVerdict::Mismatch(_)) {
                        counts.mismatch += 1;
                    } else {
                        counts.failure += 1;
                    }
                    tally.findings.push(Finding {
                        index,
                        family,
                        verdict: run.verdict,
                    });
                }
            }
        }
    }
    Ok(tally)
}

/// Reports every finding, and shrinks the first `--max-findings` into fixture files in `out`
/// (with backends of its own, opened only when there is a finding).
fn shrink_findings(
    args: &DiffArgs,
    findings: &[Finding],
    python: Option<&Path>,
    out: &Path,
    version: &str,
) -> Result<Vec<PathBuf>, String> {
    let mut written = Vec::new();
    let mut backends = None;
    for (n, finding) in findings.iter().enumerate() {
        let Finding {
            index,
            family,
            verdict,
        } = finding;
        let case = generate(family, args.seed, *index);
        eprintln!("{}: {}", case.id, verdict.summary());
        if n >= args.max_findings {
            continue;
        }
        if backends.is_none() {
            backends = Some(open_oracle(python)?.0);
        }
        let Some(oracle) = backends.as_mut() else {
            continue;
        };
        let mut engine = ReferenceBackend;
        let levels = shared_levels(&engine, oracle);
        let found_by = format!(
            "bcast diff --seed {} --family {} (case {index}), shrunk",
            args.seed, family.name
        );
        let small = shrink(&case, args.shrink_budget, |c| {
            verdict.same_finding(&diff_case_at(&mut engine, oracle, c, &levels).verdict)
        });
        let rerun = diff_case_at(&mut engine, oracle, &small, &levels);
        let Some(expect) = rerun.oracle else {
            continue;
        };
        let id = format!("regressions/diff/{}/s{}/{index}", family.name, args.seed);
        let fixed = regression_case(&small, &id, &rerun.verdict.summary(), &found_by, expect);
        let file = regression_file(
            vec![fixed],
            version,
            &format!(
                "bcast diff --seed {} --count {} --family {}",
                args.seed, args.count, family.name
            ),
        );
        let path = out.join(format!("diff-{}-s{}-{index}.json", family.name, args.seed));
        std::fs::create_dir_all(out).map_err(|e| e.to_string())?;
        std::fs::write(&path, fixture_json(&file)).map_err(|e| e.to_string())?;
        eprintln!("  shrunk: {}", rerun.verdict.summary());
        eprintln!(
            "  written: {} (labelled by torch {version})",
            path.display()
        );
        written.push(path);
    }
    Ok(written)
}

fn print_summary(
    args: &DiffArgs,
    names: &[&str],
    tally: &Tally,
    jobs: usize,
    elapsed: Duration,
    version: &str,
    python: bool,
) {
    let dtypes = drawn_dtypes();
    let dtypes = if dtypes == GEN_DTYPES {
        "every dtype".to_string()
    } else {
        dtypes
            .iter()
            .map(|d| d.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "bcast diff: {} cases of {} over {dtypes} (seed {}) against torch {version} in {:.2}s with {jobs} {}: {:.0} cases/s",
        args.count,
        names.join(", "),
        args.seed,
        elapsed.as_secs_f64(),
        if jobs == 1 { "job" } else { "jobs" },
        rate(args.count, elapsed)
    );
    println!(
        "  time in the engine {:.2}s, in torch (libtorch and Python) {:.2}s, summed over the jobs",
        tally.engine_time.as_secs_f64(),
        tally.oracle_time.as_secs_f64()
    );
    let all = tally.total();
    println!(
        "  torch's side: {} cases through libtorch, {} through Python torch (PyTorch adapter){}",
        all.cases - all.python,
        all.python,
        if python && tally.python_notes.is_empty() {
            ""
        } else {
            "; without the adapter, Python-only calls count as unsupported"
        }
    );
    println!(
        "  {} agree, {} mismatch, {} failed, {} unsupported; {} of {} compared ({:.2}%)",
        all.agree,
        all.mismatch,
        all.failure,
        all.unsupported,
        all.compared(),
        all.cases,
        percent(all.compared(), all.cases)
    );
    println!("  family              cases   compared  via Python  unsupported  mismatch  failed");
    for (name, t) in names
        .iter()
        .filter_map(|name| Some((name, tally.families.get(name)?)))
    {
        println!(
            "  {name:<17} {:>8} {:>9.2}% {:>11} {:>12} {:>9} {:>7}",
            t.cases,
            percent(t.compared(), t.cases),
            t.python,
            t.unsupported,
            t.mismatch,
            t.failure
        );
    }
    for ((side, reason), n) in &tally.unsupported {
        let who = match side {
            Side::Engine => "engine",
            Side::Oracle => "torch",
        };
        println!("    {n:>6} unsupported by {who}: {reason}");
    }
}

/// `$CARGO_TARGET_DIR/diff-regressions`, else `target/diff-regressions`.
fn default_out() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target"))
        .join("diff-regressions")
}
/// The same cases through the reference engine alone: the speed `bcast diff` compares with.
fn reference_only(args: &DiffArgs, chosen: &[&'static Family]) -> Result<ExitCode, String> {
    let mut engine = ReferenceBackend;
    let started = Instant::now();
    let mut ran = 0u64;
    for index in 0..args.count {
        let family = chosen[(index % chosen.len() as u64) as usize];
        let case = generate(family, args.seed, index);
        ran += u64::from(engine.run(&case).is_ok());
    }
    let elapsed = started.elapsed();
    println!(
        "bcast diff --reference-only: {} cases (seed {}) in {:.2}s: {:.0} cases/s ({ran} ran)",
        args.count,
        args.seed,
        elapsed.as_secs_f64(),
        rate(args.count, elapsed)
    );
    Ok(ExitCode::SUCCESS)
}
