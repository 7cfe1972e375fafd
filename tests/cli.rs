//! The `cargo-minimize-crash` binary end to end: `--exec` mode on the bundled
//! samples in `corpus-samples/`, replayed by `planted-replay`; the harness mode
//! on the sample cargo-fuzz project in `fuzz/`, replayed by the harness binary
//! itself; the error paths and their exit codes. Crash files are copied into
//! temporary directories and results written there: the checkout is only
//! written under `fuzz/target` (the harness build, as `cargo fuzz` would) and
//! the workspace's `target/tmp`.

use std::collections::HashMap;
use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use assert_cmd::assert::Assert;
use serde_json::Value;
use tempfile::TempDir;

#[path = "cli/batch.rs"]
mod batch;
#[path = "support/cargo_fuzz.rs"]
mod cargo_fuzz;
#[path = "cli/corpus.rs"]
mod corpus;
#[path = "cli/first_run.rs"]
mod first_run;
#[path = "cli/population.rs"]
mod population;
#[path = "cli/real.rs"]
mod real;
#[path = "cli/snapshots.rs"]
mod snapshots;
#[path = "cli/typed_population.rs"]
mod typed_population;

const BIN: &str = env!("CARGO_BIN_EXE_cargo-minimize-crash");

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `planted-replay`, built once per test run by the same cargo, with the same
/// profile and target directory as the binary under test.
fn planted_replay() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| planted_binary("planted-replay"))
}

/// Builds a binary of the `planted` crate with the same cargo, profile and
/// target directory as the binary under test; returns its path.
fn planted_binary(name: &str) -> PathBuf {
    planted_binary_with(name, &[])
}

/// [`planted_binary`] with the `planted` crate's `features`.
fn planted_binary_with(name: &str, features: &[&str]) -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let profile_dir = Path::new(BIN).parent().expect("the binary's directory");
    let profile = profile_dir.file_name().and_then(|p| p.to_str()).expect("a profile directory");
    let target_dir = profile_dir.parent().expect("the target directory");
    let mut build = Command::new(cargo);
    build
        .current_dir(root())
        .args(["build", "-p", "planted", "--bin", name, "--message-format=json-render-diagnostics"])
        .arg("--target-dir")
        .arg(target_dir);
    if !features.is_empty() {
        build.arg("--features").arg(features.join(","));
    }
    match profile {
        "debug" => {}
        "release" => {
            build.arg("--release");
        }
        other => {
            build.args(["--profile", other]);
        }
    }
    let output = build.output().expect("run cargo build");
    assert!(output.status.success(), "building {name} failed:\n{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == name)
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .unwrap_or_else(|| panic!("cargo reported no {name} executable"))
}

fn exec_line(target: &str) -> String {
    format!("'{}' {target} @@", planted_replay().display())
}

fn sha1_hex(bytes: &[u8]) -> String {
    sha1_smol::Sha1::from(bytes).digest().to_string()
}

/// A sample copied into a temporary directory.
struct Sample {
    target: String,
    expected: HashMap<String, String>,
    crash: PathBuf,
    dir: TempDir,
}

impl Sample {
    /// A copy of the sample in `corpus-samples/<name>` (its target is the
    /// one `expected.toml` names).
    fn copy(name: &str) -> Sample {
        let source = root().join("corpus-samples").join(name);
        let crash_name = std::fs::read_dir(&source)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .find(|n| n.to_string_lossy().starts_with("crash-"))
            .unwrap_or_else(|| panic!("no crash file in {}", source.display()));
        let dir = tempfile::tempdir().unwrap();
        let crash = dir.path().join(&crash_name);
        std::fs::copy(source.join(&crash_name), &crash).unwrap();
        let expected = parse_expected(&std::fs::read_to_string(source.join("expected.toml")).unwrap());
        Sample { target: expected["target"].clone(), expected, crash, dir }
    }

    fn max_size(&self) -> u64 {
        self.expected["max_size"].parse().unwrap()
    }

    /// The signature's kind in harness mode (and in a `cargo fuzz build` binary), when it differs.
    fn harness_kind(&self) -> &str {
        self.expected.get("harness_kind").unwrap_or(&self.expected["kind"])
    }

    /// Runs `command` (and what it starts) with the main-thread stack the
    /// sample's bug needs in harness mode (`harness_stack_kib`), if any, less
    /// `slack_kib`.
    fn limit_stack(&self, command: &mut Command, slack_kib: u64) {
        let Some(kib) = self.expected.get("harness_stack_kib") else { return };
        limit_stack_to(command, kib.parse::<u64>().unwrap() - slack_kib);
    }

    /// Runs the tool on the sample's copy with `--json`; returns the result's path and the summary.
    fn minimize(&self, extra: &[&str]) -> (PathBuf, Value) {
        let assert = tool()
            .current_dir(self.dir.path())
            .arg("--json")
            .arg("--exec")
            .arg(exec_line(&self.target))
            .args(extra)
            .arg(&self.crash)
            .assert();
        let output = assert.get_output().clone();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "minimizing {} failed:\n{stderr}", self.target);
        let summary: Value = serde_json::from_slice(&output.stdout).expect("--json prints a JSON summary");
        (PathBuf::from(summary["output"].as_str().unwrap()), summary)
    }

    /// The crash file still has the contents its name says.
    fn assert_crash_unchanged(&self) {
        let name = self.crash.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&self.crash).unwrap();
        assert_eq!(format!("crash-{}", sha1_hex(&bytes)), name, "the crash file was modified");
    }
}

