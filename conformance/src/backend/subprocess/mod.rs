//! Any program as a backend, through the JSON-lines protocol of `PROTOCOL.md`: the adapter
//! says hello with its capabilities, then answers one line per case. Whatever it does wrong
//! (crash, hang, garbage, a wrong id, a bad outcome, an early exit, no handshake) fails that
//! case with a [`BackendFailure`] that says what happened; the adapter is restarted when its
//! stream can no longer be trusted, and the run goes on.

mod process;
pub mod protocol;

pub use process::{LineProcess, ReadFailure, MAX_LINE_BYTES};

use super::{hello_difference, Backend, BackendFailure, Capabilities, FailureKind};
use crate::case::{Case, Outcome};
use crate::quote::clip_text;
use protocol::{answer_budget, parse_answer, parse_hello, request_line, Answer};
use std::borrow::Cow;
use std::time::Duration;

/// How to run an adapter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdapterConfig {
    /// The program and its arguments.
    pub command: Vec<String>,
    /// How long one case may take.
    pub case_timeout: Duration,
    /// How long the adapter may take to say hello.
    pub handshake_timeout: Duration,
    /// After this many starts in a row without a handshake, the runner stops trying and every
    /// later case fails at once.
    pub max_failed_starts: u32,
    /// The longest line read from the adapter, in bytes; a longer one is garbage.
    pub max_line_bytes: u64,
}

impl AdapterConfig {
    /// The default per-case timeout.
    pub const DEFAULT_CASE_TIMEOUT: Duration = Duration::from_secs(5);
    /// The default handshake timeout (a Python adapter importing torch needs a few seconds).
    pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(60);

    /// A configuration with the default timeouts, from a shell-like command line.
    ///
    /// ```
    /// use bcast_conformance::backend::subprocess::AdapterConfig;
    /// let config = AdapterConfig::from_command_line("python3 'my adapter.py' --fast").unwrap();
    /// assert_eq!(config.command, ["python3", "my adapter.py", "--fast"]);
    /// assert!(AdapterConfig::from_command_line("  ").is_err());
    /// ```
    pub fn from_command_line(line: &str) -> Result<AdapterConfig, String> {
        let command =
            shell_words::split(line).map_err(|e| format!("bad adapter command {line:?}: {e}"))?;
        if command.is_empty() {
            return Err("empty adapter command".to_string());
        }
        Ok(AdapterConfig {
            command,
            case_timeout: Self::DEFAULT_CASE_TIMEOUT,
            handshake_timeout: Self::DEFAULT_HANDSHAKE_TIMEOUT,
            max_failed_starts: 3,
            max_line_bytes: MAX_LINE_BYTES,
        })
    }
}

/// An adapter process as a [`Backend`].
pub struct SubprocessBackend {
    config: AdapterConfig,
    hello: Option<protocol::Hello>,
    process: Option<LineProcess>,
    failed_starts: u32,
    last_start_error: Option<String>,
}

impl SubprocessBackend {
    /// Starts the adapter and reads its handshake. A failed start is not an error here: it is
    /// reported by [`SubprocessBackend::start_error`] and by every case that cannot run.
    pub fn new(config: AdapterConfig) -> SubprocessBackend {
        let mut backend = SubprocessBackend {
            config,
            hello: None,
            process: None,
            failed_starts: 0,
            last_start_error: None,
        };
        let _ = backend.ensure_started();
        backend
    }

    /// Why the last start failed, if it did.
    pub fn start_error(&self) -> Option<&str> {
        self.last_start_error.as_deref()
    }

