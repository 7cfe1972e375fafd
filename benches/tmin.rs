//! The harness mode against `cargo fuzz tmin` (default, and `-r 1000`) on every bundled crash sample, side by side: result size, target executions, wall time, whether the result keeps the signature.
//!
//! ```text
//! cargo bench --bench tmin                 # every sample in corpus-samples/
//! cargo bench --bench tmin -- vm           # samples whose folder contains "vm"
//! BENCH_TMIN_LIMIT=120 cargo bench --bench tmin   # per-run wall limit, seconds (default 300)
//! BENCH_TMIN_SEED=4 cargo bench --bench tmin      # tmin's seeds 4, 5, 6 (default 1, 2, 3)
//! BENCH_TMIN_RUNS=1 cargo bench --bench tmin      # one tmin run per setting (default 3 of the default)
//! BENCH_STATS=1 cargo bench --bench tmin -- tlv   # our per-pass tests in the notes too
//! ```
//!
//! Every sample in `corpus-samples/` has a target in `fuzz/`; `expected.toml`
//! gives its kind, location, sanitizer and stack. For each one, on fresh
//! copies of the crash file, from the repository root:
//!
//! - **ours**: an untimed warm-up (`--max-tests 1`) builds the harness and,
//!   through the libFuzzer cross-check, the `cargo fuzz build` binary; then,
//!   timed, `cargo-minimize-crash --json -q --timeout T TARGET CRASH -o OUT`.
//!   Reduction-only time is the summary's `seconds` (the reducer's wall time,
//!   without the first runs, the re-run, the cross-check and the start); a
//!   second table splits our end-to-end time by the summary's `phases`.
//! - **tmin**: `cargo fuzz build --sanitizer S TARGET` (untimed, normally
//!   up to date), then, timed, `cargo fuzz tmin --sanitizer S [-r 1000] TARGET
//!   CRASH -- -timeout=T -seed=S -artifact_prefix=DIR/`. `-r` is libFuzzer's `-runs`:
//!   each minimization step is a child process trying up to N mutations of the
//!   current input (255 by default), and tmin stops when a step finds no
//!   smaller crash. The prefix sends every `minimized-from-*` file to a scratch
//!   directory instead of `fuzz/artifacts/TARGET/` (nothing of the user's is
//!   written; cargo-fuzz then skips its own `{:#?}` print of the result); the
//!   result is the newest of them, which is what cargo-fuzz would show.
//!
//! `S` is `address` for the AddressSanitizer sample (with `--target-dir
//! target/tmp/bench-tmin-asan` on both sides, so the plain builds in
//! `fuzz/target` stay as they are, and `RUSTC_BOOTSTRAP=1` as our cross-check
//! uses), else `none`, as the harness mode builds. `T` is 1 s for the hang
//! (`rle`: libFuzzer's `-timeout` is whole seconds, so both sides get its
//! least) and our default 5 s otherwise (libFuzzer's default, 1200 s, would
//! make one hanging mutation cost 20 minutes). The stack overflow (`nest`)
//! runs every process with the 256 KiB main-thread stack it needs.
//!
//! **Executions** are counted by the targets themselves: each `fuzz_target!`
//! body calls `planted::count::tick()` first, which appends a byte to
//! `PLANTED_COUNT_FILE` (one file per run); the file's size is the count. An
//! input libfuzzer-sys rejects before the body (shorter than a typed input's
//! least size) is not counted, on either side. Everything the user waits for
//! is counted: for tmin, every step's first run of the current input and its
//! mutations; for ours, the reducer's tests (the summary's `tests`, printed
//! next to the count, which counts the original once as the reducer's first
//! test) plus the three first runs of the original, the re-run of the result
//! and the cross-check's run of the `cargo fuzz build` binary: the count is
//! `tests + 4`, less any candidate the `arbitrary` stand-in rejected before the
//! body (the notes give the difference per sample). Cache hits run nothing.
//!
//! **End-to-end** is the wall time of the whole command (for tmin: cargo's
//! check that the binary is up to date included; for ours: the check that the
//! harness is built and the cross-check's `cargo fuzz build` included).
//!
//! **Signature kept**: the result runs once on the `cargo fuzz build` binary,
//! `BINARY -runs=1 -timeout=T -handle_abrt=0 -handle_segv=0 FILE` (libFuzzer
//! leaves aborts and segfaults to the OS, so the process dies by the signal
//! itself), compared with `expected.toml`: a panic's `panicked at` line
//! contains `location`; a signal is the same number (`harness_signal` or
//! `signal`) with no panic; a timeout is libFuzzer's `timeout` report; an
//! AddressSanitizer report has the bug type and its first frame in
//! `crates/planted/` at `location`. Messages are not compared (the default
//! `--signature` compares kind and location too). Ours must also be verified
//! by the tool itself (the summary's `verified` and `libfuzzer.verified`).
//!
//! The goals: our result is never larger than a tmin result that keeps the
//! signature (either setting); our total executions are at most a third of
//! tmin's (default setting); our total end-to-end time is at most a third of
//! tmin's (default setting). Goals 2 and 3 are judged over the samples tmin
//! minimizes (exit 0): where it fails at once (the stack overflow: without a
//! sanitizer libFuzzer's crash handler cannot run on the overflowed stack, so
//! the step writes no file and cargo fuzz exits 1) its two executions would be
//! set against our thousands; the all-samples totals are printed next to them.
//! tmin is random (libFuzzer's mutations): its executions moved by a factor
//! of two between runs (`vm` 547 then 1,074; `commands` 853 then 256, left
//! unminimized), so the default setting runs three times, with libFuzzer's
//! `-seed` 1, 2 and 3 (`BENCH_TMIN_SEED` the first, `BENCH_TMIN_RUNS` how
//! many), and the table shows the run with the median executions; `-r 1000`
//! runs once, with the first seed. Run without
//! `--bench` (as `cargo test --benches` does) it only lists the samples.

