//! Replay mode (no fork server): `harness FILE...` runs the target once on each file, in-process.
//!
//! It behaves like `./fuzz_target -runs=1 FILE...`, so a harness can stand in
//! for a libFuzzer binary in `--exec` mode and in verification: arguments that
//! start with `-` are libFuzzer flags and ignored; each file is announced with
//! `Running: FILE`; a panic prints the standard message and aborts.

use std::ffi::OsString;
use std::path::Path;
use std::time::Instant;

use cmc_protocol::ENV_VAR;

/// Runs the target on every file named on the command line; exits 0, or 2 on a usage error.
pub(crate) fn run(test_one: crate::TestOne) -> ! {
    let mut args = std::env::args_os();
    let program = args.next().unwrap_or_else(|| "harness".into());
    let files = files(args);
    if files.is_empty() {
        eprintln!("{}", usage(&program));
        std::process::exit(2);
    }
    // Die of a panic as a fuzz target does: the default message, then abort.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default_hook(info);
        std::process::abort();
    }));
    for file in &files {
        let shown = Path::new(file).display();
        let data = std::fs::read(file).unwrap_or_else(|e| {
            eprintln!("{}: cannot read {shown}: {e}", Path::new(&program).display());
            std::process::exit(2);
        });
        eprintln!("Running: {shown}");
        let started = Instant::now();
        // SAFETY: the data and its length, as libFuzzer passes them.
        let code = unsafe { test_one(data.as_ptr(), data.len()) };
        let verdict = if code == -1 { " (rejected)" } else { "" };
        eprintln!("Executed {shown} in {} ms{verdict}", started.elapsed().as_millis());
    }
    std::process::exit(0)
}

/// The arguments that are not flags.
fn files(args: impl Iterator<Item = OsString>) -> Vec<OsString> {
    args.filter(|arg| !arg.as_encoded_bytes().starts_with(b"-")).collect()
}

fn usage(program: &OsString) -> String {
    format!(
        "usage: {} FILE...\n\
         Runs this fuzz target once on each file (flags starting with `-` are ignored, as with libFuzzer's \
         -runs=1).\nIt is a cargo-minimize-crash harness: the tool starts it as a fork server by setting {ENV_VAR}.",
        Path::new(program).display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libfuzzer_flags_are_skipped_and_files_kept() {
        let args = ["-runs=1", "crash-1", "-timeout=5", "dir/crash-2"].map(OsString::from);
        assert_eq!(files(args.into_iter()), vec![OsString::from("crash-1"), OsString::from("dir/crash-2")]);
    }

    #[test]
    fn the_usage_names_the_program_and_the_variable() {
        let text = usage(&OsString::from("./target/release/tlv"));
        assert!(text.starts_with("usage: ./target/release/tlv FILE...\n"), "{text}");
        assert!(text.contains(ENV_VAR));
    }
}