/// The subset of TOML that `expected.toml` uses: `key = "string"` and `key = 123`.
/// Runs `command` (and what it starts) with a main-thread stack of `kib` KiB (`ulimit -s`).
fn limit_stack_to(command: &mut Command, kib: u64) {
    use std::os::unix::process::CommandExt;
    let bytes = kib * 1024;
    // SAFETY: setrlimit is async-signal-safe.
    unsafe {
        command.pre_exec(move || {
            let limit = nix::libc::rlimit { rlim_cur: bytes, rlim_max: nix::libc::RLIM_INFINITY };
            if nix::libc::setrlimit(nix::libc::RLIMIT_STACK, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

fn parse_expected(text: &str) -> HashMap<String, String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (key, value) = l.split_once('=').expect("key = value");
            (key.trim().to_owned(), value.trim().trim_matches('"').to_owned())
        })
        .collect()
}

fn tool() -> assert_cmd::Command {
    let mut command = assert_cmd::Command::new(BIN);
    command.timeout(Duration::from_secs(110));
    command
}

/// What `planted-replay` did with a file: `None` when it was still running after `wait`.
struct Replay {
    status: Option<ExitStatus>,
    stderr: String,
}

fn replay(target: &str, file: &Path, wait: Duration) -> Replay {
    let mut child = Command::new(planted_replay())
        .arg(target)
        .arg(file)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + wait;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if Instant::now() >= deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    Replay { status, stderr }
}

/// The file crashes under `planted-replay` the way `expected.toml` says.
fn assert_crashes_as_expected(sample: &Sample, file: &Path) {
    let expected = &sample.expected;
    let wait = if expected["kind"] == "timeout" { Duration::from_secs(2) } else { Duration::from_secs(20) };
    let run = replay(&sample.target, file, wait);
    let what = format!("{} replayed: {:?}\n{}", file.display(), run.status, run.stderr);
    match expected["kind"].as_str() {
        "panic" => {
            assert_eq!(run.status.and_then(|s| s.code()), Some(101), "{what}");
            assert!(run.stderr.contains(&format!("panicked at {}:", expected["location"])), "{what}");
        }
        "stack-overflow" => {
            assert_eq!(run.status.and_then(|s| s.signal()), Some(6), "{what}");
            assert!(run.stderr.contains("has overflowed its stack"), "{what}");
        }
        "signal" => {
            let signal: i32 = expected["signal"].parse().unwrap();
            assert_eq!(run.status.and_then(|s| s.signal()), Some(signal), "{what}");
        }
        "timeout" => assert!(run.status.is_none(), "expected a hang; {what}"),
        other => panic!("unknown kind {other} in expected.toml"),
    }
}

/// The summary's `sizes`: each smaller than the one before, found later,
/// the last the result's, the tests within the reduction's.
fn assert_sizes_come_down(summary: &Value) {
    let steps: Vec<(u64, u64)> = summary["sizes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["tests"].as_u64().unwrap(), s["size"].as_u64().unwrap()))
        .collect();
    let initial = summary["initial_size"].as_u64().unwrap();
    let mut before = (1, initial);
    for &step in &steps {
        assert!(step.0 > before.0 && step.1 < before.1, "{steps:?}");
        before = step;
    }
    assert_eq!(before.1, summary["final_size"].as_u64().unwrap(), "{steps:?}");
    assert!(before.0 <= summary["tests_to_result"].as_u64().unwrap(), "{steps:?}");
}

/// Minimizes a sample and checks everything `expected.toml` promises.
fn check_sample(target: &str, extra: &[&str]) -> Value {
    let sample = Sample::copy(target);
    assert_crashes_as_expected(&sample, &sample.crash);
    let (output, summary) = sample.minimize(extra);
    let size = std::fs::metadata(&output).unwrap().len();
    let signature = &summary["signature"];
    assert_eq!(signature["kind"], sample.expected["kind"].as_str(), "{summary:#}");
    if let Some(location) = sample.expected.get("location") {
        assert_eq!(signature["location"], location.as_str(), "{summary:#}");
    }
    assert_eq!(summary["verified"], true, "{summary:#}");
    assert_eq!(summary["final_size"], size, "the summary's size is the file's");
    assert_sizes_come_down(&summary);
    assert_crashes_as_expected(&sample, &output);
    sample.assert_crash_unchanged();
    assert!(
        size <= sample.max_size(),
        "{target}: minimized to {size} bytes, above the bound of {} (from {} bytes; stopped: {}; passes: {})",
        sample.max_size(),
        summary["initial_size"],
        summary["stop"],
        summary["passes"]
    );
    summary
}

#[test]
fn the_tlv_sample_minimizes_below_its_bound_and_still_panics_in_the_same_place() {
    check_sample("tlv", &[]);
}

#[test]
fn the_image_sample_minimizes_below_its_bound_and_still_panics_in_the_same_place() {
    check_sample("image", &[]);
}

#[test]
fn the_nest_sample_minimizes_below_its_bound_and_still_overflows_the_stack() {
    check_sample("nest", &[]);
}

#[test]
fn the_vm_sample_minimizes_below_its_bound_and_still_aborts_next_to_the_crash_by_default() {
    let summary = check_sample("vm", &[]);
    let output = PathBuf::from(summary["output"].as_str().unwrap());
    let crash = summary["crash"].as_str().unwrap();
    let hash = crash.rsplit("crash-").next().unwrap();
    assert_eq!(output.file_name().unwrap().to_string_lossy(), format!("minimized-from-{hash}"));
    assert_eq!(output.parent(), Path::new(crash).parent());
    assert!(summary["reproduce"].as_str().unwrap().contains("planted-replay"), "{summary:#}");
}

#[test]
fn a_hanging_sample_is_minimized_as_a_timeout_and_never_traded_for_its_panic() {
    // The sample hangs; deleting its endless jump exposes a panic further on.
    // Timeouts are their own kind, so the result must still hang.
    let summary = check_sample("rle", &["--timeout", "0.25"]);
    assert_eq!(summary["signature"]["kind"], "timeout");
}

#[test]
fn a_missing_crash_file_is_a_usage_error_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("crash-nope");
    let assert = tool().arg("--exec").arg(exec_line("tlv")).arg(&missing).assert().code(2);
    assert_stderr_contains(&assert, &missing.display().to_string());
}

#[test]
fn an_empty_crash_file_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("crash-empty");
    std::fs::write(&empty, b"").unwrap();
    let assert = tool().arg("--exec").arg(exec_line("tlv")).arg(&empty).assert().code(2);
    assert_stderr_contains(&assert, "is empty");
}

#[test]
fn an_input_that_does_not_crash_exits_with_its_own_code() {
    let dir = tempfile::tempdir().unwrap();
    let benign = dir.path().join("not-a-crash");
    std::fs::write(&benign, b"TLV1\x01\x05\x00hello\x00\x00\x00").unwrap();
    let assert = tool().arg("--exec").arg(exec_line("tlv")).arg(&benign).assert().code(3);
    assert_stderr_contains(&assert, "does not crash");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "nothing is written");
}

