//! CPU time of the processes a bench waited for (shared through `#[path]`): the user and kernel seconds `getrusage(RUSAGE_CHILDREN)` adds up over every waited-for child and its own waited-for children, taken before and after a run.

use nix::sys::resource::{getrusage, UsageWho};

/// User and kernel seconds of the children waited for so far.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Cpu {
    pub user: f64,
    pub kernel: f64,
}

impl Cpu {
    /// The children's CPU time so far.
    pub(crate) fn now() -> Cpu {
        let usage = getrusage(UsageWho::RUSAGE_CHILDREN).expect("getrusage of the children");
        let seconds = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
        Cpu { user: seconds(usage.user_time()), kernel: seconds(usage.system_time()) }
    }

    /// The CPU time spent from `before` to this.
    pub(crate) fn since(self, before: Cpu) -> Cpu {
        Cpu { user: self.user - before.user, kernel: self.kernel - before.kernel }
    }

    /// The kernel's share of it, as "18%".
    pub(crate) fn kernel_share(self) -> String {
        let total = self.user + self.kernel;
        if total <= 0.0 {
            return "–".to_owned();
        }
        format!("{:.0}%", 100.0 * self.kernel / total)
    }
}