    /// The process id of the running adapter, if one runs.
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().map(LineProcess::id)
    }

    fn ensure_started(&mut self) -> Result<(), BackendFailure> {
        if self.process.is_some() {
            return Ok(());
        }
        if self.failed_starts >= self.config.max_failed_starts {
            return Err(BackendFailure::new(
                FailureKind::Crashed,
                format!(
                    "the adapter was not retried after {} failed starts; the last: {}",
                    self.failed_starts,
                    self.last_start_error.as_deref().unwrap_or("unknown")
                ),
            ));
        }
        match self.start().and_then(|started| self.same_hello(started)) {
            Ok((process, hello)) => {
                self.failed_starts = 0;
                self.last_start_error = None;
                self.process = Some(process);
                if self.hello.is_none() {
                    self.hello = Some(hello);
                }
                Ok(())
            }
            Err(why) => {
                self.failed_starts += 1;
                let message = format!("the adapter did not start: {why}");
                self.last_start_error = Some(message.clone());
                Err(BackendFailure::new(FailureKind::Crashed, message))
            }
        }
    }

    fn start(&self) -> Result<(LineProcess, protocol::Hello), String> {
        let mut process = LineProcess::spawn(&self.config.command, self.config.max_line_bytes)?;
        let line = process.recv_line(self.config.handshake_timeout);
        let result = match line {
            Ok(line) => parse_hello(&line),
            Err(ReadFailure::Timeout) => Err(format!(
                "it sent no hello within {} ms",
                self.config.handshake_timeout.as_millis()
            )),
            Err(failure) => Err(describe_read_failure(&mut process, failure, "its hello")),
        };
        match result {
            Ok(hello) => Ok((process, hello)),
            Err(why) => {
                process.kill();
                Err(with_stderr(why, &process))
            }
        }
    }

    /// A restarted adapter must say the hello its first process said: the run is judged by
    /// one claim. Another one is a failed start.
    fn same_hello(
        &self,
        (mut process, hello): (LineProcess, protocol::Hello),
    ) -> Result<(LineProcess, protocol::Hello), String> {
        let Some(first) = &self.hello else {
            return Ok((process, hello));
        };
        match hello_difference(
            (&first.name, &first.capabilities),
            (&hello.name, &hello.capabilities),
        ) {
            None => Ok((process, hello)),
            Some(difference) => {
                process.kill();
                Err(format!(
                    "its hello differs from its first process's, and every process of one run \
                     must say the same: {difference}"
                ))
            }
        }
    }

    /// Sends the case and reads its answer; `Err((kind, failure, restart))` on any misbehaviour.
    fn exchange(&mut self, case: &Case) -> Result<Answer, (FailureKind, String, bool)> {
        let request = request_line(case).map_err(|e| (FailureKind::BadInput, e, false))?;
        let timeout = self.config.case_timeout;
        let budget = answer_budget(case);
        let process = self.process.as_mut().ok_or_else(|| {
            (
                FailureKind::Crashed,
                "the adapter is not running".to_string(),
                true,
            )
        })?;
        process.send(request);
        let line = match process.recv_line(timeout) {
            Ok(line) => line,
            Err(ReadFailure::Timeout) => {
                process.kill();
                let why = format!(
                    "it did not answer within {} ms and was killed",
                    timeout.as_millis()
                );
                return Err((FailureKind::TimedOut, with_stderr(why, process), true));
            }
            Err(failure) => {
                let kind = match failure {
                    ReadFailure::Garbage(_) => FailureKind::BadAnswer,
                    _ => FailureKind::Crashed,
                };
                let why = describe_read_failure(process, failure, "its answer");
                return Err((kind, with_stderr(why, process), true));
            }
        };
        let answer = parse_answer(&line, &case.id, budget);
        drop(line);
        answer.map_err(|bad| {
            if bad.out_of_sync {
                (
                    FailureKind::BadAnswer,
                    with_stderr(bad.message, process),
                    true,
                )
            } else {
                (FailureKind::BadAnswer, bad.message, false)
            }
        })
    }
}

/// Says why a read gave no line: an exit (with its status), a closed output, or garbage.
fn describe_read_failure(process: &mut LineProcess, failure: ReadFailure, what: &str) -> String {
    match failure {
        ReadFailure::Timeout => format!("{what} did not arrive in time"),
        ReadFailure::Garbage(g) => format!("it wrote {g} instead of {what}"),
        ReadFailure::Closed(why) => match process.exit_status(Duration::from_millis(500)) {
            Some(status) => format!("it exited ({status}) before {what}"),
            None => format!("{why} before {what}"),
        },
    }
}

fn with_stderr(why: String, process: &LineProcess) -> String {
    let tail = process.stderr_tail();
    if tail.is_empty() {
        why
    } else {
        format!("{why}; its stderr ends with: {tail}")
    }
}

impl Backend for SubprocessBackend {
    fn name(&self) -> String {
        match &self.hello {
            Some(hello) => hello.name.clone(),
            None => self.config.command.join(" "),
        }
    }

    /// The capabilities of the handshake; until one succeeds, everything (so that cases fail
    /// rather than pass by being skipped).
    fn capabilities(&self) -> Capabilities {
        self.claims().into_owned()
    }

    fn claims(&self) -> Cow<'_, Capabilities> {
        match &self.hello {
            Some(hello) => Cow::Borrowed(&hello.capabilities),
            None => Cow::Owned(Capabilities::everything()),
        }
    }

    fn run(&mut self, case: &Case) -> Result<Outcome, BackendFailure> {
        self.ensure_started()?;
        match self.exchange(case) {
            Ok(Answer::Outcome(outcome)) => Ok(*outcome),
            Ok(Answer::Failure(why)) => Err(BackendFailure::bad_input(format!(
                "the adapter could not run the case: {}",
                clip_text(&why)
            ))),
            Err((kind, why, restart)) => {
                if restart && let Some(mut process) = self.process.take() {
                    process.kill();
                }
                let restarted = if restart { "; restarting it" } else { "" };
                Err(BackendFailure::new(
                    kind,
                    clip_text(&format!("adapter misbehaved: {why}{restarted}")),
                ))
            }
        }
    }
}
