//! `--jobs N`: one selection of cases through N instances of a backend at once (N adapter
//! processes, or N threads of an in-process backend), with the verdicts and the report order
//! of a run through one.
//!
//! Every instance must say the same hello (name and capabilities) as the first: the run is
//! judged by one claim, and refused before its first case when an instance says another.
//! Workers take the next case from a shared counter, so a slow case holds up one worker only.
//! The entries are put back in case order at the end. The stop rules hold across workers: the
//! deadline is the run's, and one instance timing out `--max-timeouts` times in a row stops
//! them all (a hanging adapter costs the same wall time as with one job).

use super::suite::{judge, Entry, Stopped, SuiteOptions, SuiteResult, TimeoutStreak};
use crate::backend::{hello_difference, Backend, Capabilities};
use crate::case::LoadedCase;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Condvar, Mutex};
use std::time::Instant;

/// Opens one more instance of the backend, in the worker thread that will use it.
pub type OpenBackend<'a> = dyn Fn() -> Result<Box<dyn Backend>, String> + Sync + 'a;

/// The most instances of a backend one run opens (`--jobs` above it is refused by `bcast run`).
pub const MAX_JOBS: usize = 256;

/// How many instances a run of `cases` cases through `jobs` opens: at least 1, at most one a
/// case and at most [`MAX_JOBS`].
///
/// ```
/// use bcast_conformance::runner::jobs::{instances, MAX_JOBS};
/// assert_eq!(instances(32, 8), 8);
/// assert_eq!(instances(0, 8), 1);
/// assert_eq!(instances(4, 0), 1);
/// assert_eq!(instances(usize::MAX, usize::MAX), MAX_JOBS);
/// ```
pub fn instances(jobs: usize, cases: usize) -> usize {
    jobs.min(cases).clamp(1, MAX_JOBS)
}

/// The `--jobs` a command was given, checked: at least 1 and at most [`MAX_JOBS`]
/// (none given: 1).
///
/// ```
/// use bcast_conformance::runner::jobs::{checked_jobs, MAX_JOBS};
/// assert_eq!(checked_jobs(None), Ok(1));
/// assert_eq!(checked_jobs(Some(8)), Ok(8));
/// assert!(checked_jobs(Some(0)).is_err());
/// assert!(checked_jobs(Some(MAX_JOBS + 1)).is_err());
/// ```
pub fn checked_jobs(jobs: Option<usize>) -> Result<usize, String> {
    match jobs {
        Some(0) => Err("--jobs 0: give at least 1".to_string()),
        Some(n) if n > MAX_JOBS => Err(format!(
            "--jobs {n}: at most {MAX_JOBS} instances of a backend run at once"
        )),
        Some(n) => Ok(n),
        None => Ok(1),
    }
}