#[path = "support/cargo_fuzz.rs"]
mod cargo_fuzz;
#[path = "support/expected.rs"]
mod expected;
#[path = "support/limited.rs"]
mod limited;
#[path = "support/stack.rs"]
mod stack;
#[path = "support/table.rs"]
mod table;

use std::collections::HashMap;
use std::ffi::OsString;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::time::Duration;

use limited::run_limited;
use serde_json::Value;

use expected::{sample_dirs, SampleDir};

const BIN: &str = env!("CARGO_BIN_EXE_cargo-minimize-crash");
/// The per-run wall limit when `BENCH_TMIN_LIMIT` does not say.
const DEFAULT_LIMIT_SECS: u64 = 300;

/// A bundled sample: its folder, target, crash file and `expected.toml`.
struct Sample {
    name: String,
    target: String,
    crash: PathBuf,
    expected: HashMap<String, String>,
}

impl Sample {
    fn get(&self, key: &str) -> Option<&str> {
        self.expected.get(key).map(String::as_str)
    }

    /// The kind a harness or a `cargo fuzz build` binary shows.
    fn kind(&self) -> &str {
        self.get("harness_kind").or(self.get("kind")).unwrap_or("?")
    }

    fn sanitizer(&self) -> &'static str {
        if self.get("kind") == Some("sanitizer") {
            "address"
        } else {
            "none"
        }
    }

    /// The per-test timeout, whole seconds (libFuzzer's `-timeout` unit).
    fn timeout_secs(&self) -> u64 {
        if self.kind() == "timeout" {
            1
        } else {
            5
        }
    }

    fn stack_kib(&self) -> Option<u64> {
        self.get("harness_stack_kib").and_then(|k| k.parse().ok())
    }

    /// cargo's target directory for both sides: the AddressSanitizer builds get their own.
    fn target_dir(&self) -> Option<PathBuf> {
        let target = Path::new(BIN).parent()?.parent()?;
        (self.sanitizer() != "none").then(|| target.join("tmp/bench-tmin-asan"))
    }
}

/// One side's measurement of one sample.
#[derive(Default)]
struct Measured {
    /// The result's size; `None` when the run failed.
    size: Option<u64>,
    /// Target executions (the counter file's size).
    execs: u64,
    wall: Duration,
    /// Whether the result crashes as `expected.toml` says.
    kept: bool,
    /// The command failed or was killed (the size is then what it left: the original, or its best so far).
    failed: bool,
    /// What happened, for the notes.
    note: String,
}

/// Our extra figures, from the summary.
#[derive(Default)]
struct OursExtra {
    tests: u64,
    reduce_secs: f64,
    /// Per pass: name, tests, successes (printed with `BENCH_STATS=1`).
    passes: Vec<(String, u64, u64)>,
    /// Each smaller result on the way: (tests run when found, size).
    sizes: Vec<(u64, u64)>,
    /// The summary's `phases`, in [`PHASES`]' order (seconds).
    phases: Vec<f64>,
}

/// The summary's phases, in the order of a run, with their column headers.
const PHASES: [(&str, &str); 5] = [
    ("setup", "set-up (cargo's no-op build check)"),
    ("first_runs", "first runs"),
    ("reduction", "reduction"),
    ("recheck", "re-check"),
    ("checks", "libFuzzer cross-check"),
];

/// Executions before the initial test that the reduction's test counts leave
/// out: the two further initial runs (the re-check and the libFuzzer
/// cross-check come after the result, so "to tmin's size" leaves them out).
const FIRST_RUNS: u64 = 2;

