//! After a harness-mode run: the cross-check with a plain libFuzzer build (`cargo fuzz build TARGET --sanitizer SANITIZER`, then `BINARY -runs=1 RESULT`), and the `{:#?}` rendering of a typed target's minimized value.
//!
//! Users reproduce a result with `cargo fuzz run TARGET FILE`, so the result
//! is run once more the way that command runs it: cargo-fuzz builds the target
//! (into the fuzz project's own target directory, as `cargo fuzz build` always
//! does; nothing else of the user's is written) and the libFuzzer binary runs
//! it with `-runs=1`. Its crash is compared with the harness's signature
//! ([`Signature::matches_libfuzzer`]: libFuzzer's "deadly signal" stands for
//! any signal). Without cargo-fuzz, or with `--no-verify-libfuzzer`, the check
//! is skipped and the summary says why. The build starts in the background
//! before the reduction ([`LibFuzzerBuild`]).

use std::fmt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::exec::process::quote;
use crate::exec::symbolize::Symbolizer;
use crate::exec::{CommandLine, Executor, ProcessExecutor, RunningGroup};
use crate::project::cargo::cargo_program;
use crate::project::Sanitizer;
use crate::signature::{Level, Signature};

mod build;
mod mode;
mod toolchain;

pub use build::{BuildRequest, Built, LibFuzzerBuild};

/// The cross-check's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The libFuzzer build crashed the same way.
    Yes,
    /// It did not crash, or crashed differently.
    No,
    /// Not checked (see the reason).
    Skipped,
}

/// What the libFuzzer build made of the result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct LibFuzzerCheck {
    /// Yes, no or skipped.
    pub verified: Verdict,
    /// Why skipped, or how it crashed (or did not), in words.
    pub reason: String,
    /// The command that ran the result, when it ran.
    pub command: Option<String>,
    /// The crash the libFuzzer build had, when it crashed.
    pub signature: Option<Signature>,
}

impl LibFuzzerCheck {
    /// A check that did not run, and why.
    pub fn skipped(reason: impl Into<String>) -> Self {
        LibFuzzerCheck { verified: Verdict::Skipped, reason: reason.into(), command: None, signature: None }
    }
}

impl fmt::Display for LibFuzzerCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let word = match self.verified {
            Verdict::Yes => "yes",
            Verdict::No => "NO",
            Verdict::Skipped => "skipped",
        };
        write!(f, "{word} ({})", self.reason)
    }
}

/// What the cross-check needs to know.
#[derive(Debug)]
pub struct Request<'a> {
    /// The result to run.
    pub result: &'a Path,
    /// The crash the harness had.
    pub expected: &'a Signature,
    /// How closely the crash must match.
    pub level: Level,
    /// The per-test time limit.
    pub timeout: Duration,
    /// `-rss_limit_mb` for the libFuzzer binary.
    pub rss_limit_mb: u64,
    /// Where the running process group is published for the Ctrl-C handler.
    pub running: RunningGroup,
    /// Print progress on stderr.
    pub verbose: bool,
    /// The sanitizer the harness was built with (the binary's may differ:
    /// the one `cargo fuzz build` made before).
    pub harness_sanitizer: Sanitizer,
}