#[test]
fn a_command_that_cannot_be_started_is_a_usage_error_naming_it() {
    let sample = Sample::copy("vm");
    let assert = tool().args(["--exec", "no-such-fuzz-target-7f3a -runs=1 @@"]).arg(&sample.crash).assert().code(2);
    assert_stderr_contains(&assert, "no-such-fuzz-target-7f3a");
    let unbalanced = tool().args(["--exec", "planted-replay 'vm @@"]).arg(&sample.crash).assert().code(2);
    assert_stderr_contains(&unbalanced, "--exec");
}

#[test]
fn without_exec_a_single_argument_is_a_usage_error_asking_for_the_target() {
    let sample = Sample::copy("vm");
    let assert = tool().arg(&sample.crash).assert().code(2);
    assert_stderr_contains(&assert, "give the fuzz target's name");
}

// ---- The harness mode, on the sample cargo-fuzz project in fuzz/.

/// Harness-mode runs on `fuzz/` share one scratch directory (under
/// `fuzz/target`, where a plain run puts it): one at a time.
fn harness_lock() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// What a harness-mode run left: the summary, and the harness binary it built.
struct HarnessRun {
    summary: Value,
    output: PathBuf,
    harness: PathBuf,
    stderr: String,
    /// The run's wall time, as this test saw it.
    wall: Duration,
}

/// Minimizes `sample` in harness mode from the repository root, writing into the sample's temp dir.
fn minimize_with_harness(sample: &Sample, extra: &[&str]) -> HarnessRun {
    let output = sample.dir.path().join("minimized");
    let _lock = harness_lock();
    let mut command = Command::new(BIN);
    command.current_dir(root()).arg("--json").args(extra).arg("-o").arg(&output).arg(&sample.target);
    command.arg(&sample.crash);
    sample.limit_stack(&mut command, 0);
    // A guard against a hang, not a time goal: `orders` without structure
    // takes 94,000 tests (100 s in a debug build on a quiet machine).
    let started = Instant::now();
    let assert = assert_cmd::Command::from_std(command).timeout(Duration::from_secs(300)).assert();
    let wall = started.elapsed();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert_eq!(assert.get_output().status.code(), Some(0), "harness mode on {} failed:\n{stderr}", sample.target);
    let summary: Value = serde_json::from_slice(&assert.get_output().stdout).expect("--json prints a JSON summary");
    let harness = built_harness(&stderr);
    assert_eq!(summary["output"], output.to_str().unwrap());
    HarnessRun { summary, output, harness, stderr, wall }
}

/// The harness binary a run built, from its `built HARNESS in TIME` line.
fn built_harness(stderr: &str) -> PathBuf {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("built ").and_then(|l| l.rsplit_once(" in ")).map(|(path, _)| path))
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("no `built HARNESS in` line:\n{stderr}"))
}

/// Runs the harness in replay mode (`harness FILE`, like `fuzz_target -runs=1 FILE`).
fn replay_with_harness(sample: &Sample, harness: &Path, file: &Path) -> (ExitStatus, String) {
    let mut command = Command::new(harness);
    command.arg(file).env("RUST_BACKTRACE", "0").stdin(Stdio::null());
    // A minimized stack overflow sits right at the limit of the fork server's
    // child; a fresh process has its stack top placed elsewhere (ASLR moves it
    // by up to 8 KiB) and replay calls the target from a shallower frame.
    sample.limit_stack(&mut command, 32);
    let output = command.output().unwrap();
    (output.status, String::from_utf8_lossy(&output.stderr).into_owned())
}

/// Whether `cargo fuzz` works here.
/// `cov:` and `ft:` of the `INITED` line of libFuzzer `binary` run with `-runs=0` over `dirs`.
fn inited_counts(binary: &Path, dirs: &[&Path]) -> (u64, u64) {
    let output = Command::new(binary).arg("-runs=0").args(dirs).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{binary:?} -runs=0 failed:\n{stderr}");
    let line = stderr.lines().find(|l| l.contains("INITED")).unwrap_or_else(|| panic!("no INITED line:\n{stderr}"));
    let count = |key: &str| -> u64 {
        let rest = &line[line.find(key).unwrap_or_else(|| panic!("no {key} in {line}")) + key.len()..];
        rest.split_whitespace().next().unwrap().parse().unwrap()
    };
    (count("cov: "), count("ft: "))
}

fn cargo_fuzz_installed() -> bool {
    cargo_fuzz::installed()
}

/// Every file under `dir` but cargo's and the fuzzer's output directories, with its hash.
fn snapshot(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if !["target", "artifacts", "corpus", "coverage"].contains(&name.as_str()) {
                    stack.push(path);
                }
            } else {
                files.push((path.clone(), sha1_hex(&std::fs::read(&path).unwrap())));
            }
        }
    }
    files.sort();
    files
}

