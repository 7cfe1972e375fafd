//! The batch report's data model: what `report.json` holds (its JSON Schema is `docs/report.schema.json`), and what the Markdown, SARIF and annotation writers render.
//!
//! One value, [`BatchReport`], written whole each time a bug finishes, so the
//! report on disk is always complete for what is done. Paths of inputs are as
//! the user gave them (or found in a directory); paths inside the output
//! directory are relative to it, so a directory moved or downloaded as a CI
//! artifact still reads right.

use serde::{Deserialize, Serialize};

use crate::signature::{Level, Signature};
use crate::verify::LibFuzzerCheck;

/// The version of the report's format; bumped when a field changes meaning or goes.
pub const REPORT_VERSION: u32 = 1;

/// Everything a batch run found, one entry per bug.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct BatchReport {
    /// [`REPORT_VERSION`].
    pub version: u32,
    /// The tool that wrote it.
    pub tool: Tool,
    /// The shard this run covered (`--shard I/N`), when sharded; absent in a merged report.
    pub shard: Option<Shard>,
    /// How closely crashes had to match to be the same bug (`--signature`).
    pub signature_level: Level,
    /// The repository root that source paths in `bugs[].location` are relative to.
    pub repository_root: Option<String>,
    /// Counts over all inputs.
    pub totals: Totals,
    /// One entry per distinct bug, in the order they were found.
    pub bugs: Vec<Bug>,
    /// Inputs that did not crash or could not be used, with why.
    pub skipped: Vec<SkippedInput>,
    /// Whether the run stopped early (Ctrl-C): bugs not yet minimized say so in their status.
    pub interrupted: bool,
}

/// The tool's name and version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Tool {
    /// `cargo-minimize-crash`.
    pub name: String,
    /// Its version.
    pub version: String,
}

impl Default for Tool {
    fn default() -> Self {
        Tool { name: env!("CARGO_PKG_NAME").to_owned(), version: env!("CARGO_PKG_VERSION").to_owned() }
    }
}

/// One shard of a run split by `--shard I/N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Shard {
    /// This shard, from 1.
    pub index: u32,
    /// How many shards in all.
    pub count: u32,
}

/// Counts over all inputs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Totals {
    /// Inputs considered (after sharding).
    pub inputs: usize,
    /// Inputs that crashed (every member of every bug).
    pub crashing: usize,
    /// Distinct bugs.
    pub bugs: usize,
    /// Bugs minimized and verified.
    pub minimized: usize,
    /// Bugs whose reproducer did not crash the same way again.
    pub not_reproducible: usize,
    /// Inputs that did not crash, were empty or unreadable.
    pub skipped: usize,
}

/// One distinct bug: its signature, its minimized reproducer and every input that showed it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Bug {
    /// A stable name for the bug, also its folder in the output directory:
    /// `<target>-<kind>-<first 10 hex digits of the fingerprint>`.
    pub id: String,
    /// The fuzz target (or the `--exec` label).
    pub target: String,
    /// The SHA-1 of the target and the signature at the run's level, in hex: the
    /// same bug gets the same fingerprint in every run and shard.
    pub fingerprint: String,
    /// The crash.
    pub signature: Signature,
    /// A one-line title: `panic at src/lib.rs:3:5: index out of bounds`.
    pub title: String,
    /// Where it is.
    pub status: BugStatus,
    /// How it was found.
    pub found_by: FoundBy,
    /// The source location a code-scanning result points at, when one is in the repository.
    pub location: Option<SourceLocation>,
    /// The minimized reproducer, relative to the output directory (`<id>/reproducer`).
    pub reproducer: Option<String>,
    /// The reproducer's size in bytes.
    pub reproducer_size: Option<usize>,
    /// The input minimized (the smallest member), as given.
    pub representative: String,
    /// The representative's size in bytes.
    pub original_size: usize,
    /// Every other input with this bug, as given.
    pub duplicates: Vec<String>,
    /// A typed target's reproducer as `{:#?}` renders it.
    pub value: Option<String>,
    /// Tests the reduction ran.
    pub tests: u64,
    /// The reduction's wall time, in seconds.
    pub seconds: f64,
    /// Whether the reproducer crashed the same way when run again.
    pub verified: Option<bool>,
    /// The cross-check with a plain libFuzzer build, when it ran.
    pub libfuzzer: Option<LibFuzzerCheck>,
    /// A command that reproduces the bug from the reproducer.
    pub reproduce: String,
    /// With `--each`: every duplicate minimized too, each into a file of its own.
    #[serde(default)]
    pub minimized_duplicates: Vec<MinimizedInput>,
}

/// A duplicate minimized on its own (`--each`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct MinimizedInput {
    /// The input, as given.
    pub input: String,
    /// Its reproducer, relative to the output directory (`<bug id>/minimized-from-<sha1 of the input>`).
    pub reproducer: Option<String>,
    /// The reproducer's size in bytes.
    pub reproducer_size: Option<usize>,
    /// Where it stands.
    pub status: BugStatus,
}

/// Where a bug's reduction stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum BugStatus {
    /// Minimized, and the reproducer crashes the same way again.
    Minimized,
    /// The reproducer (or the representative itself) did not crash the same way again.
    NotReproducible,
    /// Not finished: the run was interrupted first.
    Interrupted,
    /// Running the target failed (see `error`).
    Failed {
        /// What went wrong.
        error: String,
    },
}

/// How a bug was found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(tag = "how", rename_all = "kebab-case")]
pub enum FoundBy {
    /// An input crashed this way when first run.
    Input,
    /// A candidate crashed this way while another bug was being minimized (a slip).
    Slip {
        /// The id of the bug being minimized.
        while_minimizing: String,
    },
}

/// A place in the user's source, relative to the repository root.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct SourceLocation {
    /// The file, relative to the repository root, with `/` separators.
    pub path: String,
    /// The line, from 1.
    pub line: u32,
    /// The column, from 1, when known.
    pub column: Option<u32>,
}

/// An input that is not part of any bug, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct SkippedInput {
    /// The input, as given.
    pub path: String,
    /// Why it was skipped.
    pub reason: SkipReason,
}

/// Why an input is not part of any bug.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum SkipReason {
    /// It ran without crashing.
    NoCrash,
    /// The file is empty.
    Empty,
    /// The file could not be read.
    Unreadable {
        /// The error.
        error: String,
    },
    /// Running the target on it failed.
    Failed {
        /// The error.
        error: String,
    },
}

#[cfg(test)]
impl Bug {
    /// A minimized timeout with these inputs, for unit tests.
    pub(crate) fn example(id: &str, representative: &str, duplicates: &[&str]) -> Bug {
        Bug {
            id: id.into(),
            target: "t".into(),
            fingerprint: "f".repeat(40),
            signature: Signature {
                kind: crate::signature::Kind::Timeout,
                location: None,
                message: None,
                raised_in: None,
            },
            title: "timeout".into(),
            status: BugStatus::Minimized,
            found_by: FoundBy::Input,
            location: None,
            reproducer: Some(format!("{id}/reproducer")),
            reproducer_size: Some(1),
            representative: representative.into(),
            original_size: 100,
            duplicates: duplicates.iter().map(|d| d.to_string()).collect(),
            value: None,
            tests: 1,
            seconds: 0.5,
            verified: Some(true),
            libfuzzer: None,
            reproduce: String::new(),
            minimized_duplicates: Vec::new(),
        }
    }
}