/// Waits for `build` (`cargo fuzz build --sanitizer <the harness's>`,
/// started in the background, or why it could not start) and runs the
/// result with its binary.
pub fn with_libfuzzer(request: &Request, build: Result<LibFuzzerBuild, String>) -> LibFuzzerCheck {
    let installed = || {
        Command::new(cargo_program())
            .args(["fuzz", "--version"])
            .stdin(Stdio::null())
            .output()
            .is_ok_and(|output| output.status.success())
    };
    let finished = build.and_then(|build| {
        if request.verbose {
            eprintln!("verifying with libFuzzer: {}", build.line());
        }
        build.finish(installed, request.verbose)
    });
    let built = match finished {
        Ok(built) => built,
        Err(reason) => return LibFuzzerCheck::skipped(reason),
    };
    let (binary, sanitizer) = (&built.binary, built.sanitizer);
    let line = format!(
        "{} -runs=1 -rss_limit_mb={} {}",
        quote(&binary.to_string_lossy()),
        request.rss_limit_mb,
        quote(&request.result.to_string_lossy())
    );
    let bytes = match std::fs::read(request.result) {
        Ok(bytes) => bytes,
        Err(e) => return LibFuzzerCheck::skipped(format!("cannot read {}: {e}", request.result.display())),
    };
    let command = format!("{} -runs=1 -rss_limit_mb={} @@", quote(&binary.to_string_lossy()), request.rss_limit_mb);
    let file_name = request.result.file_name().unwrap_or("input".as_ref());
    let env = sanitizer.check_env().into_iter().map(|(key, value)| (key.into(), value.into())).collect();
    let outcome = CommandLine::parse(&command)
        .and_then(|command| ProcessExecutor::new(command, request.timeout, file_name, request.running.clone()))
        .and_then(|executor| executor.with_env(env).run(&bytes));
    let mut outcome = match outcome {
        Ok(outcome) => outcome,
        Err(e) => return LibFuzzerCheck::skipped(format!("cannot run `{line}`: {e:#}")),
    };
    // Its report unsymbolized (`symbolize=0`, from the request's env): its frames looked up here.
    outcome.frames = Symbolizer::new(binary).report_frames(&outcome.stderr_text());
    let signature = Signature::of(&outcome);
    let across = sanitizer != request.harness_sanitizer;
    let how = built_how(&built, across);
    // The harness had debug assertions, the binary none: the way to reduce on the binary's build.
    let hint = if built.release { "; with -O the harness is built as it was" } else { "" };
    let (verified, reason) = match &signature {
        Some(actual) if same_crash(request.expected, actual, request.level, across) => {
            (Verdict::Yes, format!("the cargo fuzz build{how} crashes the same way: {actual}"))
        }
        Some(actual) => (Verdict::No, format!("the cargo fuzz build{how} crashes differently: {actual}{hint}")),
        None => (Verdict::No, format!("the cargo fuzz build{how} does not crash on it ({}){hint}", outcome.status)),
    };
    LibFuzzerCheck { verified, reason, command: Some(line), signature }
}

/// How the cross-check's binary was built where the harness was not, in
/// words: " (built with AddressSanitizer)", " (built with -O, as ...)", or "".
fn built_how(built: &Built, across: bool) -> String {
    let mut ways = Vec::new();
    if across {
        ways.push(built.sanitizer.description().to_string());
    }
    if built.release {
        ways.push("-O, as the binary `cargo fuzz build` made was, without debug assertions".to_string());
    }
    if ways.is_empty() {
        String::new()
    } else {
        format!(" (built with {})", ways.join(" and "))
    }
}

/// Whether the libFuzzer binary's crash `actual` is the harness's `expected`
/// at `level`. `across`: the binary has another sanitizer than the harness
/// (the one `cargo fuzz build` made before, with AddressSanitizer), which
/// reports a signal or a stack overflow the harness saw without one as its
/// own bug type (`SEGV`, `stack-overflow`, ...).
fn same_crash(expected: &Signature, actual: &Signature, level: Level, across: bool) -> bool {
    use crate::signature::Kind;
    const SIGNALS: [&str; 5] = ["SEGV", "BUS", "FPE", "ILL", "ABRT"];
    if expected.matches_libfuzzer(actual, level) {
        return true;
    }
    // A panic raised in the standard library: the harness locates it by its
    // caller, which a `cargo fuzz build` binary does not print; where it was
    // raised (the same toolchain built both) stands in for it.
    if expected.raised_in.is_some() && expected.raised_in == actual.raised_in {
        let located = Signature { location: expected.location.clone(), ..actual.clone() };
        return expected.matches(&located, level);
    }
    let Kind::Sanitizer { bug, .. } = &actual.kind else { return false };
    across
        && level != Level::Strict
        && match expected.kind {
            Kind::StackOverflow => bug == "stack-overflow",
            Kind::Signal { .. } => SIGNALS.contains(&bug.as_str()) || bug == "stack-overflow",
            _ => false,
        }
}

