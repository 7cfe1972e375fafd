//! Issue 10's measure of parallel tests: every bundled sample made slow
//! (`PLANTED_WORK_MS`, 10 ms of CPU per run by default) minimized with
//! `--parallel 1` and with `--parallel N` (the cores), side by side: the
//! reduction's time and the whole run's, the speed-up, and whether the two
//! results are byte for byte the same (they must be).
//!
//! ```text
//! cargo bench --bench parallel                   # every sample, about 10 minutes
//! cargo bench --bench parallel -- scene          # samples whose target contains "scene"
//! BENCH_WORK_MS=0 cargo bench --bench parallel   # the samples as they are (fast: the cost of testing ahead)
//! BENCH_WIDTH=3 cargo bench --bench parallel     # 3 at once instead of the cores
//! ```
//!
//! Every fuzz target calls `planted::count::tick()` first, which spins for
//! `PLANTED_WORK_MS` of the thread's CPU time: a slow target whose runs take
//! longer under contention, as a big parser's would. Harnesses are built
//! (and the samples' crashes checked) by an untimed `--max-tests 1` run
//! first. The sample that needs AddressSanitizer (`kind = "sanitizer"`) runs
//! with `--sanitizer address`, so its row is the ASan build's figure. Run
//! without `--bench` (as `cargo test --benches` does) it only lists the samples.

#[path = "support/expected.rs"]
#[allow(dead_code)] // this bench does not need every field
mod expected;
#[path = "support/stack.rs"]
mod stack;
#[path = "support/summary.rs"]
mod summary;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;
use summary::json_summary;

const BIN: &str = env!("CARGO_BIN_EXE_cargo-minimize-crash");

/// A bundled sample run in harness mode.
struct Sample {
    target: String,
    crash: PathBuf,
    /// `address` for the sample only AddressSanitizer reports, else `none`.
    sanitizer: &'static str,
    /// The per-test timeout (1 s for the hang sample, as the tmin bench).
    timeout: &'static str,
    /// The main thread's stack, for the stack-overflow sample.
    stack_kib: Option<u64>,
}

/// One run: its summary and the wall time of the whole process.
struct Run {
    summary: Value,
    wall: Duration,
    result: Vec<u8>,
}

impl Run {
    fn seconds(&self) -> f64 {
        self.summary["seconds"].as_f64().unwrap_or_default()
    }