/// Minimizes a sample in harness mode and checks what `expected.toml` promises,
/// replaying the result with the harness binary, and that the tool's own
/// check with a plain libFuzzer build (`cargo fuzz build`) agrees.
fn check_harness_sample(target: &str, extra: &[&str]) -> HarnessRun {
    let sample = Sample::copy(target);
    let run = minimize_with_harness(&sample, extra);
    let summary = &run.summary;
    let size = std::fs::metadata(&run.output).unwrap().len();
    let kind = sample.harness_kind();
    assert_eq!(summary["signature"]["kind"], kind, "{summary:#}");
    if let Some(location) = sample.expected.get("location") {
        // A path dependency outside the fuzz workspace keeps its absolute path, as in a `cargo fuzz` build.
        let found = summary["signature"]["location"].as_str().unwrap_or_default();
        assert!(found.ends_with(location.as_str()), "expected {location}, got {found}");
    }
    if let Some(frame) = sample.expected.get("harness_location") {
        // A crash by signal is located by the harness's top frames of user code (`a <- b`).
        let found = summary["signature"]["location"].as_str().unwrap_or_default();
        assert!(found.contains(frame.as_str()), "expected a frame at {frame}, got {found}");
    }
    if kind == "signal" {
        let signal = sample.expected.get("harness_signal").unwrap_or_else(|| &sample.expected["signal"]);
        assert_eq!(summary["signature"]["signal"].to_string(), *signal, "{summary:#}");
    }
    assert_eq!(summary["verified"], true, "{summary:#}");
    assert_eq!(summary["final_size"], size);
    assert!(size <= sample.max_size(), "{target}: {size} bytes, above the bound of {}", sample.max_size());
    assert_eq!(
        summary["reproduce"].as_str().unwrap(),
        format!("cargo fuzz run {target} {}", run.output.display()),
        "{summary:#}"
    );
    assert!(summary["value"].is_null(), "a raw-bytes target has no rendering: {summary:#}");
    assert_eq!(summary["known_values"], 0, "a raw-bytes target decodes no value: {summary:#}");
    sample.assert_crash_unchanged();

    let libfuzzer = &summary["libfuzzer"];
    if cargo_fuzz_installed() {
        assert_eq!(libfuzzer["verified"], "yes", "{summary:#}");
    } else {
        eprintln!("the libFuzzer cross-check was skipped: cargo-fuzz is not installed (`cargo install cargo-fuzz`)");
        assert_eq!(libfuzzer["verified"], "skipped", "{summary:#}");
        assert!(libfuzzer["reason"].as_str().unwrap().contains("cargo-fuzz is not installed"), "{summary:#}");
    }

    if kind == "timeout" {
        // The harness would replay a hang forever: planted-replay shows it hangs.
        assert_crashes_as_expected(&sample, &run.output);
    } else {
        let (status, stderr) = replay_with_harness(&sample, &run.harness, &run.output);
        assert!(!status.success(), "the result must crash the harness in replay mode:\n{stderr}");
        match kind {
            "panic" => assert!(stderr.contains(&format!("{}:", sample.expected["location"])), "{stderr}"),
            "signal" | "stack-overflow" => {
                let signal = sample.expected.get("harness_signal").unwrap_or_else(|| &sample.expected["signal"]);
                assert_eq!(status.signal(), Some(signal.parse().unwrap()), "{stderr}");
            }
            other => panic!("no harness check for {other}"),
        }
    }
    eprintln!(
        "{target} (harness): {} -> {size} bytes, {} tests at {:.0} tests/s; libFuzzer: {}",
        summary["initial_size"],
        summary["tests"],
        summary["tests_per_second"].as_f64().unwrap_or_default(),
        libfuzzer["reason"]
    );
    if kind != "timeout" && !sample.expected.contains_key("harness_stack_kib") {
        verify_with_cargo_fuzz(target, &run.output);
    }
    assert_phases_add_up(&run);
    run
}

/// The summary's `phases`: each one timed, the reduction's the summary's
/// `seconds`, and together no longer than the whole run.
fn assert_phases_add_up(run: &HarnessRun) {
    let phases = &run.summary["phases"];
    let names = ["setup", "first_runs", "reduction", "recheck", "checks"];
    let seconds: Vec<f64> = names.iter().map(|name| phases[name].as_f64().unwrap_or(-1.0)).collect();
    assert!(seconds.iter().all(|&s| s >= 0.0), "every phase is timed: {phases:#}");
    assert_eq!(phases["reduction"], run.summary["seconds"], "{phases:#}");
    assert!(seconds[0] > 0.0 && seconds[1] > 0.0, "the set-up and the first runs take time: {phases:#}");
    let total: f64 = seconds.iter().sum();
    assert!(total <= run.wall.as_secs_f64(), "{total} s of phases in a run of {:?}: {phases:#}", run.wall);
}

/// Replays `file` with `cargo fuzz run` (the user's own reproduction), when cargo-fuzz is installed.
fn verify_with_cargo_fuzz(target: &str, file: &Path) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    cargo_fuzz::require();
    let _lock = harness_lock();
    let output = Command::new(&cargo)
        .current_dir(root())
        .args(["fuzz", "run", "--sanitizer", "none", target])
        .arg(file)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "`cargo fuzz run {target}` did not crash on the result:\n{stderr}");
    assert!(stderr.contains("deadly signal") || stderr.contains("panicked"), "{stderr}");
}

#[test]
fn harness_mode_minimizes_tlv_below_its_bound_replays_and_leaves_fuzz_untouched() {
    let fuzz = root().join("fuzz");
    let before = snapshot(&fuzz);
    let run = check_harness_sample("tlv", &[]);
    assert!(run.stderr.contains("building tlv harness..."), "{}", run.stderr);
    assert!(run.harness.starts_with(fuzz.join("target")), "the scratch build lives in fuzz/target");
    assert_eq!(snapshot(&fuzz), before, "the fuzz directory changed");
}

#[test]
fn harness_mode_minimizes_vm_below_its_bound_and_the_result_still_aborts() {
    check_harness_sample("vm", &[]);
}

#[test]
fn harness_mode_minimizes_image_below_its_bound_and_the_result_still_overflows() {
    let run = check_harness_sample("image", &[]);
    // Its magic's bytes, deleted, zeroed and decremented again after each
    // tail byte lowered behind them, are answered by the memo of failed
    // edits in the rounds (the final round, the proof, runs them).
    let remembered = run.summary["remembered_failures"].as_u64();
    assert!(remembered.is_some_and(|n| n > 0), "{:#}", run.summary);
}

#[test]
fn harness_mode_minimizes_nest_on_a_small_stack_to_a_stack_overflow_named_by_its_recursion() {
    // The harness's `main` is a C one (libFuzzer's is too): no Rust
    // stack-overflow handler, so the overflow is a SIGSEGV in both builds;
    // the harness's handler sees the fault next to the stack pointer.
    let run = check_harness_sample("nest", &[]);
    assert_eq!(run.summary["signature"]["kind"], "stack-overflow");
    let location = run.summary["signature"]["location"].as_str().unwrap_or_default();
    assert!(location.starts_with("recursion: ") && location.contains("planted::nest::Parser::value"), "{location}");
}

#[test]
fn harness_mode_minimizes_a_hang_as_a_timeout() {
    let run = check_harness_sample("rle", &["--timeout", "0.25"]);
    if cargo_fuzz_installed() {
        assert_eq!(run.summary["libfuzzer"]["signature"]["kind"], "timeout", "{:#}", run.summary);
    }
}

