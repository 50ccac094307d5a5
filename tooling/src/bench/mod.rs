//! `bcast-dev bench`: the engine against its peers (libtorch through tch with the `torch`
//! feature, ndarray with the `ndarray` feature) on broadcasting patterns, in one run, with
//! repetitions interleaved across implementations so drift and noise from other processes
//! fall on all of them alike. A plain copy of the same bytes gives the bandwidth ceiling.

pub mod broad;
pub mod ceiling;
pub mod engine;
#[cfg(feature = "ndarray")]
pub mod ndarray;
pub mod pattern;
pub mod report;
#[cfg(feature = "torch")]
pub mod torch;

use pattern::{BenchDType, Pattern, Variant};
use std::time::{Duration, Instant};

/// One prepared call of an implementation: its inputs (and output, for `out=`) are built.
pub trait Call {
    /// One timed call.
    fn run(&mut self);
    /// Untimed work between calls: dropping the previous result.
    fn reset(&mut self) {}
    /// The last result, row-major, as the bits of each element (widened to `u32`), so that
    /// results compare bit for bit whatever the dtype.
    fn output(&self) -> Vec<u32>;
}

/// An implementation being measured.
pub trait Peer {
    /// Its name in the table.
    fn name(&self) -> &'static str;
    /// Asks for `n` threads; returns how many it uses.
    fn set_threads(&mut self, n: usize) -> usize;
    /// A call of `pattern` written as `variant` in `dtype`, from the data of `a` and `b` (values
    /// `dtype` holds exactly, see [`Pattern::inputs`]); `None` when the implementation cannot
    /// express it.
    fn prepare(
        &self,
        pattern: &Pattern,
        variant: Variant,
        dtype: BenchDType,
        a: &[f32],
        b: &[f32],
    ) -> Option<Box<dyn Call>>;

    /// A call of a broad-suite workload from the data of its operands (see
    /// [`broad::inputs`]); `None` when the implementation cannot express it.
    fn prepare_workload(
        &self,
        _workload: &broad::workload::Workload,
        _data: &[Vec<f64>],
    ) -> Option<Box<dyn broad::WorkCall>> {
        None
    }
}

/// Every implementation compiled in, the engine first; libtorch with its huge-page
/// allocation switched on when `torch_huge_pages`.
pub fn peers(torch_huge_pages: bool) -> Vec<Box<dyn Peer>> {
    #[allow(unused_mut)]
    let mut peers: Vec<Box<dyn Peer>> = vec![Box::new(engine::EnginePeer)];
    #[cfg(feature = "torch")]
    peers.push(Box::new(torch::TorchPeer::new(torch_huge_pages)));
    #[cfg(not(feature = "torch"))]
    let _ = torch_huge_pages;
    #[cfg(feature = "ndarray")]
    peers.push(Box::new(ndarray::NdarrayPeer));
    peers
}

/// What to measure.
#[derive(Debug, Clone)]
pub struct BenchConfig {
    /// Thread counts, one table each.
    pub threads: Vec<usize>,
    /// Timed calls per implementation and pattern.
    pub reps: usize,
    /// Untimed calls per implementation before timing.
    pub warmup: usize,
    pub patterns: Vec<Pattern>,
    pub variants: Vec<Variant>,
    /// Element types, one table each per thread count.
    pub dtypes: Vec<BenchDType>,
    /// The implementations to run, by name (all when empty; the engine always runs first).
    pub peers: Vec<String>,
    /// Switch on libtorch's huge-page allocation (`THP_MEM_ALLOC_ENABLE=1`).
    pub torch_huge_pages: bool,
    /// How the implementations' timed calls follow each other.
    pub schedule: Schedule,
}

/// How the implementations' timed calls follow each other within a row.
///
/// ```
/// # use bcast_tooling::bench::Schedule;
/// assert_eq!(Schedule::from_name("apart"), Some(Schedule::Apart));
/// assert_eq!(Schedule::Rounds.name(), "rounds");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schedule {
    /// One timed call of each implementation per round, the order reversed every round: each
    /// call finds the others' data in the caches, and their idle threads may still be
    /// spinning (OpenMP's, which run libtorch's loops, spin for milliseconds after a loop).
    Rounds,
    /// The same rounds, but before each timed call the implementation makes untimed calls for
    /// [`SETTLE`]: by then the other implementations' idle threads have gone to sleep, its
    /// own threads are awake and its data is in the caches, so each timed call has the
    /// machine to itself, as in a program that calls one library in a loop.
    Apart,
}

/// How long [`Schedule::Apart`] keeps an implementation calling before its timed call.
pub const SETTLE: Duration = Duration::from_millis(30);

impl Schedule {
    /// Every schedule, by name.
    pub const ALL: [Schedule; 2] = [Schedule::Rounds, Schedule::Apart];

