//! The generators' command-line plumbing, shared with planted-corpus: numeric flags, `--help` and usage errors, exit codes.

use std::process::ExitCode;

/// The value after `flag`, as a number.
pub(crate) fn number<T: std::str::FromStr>(flag: &str, value: Option<String>) -> Result<T, String> {
    let value = value.ok_or(format!("{flag} needs a value"))?;
    value.parse().map_err(|_| format!("{flag}: `{value}` is not a number"))
}

/// The options `parse_args` read, or how `program` exits instead: `--help` (an empty error) prints `usage` to
/// stdout, success; a usage error prints the message and `usage` to stderr, exit code 2.
pub(crate) fn options<T>(program: &str, usage: &str, parsed: Result<T, String>) -> Result<T, ExitCode> {
    match parsed {
        Ok(options) => Ok(options),
        Err(message) if message.is_empty() => {
            println!("{usage}");
            Err(ExitCode::SUCCESS)
        }
        Err(message) => {
            eprintln!("{program}: {message}\n{usage}");
            Err(ExitCode::from(2))
        }
    }
}

/// How `program` exits after its work: success, or the error on stderr and failure.
pub(crate) fn exit(program: &str, result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{program}: {message}");
            ExitCode::FAILURE
        }
    }
}

/// A command line split at white space, as `parse_args` takes it (for tests).
#[cfg(test)]
pub(crate) fn args(line: &str) -> impl Iterator<Item = String> + '_ {
    line.split_whitespace().map(str::to_string)
}
