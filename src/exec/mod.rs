//! Executors: run the target once on a candidate input and report what the process did, as a value.
//!
//! One trait at the process seam. [`process`] runs a command per test (the
//! `--exec` mode, the universal fallback); [`forkserver`] drives a harness
//! built with `cmc_runtime` (a fork per test); tests can plug in a closure.

pub mod coverage;
#[cfg(test)]
pub(crate) mod fake;
pub mod forkserver;
pub mod known;
pub mod lanes;
pub mod probe;
pub mod process;
mod spin;
pub mod symbolize;

use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

pub use coverage::Coverage;
pub use forkserver::{ForkServerConfig, ForkServerExecutor, HandshakeError};
pub use lanes::Lanes;
pub use process::{CommandLine, ProcessExecutor, RunningGroup};

/// The cores this process may use (its CPU affinity and quota; 1 when
/// unknown): the default number of workers, and of tests at once for a slow
/// target; whether a fork-server client may poll (`spin`, every test).
/// Read once: the quota comes from cgroup files.
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// How the process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// It exited with this code.
    Exited(i32),
    /// A signal killed it.
    Signaled(i32),
    /// It ran past the time limit and was killed (with its process group).
    Timeout,
    /// Its resident set grew past the memory limit (`--rss-limit-mb`): killed
    /// when caught running, or reported from its peak when it ended without a crash.
    OutOfMemory,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Status::Exited(code) => write!(f, "exited with code {code}"),
            Status::Signaled(signal) => write!(f, "killed by signal {signal} ({})", signal_name(signal)),
            Status::Timeout => f.write_str("timed out"),
            Status::OutOfMemory => f.write_str("ran out of memory (over the --rss-limit-mb limit)"),
        }
    }
}

/// The conventional name of a signal number (`SIGABRT`), or `SIG?`.
pub fn signal_name(signal: i32) -> &'static str {
    nix::sys::signal::Signal::try_from(signal).map_or("SIG?", |s| s.as_str())
}

/// What one run of the target did: a value, never an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// How the process ended.
    pub status: Status,
    /// The last bytes it wrote to stderr (at most [`process::CAPTURE_LIMIT`]).
    pub stderr: Vec<u8>,
    /// Wall time from spawn to exit.
    pub duration: Duration,
    /// The CPU time it used, user and system, when the executor knows it (a
    /// fork server reports it; a command's is not measured).
    pub cpu: Option<Duration>,
    /// The panic as the target's own hook reported it (a fork-server harness
    /// does), when it panicked; `None` when the executor cannot know.
    pub panic: Option<Panic>,
    /// The symbolized stack of a crash by signal, innermost first, when the
    /// process recorded it (a fork-server harness does) and a symbolizer exists.
    pub frames: Option<Vec<crate::trace::parse::Frame>>,
    /// A crash by signal was the stack running out (the fault next to the
    /// stack pointer, as the harness's handler saw it).
    pub stack_overflow: bool,
    /// The key of the value a typed target decoded from the input (harness
    /// mode; see [`known`]): inputs with the same key run the same way, and
    /// one whose key a run already had may be answered with that run's outcome.
    pub value_key: Option<u64>,
    /// The hash of the decoded value's `Debug` rendering, when the target
    /// returned without a crash during a reduction (harness mode; see
    /// [`known`]): a candidate whose value looks alike is answered with that
    /// run's outcome, never with a crash.
    pub alike_key: Option<u64>,
}

/// A panic reported by the process itself rather than parsed from its stderr.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Panic {
    /// The panic's message.
    pub message: String,
    /// `file:line:col`, when the panic had a location.
    pub location: Option<String>,
}

impl Panic {
    /// The fork server's record of a panic.
    pub fn from_record(record: &crate::protocol::PanicRecord) -> Panic {
        let location = (record.line != 0 && !record.file.is_empty())
            .then(|| format!("{}:{}:{}", record.file, record.line, record.column));
        Panic { message: record.message.clone(), location }
    }
}

impl Outcome {
    /// How a process ended, what it wrote and how long it took, with nothing
    /// else known (no CPU time, panic, frames or keys): a command's outcome,
    /// and a fake's.
    pub fn new(status: Status, stderr: Vec<u8>, duration: Duration) -> Outcome {
        Outcome {
            status,
            stderr,
            duration,
            cpu: None,
            panic: None,
            frames: None,
            stack_overflow: false,
            value_key: None,
            alike_key: None,
        }
    }

    /// The captured stderr as text (lossy).
    pub fn stderr_text(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.stderr)
    }
}

/// Runs the target on one input.
pub trait Executor {
    /// Runs it once. An `Err` means the run itself failed (the program could
    /// not be started, the input could not be written), not that it crashed.
    fn run(&mut self, input: &[u8]) -> anyhow::Result<Outcome>;

    /// The structure the last run recorded (the values `arbitrary` built, in a
    /// fork-server harness); none for executors that cannot know.
    fn examples(&self) -> Vec<crate::reduce::Example> {
        Vec::new()
    }

    /// How many inputs it runs at once (1, the default: one at a time).
    fn width(&self) -> usize {
        1
    }

    /// Runs `inputs` ahead, as many at once as [`Executor::width`] says,
    /// keeping each outcome for the `run` that asks for it (speculative tests;
    /// see [`Lanes`]). Does nothing by default.
    fn prefetch(&mut self, _inputs: &[Vec<u8>]) {}

    /// Turns the answering of already-run values ([`known`]) on or off; on
    /// only while a reduction runs. Does nothing by default.
    fn replay_known_values(&mut self, _on: bool) {}

    /// Ends each test after `limit` when that is sooner than the configured
    /// timeout (`None`: the configured timeout again). A run that a shorter
    /// limit ended is a timeout like any other; it is not kept as a known
    /// value. Does nothing by default.
    fn limit_time(&mut self, _limit: Option<Duration>) {}
}
