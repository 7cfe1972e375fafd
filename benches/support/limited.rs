//! A command run with a wall-clock limit, its output kept in log files: for the benchmarks that time other tools (`cargo fuzz tmin`) and ours side by side.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;

/// What a limited run did.
pub(crate) struct Finished {
    /// `None` when it was killed at the limit.
    pub(crate) status: Option<ExitStatus>,
    pub(crate) wall: Duration,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

/// Runs `command` in a process group of its own, its output in files under
/// `logs` (created) named `name.*`; past `limit` the group gets SIGTERM,
/// then SIGKILL, and the status is `None`.
pub(crate) fn run_limited(command: &mut Command, limit: Duration, logs: &Path, name: &str) -> Finished {
    std::fs::create_dir_all(logs).unwrap_or_else(|e| panic!("create {}: {e}", logs.display()));
    let (out_path, err_path) = (logs.join(format!("{name}.stdout")), logs.join(format!("{name}.stderr")));
    let create = |path: &Path| std::fs::File::create(path).unwrap_or_else(|e| panic!("create {}: {e}", path.display()));
    command.stdin(Stdio::null()).stdout(create(&out_path)).stderr(create(&err_path)).process_group(0);
    let started = Instant::now();
    let mut child = command.spawn().unwrap_or_else(|e| panic!("cannot start {command:?}: {e}"));
    let group = Pid::from_raw(child.id() as i32);
    let mut signalled = None;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for a child") {
            break status;
        }
        let elapsed = started.elapsed();
        if elapsed > limit && signalled.is_none() {
            let _ = killpg(group, Signal::SIGTERM);
            signalled = Some(elapsed);
        } else if signalled.is_some_and(|at| elapsed > at + Duration::from_secs(3)) {
            let _ = killpg(group, Signal::SIGKILL);
            break child.wait().expect("wait for a killed child");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let wall = started.elapsed();
    let read = |path: &Path| String::from_utf8_lossy(&std::fs::read(path).unwrap_or_default()).into_owned();
    Finished { status: signalled.is_none().then_some(status), wall, stdout: read(&out_path), stderr: read(&err_path) }
}
