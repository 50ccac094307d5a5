//! `--jobs N`: one selection of cases through N instances of a backend at once (N adapter
//! processes, or N threads of an in-process backend), with the verdicts and the report order
//! of a run through one.
//!
//! Workers take the next case from a shared counter, so a slow case holds up one worker only.
//! The entries are put back in case order at the end. The stop rules hold across workers: the
//! deadline is the run's, and one instance timing out `--max-timeouts` times in a row stops
//! them all (a hanging adapter costs the same wall time as with one job).

use super::suite::{judge, Entry, Stopped, SuiteOptions, SuiteResult, TimeoutStreak};
use crate::backend::Backend;
use crate::case::LoadedCase;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::Instant;

/// Opens one more instance of the backend, in the worker thread that will use it.
pub type OpenBackend<'a> = dyn Fn() -> Result<Box<dyn Backend>, String> + Sync + 'a;

/// Runs `cases` through `first` and `jobs - 1` more instances made by `open`, calling
/// `progress` (on this thread) as cases finish. A worker whose instance cannot be opened
/// leaves its share to the others and says why on stderr; the run needs only `first`.
///
/// ```
/// use bcast_conformance::backend::registry::{open_backend, AdapterLimits};
/// use bcast_conformance::case::load_file;
/// use bcast_conformance::runner::jobs::run_suite_jobs;
/// use bcast_conformance::runner::suite::{run_suite, SuiteOptions};
/// let cases = load_file("tests/data/expand.json".as_ref()).unwrap();
/// let open = || open_backend("reference", AdapterLimits::default());
/// let options = SuiteOptions::default();
/// let three = run_suite_jobs(open().unwrap(), &open, 3, &cases, &options, |_, _| {});
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
) -> SuiteResult {
    let claimed = first.capabilities().levels;
    let name = first.name();
    let began = Instant::now();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let stopped: Mutex<Option<Stopped>> = Mutex::new(None);
    let (send, receive) = mpsc::channel::<Entry>();
    let mut entries = Vec::with_capacity(cases.len());

    // Runs cases until none is left or the run stops, handing each entry to `emit`.
    let work = |backend: &mut dyn Backend, emit: &mut dyn FnMut(Entry)| {
        let mut timeouts = TimeoutStreak::new(options.max_consecutive_timeouts);
        while !stop.load(Ordering::SeqCst) {
            if let Some(deadline) = options.deadline {
                if began.elapsed() >= deadline {
                    halt(&stop, &stopped, Stopped::Deadline(deadline));
                    break;
                }
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

    std::thread::scope(|scope| {
        for worker in 1..jobs.max(1) {
            let send = send.clone();
            let work = &work;
            scope.spawn(move || match open() {
                Ok(mut backend) => work(backend.as_mut(), &mut |entry| {
                    // The receiver lives until every worker has ended.
                    let _ = send.send(entry);
                }),
                Err(why) => eprintln!("note: job {} could not open its backend: {why}", worker + 1),
            });
        }
        drop(send);
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
    entries.sort_by_key(|e| e.index);
    let stopped = stopped.into_inner().unwrap_or_else(|e| e.into_inner());
    SuiteResult {
        backend: name,
        levels: super::checked_levels(&claimed, &options.levels),
        entries,
        selected: cases.len(),
        stopped,
    }
}

/// Stops every worker, keeping the first reason given.
fn halt(stop: &AtomicBool, stopped: &Mutex<Option<Stopped>>, why: Stopped) {
    let mut slot = stopped.lock().unwrap_or_else(|e| e.into_inner());
    slot.get_or_insert(why);
    stop.store(true, Ordering::SeqCst);
}
