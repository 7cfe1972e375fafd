//! Exit codes: what the process's status tells a script or CI job, and the error type that carries one.
//!
//! | code | meaning |
//! |-----:|---------|
//! | 0    | minimized: the result is written and reproduces the same crash (batch mode: no input crashes; corpus mode: the new corpus is written and covers every feature of the old one, also when `--max-time` stopped the shrinking) |
//! | 1    | internal or other error (I/O, an unexpected failure) |
//! | 2    | usage error: bad arguments, a missing, unreadable or empty crash file (or one that is not a regular file, or over 64 MiB), a command that cannot be started, an output path that would overwrite the crash file or cannot be written |
//! | 3    | the input does not crash: nothing to minimize |
//! | 4    | the fuzz target is unknown or could not be built: not a cargo-fuzz project, an unknown target, a compile error |
//! | 6    | minimized, but the result did not reproduce the same crash when run again (a flaky target); the result is written anyway (batch mode: some bug's reproducer did not; corpus mode: the new corpus misses a feature of the old one, whose coverage varies from run to run) |
//! | 7    | batch mode: bugs found, each minimized and verified; the output directory has a folder per bug and the reports |
//! | 130  | interrupted (Ctrl-C); the best result so far is written (corpus mode: a complete corpus, shrunk as far as it got) |
//!
//! Code 5 is unused (earlier versions had no harness mode and said so with it).
//! The README repeats this table; keep them in step.

use std::fmt;

/// The process's exit code, one variant per outcome a caller may branch on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// 0: the result is written and reproduces the same crash.
    Minimized,
    /// 1: an internal or other error.
    Error,
    /// 2: bad arguments, or a crash file or command that cannot be used.
    Usage,
    /// 3: the input does not crash, so there is nothing to minimize.
    DoesNotCrash,
    /// 4: the fuzz target is unknown or could not be built (harness mode).
    BuildFailed,
    /// 6: the written result did not reproduce the crash when run again.
    Unverified,
    /// 7: batch mode found bugs, each minimized and verified.
    BugsFound,
    /// 130: interrupted; the best result so far is written.
    Interrupted,
}

impl Exit {
    /// The numeric code.
    pub fn code(self) -> u8 {
        match self {
            Exit::Minimized => 0,
            Exit::Error => 1,
            Exit::Usage => 2,
            Exit::DoesNotCrash => 3,
            Exit::BuildFailed => 4,
            Exit::Unverified => 6,
            Exit::BugsFound => 7,
            Exit::Interrupted => 130,
        }
    }
}

impl From<Exit> for std::process::ExitCode {
    fn from(exit: Exit) -> Self {
        std::process::ExitCode::from(exit.code())
    }
}

/// An error that ends the run, with the exit code it ends it with.
#[derive(Debug)]
pub struct Failure {
    /// How the process exits.
    pub exit: Exit,
    /// What went wrong, with its chain of context.
    pub error: anyhow::Error,
}

impl Failure {
    /// A failure with an explicit exit code.
    pub fn new(exit: Exit, error: impl Into<anyhow::Error>) -> Self {
        Failure { exit, error: error.into() }
    }

    /// A usage error (exit 2).
    pub fn usage(error: impl Into<anyhow::Error>) -> Self {
        Failure::new(Exit::Usage, error)
    }
}

/// Any other error is an internal one (exit 1).
impl From<anyhow::Error> for Failure {
    fn from(error: anyhow::Error) -> Self {
        Failure::new(Exit::Error, error)
    }
}

/// The error, then each cause on a line of its own.
impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.error)?;
        for cause in self.error.chain().skip(1) {
            write!(f, "\n  caused by: {cause}")?;
        }
        Ok(())
    }
}

/// Attaches an exit code to a `Result`'s error.
pub trait OrExit<T> {
    /// Fails with `exit` instead of the default (1).
    fn or_exit(self, exit: Exit) -> Result<T, Failure>;
}

impl<T, E: Into<anyhow::Error>> OrExit<T> for Result<T, E> {
    fn or_exit(self, exit: Exit) -> Result<T, Failure> {
        self.map_err(|e| Failure::new(exit, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_match_the_documented_table() {
        let table = [
            (Exit::Minimized, 0),
            (Exit::Error, 1),
            (Exit::Usage, 2),
            (Exit::DoesNotCrash, 3),
            (Exit::BuildFailed, 4),
            (Exit::Unverified, 6),
            (Exit::BugsFound, 7),
            (Exit::Interrupted, 130),
        ];
        for (exit, code) in table {
            assert_eq!(exit.code(), code, "{exit:?}");
        }
    }
}
