//! Issue 10's floor: what one test costs on our fork server against a bare
//! `fork`, `_exit`, `waitpid` loop on the same machine, side by side.
//!
//! ```text
//! cargo bench --bench forkserver          # 5,000 of each, three times
//! BENCH_RUNS=20000 cargo bench --bench forkserver
//! ```
//!
//! The fork server is the `vm` sample's harness (built by an untimed
//! `--max-tests 1` run of the tool), driven through the library's own
//! `ForkServerExecutor` as a reduction drives it, on a one-byte input the
//! target rejects at once: what is measured is the protocol, the fork, the
//! child's set-up and exit, and the status coming back. The floor is this
//! process forking a child that exits at once; beside it, the same loop with
//! a parent that polls for the child's end, as our client polls for a fast
//! test's answer while a core is spare (`exec::spin`). Run without `--bench` (as
//! `cargo test --benches` does) it only says what it would do.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use cargo_minimize_crash::exec::{Executor, ForkServerConfig, ForkServerExecutor};
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::{fork, ForkResult};

const BIN: &str = env!("CARGO_BIN_EXE_cargo-minimize-crash");

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Builds the `vm` harness with one test of its sample; returns the binary.
fn harness() -> PathBuf {
    let sample = std::fs::read_dir(root().join("corpus-samples/vm"))
        .expect("corpus-samples/vm")
        .map(|e| e.expect("an entry").path())
        .find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("crash-")))
        .expect("the vm sample's crash");
    let scratch = tempfile::tempdir().expect("a temporary directory");
    let out = Command::new(BIN)
        .current_dir(root())
        .args(["--max-tests", "1", "--no-verify-libfuzzer", "-o"])
        .arg(scratch.path().join("result"))
        .arg("vm")
        .arg(sample)
        .output()
        .expect("run cargo-minimize-crash");
    let stderr = String::from_utf8_lossy(&out.stderr);
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("built ").and_then(|l| l.rsplit_once(" in ")).map(|(path, _)| path))
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("no `built HARNESS in` line:\n{stderr}"))
}

/// Mean time of `runs` fork-`_exit`-`waitpid` rounds; with `polling`, the
/// parent polls for the child's end (`WNOHANG`) rather than sleeping in
/// `waitpid`, as our client polls when a core is spare: the floor of a loop
/// that never lets its core go idle.
fn bare_fork(runs: u32, polling: bool) -> Duration {
    let flags = polling.then_some(WaitPidFlag::WNOHANG);
    let start = Instant::now();
    for _ in 0..runs {
        // SAFETY: the child only calls `_exit`, which is async-signal-safe.
        match unsafe { fork() }.expect("fork") {
            ForkResult::Child => unsafe { nix::libc::_exit(0) },
            ForkResult::Parent { child } => {
                while waitpid(child, flags).expect("waitpid") == WaitStatus::StillAlive {
                    std::hint::spin_loop();
                }
            }
        }
    }
    start.elapsed() / runs
}

/// Mean time of `runs` tests of a one-byte input on the harness's fork server.
fn fork_server(harness: &Path, runs: u32) -> Duration {
    let mut executor =
        ForkServerExecutor::start(ForkServerConfig::new(harness, Duration::from_secs(5))).expect("start the harness");
    executor.run(b"x").expect("a first test");
    let start = Instant::now();
    for _ in 0..runs {
        let outcome = executor.run(b"x").expect("a test");
        assert!(outcome.panic.is_none(), "the input must not crash: {outcome:?}");
    }
    start.elapsed() / runs
}

fn main() {
    let benching = std::env::args().any(|a| a == "--bench");
    if !benching {
        println!("forkserver: one test on the vm harness's fork server against a bare fork loop (run with --bench)");
        return;
    }
    let runs = std::env::var("BENCH_RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(5000);
    let harness = harness();
    println!("{runs} runs each, three times, alternating ({})", harness.display());
    println!();
    println!(
        "| round | bare fork + exit + wait | fork-server test | ratio | goal (at most 1.5) | bare, parent polling | \
         ratio to it |"
    );
    println!("|---|--:|--:|--:|:-:|--:|--:|");
    let mut ratios = Vec::new();
    for round in 1..=3 {
        let floor = bare_fork(runs, false);
        let ours = fork_server(&harness, runs);
        let polling = bare_fork(runs, true);
        let ratio = ours.as_secs_f64() / floor.as_secs_f64();
        ratios.push(ratio);
        let met = if ratio <= 1.5 { "yes" } else { "**no**" };
        println!(
            "| {round} | {:.1} µs | {:.1} µs | {ratio:.2} | {met} | {:.1} µs | {:.2} |",
            micros(floor),
            micros(ours),
            micros(polling),
            ours.as_secs_f64() / polling.as_secs_f64()
        );
    }
    ratios.sort_by(f64::total_cmp);
    println!();
    println!("- Median ratio {:.2}: goal {}", ratios[1], if ratios[1] <= 1.5 { "**met**" } else { "**not met**" });
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}
