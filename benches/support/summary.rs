//! The tool's `--json` summary from a finished run (shared through `#[path]`).

/// The summary `out` printed, after checking that the run succeeded
/// (`what`: the run, for the message when it did not).
pub(crate) fn json_summary(out: &std::process::Output, what: &str) -> serde_json::Value {
    assert!(out.status.success(), "{what} failed ({}):\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("--json prints a JSON summary")
}
