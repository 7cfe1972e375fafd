//! Process-per-test execution: write the candidate to a scratch file, run the user's command on it, kill its whole process group on timeout.
//!
//! Each test spawns the command with stdin closed, in a process group of its
//! own, reads stdout and stderr on two threads at once (a chatty child never
//! blocks on a full pipe; only the last [`CAPTURE_LIMIT`] bytes are kept) and
//! waits on a third, so the timeout is exact rather than polled. On timeout the
//! group gets SIGTERM, then SIGKILL after [`KILL_GRACE`]; after every test the
//! group gets SIGKILL, so nothing a target started outlives its test. The
//! child's environment has `RUST_BACKTRACE=0`: a symbolized backtrace is
//! costly and the signature uses the panic location, not the backtrace
//! (wrap the command in `env RUST_BACKTRACE=1 ...` to undo it). Core dumps
//! are turned off for the children (`RLIMIT_CORE` 0): with `ulimit -c
//! unlimited` every abort would write one (decision 0044).

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use nix::errno::Errno;
use nix::sys::signal::{kill, killpg, Signal};
use nix::unistd::Pid;

use super::{Executor, Outcome, Status};

/// How many bytes of a child's stderr (and stdout) are kept: the tail.
pub const CAPTURE_LIMIT: usize = 64 * 1024;
/// How long a timed-out child's group has between SIGTERM and SIGKILL.
pub const KILL_GRACE: Duration = Duration::from_millis(250);
/// How long to wait for the pipes to close once the child is gone.
const PIPE_GRACE: Duration = Duration::from_secs(1);
/// The placeholder replaced by the candidate file's path.
pub const PLACEHOLDER: &str = "@@";

/// The process group of the test now running (0 when none), shared with the
/// Ctrl-C handler so it can stop the test at once.
pub type RunningGroup = Arc<AtomicI32>;

/// A command line split into words the way a POSIX shell would (no shell runs it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandLine {
    words: Vec<String>,
}

impl CommandLine {
    /// Splits `line` into words; `@@` marks where the input path goes.
    pub fn parse(line: &str) -> anyhow::Result<Self> {
        let words =
            shell_words::split(line).with_context(|| format!("cannot split the command `{line}` into words"))?;
        if words.is_empty() {
            bail!("the command is empty: give the program to run, e.g. --exec './fuzz_target -runs=1 @@'");
        }
        Ok(CommandLine { words })
    }

    /// The program (first word).
    pub fn program(&self) -> &str {
        &self.words[0]
    }

    /// Whether some argument contains `@@`.
    pub fn has_placeholder(&self) -> bool {
        self.words[1..].iter().any(|w| w.contains(PLACEHOLDER))
    }

    /// The arguments for one run: `@@` replaced by `input`, or `input` appended
    /// when no argument has `@@`.
    pub fn args_for(&self, input: &Path) -> Vec<OsString> {
        let mut args: Vec<OsString> =
            self.words[1..].iter().map(|w| replace_placeholder(w, input.as_os_str())).collect();
        if !self.has_placeholder() {
            args.push(input.as_os_str().to_owned());
        }
        args
    }

    /// The command line for `input`, quoted for a POSIX shell (to show users).
    pub fn display_for(&self, input: &Path) -> String {
        let mut words = vec![quote(self.program())];
        words.extend(self.args_for(input).iter().map(|a| quote(&a.to_string_lossy())));
        words.join(" ")
    }

    /// Finds the program as `execvp` would, so a typo is reported before any test runs.
    pub fn locate_program(&self) -> anyhow::Result<PathBuf> {
        let program = self.program();
        if program.contains('/') {
            let path = PathBuf::from(program);
            check_executable(&path)?;
            return Ok(path);
        }
        let search = std::env::var_os("PATH").unwrap_or_default();
        std::env::split_paths(&search)
            .map(|dir| dir.join(program))
            .find(|path| check_executable(path).is_ok())
            .with_context(|| {
                format!("`{program}` was not found in PATH; give its path (e.g. ./{program}) or check the spelling")
            })
    }
}

fn check_executable(path: &Path) -> anyhow::Result<()> {
    let metadata = std::fs::metadata(path).with_context(|| format!("cannot run `{}`", path.display()))?;
    if !metadata.is_file() || metadata.permissions().mode() & 0o111 == 0 {
        bail!("`{}` is not an executable file", path.display());
    }
    Ok(())
}

