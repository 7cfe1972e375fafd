//! The batch mode end to end on a generated artifacts directory of the `triage` target (six planted bugs, several inputs each, a hang, a file that does not crash and an empty one): one reproducer per bug, the reports validated by real validators, reruns, a SIGKILL mid-run, shards and their merge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;
use tempfile::TempDir;

use super::*;

#[path = "../support/validators.rs"]
mod validators;

/// `planted-artifacts`, built once per test run like `planted-replay`.
fn planted_artifacts() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| planted_binary("planted-artifacts"))
}

/// A generated artifacts directory and what each file is (`tlv-index`, `no-crash`, ...).
struct Artifacts {
    dir: TempDir,
    bugs: BTreeMap<String, String>,
}

impl Artifacts {
    fn path(&self) -> PathBuf {
        self.dir.path().join("artifacts")
    }

    /// A copy without the hang (each of its tests waits out the time limit),
    /// for the tests that need crashes only.
    fn without_hang(&self) -> Artifacts {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("artifacts");
        std::fs::create_dir_all(&out).unwrap();
        let mut bugs = BTreeMap::new();
        for (file, bug) in self.bugs.iter().filter(|(_, bug)| *bug != "rle-hang") {
            let copy = out.join(Path::new(file).file_name().unwrap());
            std::fs::copy(file, &copy).unwrap();
            bugs.insert(copy.display().to_string(), bug.clone());
        }
        Artifacts { dir, bugs }
    }

    /// The crashing files of each bug, by bug name.
    fn by_bug(&self) -> BTreeMap<String, BTreeSet<String>> {
        let mut by_bug: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (file, bug) in &self.bugs {
            if bug != "no-crash" && bug != "empty" {
                by_bug.entry(bug.clone()).or_default().insert(file.clone());
            }
        }
        by_bug
    }
}

fn generate() -> Artifacts {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("artifacts");
    let output = Command::new(planted_artifacts())
        .arg(&out)
        .args(["--per-bug", "4", "--seed", "7", "--replay"])
        .arg(planted_replay())
        .output()
        .unwrap();
    assert!(output.status.success(), "planted-artifacts failed:\n{}", String::from_utf8_lossy(&output.stderr));
    let bugs = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| l.split_once('\t').expect("FILE<TAB>BUG"))
        .map(|(file, bug)| (out.join(Path::new(file).file_name().unwrap()).display().to_string(), bug.to_owned()))
        .collect();
    Artifacts { dir, bugs }
}

/// A finished batch run: its exit code, stderr and report.
struct BatchRun {
    code: Option<i32>,
    stderr: String,
    report: Value,
}

fn batch(args: &[&str], inputs: &[&Path], output: &Path) -> BatchRun {
    let _lock = harness_lock();
    let assert = tool()
        .timeout(Duration::from_secs(600))
        .current_dir(root())
        .args(["--timeout", "500ms"])
        .args(args)
        .arg("-o")
        .arg(output)
        .arg("triage")
        .args(inputs)
        .assert();
    let out = assert.get_output();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let text = std::fs::read(output.join("report.json")).unwrap_or_else(|e| panic!("no report.json ({e}):\n{stderr}"));
    BatchRun { code: out.status.code(), stderr, report: serde_json::from_slice(&text).unwrap() }
}

/// The generated directory and one plain batch run over it, shared by the tests.
fn triaged() -> &'static (Artifacts, TempDir, BatchRun) {
    static RUN: OnceLock<(Artifacts, TempDir, BatchRun)> = OnceLock::new();
    RUN.get_or_init(|| {
        let artifacts = generate();
        let out = tempfile::tempdir().unwrap();
        let run = batch(&[], &[&artifacts.path()], out.path());
        (artifacts, out, run)
    })
}

