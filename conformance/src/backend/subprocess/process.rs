//! A child process spoken to in lines, which may misbehave in every way: it can crash, hang,
//! flood stderr, or never read its input. Reading, writing and draining stderr each happen on
//! a thread of their own, so the runner only ever waits on a channel with a timeout.
//!
//! Ending a child ends everything it started. The child leads a session (and so a process
//! group) of its own. Once it has exited, by itself or killed, and before it is reaped, its
//! group is killed, and on Linux every other process it left behind too (see [`reaper`]).

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// The default longest line the runner reads from an adapter (a longer one is garbage).
pub const MAX_LINE_BYTES: u64 = 256 << 20;
/// How much of the adapter's stderr is kept for failure reports.
const STDERR_TAIL_BYTES: usize = 2048;
/// How long a child may take to exit once its input is closed.
const EXIT_GRACE: Duration = Duration::from_millis(500);

/// What reading the next line gave instead of a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadFailure {
    /// Nothing arrived in time.
    Timeout,
    /// The output ended (the process exited or closed stdout), or could not be read.
    Closed(String),
    /// A line that is not UTF-8 or is too long.
    Garbage(String),
}

enum Event {
    Line(String),
    Garbage(String),
    Closed(String),
}

/// A running adapter process.
pub struct LineProcess {
    child: Child,
    lines: Receiver<Event>,
    input: Option<Sender<String>>,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    /// Ends (disconnects) when the child's stderr reaches end of file.
    stderr_done: Receiver<()>,
    closed: Option<String>,
    /// Set once the child is ended and reaped. Its pid, and so the ids of the group and
    /// session it led, may then be reused: they are never signalled after that.
    ended: bool,
    /// The exit status, once reaped (`None` if reaping failed).
    status: Option<ExitStatus>,
}

