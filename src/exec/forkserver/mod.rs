//! Fork-server client: start a harness as a fork server, hand it each candidate through shared memory, enforce the timeout, restart it when it dies.
//!
//! The harness is a binary whose `main` is `cmc_runtime::serve`; the wire
//! format is `cmc_protocol`'s. One server runs per executor, started at once
//! (so a binary that is not a harness is reported before any test) and again
//! whenever it dies. Per test:
//!
//! 1. the candidate goes into the shared-memory file and the result area is
//!    cleared; the output file (the children's stderr) is truncated;
//! 2. `Run` goes down the control pipe; the server forks and answers `Started`
//!    with the child's pid, which is also its process group;
//! 3. the client waits on the status pipe until the deadline (after a fast
//!    test, first polling without sleep while a core is spare: [`super::spin`]); the server answers
//!    `Finished` with the raw wait status. Past the deadline the client kills
//!    the child's group with SIGKILL (ESRCH means already gone) and the test is
//!    a timeout; after every test the group gets SIGKILL, so nothing the target
//!    started outlives its test;
//! 4. the stderr tail comes from the output file, and the child's own report
//!    (ok or rejected, the panic's message and location, the recorded
//!    examples, the coverage features of a coverage harness) from shared
//!    memory: [`ForkServerExecutor::last_result`], [`ForkServerExecutor::examples`],
//!    [`ForkServerExecutor::coverage`].
//!
//! The children's stderr goes to a regular file, not a pipe: a chatty child
//! can never block on a full pipe, and no thread has to drain it. Scratch files
//! live in `/dev/shm` when there is one (no disk writes per test). If the
//! server dies during a test (end of file on the status pipe, or a broken
//! control pipe), it is restarted and the test run once more; a second death
//! in a row is an error. The server runs in a process group of its own (Ctrl-C
//! at the terminal does not reach it; [`RunningGroup`] lets the interrupt
//! handler stop the running child) and is killed when the executor is dropped,
//! or by the kernel when the thread that started it exits (`PR_SET_PDEATHSIG`).
//!
//! Over 600 lines (about 690 of code before its tests): the client's one state machine (start, run, time out, restart, the staying child) reads best whole; its wire, shared memory and handshake are already apart (`wire.rs`, `shm.rs`, `handshake.rs`).

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use nix::errno::Errno;
use nix::fcntl::OFlag;
use nix::libc;
use nix::sys::signal::{kill, Signal};
use nix::unistd::{pipe2, Pid};

mod calls;
#[cfg(test)]
mod group_properties;
mod handshake;
mod shm;
mod wire;

pub use handshake::HandshakeError;
use shm::SharedMemory;
use wire::{
    describe_exit, examples_of, prepare_server, read_message, read_response, scratch_dir, signal_of, stop,
    wait_for_finished, wait_status_of, Waited, TIMED_OUT,
};

use super::coverage::Coverage;
use super::known::KnownValues;
use super::process::{last_lines, signal_group, RunningGroup, CAPTURE_LIMIT};
use super::spin::Spinner;
use super::symbolize::Symbolizer;
use super::{Executor, Outcome, Panic, Status};
use crate::protocol::shm::STACK_OVERFLOW;
use crate::protocol::{ChildResult, Hello, Request, Response, ResultKind, StartInfo, ENV_VAR, MESSAGE_LEN, VERSION};

/// How long a freshly started harness has to send its handshake.
pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// The first input capacity: the file is sparse, so room costs nothing until used.
pub const DEFAULT_INPUT_CAPACITY: u32 = 16 << 20;
/// How many examples a child can record.
pub const EXAMPLE_CAPACITY: u32 = 1 << 16;
/// How many bytes of label names a child can record.
pub const LABEL_CAPACITY: u32 = 1 << 16;
/// How many `u32` words of call chains a child can record (4 MiB, sparse
/// until used: tens of thousands of draws at a depth of 30 frames).
pub const CHAIN_CAPACITY: u32 = 1 << 20;
/// How long the server has to report a child it was told to kill.
const STATUS_GRACE: Duration = Duration::from_secs(2);
/// A staying child is ended after this many runs (and a fresh one forked):
/// what a target leaks or caches from run to run stays bounded.
const STAY_RUNS: u32 = 1_000;
/// How often a running child's resident set is compared with the memory limit
/// (a test shorter than this is checked once, by its peak, when it ends).
const RSS_CHECK_INTERVAL: Duration = Duration::from_millis(100);

