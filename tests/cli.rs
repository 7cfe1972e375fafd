//! The `cargo-minimize-crash` binary end to end: `--exec` mode on the bundled
//! samples in `corpus-samples/`, replayed by `planted-replay`, plus the error
//! paths and their exit codes. Each test copies its fixture into a temporary
//! directory, so the checkout is never written to.

use std::collections::HashMap;
use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use assert_cmd::assert::Assert;
use serde_json::Value;
use tempfile::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_cargo-minimize-crash");

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `planted-replay`, built once per test run by the same cargo, with the same
/// profile and target directory as the binary under test.
fn planted_replay() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let profile_dir = Path::new(BIN).parent().expect("the binary's directory");
        let profile = profile_dir.file_name().and_then(|p| p.to_str()).expect("a profile directory");
        let target_dir = profile_dir.parent().expect("the target directory");
        let mut build = Command::new(cargo);
        build
            .current_dir(root())
            .args(["build", "-p", "planted", "--bin", "planted-replay", "--message-format=json-render-diagnostics"])
            .arg("--target-dir")
            .arg(target_dir);
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
        assert!(
            output.status.success(),
            "building planted-replay failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "planted-replay")
            .find_map(|m| m["executable"].as_str().map(PathBuf::from))
            .expect("cargo reported no planted-replay executable")
    })
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
    fn copy(target: &str) -> Sample {
        let source = root().join("corpus-samples").join(target);
        let crash_name = std::fs::read_dir(&source)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .find(|n| n.to_string_lossy().starts_with("crash-"))
            .unwrap_or_else(|| panic!("no crash file in {}", source.display()));
        let dir = tempfile::tempdir().unwrap();
        let crash = dir.path().join(&crash_name);
        std::fs::copy(source.join(&crash_name), &crash).unwrap();
        let expected = parse_expected(&std::fs::read_to_string(source.join("expected.toml")).unwrap());
        Sample { target: target.to_owned(), expected, crash, dir }
    }

    fn max_size(&self) -> u64 {
        self.expected["max_size"].parse().unwrap()
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
fn without_exec_the_harness_mode_is_reported_unavailable() {
    let sample = Sample::copy("vm");
    let assert = tool().arg("vm").arg(&sample.crash).assert().code(5);
    assert_stderr_contains(&assert, "not available in this version");
    assert_stderr_contains(&assert, "--exec");
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
    let mut child = Command::new(BIN)
        .args(["--timeout", "0.25", "--exec", &exec_line("rle"), "-o"])
        .arg(&output)
        .arg(&sample.crash)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !output.exists() {
        assert!(child.try_wait().unwrap().is_none(), "the run ended before its first improvement");
        assert!(Instant::now() < deadline, "no improvement within a minute");
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
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    let best = std::fs::read(&output).unwrap();
    assert!(best.len() < std::fs::metadata(&sample.crash).unwrap().len() as usize);
    assert_crashes_as_expected(&sample, &output);
    sample.assert_crash_unchanged();
    let leftovers: Vec<_> = std::fs::read_dir(sample.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".minimize-crash-"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left behind: {leftovers:?}");
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

fn assert_stderr_contains(assert: &Assert, needle: &str) {
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr);
    assert!(stderr.contains(needle), "stderr lacks {needle:?}:\n{stderr}");
}
