//! The benchmark's one timer: how the implementations' calls of a row follow each other
//! (warm-up, then interleaved rounds in a [`Schedule`]), read on a [`Clock`] that tests replace
//! with a fake one, and the medians of what it measured.

use super::Call;
use std::time::{Duration, Instant};

/// Where the timer reads the time: the time since some fixed start.
pub trait Clock {
    /// The time now.
    fn now(&self) -> Duration;
}

/// The machine's monotonic clock.
#[derive(Debug, Clone, Copy)]
pub struct WallClock(Instant);

impl WallClock {
    /// A clock that counts from now.
    pub fn new() -> WallClock {
        WallClock(Instant::now())
    }
}

impl Default for WallClock {
    fn default() -> WallClock {
        WallClock::new()
    }
}

impl Clock for WallClock {
    fn now(&self) -> Duration {
        self.0.elapsed()
    }
}

/// The time `f` takes on `clock`.
pub fn timed(clock: &dyn Clock, f: impl FnOnce()) -> Duration {
    let start = clock.now();
    f();
    clock.now().saturating_sub(start)
}

/// How the implementations' timed calls follow each other within a row.
///
/// ```
/// # use bcast_tooling::bench::timer::Schedule;
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

/// How a row's calls are timed.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    pub schedule: Schedule,
    /// Timed calls (rounds) per implementation.
    pub reps: usize,
    /// Untimed calls per implementation before the rounds.
    pub warmup: usize,
    /// Calls per timed sample, whose mean is the sample (for calls too short for the clock).
    pub batch: usize,
}

/// One call of `call` after its untimed reset.
fn once(call: &mut dyn Call) {
    call.reset();
    call.run();
}

/// Times `calls` (`None` for an implementation without a call): `timing.warmup` untimed calls
/// of each, then `timing.reps` rounds of one timed sample of each, in round order (forward,
/// then backward, so no one always runs right after another), after [`SETTLE`] of its own
/// untimed calls under [`Schedule::Apart`]. A sample is the mean time of `timing.batch` calls,
/// each after its untimed reset. Returns the median seconds of each implementation.
pub fn time_calls(
    timing: Timing,
    calls: &mut [Option<Box<dyn Call>>],
    clock: &dyn Clock,
) -> Vec<Option<f64>> {
    for _ in 0..timing.warmup {
        for call in calls.iter_mut().flatten() {
            once(call.as_mut());
        }
    }
    let batch = timing.batch.max(1);
    let mut samples = vec![Vec::new(); calls.len()];
    for round in 0..timing.reps {
        for k in round_order(calls.len(), round) {
            let Some(call) = calls[k].as_mut() else {
                continue;
            };
            if timing.schedule == Schedule::Apart {
                let start = clock.now();
                while clock.now().saturating_sub(start) < SETTLE {
                    once(call.as_mut());
                }
            }
            let mut total = Duration::ZERO;
            for _ in 0..batch {
                call.reset();
                total += timed(clock, || call.run());
            }
            samples[k].push(total.as_secs_f64() / batch as f64);
        }
    }
    calls
        .iter()
        .zip(samples)
        .map(|(c, s)| c.as_ref().map(|_| median(s)))
        .collect()
}

/// The implementations in the order of round `round`: forward, then backward.
fn round_order(n: usize, round: usize) -> Vec<usize> {
    if round.is_multiple_of(2) {
        (0..n).collect()
    } else {
        (0..n).rev().collect()
    }
}

/// The median of `times` (the mean of the middle two for an even count).
///
/// ```
/// # use bcast_tooling::bench::timer::median;
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
