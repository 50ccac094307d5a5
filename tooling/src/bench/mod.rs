//! `bcast-dev bench`: the engine against its peers (libtorch through tch with the `torch`
//! feature, ndarray with the `ndarray` feature) on the rows of [`workload`] (the eight
//! broadcasting patterns and the broad rows), in one run. Each row's results are compared
//! before timing (bit for bit, or within `1e-5` relative where [`Workload::approximate`]),
//! and repetitions are interleaved across implementations ([`timer`]) so drift and noise from
//! other processes fall on all of them alike. A plain copy of the same bytes gives the
//! bandwidth ceiling.

pub mod ceiling;
pub mod engine;
#[cfg(feature = "ndarray")]
pub mod ndarray;
pub mod report;
pub mod timer;
#[cfg(feature = "torch")]
pub mod torch;
pub mod workload;

use timer::{median, time_calls, timed, Clock, Schedule, Timing};
use workload::{values, Arg, Dt, Expr, Workload, Write};

/// One prepared call of an implementation: its inputs (and output, for `out=`) are built.
pub trait Call {
    /// One timed call.
    fn run(&mut self);
    /// Untimed work between calls: dropping the previous result.
    fn reset(&mut self) {}
    /// The last result.
    fn output(&self) -> Output;
}

/// An implementation being measured.
pub trait Peer {
    /// Its name in the table.
    fn name(&self) -> &'static str;
    /// Asks for `n` threads; returns how many it uses (by default one: an implementation
    /// without threads).
    fn set_threads(&mut self, _n: usize) -> usize {
        1
    }
    /// A call of `w` from the data of its operands (see [`inputs`]); `None` when the
    /// implementation cannot express it.
    fn prepare(&self, w: &Workload, data: &[Vec<f64>]) -> Option<Box<dyn Call>>;
}

/// How an implementation computes a workload, for [`prepare`]: its operand and result types
/// and its calls into a new result and into an existing one.
pub trait Backend: 'static {
    /// An operand: a tensor, or a Python number where the implementation has them.
    type Operand: 'static;
    /// A result.
    type Result: 'static;
    /// `expr` into a new result; `None` where the implementation does not have it.
    fn new_result(expr: &Expr, ops: &[Self::Operand]) -> Option<Self::Result>;
    /// `expr` into `out`, or into the first operand when `out` is `None`.
    fn write_into(
        expr: &Expr,
        ops: &mut [Self::Operand],
        out: Option<&mut Self::Result>,
    ) -> Option<()>;
    /// A result of `r`'s shape and dtype, to write into.
    fn like(r: &Self::Result) -> Option<Self::Result>;
    /// The bits of a result.
    fn output(r: &Self::Result) -> Output;
    /// The bits of an operand (the result of an in-place call); `None` for a number.
    fn operand_output(op: &Self::Operand) -> Option<Output>;
}

/// A call of a workload on a [`Backend`].
struct Prepared<B: Backend> {
    expr: Expr,
    write: Write,
    ops: Vec<B::Operand>,
    out: Option<B::Result>,
}

impl<B: Backend> Call for Prepared<B> {
    fn run(&mut self) {
        let done = match self.write {
            Write::Alloc => B::new_result(&self.expr, &self.ops).map(|r| self.out = Some(r)),
            Write::Out => {
                let out = self.out.as_mut().expect("an out= call has its output");
                B::write_into(&self.expr, &mut self.ops, Some(out))
            }
            Write::InPlace => B::write_into(&self.expr, &mut self.ops, None),
        };
        done.expect("a prepared call runs");
    }

    fn reset(&mut self) {
        if self.write == Write::Alloc {
            self.out = None;
        }
    }

    fn output(&self) -> Output {
        match self.write {
            Write::InPlace => B::operand_output(&self.ops[0]).expect("a tensor written in place"),
            _ => B::output(self.out.as_ref().expect("run first")),
        }
    }
}

/// A call of `w` on backend `B` from the data of its operands (see [`inputs`]), each made by
/// `operand`; `None` where `B` does not compute it.
pub fn prepare_from<B: Backend>(
    w: &Workload,
    data: &[Vec<f64>],
    operand: impl Fn(&Arg, &[f64]) -> Option<B::Operand>,
) -> Option<Box<dyn Call>> {
    let ops = w.args.iter().zip(data).map(|(a, d)| operand(a, d));
    prepare::<B>(w, ops.collect::<Option<_>>()?)
}

