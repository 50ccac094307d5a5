//! Nothing an adapter starts outlives it (`tests/adapters/descendants.py`): whether the adapter
//! exits by itself at the end of its input or is killed for hanging, the runner ends every
//! process it left, whether in its process group, in a group or session of its own, or
//! double-forked; and ending one adapter spares what another, still running, started.
#![cfg(target_os = "linux")]

use bcast_conformance::backend::subprocess::{AdapterConfig, SubprocessBackend, MAX_LINE_BYTES};
use bcast_conformance::backend::{Backend, FailureKind};
use bcast_conformance::case::{load_file, Case};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// Far beyond what any test takes on a loaded machine: it only stops a hung runner.
const WATCHDOG: Duration = Duration::from_secs(180);

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn cases() -> Vec<Case> {
    let loaded = load_file(&manifest().join("tests/data/numel.json")).expect("numel cases load");
    loaded.into_iter().map(|c| c.case).collect()
}

/// `descendants.py KINDS PID_FILE [HANG_AT]`.
fn config(kinds: &str, pid_file: &Path, hang_at: Option<usize>) -> AdapterConfig {
    let script = manifest().join("tests/adapters/descendants.py");
    let mut command = vec![
        "python3".to_string(),
        script.display().to_string(),
        kinds.to_string(),
        pid_file.display().to_string(),
    ];
    command.extend(hang_at.map(|n| n.to_string()));
    AdapterConfig {
        command,
        // Generous, so that no answer times out on a loaded machine: only the hang test waits
        // this long.
        case_timeout: Duration::from_secs(10),
        handshake_timeout: Duration::from_secs(10),
        max_failed_starts: 3,
        max_line_bytes: MAX_LINE_BYTES,
    }
}

/// Runs `f` on a thread and fails the test if it takes longer than the watchdog.
fn within<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(WATCHDOG) {
        Ok(value) => value,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("the runner hung (watchdog expired)"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("the test's thread panicked"),
    }
}

/// `(state, ppid, start time)` from `/proc/PID/stat`, or `None` once no such process exists.
fn stat(pid: i32) -> Option<(char, i32, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = text.rsplit_once(')')?.1.split_whitespace().collect();
    // Fields 3 (state), 4 (ppid) and 22 (start time) of proc(5).
    let state = fields.first()?.chars().next()?;
    Some((
        state,
        fields.get(1)?.parse().ok()?,
        fields.get(19)?.parse().ok()?,
    ))
}

/// A process an adapter started, identified by its pid and start time.
#[derive(Debug, Clone)]
struct Started {
    kind: String,
    pid: i32,
    adapter: i32,
    start: u64,
}

impl Started {
    /// The process's state and parent if it still exists (a zombie still exists: it is gone
    /// only once reaped), or `None`.
    fn still_there(&self) -> Option<String> {
        match stat(self.pid) {
            Some((state, ppid, start)) if start == self.start => Some(format!(
                "{self:?} is still there: state {state}, parent {ppid}"
            )),
            _ => None,
        }
    }
}

/// The processes the adapter's starts recorded in `pid_file` after the first `skip`; each
/// must be running.
fn started(pid_file: &Path, skip: usize) -> Vec<Started> {
    let text = std::fs::read_to_string(pid_file).expect("the adapter recorded its processes");
    text.lines()
        .skip(skip)
        .map(|line| {
            let parts: Vec<&str> = line.split_whitespace().collect();
            let pid: i32 = parts[1].parse().unwrap();
            let (state, _, start) = stat(pid).unwrap_or_else(|| panic!("{line}: not running"));
            assert_ne!(state, 'Z', "{line}: already exited");
            Started {
                kind: parts[0].to_string(),
                pid,
                adapter: parts[2].parse().unwrap(),
                start,
            }
        })
        .collect()
}

/// Kills what is still there of its processes when dropped, so that a failing test leaves
/// nothing behind either.
struct Cleanup(Vec<Started>);

impl Drop for Cleanup {
    fn drop(&mut self) {
        for p in &self.0 {
            if p.still_there().is_some() {
                // SAFETY: kill(2) touches no memory; the pid and start time were just checked.
                unsafe {
                    libc::kill(p.pid, libc::SIGKILL);
                }
            }
        }
    }
}

/// Asserts that every one of `processes` is gone (killed and reaped); survivors are killed.
fn assert_gone(processes: &[Started], when: &str) {
    let survivors: Vec<String> = processes.iter().filter_map(Started::still_there).collect();
    drop(Cleanup(processes.to_vec()));
    assert!(survivors.is_empty(), "{when}: {survivors:#?}");
}

/// A child of the test's own, killed and reaped when dropped.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn assert_running(processes: &[Started], when: &str) {
    for p in processes {
        match stat(p.pid) {
            Some((state, _, start)) if start == p.start && state != 'Z' => {}
            other => panic!("{when}: {p:?} no longer runs ({other:?})"),
        }
    }
}

