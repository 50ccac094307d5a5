//! The helper threads of the element-wise loops. A loop cut into pieces runs them on the
//! calling thread and on up to a given number of helpers, each taking pieces until none is
//! left. The caller never waits for a helper that has not started: once every piece
//! is taken, the job is withdrawn and the caller waits only for pieces already running. On a
//! machine whose cores are busy with other work, a helper may not run for milliseconds;
//! threads spawned per call (`std::thread::scope`) must all be joined, so every call would
//! wait that long, while here the caller simply does the pieces itself.
//!
//! Each thread has a home run of the pieces (the caller the first, helper `k` the `k`-th
//! of equal runs), taken in order from its front, as OpenMP's static schedule gives each of
//! torch's threads one run: a loop called again finds each run's memory in the cache of the
//! core that last walked it. A thread done with its run takes pieces from the back of the
//! others' (so a helper that is late or delayed holds nobody up).
//!
//! One job runs at a time; a caller that finds the pool busy (another thread's loop) runs
//! its pieces alone. A caller done with its pieces also spins, for up to [`SPIN`], until
//! the helpers' pieces end, before it sleeps: the OS's wake-up after the last one can take
//! longer than a piece of a short loop (at two threads, `(64,1024) + (1024,)` took 13 to 20
//! µs in some runs against 9 to 10 when the caller spins).
//!
//! Helpers are spawned on first need and then wait for work: first spinning for [`SPIN`]
//! (a job posted meanwhile starts at once), then asleep (a job posted then wakes them
//! through the OS, which can take longer than a loop of a few hundred microseconds, so that
//! loop would run on the caller alone). OpenMP's threads, which run
//! torch's loops, spin likewise before they sleep.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

/// How long an idle helper watches for a new job before it sleeps.
const SPIN: Duration = Duration::from_micros(200);

/// A job's function of a piece index, with the lifetime of the caller's borrow erased: it is
/// only called while the job is posted or a piece of it runs (see [`run_pieces`]).
#[derive(Clone, Copy)]
struct Job {
    run: *const (dyn Fn(usize) + Sync + 'static),
}

// SAFETY: the function is `Sync`, and `run_pieces` keeps it alive while helpers may call it.
unsafe impl Send for Job {}

#[derive(Default)]
struct State {
    job: Option<Job>,
    /// The pieces not yet taken, one run per thread of the job (the caller's first, then
    /// helper 1's, ...): `runs[k].0` is the next piece from the front, `runs[k].1` the end.
    runs: Vec<(usize, usize)>,
    /// A helper's piece panicked.
    panicked: bool,
    /// Helpers spawned so far.
    helpers: usize,
    /// Helpers asleep on [`Pool::posted`].
    sleeping: usize,
    /// The caller is asleep on [`Pool::finished`].
    waiting: bool,
}

struct Pool {
    state: Mutex<State>,
    /// The id of the last job posted: written under the lock, read under it or, by spinning
    /// helpers, without it.
    posted_id: AtomicU64,
    /// Signalled when a job is posted.
    posted: Condvar,
    /// Signalled when the helpers' last running piece ends and the caller waits for it.
    finished: Condvar,
    /// Pieces that helpers are running: changed only under the state's lock (so a helper
    /// ending the last one sees `State::waiting` as the caller left it), read by a spinning
    /// caller without it.
    running: AtomicUsize,
}

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| Pool {
        state: Mutex::new(State::default()),
        posted_id: AtomicU64::new(0),
        posted: Condvar::new(),
        finished: Condvar::new(),
        running: AtomicUsize::new(0),
    })
}

impl State {
    /// Cuts `pieces` into one run for each of `threads` threads.
    fn cut(&mut self, pieces: usize, threads: usize) {
        self.runs.clear();
        self.runs
            .extend((0..threads).map(|k| (k * pieces / threads, (k + 1) * pieces / threads)));
    }

    /// The next piece for thread `home` (its run's front), else one from the back of the
    /// next run after it that has one; `None` when every piece is taken.
    fn take(&mut self, home: usize) -> Option<usize> {
        if let Some(run) = self.runs.get_mut(home)
            && run.0 < run.1
        {
            run.0 += 1;
            return Some(run.0 - 1);
        }
        let n = self.runs.len();
        (1..=n).map(|d| (home + d) % n).find_map(|k| {
            let run = &mut self.runs[k];
            (run.0 < run.1).then(|| {
                run.1 -= 1;
                run.1
            })
        })
    }

    /// Takes every piece left (the job is over).
    fn close(&mut self) {
        self.runs.clear();
    }
}

fn lock(pool: &Pool) -> MutexGuard<'_, State> {
    // A piece never panics while the lock is held, so a poisoned state is consistent.
    pool.state.lock().unwrap_or_else(|p| p.into_inner())
}

