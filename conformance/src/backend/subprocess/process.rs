//! A child process spoken to in lines, which may misbehave in every way: it can crash, hang,
//! flood stderr, or never read its input. Reading, writing and draining stderr each happen on
//! a thread of their own, so the runner only ever waits on a channel with a timeout; a hung
//! child is killed with its whole process group.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// The longest line the runner reads from an adapter (a longer one is garbage).
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
    /// Set once the child is reaped; its pid (and so its group id) may then be reused, so
    /// the group is never signalled after that.
    status: Option<ExitStatus>,
}

impl LineProcess {
    /// Starts `argv` with piped stdin, stdout and stderr, in a process group of its own.
    pub fn spawn(argv: &[String]) -> Result<LineProcess, String> {
        let (program, args) = argv.split_first().ok_or("empty adapter command")?;
        let mut command = Command::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot start {program:?}: {e}"))?;
        let (stdin, stdout, stderr) =
            match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
                (Some(i), Some(o), Some(e)) => (i, o, e),
                _ => return Err("the adapter's pipes could not be opened".to_string()),
            };
        let (line_tx, lines) = mpsc::channel();
        thread::spawn(move || read_lines(stdout, line_tx));
        let (input, input_rx) = mpsc::channel::<String>();
        thread::spawn(move || write_lines(stdin, input_rx));
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let sink = Arc::clone(&tail);
        let (done_tx, stderr_done) = mpsc::channel::<()>();
        thread::spawn(move || {
            drain_stderr(stderr, sink);
            drop(done_tx);
        });
        Ok(LineProcess {
            child,
            lines,
            input: Some(input),
            stderr: tail,
            stderr_done,
            closed: None,
            status: None,
        })
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

    /// The exit status, waiting briefly for the child to finish exiting.
    pub fn exit_status(&mut self, wait: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + wait;
        loop {
            if self.status.is_none() {
                self.status = self.child.try_wait().ok().flatten();
            }
            if self.status.is_some() {
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
        if self.status.is_some() {
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

    /// Kills the child and every process of its group, and reaps it.
    pub fn kill(&mut self) {
        if self.status.is_some() {
            return;
        }
        #[cfg(unix)]
        if let Ok(pid) = libc::pid_t::try_from(self.child.id()) {
            // SAFETY: kill(2) with a negative pid signals the process group the child leads
            // (spawned with process_group(0)); it touches no memory of ours.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        let _ = self.child.kill();
        self.status = self.child.wait().ok();
    }

    /// Closes stdin, gives the child a moment to exit, then kills it if it has not.
    pub fn shut_down(&mut self) {
        self.input = None;
        if self.exit_status(EXIT_GRACE).is_none() {
            self.kill();
        }
    }
}

impl Drop for LineProcess {
    fn drop(&mut self) {
        self.shut_down();
    }
}

fn read_lines(stdout: impl Read, out: Sender<Event>) {
    let mut reader = BufReader::new(stdout);
    loop {
        let mut buf = Vec::new();
        let read = (&mut reader)
            .take(MAX_LINE_BYTES)
            .read_until(b'\n', &mut buf);
        let event = match read {
            Ok(0) => Event::Closed("its output ended".to_string()),
            Ok(_) if buf.last() != Some(&b'\n') && buf.len() as u64 >= MAX_LINE_BYTES => {
                Event::Garbage(format!("a line longer than {MAX_LINE_BYTES} bytes"))
            }
            Ok(_) => match String::from_utf8(buf) {
                Ok(line) => Event::Line(line.trim_end_matches(['\n', '\r']).to_string()),
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