/// How to start the harness.
#[derive(Clone, Debug)]
pub struct ForkServerConfig {
    /// The harness binary.
    pub program: PathBuf,
    /// Its arguments (a harness ignores them in fork-server mode; kept for wrappers).
    pub args: Vec<OsString>,
    /// The time limit of one test.
    pub timeout: Duration,
    /// How long the harness has to answer the handshake.
    pub handshake_timeout: Duration,
    /// The largest input before the shared memory has to grow (which restarts the server).
    pub input_capacity: u32,
    /// Where the running child's process group is published for the Ctrl-C handler.
    pub running: RunningGroup,
    /// The memory limit of one test in MiB (libFuzzer's `-rss_limit_mb`), 0 for none:
    /// a child whose resident set grows past it is an out-of-memory.
    pub rss_limit_mb: u64,
    /// More environment for the harness (a sanitizer's options).
    pub env: Vec<(OsString, OsString)>,
    /// How many coverage features a run can report ([`ForkServerExecutor::coverage`]);
    /// 0 (the default): children record no coverage. Each takes 4 bytes of
    /// the (sparse) shared-memory file: `1 << 20` is 4 MiB.
    pub feature_capacity: u32,
    /// How many value keys the known-values table holds (a power of two, or
    /// 0: none; see [`super::known`]). Features follow the decoding's code,
    /// not only the value, so a coverage harness must have none.
    pub known_capacity: u32,
}

impl ForkServerConfig {
    /// The defaults for `program` with a per-test `timeout`.
    pub fn new(program: impl Into<PathBuf>, timeout: Duration) -> Self {
        ForkServerConfig {
            program: program.into(),
            args: Vec::new(),
            timeout,
            handshake_timeout: DEFAULT_HANDSHAKE_TIMEOUT,
            input_capacity: DEFAULT_INPUT_CAPACITY,
            running: RunningGroup::default(),
            rss_limit_mb: 0,
            env: Vec::new(),
            feature_capacity: 0,
            known_capacity: super::known::DEFAULT_CAPACITY,
        }
    }
}

/// A running server: its process and our ends of the pipes.
#[derive(Debug)]
struct Server {
    process: Child,
    control: File,
    status: File,
    hello: Hello,
}

/// What one attempt at a test came to.
enum Attempt {
    Done(Outcome),
    /// The server died (or fell out of step); restart it and try again.
    ServerLost(String),
}

/// What reading one message came to.
enum Received {
    Message([u8; MESSAGE_LEN]),
    /// End of file, after these bytes.
    Closed(Vec<u8>),
    /// The deadline passed, after these bytes.
    TimedOut(Vec<u8>),
}

/// Runs each test in a child forked by a harness's fork server.
#[derive(Debug)]
pub struct ForkServerExecutor {
    config: ForkServerConfig,
    /// The shared memory and the output file; removed when the executor is dropped.
    scratch: tempfile::TempDir,
    shm: SharedMemory,
    /// The children's stderr (opened with O_APPEND, truncated before each test).
    output: File,
    server: Option<Server>,
    seq: u32,
    restarts: u32,
    shm_generation: u32,
    last_child: Option<i32>,
    last_result: Option<ChildResult>,
    /// How the last test's child ended.
    last_status: Option<Status>,
    /// The CPU time of the last child that ended by itself (the server's `wait4`).
    last_cpu: Option<Duration>,
    /// Symbolizes crashing children's frames (started at the first crash by signal).
    symbolizer: Symbolizer,
    /// The outcomes of the values run so far.
    known: KnownValues,
    /// A time limit shorter than the configured one ([`Executor::limit_time`]).
    limit: Option<Duration>,
    /// Whether to poll for a test's answers rather than sleep.
    spinner: Spinner,
    /// Whether tests run in a staying child ([`ForkServerExecutor::set_staying`]).
    stay: bool,
    /// The staying child, while one waits for requests.
    staying: Option<Staying>,
    /// A new staying child's answer to its first run, read before the
    /// server's `Started` for it (the child ran before the server answered).
    early: Option<Response>,
}