#[test]
fn harness_mode_minimizes_the_typed_scene_and_shows_the_minimized_value() {
    let sample = Sample::copy("scene");
    let run = minimize_with_harness(&sample, &["--explain"]);
    let summary = &run.summary;
    let size = std::fs::metadata(&run.output).unwrap().len();
    assert!(size <= sample.max_size(), "scene: {size} bytes, above the bound of {}", sample.max_size());
    let location = summary["signature"]["location"].as_str().unwrap_or_default();
    assert!(location.ends_with(&sample.expected["location"]), "{summary:#}");
    // libfuzzer-sys's `{:#?}` of the decoded input (RUST_LIBFUZZER_DEBUG_PATH).
    let value = summary["value"].as_str().unwrap_or_else(|| panic!("no rendering: {summary:#}"));
    assert!(value.starts_with("Scene {") && value.contains("alpha: 0"), "{value}");
    assert!(
        run.stderr.contains("  value      (the minimized input as the target sees it)\n    Scene {"),
        "{}",
        run.stderr
    );
    let expected = if cargo_fuzz_installed() { "yes" } else { "skipped" };
    assert_eq!(summary["libfuzzer"]["verified"], expected, "{summary:#}");
    // Candidates that decoded to a `Scene` already run were answered without
    // running the target; the final check ran it (verified).
    assert!(summary["known_values"].as_u64().is_some_and(|n| n > 0), "{summary:#}");
    assert_eq!(summary["verified"], true, "{summary:#}");
    assert!(run.stderr.contains("  known      "), "{}", run.stderr);
    // --explain: the values the result is made of, recorded by the arbitrary
    // stand-in, nested inside the whole input, which is a `Scene`.
    let examples = summary["examples"].as_array().unwrap_or_else(|| panic!("no examples: {summary:#}"));
    assert_eq!(examples[0]["label"], "planted::scene::Scene", "{summary:#}");
    assert_eq!(examples[0]["depth"], 0);
    assert!(examples.iter().any(|e| e["label"] == "planted::scene::Layer" && e["depth"] == 1), "{summary:#}");
    for e in examples {
        let end = e["front"][1].as_u64().unwrap().max(e["back"][1].as_u64().unwrap());
        assert!(end <= size, "{e} lies outside the {size}-byte result");
    }
    assert!(run.stderr.contains("  examples   front bytes | back bytes"), "{}", run.stderr);
    // And the primitive reads, in read order, each with its bytes and value:
    // integers little-endian, lengths (from the back) big-endian.
    let result = std::fs::read(&run.output).unwrap();
    let draws = summary["draws"].as_array().unwrap_or_else(|| panic!("no draws: {summary:#}"));
    assert!(draws.iter().any(|d| d["kind"] == "int") && draws.iter().any(|d| d["kind"] == "len"), "{summary:#}");
    for d in draws {
        let (start, end) = (d["span"][0].as_u64().unwrap() as usize, d["span"][1].as_u64().unwrap() as usize);
        let bytes = &result[start..end];
        let value = match d["kind"].as_str() {
            Some("int") => bytes.iter().rev().fold(0u128, |acc, &b| acc << 8 | u128::from(b)),
            Some("len" | "range") => bytes.iter().fold(0u128, |acc, &b| acc << 8 | u128::from(b)),
            _ => continue,
        };
        assert_eq!(d["value"].as_u64().map(u128::from), Some(value), "{d} of {result:02x?}");
    }
    assert!(run.stderr.contains("  draws      the primitive reads, in read order"), "{}", run.stderr);
    sample.assert_crash_unchanged();
}

#[test]
fn harness_mode_is_much_faster_per_test_than_a_process_per_test() {
    let sample = Sample::copy("tlv");
    let budget = ["--max-tests", "400"];
    let harness = minimize_with_harness(&sample, &[&budget[..], &["--no-verify-libfuzzer"]].concat()).summary;
    assert_eq!(harness["libfuzzer"]["verified"], "skipped");
    assert_eq!(harness["libfuzzer"]["reason"], "--no-verify-libfuzzer");
    let (_, exec) = sample.minimize(&budget);
    let (fork, process) = (harness["tests_per_second"].as_f64().unwrap(), exec["tests_per_second"].as_f64().unwrap());
    eprintln!(
        "tlv, 400 tests: harness {fork:.0} tests/s, --exec planted-replay {process:.0} tests/s ({:.1}x)",
        fork / process
    );
}

#[test]
fn harness_mode_with_an_unknown_target_lists_the_known_ones() {
    let sample = Sample::copy("tlv");
    let assert = tool().current_dir(root()).arg("no-such-target").arg(&sample.crash).assert().code(4);
    assert_stderr_contains(&assert, "no fuzz target named `no-such-target`");
    assert_stderr_contains(&assert, "nest, orders, rle, scene, tlv, triage, varying, vm");
}

#[test]
fn harness_mode_outside_a_cargo_fuzz_project_says_so() {
    let sample = Sample::copy("tlv");
    std::fs::write(sample.dir.path().join("Cargo.toml"), "[package]\nname = \"plain\"\nversion = \"0.1.0\"\n").unwrap();
    let assert = tool().current_dir(sample.dir.path()).args(["--fuzz-dir", "."]).arg("tlv").arg(&sample.crash).assert();
    let assert = assert.code(4);
    assert_stderr_contains(&assert, "is not a cargo-fuzz project");
}

#[test]
fn harness_mode_reports_a_target_that_does_not_compile_with_exit_4_and_rustcs_errors() {
    // A fixed directory under the workspace's target dir (not a fresh temp
    // dir), so its scratch build keeps the compiled dependencies between runs.
    let target_dir = Path::new(BIN).parent().unwrap().parent().unwrap().join("tmp/cli-harness");
    let fuzz = target_dir.join("broken/fuzz");
    std::fs::create_dir_all(fuzz.join("fuzz_targets")).unwrap();
    let write = |path: PathBuf, text: &str| {
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text) {
            std::fs::write(path, text).unwrap();
        }
    };
    write(
        fuzz.join("Cargo.toml"),
        "[package]\nname = \"broken-fuzz\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
         [package.metadata]\ncargo-fuzz = true\n[dependencies]\nlibfuzzer-sys = \"0.4\"\n\
         [workspace]\nmembers = [\".\"]\n[[bin]]\nname = \"bad\"\npath = \"fuzz_targets/bad.rs\"\n",
    );
    write(
        fuzz.join("fuzz_targets/bad.rs"),
        "#![no_main]\nlibfuzzer_sys::fuzz_target!(|data: &[u8]| {\n    let n: u32 = data;\n});\n",
    );
    // The sample project's lockfile pins versions already in cargo's cache.
    let lock = std::fs::read_to_string(root().join("fuzz/Cargo.lock")).unwrap();
    write(fuzz.join("Cargo.lock"), &lock.replace("planted-fuzz", "broken-fuzz"));
    let sample = Sample::copy("tlv");
    let assert = tool()
        .current_dir(fuzz.parent().unwrap())
        .args(["--fuzz-dir", "fuzz", "--target-dir"])
        .arg(&target_dir)
        .arg("bad")
        .arg(&sample.crash)
        .assert()
        .code(4);
    assert_stderr_contains(&assert, "the fuzz target `bad` does not compile");
    assert_stderr_contains(&assert, "mismatched types");
    assert_eq!(std::fs::read_dir(sample.dir.path()).unwrap().count(), 1, "nothing is written");
}