    fn tests(&self) -> u64 {
        self.summary["tests"].as_u64().unwrap_or_default()
    }
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn samples(filter: Option<&str>) -> Vec<Sample> {
    let mut samples: Vec<Sample> = expected::sample_dirs(root())
        .into_iter()
        .map(|s| {
            let kind = s.expected.get("harness_kind").or(s.expected.get("kind")).cloned().unwrap_or_default();
            Sample {
                target: s.expected["target"].clone(),
                crash: s.crash,
                sanitizer: if s.expected.get("kind").is_some_and(|k| k == "sanitizer") { "address" } else { "none" },
                timeout: if kind == "timeout" { "1s" } else { "5s" },
                stack_kib: s.expected.get("harness_stack_kib").and_then(|k| k.parse().ok()),
            }
        })
        .filter(|s| filter.map_or(true, |f| s.target.contains(f)))
        .collect();
    samples.sort_by(|a, b| a.target.cmp(&b.target));
    samples
}

/// The AddressSanitizer build's own target directory (as the tmin bench's).
fn target_dir(sample: &Sample) -> Option<PathBuf> {
    let target = Path::new(BIN).parent()?.parent()?;
    (sample.sanitizer != "none").then(|| target.join("tmp/bench-tmin-asan"))
}

/// Minimizes `sample` with `extra` flags, `work_ms` of CPU per run.
fn minimize(sample: &Sample, output: &Path, work_ms: &str, extra: &[&str]) -> Run {
    let mut command = Command::new(BIN);
    command.current_dir(root()).args(["--json", "--quiet", "--no-verify-libfuzzer", "--timeout", sample.timeout]);
    if let Some(dir) = target_dir(sample) {
        command.args(["--sanitizer", sample.sanitizer, "--target-dir"]).arg(dir);
    }
    command.args(extra).arg("-o").arg(output).arg(&sample.target).arg(&sample.crash);
    command.env(planted_work_var(), work_ms);
    stack::limit_stack(&mut command, sample.stack_kib);
    let start = Instant::now();
    let out = command.output().expect("run cargo-minimize-crash");
    let wall = start.elapsed();
    let summary = json_summary(&out, &format!("minimizing {} {extra:?}", sample.target));
    let result = std::fs::read(output).expect("the result file");
    Run { summary, wall, result }
}

/// `planted::count::WORK_VAR`, spelled here so the bench needs no dependency on `planted`.
fn planted_work_var() -> &'static str {
    "PLANTED_WORK_MS"
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let filter = args.iter().find(|a| !a.starts_with('-')).map(String::as_str);
    let samples = samples(filter);
    if !args.iter().any(|a| a == "--bench") {
        let names: Vec<&str> = samples.iter().map(|s| s.target.as_str()).collect();
        println!("samples: {} (run `cargo bench --bench parallel` to measure)", names.join(", "));
        return;
    }
    let work = std::env::var("BENCH_WORK_MS").unwrap_or_else(|_| "10".into());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let width = std::env::var("BENCH_WIDTH").ok().and_then(|w| w.parse().ok()).unwrap_or(cores);
    let scratch = tempfile::tempdir().expect("a temporary directory");
    println!("{work} ms of CPU per run (PLANTED_WORK_MS), --parallel 1 against --parallel {width} ({cores} cores)");
    println!();
    println!(
        "| sample | ms per test | tests | reduction, 1 | reduction, {width} | speed-up | whole run, 1 | whole run, {width} \
         | speed-up | run ahead | used | same result |"
    );
    println!("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|:-:|");
    let (mut serial_total, mut parallel_total) = (0.0, 0.0);
    let mut different = Vec::new();
    // Per sample: its target, ms per test, whole-run speed-up, sanitizer.
    let mut speedups: Vec<(&str, f64, f64, &str)> = Vec::new();
    for sample in &samples {
        let warm = scratch.path().join(format!("{}-warm", sample.target));
        minimize(sample, &warm, &work, &["--max-tests", "1"]);
        let serial =
            minimize(sample, &scratch.path().join(format!("{}-1", sample.target)), &work, &["--parallel", "1"]);
        let wide = width.to_string();
        let parallel =
            minimize(sample, &scratch.path().join(format!("{}-n", sample.target)), &work, &["--parallel", &wide]);
        let same = serial.result == parallel.result && serial.tests() == parallel.tests();
        if !same {
            different.push(sample.target.clone());
        }
        let per_test = 1000.0 * serial.seconds() / serial.tests().max(1) as f64;
        let p = &parallel.summary["parallel"];
        println!(
            "| {} | {per_test:.1} | {} | {:.1} s | {:.1} s | {:.2} | {:.1} s | {:.1} s | {:.2} | {} | {} | {} |",
            sample.target,
            serial.tests(),
            serial.seconds(),
            parallel.seconds(),
            serial.seconds() / parallel.seconds().max(1e-9),
            serial.wall.as_secs_f64(),
            parallel.wall.as_secs_f64(),
            serial.wall.as_secs_f64() / parallel.wall.as_secs_f64().max(1e-9),
            p["run_ahead"],
            p["used"],
            if same { "✓" } else { "**✗**" },
        );
        serial_total += serial.wall.as_secs_f64();
        parallel_total += parallel.wall.as_secs_f64();
        let speedup = serial.wall.as_secs_f64() / parallel.wall.as_secs_f64().max(1e-9);
        speedups.push((&sample.target, per_test, speedup, sample.sanitizer));
    }
    println!(
        "| **total** | | | | | | {serial_total:.1} s | {parallel_total:.1} s | {:.2} | | | {} of {} |",
        serial_total / parallel_total.max(1e-9),
        samples.len() - different.len(),
        samples.len()
    );
    println!();
    let yes_no = |ok: bool| if ok { "**YES**" } else { "**NO**" };
    println!("- Every result the same byte for byte, test for test: {}", yes_no(different.is_empty()));
    let slow: Vec<_> = speedups.iter().filter(|s| s.1 >= 10.0).collect();
    let met: Vec<&str> = slow.iter().filter(|s| s.2 >= 1.6).map(|s| s.0).collect();
    println!(
        "- Goal: whole runs at least 1.6 times shorter in parallel on a target over 10 ms per test: {} (on {} of {}: {})",
        yes_no(!met.is_empty()),
        met.len(),
        slow.len(),
        met.join(", ")
    );
    for (target, _, speedup, _) in speedups.iter().filter(|s| s.3 == "address") {
        println!("- The same with AddressSanitizer ({target}): {} ({speedup:.2})", yes_no(*speedup >= 1.6));
    }
}