/// `word` as a POSIX shell would need it: bare when it is made of safe characters only.
pub fn quote(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_-+=@%:,./".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

fn replace_placeholder(word: &str, input: &OsStr) -> OsString {
    let mut out = OsString::new();
    for (i, part) in word.split(PLACEHOLDER).enumerate() {
        if i > 0 {
            out.push(input);
        }
        out.push(part);
    }
    out
}

/// Runs a command per test on a scratch copy of the candidate.
#[derive(Debug)]
pub struct ProcessExecutor {
    command: CommandLine,
    timeout: Duration,
    /// A time limit shorter than `timeout` ([`Executor::limit_time`]).
    limit: Option<Duration>,
    /// Removed with everything in it when the executor is dropped.
    scratch: tempfile::TempDir,
    input_path: PathBuf,
    running: RunningGroup,
    /// More environment for the command.
    env: Vec<(OsString, OsString)>,
}

impl ProcessExecutor {
    /// An executor whose candidate file is called `file_name` (keep the crash
    /// file's name, so targets that look at the extension see the same one).
    pub fn new(
        command: CommandLine,
        timeout: Duration,
        file_name: &OsStr,
        running: RunningGroup,
    ) -> anyhow::Result<Self> {
        let scratch = tempfile::Builder::new()
            .prefix("cargo-minimize-crash-")
            .tempdir()
            .context("cannot create a scratch directory for candidate inputs (is TMPDIR writable?)")?;
        let input_path = scratch.path().join(file_name);
        disable_core_dumps();
        Ok(ProcessExecutor { command, timeout, limit: None, scratch, input_path, running, env: Vec::new() })
    }

    /// The same, running the command with `env` added to its environment.
    pub fn with_env(mut self, env: Vec<(OsString, OsString)>) -> Self {
        self.env = env;
        self
    }

    /// Where each candidate is written before the command runs.
    pub fn input_path(&self) -> &Path {
        &self.input_path
    }

    /// The scratch directory (removed on drop).
    pub fn scratch_dir(&self) -> &Path {
        self.scratch.path()
    }
}

impl Executor for ProcessExecutor {
    fn run(&mut self, input: &[u8]) -> anyhow::Result<Outcome> {
        std::fs::write(&self.input_path, input)
            .with_context(|| format!("cannot write the candidate input to {}", self.input_path.display()))?;
        let mut command = Command::new(self.command.program());
        command
            .args(self.command.args_for(&self.input_path))
            .env("RUST_BACKTRACE", "0")
            .envs(self.env.iter().map(|(key, value)| (key, value)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let started = Instant::now();
        let mut child = command.spawn().with_context(|| format!("cannot start `{}`", self.command.program()))?;
        // The child leads its own group: its group id is its pid.
        let group = i32::try_from(child.id()).context("process id out of range")?;
        self.running.store(group, Ordering::SeqCst);
        let stdout = capture(child.stdout.take().context("child stdout")?)?;
        let stderr = capture(child.stderr.take().context("child stderr")?)?;
        let (done_tx, done_rx) = mpsc::channel();
        thread::Builder::new()
            .name("wait-child".into())
            .spawn(move || {
                let _ = done_tx.send(child.wait());
            })
            .context("cannot start a thread to wait for the child")?;

        let limit = self.limit.map_or(self.timeout, |limit| limit.min(self.timeout));
        let status = match done_rx.recv_timeout(limit) {
            Ok(waited) => exit_status(waited.context("waiting for the child failed")?),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                terminate(group, Signal::SIGTERM);
                if done_rx.recv_timeout(KILL_GRACE).is_err() {
                    terminate(group, Signal::SIGKILL);
                    let _ = done_rx.recv();
                }
                Status::Timeout
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => bail!("the thread waiting for the child died"),
        };
        let duration = started.elapsed();
        // Whatever the target left running in its group goes now.
        signal_group(group, Signal::SIGKILL);
        self.running.store(0, Ordering::SeqCst);
        // A grandchild that left the group may hold the pipes open: don't wait for it forever.
        let stderr = stderr.recv_timeout(PIPE_GRACE).unwrap_or_default();
        drop(stdout);
        Ok(Outcome::new(status, stderr, duration))
    }
}

fn exit_status(status: ExitStatus) -> Status {
    match (status.code(), status.signal()) {
        (Some(code), _) => Status::Exited(code),
        (None, Some(signal)) => Status::Signaled(signal),
        // Neither: stopped or continued, which `wait` does not report; treat as a plain failure.
        (None, None) => Status::Exited(-1),
    }
}

/// Signals the group and its leader (in case the leader left the group).
fn terminate(group: i32, signal: Signal) {
    signal_group(group, signal);
    match kill(Pid::from_raw(group), signal) {
        Ok(()) | Err(Errno::ESRCH) => {}
        Err(_) => {} // EPERM: not ours any more; nothing more we can do.
    }
}

/// The last `count` lines of `text` that are not blank, for error messages.
pub fn last_lines(text: &str, count: usize) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(count)..].to_vec()
}

/// Sends `signal` to process group `group`; "no such process" means it is already gone.
pub fn signal_group(group: i32, signal: Signal) {
    if group <= 0 {
        return;
    }
    match killpg(Pid::from_raw(group), signal) {
        Ok(()) | Err(Errno::ESRCH) => {}
        Err(_) => {} // EPERM: the group id was reused by someone else's process; leave it.
    }
}

/// Reads a stream to its end on a thread, keeping its last [`CAPTURE_LIMIT`] bytes.
fn capture(mut stream: impl Read + Send + 'static) -> anyhow::Result<mpsc::Receiver<Vec<u8>>> {
    let (tx, rx) = mpsc::channel();
    thread::Builder::new()
        .name("capture".into())
        .spawn(move || {
            let mut kept = Vec::new();
            let mut buf = [0u8; 8192];
            loop {
                match stream.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        kept.extend_from_slice(&buf[..n]);
                        if kept.len() > 2 * CAPTURE_LIMIT {
                            kept.drain(..kept.len() - CAPTURE_LIMIT);
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            if kept.len() > CAPTURE_LIMIT {
                kept.drain(..kept.len() - CAPTURE_LIMIT);
            }
            let _ = tx.send(kept);
        })
        .context("cannot start a thread to read the child's output")?;
    Ok(rx)
}

/// Children inherit our `RLIMIT_CORE`: set its soft limit to 0 so an abort
/// does not write a core file (slow, and litter). Best effort.
fn disable_core_dumps() {
    use nix::sys::resource::{getrlimit, setrlimit, Resource};
    if let Ok((_, hard)) = getrlimit(Resource::RLIMIT_CORE) {
        let _ = setrlimit(Resource::RLIMIT_CORE, 0, hard);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn executor(line: &str, timeout: Duration) -> ProcessExecutor {
        let command = CommandLine::parse(line).unwrap();
        ProcessExecutor::new(command, timeout, OsStr::new("input"), RunningGroup::default()).unwrap()
    }

    fn run(line: &str, input: &[u8]) -> Outcome {
        executor(line, Duration::from_secs(10)).run(input).unwrap()
    }

    #[test]
    fn the_placeholder_is_replaced_or_the_path_appended() {
        let input = Path::new("/tmp/x");
        let with = CommandLine::parse("t -runs=1 --in=@@.bin").unwrap();
        assert_eq!(with.args_for(input), vec![OsString::from("-runs=1"), OsString::from("--in=/tmp/x.bin")]);
        let without = CommandLine::parse("'./my target' -runs=1").unwrap();
        assert_eq!(without.program(), "./my target");
        assert_eq!(without.args_for(input), vec![OsString::from("-runs=1"), OsString::from("/tmp/x")]);
        assert_eq!(without.display_for(input), "'./my target' -runs=1 /tmp/x");
        assert_eq!(quote("it's"), r"'it'\''s'");
    }

    #[test]
    fn empty_and_unbalanced_commands_are_rejected() {
        assert!(CommandLine::parse("  ").is_err());
        assert!(CommandLine::parse("t 'unclosed").is_err());
    }

    #[test]
    fn a_missing_program_is_reported_before_running() {
        let err = CommandLine::parse("no-such-program-here @@").unwrap().locate_program().unwrap_err();
        assert!(format!("{err:#}").contains("no-such-program-here"), "{err:#}");
        assert!(CommandLine::parse("sh -c true").unwrap().locate_program().is_ok());
    }

    #[test]
    fn exit_codes_and_stderr_are_captured() {
        let outcome = run("sh -c 'cat \"$0\" >&2; exit 3' @@", b"hello");
        assert_eq!(outcome.status, Status::Exited(3));
        assert_eq!(outcome.stderr, b"hello");
    }

    #[test]
    fn a_signal_is_reported_as_such() {
        let outcome = run("sh -c 'kill -ABRT $$'", b"");
        assert_eq!(outcome.status, Status::Signaled(6));
    }

    #[test]
    fn the_last_lines_skip_blank_ones() {
        assert_eq!(last_lines("a\n\nb\n  \nc\nd\n", 3), ["b", "c", "d"]);
        assert_eq!(last_lines("a\n", 5), ["a"]);
        assert!(last_lines(" \n\n", 5).is_empty());
    }

    #[test]
    fn a_chatty_child_does_not_deadlock_and_only_the_tail_is_kept() {
        let outcome = run("sh -c 'head -c 3000000 /dev/zero; head -c 3000000 /dev/zero >&2; printf end >&2'", b"");
        assert_eq!(outcome.status, Status::Exited(0));
        assert_eq!(outcome.stderr.len(), CAPTURE_LIMIT);
        assert!(outcome.stderr.ends_with(b"end"));
    }

    #[test]
    fn a_hang_times_out_and_its_whole_group_is_killed() {
        let marker = tempfile::NamedTempFile::new().unwrap();
        let line = format!("sh -c 'sleep 30 & echo $! > {}; wait'", marker.path().display());
        let started = Instant::now();
        let outcome = executor(&line, Duration::from_millis(300)).run(b"").unwrap();
        assert_eq!(outcome.status, Status::Timeout);
        assert!(started.elapsed() < Duration::from_secs(5));
        let pid: i32 = std::fs::read_to_string(marker.path()).unwrap().trim().parse().unwrap();
        // The grandchild is gone (or a zombie about to be reaped by init). A
        // killed process takes a moment to leave the table on a loaded machine.
        let alive = || {
            kill(Pid::from_raw(pid), None).is_ok()
                && !std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| s.contains(") Z "))
        };
        let deadline = Instant::now() + Duration::from_secs(3);
        while alive() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!alive(), "grandchild {pid} survived the timeout");
    }

    #[test]
    fn the_child_sees_rust_backtrace_off_and_no_stdin() {
        let outcome = run("sh -c 'echo \"$RUST_BACKTRACE\" >&2; cat >&2'", b"");
        assert_eq!(outcome.stderr, b"0\n");
    }
}