#[test]
fn harness_mode_with_a_missing_or_empty_crash_file_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("crash-nope");
    let assert = tool().current_dir(root()).arg("tlv").arg(&missing).assert().code(2);
    assert_stderr_contains(&assert, &format!("cannot read the crash file {}", missing.display()));
    let empty = dir.path().join("crash-empty");
    std::fs::write(&empty, b"").unwrap();
    let assert = tool().current_dir(root()).arg("tlv").arg(&empty).assert().code(2);
    assert_stderr_contains(&assert, "is empty: there is nothing to minimize");
}

#[test]
fn harness_mode_with_an_input_that_does_not_crash_exits_3_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let benign = dir.path().join("not-a-crash");
    std::fs::write(&benign, b"TLV1\x01\x05\x00hello\x00\x00\x00").unwrap();
    let _lock = harness_lock();
    let assert = tool().current_dir(root()).arg("-o").arg(dir.path().join("out")).arg("tlv").arg(&benign).assert();
    let assert = assert.code(3);
    assert_stderr_contains(&assert, "does not crash");
    assert_stderr_contains(&assert, "on all 3 runs");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "nothing is written");
}

#[test]
fn sigint_mid_run_in_harness_mode_keeps_a_best_so_far_that_still_hangs_and_exits_130() {
    let sample = Sample::copy("rle");
    let output = sample.dir.path().join("best");
    let _lock = harness_lock();
    let mut command = Command::new(BIN);
    command.current_dir(root()).args(["--timeout", "0.25", "-o"]).arg(&output).arg("rle").arg(&sample.crash);
    let (status, stderr) = interrupt_after_the_first_improvement(command, &output, Duration::from_secs(100));
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted: the best result so far is in"), "{stderr}");
    assert!(!stderr.contains("libFuzzer  verified"), "no libFuzzer check after an interrupt:\n{stderr}");
    assert_the_best_so_far_was_kept(&sample, &output);
}

#[test]
fn the_output_may_not_be_the_crash_file_itself() {
    let sample = Sample::copy("vm");
    let assert =
        tool().arg("--exec").arg(exec_line("vm")).arg("-o").arg(&sample.crash).arg(&sample.crash).assert().code(2);
    assert_stderr_contains(&assert, "never overwritten");
    sample.assert_crash_unchanged();
}

#[test]
fn the_cargo_subcommand_form_is_accepted() {
    let assert = tool().args(["minimize-crash", "--help"]).assert().success();
    let help = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    assert!(help.contains("--exec <COMMAND>") && help.contains("130"), "{help}");
}

#[test]
fn sigint_mid_run_keeps_a_best_so_far_that_still_hangs_and_exits_130() {
    let sample = Sample::copy("rle");
    let output = sample.dir.path().join("best");
    let mut command = Command::new(BIN);
    command.args(["--timeout", "0.25", "--exec", &exec_line("rle"), "-o"]).arg(&output).arg(&sample.crash);
    let (status, stderr) = interrupt_after_the_first_improvement(command, &output, Duration::from_secs(60));
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert_the_best_so_far_was_kept(&sample, &output);
}

