//! `bcast diff` (feature `torch`): random differential testing of the reference engine
//! against libtorch. Cases come from the shared generators; every mismatch is shrunk and
//! written as a regression fixture labelled by torch, ready for `fixtures/regressions/`.
//! Calls libtorch cannot express (they exist only in Python) go to Python torch through the
//! PyTorch adapter when a python with torch is at hand (`FallbackOracle`).

use bcast_conformance::backend::reference::ReferenceBackend;
use bcast_conformance::backend::registry::{default_python, python_adapter, AdapterLimits};
use bcast_conformance::backend::subprocess::SubprocessBackend;
use bcast_conformance::backend::tch::{torch_version, TchBackend};
use bcast_conformance::backend::Backend;
use bcast_conformance::case::fixture_json;
use bcast_fuzzing::diff::{
    diff_case_at, regression_case, regression_file, shared_levels, DiffVerdict, Side,
};
use bcast_fuzzing::fallback::FallbackOracle;
use bcast_fuzzing::gen::{families, find_family, generate, Family};
use bcast_fuzzing::shrink::shrink;
use clap::Args;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
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
    /// Shrink and write at most this many findings.
    #[arg(long, default_value_t = 20)]
    pub max_findings: usize,
    /// Candidate cases tried while shrinking one finding.
    #[arg(long, default_value_t = 2000)]
    pub shrink_budget: usize,
    /// Run the reference engine alone (no libtorch), to measure its speed.
    #[arg(long)]
    pub reference_only: bool,
}

#[derive(Default)]
struct Tally {
    agree: u64,
    mismatch: u64,
    failure: u64,
    unsupported: BTreeMap<(Side, String), u64>,
    engine_time: Duration,
    oracle_time: Duration,
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

/// Runs `bcast diff`; exits non-zero when any case differs or a backend fails.
pub fn diff(args: DiffArgs) -> Result<ExitCode, String> {
    let chosen: Vec<&'static Family> = match &args.family {
        Some(name) => {
            vec![find_family(name).ok_or_else(|| format!("no family {name:?} (see gen --list)"))?]
        }
        None => families().iter().collect(),
    };
    let names: Vec<&str> = chosen.iter().map(|f| f.name).collect();
    if args.reference_only {
        return reference_only(&args, &chosen);
    }
    let out = args.out.clone().unwrap_or_else(default_out);
    let mut engine = ReferenceBackend;
    let python = if args.no_python {
        None
    } else {
        python_torch(args.python.clone())
    };
    let mut oracle = FallbackOracle::new(TchBackend::new()?, python);
    let version = torch_version();
    let levels = shared_levels(&engine, &oracle);
    let mut tally = Tally::default();
    let mut written = Vec::new();
    let started = Instant::now();
    for index in 0..args.count {
        let family = chosen[(index % chosen.len() as u64) as usize];
        let case = generate(family, args.seed, index);
        let run = diff_case_at(&mut engine, &mut oracle, &case, &levels);
        tally.engine_time += run.engine_time;
        tally.oracle_time += run.oracle_time;
        match &run.verdict {
            DiffVerdict::Agree => tally.agree += 1,
            DiffVerdict::Unsupported { side, reason } => {
                *tally
                    .unsupported
                    .entry((*side, reason_key(reason)))
                    .or_default() += 1
            }
            DiffVerdict::Mismatch(_) | DiffVerdict::Failure { .. } => {
                if matches!(run.verdict, DiffVerdict::Mismatch(_)) {
                    tally.mismatch += 1;
                } else {
                    tally.failure += 1;
                }
                eprintln!("{}: {}", case.id, run.verdict.summary());
                if written.len() < args.max_findings {
                    let found_by = format!(
                        "bcast diff --seed {} --family {} (case {index}), shrunk",
                        args.seed, family.name
                    );
                    let original = run.verdict.clone();
                    let small = shrink(&case, args.shrink_budget, |c| {
                        original.same_finding(
                            &diff_case_at(&mut engine, &mut oracle, c, &levels).verdict,
                        )
                    });
                    let rerun = diff_case_at(&mut engine, &mut oracle, &small, &levels);
                    if let Some(expect) = rerun.oracle {
                        let id = format!("regressions/diff/{}/s{}/{index}", family.name, args.seed);
                        let fixed = regression_case(
                            &small,
                            &id,
                            &rerun.verdict.summary(),
                            &found_by,
                            expect,
                        );
                        let file = regression_file(
                            vec![fixed],
                            &version,
                            &format!(
                                "bcast diff --seed {} --count {} --family {}",
                                args.seed, args.count, family.name
                            ),
                        );
                        let path =
                            out.join(format!("diff-{}-s{}-{index}.json", family.name, args.seed));
                        std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
                        std::fs::write(&path, fixture_json(&file)).map_err(|e| e.to_string())?;
                        eprintln!("  shrunk: {}", rerun.verdict.summary());
                        eprintln!(
                            "  written: {} (labelled by torch {version})",
                            path.display()
                        );
                        written.push(path);
                    }
                }
            }
        }
    }
    let elapsed = started.elapsed();
    println!(
        "bcast diff: {} cases of {} (seed {}) against torch {version} in {:.2}s: {:.0} cases/s",
        args.count,
        names.join(", "),
        args.seed,
        elapsed.as_secs_f64(),
        rate(args.count, elapsed)
    );
    println!(
        "  time in the engine {:.2}s, in torch (libtorch and Python) {:.2}s",
        tally.engine_time.as_secs_f64(),
        tally.oracle_time.as_secs_f64()
    );
    let answered = oracle.tally;
    println!(
        "  torch's side: {} cases through libtorch, {} through Python torch (PyTorch adapter){}",
        answered.first,
        answered.second,
        if oracle.has_second() {
            ""
        } else {
            "; no python with torch: Python-only calls count as unsupported"
        }
    );
    let unsupported: u64 = tally.unsupported.values().sum();
    println!(
        "  {} agree, {} mismatch, {} failed, {unsupported} unsupported",
        tally.agree, tally.mismatch, tally.failure
    );
    for ((side, reason), n) in &tally.unsupported {
        let who = match side {
            Side::Engine => "engine",
            Side::Oracle => "torch",
        };
        println!("    {n:>6} unsupported by {who}: {reason}");
    }
    if !written.is_empty() {
        println!(
            "  {} shrunk findings in {} (copy them into fixtures/regressions/ to keep them)",
            written.len(),
            out.display()
        );
    }
    Ok(if tally.mismatch + tally.failure == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `$CARGO_TARGET_DIR/diff-regressions`, else `target/diff-regressions`.
fn default_out() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target"))
        .join("diff-regressions")
}

/// The PyTorch adapter under `python`, started; `None` (with a note) when there is no such
/// python or the adapter does not start.
fn python_torch(python: Option<PathBuf>) -> Option<SubprocessBackend> {
    let Some(python) = python.or_else(default_python) else {
        eprintln!("note: no python with torch (--python, $BCAST_PYTHON or the venv): Python-only calls count as unsupported");
        return None;
    };
    let backend = python_adapter(&python, "torch_adapter.py", AdapterLimits::default());
    match backend.start_error() {
        Some(why) => {
            eprintln!("note: the PyTorch adapter did not start ({why}): Python-only calls count as unsupported");
            None
        }
        None => Some(backend),
    }
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