/// The `{:#?}` rendering of a typed target's input: libfuzzer-sys's typed
/// `fuzz_target!` writes it to the file named by `RUST_LIBFUZZER_DEBUG_PATH`
/// (and returns without running the target), which is what `cargo fuzz fmt`
/// reads. The harness replays `result` with that variable set. `None` for a
/// raw-bytes target (whose rendering is just the bytes), or when nothing was
/// written in time.
pub fn debug_rendering(harness: &Path, result: &Path, bytes: &[u8], timeout: Duration) -> Option<String> {
    let dir = tempfile::Builder::new().prefix("cargo-minimize-crash-debug-").tempdir().ok()?;
    let path = dir.path().join("debug.txt");
    let mut child = Command::new(harness)
        .arg(result)
        .env("RUST_LIBFUZZER_DEBUG_PATH", &path)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + timeout.max(Duration::from_secs(1));
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let text = std::fs::read_to_string(&path).ok()?;
    let text = text.trim_end();
    // A `|data: &[u8]|` target writes `{:?}` of the bytes: nothing to add.
    (!text.is_empty() && text != format!("{bytes:?}")).then(|| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_check_reads_as_a_verdict_and_its_reason() {
        let check = LibFuzzerCheck::skipped("cargo-fuzz is not installed");
        assert_eq!(check.to_string(), "skipped (cargo-fuzz is not installed)");
        assert_eq!(serde_json::to_value(&check).unwrap()["verified"], "skipped");
    }

    /// Writes an executable shell script with `body` at `path`, through a
    /// child process: a file this process held open for writing could be
    /// inherited by a child another test thread forks at that moment, and
    /// running the script would then fail with "Text file busy" (ETXTBSY).
    pub(super) fn write_script(path: &std::path::Path, body: &str) {
        use std::io::Write;
        let mut child = std::process::Command::new("sh")
            .args(["-c", "cat > \"$1\" && chmod 755 \"$1\"", "sh"])
            .arg(path)
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(format!("#!/bin/sh\n{body}\n").as_bytes()).unwrap();
        assert!(child.wait().unwrap().success(), "the script {} is written", path.display());
    }

    #[test]
    fn a_raw_target_has_no_rendering_and_a_typed_one_has_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("harness");
        let write = |body: &str| write_script(&script, body);
        let input = dir.path().join("input");
        std::fs::write(&input, b"\x01\x02").unwrap();
        write("echo '[1, 2]' > \"$RUST_LIBFUZZER_DEBUG_PATH\"");
        assert_eq!(debug_rendering(&script, &input, b"\x01\x02", Duration::from_secs(5)), None);
        write("printf 'Scene {\\n    title: \"\",\\n}\\n' > \"$RUST_LIBFUZZER_DEBUG_PATH\"");
        let rendering = debug_rendering(&script, &input, b"\x01\x02", Duration::from_secs(5));
        assert_eq!(rendering.as_deref(), Some("Scene {\n    title: \"\",\n}"));
    }

    /// A harness built without a sanitizer sees a segfault or a stack
    /// overflow as such; an AddressSanitizer binary reports it as its own bug
    /// type. The same crash only across sanitizers, and never under `strict`.
    #[test]
    fn a_signal_matches_an_address_sanitizer_report_of_it_only_across_sanitizers() {
        use crate::signature::Kind;
        let signature = |kind: Kind| Signature { kind, location: None, message: None, raised_in: None };
        let asan = |bug: &str| signature(Kind::Sanitizer { sanitizer: "AddressSanitizer".into(), bug: bug.into() });
        let segv = signature(Kind::Signal { signal: 11 });
        let overflow = signature(Kind::StackOverflow);
        assert!(same_crash(&segv, &asan("SEGV"), Level::Default, true));
        assert!(same_crash(&overflow, &asan("stack-overflow"), Level::Default, true));
        assert!(!same_crash(&segv, &asan("SEGV"), Level::Default, false), "the same sanitizer must agree");
        assert!(!same_crash(&segv, &asan("SEGV"), Level::Strict, true));
        assert!(!same_crash(&segv, &asan("heap-buffer-overflow"), Level::Default, true));
        assert!(!same_crash(&signature(Kind::Panic), &asan("SEGV"), Level::Default, true));
    }
}
