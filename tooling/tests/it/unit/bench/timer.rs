//! `bench::timer`: the order of the calls each schedule makes, and what it times, on a fake
//! clock.

use super::fake::{FakeCall, FakeClock};
use bcast_tooling::bench::timer::{time_calls, Schedule, Timing};
use bcast_tooling::bench::workload::Dt;
use bcast_tooling::bench::{Call, Output};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

const MS: Duration = Duration::from_millis(1);

/// Times three implementations on a fake clock: the first's runs take 4 ms after resets of
/// 1 ms, the second has no call, the third's runs take 7 ms. Returns the order of the runs
/// and each one's median.
fn schedule_of(schedule: Schedule, batch: usize) -> (Vec<usize>, Vec<Option<f64>>) {
    let clock = FakeClock::default();
    let log = Rc::new(RefCell::new(Vec::new()));
    let call = |k: usize, run: Duration, reset: Duration| -> Option<Box<dyn Call>> {
        Some(Box::new(FakeCall {
            k,
            run,
            reset,
            clock: clock.clone(),
            log: log.clone(),
            output: Output {
                dtype: Dt::F32,
                shape: vec![],
                bits: vec![],
            },
        }))
    };
    let mut calls = vec![call(0, 4 * MS, MS), None, call(2, 7 * MS, Duration::ZERO)];
    let timing = Timing {
        schedule,
        reps: 3,
        warmup: 1,
        batch,
    };
    let medians = time_calls(timing, &mut calls, &clock);
    let order = log.borrow().clone();
    (order, medians)
}

/// `n` runs of implementation `k`.
fn runs(k: usize, n: usize) -> Vec<usize> {
    vec![k; n]
}

#[test]
fn rounds_time_one_call_each_in_alternating_order() {
    let (order, medians) = schedule_of(Schedule::Rounds, 1);
    assert_eq!(order, [0, 2, 0, 2, 2, 0, 0, 2]);
    // The reset before each timed run is not timed.
    assert_eq!(medians, [Some(0.004), None, Some(0.007)]);
}

#[test]
fn batches_time_the_mean_of_their_calls() {
    let (order, medians) = schedule_of(Schedule::Rounds, 3);
    let expected: Vec<usize> = [
        vec![0, 2],
        runs(0, 3),
        runs(2, 3),
        runs(2, 3),
        runs(0, 3),
        runs(0, 3),
        runs(2, 3),
    ]
    .concat();
    assert_eq!(order, expected);
    assert_eq!(medians, [Some(0.004), None, Some(0.007)]);
}

#[test]
fn apart_times_each_call_after_its_own_untimed_calls() {
    let (order, medians) = schedule_of(Schedule::Apart, 1);
    // Before each timed run, untimed calls until SETTLE (30 ms) has passed: six of the
    // first implementation (5 ms with their resets), five of the third (7 ms each).
    let (first, third) = (runs(0, 6 + 1), runs(2, 5 + 1));
    let expected: Vec<usize> = [
        vec![0, 2],
        first.clone(),
        third.clone(),
        third.clone(),
        first.clone(),
        first,
        third,
    ]
    .concat();
    assert_eq!(order, expected);
    assert_eq!(medians, [Some(0.004), None, Some(0.007)]);
}
