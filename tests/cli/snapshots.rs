//! What people read, pinned (issue 50): `--help`, the one-crash summary and the corpus summary on bundled samples (the batch summary is in `batch.rs`, beside its artifacts), with what varies from run to run (times, rates, paths, the progress lines) redacted. After an intended change: `cargo insta review` (or `INSTA_UPDATE=always cargo test --test cli snapshots`).

use super::*;

/// Runs the binary with `args` from the repository root: its stdout and stderr.
fn output_of(args: &[&str]) -> (String, String) {
    let out = Command::new(BIN).current_dir(root()).args(args).output().unwrap();
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// `text` without the lines a terminal-less progress display prints as it goes (as many as the machine's speed makes).
fn without_progress(text: &str) -> String {
    text.lines().filter(|line| !line.starts_with('[')).collect::<Vec<_>>().join("\n")
}

#[test]
fn the_help_is_what_the_readme_and_users_read() {
    let (help, _) = output_of(&["--help"]);
    insta::assert_snapshot!("help", help);
}

#[test]
fn the_one_crash_summary_reads_the_same_run_after_run() {
    let scratch = tempfile::tempdir().unwrap();
    let output = scratch.path().join("minimized");
    let replay = planted_replay().to_str().unwrap().to_owned();
    let command = format!("{replay} vm @@");
    let crash = "corpus-samples/vm/crash-befac9a2ca287c6b0f3ef7e8c6b081f8c07aa806";
    let (_, stderr) = output_of(&["--parallel", "1", "--exec", &command, "vm", crash, "-o", output.to_str().unwrap()]);
    let text = without_progress(&stderr).replace(output.to_str().unwrap(), "[OUTPUT]").replace(&replay, "[REPLAY]");
    insta::with_settings!({ filters => vec![
        (r"\d+(\.\d+)?(ns|µs|ms|s)\b", "[TIME]"),
        (r"\d+(\.\d+)? tests/s", "[RATE] tests/s"),
    ] }, {
        insta::assert_snapshot!("one_crash_summary", text);
    });
}

#[test]
fn the_corpus_summary_reads_the_same_run_after_run() {
    let _lock = harness_lock();
    let scratch = tempfile::tempdir().unwrap();
    let output = scratch.path().join("new");
    let corpus = root().join("tests/data/join-corpus");
    let args = ["--timeout", "1s", "--sanitizer", "none", "--workers", "1", "commands", "--corpus"];
    let assert = tool()
        .timeout(Duration::from_secs(600))
        .current_dir(root())
        .args(args)
        .arg(&corpus)
        .arg("-o")
        .arg(&output)
        .assert();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert_eq!(assert.get_output().status.code(), Some(0), "{stderr}");
    let text = without_progress(&stderr).replace(output.to_str().unwrap(), "[OUTPUT]");
    // The counts are the coverage build's, which another compiler numbers
    // otherwise: the wording is pinned, not the figures.
    insta::with_settings!({ filters => vec![
        (r"built \S+ in \S+", "built [HARNESS] in [TIME]"),
        (r"\d+(\.\d+)?(ns|µs|ms|s)\b", "[TIME]"),
        (r"\d+(\.\d+)? (files|bytes|features|tests|rounds|results|inputs|distinct)", "[N] $2"),
        (r"\d+(\.\d+)?(%| of the| joined| that hold)", "[N]$2"),
    ] }, {
        insta::assert_snapshot!("corpus_summary", text);
    });
}