/// One sample's row.
struct Row {
    name: String,
    input: u64,
    ours: Measured,
    extra: OursExtra,
    tmin: Measured,
    tmin_1000: Measured,
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn cargo() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// Every sample whose target is in `fuzz/`, by folder name.
fn samples(filter: Option<&str>) -> Vec<Sample> {
    let fuzz_targets = root().join("fuzz/fuzz_targets");
    let mut samples: Vec<Sample> = sample_dirs(root())
        .into_iter()
        .filter_map(|SampleDir { dir, expected, crash }| {
            let target = expected.get("target")?.clone();
            if !fuzz_targets.join(format!("{target}.rs")).is_file() {
                eprintln!("skipping {}: no fuzz target {target} in fuzz/ (an --exec-only sample)", dir.display());
                return None;
            }
            let name = dir.file_name()?.to_string_lossy().into_owned();
            Some(Sample { name, target, crash, expected })
        })
        .filter(|s| filter.map_or(true, |f| s.name.contains(f)))
        .collect();
    samples.sort_by(|a, b| a.name.cmp(&b.name));
    samples
}

/// A fresh copy of the sample's crash file in `dir` (created), under its own name.
fn crash_copy(sample: &Sample, dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).expect("create a scratch directory");
    let copy = dir.join(sample.crash.file_name().expect("a file name"));
    std::fs::copy(&sample.crash, &copy).expect("copy the crash file");
    copy
}

/// The number of bytes in a counter file (0 when it was never written).
fn count(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

fn host_triple() -> String {
    let out = Command::new("rustc").arg("-vV").output().expect("run rustc -vV");
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines().find_map(|l| l.strip_prefix("host: ")).expect("a host line in rustc -vV").trim().to_owned()
}

/// The `cargo fuzz build` binary of the sample's target.
fn libfuzzer_binary(sample: &Sample, host: &str) -> PathBuf {
    let dir = sample.target_dir().unwrap_or_else(|| root().join("fuzz/target"));
    dir.join(host).join("release").join(&sample.target)
}

/// The last lines of a log, on one line.
fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    all[all.len().saturating_sub(lines)..].join(" / ")
}

/// Our tool's command for the sample: `--json -q --parallel 1 --timeout T [ASan flags] -o OUT TARGET CRASH`.
fn ours_command(sample: &Sample, crash: &Path, output: &Path) -> Command {
    let mut command = Command::new(BIN);
    // One test at a time, as tmin: executions compare like for like (testing
    // ahead spends more to wait less; `benches/parallel.rs` measures that).
    command.current_dir(root()).args(["--json", "--quiet", "--parallel", "1", "--timeout"]);
    command.arg(format!("{}s", sample.timeout_secs()));
    if let Some(dir) = sample.target_dir() {
        command.args(["--sanitizer", sample.sanitizer(), "--target-dir"]).arg(dir);
    }
    command.arg("-o").arg(output).arg(&sample.target).arg(crash);
    stack::limit_stack(&mut command, sample.stack_kib());
    command
}

/// Builds the harness and the `cargo fuzz build` binary once, untimed.
fn warm_up(sample: &Sample, scratch: &Path, limit: Duration) {
    let dir = scratch.join(format!("{}-warm-up", sample.name));
    let crash = crash_copy(sample, &dir);
    let mut command = ours_command(sample, &crash, &dir.join("result"));
    command.args(["--max-tests", "1"]);
    let warm = run_limited(&mut command, limit.max(Duration::from_secs(1800)), &dir, "ours");
    assert!(
        warm.status.is_some_and(|s| s.success()),
        "warming up {} failed ({:?}): {}",
        sample.name,
        warm.status,
        tail(&warm.stderr, 8)
    );
    let mut build = Command::new(cargo());
    build.current_dir(root()).args(["fuzz", "build", "--sanitizer", sample.sanitizer()]);
    if let Some(dir) = sample.target_dir() {
        build.arg("--target-dir").arg(dir).env("RUSTC_BOOTSTRAP", "1");
    }
    let built = run_limited(build.arg(&sample.target), Duration::from_secs(1800), &dir, "build");
    assert!(built.status.is_some_and(|s| s.success()), "cargo fuzz build failed: {}", tail(&built.stderr, 8));
}