    /// Its name on the command line and in the tables.
    pub fn name(self) -> &'static str {
        match self {
            Schedule::Rounds => "rounds",
            Schedule::Apart => "apart",
        }
    }

    /// The schedule called `name`.
    pub fn from_name(name: &str) -> Option<Schedule> {
        Schedule::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// Times `config.reps` rounds of `n` implementations in `config.schedule`'s order; `call(k)`
/// makes one call of implementation `k` and returns its seconds, or `None` when `k` has no
/// call. Returns each implementation's times.
fn time_rounds(
    config: &BenchConfig,
    n: usize,
    mut call: impl FnMut(usize) -> Option<f64>,
) -> Vec<Vec<f64>> {
    let mut times = vec![Vec::new(); n];
    for round in 0..config.reps {
        for k in round_order(n, round) {
            if config.schedule == Schedule::Apart {
                let start = Instant::now();
                while start.elapsed() < SETTLE {
                    if call(k).is_none() {
                        break;
                    }
                }
            }
            if let Some(seconds) = call(k) {
                times[k].push(seconds);
            }
        }
    }
    times
}

/// The median time of each implementation on one pattern and variant (`None` where it could
/// not run it).
#[derive(Debug, Clone)]
pub struct Row {
    pub pattern: Pattern,
    pub variant: Variant,
    pub dtype: BenchDType,
    pub seconds: Vec<Option<f64>>,
}

/// One table: every row at one thread count, in one dtype.
#[derive(Debug, Clone)]
pub struct Table {
    /// The thread count asked for.
    pub threads: usize,
    pub dtype: BenchDType,
    /// Each implementation's name and the threads it used.
    pub peers: Vec<(&'static str, usize)>,
    /// Median seconds of the copy ceiling into new memory and into existing memory.
    pub copy_alloc: f64,
    pub copy_out: f64,
    /// Bytes the copy reads and writes.
    pub copy_bytes: usize,
    /// How the calls were ordered.
    pub schedule: Schedule,
    pub rows: Vec<Row>,
}

/// The median of `times` (the mean of the middle two for an even count).
///
/// ```
/// # use bcast_tooling::bench::median;
/// assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
/// assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
/// ```
pub fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    let n = times.len();
    if n == 0 {
        return f64::NAN;
    }
    if !n.is_multiple_of(2) {
        times[n / 2]
    } else {
        (times[n / 2 - 1] + times[n / 2]) / 2.0
    }
}

fn timed(f: impl FnOnce()) -> f64 {
    let start = Instant::now();
    f();
    start.elapsed().as_secs_f64()
}

/// The implementations in the order of round `round`: forward, then backward, so no one
/// always runs right after another.
fn round_order(n: usize, round: usize) -> Vec<usize> {
    if round.is_multiple_of(2) {
        (0..n).collect()
    } else {
        (0..n).rev().collect()
    }
}

/// Measures the copy ceiling: a 64 MiB float32 copy, into new memory and into existing memory.
fn measure_copy(config: &BenchConfig, threads: usize) -> (f64, f64, usize) {
    let src: Vec<f32> = (0..1usize << 24).map(|i| i as f32).collect();
    let mut dst = vec![0.0f32; src.len()];
    let mut kept: Option<Vec<f32>> = None;
    for _ in 0..config.warmup {
        kept = Some(ceiling::copy_alloc(&src, threads));
        ceiling::copy_split(&mut dst, &src, threads);
    }
    let (mut alloc, mut out) = (Vec::new(), Vec::new());
    for _ in 0..config.reps {
        kept = None;
        alloc.push(timed(|| kept = Some(ceiling::copy_alloc(&src, threads))));
        out.push(timed(|| ceiling::copy_split(&mut dst, &src, threads)));
    }
    drop(kept);
    (median(alloc), median(out), 2 * 4 * src.len())
}

/// Runs one pattern and variant on every peer: prepares each, checks that they all compute
/// the same values, warms up, then times rounds in `config.schedule`'s order.
///
/// # Errors
/// When an implementation's result differs from the first one's.
fn measure_row(
    config: &BenchConfig,
    peers: &[Box<dyn Peer>],
    pattern: &Pattern,
    variant: Variant,
    dtype: BenchDType,
) -> Result<Row, String> {
    let (a, b) = pattern.inputs(dtype);
    let mut calls: Vec<Option<Box<dyn Call>>> = peers
        .iter()
        .map(|p| p.prepare(pattern, variant, dtype, &a, &b))
        .collect();
    drop((a, b));
    let mut expected: Option<(usize, Vec<u32>)> = None;
    for (k, call) in calls.iter_mut().enumerate() {
        let Some(call) = call else { continue };
        call.run();
        let got = call.output();
        match &expected {
            None => expected = Some((k, got)),
            Some((first, want)) => {
                if *want != got {
                    return Err(format!(
                        "{} {} {}: {} and {} disagree",
                        pattern.label,
                        variant.name(),
                        dtype.name(),
                        peers[*first].name(),
                        peers[k].name()
                    ));
                }
            }
        }
    }
    drop(expected);
    for _ in 0..config.warmup {
        for call in calls.iter_mut().flatten() {
            call.reset();
            call.run();
        }
    }
    let times = time_rounds(config, peers.len(), |k| {
        let call = calls[k].as_mut()?;
        call.reset();
        Some(timed(|| call.run()))
    });
    Ok(Row {
        pattern: *pattern,
        variant,
        dtype,
        seconds: calls
            .iter()
            .zip(times)
            .map(|(c, t)| c.as_ref().map(|_| median(t)))
            .collect(),
    })
}

/// The peers `config` names (all when it names none), the engine first.
fn selected_peers(config: &BenchConfig) -> Vec<Box<dyn Peer>> {
    peers(config.torch_huge_pages)
        .into_iter()
        .filter(|p| {
            p.name() == "engine"
                || config.peers.is_empty()
                || config.peers.iter().any(|n| n == p.name())
        })
        .collect()
}

/// Runs the benchmark: one table per thread count and dtype. `progress` hears each row as it starts.
///
/// # Errors
/// When implementations disagree on a result.
pub fn run_bench(
    config: &BenchConfig,
    mut progress: impl FnMut(&str),
) -> Result<Vec<Table>, String> {
    let mut peers = selected_peers(config);
    let mut tables = Vec::new();
    for &threads in &config.threads {
        let used: Vec<(&'static str, usize)> = peers
            .iter_mut()
            .map(|p| (p.name(), p.set_threads(threads)))
            .collect();
        progress(&format!("{threads} thread(s): copy ceiling"));
        let (copy_alloc, copy_out, copy_bytes) = measure_copy(config, threads);
        for &dtype in &config.dtypes {
            let mut rows = Vec::new();
            for pattern in &config.patterns {
                for &variant in pattern.variants() {
                    if !config.variants.contains(&variant) && variant != Variant::InPlace {
                        continue;
                    }
                    progress(&format!(
                        "{threads} thread(s): {} {} {}",
                        dtype.name(),
                        pattern.label,
                        variant.name()
                    ));
                    rows.push(measure_row(config, &peers, pattern, variant, dtype)?);
                }
            }
            tables.push(Table {
                threads,
                schedule: config.schedule,
                dtype,
                peers: used.clone(),
                copy_alloc,
                copy_out,
                copy_bytes,
                rows,
            });
        }
    }
    Ok(tables)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(schedule: Schedule) -> BenchConfig {
        BenchConfig {
            threads: vec![1],
            reps: 3,
            warmup: 0,
            patterns: Vec::new(),
            variants: Vec::new(),
            dtypes: Vec::new(),
            peers: Vec::new(),
            torch_huge_pages: false,
            schedule,
        }
    }

    /// Runs `time_rounds` over three implementations, the second without a call; returns the
    /// order of the calls and the times each one got (a call's time is its place in the order).
    fn schedule_of(schedule: Schedule) -> (Vec<usize>, Vec<Vec<f64>>) {
        let mut order = Vec::new();
        let times = time_rounds(&config(schedule), 3, |k| {
            if k == 1 {
                return None;
            }
            if schedule == Schedule::Apart {
                std::thread::sleep(Duration::from_millis(4));
            }
            order.push(k);
            Some(order.len() as f64)
        });
        (order, times)
    }

    #[test]
    fn rounds_time_one_call_each_in_alternating_order() {
        let (order, times) = schedule_of(Schedule::Rounds);
        assert_eq!(order, [0, 2, 2, 0, 0, 2]);
        assert_eq!(times, [vec![1.0, 4.0, 5.0], vec![], vec![2.0, 3.0, 6.0]]);
    }

    #[test]
    fn apart_times_each_call_after_its_own_untimed_calls() {
        let (order, times) = schedule_of(Schedule::Apart);
        // Each timed call follows at least SETTLE of untimed calls of the same implementation.
        let settle_calls = (SETTLE.as_millis() / 4) as usize;
        for (k, times) in times.iter().enumerate() {
            if k == 1 {
                assert!(times.is_empty());
                continue;
            }
            assert_eq!(times.len(), 3);
            for &t in times {
                let at = t as usize - 1;
                assert!(at >= settle_calls, "{order:?}");
                assert!(
                    order[at - settle_calls..=at].iter().all(|&j| j == k),
                    "{order:?}"
                );
            }
        }
        assert_eq!(order.first(), Some(&0));
        assert_eq!(order.last(), Some(&2));
    }
}
