//! The `main` of a cargo-minimize-crash harness: a fork server when the tool starts it, a replay tool otherwise.
//!
//! A harness binary is a fuzz target plus this crate; its `main` is
//! [`serve`]. Started by cargo-minimize-crash (with
//! [`cmc_protocol::ENV_VAR`] set) it becomes a fork server: for each request it
//! forks, the child runs the target once on the candidate from shared memory
//! and records what happened, and the server reports the child's pid and wait
//! status on the status pipe. Run by hand, `harness FILE...` runs the target
//! once on each file, in-process, as `./fuzz_target -runs=1 FILE` would.
//!
//! Why it looks the way it does (the measurements are in `docs/decisions/`):
//!
//! - **Fork, not exec**: a fork of a small process costs far less than
//!   starting a libFuzzer binary per test (decision 0056). Fork cost grows
//!   with the forking process's memory, so the server allocates nothing per
//!   request and the shared memory is a file mapping, which `fork` does not
//!   copy (decision 0058).
//! - **glibc's `_Fork`** when the server is single-threaded: it skips the
//!   atfork handlers, which cost most under AddressSanitizer (decision 0058).
//!   With more than one thread, plain `fork`, whose handlers keep `malloc`
//!   usable in the child; the handshake tells the client how many threads there
//!   were, because forking a multi-threaded process is unsafe.
//! - **Our own panic hook** (installed once in the server, inherited by every
//!   child): it records the message and `file:line:col` in shared memory,
//!   prints the standard one-line panic message, and aborts as libFuzzer's
//!   harness does. It never captures a backtrace, which is slow to
//!   symbolize (decision 0061).
//! - **Crash frames**: handlers for SIGSEGV, SIGBUS, SIGFPE, SIGILL and
//!   SIGABRT (on an alternate stack, so a stack overflow is caught too)
//!   record up to 32 raw addresses and the executable's load base in shared
//!   memory, then die by the same signal; the client symbolizes them
//!   (decision 0059).
//! - **No core dumps** (`RLIMIT_CORE` 0): with `ulimit -c unlimited` every
//!   abort would write one (decision 0044).
//! - **Each child leads its own process group** (set by the child and by the
//!   server, so it exists before the client learns the pid), so the client can
//!   kill whatever the target started; and it dies with the server
//!   (`PR_SET_PDEATHSIG`), as the server dies with the client.
//! - **Coverage** (when the client asks for features): in a harness built with
//!   SanitizerCoverage, each child zeroes the 8-bit counters before the
//!   target and writes the features it hit (libFuzzer's numbering) to shared
//!   memory after it returns; the callbacks the instrumentation calls are ours.
//! - **Output**: children's stdout goes to `/dev/null`; their stderr to the
//!   file descriptor the client names (a regular file it truncates per test, so
//!   a chatty child never blocks on a full pipe), or to `/dev/null`.

#![deny(missing_docs)]

mod calls;
mod child;
// The sanitizer hooks are C symbols (`#[no_mangle]`) the instrumented code
// links against, public to the linker whatever Rust's visibility says.
#[allow(unreachable_pub)]
mod coverage;
pub mod examples;
mod replay;
mod server;
mod shared;
mod signals;
pub mod values;

pub use cmc_protocol as protocol;

/// The fuzz target's entry, as libfuzzer-sys's `LLVMFuzzerTestOneInput` is declared.
pub type TestOne = unsafe fn(data: *const u8, size: usize) -> i32;

/// Runs the harness: a fork server when [`cmc_protocol::ENV_VAR`] is set, else
/// the replay tool (`harness FILE...`). Never returns.
///
/// `test_one` is the fuzz target as libFuzzer calls it (libfuzzer-sys's
/// `LLVMFuzzerTestOneInput`): it gets the input and returns 0, or -1 to
/// reject the input (libfuzzer-sys's `Corpus::Reject`); a crash is a panic, an
/// abort or a signal.
///
/// Call it from `main`, after any one-time initialization, and before starting
/// threads: the server forks, and a fork copies only the calling thread.
pub fn serve(test_one: TestOne) -> ! {
    match std::env::var_os(cmc_protocol::ENV_VAR) {
        Some(value) => server::run(&value, test_one),
        None => replay::run(test_one),
    }
}
