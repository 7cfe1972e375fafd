//! The forked child: run the target once on the candidate and record what happened; the panic hook that records panics.

use std::any::Any;
use std::io::Write;

use cmc_protocol::{Request, Response, ResultKind, MESSAGE_LEN};

use crate::shared::SharedMemory;

/// libfuzzer-sys's `Corpus::Reject`.
const REJECT: i32 = -1;

/// The server a child was forked from: its pipes (control, status) and its pid.
pub(crate) struct Server {
    pub(crate) fds: [i32; 2],
    pub(crate) pid: i32,
}

/// The child's whole life: leave the server's pipes, run the target,
/// `_exit(0)`. A panic ends in the hook's `abort`; a crash in its signal.
/// A staying child (`stay`: the request it was forked for) keeps the pipes
/// instead, and after each run that returns answers `Ran` and runs the next
/// request itself, until the pipe closes.
pub(crate) fn run(shm: SharedMemory, server: Server, stay: Option<u32>, test_one: crate::TestOne) -> ! {
    // SAFETY: plain system calls.
    unsafe {
        // Its own group, so the client can kill whatever the target starts.
        libc::setpgid(0, 0);
        #[cfg(any(target_os = "linux", target_os = "android"))]
        {
            // Die with the server; if it is already gone, do not run at all.
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
            if libc::getppid() != server.pid {
                libc::_exit(0);
            }
        }
        // The pipes are the server's: when it dies the client must see end of
        // file even while a child runs, and the target must not write into them.
        // A staying child dies with the server, so the pipes close with it.
        if stay.is_none() {
            for fd in server.fds {
                libc::close(fd);
            }
        }
    }
    let mut seq = stay;
    loop {
        let before = peak_and_cpu().1;
        run_once(shm, test_one);
        // SAFETY: always safe; skips atexit handlers and stdio flushing, as nothing
        // of the child's is worth keeping.
        let Some(done) = seq else { unsafe { libc::_exit(0) } };
        let (max_rss_kib, cpu) = peak_and_cpu();
        let ran = Response::Ran { seq: done, max_rss_kib, cpu_micros: cpu.saturating_sub(before) };
        seq = crate::server::send(server.fds[1], ran).ok().and_then(|()| next_request(server.fds[0]));
        // Answered as the server answers a fork: the client knows its request reached a child.
        let started = seq.map(|seq| Response::Started { seq, pid: std::process::id() as i32 });
        if started.map_or(true, |started| crate::server::send(server.fds[1], started).is_err()) {
            // SAFETY: as above.
            unsafe { libc::_exit(0) }
        }
    }
}

/// One run of the target on the input in shared memory, recorded there.
fn run_once(shm: SharedMemory, test_one: crate::TestOne) {
    let input = match shm.input() {
        Ok(input) => input,
        Err(e) => {
            eprintln!("cargo-minimize-crash fork server: bad input in shared memory: {e}");
            // SAFETY: always safe.
            unsafe { libc::_exit(2) }
        }
    };
    crate::examples::start(shm, &input);
    crate::calls::set_limit();
    shm.set_kind(ResultKind::Running);
    // Coverage: only the target's own run counts, so nothing that depends on
    // the input runs between reset and the target, or between its return and the copy.
    let code = if shm.feature_capacity() > 0 {
        crate::coverage::reset();
        let code = crate::coverage::call(test_one, &input);
        crate::coverage::record(&shm);
        code
    } else {
        // SAFETY: the input and its length, as libFuzzer passes them.
        unsafe { test_one(input.as_ptr(), input.len()) }
    };
    shm.set_kind(if code == REJECT { ResultKind::Rejected } else { ResultKind::Ok });
}

/// The next request's sequence number, or `None` when the pipe closed or
/// the request is not a run.
fn next_request(control: i32) -> Option<u32> {
    let mut request = [0u8; MESSAGE_LEN];
    match crate::server::read_exact(control, &mut request) {
        Ok(true) => match Request::decode(&request) {
            Ok(Request::Run { seq, .. }) => Some(seq),
            Err(_) => None,
        },
        _ => None,
    }
}

/// This process's peak resident set in KiB and its CPU time so far in microseconds.
fn peak_and_cpu() -> (u32, u32) {
    // SAFETY: plain system call with a valid out-pointer.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    crate::server::peak_and_cpu(&usage)
}

/// Records every panic in shared memory, prints the standard one-line message
/// (no backtrace) for tools that read stderr, and aborts, as libFuzzer's
/// harness does. Installed once in the server; every child inherits it.
pub(crate) fn install_panic_hook(shm: SharedMemory) {
    std::panic::set_hook(Box::new(move |info| {
        let message = payload_text(info.payload());
        let (file, line, column) = info.location().map_or(("", 0, 0), |l| (l.file(), l.line(), l.column()));
        shm.write_panic(message, file, line, column);
        if in_standard_library(file) {
            crate::signals::record_panic_frames();
        }
        let thread = std::thread::current();
        let name = thread.name().unwrap_or("<unnamed>");
        let _ = writeln!(std::io::stderr(), "thread '{name}' panicked at {file}:{line}:{column}:\n{message}");
        std::process::abort();
    }));
}

/// Whether a panic's file is the standard library's (`/rustc/<commit>/library/...`,
/// or a `rust-src` copy's `.../lib/rustlib/src/rust/library/...`).
fn in_standard_library(file: &str) -> bool {
    file.starts_with("/rustc/") || file.contains("/lib/rustlib/src/rust/library/")
}

/// The panic's message: a `&str` or `String` payload, as `panic!` makes them.
pub(crate) fn payload_text(payload: &(dyn Any + Send)) -> &str {
    if let Some(text) = payload.downcast_ref::<&str>() {
        text
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text
    } else {
        "Box<dyn Any>"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panic_payloads_are_read_as_text() {
        assert_eq!(payload_text(&"static"), "static");
        assert_eq!(payload_text(&String::from("formatted 7")), "formatted 7");
        assert_eq!(payload_text(&42u32), "Box<dyn Any>");
    }
}
