//! One input replayed by `planted-replay triage FILE` in a child process, with a time limit: what it did, as a value.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// What a replay did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// It exited with this code; a panic's location when its stderr names one.
    Exit { code: i32, panic_at: Option<String> },
    /// A signal killed it.
    Signal(i32),
    /// It was still running at the time limit (and was killed).
    Timeout,
}

/// Runs `replay triage file`; `Err` only when the child cannot be started or waited for.
pub(crate) fn run(replay: &Path, file: &Path, limit: Duration) -> Result<Outcome, String> {
    let mut child = Command::new(replay)
        .arg("triage")
        .arg(file)
        // A panic's backtrace costs tens of milliseconds; only its location line is read.
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", replay.display()))?;
    let mut stderr = child.stderr.take().expect("stderr is piped");
    // planted-replay starts no children of its own, so the end of its stderr is its exit;
    // reading on a thread drains the pipe and gives a wait with a time limit.
    let (sender, receiver) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stderr.read_to_end(&mut text);
        let _ = sender.send(String::from_utf8_lossy(&text).into_owned());
    });
    let text = receiver.recv_timeout(limit).ok();
    if text.is_none() {
        let _ = child.kill();
    }
    let status = child.wait().map_err(|e| format!("cannot wait for {}: {e}", replay.display()))?;
    let _ = reader.join();
    Ok(match text {
        None => Outcome::Timeout,
        Some(text) => classify(status, &text),
    })
}

fn classify(status: std::process::ExitStatus, stderr: &str) -> Outcome {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => Outcome::Exit { code, panic_at: panic_location(stderr).map(str::to_string) },
        (None, Some(signal)) => Outcome::Signal(signal),
        (None, None) => Outcome::Exit { code: -1, panic_at: None },
    }
}

/// The `file:line:col` of a panic message (`thread 'x' panicked at src/a.rs:1:2:`).
pub(crate) fn panic_location(stderr: &str) -> Option<&str> {
    let line = stderr.lines().find(|line| line.contains(" panicked at "))?;
    let (_, rest) = line.split_once(" panicked at ")?;
    Some(rest.trim_end().trim_end_matches(':'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_location_is_read_from_the_message_line() {
        let stderr = "\nthread 'fuzz-target' panicked at crates/planted/src/tlv.rs:140:5:\nindex out of bounds\n";
        assert_eq!(panic_location(stderr), Some("crates/planted/src/tlv.rs:140:5"));
    }

    #[test]
    fn stderr_without_a_panic_has_no_location() {
        assert_eq!(panic_location("planted-replay: input rejected: tlv: bad magic\n"), None);
    }
}
