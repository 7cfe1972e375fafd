//! From a user's cargo-fuzz project to a harness binary: find the fuzz directory and the target, write a scratch workspace that swaps `libfuzzer-sys` for our stand-in, build it.
//!
//! This folder is the user's build; what we put into it is [`inject`]. The
//! pipeline, one file per step:
//!
//! 1. [`locate`]: the fuzz directory as cargo-fuzz finds it, its targets, the
//!    workspace whose lockfile cargo uses; [`resolve`]: the user's locked
//!    sources of the crates we stand in for;
//! 2. [`inject`]: the stand-ins written from them (`libfuzzer-sys` with a
//!    `main` that hands the target to the runtime's fork server, `arbitrary`
//!    re-exported by a crate that records where each derived value was read),
//!    and the runtime, written out from the copy compiled into this binary;
//! 3. [`scratch`]: a copy of the fuzz manifest with absolute paths, an empty
//!    `[workspace]`, the user's lockfile and a `[patch]` pointing at the stand-in;
//! 4. [`harness`]: `cargo build` of that workspace with cargo-fuzz's flags, the
//!    compile errors as a typed error, and a check that the patch was taken.
//!
//! [`wrapper`] is the rustc wrapper cargo runs for the harness's build, and
//! [`files`] writes into the scratch directory only what changed.
//!
//! The user's files are only ever read: everything is written under the scratch
//! directory (by default `<the fuzz project's target dir>/minimize-crash/`).

pub mod cargo;
pub mod files;
pub mod flags;
pub mod harness;
pub mod inject;
pub mod locate;
pub mod resolve;
pub mod scratch;
pub(crate) mod sources;
pub mod wrapper;

use std::path::PathBuf;
use std::process::ExitStatus;

pub use flags::{BuildFlags, BuildOptions, Sanitizer};
pub use harness::{build_harness, Harness, Structure};
pub use locate::{FuzzProject, Target};

use crate::exit_code::{Exit, Failure};

/// What can go wrong between a project directory and a harness binary; every
/// variant but [`ProjectError::Other`] means "the fuzz target could not be built
/// or is unknown" (exit code 4).
#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    /// No `Cargo.toml` in the working directory or any parent.
    #[error("no Cargo project in {} or any parent directory; run from your project or pass --fuzz-dir", cwd.display())]
    NoCargoProject {
        /// Where the search started.
        cwd: PathBuf,
    },
    /// The fuzz directory has no manifest, or its manifest lacks `[package.metadata] cargo-fuzz = true`.
    #[error(
        "{} is not a cargo-fuzz project: {reason}; create one with `cargo fuzz init`, or pass --fuzz-dir",
        fuzz_dir.display()
    )]
    NotAFuzzProject {
        /// The directory that was tried.
        fuzz_dir: PathBuf,
        /// What is missing.
        reason: String,
    },
    /// A manifest or lockfile that cannot be read or parsed.
    #[error("cannot use {}: {message}", path.display())]
    Manifest {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// The target name is not one of the fuzz manifest's `[[bin]]` entries.
    #[error(
        "no fuzz target named `{name}` in {}; {}",
        manifest.display(),
        if known.is_empty() {
            "it has no [[bin]] targets: add one with `cargo fuzz add <name>`".to_string()
        } else {
            format!("the targets are: {}", known.join(", "))
        }
    )]
    UnknownTarget {
        /// The name asked for.
        name: String,
        /// The targets the manifest lists, sorted.
        known: Vec<String>,
        /// The fuzz manifest.
        manifest: PathBuf,
    },
    /// The fuzz project does not use `libfuzzer-sys` in a way the stand-in can replace.
    #[error("cannot build a harness for {}: {reason}; minimize with --exec and a libFuzzer binary instead", fuzz_dir.display())]
    Unsupported {
        /// The fuzz directory.
        fuzz_dir: PathBuf,
        /// Why not.
        reason: String,
    },
    /// The user's code (or a dependency) does not compile.
    #[error(
        "the fuzz target `{target}` does not compile (`cargo fuzz build {target}` should show the same):\n{diagnostics}"
    )]
    Compile {
        /// The fuzz target.
        target: String,
        /// rustc's rendered error messages.
        diagnostics: String,
    },
    /// cargo failed without a compile error (resolution, download, manifest).
    #[error("`{command}` failed ({status}):\n{output}")]
    Cargo {
        /// The command line, for the user to re-run.
        command: String,
        /// How it ended.
        status: ExitStatus,
        /// What it printed on stderr.
        output: String,
    },
    /// cargo ignored a `[patch]`, so the real libFuzzer (or `arbitrary`) would have been linked.
    #[error(
        "cargo did not use the {package} stand-in (the lockfile {} still takes {package} from {source_id}); \
         this is a bug in cargo-minimize-crash, please report it with your fuzz/Cargo.toml",
        lockfile.display()
    )]
    PatchNotUsed {
        /// The package whose stand-in was ignored.
        package: String,
        /// The scratch lockfile.
        lockfile: PathBuf,
        /// The source cargo used instead.
        source_id: String,
    },
    /// Anything else: I/O, a command that cannot be started.
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

impl ProjectError {
    /// The exit code this error ends the run with.
    pub fn exit(&self) -> Exit {
        match self {
            ProjectError::Other(_) => Exit::Error,
            _ => Exit::BuildFailed,
        }
    }
}

impl From<ProjectError> for Failure {
    fn from(error: ProjectError) -> Self {
        Failure::new(error.exit(), error)
    }
}
