//! A clock and calls whose time passes only as the calls say: for tests of anything timed.

use bcast_tooling::bench::timer::Clock;
use bcast_tooling::bench::{Call, Output};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

/// A clock that stands still until a [`FakeCall`] moves it.
#[derive(Debug, Clone, Default)]
pub(crate) struct FakeClock(Rc<Cell<Duration>>);

impl FakeClock {
    /// Moves the clock on by `by`.
    pub(crate) fn advance(&self, by: Duration) {
        self.0.set(self.0.get() + by);
    }
}

impl Clock for FakeClock {
    fn now(&self) -> Duration {
        self.0.get()
    }
}

/// A call of implementation `k` whose run takes `run` and whose reset takes `reset` on
/// `clock`, writing `k` into `log` at each run; its output is `output`.
pub(crate) struct FakeCall {
    pub(crate) k: usize,
    pub(crate) run: Duration,
    pub(crate) reset: Duration,
    pub(crate) clock: FakeClock,
    pub(crate) log: Rc<RefCell<Vec<usize>>>,
    pub(crate) output: Output,
}

impl Call for FakeCall {
    fn run(&mut self) {
        self.log.borrow_mut().push(self.k);
        self.clock.advance(self.run);
    }

    fn reset(&mut self) {
        self.clock.advance(self.reset);
    }

    fn output(&self) -> Output {
        self.output.clone()
    }
}
