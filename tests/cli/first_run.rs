//! A user's first run on their project (issue 48): the binary `cargo +nightly fuzz build` made (the rule for sanitizers) is cross-checked as it is, with the toolchain that built it, and a target that reads the environment is named when an input does not crash without it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

use serde_json::Value;

use super::*;

/// The tests on [`bug_project`] take turns: they share its directory, lockfile and builds.
fn project_lock() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A project with one `&[u8]` target that panics on "bug" anywhere, under
/// the shared target directory (its builds kept between runs); no lockfile.
fn bug_project() -> PathBuf {
    let dir = Path::new(BIN).parent().unwrap().parent().unwrap().join("tmp/cli-cross-check/bug");
    let files = [
        ("Cargo.toml", "[package]\nname = \"bug\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\nexclude = [\"fuzz\"]\n"),
        ("src/lib.rs", ""),
        (
            "fuzz/Cargo.toml",
            "[package]\nname = \"bug-fuzz\"\nversion = \"0.0.0\"\npublish = false\nedition = \"2021\"\n\n\
             [package.metadata]\ncargo-fuzz = true\n\n[dependencies]\nlibfuzzer-sys = \"0.4\"\n\n\
             [workspace]\nmembers = [\".\"]\n\n\
             [[bin]]\nname = \"bug\"\npath = \"fuzz_targets/bug.rs\"\ntest = false\ndoc = false\n\n\
             [[bin]]\nname = \"moded\"\npath = \"fuzz_targets/moded.rs\"\ntest = false\ndoc = false\n",
        ),
        (
            "fuzz/fuzz_targets/moded.rs",
            "#![no_main]\nuse libfuzzer_sys::fuzz_target;\n\n\
             fuzz_target!(|data: &[u8]| {\n    if std::env::var(\"BUG_MODE\").is_ok() && data.starts_with(b\"bug\") {\n        \
             panic!(\"a bug in this mode\");\n    }\n});\n",
        ),
        (
            "fuzz/fuzz_targets/bug.rs",
            "#![no_main]\nuse libfuzzer_sys::fuzz_target;\n\n\
             fuzz_target!(|data: &[u8]| {\n    if data.windows(3).any(|w| w == b\"bug\") {\n        panic!(\"a bug\");\n    }\n});\n",
        ),
    ];
    for (relative, text) in files {
        let path = dir.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text) {
            std::fs::write(path, text).unwrap();
        }
    }
    let _ = std::fs::remove_file(dir.join("fuzz/Cargo.lock"));
    dir
}

/// The binary's bytes and when it was last written.
fn fingerprint(binary: &Path) -> (Vec<u8>, SystemTime) {
    let bytes = std::fs::read(binary).unwrap_or_else(|e| panic!("{}: {e}", binary.display()));
    (bytes, std::fs::metadata(binary).unwrap().modified().unwrap())
}

/// `rustup run nightly cargo fuzz build ARGS bug`, then ours on a crash
/// with no build options: the summary and stderr, once the user's binary
/// is checked to be left as it was (not rebuilt, not replaced).
fn cross_checked_after(build_args: &[&str]) -> (Value, String) {
    cargo_fuzz::require();
    let _lock = project_lock();
    let project = bug_project();
    let built = Command::new("rustup")
        .current_dir(&project)
        .args(["run", "nightly", "cargo", "fuzz", "build"])
        .args(build_args)
        .arg("bug")
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "`rustup run nightly cargo fuzz build {build_args:?} bug` failed (a nightly toolchain: `rustup toolchain \
         install nightly`):\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let binary = project.join("fuzz/target/x86_64-unknown-linux-gnu/release/bug");
    let before = fingerprint(&binary);
    let scratch = tempfile::tempdir().unwrap();
    let crash = scratch.path().join("crash");
    std::fs::write(&crash, b"a few bytes, then a bug, then a few more").unwrap();
    let run = Command::new(BIN)
        .current_dir(&project)
        .args(["--json", "bug"])
        .arg(&crash)
        .arg("-o")
        .arg(scratch.path().join("out"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    let summary: Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(std::fs::read(scratch.path().join("out")).unwrap(), b"bug");
    let after = fingerprint(&binary);
    assert!(after.0 == before.0, "the user's binary was replaced:\n{stderr}");
    assert_eq!(after.1, before.1, "the user's binary was written again (a rebuild):\n{stderr}");
    (summary, stderr)
}

#[test]
fn a_binary_built_with_the_nightly_toolchain_is_cross_checked_as_it_is_and_left_as_it_was() {
    let (summary, stderr) = cross_checked_after(&[]);
    assert_eq!(summary["libfuzzer"]["verified"], "yes", "{summary:#}\n{stderr}");
}

/// `cargo fuzz build -O` leaves a binary without debug assertions; ours,
/// given no mode, cross-checks with `-O` (decision 0119) rather than
/// rebuild every crate with them and replace it.
#[test]
fn a_binary_built_with_o_is_cross_checked_with_o_and_left_as_it_was() {
    let (summary, stderr) = cross_checked_after(&["-O"]);
    assert_eq!(summary["libfuzzer"]["verified"], "yes", "{summary:#}\n{stderr}");
    let reason = summary["libfuzzer"]["reason"].as_str().unwrap();
    assert!(reason.contains("built with AddressSanitizer and -O"), "{reason}");
    assert!(stderr.contains("--release"), "the progress line gives the command:\n{stderr}");
}

#[test]
fn an_input_that_crashes_only_with_a_variable_the_target_reads_is_told_to_set_it() {
    let _lock = project_lock();
    let project = bug_project();
    let scratch = tempfile::tempdir().unwrap();
    let crash = scratch.path().join("crash");
    std::fs::write(&crash, b"bug, with the mode on").unwrap();
    let run = |mode: Option<&str>| {
        let mut command = Command::new(BIN);
        command.current_dir(&project).args(["--no-verify-libfuzzer", "moded"]).arg(&crash);
        command.arg("-o").arg(scratch.path().join("out")).env_remove("BUG_MODE");
        command.envs(mode.map(|m| ("BUG_MODE", m)));
        command.output().unwrap()
    };
    let without = run(None);
    let stderr = String::from_utf8_lossy(&without.stderr);
    assert_eq!(without.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("reads BUG_MODE (fuzz_targets/moded.rs; unset here)"), "{stderr}");
    let with = run(Some("1"));
    assert_eq!(with.status.code(), Some(0), "{}", String::from_utf8_lossy(&with.stderr));
    assert_eq!(std::fs::read(scratch.path().join("out")).unwrap(), b"bug");
}