/// A call of `w` on backend `B` from its operands; `None` where `B` does not compute it. The
/// result is computed once here, to learn whether `B` has the op and the output's shape and
/// dtype (an in-place result must have the first operand's).
pub fn prepare<B: Backend>(w: &Workload, mut ops: Vec<B::Operand>) -> Option<Box<dyn Call>> {
    let first = B::new_result(&w.expr, &ops)?;
    let out = match w.write {
        Write::Alloc => None,
        Write::Out => {
            let mut out = B::like(&first)?;
            B::write_into(&w.expr, &mut ops, Some(&mut out))?;
            Some(out)
        }
        Write::InPlace => {
            let (target, result) = (B::operand_output(ops.first()?)?, B::output(&first));
            if (target.dtype, target.shape) != (result.dtype, result.shape) {
                return None;
            }
            None
        }
    };
    Some(Box::new(Prepared::<B> {
        expr: w.expr.clone(),
        write: w.write,
        ops,
        out,
    }))
}

/// A result: its dtype, shape and elements' bits in row-major order (floats as their bits,
/// widened; integers sign-extended; bool 0/1).
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    pub dtype: Dt,
    pub shape: Vec<usize>,
    pub bits: Vec<u64>,
}

impl Output {
    /// Bytes of the result.
    pub fn bytes(&self) -> usize {
        self.bits.len() * self.dtype.size()
    }

    /// Element `i` as a number.
    fn value(&self, i: usize) -> f64 {
        let b = self.bits[i];
        match self.dtype {
            Dt::F32 => f32::from_bits(b as u32) as f64,
            Dt::F64 => f64::from_bits(b),
            Dt::F16 => bcast_engine::half::Half::from_bits(b as u16).to_f32() as f64,
            Dt::BF16 => bcast_engine::half::BFloat16::from_bits(b as u16).to_f32() as f64,
            _ => b as i64 as f64,
        }
    }

    /// Whether `other` is the same result: bit for bit, or with `approximate` within `1e-5`
    /// relative (plus `1e-6` absolute) element by element.
    ///
    /// ```
    /// use bcast_tooling::bench::{workload::Dt, Output};
    /// let a = Output { dtype: Dt::F32, shape: vec![1], bits: vec![1.0f32.to_bits().into()] };
    /// let b = Output { dtype: Dt::F32, shape: vec![1], bits: vec![1.000001f32.to_bits().into()] };
    /// assert!(!a.agrees(&b, false) && a.agrees(&b, true));
    /// ```
    pub fn agrees(&self, other: &Output, approximate: bool) -> bool {
        if self.dtype != other.dtype || self.shape != other.shape {
            return false;
        }
        if !approximate || !self.dtype.is_float() {
            return self.bits == other.bits;
        }
        (0..self.bits.len()).all(|i| {
            let (a, b) = (self.value(i), other.value(i));
            a == b || (a - b).abs() <= 1e-6 + 1e-5 * a.abs().max(b.abs())
        })
    }

    /// Why `self` (of `mine`) and `other` (of `theirs`) are not the same result.
    fn disagreement(&self, mine: &str, other: &Output, theirs: &str) -> String {
        let at =
            (0..self.bits.len().min(other.bits.len())).find(|&i| self.bits[i] != other.bits[i]);
        format!(
            "{mine} and {theirs} disagree ({} {:?} and {} {:?}; first at {at:?}: {:?} and {:?})",
            self.dtype.name(),
            self.shape,
            other.dtype.name(),
            other.shape,
            at.map(|i| self.value(i)),
            at.map(|i| other.value(i)),
        )
    }
}

