//! The engine's global settings, all in this module:
//!
//! | setting | scope | default | set | read |
//! | --- | --- | --- | --- | --- |
//! | threads of the element-wise loops | process | every core | [`set_num_threads`] | [`num_threads`] |
//! | which executor runs the element-wise loops | calling thread | [`Strategy::Plan`] | [`with_strategy`] | [`strategy`] |
//! | largest storage the engine allocates | process | [`DEFAULT_ALLOCATION_LIMIT`] elements | [`set_allocation_limit`] | [`allocation_limit`] |
//!
//! The first two never change a result: every thread count and both strategies give the same
//! bits (the index map is the oracle the plan is tested against). The allocation limit decides
//! only whether a large allocation fails (with torch's out-of-memory message, marked as a
//! refusal: [`crate::Error::is_refusal`]) instead of being attempted.
//!
//! The old paths still work: `bcast_engine::iter::{num_threads, set_num_threads, strategy,
//! with_strategy, Strategy}` and `bcast_engine::storage::{set_allocation_limit,
//! DEFAULT_ALLOCATION_LIMIT}` re-export these.
//!
//! ```
//! use bcast_engine::config;
//! config::set_num_threads(2);
//! assert_eq!(config::num_threads(), 2);
//! config::set_num_threads(0);
//! assert_eq!(config::allocation_limit(), config::DEFAULT_ALLOCATION_LIMIT);
//! ```

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// 0 means "not set": every core.
static THREADS: AtomicUsize = AtomicUsize::new(0);

/// The cores the process may use, counted once (as torch counts them at start): counting
/// reads the cgroup files under `/proc`, which would cost a tiny call more than its kernel.
static CORES: OnceLock<usize> = OnceLock::new();

/// Sets the number of threads the element-wise loops use (`0` restores the default, every
/// core), like torch's `set_num_threads`. Results do not depend on it.
///
/// ```
/// use bcast_engine::config::{num_threads, set_num_threads};
/// set_num_threads(3);
/// assert_eq!(num_threads(), 3);
/// set_num_threads(0);
/// assert!(num_threads() >= 1);
/// ```
pub fn set_num_threads(n: usize) {
    THREADS.store(n, Ordering::Relaxed);
}

/// The number of threads the element-wise loops use.
pub fn num_threads() -> usize {
    match THREADS.load(Ordering::Relaxed) {
        0 => *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        n => n,
    }
}

/// Which executor runs the element-wise loops: the plan (reordered, coalesced, specialised
/// inner loops) or the naive index map, kept as the oracle for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Strategy {
    /// The iteration plan: blocks of rows with contiguous and stride-0 fast paths.
    #[default]
    Plan,
    /// Every output index unravelled, every input read at its broadcast position.
    IndexMap,
}

thread_local! {
    static STRATEGY: Cell<Strategy> = const { Cell::new(Strategy::Plan) };
}

/// The strategy kernels on this thread use.
pub fn strategy() -> Strategy {
    STRATEGY.with(Cell::get)
}

/// Runs `f` with kernels on this thread using `s`, then restores the previous strategy.
///
/// ```
/// use bcast_engine::config::{strategy, with_strategy, Strategy};
/// let inside = with_strategy(Strategy::IndexMap, strategy);
/// assert_eq!((inside, strategy()), (Strategy::IndexMap, Strategy::Plan));
/// ```
pub fn with_strategy<R>(s: Strategy, f: impl FnOnce() -> R) -> R {
    struct Restore(Strategy);
    impl Drop for Restore {
        fn drop(&mut self) {
            STRATEGY.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(STRATEGY.with(|c| c.replace(s)));
    f()
}

/// The default for the largest storage the engine allocates, in elements.
pub const DEFAULT_ALLOCATION_LIMIT: usize = 1 << 31;

static ALLOCATION_LIMIT: AtomicUsize = AtomicUsize::new(DEFAULT_ALLOCATION_LIMIT);

/// Sets the largest storage the engine allocates, in elements (fuzzers lower it). Larger
/// requests are an error, never an abort: views of any size are free, only materialising them
/// costs memory.
pub fn set_allocation_limit(elements: usize) {
    ALLOCATION_LIMIT.store(elements, Ordering::Relaxed);
}

/// The largest storage the engine allocates, in elements.
pub fn allocation_limit() -> usize {
    ALLOCATION_LIMIT.load(Ordering::Relaxed)
}