/// A child that stays between runs (`Request::Run`'s `stay`).
#[derive(Clone, Copy, Debug)]
struct Staying {
    pid: i32,
    /// The request it was forked for: the server's `Finished` names it.
    first_seq: u32,
    /// Runs it has made.
    runs: u32,
}

impl ForkServerExecutor {
    /// Creates the scratch files and starts the server; an error here (typically a
    /// [`HandshakeError`]) means the program cannot be used as a fork server.
    pub fn start(config: ForkServerConfig) -> anyhow::Result<Self> {
        let scratch = scratch_dir()?;
        let shm = SharedMemory::create(scratch.path().join("shm-0"), config.input_capacity.max(1), &config)?;
        let output_path = scratch.path().join("output");
        let output = OpenOptions::new()
            .read(true)
            .append(true)
            .create_new(true)
            .open(&output_path)
            .with_context(|| format!("cannot create the output file {}", output_path.display()))?;
        let program = config.program.clone();
        let mut executor = ForkServerExecutor {
            config,
            scratch,
            shm,
            output,
            server: None,
            seq: 0,
            restarts: 0,
            shm_generation: 0,
            last_child: None,
            last_result: None,
            last_status: None,
            last_cpu: None,
            symbolizer: Symbolizer::new(&program),
            known: KnownValues::default(),
            limit: None,
            spinner: Spinner::new(),
            stay: false,
            staying: None,
            early: None,
        };
        executor.start_server()?;
        Ok(executor)
    }

    /// The harness binary.
    pub fn program(&self) -> &Path {
        &self.config.program
    }

    /// The running server's handshake (its pid, and how many threads it had), if one runs.
    pub fn hello(&self) -> Option<Hello> {
        self.server.as_ref().map(|s| s.hello)
    }

    /// How many times the server died and was started again.
    pub fn restarts(&self) -> u32 {
        self.restarts
    }

    /// The pid (and process group) of the last test's child.
    pub fn last_child(&self) -> Option<i32> {
        self.last_child
    }

    /// What the last test's child reported: ok or rejected, its panic, its examples.
    /// `None` when it could not be read (the target scribbled over it).
    pub fn last_result(&self) -> Option<&ChildResult> {
        self.last_result.as_ref()
    }

    /// The coverage of the last test: `None` unless it returned normally (ok
    /// or rejected; not a crash, a timeout or an out-of-memory) and the
    /// executor has a [`ForkServerConfig::feature_capacity`]. A harness built
    /// without coverage reports `counters == 0` and no features
    /// ([`Coverage::is_instrumented`]).
    pub fn coverage(&self) -> Option<Coverage> {
        let result = self.last_result.as_ref()?;
        let returned = matches!(result.kind, ResultKind::Ok | ResultKind::Rejected);
        let exited = self.last_status == Some(Status::Exited(0));
        result.coverage.clone().filter(|_| returned && exited).map(Coverage::from_record)
    }

    /// The scratch directory (removed on drop).
    pub fn scratch_dir(&self) -> &Path {
        self.scratch.path()
    }

    /// Whether runs go to one staying child ([`ForkServerExecutor::set_staying`]).
    pub fn is_staying(&self) -> bool {
        self.stay
    }

    /// Runs the next tests in one staying child, forked once (and again
    /// after a crash, a timeout or [`STAY_RUNS`] runs), rather than in a
    /// child each: no fork, page faults or exit per test. The target then
    /// runs after earlier runs in the same process, as libFuzzer runs it; its
    /// coverage can depend on them (a cache, a lazy static: decision 0090).
    /// Off ends the staying child.
    pub fn set_staying(&mut self, on: bool) {
        self.stay = on;
        if !on {
            self.end_staying();
        }
    }

    /// Kills the staying child, if any, and reads the server's report of its end.
    fn end_staying(&mut self) {
        let Some(staying) = self.staying.take() else { return };
        if self.kill_child(staying.first_seq, staying.pid).is_err() {
            self.stop_server();
            self.restarts += 1;
        }
    }