impl LineProcess {
    /// Starts `argv` with piped stdin, stdout and stderr, in a session of its own; lines of
    /// its output longer than `max_line_bytes` are garbage.
    pub fn spawn(argv: &[String], max_line_bytes: u64) -> Result<LineProcess, String> {
        let (program, args) = argv.split_first().ok_or("empty adapter command")?;
        let mut command = Command::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        isolate(&mut command);
        #[cfg(target_os = "linux")]
        let spawned = reaper::spawn(&mut command);
        #[cfg(not(target_os = "linux"))]
        let spawned = command.spawn();
        let child = spawned.map_err(|e| format!("cannot start {program:?}: {e}"))?;
        let (line_tx, lines) = mpsc::channel();
        let (input, input_rx) = mpsc::channel::<String>();
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let (done_tx, stderr_done) = mpsc::channel::<()>();
        // Built at once so that every way out below ends the child (see `Drop`).
        let mut process = LineProcess {
            child,
            lines,
            input: Some(input),
            stderr: Arc::clone(&tail),
            stderr_done,
            closed: None,
            ended: false,
            status: None,
        };
        let child = &mut process.child;
        let (stdin, stdout, stderr) =
            match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
                (Some(i), Some(o), Some(e)) => (i, o, e),
                _ => return Err("the adapter's pipes could not be opened".to_string()),
            };
        thread::spawn(move || read_lines(stdout, line_tx, max_line_bytes));
        thread::spawn(move || write_lines(stdin, input_rx));
        thread::spawn(move || {
            drain_stderr(stderr, tail);
            drop(done_tx);
        });
        Ok(process)
    }

    /// The process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Queues one line (a newline is added) for the child's stdin. Never blocks.
    pub fn send(&self, line: String) {
        if let Some(input) = &self.input {
            // A send error means the writer ended because the child stopped reading: the
            // reply will then be missing, which is where the failure is reported.
            let _ = input.send(line);
        }
    }

    /// The next line of the child's stdout, waiting at most `timeout`.
    pub fn recv_line(&mut self, timeout: Duration) -> Result<String, ReadFailure> {
        if let Some(why) = &self.closed {
            return Err(ReadFailure::Closed(why.clone()));
        }
        match self.lines.recv_timeout(timeout) {
            Ok(Event::Line(line)) => Ok(line),
            Ok(Event::Garbage(what)) => Err(ReadFailure::Garbage(what)),
            Ok(Event::Closed(why)) => {
                self.closed = Some(why.clone());
                Err(ReadFailure::Closed(why))
            }
            Err(RecvTimeoutError::Timeout) => Err(ReadFailure::Timeout),
            Err(RecvTimeoutError::Disconnected) => {
                Err(ReadFailure::Closed("output ended".to_string()))
            }
        }
    }

    /// The exit status, waiting at most `wait` for the child to exit. Once it has exited,
    /// what it left behind is ended and it is reaped.
    pub fn exit_status(&mut self, wait: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + wait;
        loop {
            if self.ended {
                return self.status;
            }
            if self.has_exited() {
                self.end();
                return self.status;
            }
            if Instant::now() >= deadline {
                return None;
            }
            thread::sleep(Duration::from_millis(5));
        }
    }

    /// The last bytes the child wrote to stderr, as text. Once the child has exited, waits
    /// briefly for the drain to reach the end, so its last words are not lost.
    pub fn stderr_tail(&self) -> String {
        if self.ended {
            let _ = self.stderr_done.recv_timeout(Duration::from_secs(2));
        }
        let tail = self
            .stderr
            .lock()
            .map(|t| t.iter().copied().collect::<Vec<u8>>());
        String::from_utf8_lossy(&tail.unwrap_or_default())
            .trim()
            .to_string()
    }

    /// Kills the child with everything it started, and reaps it.
    pub fn kill(&mut self) {
        if self.ended {
            return;
        }
        #[cfg(unix)]
        if let Ok(pid) = libc::pid_t::try_from(self.child.id()) {
            kill_group(pid);
        }
        let _ = self.child.kill();
        self.end();
    }

    /// Closes stdin, gives the child a moment to exit, then kills it if it has not; either
    /// way, ends everything it started.
    pub fn shut_down(&mut self) {
        self.input = None;
        if self.exit_status(EXIT_GRACE).is_none() {
            self.kill();
        }
    }

    /// Whether the child has exited, without reaping it (so that its ids stay reserved).
    #[cfg(unix)]
    fn has_exited(&mut self) -> bool {
        match libc::pid_t::try_from(self.child.id()) {
            // Not waitable: reaped elsewhere; `end` then only collects the error.
            Ok(pid) => exited(pid, false).unwrap_or(true),
            Err(_) => !matches!(self.child.try_wait(), Ok(None)),
        }
    }

    #[cfg(not(unix))]
    fn has_exited(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }

    /// Waits for the child, exited or sent SIGKILL, to exit; kills its group and, on Linux,
    /// what else it left (see [`reaper`]); then reaps it.
    ///
    /// The order is what makes the signals safe: until the child is reaped its pid cannot be
    /// reused, so no other group or session can take that number, and `kill(-pid)` and the
    /// session sweep reach only what the child started. After reaping, the freed pid could
    /// come to name an unrelated group.
    fn end(&mut self) {
        if self.ended {
            return;
        }
        self.ended = true;
        #[cfg(unix)]
        let unreaped = libc::pid_t::try_from(self.child.id())
            .ok()
            .filter(|&pid| exited(pid, true) == Some(true));
        #[cfg(unix)]
        if let Some(pid) = unreaped {
            kill_group(pid);
        }
        // Held until the child is reaped and unregistered, so that no other sweep meanwhile
        // takes it for an escapee.
        #[cfg(target_os = "linux")]
        let mut adapters = reaper::adapters();
        #[cfg(target_os = "linux")]
        if let Some(pid) = unreaped {
            reaper::sweep(pid, &adapters);
        }
        self.status = self.child.wait().ok();
        #[cfg(target_os = "linux")]
        if let Ok(pid) = libc::pid_t::try_from(self.child.id()) {
            adapters.remove(&pid);
        }
    }
}

impl Drop for LineProcess {
    fn drop(&mut self) {
        self.shut_down();
    }
}

/// Makes the child lead a new session (so a new group), which its descendants can leave only
/// by `setsid` and nobody else can join; on Linux also a child subreaper (kept across exec),
/// so that what it orphans while it runs stays below it (see [`reaper`]).
#[cfg(unix)]
fn isolate(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the forked child before exec and makes only
    // async-signal-safe system calls, touching no memory shared with the parent.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            #[cfg(target_os = "linux")]
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong, 0, 0, 0);
            Ok(())
        });
    }
}

/// SIGKILLs the process group led by `pid`, which must be an unreaped child of ours.
#[cfg(unix)]
fn kill_group(pid: libc::pid_t) {
    // SAFETY: kill(2) touches no memory of ours.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
}

/// Whether the child `pid` has exited, waiting for that if `block`, without reaping it;
/// `None` if it cannot be waited for.
#[cfg(unix)]
fn exited(pid: libc::pid_t, block: bool) -> Option<bool> {
    let id = libc::id_t::try_from(pid).ok()?;
    let mut options = libc::WEXITED | libc::WNOWAIT;
    if !block {
        options |= libc::WNOHANG;
    }
    loop {
        // SAFETY: an all-zero siginfo_t is valid, and waitid writes only into it. It is left
        // or set to zero when no child has exited (under WNOHANG).
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        if unsafe { libc::waitid(libc::P_PID, id, &mut info, options) } == 0 {
            return Some(info.si_signo != 0);
        }
        if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return None;
        }
    }
}

