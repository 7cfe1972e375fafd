//! Which compiler built the binary `cargo fuzz build` made, and how the cross-check builds with that one: the same toolchain (a no-op when up to date), the installed rustup toolchain that has it (`cargo +nightly fuzz build` is the rule for sanitizers), or none, and then apart, the user's binary left as it is (decision 0096).
//!
//! rustc leaves `rustc version 1.97.0-nightly (e50aa6fba 2026-05-19)` in
//! the `.comment` section of what it links; `rustc -V` prints the same
//! after `rustc `. A build with another compiler recompiles every crate and
//! replaces the user's binary with one they did not build.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::project::cargo::needs_bootstrap;

/// How the cross-check's `cargo fuzz build` runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Builder {
    /// With our cargo, into the user's target directory: no binary there
    /// yet, or one our compiler built (or one that does not say).
    Ours,
    /// With the installed rustup toolchain of this name, whose compiler
    /// built the binary there: `rustup run NAME cargo fuzz build`.
    Rustup(String),
    /// The compiler that built the binary there (this version) is not
    /// installed: ours builds into a directory of its own.
    Apart(String),
}

impl Builder {
    /// Whether its `cargo fuzz build` sets `RUSTC_BOOTSTRAP=1`: as the
    /// crash harness does on the same compiler, and the user's build had
    /// to there (`crate::project::needs_bootstrap`); `cargo` is ours.
    pub(crate) fn bootstrap(&self, cargo: &OsStr) -> bool {
        match self {
            Builder::Rustup(name) => !name.contains("nightly"),
            Builder::Apart(version) => needs_bootstrap(version),
            Builder::Ours => version_of(Command::new(our_rustc(cargo))).map_or(true, |v| needs_bootstrap(&v)),
        }
    }
}

/// The version after the first `rustc version ` in `bytes`, up to its NUL.
fn version_in(bytes: &[u8]) -> Option<String> {
    const MARK: &[u8] = b"rustc version ";
    let at = bytes.windows(MARK.len()).position(|w| w == MARK)? + MARK.len();
    let end = bytes[at..].iter().position(|&b| b == 0 || b == b'\n').map_or(bytes.len(), |n| at + n);
    std::str::from_utf8(&bytes[at..end]).ok().map(str::to_string)
}

/// What `PROGRAM... -V` prints after `rustc `.
fn version_of(mut command: Command) -> Option<String> {
    let out = command.arg("-V").stdin(Stdio::null()).stderr(Stdio::null()).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    out.status.success().then(|| text.trim().strip_prefix("rustc ").map(str::to_string)).flatten()
}

/// The rustc our `cargo` runs: `$RUSTC`, the one beside `cargo` when it
/// is a path (a toolchain's own), else `rustc` on the `PATH`.
fn our_rustc(cargo: &OsStr) -> OsString {
    if let Some(rustc) = std::env::var_os("RUSTC") {
        return rustc;
    }
    let beside = Path::new(cargo).parent().map(|dir| dir.join("rustc")).filter(|p| p.is_file());
    beside.map_or_else(|| "rustc".into(), PathBuf::into_os_string)
}

/// The installed rustup toolchains, each with its compiler's version.
fn rustup_toolchains() -> Vec<(String, String)> {
    let Ok(out) = Command::new("rustup").args(["toolchain", "list"]).stderr(Stdio::null()).output() else {
        return Vec::new();
    };
    let names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next().map(str::to_string))
        .collect();
    let version = |name: &str| {
        let mut command = Command::new("rustup");
        command.args(["run", name, "rustc"]);
        version_of(command)
    };
    names.into_iter().filter_map(|name| version(&name).map(|v| (name, v))).collect()
}

/// How to build the binary `cargo fuzz build` made (`binary`, mapped; `None`
/// when there is none) again for the cross-check, our `cargo` being `cargo`.
pub(crate) fn builder_for(binary: Option<&[u8]>, cargo: &OsStr) -> Builder {
    let Some(theirs) = binary.and_then(version_in) else { return Builder::Ours };
    let ours = version_of(Command::new(our_rustc(cargo)));
    if ours.as_deref() == Some(theirs.as_str()) {
        return Builder::Ours;
    }
    choose(&theirs, &rustup_toolchains())
}

/// The builder for a binary built by `theirs`, from the `installed`
/// toolchains (name, version) when ours is another.
fn choose(theirs: &str, installed: &[(String, String)]) -> Builder {
    match installed.iter().find(|(_, version)| version == theirs) {
        Some((name, _)) => Builder::Rustup(name.clone()),
        None => Builder::Apart(theirs.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_is_read_from_the_comment_rustc_leaves() {
        let comment =
            b"Linker: LLD 22.1.4\0GCC: (Debian 12.2.0)\0rustc version 1.97.0-nightly (e50aa6fba 2026-05-19)\0clang";
        assert_eq!(version_in(comment).as_deref(), Some("1.97.0-nightly (e50aa6fba 2026-05-19)"));
        assert_eq!(version_in(b"\x7fELF no comment"), None);
    }

    #[test]
    fn another_compiler_is_found_among_the_installed_toolchains_or_the_build_goes_apart() {
        let installed = [
            ("stable-x86_64-unknown-linux-gnu".to_string(), "1.95.0 (59807616e 2026-04-14)".to_string()),
            ("nightly-x86_64-unknown-linux-gnu".to_string(), "1.97.0-nightly (e50aa6fba 2026-05-19)".to_string()),
        ];
        let nightly = "1.97.0-nightly (e50aa6fba 2026-05-19)";
        assert_eq!(choose(nightly, &installed), Builder::Rustup("nightly-x86_64-unknown-linux-gnu".into()));
        let gone = "1.90.0-nightly (0123456789 2025-08-01)";
        assert_eq!(choose(gone, &installed), Builder::Apart(gone.into()));
    }

    #[test]
    fn a_binary_that_is_not_there_or_says_nothing_is_built_with_our_cargo() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t");
        let builder_for = || builder_for(super::super::build::mapped(&path).as_deref(), OsStr::new("cargo"));
        assert_eq!(builder_for(), Builder::Ours, "not there");
        std::fs::write(&path, b"\x7fELF built by something else").unwrap();
        assert_eq!(builder_for(), Builder::Ours, "no rustc version in it");
    }
}
