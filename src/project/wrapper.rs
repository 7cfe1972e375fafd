//! The coverage build's `RUSTC_WRAPPER`: this binary again, compiling our own runtime and protocol crates without SanitizerCoverage, so the features a child reports are the target's (and its dependencies'), as in a `cargo fuzz build`, not the example recorder's.
//!
//! RUSTFLAGS reach every crate; cargo has no per-crate flags on stable. The
//! recorder runs once per value `arbitrary` builds, so instrumented it would
//! add hit-count features (a loop in it run 128+ times) that libFuzzer never
//! sees, and an input kept for them could not shrink below that many values.

use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::process::Command;

/// Set in cargo's environment to make this binary act as the wrapper.
pub const WRAP_VAR: &str = "CARGO_MINIMIZE_CRASH_WRAP_RUSTC";
/// The user's own `RUSTC_WRAPPER` (sccache, ...), which the wrapper runs in turn.
pub const INNER_VAR: &str = "CARGO_MINIMIZE_CRASH_INNER_WRAPPER";

/// The crates compiled without coverage instrumentation.
const UNINSTRUMENTED: [&str; 2] = ["cmc_runtime", "cmc_protocol"];

/// The environment that makes cargo compile through `wrapper` (this binary).
pub fn cargo_env(wrapper: &Path) -> Vec<(&'static str, OsString)> {
    let mut env = vec![("RUSTC_WRAPPER", wrapper.as_os_str().to_owned()), (WRAP_VAR, OsString::from("1"))];
    if let Some(user) = std::env::var_os("RUSTC_WRAPPER").filter(|w| !w.is_empty()) {
        env.push((INNER_VAR, user));
    }
    env
}

/// When this process was started as the wrapper (`WRAP_VAR` set, then
/// `RUSTC ARGS...`), compiles and returns rustc's exit code; `None` otherwise.
pub fn run_if_wrapper() -> Option<i32> {
    std::env::var_os(WRAP_VAR)?;
    let mut args = std::env::args_os().skip(1);
    let rustc = args.next()?;
    let args = filtered(args.collect());
    let mut command = match std::env::var_os(INNER_VAR) {
        Some(inner) => {
            let mut command = Command::new(inner);
            command.arg(rustc);
            command
        }
        None => Command::new(rustc),
    };
    command.args(args).env_remove(WRAP_VAR).env_remove(INNER_VAR);
    match command.status() {
        Ok(status) => Some(status.code().unwrap_or(1)),
        Err(error) => {
            eprintln!("cargo-minimize-crash (as RUSTC_WRAPPER): cannot run rustc: {error}");
            Some(1)
        }
    }
}

/// `args` without the coverage flags when they compile one of our crates.
fn filtered(args: Vec<OsString>) -> Vec<OsString> {
    let ours = args.windows(2).any(|w| w[0] == "--crate-name" && UNINSTRUMENTED.iter().any(|c| w[1] == *c));
    if !ours {
        return args;
    }
    args.into_iter().filter(|a| !is_coverage_flag(a)).collect()
}

fn is_coverage_flag(arg: &OsStr) -> bool {
    let arg = arg.to_string_lossy();
    arg == "-Cpasses=sancov-module" || arg.starts_with("-Cllvm-args=-sanitizer-coverage")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<OsString> {
        words.iter().map(OsString::from).collect()
    }

    #[test]
    fn only_our_crates_lose_the_coverage_flags() {
        let runtime = args(&[
            "--crate-name",
            "cmc_runtime",
            "-Cpasses=sancov-module",
            "-Cllvm-args=-sanitizer-coverage-level=4",
            "-Cllvm-args=-simplifycfg-branch-fold-threshold=0",
            "--cfg",
            "fuzzing",
        ]);
        let kept = args(&[
            "--crate-name",
            "cmc_runtime",
            "-Cllvm-args=-simplifycfg-branch-fold-threshold=0",
            "--cfg",
            "fuzzing",
        ]);
        assert_eq!(filtered(runtime), kept);
        let target = args(&["--crate-name", "planted", "-Cpasses=sancov-module"]);
        assert_eq!(filtered(target.clone()), target);
    }
}