/// The data of each operand in its storage order (empty for a number).
pub fn inputs(w: &Workload) -> Vec<Vec<f64>> {
    w.args
        .iter()
        .enumerate()
        .map(|(k, a)| match a {
            Arg::Tensor { shape, dtype, .. } => values(shape.iter().product(), *dtype, k + 1),
            _ => Vec::new(),
        })
        .collect()
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

/// How to measure.
#[derive(Debug, Clone)]
pub struct BenchConfig {
    /// Thread counts, one table each.
    pub threads: Vec<usize>,
    /// Timed calls per implementation and row.
    pub reps: usize,
    /// Untimed calls per implementation before timing.
    pub warmup: usize,
    /// The implementations to run, by name (all when empty; the engine always runs first).
    pub peers: Vec<String>,
    /// Switch on libtorch's huge-page allocation (`THP_MEM_ALLOC_ENABLE=1`).
    pub torch_huge_pages: bool,
    /// How the implementations' timed calls follow each other.
    pub schedule: Schedule,
}

/// The median time of each implementation on one workload (`None` where it cannot run it),
/// or why the row was not timed.
#[derive(Debug, Clone)]
pub struct Row {
    pub workload: Workload,
    pub seconds: Vec<Option<f64>>,
    /// Bytes read and written once each.
    pub bytes: usize,
    /// Set when implementations disagreed (the row is then not timed).
    pub mismatch: Option<String>,
}

/// One table: every row at one thread count.
#[derive(Debug, Clone)]
pub struct Table {
    /// The thread count asked for.
    pub threads: usize,
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

/// Measures the copy ceiling: a 64 MiB float32 copy, into new memory and into existing memory.
fn measure_copy(config: &BenchConfig, threads: usize, clock: &dyn Clock) -> (f64, f64, usize) {
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
        let t = timed(clock, || kept = Some(ceiling::copy_alloc(&src, threads)));
        alloc.push(t.as_secs_f64());
        out.push(timed(clock, || ceiling::copy_split(&mut dst, &src, threads)).as_secs_f64());
    }
    drop(kept);
    (median(alloc), median(out), 2 * 4 * src.len())
}

/// Runs workload `w` on every peer: prepares each, checks that they all compute the first
/// one's result (the row is not timed where one does not), then times them on `clock`.
fn measure(config: &BenchConfig, peers: &[Box<dyn Peer>], w: &Workload, clock: &dyn Clock) -> Row {
    let data = inputs(w);
    let mut calls: Vec<Option<Box<dyn Call>>> = peers.iter().map(|p| p.prepare(w, &data)).collect();
    drop(data);
    let mut expected: Option<(usize, Output)> = None;
    let mut mismatch = None;
    for (k, call) in calls.iter_mut().enumerate() {
        let Some(call) = call else { continue };
        call.run();
        let got = call.output();
        match &expected {
            None => expected = Some((k, got)),
            Some((first, want)) if mismatch.is_none() && !want.agrees(&got, w.approximate()) => {
                mismatch = Some(want.disagreement(peers[*first].name(), &got, peers[k].name()));
            }
            Some(_) => {}
        }
    }
    let in_bytes: usize = w.args.iter().map(Arg::bytes).sum();
    let bytes = in_bytes + expected.as_ref().map_or(0, |(_, o)| o.bytes());
    drop(expected);
    let seconds = match mismatch {
        Some(_) => vec![None; peers.len()],
        None => {
            let timing = Timing {
                schedule: config.schedule,
                reps: config.reps,
                warmup: config.warmup,
                // Tiny calls take microseconds: time batches so the clock's resolution does
                // not matter.
                batch: if bytes < 1 << 16 { 64 } else { 1 },
            };
            time_calls(timing, &mut calls, clock)
        }
    };
    Row {
        workload: w.clone(),
        seconds,
        bytes,
        mismatch,
    }
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

/// Runs the benchmark on `workloads` with `peers`, timed on `clock`: one table per thread
/// count. `progress` hears each row as it starts.
pub fn run_with(
    config: &BenchConfig,
    mut peers: Vec<Box<dyn Peer>>,
    workloads: &[Workload],
    clock: &dyn Clock,
    mut progress: impl FnMut(&str),
) -> Vec<Table> {
    let mut tables = Vec::new();
    for &threads in &config.threads {
        let used: Vec<(&'static str, usize)> = peers
            .iter_mut()
            .map(|p| (p.name(), p.set_threads(threads)))
            .collect();
        progress(&format!("{threads} thread(s): copy ceiling"));
        let (copy_alloc, copy_out, copy_bytes) = measure_copy(config, threads, clock);
        let mut rows = Vec::new();
        for w in workloads {
            progress(&format!(
                "{threads} thread(s): {} {}",
                w.label,
                w.write.name()
            ));
            rows.push(measure(config, &peers, w, clock));
        }
        tables.push(Table {
            threads,
            schedule: config.schedule,
            peers: used,
            copy_alloc,
            copy_out,
            copy_bytes,
            rows,
        });
    }
    tables
}

/// Runs the benchmark on `workloads` with the peers `config` selects, on the machine's clock.
pub fn run_bench(
    config: &BenchConfig,
    workloads: &[Workload],
    progress: impl FnMut(&str),
) -> Vec<Table> {
    let clock = timer::WallClock::new();
    run_with(config, selected_peers(config), workloads, &clock, progress)
}
