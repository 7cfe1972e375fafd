//! `planted-artifacts OUT_DIR`: a libFuzzer-style artifacts directory for the `triage` target, every file checked by a replay.
//!
//! For each crash bug of `triage` (see `bugs.rs`), `--per-bug` distinct
//! variants made from a seed by the mutations a fuzzer makes, each kept only
//! when `planted-replay triage FILE` shows exactly that bug; `--hangs` inputs
//! that hang (each costs a one-second check); one stale artifact that does not
//! crash; one empty file. Files are named as libFuzzer names them
//! (`crash-<sha1>`, `timeout-<sha1>`). The same seed gives the same files.
//!
//! stdout is a manifest, one line per file: `NAME<TAB>BUG`, with NAME the
//! file's name in OUT_DIR and BUG one of `tlv-index`, `image-overflow`,
//! `vm-double-free`, `vm-wild-write`, `rle-zero-distance`, `rle-hang`,
//! `no-crash`, `empty`.

mod bugs;
mod cli;
mod formats;
mod frame;
mod generate;
mod mutate;
mod replay;
mod sha1;

use std::path::PathBuf;
use std::process::ExitCode;

use cli::number;

const USAGE: &str = "\
usage: planted-artifacts OUT_DIR [--per-bug N] [--hangs N] [--seed S] [--replay PATH]

Writes libFuzzer-style artifacts of the `triage` target to OUT_DIR and prints
`NAME<TAB>BUG` for each file.
  --per-bug N    variants of each crash bug [default: 6]
  --hangs N      inputs that hang, named timeout-<sha1> (1 s each to check) [default: 1]
  --seed S       the random seed [default: 1]
  --replay PATH  planted-replay [default: the one next to this executable]";

/// The validated arguments.
#[derive(Debug)]
pub struct Options {
    /// Where the artifacts go (created if missing).
    pub out: PathBuf,
    /// Variants of each crash bug.
    pub per_bug: usize,
    /// Inputs that hang.
    pub hangs: usize,
    /// The random seed.
    pub seed: u64,
    /// The `planted-replay` binary that checks every file.
    pub replay: PathBuf,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let (mut out, mut replay) = (None, None);
    let (mut per_bug, mut hangs, mut seed) = (6, 1, 1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--per-bug" => per_bug = number(&arg, args.next())?,
            "--hangs" => hangs = number(&arg, args.next())?,
            "--seed" => seed = number(&arg, args.next())?,
            "--replay" => replay = Some(PathBuf::from(args.next().ok_or("--replay needs a path")?)),
            "-h" | "--help" => return Err(String::new()),
            flag if flag.starts_with('-') => return Err(format!("unknown option `{flag}`")),
            _ if out.is_none() => out = Some(PathBuf::from(arg)),
            _ => return Err(format!("unexpected argument `{arg}`")),
        }
    }
    let out = out.ok_or("OUT_DIR is missing")?;
    let replay = match replay {
        Some(path) => path,
        None => default_replay()?,
    };
    Ok(Options { out, per_bug, hangs, seed, replay })
}

/// `planted-replay` next to this executable (the same cargo target directory).
fn default_replay() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this executable: {e}"))?;
    let path = exe.with_file_name(format!("planted-replay{}", std::env::consts::EXE_SUFFIX));
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!("{} not found: build it (`cargo build -p planted`) or pass --replay PATH", path.display()))
    }
}

fn main() -> ExitCode {
    let options = match cli::options("planted-artifacts", USAGE, parse_args(std::env::args().skip(1))) {
        Ok(options) => options,
        Err(code) => return code,
    };
    cli::exit("planted-artifacts", generate::all(&options, |name, bug| println!("{name}\t{bug}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args;

    #[test]
    fn options_are_read_in_any_order() {
        let options = parse_args(args("--seed 9 out --per-bug 60 --hangs 0 --replay /bin/true")).unwrap();
        assert_eq!((options.out, options.per_bug, options.hangs, options.seed), ("out".into(), 60, 0, 9));
        assert_eq!(options.replay, PathBuf::from("/bin/true"));
    }

    #[test]
    fn a_missing_directory_or_a_bad_number_is_a_usage_error() {
        assert_eq!(parse_args(args("--replay /bin/true")).unwrap_err(), "OUT_DIR is missing");
        assert!(parse_args(args("out --per-bug many")).unwrap_err().contains("`many` is not a number"));
        assert!(parse_args(args("out --frob")).unwrap_err().contains("unknown option"));
    }
}
