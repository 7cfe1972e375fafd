//! The fork server's process and pipes, below the executor: preparing the
//! server between fork and exec, stopping it, its scratch directory, and
//! reading its responses with a deadline (polled for without sleep while a
//! core is spare), a child's memory checked meanwhile.

use std::fs::File;
use std::io::Read;
use std::os::fd::{AsFd, RawFd};
use std::time::Instant;

use anyhow::Context;
use nix::errno::Errno;
use nix::libc;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::signal::Signal;

use super::super::process::signal_group;
use super::super::spin;
use super::super::Status;
use super::{Received, Server, RSS_CHECK_INTERVAL};
use crate::protocol::shm::{CallChain, STACK_OVERFLOW};
use crate::protocol::{ChildResult, Response, MESSAGE_LEN};

/// Runs in the server's process between fork and exec: keep our two pipe ends
/// open across exec, die with the thread that started us, and no address
/// space randomization.
pub(super) fn prepare_server(inherited: [RawFd; 2]) -> std::io::Result<()> {
    for fd in inherited {
        // SAFETY: fcntl is async-signal-safe; the descriptors are open.
        if unsafe { libc::fcntl(fd, libc::F_SETFD, 0) } == -1 {
            return Err(std::io::Error::last_os_error());
        }
    }
    #[cfg(any(target_os = "linux", target_os = "android"))]
    // SAFETY: prctl and personality are async-signal-safe.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
        // The same address layout in every server (and every run), so a crash
        // that depends on it (a stack overflow right at the limit) answers the
        // same on every lane (decision 0021). Best effort: where it is
        // refused, layouts differ.
        let current = libc::personality(0xffff_ffff);
        if current != -1 {
            libc::personality((current as libc::c_ulong) | libc::ADDR_NO_RANDOMIZE as libc::c_ulong);
        }
    }
    Ok(())
}

/// Kills the server with its process group (whatever a program that is not a
/// harness started goes too; a harness's children have groups of their own) and reaps it.
pub(super) fn stop(server: Server) {
    let Server { mut process, control, status, .. } = server;
    drop(control);
    drop(status);
    if let Ok(pid) = i32::try_from(process.id()) {
        signal_group(pid, Signal::SIGKILL);
    }
    let _ = process.kill();
    let _ = process.wait();
}

/// `/dev/shm` when it is usable (memory, not disk), else the temporary directory.
pub(super) fn scratch_dir() -> anyhow::Result<tempfile::TempDir> {
    let builder = || {
        let mut builder = tempfile::Builder::new();
        builder.prefix("cargo-minimize-crash-");
        builder
    };
    builder()
        .tempdir_in("/dev/shm")
        .or_else(|_| builder().tempdir())
        .context("cannot create a scratch directory for the fork server (is TMPDIR writable?)")
}

/// The child's example records as the reducer's examples: labels shared per
/// id, open and out-of-bounds records dropped. Where the records are draws
/// alone (a value built by hand) and every draw has its call chain (read
/// then, by `chains`), with the spans those chains give among them
/// (`super::calls`).
pub(super) fn examples_of(
    result: &ChildResult,
    input_len: usize,
    chains: impl FnOnce() -> Vec<CallChain>,
) -> Vec<crate::reduce::Example> {
    let labels: Vec<crate::reduce::Label> = result.labels.iter().map(|l| l.as_str().into()).collect();
    let unknown: crate::reduce::Label = "?".into();
    let span = |(start, end): (u32, u32)| {
        let (start, end) = (start as usize, end as usize);
        (start <= end && end <= input_len).then_some(start..end)
    };
    let (indices, examples): (Vec<u32>, Vec<crate::reduce::Example>) = result
        .examples
        .iter()
        .enumerate()
        .filter(|(_, record)| record.front.1 != crate::protocol::OPEN_END)
        .filter_map(|(i, record)| {
            let label = labels.get(record.label as usize).unwrap_or(&unknown).clone();
            Some((i as u32, crate::reduce::Example::new(span(record.front)?, span(record.back)?, label, record.depth)))
        })
        .unzip();
    let draws_alone = examples.iter().all(|e| e.label.starts_with(crate::reduce::draws::DRAW_LABEL));
    if examples.is_empty() || !draws_alone {
        return examples;
    }
    let chains = chains();
    let by_index: std::collections::HashMap<u32, &[(u32, u32)]> =
        chains.iter().map(|(i, frames)| (*i, frames.as_slice())).collect();
    match indices.iter().map(|i| by_index.get(i).copied()).collect::<Option<Vec<_>>>() {
        Some(chains) => super::calls::with_spans(examples, &chains),
        None => examples,
    }
}

/// What waiting for a child's `Finished` came to.
pub(super) enum Waited {
    /// The server answered, or gave up, or the deadline passed (as [`read_response`]).
    Response(Result<Response, String>),
    /// The child's resident set grew past the memory limit first.
    OverLimit,
}

