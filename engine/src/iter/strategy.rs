//! Which executor runs the element-wise loops: the plan (reordered, coalesced, specialised
//! inner loops) or the naive index map, kept as the oracle for it.

use std::cell::Cell;

/// How kernels walk their elements.
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
/// use bcast_engine::iter::{strategy, with_strategy, Strategy};
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
