//! `bcast-dev bench --suite broad`: the engine against its peers on workloads beyond the
//! eight float32 patterns: every op family (arithmetic, comparison to bool, logical, `where`
//! with 0-d operands, pow, remainder, unary, reductions and their broadcast back), every dtype
//! the engine has, mixed dtypes (0-d tensors and Python numbers too), channels-last and
//! permuted layouts, sizes from L1-resident to twice the last-level cache, and the per-call
//! cost of tiny tensors. As the pattern suite: results are compared before timing (bit for
//! bit, or within `1e-5` relative for float reductions), repetitions interleaved.

pub mod engine;
#[cfg(feature = "ndarray")]
pub mod ndarray;
pub mod report;
#[cfg(feature = "torch")]
pub mod torch;
pub mod workload;

use super::{median, time_rounds, timed, BenchConfig, Peer};
use workload::{values, Arg, Dt, Workload};

/// One prepared call of a workload (see [`super::Call`]).
pub trait WorkCall {
    /// One timed call.
    fn run(&mut self);
    /// Untimed work between calls: dropping the previous result.
    fn reset(&mut self) {}
    /// The last result.
    fn output(&self) -> Output;
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
    /// use bcast_tooling::bench::broad::{workload::Dt, Output};
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

/// The median time of each implementation on one workload (`None` where it cannot run it),
/// or why the row was not timed.
#[derive(Debug, Clone)]
pub struct WorkRow {
    pub workload: Workload,
    pub seconds: Vec<Option<f64>>,
    /// Bytes read and written once each.
    pub bytes: usize,
    /// Set when implementations disagreed (the row is then not timed).
    pub mismatch: Option<String>,
}

/// One table: every workload at one thread count.
#[derive(Debug, Clone)]
pub struct WorkTable {
    pub threads: usize,
    pub peers: Vec<(&'static str, usize)>,
    pub copy_alloc: f64,
    pub copy_out: f64,
    pub copy_bytes: usize,
    /// How the calls were ordered.
    pub schedule: super::Schedule,
    pub rows: Vec<WorkRow>,
}

fn measure(config: &BenchConfig, peers: &[Box<dyn Peer>], w: &Workload) -> WorkRow {
    let data = inputs(w);
    let mut calls: Vec<Option<Box<dyn WorkCall>>> =
        peers.iter().map(|p| p.prepare_workload(w, &data)).collect();
    drop(data);
    let mut expected: Option<(usize, Output)> = None;
    let mut mismatch = None;
    for (k, call) in calls.iter_mut().enumerate() {
        let Some(call) = call else { continue };
        call.run();
        let got = call.output();
        match &expected {
            None => expected = Some((k, got)),
            Some((first, want)) => {
                if !want.agrees(&got, w.approximate()) {
                    let at = (0..want.bits.len().min(got.bits.len()))
                        .find(|&i| want.bits[i] != got.bits[i]);
                    mismatch = Some(format!(
                        "{} and {} disagree ({} {:?} and {} {:?}; first at {:?}: {:?} and {:?})",
                        peers[*first].name(),
                        peers[k].name(),
                        want.dtype.name(),
                        want.shape,
                        got.dtype.name(),
                        got.shape,
                        at,
                        at.map(|i| want.value(i)),
                        at.map(|i| got.value(i)),
                    ));
                }
            }
        }
    }
    let in_bytes: usize = w.args.iter().map(Arg::bytes).sum();
    let bytes = in_bytes + expected.as_ref().map_or(0, |(_, o)| o.bytes());
    drop(expected);
    if mismatch.is_some() {
        return WorkRow {
            workload: w.clone(),
            seconds: vec![None; peers.len()],
            bytes,
            mismatch,
        };
    }
    // Tiny calls take microseconds: time batches so the clock's resolution does not matter.
    let batch = if bytes < 1 << 16 { 64 } else { 1 };
    for _ in 0..config.warmup {
        for call in calls.iter_mut().flatten() {
            call.reset();
            call.run();
        }
    }
    let times = time_rounds(config, peers.len(), |k| {
        let call = calls[k].as_mut()?;
        let mut total = 0.0;
        for _ in 0..batch {
            call.reset();
            total += timed(|| call.run());
        }
        Some(total / batch as f64)
    });
    WorkRow {
        workload: w.clone(),
        seconds: calls
            .iter()
            .zip(times)
            .map(|(c, t)| c.as_ref().map(|_| median(t)))
            .collect(),
        bytes,
        mismatch: None,
    }
}

/// Runs the broad suite: one table per thread count. `progress` hears each row as it starts.
pub fn run_broad(
    config: &BenchConfig,
    workloads: &[Workload],
    mut progress: impl FnMut(&str),
) -> Vec<WorkTable> {
    let mut peers = super::selected_peers(config);
    let mut tables = Vec::new();
    for &threads in &config.threads {
        let used: Vec<(&'static str, usize)> = peers
            .iter_mut()
            .map(|p| (p.name(), p.set_threads(threads)))
            .collect();
        progress(&format!("{threads} thread(s): copy ceiling"));
        let (copy_alloc, copy_out, copy_bytes) = super::measure_copy(config, threads);
        let mut rows = Vec::new();
        for w in workloads {
            progress(&format!(
                "{threads} thread(s): {} {}",
                w.label,
                w.write.name()
            ));
            rows.push(measure(config, &peers, w));
        }
        tables.push(WorkTable {
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