/// Reads the `Finished` response (polled for until `spin`), checking the
/// child's resident set every [`RSS_CHECK_INTERVAL`] meanwhile when there is
/// a limit (`limit_kib` > 0).
pub(super) fn wait_for_finished(
    status: &mut File,
    deadline: Instant,
    spin: Option<Instant>,
    pid: i32,
    limit_kib: u64,
) -> anyhow::Result<Waited> {
    if limit_kib == 0 {
        return Ok(Waited::Response(read_response(status, deadline, spin)?));
    }
    loop {
        let slice = (Instant::now() + RSS_CHECK_INTERVAL).min(deadline);
        match read_response(status, slice, spin)? {
            Err(why) if why == TIMED_OUT && Instant::now() < deadline => {
                if resident_kib(pid).is_some_and(|rss| rss > limit_kib) {
                    return Ok(Waited::OverLimit);
                }
            }
            other => return Ok(Waited::Response(other)),
        }
    }
}

/// A process's resident set in KiB (`VmRSS` in `/proc/PID/status`), when it can be read.
pub(super) fn resident_kib(pid: i32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix("VmRSS:"))?;
    line.trim().trim_end_matches("kB").trim().parse().ok()
}

/// The reason [`read_response`] gives when the deadline passed.
pub(super) const TIMED_OUT: &str = "timed out";

/// Reads and decodes one response; `Err(reason)` when the server is gone, out
/// of step, or the deadline passed ([`TIMED_OUT`]).
pub(super) fn read_response(
    status: &mut File,
    deadline: Instant,
    spin: Option<Instant>,
) -> anyhow::Result<Result<Response, String>> {
    Ok(match read_message(status, deadline, spin)? {
        Received::Message(bytes) => Response::decode(&bytes).map_err(|e| format!("it sent a bad message ({e})")),
        Received::Closed(_) => Err(String::from("it exited")),
        Received::TimedOut(bytes) if bytes.is_empty() => Err(String::from(TIMED_OUT)),
        Received::TimedOut(_) => Err(String::from("it sent half a message")),
    })
}

/// Reads one [`MESSAGE_LEN`]-byte message, waiting at most until `deadline`
/// (polling without sleep until `spin`, when given).
pub(super) fn read_message(file: &mut File, deadline: Instant, spin: Option<Instant>) -> anyhow::Result<Received> {
    let mut buf = [0u8; MESSAGE_LEN];
    let mut got = 0;
    while got < MESSAGE_LEN {
        let now = Instant::now();
        if now >= deadline {
            return Ok(Received::TimedOut(buf[..got].to_vec()));
        }
        if !readable(file, now, deadline, spin)? {
            continue;
        }
        match file.read(&mut buf[got..]) {
            Ok(0) => return Ok(Received::Closed(buf[..got].to_vec())),
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e).context("cannot read the fork server's status pipe"),
        }
    }
    Ok(Received::Message(buf))
}

/// Waits until `file` is readable: polled for without sleep until `spin`,
/// then slept on until `deadline`; `false` when it is not yet (ask again).
pub(super) fn readable(file: &File, now: Instant, deadline: Instant, spin: Option<Instant>) -> anyhow::Result<bool> {
    if let Some(until) = spin.filter(|&until| now < until) {
        return Ok(spin::readable_by(file.as_fd(), until.min(deadline)));
    }
    // Round up, so a wait of less than a millisecond does not spin.
    let millis = (deadline - now).as_micros().div_ceil(1000);
    let wait = PollTimeout::try_from(millis).unwrap_or(PollTimeout::MAX);
    let mut fds = [PollFd::new(file.as_fd(), PollFlags::POLLIN)];
    match poll(&mut fds, wait) {
        Ok(0) | Err(Errno::EINTR) => Ok(false),
        Ok(_) => Ok(true),
        Err(e) => Err(e).context("cannot poll the fork server's status pipe"),
    }
}

/// A raw `waitpid` status as a [`Status`].
pub(super) fn wait_status_of(raw: i32) -> Status {
    if libc::WIFEXITED(raw) {
        Status::Exited(libc::WEXITSTATUS(raw))
    } else if libc::WIFSIGNALED(raw) {
        Status::Signaled(libc::WTERMSIG(raw))
    } else {
        // Stopped or continued: `waitpid` without WUNTRACED does not report these.
        Status::Exited(-1)
    }
}

/// How a process ended, in words.
pub(super) fn describe_exit(status: &std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with code {code}"),
        (None, Some(signal)) => format!("was killed by signal {signal} ({})", super::super::signal_name(signal)),
        (None, None) => String::from("ended"),
    }
}

/// The signal a crash's frames were taken for (without [`STACK_OVERFLOW`]).
pub(super) fn signal_of(crash: &crate::protocol::CrashFrames) -> i32 {
    (crash.signal & !STACK_OVERFLOW) as i32
}