/// Minimizes the sample with our tool, timed and counted.
fn ours(sample: &Sample, scratch: &Path, limit: Duration, host: &str) -> (Measured, OursExtra) {
    let dir = scratch.join(format!("{}-ours", sample.name));
    let crash = crash_copy(sample, &dir);
    let (output, counter) = (dir.join("result"), dir.join("count"));
    let mut command = ours_command(sample, &crash, &output);
    command.env("PLANTED_COUNT_FILE", &counter);
    let run = run_limited(&mut command, limit, &dir, "ours");
    let failed = !run.status.is_some_and(|s| s.success());
    let mut measured = Measured { execs: count(&counter), wall: run.wall, failed, ..Measured::default() };
    let summary: Value = match serde_json::from_str(&run.stdout) {
        Ok(summary) if run.status.is_some() => summary,
        _ => {
            measured.note = format!("failed ({:?}): {}", run.status, tail(&run.stderr, 4));
            return (measured, OursExtra::default());
        }
    };
    let extra = OursExtra {
        tests: summary["tests"].as_u64().unwrap_or_default(),
        reduce_secs: summary["seconds"].as_f64().unwrap_or_default(),
        passes: summary["passes"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| {
                (
                    p["name"].as_str().unwrap_or("?").to_owned(),
                    p["tests"].as_u64().unwrap_or_default(),
                    p["successes"].as_u64().unwrap_or_default(),
                )
            })
            .collect(),
        sizes: summary["sizes"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| (s["tests"].as_u64().unwrap_or_default(), s["size"].as_u64().unwrap_or_default()))
            .collect(),
        phases: PHASES.iter().map(|(key, _)| summary["phases"][key].as_f64().unwrap_or_default()).collect(),
    };
    measured.size = std::fs::metadata(&output).ok().map(|m| m.len());
    let verified = summary["verified"] == true;
    let libfuzzer = summary["libfuzzer"]["verified"].as_str().unwrap_or("absent").to_owned();
    let check = check_signature(sample, &libfuzzer_binary(sample, host), &output, &dir);
    measured.kept = verified && libfuzzer == "yes" && check.is_ok();
    measured.note = format!(
        "verified {verified}, libFuzzer cross-check {libfuzzer}; replay: {}",
        check.unwrap_or_else(|e| format!("**{e}**"))
    );
    (measured, extra)
}

/// The `cargo fuzz tmin` command: `[--target-dir] [-r RUNS] TARGET CRASH -- -timeout=T -seed=S -artifact_prefix=DIR/`.
fn tmin_command(sample: &Sample, crash: &Path, runs: Option<u32>, seed: u64, artifacts: &Path) -> Command {
    let mut command = Command::new(cargo());
    command.current_dir(root()).args(["fuzz", "tmin", "--sanitizer", sample.sanitizer()]);
    if let Some(dir) = sample.target_dir() {
        command.arg("--target-dir").arg(dir).env("RUSTC_BOOTSTRAP", "1");
    }
    if let Some(runs) = runs {
        command.args(["-r", &runs.to_string()]);
    }
    command.arg(&sample.target).arg(crash).arg("--");
    command.arg(format!("-timeout={}", sample.timeout_secs()));
    // Every step's child inherits it: the whole minimization is repeatable.
    command.arg(format!("-seed={seed}"));
    // libFuzzer's last flag wins over cargo-fuzz's `-artifact_prefix=fuzz/artifacts/TARGET/`.
    let mut prefix = OsString::from("-artifact_prefix=");
    prefix.push(artifacts.join(""));
    command.arg(prefix);
    stack::limit_stack(&mut command, sample.stack_kib());
    command
}

/// The newest file in `dir` (tmin's last `minimized-from-*`), if any.
fn newest_file(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .max()
        .map(|(_, path)| path)
}

/// How libFuzzer's crash minimization ended, from its `CRASH_MIN` lines.
fn tmin_story(log: &str) -> String {
    let steps = log.matches("CRASH_MIN: minimizing crash input").count();
    let end = if log.contains("mismatch in dedup tokens") {
        "a step crashed differently (dedup tokens), so it stopped"
    } else if log.contains("failed to minimize beyond") {
        "a step found no smaller crash"
    } else if log.contains("No such directory") {
        "a step's child crashed but wrote no file (libFuzzer's crash handler never ran), so cargo fuzz failed"
    } else if log.contains("did not crash") {
        "the input did not crash"
    } else {
        "no end line"
    };
    format!("{steps} step{}, {end}", if steps == 1 { "" } else { "s" })
}