/// Each bug found from inputs, by its member files (representative and duplicates).
fn members(report: &Value) -> BTreeMap<BTreeSet<String>, Value> {
    report["bugs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["found_by"]["how"] == "input")
        .map(|b| {
            let mut files: BTreeSet<String> = BTreeSet::new();
            files.insert(b["representative"].as_str().unwrap().to_owned());
            files.extend(b["duplicates"].as_array().unwrap().iter().map(|d| d.as_str().unwrap().to_owned()));
            (files, b.clone())
        })
        .collect()
}

fn fingerprints(report: &Value, how: &str) -> BTreeSet<String> {
    let bugs = report["bugs"].as_array().unwrap().iter();
    bugs.filter(|b| b["found_by"]["how"] == how).map(|b| b["fingerprint"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn a_directory_of_artifacts_gives_one_minimized_reproducer_per_bug_with_its_duplicates() {
    let (artifacts, out, run) = triaged();
    assert_eq!(run.code, Some(7), "bugs found exits 7:\n{}", run.stderr);
    let found = members(&run.report);
    for (bug, files) in artifacts.by_bug() {
        let entry = found
            .get(&files)
            .unwrap_or_else(|| panic!("{bug}: no bug has exactly its inputs {files:?}; found {:#?}", found.keys()));
        assert_eq!(entry["status"], "minimized", "{bug}: {entry:#}");
        let reproducer = out.path().join(entry["reproducer"].as_str().unwrap());
        let size = std::fs::metadata(&reproducer).unwrap().len();
        assert_eq!(entry["reproducer_size"], size, "{bug}");
        assert!(size <= entry["original_size"].as_u64().unwrap(), "{bug}: never larger than its input");
        if cargo_fuzz_installed() {
            // The tool's own check: `cargo fuzz build triage`, then the binary on the reproducer.
            assert_eq!(entry["libfuzzer"]["verified"], "yes", "{bug}: {entry:#}");
        }
    }
    assert_eq!(found.len(), artifacts.by_bug().len(), "one bug per planted bug: {:#?}", run.report["bugs"]);
    for bug in run.report["bugs"].as_array().unwrap().iter().filter(|b| b["found_by"]["how"] != "input") {
        assert_eq!(bug["found_by"]["how"], "slip", "{bug:#}");
    }
    let skipped: BTreeMap<String, String> = run.report["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["path"].as_str().unwrap().to_owned(), s["reason"]["reason"].as_str().unwrap().to_owned()))
        .collect();
    for (file, bug) in artifacts.bugs.iter().filter(|(_, bug)| *bug == "no-crash" || *bug == "empty") {
        assert_eq!(skipped.get(file).map(String::as_str), Some(bug.as_str()), "{file}");
    }
    assert_eq!(run.report["totals"]["inputs"], artifacts.bugs.len());
}

#[test]
fn the_reports_pass_a_json_schema_validator_and_the_sarif_multitool() {
    let (_, out, run) = triaged();
    assert!(run.code.is_some());
    validators::validate_report_json(&out.path().join("report.json"));
    validators::validate_sarif(&out.path().join("report.sarif"));
    let markdown = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    for bug in run.report["bugs"].as_array().unwrap() {
        assert!(markdown.contains(bug["id"].as_str().unwrap()), "report.md names every bug");
    }
}

#[test]
fn a_second_run_over_the_same_inputs_does_no_reduction_and_annotates_on_github_actions() {
    let (artifacts, out, first) = triaged();
    let _lock = harness_lock();
    let assert = tool()
        .current_dir(root())
        .env("GITHUB_ACTIONS", "true")
        .args(["--timeout", "500ms", "-o"])
        .arg(out.path())
        .arg("triage")
        .arg(artifacts.path())
        .assert();
    let output = assert.get_output();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), first.code, "{stderr}");
    let again: Value = serde_json::from_slice(&std::fs::read(out.path().join("report.json")).unwrap()).unwrap();
    let bugs = first.report["bugs"].as_array().unwrap();
    assert_eq!(stderr.matches("done in an earlier run").count(), bugs.len(), "{stderr}");
    let by_id = |report: &Value| -> BTreeMap<String, (Value, Value)> {
        let bugs = report["bugs"].as_array().unwrap().iter();
        bugs.map(|b| (b["id"].as_str().unwrap().to_owned(), (b["tests"].clone(), b["seconds"].clone()))).collect()
    };
    // The very entries of the first run: the same tests and time, nothing reduced again.
    assert_eq!(by_id(&again), by_id(&first.report));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let annotations: Vec<&str> = stdout.lines().filter(|l| l.starts_with("::error ")).collect();
    assert_eq!(annotations.len(), bugs.len(), "{stdout}");
    assert!(
        annotations.iter().any(|a| a.starts_with("::error file=crates/planted/src/tlv.rs,line=140,")),
        "a panic's annotation points at its line, relative to the repository: {stdout}"
    );
}

#[test]
fn a_run_killed_midway_loses_no_finished_bug_and_the_rerun_completes_it() {
    let (artifacts, _, complete) = triaged();
    let out = tempfile::tempdir().unwrap();
    {
        let _lock = harness_lock();
        let mut child = Command::new(BIN)
            .current_dir(root())
            .args(["--timeout", "500ms", "--workers", "1", "--no-verify-libfuzzer", "-q", "-o"])
            .arg(out.path())
            .arg("triage")
            .arg(artifacts.path())
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(300);
        let finished = || {
            std::fs::read_dir(out.path())
                .ok()
                .into_iter()
                .flatten()
                .flatten()
                .any(|e| e.path().join("bug.json").exists())
        };
        while !finished() {
            assert!(child.try_wait().unwrap().is_none(), "the run ended before a bug was finished");
            assert!(Instant::now() < deadline, "no bug finished within 300 s");
            std::thread::sleep(Duration::from_millis(20));
        }
        child.kill().unwrap();
        child.wait().unwrap();
    }
    let kept: Vec<PathBuf> = std::fs::read_dir(out.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("bug.json").exists())
        .collect();
    assert!(!kept.is_empty());
    for bug in &kept {
        assert!(bug.join("reproducer").is_file(), "{} lost its reproducer", bug.display());
    }
    let rerun = batch(&["--no-verify-libfuzzer"], &[&artifacts.path()], out.path());
    assert_eq!(rerun.code, Some(7), "{}", rerun.stderr);
    assert!(rerun.stderr.matches("done in an earlier run").count() >= kept.len(), "{}", rerun.stderr);
    assert_eq!(fingerprints(&rerun.report, "input"), fingerprints(&complete.report, "input"));
}

#[test]
fn two_shards_merged_give_the_same_bugs_as_one_unsharded_run() {
    let (artifacts, _, complete) = triaged();
    let dir = tempfile::tempdir().unwrap();
    let shard = |i: u32| {
        let out = dir.path().join(format!("shard-{i}"));
        let run = batch(&["--shard", &format!("{i}/2"), "--no-verify-libfuzzer"], &[&artifacts.path()], &out);
        assert!(matches!(run.code, Some(0 | 7)), "{}", run.stderr);
        assert_eq!(run.report["shard"]["index"], i);
        out
    };
    let (one, two) = (shard(1), shard(2));
    let merged = dir.path().join("merged");
    let assert = tool().arg("--merge").arg("-o").arg(&merged).arg(&one).arg(&two).assert();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert_eq!(assert.get_output().status.code(), Some(7), "{stderr}");
    let report: Value = serde_json::from_slice(&std::fs::read(merged.join("report.json")).unwrap()).unwrap();
    assert_eq!(fingerprints(&report, "input"), fingerprints(&complete.report, "input"));
    assert_eq!(members(&report).keys().collect::<Vec<_>>(), members(&complete.report).keys().collect::<Vec<_>>());
    assert_eq!(report["totals"]["inputs"], complete.report["totals"]["inputs"]);
    for bug in report["bugs"].as_array().unwrap() {
        assert!(merged.join(bug["reproducer"].as_str().unwrap()).is_file(), "{bug:#}");
    }
    validators::validate_report_json(&merged.join("report.json"));
}

#[test]
fn an_exec_batch_groups_the_commands_crashes_the_same_way() {
    let artifacts = triaged().0.without_hang();
    let out = tempfile::tempdir().unwrap();
    let assert = tool()
        .timeout(Duration::from_secs(600))
        .current_dir(out.path())
        .args(["--timeout", "500ms", "--exec", &exec_line("triage"), "-o", "triaged", "triage"])
        .arg(artifacts.path())
        .assert();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert_eq!(assert.get_output().status.code(), Some(7), "{stderr}");
    let report: Value =
        serde_json::from_slice(&std::fs::read(out.path().join("triaged/report.json")).unwrap()).unwrap();
    let found = members(&report);
    let expected: BTreeSet<BTreeSet<String>> = artifacts.by_bug().into_values().collect();
    assert_eq!(found.keys().cloned().collect::<BTreeSet<_>>(), expected, "{stderr}");
    for bug in found.values() {
        assert_eq!(bug["target"], "triage");
        assert!(bug["reproduce"].as_str().unwrap().contains("planted-replay"), "{bug:#}");
    }
}

/// A copy of `fuzz/` at a fixed place under `target/tmp` (so its harness
/// build is incremental across test runs), with the `planted` path absolute.
fn fuzz_project_copy() -> PathBuf {
    let project = root().join("target/tmp/batch-artifacts-project");
    let fuzz = project.join("fuzz");
    std::fs::create_dir_all(fuzz.join("fuzz_targets")).unwrap();
    let planted = root().join("crates/planted");
    let manifest = std::fs::read_to_string(root().join("fuzz/Cargo.toml"))
        .unwrap()
        .replace("path = \"../crates/planted\"", &format!("path = {:?}", planted.display().to_string()));
    std::fs::write(fuzz.join("Cargo.toml"), manifest).unwrap();
    std::fs::copy(root().join("fuzz/Cargo.lock"), fuzz.join("Cargo.lock")).unwrap();
    for entry in std::fs::read_dir(root().join("fuzz/fuzz_targets")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), fuzz.join("fuzz_targets").join(entry.file_name())).unwrap();
    }
    let _ = std::fs::remove_dir_all(fuzz.join("artifacts"));
    fuzz
}

#[test]
fn artifacts_of_every_target_are_triaged_without_a_target_and_our_own_files_are_never_inputs() {
    let (artifacts, _, _) = triaged();
    let _lock = harness_lock();
    let fuzz = fuzz_project_copy();
    let (tlv, triage) = (fuzz.join("artifacts/tlv"), fuzz.join("artifacts/triage"));
    std::fs::create_dir_all(&tlv).unwrap();
    std::fs::create_dir_all(&triage).unwrap();
    let sample = Sample::copy("tlv");
    std::fs::copy(&sample.crash, tlv.join(sample.crash.file_name().unwrap())).unwrap();
    std::fs::write(tlv.join("minimized-from-0123"), b"our own output").unwrap();
    std::fs::write(tlv.join("notes.txt"), b"not an artifact").unwrap();
    let (file, bug) = artifacts.bugs.iter().find(|(_, bug)| *bug == "vm-double-free").unwrap();
    std::fs::copy(file, triage.join(Path::new(file).file_name().unwrap())).unwrap();
    let assert = tool()
        .timeout(Duration::from_secs(600))
        .current_dir(fuzz.parent().unwrap())
        .args(["--artifacts", "--no-verify-libfuzzer", "--timeout", "500ms", "--fuzz-dir"])
        .arg(&fuzz)
        .assert();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert_eq!(assert.get_output().status.code(), Some(7), "{stderr}");
    let out = fuzz.join("artifacts/minimize-crash");
    let report: Value = serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    let targets: BTreeSet<&str> =
        report["bugs"].as_array().unwrap().iter().map(|b| b["target"].as_str().unwrap()).collect();
    assert_eq!(targets, BTreeSet::from(["tlv", "triage"]), "{bug}: {stderr}");
    assert_eq!(report["totals"]["inputs"], 2, "only libFuzzer's artifacts are inputs: {stderr}");
    assert!(report["skipped"].as_array().unwrap().is_empty(), "{:#}", report["skipped"]);
}

#[test]
fn a_bug_that_does_not_crash_again_is_reported_not_reproducible_with_exit_6() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = dir.path().join("inputs");
    std::fs::create_dir_all(&inputs).unwrap();
    for name in ["crash-1", "crash-2"] {
        std::fs::write(inputs.join(name), name).unwrap();
    }
    // Crashes (exit 3) the first time it runs only: a flaky target at its worst.
    let marker = dir.path().join("ran-once");
    let script = format!("if [ -e '{0}' ]; then exit 0; else touch '{0}'; exit 3; fi", marker.display());
    let command = format!("sh -c {} sh @@", shell_words::quote(&script));
    let assert = tool()
        .current_dir(dir.path())
        .args(["--exec", &command, "--workers", "1", "-o", "out", "flaky"])
        .arg(&inputs)
        .assert();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert_eq!(assert.get_output().status.code(), Some(6), "{stderr}");
    let report: Value = serde_json::from_slice(&std::fs::read(dir.path().join("out/report.json")).unwrap()).unwrap();
    let bugs = report["bugs"].as_array().unwrap();
    assert_eq!(bugs.len(), 1, "{report:#}");
    assert_eq!(bugs[0]["status"], "not-reproducible", "{report:#}");
    assert!(bugs[0]["reproducer"].is_null(), "no reproducer without a crash: {report:#}");
    assert_eq!(
        report["skipped"].as_array().unwrap().len(),
        1,
        "the second input ran after the first and did not crash"
    );
    assert!(stderr.contains("NOT REPRODUCIBLE"), "{stderr}");
}