/// Ending what escaped an adapter's session, on Linux.
///
/// The runner is a child subreaper, and so is every adapter (see [`isolate`]); an orphan is
/// adopted by its nearest living subreaper ancestor. So what a running adapter starts stays
/// below it, even after a `setsid` and a double fork, and what an exited adapter left becomes
/// a child of the runner. When adapter X has exited but is not yet reaped, [`sweep`] kills:
/// - every process in X's session (its descendants that did not call `setsid`);
/// - every child of the runner in a session that is neither the runner's nor a live
///   adapter's, with its whole session: the escapee of an adapter that has exited (an
///   adapter that runs still holds its escapees below it);
///
/// and reaps those that are children of the runner, over and over until none is left.
///
/// Never touched: live adapters (the registry [`adapters`]), what they started while they run
/// (below them, or in their sessions), and children that other code of the runner's starts
/// in the runner's session (nothing else in this crate starts processes; a child started in
/// a new session would be taken for an escapee). Spawning and sweeping hold the registry's
/// lock, so no sweep sees an adapter between its `setsid` and its registration, and a sweep
/// reaps only processes it targets, never a live adapter whose status `Child::wait` needs.
///
/// Every id stays valid while it is used: X's session while X is unreaped, an escapee's
/// session while the escapee, a child of ours, is (it is reaped only after the kills of a
/// pass); and each process is checked again and signalled through a pidfd, so a pid freed and
/// reused since the scan is never signalled (a plain `kill` where pidfds are unavailable).
#[cfg(target_os = "linux")]
mod reaper {
    use std::collections::BTreeSet;
    use std::io;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::process::{Child, Command};
    use std::sync::{Mutex, MutexGuard, Once, PoisonError};
    use std::thread;
    use std::time::{Duration, Instant};

    use libc::{c_int, pid_t};

    /// How long a sweep may go on for processes that take their time to die.
    const SWEEP_LIMIT: Duration = Duration::from_secs(5);

    /// The pid (which is also the session id) of every adapter started and not yet reaped.
    static ADAPTERS: Mutex<BTreeSet<pid_t>> = Mutex::new(BTreeSet::new());