/// Helper `id` (1 for the first spawned): takes pieces of the posted jobs with a run for
/// it (jobs of at least `id + 1` threads), forever.
fn helper(pool: &'static Pool, id: usize) {
    let mut state = lock(pool);
    loop {
        let piece = match state.job {
            Some(job) if id < state.runs.len() => state.take(id).map(|p| (job, p)),
            _ => None,
        };
        let Some((job, piece)) = piece else {
            state = idle(pool, state);
            continue;
        };
        pool.running.fetch_add(1, Ordering::Relaxed);
        drop(state);
        // SAFETY: the job is alive: its caller waits for `running` to reach 0 before it
        // returns or frees the slot (see `Withdraw`).
        let ok = catch_unwind(AssertUnwindSafe(|| unsafe { (*job.run)(piece) })).is_ok();
        state = lock(pool);
        state.panicked |= !ok;
        let left = pool.running.fetch_sub(1, Ordering::Release) - 1;
        if left == 0 && state.waiting {
            pool.finished.notify_all();
        }
    }
}

/// Spins for up to [`SPIN`] until `done()`.
fn spin_until(done: impl Fn() -> bool) {
    let start = Instant::now();
    while start.elapsed() < SPIN {
        for _ in 0..64 {
            if done() {
                return;
            }
            std::hint::spin_loop();
        }
    }
}

/// Waits, with the lock held on return, until a job is posted after the state seen in
/// `state`: spinning without the lock for [`SPIN`], then asleep. Returns early (spuriously)
/// at times; the caller checks the state again.
fn idle<'a>(pool: &'a Pool, state: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
    let seen = pool.posted_id.load(Ordering::Relaxed);
    drop(state);
    spin_until(|| pool.posted_id.load(Ordering::Acquire) != seen);
    let mut state = lock(pool);
    if pool.posted_id.load(Ordering::Relaxed) != seen {
        return state;
    }
    state.sleeping += 1;
    // `posted_id` changes only under the lock and every post notifies sleepers, so the
    // wake-up cannot be missed between the check above and the wait.
    let mut state = pool.posted.wait(state).unwrap_or_else(|p| p.into_inner());
    state.sleeping -= 1;
    state
}

/// Ends the posted job when the caller is done (or unwinds): no helper takes another piece,
/// the pieces helpers are running finish, and only then is the job slot freed. Freeing it
/// earlier would let another caller post a job while this one's pieces still run, and a
/// panic of one of them would be raised in that other caller.
struct Withdraw {
    pool: &'static Pool,
    done: std::cell::Cell<bool>,
}

impl Withdraw {
    /// Ends the job once; whether one of its helper pieces panicked.
    fn end(&self) -> bool {
        if self.done.replace(true) {
            return false;
        }
        let mut state = lock(self.pool);
        state.close();
        let running = || self.pool.running.load(Ordering::Acquire);
        if running() > 0 {
            drop(state);
            spin_until(|| running() == 0);
            state = lock(self.pool);
        }
        while running() > 0 {
            // A helper that ends the last running piece sees `waiting` under the lock, so
            // the notification cannot be missed.
            state.waiting = true;
            state = self
                .pool
                .finished
                .wait(state)
                .unwrap_or_else(|p| p.into_inner());
            state.waiting = false;
        }
        state.job = None;
        state.panicked
    }
}

impl Drop for Withdraw {
    fn drop(&mut self) {
        self.end();
    }
}

/// Runs `run(p)` for every `p` in `0..pieces`, each exactly once, on this thread and on up
/// to `helpers` helper threads.
///
/// # Panics
/// When a piece panics (on a helper, the panic is raised here once every piece has ended).
pub fn run_pieces(pieces: usize, helpers: usize, run: &(dyn Fn(usize) + Sync)) {
    let pool = pool();
    let mut state = lock(pool);
    if helpers == 0 || pieces < 2 || state.job.is_some() {
        drop(state);
        (0..pieces).for_each(run);
        return;
    }
    while state.helpers < helpers {
        let id = state.helpers + 1;
        let spawned = std::thread::Builder::new()
            .name("bcast-loop".into())
            .spawn(move || helper(pool, id));
        if spawned.is_err() {
            break;
        }
        state.helpers += 1;
    }
    // Runs for the helpers there are (a failed spawn leaves fewer).
    let helpers = helpers.min(state.helpers);
    let id = pool.posted_id.load(Ordering::Relaxed) + 1;
    // SAFETY: only the lifetime is erased; `Withdraw` ends every use before `run` goes.
    let erased: *const (dyn Fn(usize) + Sync + 'static) =
        unsafe { std::mem::transmute::<*const (dyn Fn(usize) + Sync + '_), _>(run as *const _) };
    state.job = Some(Job { run: erased });
    state.cut(pieces, helpers + 1);
    state.panicked = false;
    pool.posted_id.store(id, Ordering::Release);
    if state.sleeping > 0 {
        pool.posted.notify_all();
    }
    let withdraw = Withdraw {
        pool,
        done: std::cell::Cell::new(false),
    };
    while let Some(piece) = state.take(0) {
        drop(state);
        run(piece);
        state = lock(pool);
    }
    drop(state);
    if withdraw.end() {
        resume_unwind(Box::new("a piece of an element-wise loop panicked"));
    }
}