    fn start_server(&mut self) -> anyhow::Result<()> {
        let program = self.config.program.display().to_string();
        self.output.set_len(0).context("cannot truncate the output file")?;
        let (control_read, control_write) = pipe2(OFlag::O_CLOEXEC).context("cannot create a pipe")?;
        let (status_read, status_write) = pipe2(OFlag::O_CLOEXEC).context("cannot create a pipe")?;
        let inherited = [control_read.as_raw_fd(), status_write.as_raw_fd()];
        let info = StartInfo::new(inherited[0], inherited[1], Some(2), &self.shm.path);
        let stderr = self.output.try_clone().context("cannot duplicate the output file")?;
        let mut command = Command::new(&self.config.program);
        command
            .args(&self.config.args)
            .env(ENV_VAR, info.encode())
            .env("RUST_BACKTRACE", "0")
            .envs(self.config.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .process_group(0);
        // SAFETY: `prepare_server` only makes async-signal-safe system calls.
        unsafe { command.pre_exec(move || prepare_server(inherited)) };
        let process = command.spawn().with_context(|| {
            format!("cannot start the harness `{program}` (check the path and that it is executable)")
        })?;
        drop((control_read, status_write));
        let mut server = Server {
            process,
            control: File::from(control_write),
            status: File::from(status_read),
            hello: Hello { version: 0, pid: 0, threads: 0 },
        };
        let deadline = Instant::now() + self.config.handshake_timeout;
        let failure = match read_message(&mut server.status, deadline, None)? {
            Received::Message(bytes) => match Response::decode(&bytes) {
                Ok(Response::Hello(hello)) if hello.version == VERSION => {
                    server.hello = hello;
                    self.server = Some(server);
                    return Ok(());
                }
                Ok(Response::Hello(hello)) => HandshakeError::Version { program, found: hello.version },
                _ => HandshakeError::Garbled { program, got: String::from_utf8_lossy(&bytes).into_owned() },
            },
            Received::Closed(bytes) if !bytes.is_empty() => {
                HandshakeError::Garbled { program, got: String::from_utf8_lossy(&bytes).into_owned() }
            }
            Received::Closed(_) => {
                // It closed the pipe: it has exited or is about to.
                let status = server.process.wait().map_or_else(|e| format!("failed ({e})"), |s| describe_exit(&s));
                HandshakeError::Exited { program, status, stderr: self.stderr_excerpt() }
            }
            Received::TimedOut(_) => HandshakeError::Silent {
                program,
                seconds: self.config.handshake_timeout.as_secs_f64(),
                stderr: self.stderr_excerpt(),
            },
        };
        stop(server);
        Err(failure.into())
    }

    fn stop_server(&mut self) {
        self.staying = None;
        self.early = None;
        if let Some(server) = self.server.take() {
            stop(server);
        }
    }

    /// Makes room for an input of `len` bytes: a larger shared-memory file, and a new server to map it.
    fn make_room(&mut self, len: usize) -> anyhow::Result<()> {
        if len <= self.shm.layout.input_capacity as usize {
            return Ok(());
        }
        let capacity = len
            .checked_next_power_of_two()
            .and_then(|c| u32::try_from(c).ok())
            .or(u32::try_from(len).ok())
            .with_context(|| format!("an input of {len} bytes is too large for the fork server (4 GiB at most)"))?;
        self.stop_server();
        self.shm_generation += 1;
        let path = self.scratch.path().join(format!("shm-{}", self.shm_generation));
        let old = std::mem::replace(&mut self.shm, SharedMemory::create(path, capacity, &self.config)?);
        let _ = std::fs::remove_file(old.path);
        self.known.refill(&self.shm.layout, &mut self.shm.map);
        Ok(())
    }

    /// One try at a test on the current server.
    fn attempt(&mut self, input: &[u8]) -> anyhow::Result<Attempt> {
        if self.staying.is_some_and(|s| s.runs >= STAY_RUNS) {
            self.end_staying();
        }
        let seq = self.prepare(input)?;
        let started = Instant::now();
        let deadline = started + self.limit.map_or(self.config.timeout, |limit| limit.min(self.config.timeout));
        let spin = self.spinner.until(started);
        let pid = match self.start_child(seq, deadline, spin)? {
            Ok(pid) => pid,
            Err(why) => return Ok(Attempt::ServerLost(why)),
        };
        let first_seq = self.staying.filter(|s| s.pid == pid).map_or(seq, |s| s.first_seq);
        self.last_child = Some(pid);
        self.config.running.store(pid, Ordering::SeqCst);
        let status = match self.finished_status(seq, first_seq, pid, deadline, spin)? {
            Ok(status) => status,
            Err(why) => {
                // The child dies with the server (PR_SET_PDEATHSIG); its group goes too.
                signal_group(pid, Signal::SIGKILL);
                self.config.running.store(0, Ordering::SeqCst);
                return Ok(Attempt::ServerLost(why));
            }
        };
        let duration = started.elapsed();
        self.spinner.finished(duration);
        if self.staying.is_none() {
            // Whatever the target left running in its group goes now.
            signal_group(pid, Signal::SIGKILL);
        }
        self.config.running.store(0, Ordering::SeqCst);
        Ok(Attempt::Done(self.outcome(status, duration)?))
    }

    /// Puts the input in place and clears the last run's traces; returns the request's number.
    fn prepare(&mut self, input: &[u8]) -> anyhow::Result<u32> {
        let shm = &mut self.shm;
        shm.layout.write_input(&mut shm.map, input).context("the input does not fit the shared memory")?;
        shm.layout.clear_result(&mut shm.map);
        self.output.set_len(0).context("cannot truncate the output file")?;
        self.last_child = None;
        self.last_result = None;
        self.last_status = None;
        self.last_cpu = None;
        self.seq = self.seq.wrapping_add(1);
        Ok(self.seq)
    }

    /// Asks for a run: the child's pid, or why the server is lost. The
    /// server forks a child and answers `Started`, or, while a child stays,
    /// that child reads the request and answers `Started` with its own pid.
    /// A staying child that ended between runs (killed from outside) left
    /// the server's report of its end first: the server read the request.
    /// A new staying child can answer its first run before the server
    /// answers the fork: that answer is kept for [`Self::finished_status`].
    /// The answer is polled for until `spin` ([`spin`]), then waited for.
    fn start_child(
        &mut self,
        seq: u32,
        deadline: Instant,
        spin: Option<Instant>,
    ) -> anyhow::Result<Result<i32, String>> {
        let server = self.server.as_mut().context("no fork server is running")?;
        if let Err(e) = server.control.write_all(&Request::Run { seq, stay: self.stay }.encode()) {
            return Ok(Err(format!("it stopped reading requests ({e})")));
        }
        loop {
            return Ok(match read_response(&mut server.status, deadline, spin)? {
                Ok(Response::Started { seq: s, pid }) if s == seq => Ok(pid),
                Ok(Response::Finished { seq: s, .. }) if self.staying.is_some_and(|st| st.first_seq == s) => {
                    self.staying = None;
                    continue;
                }
                Ok(ran @ Response::Ran { seq: s, .. }) if s == seq && self.stay && self.early.is_none() => {
                    self.early = Some(ran);
                    continue;
                }
                Ok(Response::ForkFailed { seq: s, errno }) if s == seq => {
                    bail!("the fork server could not fork: {}", Errno::from_raw(errno).desc())
                }
                Ok(other) => Err(format!("it answered {other:?} to request {seq}")),
                Err(why) => Err(why),
            });
        }
    }

    /// How the child ended (killed at the deadline or over the memory limit
    /// if it had not), or why the server is lost. A staying child answers
    /// `Ran` for request `seq` when the run returned; the server's `Finished`
    /// names the request it was forked for (`first_seq`).
    fn finished_status(
        &mut self,
        seq: u32,
        first_seq: u32,
        pid: i32,
        deadline: Instant,
        spin: Option<Instant>,
    ) -> anyhow::Result<Result<Status, String>> {
        let server = self.server.as_mut().context("no fork server is running")?;
        let limit_kib = self.config.rss_limit_mb.saturating_mul(1024);
        let waited = match self.early.take() {
            Some(ran) => Waited::Response(Ok(ran)),
            None => wait_for_finished(&mut server.status, deadline, spin, pid, limit_kib)?,
        };
        let (finished, over_limit) = match waited {
            Waited::Response(response) => (response, false),
            Waited::OverLimit => (Err(String::from(TIMED_OUT)), true),
        };
        let over = |max_rss_kib: u32| limit_kib > 0 && u64::from(max_rss_kib) > limit_kib;
        Ok(match finished {
            Ok(Response::Ran { seq: s, max_rss_kib, cpu_micros }) if s == seq && self.stay => {
                self.last_cpu = Some(Duration::from_micros(u64::from(cpu_micros)));
                let runs = self.staying.map_or(0, |s| s.runs) + 1;
                self.staying = Some(Staying { pid, first_seq, runs });
                if over(max_rss_kib) {
                    self.end_staying();
                    Ok(Status::OutOfMemory)
                } else {
                    Ok(Status::Exited(0))
                }
            }
            Ok(Response::Finished { seq: s, wait_status, max_rss_kib, cpu_micros }) if s == first_seq => {
                self.staying = None;
                self.last_cpu = Some(Duration::from_micros(u64::from(cpu_micros)));
                let status = wait_status_of(wait_status);
                // Over the limit at its peak but no crash of its own: libFuzzer's
                // RSS watchdog would have reported it as out of memory.
                let crashed = matches!(status, Status::Signaled(signal) if signal != libc::SIGKILL)
                    || matches!(status, Status::Exited(code) if code != 0);
                if over(max_rss_kib) && !crashed {
                    Ok(Status::OutOfMemory)
                } else {
                    Ok(status)
                }
            }
            Ok(other) => Err(format!("it answered {other:?} to request {seq}")),
            Err(why) if why == TIMED_OUT => Ok(self.stop_overdue(first_seq, pid, over_limit)?),
            Err(why) => Err(why),
        })
    }

    /// Kills a child that ran too long or grew too big, and waits for the
    /// server to report it (restarting the server next time if it cannot).
    fn stop_overdue(&mut self, seq: u32, pid: i32, over_limit: bool) -> anyhow::Result<Status> {
        self.staying = None;
        self.kill_child(seq, pid)?;
        Ok(if over_limit { Status::OutOfMemory } else { Status::Timeout })
    }

    /// Kills child `pid` and reads the server's report of its end
    /// (`Finished` for request `seq`): a server that cannot even report a
    /// killed child is started afresh next time.
    fn kill_child(&mut self, seq: u32, pid: i32) -> anyhow::Result<()> {
        signal_group(pid, Signal::SIGKILL);
        // In case it left its group; ESRCH means it is already gone.
        let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        let server = self.server.as_mut().context("no fork server is running")?;
        let deadline = Instant::now() + STATUS_GRACE;
        let mut reported = read_response(&mut server.status, deadline, None)?;
        // A staying child may have answered its run just before it was
        // killed (found over the limit between its answer and our read).
        while matches!(reported, Ok(Response::Ran { .. })) {
            reported = read_response(&mut server.status, deadline, None)?;
        }
        if !matches!(reported, Ok(Response::Finished { seq: s, .. }) if s == seq) {
            self.stop_server();
            self.restarts += 1;
        }
        Ok(())
    }

    /// The run's outcome from what the child left: its result record, its
    /// output, its frames; or, when it stopped at a value already run, that run's.
    fn outcome(&mut self, status: Status, duration: Duration) -> anyhow::Result<Outcome> {
        self.last_result = self.shm.layout.read_result(&self.shm.map).ok();
        self.last_status = Some(status);
        let key = self.last_result.as_ref().and_then(|r| r.value_key);
        if let Some(result) = self.last_result.as_ref().filter(|r| r.kind == ResultKind::Known) {
            let known = key.and_then(|key| self.known.replay(key));
            return known.with_context(|| format!("the harness stopped at a value the client never ran ({result:?})"));
        }
        let clean = status == Status::Exited(0)
            && self.last_result.as_ref().is_some_and(|r| matches!(r.kind, ResultKind::Ok | ResultKind::Rejected));
        // A look-alike answers only for a run that did not crash (`known`).
        let alike_key = self.last_result.as_ref().and_then(|r| r.alike_key).filter(|_| clean);
        let outcome = Outcome { value_key: key, alike_key, ..self.run_outcome(status, duration)? };
        // A timeout under a shortened limit might have ended under the configured one.
        if let Some(key) = key.filter(|_| status != Status::Timeout || self.limit.is_none()) {
            self.known.learn(&self.shm.layout, &mut self.shm.map, key, &outcome);
        }
        if let Some(alike) = alike_key {
            self.known.learn(&self.shm.layout, &mut self.shm.map, alike, &outcome);
        }
        Ok(outcome)
    }

    /// [`ForkServerExecutor::outcome`] of a child that ran the target.
    fn run_outcome(&mut self, status: Status, duration: Duration) -> anyhow::Result<Outcome> {
        let stderr = self.stderr_tail().context("cannot read the output file")?;
        let panic = self.last_result.as_ref().and_then(|r| r.panic.as_ref()).map(Panic::from_record);
        // Only a crash by signal, or a panic raised inside the standard library
        // (its hook's frames, under signal 0), pays for symbolizing, and only
        // for addresses not seen before.
        let crash = self.last_result.as_ref().and_then(|r| r.frames.as_ref());
        let frames = match (status, crash) {
            (Status::Signaled(signal), Some(crash)) if panic.is_none() && signal_of(crash) == signal => {
                self.symbolizer.frames(crash)
            }
            (_, Some(crash)) if panic.is_some() && crash.signal == 0 => self.symbolizer.frames(crash),
            _ => None,
        };
        // A sanitizer's report with `symbolize=0` (ours): its `(module+offset)`
        // frames are looked up here, once per address, rather than by
        // `llvm-symbolizer` in every crashing child.
        let frames = match frames {
            None if status != Status::Exited(0) && panic.is_none() => {
                self.symbolizer.report_frames(&String::from_utf8_lossy(&stderr))
            }
            frames => frames,
        };
        // What the handler saw, whether or not a tool could symbolize the frames.
        let stack_overflow = match (status, crash) {
            (Status::Signaled(signal), Some(crash)) => {
                panic.is_none() && signal_of(crash) == signal && crash.signal & STACK_OVERFLOW != 0
            }
            _ => false,
        };
        Ok(Outcome { cpu: self.last_cpu, panic, frames, stack_overflow, ..Outcome::new(status, stderr, duration) })
    }

    /// The last [`CAPTURE_LIMIT`] bytes of the output file.
    fn stderr_tail(&self) -> std::io::Result<Vec<u8>> {
        let len = self.output.metadata()?.len();
        let start = len.saturating_sub(CAPTURE_LIMIT as u64);
        let mut tail = vec![0; (len - start) as usize];
        let mut got = 0;
        while got < tail.len() {
            match self.output.read_at(&mut tail[got..], start + got as u64)? {
                0 => break,
                n => got += n,
            }
        }
        tail.truncate(got);
        Ok(tail)
    }

    /// The last lines of the output file, ready to append to an error message.
    fn stderr_excerpt(&self) -> String {
        let tail = self.stderr_tail().unwrap_or_default();
        let text = String::from_utf8_lossy(&tail);
        let last = last_lines(&text, 5);
        if last.is_empty() {
            return String::from(". It printed nothing on stderr.");
        }
        format!(". The last lines it printed on stderr:\n  {}", last.join("\n  "))
    }
}

impl Executor for ForkServerExecutor {
    /// The examples the last test's child recorded (values built by derived
    /// `Arbitrary` impls, in the order they were entered: parents first), with
    /// absolute spans of the last input. Values still being built when the
    /// child stopped, and records that do not fit the input, are left out;
    /// empty when nothing was recorded or the result could not be read.
    fn examples(&self) -> Vec<crate::reduce::Example> {
        let input_len = self.shm.layout.read_input(&self.shm.map).map_or(0, <[u8]>::len);
        let chains = || self.shm.layout.read_chains(&self.shm.map).unwrap_or_default();
        self.last_result.as_ref().map_or_else(Vec::new, |result| examples_of(result, input_len, chains))
    }