#[test]
fn the_readme_repeats_the_exit_code_table() {
    let source = std::fs::read_to_string(root().join("src/exit_code.rs")).unwrap();
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let rows: Vec<&str> = source
        .lines()
        .filter_map(|l| l.strip_prefix("//! | "))
        .filter(|r| r.starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    assert_eq!(rows.len(), 8, "the enum's table has a row per exit code");
    for row in rows {
        assert!(readme.contains(&format!("| {row}")), "README.md lacks the exit-code row `| {row}`");
    }
}

/// After an interrupted run: `output` is smaller than the crash and still
/// crashes the same way, the crash is untouched, no temporary file is left.
fn assert_the_best_so_far_was_kept(sample: &Sample, output: &Path) {
    let best = std::fs::read(output).unwrap();
    assert!(best.len() < std::fs::metadata(&sample.crash).unwrap().len() as usize);
    assert_crashes_as_expected(sample, output);
    sample.assert_crash_unchanged();
    let leftovers: Vec<_> = std::fs::read_dir(sample.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".minimize-crash-"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left behind: {leftovers:?}");
}

/// Starts `command`, sends it SIGINT once `output` exists (its first
/// improvement is saved), and returns how it ended and its stderr.
fn interrupt_after_the_first_improvement(
    mut command: Command,
    output: &Path,
    patience: Duration,
) -> (std::process::ExitStatus, String) {
    let mut child = command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let deadline = Instant::now() + patience;
    while !output.exists() {
        assert!(child.try_wait().unwrap().is_none(), "the run ended before its first improvement");
        assert!(Instant::now() < deadline, "no improvement within {patience:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
    let sent = Instant::now();
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::Signal::SIGINT).unwrap();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(sent.elapsed() < Duration::from_secs(10), "still running 10 s after SIGINT");
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    (status, stderr)
}

fn assert_stderr_contains(assert: &Assert, needle: &str) {
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr);
    assert!(stderr.contains(needle), "stderr lacks {needle:?}:\n{stderr}");
}

// ---- Structure on and off, on the typed samples (`cargo bench --bench structure` measures the tests).

/// The typed samples: replayed by the harness built from `fuzz/`, not by `planted-replay`.
const TYPED_SAMPLES: [&str; 5] = ["commands", "config", "deep_tree", "orders", "scene"];

/// What the harness's `arbitrary` decodes `file` to, `{:#?}`-rendered (cargo-fuzz's `RUST_LIBFUZZER_DEBUG_PATH`).
fn decoded_value(harness: &Path, file: &Path) -> String {
    let dump = tempfile::NamedTempFile::new().unwrap();
    let status = Command::new(harness)
        .arg(file)
        .env("RUST_LIBFUZZER_DEBUG_PATH", dump.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "rendering {} with {} failed: {status}", file.display(), harness.display());
    std::fs::read_to_string(dump.path()).unwrap()
}

fn from_hex(hex: &str) -> Vec<u8> {
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect()
}

#[test]
fn with_structure_the_typed_samples_minimize_to_their_known_minimal_values() {
    // `doc` and `doc_wide`: one value behind 280 and 70,038 unread bytes
    // (lengths two and four bytes wide), to its shortest encoding, with
    // printable characters in its strings.
    // `generator`: a module built by hand through an `Unstructured`, draws and no derived value;
    // `flat_generator`: the same in one function of loops, counts read above their range.
    let targets =
        ["deep_tree", "config", "commands", "orders", "scene", "doc", "doc_wide", "generator", "flat_generator"];
    for target in targets {
        let sample = Sample::copy(target);
        let run = minimize_with_harness(&sample, &[]);
        let location = &sample.expected["location"];
        let found = run.summary["signature"]["location"].as_str().unwrap_or_default();
        assert!(found.ends_with(location.as_str()), "{target}: expected {location}, got {found}");
        let result = std::fs::read(&run.output).unwrap();
        let minimal = from_hex(&sample.expected["minimal_hex"]);
        assert_eq!(
            minimal.len().to_string(),
            sample.expected["true_minimum"],
            "{target}: expected.toml disagrees with itself"
        );
        assert_eq!(result.len(), minimal.len(), "{target}: {result:02x?} is not the smallest size");
        // Byte for byte: flags spelled 1, numbers as small as the bug allows.
        assert_eq!(result, minimal, "{target}: {result:02x?} is the right size but not the simplest spelling");

        // The known minimum crashes the same way, and the result decodes to the same value.
        let minimal_file = sample.dir.path().join("minimal");
        std::fs::write(&minimal_file, &minimal).unwrap();
        let (status, stderr) = replay_with_harness(&sample, &run.harness, &minimal_file);
        assert!(!status.success() && stderr.contains(&format!("{location}:")), "{target}: {stderr}");
        let expected = decoded_value(&run.harness, &minimal_file);
        assert_eq!(decoded_value(&run.harness, &run.output), expected, "{target}: result {result:02x?}");
        sample.assert_crash_unchanged();
        if target == "flat_generator" {
            // Every draw is made in one function: its only spans are its loop's turns (decision 0105), one per block.
            let examples = run.summary["examples"].as_array().unwrap();
            let turns = examples.iter().filter(|e| e["label"].as_str().is_some_and(|l| l.starts_with("call:")));
            assert_eq!((turns.count(), examples.len()), (2, 2), "{target}: {examples:#?}");
        }
    }
}

#[test]
fn with_structure_the_result_of_every_typed_sample_is_no_larger_than_without() {
    for target in TYPED_SAMPLES {
        let sample = Sample::copy(target);
        let on = minimize_with_harness(&sample, &[]).summary;
        let off = minimize_with_harness(&sample, &["--no-structure"]).summary;
        for summary in [&on, &off] {
            let found = summary["signature"]["location"].as_str().unwrap_or_default();
            assert!(found.ends_with(sample.expected["location"].as_str()), "{target}: {summary:#}");
            assert_eq!(summary["verified"], true, "{target}: {summary:#}");
        }
        let (on_size, off_size) = (on["final_size"].as_u64().unwrap(), off["final_size"].as_u64().unwrap());
        assert!(on_size <= off_size, "{target}: {on_size} bytes with structure, {off_size} without");
        assert!(on_size <= sample.max_size(), "{target}: {on_size} bytes, above the bound of {}", sample.max_size());
    }
}

/// What a run's summary says about its tests: the count, and how they ran in parallel.
fn tests_and_parallel(summary: &Value) -> (u64, u64, u64, u64) {
    let parallel = &summary["parallel"];
    let count = |v: &Value| v.as_u64().unwrap_or_else(|| panic!("a count in {summary:#}"));
    (count(&summary["tests"]), count(&parallel["width"]), count(&parallel["run_ahead"]), count(&parallel["used"]))
}

#[test]
fn parallel_tests_give_the_serial_result_byte_for_byte_and_test_for_test() {
    // Harness mode: two fork servers against one.
    for target in ["scene", "config"] {
        let sample = Sample::copy(target);
        let serial = minimize_with_harness(&sample, &["--parallel", "1", "--no-verify-libfuzzer"]);
        let serial_result = std::fs::read(&serial.output).unwrap();
        let parallel = minimize_with_harness(&sample, &["--parallel", "2", "--no-verify-libfuzzer"]);
        let parallel_result = std::fs::read(&parallel.output).unwrap();
        assert_eq!(parallel_result, serial_result, "{target}: another result in parallel");
        let (tests, width, _, _) = tests_and_parallel(&serial.summary);
        assert_eq!(width, 1, "{target}");
        let (parallel_tests, width, run_ahead, used) = tests_and_parallel(&parallel.summary);
        assert_eq!((parallel_tests, width), (tests, 2), "{target}: the same tests, two at a time");
        assert_eq!(parallel.summary["known_values"], serial.summary["known_values"], "{target}");
        assert!(used > tests / 2 && used <= run_ahead, "{target}: {used} of {run_ahead} run ahead used, {tests} tests");
        assert!(parallel.stderr.contains("  parallel   2 at once:"), "{}", parallel.stderr);
        assert_eq!(parallel.summary["verified"], true);
    }
    // --exec: two commands at once, each with its own input file.
    let sample = Sample::copy("vm");
    let (output, serial) = sample.minimize(&["--parallel", "1"]);
    let serial_result = std::fs::read(&output).unwrap();
    let (output, parallel) = sample.minimize(&["--parallel", "2"]);
    assert_eq!(std::fs::read(&output).unwrap(), serial_result, "vm: another result in parallel");
    assert_eq!(tests_and_parallel(&parallel).0, tests_and_parallel(&serial).0);
    assert!(tests_and_parallel(&parallel).3 > 0, "{parallel:#}");
}

/// Why an AddressSanitizer build cannot work here (rustc refuses
/// `-Zsanitizer=address` even with `RUSTC_BOOTSTRAP=1`), or `None` when it can.
fn asan_unavailable() -> Option<String> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("probe.rs"), "fn main() {}\n").unwrap();
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(&rustc)
        .current_dir(dir.path())
        .args(["-Zsanitizer=address", "probe.rs", "-o", "probe"])
        .env("RUSTC_BOOTSTRAP", "1")
        .output();
    match output {
        Ok(output) if output.status.success() => None,
        Ok(output) => Some(String::from_utf8_lossy(&output.stderr).trim().to_owned()),
        Err(e) => Some(format!("cannot run rustc: {e}")),
    }
}