#[test]
fn with_each_every_crashing_input_gets_a_reproducer_of_its_own() {
    let artifacts = triaged().0.without_hang();
    let out = tempfile::tempdir().unwrap();
    let run = batch(&["--each", "--no-verify-libfuzzer"], &[&artifacts.path()], out.path());
    assert_eq!(run.code, Some(7), "{}", run.stderr);
    for bug in run.report["bugs"].as_array().unwrap().iter().filter(|b| b["found_by"]["how"] == "input") {
        let each: BTreeMap<&str, &Value> =
            bug["minimized_duplicates"].as_array().unwrap().iter().map(|m| (m["input"].as_str().unwrap(), m)).collect();
        let duplicates: BTreeSet<&str> =
            bug["duplicates"].as_array().unwrap().iter().map(|d| d.as_str().unwrap()).collect();
        assert_eq!(each.keys().copied().collect::<BTreeSet<_>>(), duplicates, "{bug:#}");
        for minimized in each.values() {
            assert_eq!(minimized["status"], "minimized", "{bug:#}");
            let file = out.path().join(minimized["reproducer"].as_str().unwrap());
            assert_eq!(std::fs::metadata(&file).unwrap().len(), minimized["reproducer_size"].as_u64().unwrap());
        }
    }
    validators::validate_report_json(&out.path().join("report.json"));
}

/// The batch summary people read, pinned (issue 50): one worker, so the
/// bugs come in one order; the generated artifacts without the hang; times
/// redacted. After an intended change: `cargo insta review`.
#[test]
fn the_batch_summary_reads_the_same_run_after_run() {
    let artifacts = triaged().0.without_hang();
    let out = tempfile::tempdir().unwrap();
    let assert = tool()
        .timeout(Duration::from_secs(600))
        .current_dir(out.path())
        .args(["--timeout", "500ms", "--workers", "1", "--exec", &exec_line("triage"), "-o", "reports", "triage"])
        .arg(artifacts.path())
        .assert();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert_eq!(assert.get_output().status.code(), Some(7), "{stderr}");
    let text = stderr.replace(&artifacts.path().display().to_string(), "[ARTIFACTS]");
    insta::with_settings!({ filters => vec![(r"\d+(\.\d+)?(ns|µs|ms|s)\b", "[TIME]")] }, {
        insta::assert_snapshot!("batch_summary", text);
    });
}