/// Minimizes the sample with `cargo fuzz tmin [-r RUNS]` and libFuzzer's
/// `-seed`, timed and counted.
fn tmin(sample: &Sample, scratch: &Path, runs: Option<u32>, seed: u64, limit: Duration, host: &str) -> Measured {
    let label = runs.map_or("tmin".to_owned(), |r| format!("tmin-r{r}")) + &format!("-seed{seed}");
    let dir = scratch.join(format!("{}-{label}", sample.name));
    let crash = crash_copy(sample, &dir);
    let (artifacts, counter) = (dir.join("artifacts"), dir.join("count"));
    std::fs::create_dir_all(&artifacts).expect("create the artifacts directory");
    let mut command = tmin_command(sample, &crash, runs, seed, &artifacts);
    command.env("PLANTED_COUNT_FILE", &counter);
    // cargo-fuzz creates `fuzz/artifacts/TARGET/` even though libFuzzer writes
    // elsewhere: the directories that were not there are removed (when empty).
    let artifacts_dir = root().join("fuzz/artifacts");
    let created: Vec<PathBuf> =
        [artifacts_dir.join(&sample.target), artifacts_dir].into_iter().filter(|d| !d.exists()).collect();
    let run = run_limited(&mut command, limit, &dir, &label);
    for dir in &created {
        let _ = std::fs::remove_dir(dir);
    }
    let story = tmin_story(&run.stderr);
    let mut measured = Measured { execs: count(&counter), wall: run.wall, ..Measured::default() };
    let ended = match run.status {
        None => format!("**killed at the {}-second limit**", limit.as_secs()),
        Some(status) if status.success() => "exit 0".to_owned(),
        Some(status) => format!("**{status}**"),
    };
    measured.failed = !run.status.is_some_and(|s| s.success());
    let result = newest_file(&artifacts).unwrap_or(crash);
    measured.size = std::fs::metadata(&result).ok().map(|m| m.len());
    let check = check_signature(sample, &libfuzzer_binary(sample, host), &result, &dir);
    measured.kept = check.is_ok();
    measured.note = format!("{ended}, {story}; replay: {}", check.unwrap_or_else(|e| format!("**{e}**")));
    measured
}

/// What a crash looks like in a replay's output, in a few words.
fn describe(status: Option<ExitStatus>, stderr: &str) -> String {
    let panic = stderr.lines().find_map(|l| l.split_once("panicked at ").map(|(_, at)| at.trim_end_matches(':')));
    let asan = stderr.lines().find_map(|l| l.split_once("ERROR: AddressSanitizer: ")?.1.split_whitespace().next());
    // `#0 0x55.. in decode_frame /path/crates/planted/src/indexed.rs:49:30`: the function and its place.
    let frame =
        stderr.lines().find(|l| l.contains("crates/planted/")).map(|l| l.split_once(" in ").map_or(l, |(_, f)| f));
    match (status, panic, asan) {
        (None, ..) => "no exit within the limit".to_owned(),
        (_, Some(at), _) => format!("panic at {at}"),
        (_, _, Some(bug)) => format!("AddressSanitizer: {} at {}", bug, frame.unwrap_or("no planted frame")),
        (Some(_), ..) if stderr.contains("ERROR: libFuzzer: timeout") => "libFuzzer timeout".to_owned(),
        (Some(s), ..) if s.signal().is_some() => format!("signal {}", s.signal().unwrap_or_default()),
        (Some(s), ..) if s.success() => "no crash".to_owned(),
        (Some(s), ..) => format!("{s}: {}", tail(stderr, 2)),
    }
}

/// Runs `file` once on the `cargo fuzz build` binary; `Ok(what it did)` when it
/// crashes as `expected.toml` says, `Err(what it did)` otherwise.
fn check_signature(sample: &Sample, binary: &Path, file: &Path, logs: &Path) -> Result<String, String> {
    let timeout = sample.timeout_secs();
    let mut command = Command::new(binary);
    command.args(["-runs=1", "-rss_limit_mb=2048", "-handle_abrt=0", "-handle_segv=0"]);
    command.arg(format!("-timeout={timeout}")).arg(file).env("RUST_BACKTRACE", "0");
    stack::limit_stack(&mut command, sample.stack_kib());
    let run = run_limited(&mut command, Duration::from_secs(timeout * 4 + 30), logs, "replay");
    let what = describe(run.status, &run.stderr);
    let location = sample.get("location").unwrap_or("(no location)");
    let same = match sample.kind() {
        "panic" => what.starts_with("panic at ") && what.contains(location),
        "signal" => {
            let signal = sample.get("harness_signal").or(sample.get("signal")).unwrap_or("?");
            what == format!("signal {signal}")
        }
        "timeout" => what == "libFuzzer timeout",
        "sanitizer" => {
            let bug = sample.get("bug").unwrap_or("?");
            what.starts_with(&format!("AddressSanitizer: {bug} ")) && what.contains(location)
        }
        other => panic!("{}: no replay check for the kind {other}", sample.name),
    };
    if same {
        Ok(what)
    } else {
        Err(what)
    }
}

fn secs(time: Duration) -> String {
    format!("{:.1} s", time.as_secs_f64())
}

fn ratio(ours: f64, theirs: f64) -> String {
    if theirs > 0.0 {
        format!("{:.2}", ours / theirs)
    } else {
        "-".to_owned()
    }
}

fn size_cell(m: &Measured) -> String {
    match m.size {
        Some(size) if m.failed => format!("{size} (failed)"),
        Some(size) => size.to_string(),
        None => "failed".to_owned(),
    }
}

fn kept_cell(m: &Measured) -> &'static str {
    if m.kept {
        "✓"
    } else {
        "**✗**"
    }
}

