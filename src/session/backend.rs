//! What a batch needs from a mode: start an executor per worker, a build identity for the rerun cache, a reproduce line, and the checks of a finished reproducer (the harness mode's libFuzzer cross-check and typed rendering).

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;

use crate::exec::{CommandLine, Executor, ForkServerExecutor, ProcessExecutor, RunningGroup};
use crate::session::interrupt::Interrupt;
use crate::session::output::sha1_hex;
use crate::session::setup::{HarnessSetup, LibFuzzerRequest};
use crate::signature::{Level, Signature};
use crate::verify::{self, LibFuzzerCheck};

/// One finished reproducer to check.
#[derive(Debug)]
pub struct Check<'a> {
    /// Its file.
    pub file: &'a Path,
    /// Its bytes.
    pub bytes: &'a [u8],
    /// The crash it must show.
    pub expected: &'a Signature,
    /// How closely.
    pub level: Level,
    /// Where the check's process group is published.
    pub running: RunningGroup,
}

/// A mode, as the batch sees it.
pub trait Backend: Sync {
    /// The executor each worker runs tests with.
    type Executor: Executor;
    /// The fuzz target (or the `--exec` label).
    fn target(&self) -> &str;
    /// Starts a worker's executor.
    fn start(&self, running: RunningGroup) -> anyhow::Result<Self::Executor>;
    /// Identifies what runs the tests (the harness binary's hash): a reproducer
    /// made by another build is not reused.
    fn build_id(&self) -> anyhow::Result<String>;
    /// A command that reproduces the crash from `file`.
    fn reproduce_line(&self, file: &Path) -> String;
    /// The cross-check with a plain libFuzzer build and a typed rendering, where the mode has them.
    fn check(&self, check: Check, interrupt: &Interrupt) -> (Option<LibFuzzerCheck>, Option<String>);
    /// The fuzz directory, when there is one (source locations are resolved against it).
    fn fuzz_dir(&self) -> Option<&Path>;
}

impl Backend for HarnessSetup {
    type Executor = ForkServerExecutor;

    fn target(&self) -> &str {
        &self.target
    }

    fn start(&self, running: RunningGroup) -> anyhow::Result<ForkServerExecutor> {
        HarnessSetup::start(self, running)
    }

    fn build_id(&self) -> anyhow::Result<String> {
        let binary = &self.harness.binary;
        let bytes = std::fs::read(binary).with_context(|| format!("cannot read the harness {}", binary.display()))?;
        Ok(sha1_hex(&bytes))
    }

    fn reproduce_line(&self, file: &Path) -> String {
        HarnessSetup::reproduce_line(self, file)
    }

    fn check(&self, check: Check, interrupt: &Interrupt) -> (Option<LibFuzzerCheck>, Option<String>) {
        let value = verify::debug_rendering(&self.harness.binary, check.file, check.bytes, self.limits().timeout);
        let request = LibFuzzerRequest {
            result: check.file,
            expected: check.expected,
            level: check.level,
            running: check.running,
            verbose: false,
        };
        (Some(self.check_with_libfuzzer(request, interrupt)), value)
    }

    fn fuzz_dir(&self) -> Option<&Path> {
        Some(&self.project.fuzz_dir)
    }
}

/// `--exec`: a command per test.
#[derive(Debug)]
pub struct ExecBackend {
    /// The command.
    pub command: CommandLine,
    /// Its label (the `TARGET` given), or empty.
    pub label: String,
    /// The per-test time limit.
    pub timeout: Duration,
}

impl Backend for ExecBackend {
    type Executor = ProcessExecutor;

    fn target(&self) -> &str {
        &self.label
    }

    fn start(&self, running: RunningGroup) -> anyhow::Result<ProcessExecutor> {
        ProcessExecutor::new(self.command.clone(), self.timeout, "input".as_ref(), running)
    }

    fn build_id(&self) -> anyhow::Result<String> {
        let program: PathBuf = self.command.locate_program()?;
        let bytes = std::fs::read(&program).with_context(|| format!("cannot read {}", program.display()))?;
        Ok(sha1_hex(format!("{}\n{}", self.command.display_for(Path::new("@@")), sha1_hex(&bytes)).as_bytes()))
    }

    fn reproduce_line(&self, file: &Path) -> String {
        self.command.display_for(file)
    }

    fn check(&self, _check: Check, _interrupt: &Interrupt) -> (Option<LibFuzzerCheck>, Option<String>) {
        (None, None)
    }

    fn fuzz_dir(&self) -> Option<&Path> {
        None
    }
}
