//! Tests of `bench` (its runs checked and timed on a fake clock, in this file) and of the
//! modules of `tooling/src/bench/`.

mod engine;
mod fake;
mod report;
mod timer;
mod workload;

use bcast_tooling::bench::timer::Schedule;
use bcast_tooling::bench::workload::{workloads, Dt, Workload};
use bcast_tooling::bench::{run_with, BenchConfig, Call, Output, Peer, Table};
use fake::{FakeCall, FakeClock};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

/// A peer whose calls take `ms` milliseconds on `clock` and give `bits`.
struct FakePeer {
    name: &'static str,
    ms: u64,
    bits: Option<Vec<u64>>,
    clock: FakeClock,
    log: Rc<RefCell<Vec<usize>>>,
}

impl Peer for FakePeer {
    fn name(&self) -> &'static str {
        self.name
    }

    fn set_threads(&mut self, n: usize) -> usize {
        n
    }

    fn prepare(&self, w: &Workload, data: &[Vec<f64>]) -> Option<Box<dyn Call>> {
        assert_eq!(data.len(), w.args.len());
        Some(Box::new(FakeCall {
            k: self.ms as usize,
            run: Duration::from_millis(self.ms),
            reset: Duration::ZERO,
            clock: self.clock.clone(),
            log: self.log.clone(),
            output: Output {
                dtype: Dt::F32,
                shape: vec![self.bits.as_ref()?.len()],
                bits: self.bits.clone()?,
            },
        }))
    }
}

/// One table of the `(4,) + (4,)` row, timed on a fake clock with peers taking 2, 3 and 5
/// ms and giving `bits` (`None`: the peer cannot run it); returns it and the runs' log.
fn table(bits: [Option<Vec<u64>>; 3]) -> (Table, Vec<usize>) {
    let clock = FakeClock::default();
    let log = Rc::new(RefCell::new(Vec::new()));
    let names = ["engine", "torch", "ndarray"];
    let peers: Vec<Box<dyn Peer>> = names
        .into_iter()
        .zip([2, 3, 5])
        .zip(bits)
        .map(|((name, ms), bits)| -> Box<dyn Peer> {
            Box::new(FakePeer {
                name,
                ms,
                bits,
                clock: clock.clone(),
                log: log.clone(),
            })
        })
        .collect();
    let config = BenchConfig {
        threads: vec![2],
        reps: 1,
        warmup: 0,
        peers: Vec::new(),
        torch_huge_pages: false,
        schedule: Schedule::Rounds,
    };
    let rows = workloads()
        .into_iter()
        .filter(|w| w.label == "(4,) + (4,)")
        .collect::<Vec<_>>();
    let mut heard = Vec::new();
    let mut tables = run_with(&config, peers, &rows, &clock, |what| {
        heard.push(what.to_string())
    });
    assert_eq!(
        heard,
        [
            "2 thread(s): copy ceiling",
            "2 thread(s): (4,) + (4,) alloc"
        ]
    );
    assert_eq!(tables.len(), 1);
    let log = log.borrow().clone();
    (tables.remove(0), log)
}

#[test]
fn rows_are_checked_then_timed_in_batches() {
    let same = Some(vec![1, 2, 3, 4]);
    let (t, log) = table([same.clone(), None, same]);
    assert_eq!(t.peers, [("engine", 2), ("torch", 2), ("ndarray", 2)]);
    let row = &t.rows[0];
    assert_eq!(row.mismatch, None);
    // Four float32 elements in each of two inputs and the result.
    assert_eq!(row.bytes, 48);
    // A row under 64 KiB is timed in batches of 64 calls, after one checked call each.
    assert_eq!(log, [[2, 5].as_slice(), &[2; 64], &[5; 64]].concat());
    assert_eq!(row.seconds, [Some(0.002), None, Some(0.005)]);
}

#[test]
fn a_row_whose_results_differ_is_not_timed() {
    let (t, log) = table([
        Some(vec![1, 2, 3, 4]),
        Some(vec![1, 2, 3, 4]),
        Some(vec![1, 2, 3, 5]),
    ]);
    let row = &t.rows[0];
    let why = row.mismatch.as_deref().expect("a mismatch");
    assert!(
        why.starts_with(
            "engine and ndarray disagree (float32 [4] and float32 [4]; first at Some(3)"
        ),
        "{why}"
    );
    assert_eq!(row.seconds, [None, None, None]);
    assert_eq!(log, [2, 3, 5]);
}