/// Whether our result is larger than a tmin result that keeps the signature.
fn larger_than_tmin(row: &Row) -> bool {
    let ours = row.ours.size.unwrap_or(u64::MAX);
    [&row.tmin, &row.tmin_1000].iter().any(|t| t.kept && t.size.is_some_and(|size| ours > size))
}

/// Our executions until our result was no larger than tmin's (default)
/// result: the same work as tmin's, counted the same way (`None` when tmin
/// failed or we never got there).
fn execs_to_tmin_size(row: &Row) -> Option<u64> {
    let target = row.tmin.size.filter(|_| !row.tmin.failed)?;
    if row.input <= target {
        return Some(FIRST_RUNS + 1);
    }
    row.extra.sizes.iter().find(|&&(_, size)| size <= target).map(|&(tests, _)| FIRST_RUNS + tests)
}

/// The per-case goal marks: the totals decide goals 2 and 3, these show where they are missed.
fn goals_cell(row: &Row) -> String {
    let mut misses = Vec::new();
    if larger_than_tmin(row) || !row.ours.kept {
        misses.push(if row.ours.kept { "larger than tmin" } else { "our result lost the signature" });
    }
    if row.ours.execs * 3 > row.tmin.execs {
        misses.push("execs > 1/3");
    }
    if row.ours.wall * 3 > row.tmin.wall {
        misses.push("time > 1/3");
    }
    if misses.is_empty() {
        "✓".to_owned()
    } else {
        format!("**✗** {}", misses.join(", "))
    }
}

fn cells(row: &Row) -> Vec<String> {
    let (o, t, k) = (&row.ours, &row.tmin, &row.tmin_1000);
    vec![
        row.name.clone(),
        row.input.to_string(),
        size_cell(o),
        size_cell(t),
        size_cell(k),
        o.execs.to_string(),
        row.extra.tests.to_string(),
        execs_to_tmin_size(row).map_or("-".to_owned(), |n| n.to_string()),
        t.execs.to_string(),
        k.execs.to_string(),
        secs(o.wall),
        format!("{:.2} s", row.extra.reduce_secs),
        secs(t.wall),
        secs(k.wall),
        format!("{} {} {}", kept_cell(o), kept_cell(t), kept_cell(k)),
        ratio(o.size.unwrap_or_default() as f64, t.size.unwrap_or_default() as f64),
        ratio(o.execs as f64, t.execs as f64),
        ratio(o.wall.as_secs_f64(), t.wall.as_secs_f64()),
        goals_cell(row),
    ]
}

/// Sums of one side over the rows: size, executions, wall time.
fn side_total<'a>(rows: impl IntoIterator<Item = &'a Row>, side: fn(&Row) -> &Measured) -> (u64, u64, Duration) {
    rows.into_iter().map(side).fold((0, 0, Duration::ZERO), |(size, execs, wall), m| {
        (size + m.size.unwrap_or_default(), execs + m.execs, wall + m.wall)
    })
}

fn totals(rows: &[Row]) -> Vec<String> {
    let o = side_total(rows, |r| &r.ours);
    let t = side_total(rows, |r| &r.tmin);
    let k = side_total(rows, |r| &r.tmin_1000);
    let kept = |side: fn(&Row) -> &Measured| rows.iter().filter(|r| side(r).kept).count();
    vec![
        format!("**total** ({} samples)", rows.len()),
        rows.iter().map(|r| r.input).sum::<u64>().to_string(),
        o.0.to_string(),
        t.0.to_string(),
        k.0.to_string(),
        o.1.to_string(),
        rows.iter().map(|r| r.extra.tests).sum::<u64>().to_string(),
        rows.iter().filter_map(execs_to_tmin_size).sum::<u64>().to_string(),
        t.1.to_string(),
        k.1.to_string(),
        secs(o.2),
        format!("{:.2} s", rows.iter().map(|r| r.extra.reduce_secs).sum::<f64>()),
        secs(t.2),
        secs(k.2),
        format!("{} {} {}", kept(|r| &r.ours), kept(|r| &r.tmin), kept(|r| &r.tmin_1000)),
        ratio(o.0 as f64, t.0 as f64),
        ratio(o.1 as f64, t.1 as f64),
        ratio(o.2.as_secs_f64(), t.2.as_secs_f64()),
        String::new(),
    ]
}

fn print_table(rows: &[Row]) {
    let headers = [
        "sample",
        "input",
        "size ours",
        "size tmin",
        "size tmin -r 1000",
        "execs ours",
        "tests ours (JSON)",
        "execs ours to tmin's size",
        "execs tmin",
        "execs tmin -r 1000",
        "end-to-end ours",
        "reduction ours",
        "end-to-end tmin",
        "end-to-end tmin -r 1000",
        "signature kept (ours tmin -r 1000)",
        "size ours/tmin",
        "execs ours/tmin",
        "time ours/tmin",
        "goals",
    ];
    table::print(&headers, rows.iter().map(cells).chain([totals(rows)]));
}

