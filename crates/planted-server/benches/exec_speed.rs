//! Tests per second: the fork server against a process per test, on the same inputs and the same binary.
//!
//! `cargo bench -p planted-server` (add `-- --tests N` to change the number of
//! fork-server tests per input; the process-per-test side runs a tenth as many).
//! The process side runs `planted-server FILE` in replay mode, which is what
//! `--exec` would do with a harness; a libFuzzer binary starts slower still.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cargo_minimize_crash::exec::{
    CommandLine, Executor, ForkServerConfig, ForkServerExecutor, Outcome, ProcessExecutor, RunningGroup,
};

const SERVER: &str = env!("CARGO_BIN_EXE_planted-server");
const TIMEOUT: Duration = Duration::from_secs(10);

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let tests = args
        .iter()
        .position(|a| a == "--tests")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(2000usize);
    let mut fork = ForkServerExecutor::start(ForkServerConfig::new(SERVER, TIMEOUT)).expect("start the fork server");
    let command = CommandLine::parse(&format!("'{SERVER}' @@")).unwrap();
    let mut process =
        ProcessExecutor::new(command, TIMEOUT, OsStr::new("input"), RunningGroup::default()).expect("scratch dir");

    let hello = fork.hello().expect("a server");
    println!("fork server pid {} ({} thread(s)); {tests} fork-server tests per input", hello.pid, hello.threads);
    println!();
    println!(
        "{:<22} {:>12} {:>12} {:>10} {:>10} {:>9}",
        "input", "fork tests/s", "exec tests/s", "fork ms", "exec ms", "speed-up"
    );
    let (mut fork_total, mut exec_total) = ((0, Duration::ZERO), (0, Duration::ZERO));
    for (name, input) in inputs() {
        let fork_time = time(&mut fork, &input, tests);
        let exec_tests = (tests / 10).max(10);
        let exec_time = time(&mut process, &input, exec_tests);
        let per = |d: Duration, n: usize| d.as_secs_f64() / n as f64;
        let (f, e) = (per(fork_time, tests), per(exec_time, exec_tests));
        println!("{name:<22} {:>12.0} {:>12.0} {:>10.3} {:>10.3} {:>8.1}x", 1.0 / f, 1.0 / e, f * 1e3, e * 1e3, e / f);
        fork_total = (fork_total.0 + tests, fork_total.1 + fork_time);
        exec_total = (exec_total.0 + exec_tests, exec_total.1 + exec_time);
    }
    let per = |(n, d): (usize, Duration)| d.as_secs_f64() / n as f64;
    let (f, e) = (per(fork_total), per(exec_total));
    println!("{:<22} {:>12.0} {:>12.0} {:>10.3} {:>10.3} {:>8.1}x", "all", 1.0 / f, 1.0 / e, f * 1e3, e * 1e3, e / f);
    println!("\nfork server restarts: {}", fork.restarts());
}

/// Runs `input` `n` times; the wall time. Checks that both executors agree on the first run.
fn time(executor: &mut dyn Executor, input: &[u8], n: usize) -> Duration {
    let first: Outcome = executor.run(input).expect("run");
    assert!(first.status != cargo_minimize_crash::exec::Status::Timeout, "a benchmark input timed out");
    let started = Instant::now();
    for _ in 0..n {
        executor.run(input).expect("run");
    }
    started.elapsed()
}

/// Non-crashing and crashing inputs: trivial ones, and the planted crash samples.
fn inputs() -> Vec<(String, Vec<u8>)> {
    let mut inputs = vec![
        ("ok".to_owned(), b"ok".to_vec()),
        ("reject".into(), b"reject".to_vec()),
        ("panic".into(), b"panic".to_vec()),
    ];
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus-samples");
    for target in ["tlv", "image", "vm"] {
        let Some(crash) = crash_file(&samples.join(target)) else { continue };
        let mut input = format!("{target}:").into_bytes();
        input.extend(std::fs::read(&crash).unwrap());
        inputs.push((format!("{target} crash ({} B)", input.len() - target.len() - 1), input));
    }
    inputs
}

fn crash_file(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("crash-")))
}
