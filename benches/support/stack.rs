//! A child's stack limit, for the samples that overflow their stack (shared through `#[path]`).

use std::os::unix::process::CommandExt;
use std::process::Command;

/// Runs `command` (and what it starts) with a main-thread stack of `kib` KiB.
pub(crate) fn limit_stack(command: &mut Command, kib: Option<u64>) {
    let Some(kib) = kib else { return };
    // SAFETY: setrlimit is async-signal-safe.
    unsafe {
        command.pre_exec(move || {
            let limit = nix::libc::rlimit { rlim_cur: kib * 1024, rlim_max: nix::libc::RLIM_INFINITY };
            if nix::libc::setrlimit(nix::libc::RLIMIT_STACK, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}
