//! How many threads the element-wise loops may use.

use std::sync::atomic::{AtomicUsize, Ordering};

/// 0 means "not set": every core.
static THREADS: AtomicUsize = AtomicUsize::new(0);

/// Sets the number of threads the element-wise loops use (`0` restores the default, every
/// core), like torch's `set_num_threads`. Results do not depend on it.
///
/// ```
/// use bcast_engine::iter::{num_threads, set_num_threads};
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
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}