/// Starts an adapter that leaves `kinds` running, runs every case through it (each passes),
/// drops it, and returns what it had started.
fn run_and_drop(kinds: &'static str) -> Vec<Started> {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pids");
    let config = config(kinds, &pid_file, None);
    let processes = within(move || {
        let mut backend = SubprocessBackend::new(config);
        assert_eq!(backend.start_error(), None);
        let processes = started(&pid_file, 0);
        let _cleanup = Cleanup(processes.clone());
        for case in cases() {
            let outcome = backend.run(&case);
            assert!(outcome.is_ok(), "{}: {outcome:?}", case.id);
        }
        drop(backend);
        processes
    });
    assert_eq!(processes.len(), kinds.split(',').count());
    processes
}

#[test]
fn a_child_in_the_adapters_group_is_ended_when_the_adapter_exits_by_itself() {
    let processes = run_and_drop("group");
    assert_gone(
        &processes,
        "after the adapter exited at the end of its input",
    );
}

#[test]
fn children_in_a_group_or_a_session_of_their_own_are_ended() {
    let processes = run_and_drop("pgroup,session");
    assert_gone(
        &processes,
        "after the adapter exited at the end of its input",
    );
}

#[test]
fn a_double_forked_daemon_is_ended() {
    let processes = run_and_drop("daemon");
    assert_gone(
        &processes,
        "after the adapter exited at the end of its input",
    );
}

#[test]
fn a_hung_adapter_is_killed_with_everything_it_started() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pids");
    let config = config("group,pgroup,session,daemon", &pid_file, Some(1));
    let (outcomes, first, second, first_survivors) = within(move || {
        let mut backend = SubprocessBackend::new(config);
        let first = started(&pid_file, 0);
        let _cleanup_first = Cleanup(first.clone());
        let outcomes: Vec<_> = cases().iter().map(|case| backend.run(case)).collect();
        let second = started(&pid_file, first.len());
        let _cleanup_second = Cleanup(second.clone());
        assert!(second
            .iter()
            .all(|p| p.adapter == backend.pid().unwrap() as i32));
        // What the first start left must be gone before the run ends, while the restarted
        // adapter and what it started still run.
        let still: Vec<String> = first.iter().filter_map(Started::still_there).collect();
        assert_running(&second, "while the restarted adapter runs");
        drop(backend);
        (outcomes, first, second, still)
    });
    let timed_out = outcomes[1].as_ref().expect_err("case 1 hangs");
    assert_eq!(timed_out.kind, FailureKind::TimedOut, "{timed_out}");
    assert!(timed_out.message.contains("was killed"), "{timed_out}");
    for (i, outcome) in outcomes.iter().enumerate().filter(|(i, _)| *i != 1) {
        assert!(outcome.is_ok(), "case {i}: {outcome:?}");
    }
    assert_eq!((first.len(), second.len()), (4, 4));
    assert!(
        first_survivors.is_empty(),
        "after the hung adapter was killed: {first_survivors:#?}"
    );
    assert_gone(&second, "after the restarted adapter exited");
}

#[test]
fn ending_one_adapter_spares_what_another_still_running_started() {
    let dir = tempfile::tempdir().unwrap();
    let (a_file, b_file) = (dir.path().join("a"), dir.path().join("b"));
    let (a_config, b_config) = (
        config("session,daemon", &a_file, None),
        config("session,daemon", &b_file, None),
    );
    within(move || {
        // A child of the runner's own, as other code in the process might start.
        let own = std::process::Command::new("sleep")
            .arg("1000")
            .spawn()
            .unwrap();
        let mut own = KillOnDrop(own);
        let mut a = SubprocessBackend::new(a_config);
        let mut b = SubprocessBackend::new(b_config);
        let case = &cases()[0];
        assert!(a.run(case).is_ok() && b.run(case).is_ok());
        let (a_started, b_started) = (started(&a_file, 0), started(&b_file, 0));
        let _cleanup = Cleanup([a_started.clone(), b_started.clone()].concat());
        let b_pid = b.pid().unwrap() as i32;
        // The orphaned daemon was adopted by its adapter, not by the runner.
        let daemon = b_started.iter().find(|p| p.kind == "daemon").unwrap();
        assert_eq!(stat(daemon.pid).map(|s| s.1), Some(b_pid));

        drop(a);
        let own_status = own.0.try_wait().unwrap();
        let b_answers = b.run(case).is_ok();
        assert_gone(&a_started, "after the first adapter ended");
        assert_running(&b_started, "while the second adapter runs");
        assert_eq!(
            own_status, None,
            "the runner's own child was ended or reaped"
        );
        assert!(b_answers, "the second adapter stopped answering");

        drop(b);
        assert_gone(&b_started, "after the second adapter ended");
        own.0.kill().unwrap();
        let status = own.0.wait().unwrap();
        assert_eq!(status.signal(), Some(libc::SIGKILL), "{status}");
    });
}
