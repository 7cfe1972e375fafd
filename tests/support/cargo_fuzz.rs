//! `cargo fuzz`, for the tests that compare with a plain libFuzzer build of a sample target.

use std::path::{Path, PathBuf};
use std::process::Command;

fn cargo() -> std::ffi::OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// Whether `cargo fuzz` works here.
pub(crate) fn installed() -> bool {
    Command::new(cargo()).args(["fuzz", "--version"]).output().is_ok_and(|o| o.status.success())
}

/// Fails the calling test, saying what to install, when `cargo fuzz` does
/// not work here: a test that needs it never passes without running
/// (`.ci/run` installs it).
pub(crate) fn require() {
    assert!(installed(), "this test needs cargo-fuzz: `cargo install cargo-fuzz --locked` (.ci/run installs it)");
}

/// The `cargo fuzz build --sanitizer none` binary of `target` in the cargo-fuzz project at `root`.
pub(crate) fn binary(root: &Path, target: &str) -> PathBuf {
    let output = Command::new(cargo())
        .current_dir(root)
        .args(["fuzz", "build", "--sanitizer", "none", target])
        .output()
        .unwrap();
    assert!(output.status.success(), "cargo fuzz build failed:\n{}", String::from_utf8_lossy(&output.stderr));
    let host = String::from_utf8(Command::new("rustc").arg("-vV").output().unwrap().stdout).unwrap();
    let triple = host.lines().find_map(|l| l.strip_prefix("host: ")).unwrap().trim().to_owned();
    root.join("fuzz/target").join(triple).join("release").join(target)
}