#[test]
fn with_address_sanitizer_the_heap_overread_minimizes_below_its_bound_with_the_same_report() {
    if let Some(reason) = asan_unavailable() {
        panic!(
            "this test needs rustc to build with AddressSanitizer (`RUSTC_BOOTSTRAP=1 -Zsanitizer=address`): {reason}"
        );
    }
    let sample = Sample::copy("asan_overread");
    // Its own target dir (harness and `cargo fuzz build`): an ASan `cargo fuzz
    // build` into fuzz/target would make the other tests' plain one rebuild everything.
    let target_dir = Path::new(BIN).parent().unwrap().parent().unwrap().join("tmp/cli-asan");
    let output = sample.dir.path().join("minimized");
    let _lock = harness_lock();
    let mut command = Command::new(BIN);
    command.current_dir(root()).args(["--json", "--sanitizer", "address", "--target-dir"]).arg(&target_dir);
    command.arg("-o").arg(&output).arg(&sample.target).arg(&sample.crash);
    // A cold run builds the ASan harness and, with cargo-fuzz, the ASan libFuzzer binary.
    let assert = assert_cmd::Command::from_std(command).timeout(Duration::from_secs(400)).assert();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert_eq!(assert.get_output().status.code(), Some(0), "--sanitizer address failed:\n{stderr}");
    let summary: Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    let signature = &summary["signature"];
    assert_eq!(signature["kind"], sample.expected["kind"].as_str(), "{summary:#}");
    assert_eq!(signature["sanitizer"], "AddressSanitizer", "{summary:#}");
    assert_eq!(signature["bug"], sample.expected["bug"].as_str(), "{summary:#}");
    let location = signature["location"].as_str().unwrap_or_default();
    let expected = format!("{} at ", sample.expected["top_frame"]);
    assert!(location.starts_with(&expected), "{summary:#}");
    assert!(location.ends_with(sample.expected["location"].as_str()), "{summary:#}");
    assert_eq!(summary["verified"], true, "{summary:#}");
    let size = std::fs::metadata(&output).unwrap().len();
    assert!(size <= sample.max_size(), "{size} bytes, above the bound of {}", sample.max_size());
    sample.assert_crash_unchanged();

    let libfuzzer = &summary["libfuzzer"];
    if cargo_fuzz_installed() {
        assert_eq!(libfuzzer["verified"], "yes", "{summary:#}");
        assert!(libfuzzer["command"].as_str().unwrap().contains(&*target_dir.to_string_lossy()), "{summary:#}");
        // Its report unsymbolized (`symbolize=0`), its frames looked up here: the same top frame.
        assert_eq!(libfuzzer["signature"]["location"], signature["location"], "{summary:#}");
    } else {
        assert_eq!(libfuzzer["verified"], "skipped", "{summary:#}");
    }
    eprintln!(
        "asan_overread (harness, ASan): {} -> {size} bytes, {} tests at {:.0} tests/s; libFuzzer: {}",
        summary["initial_size"],
        summary["tests"],
        summary["tests_per_second"].as_f64().unwrap_or_default(),
        libfuzzer["reason"]
    );
}

/// A `Vec<u64>` as libfuzzer-sys's `fuzz_target!` decodes one (arbitrary 1.5,
/// `arbitrary_take_rest`): per element a flag byte, then 8 little-endian bytes.
fn u64_list_input(values: &[u64]) -> Vec<u8> {
    values.iter().flat_map(|v| std::iter::once(1).chain(v.to_le_bytes())).collect()
}

/// Minimizes `input` with list target `target` in harness mode; returns the summary.
fn minimize_list(target: &str, input: &[u8]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let (crash, output) = (dir.path().join("crash"), dir.path().join("minimized"));
    std::fs::write(&crash, input).unwrap();
    let _lock = harness_lock();
    let assert = tool()
        .current_dir(root())
        .args(["--json", "--parallel", "1", "--no-verify-libfuzzer", "-o"])
        .arg(&output)
        .arg(target)
        .arg(&crash)
        .timeout(Duration::from_secs(300))
        .assert();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert_eq!(assert.get_output().status.code(), Some(0), "{target}:\n{stderr}");
    serde_json::from_slice(&assert.get_output().stdout).expect("--json prints a JSON summary")
}

/// Typed lists (issue 7's notebook conditions): every value zeroed in one
/// test, where the bug needs only how many elements there are, and elements
/// deleted whole, never a flag or a value alone.
#[test]
fn typed_list_targets_reach_the_smallest_list_in_a_few_tests() {
    // Sixty values a fuzzer might have drawn (a fixed LCG: the same input every run).
    let values: Vec<u64> = (1..=60u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(17)).collect();
    let max63 = values.iter().max().unwrap() & 63;
    assert!(values.len() as u64 > max63, "the input must satisfy len > max & 63");
    for (target, value, at_most) in [
        ("list_len_gt_max63", "[\n    0,\n]", 6),
        ("list_len2", "[\n    0,\n    0,\n]", 7),
        ("list_sum3", "[\n    3,\n]", 12),
    ] {
        let summary = minimize_list(target, &u64_list_input(&values));
        assert_eq!(summary["value"], value, "{target}: {summary:#}");
        let tests = summary["tests"].as_u64().unwrap();
        assert!(tests <= at_most, "{target}: {tests} tests, more than {at_most}");
        assert_eq!(summary["verified"], true, "{target}: {summary:#}");
    }
}