    fn replay_known_values(&mut self, on: bool) {
        self.known.set_on(&self.shm.layout, &mut self.shm.map, on);
    }

    fn limit_time(&mut self, limit: Option<Duration>) {
        self.limit = limit;
    }

    fn run(&mut self, input: &[u8]) -> anyhow::Result<Outcome> {
        self.make_room(input.len())?;
        let mut lost = Vec::new();
        while lost.len() < 2 {
            if self.server.is_none() {
                self.start_server()?;
            }
            match self.attempt(input)? {
                Attempt::Done(outcome) => return Ok(outcome),
                Attempt::ServerLost(why) => {
                    self.stop_server();
                    self.restarts += 1;
                    lost.push(why);
                }
            }
        }
        bail!(
            "the fork server `{}` died twice in a row on the same input ({}); run the harness on the input by \
             hand (`{} FILE`) to see why{}",
            self.config.program.display(),
            lost.join("; then "),
            self.config.program.display(),
            self.stderr_excerpt()
        )
    }
}

impl Drop for ForkServerExecutor {
    fn drop(&mut self) {
        self.stop_server();
    }
}

#[cfg(test)]
mod tests {
    use super::wire::resident_kib;
    use super::*;

    #[test]
    fn wait_statuses_decode_like_the_kernel_encodes_them() {
        assert_eq!(wait_status_of(0), Status::Exited(0));
        assert_eq!(wait_status_of(3 << 8), Status::Exited(3));
        assert_eq!(wait_status_of(6), Status::Signaled(6));
        assert_eq!(wait_status_of(11 | 0x80), Status::Signaled(11), "with a core dump");
    }