/// Runs `cases` through `first` and more instances made by `open` ([`instances`] in all),
/// calling `progress` (on this thread) as cases finish. A worker whose instance cannot be
/// opened leaves its share to the others and says why on stderr; the run needs only `first`.
/// An instance whose hello differs from the first's refuses the run: `Err` names where.
///
/// ```
/// use bcast_conformance::backend::registry::{open_backend, AdapterLimits};
/// use bcast_conformance::case::load_file;
/// use bcast_conformance::runner::jobs::run_suite_jobs;
/// use bcast_conformance::runner::suite::{run_suite, SuiteOptions};
/// let cases = load_file("tests/data/expand.json".as_ref()).unwrap();
/// let open = || open_backend("reference", AdapterLimits::default());
/// let options = SuiteOptions::default();
/// let three = run_suite_jobs(open().unwrap(), &open, 3, &cases, &options, |_, _| {}).unwrap();
/// let one = run_suite(open().unwrap().as_mut(), &cases, &options, |_, _| {});
/// let statuses = |r: &bcast_conformance::runner::suite::SuiteResult| {
///     r.entries.iter().map(|e| (e.index, e.status)).collect::<Vec<_>>()
/// };
/// assert_eq!(statuses(&three), statuses(&one));
/// ```
pub fn run_suite_jobs(
    mut first: Box<dyn Backend>,
    open: &OpenBackend<'_>,
    jobs: usize,
    cases: &[LoadedCase],
    options: &SuiteOptions,
    mut progress: impl FnMut(&LoadedCase, &Entry),
) -> Result<SuiteResult, String> {
    let claimed = first.capabilities();
    let name = first.name();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let stopped: Mutex<Option<Stopped>> = Mutex::new(None);
    let (send, receive) = mpsc::channel::<Entry>();
    let (say_hello, hellos) = mpsc::channel::<(usize, String, Capabilities)>();
    // Whether the workers may start: `None` until every hello is in.
    let go: (Mutex<Option<bool>>, Condvar) = (Mutex::new(None), Condvar::new());
    let mut entries = Vec::with_capacity(cases.len());
    let mut refused = None;
    let began = Instant::now();

    // Runs cases until none is left or the run stops, handing each entry to `emit`.
    let work = |backend: &mut dyn Backend, emit: &mut dyn FnMut(Entry)| {
        let mut timeouts = TimeoutStreak::new(options.max_consecutive_timeouts);
        while !stop.load(Ordering::SeqCst) {
            if let Some(deadline) = options.deadline
                && began.elapsed() >= deadline
            {
                halt(&stop, &stopped, Stopped::Deadline(deadline));
                break;
            }
            let index = next.fetch_add(1, Ordering::SeqCst);
            let Some(loaded) = cases.get(index) else {
                break;
            };
            let entry = judge(backend, index, loaded, options);
            let too_many = timeouts.after(&entry.report.verdict);
            emit(entry);
            if let Some(why) = too_many {
                halt(&stop, &stopped, why);
            }
        }
    };
    // Blocks until the hellos are compared; whether this worker may run.
    let wait_for_go = || {
        let mut decided = go.0.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(ok) = *decided {
                return ok;
            }
            decided = go.1.wait(decided).unwrap_or_else(|e| e.into_inner());
        }
    };

    std::thread::scope(|scope| {
        for worker in 1..instances(jobs, cases.len()) {
            let (send, say_hello) = (send.clone(), say_hello.clone());
            let (work, wait_for_go) = (&work, &wait_for_go);
            scope.spawn(move || match open() {
                Ok(mut backend) => {
                    let _ = say_hello.send((worker + 1, backend.name(), backend.capabilities()));
                    drop(say_hello);
                    if wait_for_go() {
                        work(backend.as_mut(), &mut |entry| {
                            // The receiver lives until every worker has ended.
                            let _ = send.send(entry);
                        });
                    }
                }
                Err(why) => eprintln!("note: job {} could not open its backend: {why}", worker + 1),
            });
        }
        drop((send, say_hello));
        // Every worker has said hello or failed to open (its sender is dropped either way).
        for (job, other_name, other) in hellos.iter() {
            if let Some(difference) = hello_difference((&name, &claimed), (&other_name, &other)) {
                refused.get_or_insert(format!(
                    "job {job}'s backend said another hello than job 1's, and every process of one \
                     run must say the same; the run is refused: {difference}"
                ));
            }
        }
        {
            let mut decided = go.0.lock().unwrap_or_else(|e| e.into_inner());
            *decided = Some(refused.is_none());
            go.1.notify_all();
        }
        if refused.is_some() {
            return;
        }
        // This thread is the first worker, and hands out the others' entries between its cases.
        let mut take = |entry: Entry, entries: &mut Vec<Entry>| {
            progress(&cases[entry.index], &entry);
            entries.push(entry);
        };
        work(first.as_mut(), &mut |entry| {
            take(entry, &mut entries);
            for other in receive.try_iter() {
                take(other, &mut entries);
            }
        });
        // Blocks until every other worker has ended (all senders dropped).
        for other in receive.iter() {
            take(other, &mut entries);
        }
    });
    if let Some(why) = refused {
        return Err(why);
    }
    entries.sort_by_key(|e| e.index);
    let stopped = stopped.into_inner().unwrap_or_else(|e| e.into_inner());
    Ok(SuiteResult {
        backend: name,
        levels: super::checked_levels(&claimed.levels, &options.levels),
        entries,
        selected: cases.len(),
        stopped,
    })
}

/// Stops every worker, keeping the first reason given.
fn halt(stop: &AtomicBool, stopped: &Mutex<Option<Stopped>>, why: Stopped) {
    let mut slot = stopped.lock().unwrap_or_else(|e| e.into_inner());
    slot.get_or_insert(why);
    stop.store(true, Ordering::SeqCst);
}