    /// The registry of live adapters, locked.
    pub(super) fn adapters() -> MutexGuard<'static, BTreeSet<pid_t>> {
        ADAPTERS.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Makes the runner a child subreaper (once), then spawns and registers an adapter.
    pub(super) fn spawn(command: &mut Command) -> io::Result<Child> {
        static ADOPT: Once = Once::new();
        // SAFETY: prctl(2) with integer arguments touches no memory of ours. On failure,
        // orphans go to init and escape; the session is still swept.
        ADOPT.call_once(|| unsafe {
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong, 0, 0, 0);
        });
        let mut adapters = adapters();
        let child = command.spawn()?;
        if let Ok(pid) = pid_t::try_from(child.id()) {
            adapters.insert(pid);
        }
        Ok(child)
    }

    /// A line of `/proc/PID/stat`, in part.
    struct Stat {
        pid: pid_t,
        zombie: bool,
        ppid: pid_t,
        session: pid_t,
    }

    fn stat(pid: pid_t) -> Option<Stat> {
        let text = std::fs::read(format!("/proc/{pid}/stat")).ok()?;
        // The command name, in parentheses, may hold anything: the fields follow the last ')'.
        let after = text.iter().rposition(|&b| b == b')')?;
        let rest = std::str::from_utf8(&text[after + 1..]).ok()?;
        let mut fields = rest.split_ascii_whitespace();
        let zombie = fields.next()? == "Z";
        let ppid = fields.next()?.parse().ok()?;
        let session = fields.nth(1)?.parse().ok()?;
        Some(Stat {
            pid,
            zombie,
            ppid,
            session,
        })
    }

    fn processes() -> Vec<Stat> {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse().ok())
            .filter_map(stat)
            .collect()
    }

    /// Kills what adapter `adapter` (exited, unreaped, still in `adapters`) left behind.
    pub(super) fn sweep(adapter: pid_t, adapters: &BTreeSet<pid_t>) {
        let me = std::process::id() as pid_t;
        // SAFETY: getsid(2) touches no memory.
        let my_session = unsafe { libc::getsid(0) };
        let deadline = Instant::now() + SWEEP_LIMIT;
        let mut pause = Duration::from_millis(1);
        // Two scans in a row must find nothing: one scan is not a snapshot.
        let mut quiet = 0;
        // Processes the kernel will not let us signal (another user's): not waited for.
        let mut refused = BTreeSet::new();
        while quiet < 2 && Instant::now() < deadline {
            let all = processes();
            let mut doomed = BTreeSet::from([adapter]);
            doomed.extend(
                all.iter()
                    .filter(|p| p.ppid == me && p.session != my_session)
                    .filter(|p| !adapters.contains(&p.session))
                    .map(|p| p.session),
            );
            let is_target =
                |p: &Stat| p.pid != adapter && p.pid != me && doomed.contains(&p.session);
            let targets: Vec<&Stat> = all.iter().filter(|p| is_target(p)).collect();
            for p in &targets {
                if !kill_if(p.pid, &is_target) {
                    refused.insert(p.pid);
                }
            }
            // Only after the kills: reaping frees the ids they rely on.
            for p in targets.iter().filter(|p| p.zombie && p.ppid == me) {
                // SAFETY: waitpid(2) on a zombie child of ours; no status is read.
                unsafe {
                    libc::waitpid(p.pid, std::ptr::null_mut(), libc::WNOHANG);
                }
            }
            // A zombie with another parent is reaped there, or comes to us once it dies.
            let pending = targets
                .iter()
                .any(|p| (!p.zombie && !refused.contains(&p.pid)) || (p.zombie && p.ppid == me));
            quiet = if pending { 0 } else { quiet + 1 };
            thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(16));
        }
    }

    /// SIGKILLs `pid` if, checked again, it still `is_target`; `false` if that was refused.
    fn kill_if(pid: pid_t, is_target: &dyn Fn(&Stat) -> bool) -> bool {
        let still = || stat(pid).is_some_and(|p| is_target(&p));
        // SAFETY: pidfd_open(2) takes integers and returns a new descriptor or -1.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        let Ok(fd) = c_int::try_from(fd) else {
            return true;
        };
        if fd < 0 {
            if last_error() == Some(libc::ESRCH) || !still() {
                return true;
            }
            // SAFETY: kill(2) touches no memory of ours.
            return unsafe { libc::kill(pid, libc::SIGKILL) } == 0
                || last_error() != Some(libc::EPERM);
        }
        // SAFETY: `fd` is a new descriptor that nothing else owns; it is closed on drop.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        // The pidfd pins the process: if `pid` still names a target now, the signal reaches
        // that process, even if it exits and its pid is reused meanwhile.
        if !still() {
            return true;
        }
        // SAFETY: pidfd_send_signal(2) with a live descriptor and no siginfo.
        let sent = unsafe {
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                fd.as_raw_fd(),
                libc::SIGKILL,
                std::ptr::null::<libc::siginfo_t>(),
                0,
            )
        };
        sent == 0 || last_error() != Some(libc::EPERM)
    }

    fn last_error() -> Option<c_int> {
        io::Error::last_os_error().raw_os_error()
    }
}

fn read_lines(stdout: impl Read, out: Sender<Event>, max_line_bytes: u64) {
    let mut reader = BufReader::new(stdout);
    loop {
        let mut buf = Vec::new();
        let read = (&mut reader)
            .take(max_line_bytes)
            .read_until(b'\n', &mut buf);
        let event = match read {
            Ok(0) => Event::Closed("its output ended".to_string()),
            Ok(_) if buf.last() != Some(&b'\n') && buf.len() as u64 >= max_line_bytes => {
                Event::Garbage(format!("a line longer than {max_line_bytes} bytes"))
            }
            Ok(_) => match String::from_utf8(buf) {
                Ok(mut line) => {
                    // In place: a line may be hundreds of MiB.
                    let len = line.trim_end_matches(['\n', '\r']).len();
                    line.truncate(len);
                    Event::Line(line)
                }
                Err(_) => Event::Garbage("a line that is not UTF-8".to_string()),
            },
            Err(e) => Event::Closed(format!("its output could not be read: {e}")),
        };
        let last = matches!(event, Event::Closed(_) | Event::Garbage(_));
        if out.send(event).is_err() || last {
            return;
        }
    }
}

fn write_lines(mut stdin: impl Write, input: Receiver<String>) {
    for line in input {
        let ok = stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.write_all(b"\n"))
            .and_then(|()| stdin.flush());
        if ok.is_err() {
            return;
        }
    }
}

fn drain_stderr(mut stderr: impl Read, tail: Arc<Mutex<VecDeque<u8>>>) {
    let mut buf = [0u8; 4096];
    while let Ok(n) = stderr.read(&mut buf) {
        if n == 0 {
            return;
        }
        if let Ok(mut t) = tail.lock() {
            t.extend(&buf[..n]);
            let excess = t.len().saturating_sub(STDERR_TAIL_BYTES);
            t.drain(..excess);
        }
    }
}