/// Where our end-to-end time went, phase by phase (the summary's
/// `phases`); "the rest" is the process's own start and end.
fn print_phases(rows: &[Row]) {
    let mut headers = vec!["sample", "end-to-end ours"];
    headers.extend(PHASES.iter().map(|(_, header)| *header));
    headers.push("the rest");
    let line = |name: String, wall: f64, phases: &[f64]| {
        let mut cells = vec![name, format!("{wall:.3} s")];
        cells.extend(phases.iter().map(|p| format!("{p:.3} s")));
        cells.push(format!("{:.3} s", wall - phases.iter().sum::<f64>()));
        cells
    };
    let lines = rows.iter().filter(|r| r.extra.phases.len() == PHASES.len());
    let mut total = vec![0.0; PHASES.len()];
    for row in lines.clone() {
        total.iter_mut().zip(&row.extra.phases).for_each(|(t, p)| *t += p);
    }
    let wall: f64 = lines.clone().map(|r| r.ours.wall.as_secs_f64()).sum();
    let body = lines.map(|r| line(r.name.clone(), r.ours.wall.as_secs_f64(), &r.extra.phases));
    table::print(&headers, body.chain([line("**total**".to_owned(), wall, &total)]));
}

fn yes_no(ok: bool) -> &'static str {
    if ok {
        "**✓**"
    } else {
        "**✗**"
    }
}

/// One total goal's line: ours at most a third of tmin's (default) over the
/// samples tmin minimizes, with the all-samples and `-r 1000` figures after it.
fn goal_line(label: &str, pick: fn((u64, u64, Duration)) -> f64, rows: &[Row], show: fn(f64) -> String) {
    let comparable: Vec<&Row> = rows.iter().filter(|r| !r.tmin.failed).collect();
    let [o, t] =
        [side_total(comparable.iter().copied(), |r| &r.ours), side_total(comparable.iter().copied(), |r| &r.tmin)];
    let [all_o, all_t, all_k] =
        [side_total(rows, |r| &r.ours), side_total(rows, |r| &r.tmin), side_total(rows, |r| &r.tmin_1000)];
    let (o, t) = (pick(o), pick(t));
    let excluded: Vec<&str> = rows.iter().filter(|r| r.tmin.failed).map(|r| r.name.as_str()).collect();
    let excluded =
        if excluded.is_empty() { String::new() } else { format!(", {} excluded: tmin failed", excluded.join(", ")) };
    println!(
        "- {label} at most a third of tmin's: {} ({} vs {}, ratio {} over the {} samples tmin minimizes{excluded}; \
         all samples: {} vs {}, ratio {}; against -r 1000: {}, ratio {})",
        yes_no(o * 3.0 <= t),
        show(o),
        show(t),
        ratio(o, t),
        comparable.len(),
        show(pick(all_o)),
        show(pick(all_t)),
        ratio(pick(all_o), pick(all_t)),
        show(pick(all_k)),
        ratio(pick(all_o), pick(all_k))
    );
}

/// Goal 2 counted on the same work: our executions until our result was as
/// small as tmin's, against all of tmin's, per sample and in total.
fn fair_line(rows: &[Row]) {
    let pairs: Vec<(&str, u64, u64)> =
        rows.iter().filter_map(|r| Some((r.name.as_str(), execs_to_tmin_size(r)?, r.tmin.execs))).collect();
    let missed: Vec<String> =
        pairs.iter().filter(|p| p.1 * 3 > p.2).map(|p| format!("{} {} vs {}", p.0, p.1, p.2)).collect();
    let (ours, theirs) = pairs.iter().fold((0, 0), |(o, t), p| (o + p.1, t + p.2));
    println!(
        "- Goal 2 on the same work, our executions until our result was as small as tmin's: {} in total ({ours} vs \
         {theirs}, ratio {} over {} samples); a third or less on {} of them{}",
        yes_no(ours * 3 <= theirs),
        ratio(ours as f64, theirs as f64),
        pairs.len(),
        pairs.len() - missed.len(),
        if missed.is_empty() { String::new() } else { format!(" (not on {})", missed.join(", ")) }
    );
}

fn print_goals(rows: &[Row]) {
    let larger: Vec<&str> =
        rows.iter().filter(|r| larger_than_tmin(r) || !r.ours.kept).map(|r| r.name.as_str()).collect();
    println!();
    println!(
        "- Goal 1, our result never larger than a tmin result that keeps the signature (either setting), and ours keeps it: {}{}",
        yes_no(larger.is_empty()),
        if larger.is_empty() { String::new() } else { format!(" (missed on {})", larger.join(", ")) }
    );
    goal_line("Goal 2, total executions", |t| t.1 as f64, rows, |n| format!("{n:.0}"));
    fair_line(rows);
    goal_line("Goal 3, total end-to-end time", |t| t.2.as_secs_f64(), rows, |s| format!("{s:.1} s"));
}