    #[test]
    fn example_records_become_examples_and_open_or_stray_ones_are_dropped() {
        use crate::protocol::{ExampleRecord, OPEN_END};
        let record = |front, back, label, depth| ExampleRecord { front, back, label, depth };
        let result = ChildResult {
            examples: vec![
                record((0, 10), (10, 10), 0, 0),
                record((2, 5), (8, 10), 1, 1),
                record((5, OPEN_END), (8, 8), 1, 1),
                record((5, 11), (8, 8), 1, 1),
                record((6, 7), (8, 8), 9, 2),
            ],
            labels: vec!["demo::Scene".into(), "demo::Layer".into()],
            ..ChildResult::default()
        };
        let examples = examples_of(&result, 10, Vec::new);
        let shown: Vec<_> = examples.iter().map(|e| (e.front.clone(), e.back.clone(), &*e.label, e.depth)).collect();
        assert_eq!(shown, [(0..10, 10..10, "demo::Scene", 0), (2..5, 8..10, "demo::Layer", 1), (6..7, 8..8, "?", 2)]);
    }

    #[test]
    fn a_program_that_exits_at_once_is_not_a_harness() {
        let mut config = ForkServerConfig::new("/bin/sh", Duration::from_secs(1));
        config.args = vec!["-c".into(), "echo 'usage: not-a-harness FILE' >&2; exit 2".into()];
        let err = ForkServerExecutor::start(config).unwrap_err();
        let text = format!("{err:#}");
        assert!(matches!(err.downcast_ref(), Some(HandshakeError::Exited { .. })), "{text}");
        assert!(text.contains("`/bin/sh` exited with code 2 before the fork-server handshake"), "{text}");
        assert!(text.contains("usage: not-a-harness FILE"), "{text}");
    }

    #[test]
    fn the_resident_set_of_a_live_process_is_read() {
        let rss = resident_kib(std::process::id() as i32).expect("our own VmRSS");
        assert!(rss > 0);
        assert_eq!(resident_kib(-1), None);
    }

    #[test]
    fn a_missing_program_is_named() {
        let config = ForkServerConfig::new("/no/such/harness", Duration::from_secs(1));
        let text = format!("{:#}", ForkServerExecutor::start(config).unwrap_err());
        assert!(text.contains("/no/such/harness"), "{text}");
    }
}
