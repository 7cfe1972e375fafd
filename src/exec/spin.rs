//! Waiting for a fast test's answer by polling, not sleeping, while this process's fork servers leave a core spare.
//!
//! A client blocked on the status pipe leaves its core idle, and waking an
//! idle core (an interprocessor interrupt; on a virtual machine, an exit to
//! the hypervisor and back) costs about as much as the test (decision 0064).
//! So a client polls, for at most [`WINDOW`] a test, when the last test took
//! less than that (a slow target's answer is not worth a core, and on a busy
//! machine tests slow down and the polling stops by itself), and only while
//! the process runs fewer fork servers than it has cores: with as many lanes
//! as cores (`--parallel`, the batch's workers), a polling client would take
//! the core a child needs.

use std::os::fd::BorrowedFd;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use nix::poll::{poll, PollFd, PollFlags, PollTimeout};

/// How long a client polls before it blocks, and how short the last test
/// must have been for it to poll at all.
pub(super) const WINDOW: Duration = Duration::from_millis(1);

/// How many fork-server executors this process has.
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// One executor's polling policy; it counts among the live executors while it exists.
#[derive(Debug)]
pub(super) struct Spinner {
    /// How long the last test took (`None` before the first).
    last: Option<Duration>,
}

impl Spinner {
    pub(super) fn new() -> Self {
        LIVE.fetch_add(1, Ordering::SeqCst);
        Spinner { last: None }
    }

    /// Until when the answers to a test started at `started` are polled for;
    /// `None`: wait blocked.
    pub(super) fn until(&self, started: Instant) -> Option<Instant> {
        polls(self.last, LIVE.load(Ordering::Relaxed), crate::exec::cores()).then(|| started + WINDOW)
    }

    /// Notes how long a test took.
    pub(super) fn finished(&mut self, took: Duration) {
        self.last = Some(took);
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Whether to poll: the last test was fast, and a core is left over by the
/// `live` executors (each with its child busy on one).
fn polls(last: Option<Duration>, live: usize, cores: usize) -> bool {
    last.is_some_and(|took| took < WINDOW) && live < cores
}

/// Polls `fd` without sleeping until it is readable (or closed) or `until`
/// has passed; whether it is.
pub(super) fn readable_by(fd: BorrowedFd<'_>, until: Instant) -> bool {
    loop {
        let mut fds = [PollFd::new(fd, PollFlags::POLLIN)];
        if matches!(poll(&mut fds, PollTimeout::ZERO), Ok(n) if n > 0) {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        std::hint::spin_loop();
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::os::fd::AsFd;

    use super::*;

    #[test]
    fn polls_after_a_fast_test_while_a_core_is_spare() {
        let fast = Some(WINDOW / 2);
        assert!(polls(fast, 1, 2), "one server on two cores");
        assert!(!polls(fast, 2, 2), "a lane per core: the children need them all");
        assert!(!polls(fast, 1, 1), "one core: the child needs it");
        assert!(!polls(None, 1, 2), "no test yet");
        assert!(!polls(Some(WINDOW), 1, 2), "a slow target, or a busy machine");
    }

    #[test]
    fn a_pipe_is_readable_once_written_and_not_before() {
        let (read, write) = nix::unistd::pipe().unwrap();
        let start = Instant::now();
        assert!(!readable_by(read.as_fd(), start + Duration::from_millis(2)), "nothing written");
        assert!(start.elapsed() >= Duration::from_millis(2), "it polled until the end");
        std::fs::File::from(write).write_all(b"x").unwrap();
        assert!(readable_by(read.as_fd(), Instant::now()), "written, even with no time left");
    }
}