fn print_notes(rows: &[Row]) {
    let stats = std::env::var_os("BENCH_STATS").is_some();
    println!();
    for row in rows {
        let extra = row.ours.execs as i64 - row.extra.tests as i64;
        println!(
            "- {}: ours: {} executions = {} tests + {extra} outside the reducer; {}",
            row.name, row.ours.execs, row.extra.tests, row.ours.note
        );
        if stats {
            let passes: Vec<String> =
                row.extra.passes.iter().map(|(name, tests, wins)| format!("{name} {tests}/{wins}")).collect();
            println!("  - our passes (tests/successes): {}", passes.join(", "));
        }
        println!("  - tmin: {}", row.tmin.note);
        println!("  - tmin -r 1000: {}", row.tmin_1000.note);
    }
}

/// Measures one sample: warm-up, ours, tmin, tmin -r 1000.
fn measure(sample: &Sample, scratch: &Path, limit: Duration, host: &str) -> Row {
    eprintln!("tmin bench: {}: warming up (harness and cargo fuzz build)", sample.name);
    warm_up(sample, scratch, limit);
    eprintln!("tmin bench: {}: ours", sample.name);
    let (ours, extra) = ours(sample, scratch, limit, host);
    let seeds = tmin_seeds();
    let mut runs: Vec<Measured> = seeds
        .clone()
        .map(|seed| {
            eprintln!("tmin bench: {}: cargo fuzz tmin -seed={seed}", sample.name);
            tmin(sample, scratch, None, seed, limit, host)
        })
        .collect();
    let tmin_default = median_run(&mut runs, seeds.start);
    eprintln!("tmin bench: {}: cargo fuzz tmin -r 1000 -seed={}", sample.name, seeds.start);
    let tmin_1000 = tmin(sample, scratch, Some(1000), seeds.start, limit, host);
    let input = std::fs::metadata(&sample.crash).map_or(0, |m| m.len());
    Row { name: sample.name.clone(), input, ours, extra, tmin: tmin_default, tmin_1000 }
}

/// The seeds of tmin's default runs: `BENCH_TMIN_SEED` (default 1) and the
/// `BENCH_TMIN_RUNS - 1` (default 2) after it.
fn tmin_seeds() -> std::ops::Range<u64> {
    let var = |name: &str, default: u64| std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    let first = var("BENCH_TMIN_SEED", 1);
    first..first + var("BENCH_TMIN_RUNS", 3).max(1)
}

/// The run with the median executions (the lower middle of an even count),
/// its note naming every run's seed and executions.
fn median_run(runs: &mut Vec<Measured>, first_seed: u64) -> Measured {
    let all: Vec<String> =
        runs.iter().enumerate().map(|(i, m)| format!("seed {}: {}", first_seed + i as u64, m.execs)).collect();
    runs.sort_by_key(|m| m.execs);
    let mut median = runs.swap_remove((runs.len() - 1) / 2);
    if all.len() > 1 {
        median.note = format!("median of {} runs by executions ({}); {}", all.len(), all.join(", "), median.note);
    }
    median
}

fn describe_sample(sample: &Sample) -> String {
    let stack = sample.stack_kib().map_or(String::new(), |k| format!(", stack {k} KiB"));
    format!(
        "{} ({}, --sanitizer {}, timeout {} s{stack})",
        sample.name,
        sample.kind(),
        sample.sanitizer(),
        sample.timeout_secs()
    )
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let filter = args.iter().find(|a| !a.starts_with('-')).map(String::as_str);
    let samples = samples(filter);
    let listed: Vec<String> = samples.iter().map(describe_sample).collect();
    if !args.iter().any(|a| a == "--bench") {
        println!("samples: {} (run `cargo bench --bench tmin` to measure)", listed.join("; "));
        return;
    }
    assert!(cargo_fuzz::ensure_installed(), "the comparison needs `cargo fuzz`");
    let limit_secs = std::env::var("BENCH_TMIN_LIMIT").ok().and_then(|s| s.parse().ok()).unwrap_or(DEFAULT_LIMIT_SECS);
    let limit = Duration::from_secs(limit_secs);
    let host = host_triple();
    let scratch = tempfile::Builder::new().prefix("bench-tmin-").tempdir().expect("a temporary directory");
    println!("samples: {}", listed.join("; "));
    println!("per-run wall limit: {limit_secs} s (BENCH_TMIN_LIMIT); a run past it is killed and shows what it had");
    let rows: Vec<Row> = samples.iter().map(|s| measure(s, scratch.path(), limit, &host)).collect();
    print_table(&rows);
    print_phases(&rows);
    print_goals(&rows);
    print_notes(&rows);
}
