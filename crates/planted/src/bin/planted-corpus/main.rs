//! `planted-corpus TARGET OUT_DIR`: a fuzzing corpus for one planted fuzz target, as libFuzzer keeps one.
//!
//! `--count` inputs (300) of `--min-len` to `--max-len` bytes (1 to 8 KiB),
//! each named by the SHA-1 of its contents as libFuzzer names corpus files,
//! made for a corpus mode to shrink: their coverage varies as a fuzzer's
//! corpus does (records of every kind, some well-formed, some rejected at some
//! point, a quarter mutated as a fuzzer would), and none crashes or hangs the
//! target. Every candidate is run in-process as its fuzz target runs it, under
//! `catch_unwind`; those that would abort or hang are found before they run
//! (`guard.rs`). The same seed gives the same files.
//!
//! Raw-bytes targets: `triage` (its first byte picks tlv, image, vm or rle) and
//! those four parsers alone. Typed targets, with the `arbitrary` feature (the
//! crate's tests turn it on): `scene`, `config`, `commands`, whose inputs are
//! written for `arbitrary` (`encode.rs`) and decoded as libfuzzer-sys decodes
//! them. stdout: `FILE<TAB>LEN` per file; stderr: a summary.

mod bytes;
mod check;
#[cfg(feature = "arbitrary")]
mod encode;
mod formats;
mod generate;
mod guard;
mod summary;
mod targets;
mod text;
#[cfg(feature = "arbitrary")]
mod typed;

// Shared with planted-artifacts: the seeded generator, a fuzzer's mutations, libFuzzer's names, the
// command line, IMG1 frame headers.
#[path = "../planted-artifacts/cli.rs"]
mod cli;
#[path = "../planted-artifacts/frame.rs"]
mod frame;
#[path = "../planted-artifacts/mutate.rs"]
mod mutate;
#[path = "../planted-artifacts/sha1.rs"]
mod sha1;
// `arbitrary`'s layout rules, from their one home (the protocol crate, which
// this package does not depend on: `fuzz/` builds it beside the harness's own copy).
#[cfg(feature = "arbitrary")]
#[allow(dead_code, unreachable_pub)]
#[path = "../../../../protocol/src/layout.rs"]
mod layout;

use std::path::PathBuf;
use std::process::ExitCode;

use cli::number;
use targets::Target;

/// The longest input allowed (`--max-len`).
const MAX_LEN: usize = 1 << 20;
/// The generation thread's stack: decoding and rendering a mutated typed input recurses as deep as it nests.
const STACK_SIZE: usize = 64 << 20;

fn usage() -> String {
    let mut text = String::from(
        "usage: planted-corpus TARGET OUT_DIR [--count N] [--seed S] [--min-len B] [--max-len B]

Writes a fuzzing corpus of TARGET to OUT_DIR (files named by their SHA-1), none
of which crashes or hangs the target, and prints `FILE<TAB>LEN` for each.
  --count N      files [default: 300]
  --seed S       the random seed [default: 1]
  --min-len B    the shortest file, in bytes [default: 1024]
  --max-len B    the longest file, in bytes [default: 8192]
targets:",
    );
    for target in targets::all() {
        text.push_str(&format!("\n  {:<9} {}", target.name, target.about));
    }
    if cfg!(not(feature = "arbitrary")) {
        text.push_str(&format!("\n  ({}: build with `--features arbitrary`)", targets::TYPED.join(", ")));
    }
    text
}

/// The validated arguments.
#[derive(Debug)]
pub(crate) struct Options {
    /// The fuzz target.
    pub(crate) target: &'static Target,
    /// Where the files go (created if missing).
    pub(crate) out: PathBuf,
    /// Files to write.
    pub(crate) count: usize,
    /// The random seed.
    pub(crate) seed: u64,
    /// Each file's length is within these bounds.
    pub(crate) min_len: usize,
    pub(crate) max_len: usize,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut positional = Vec::new();
    let (mut count, mut seed, mut min_len, mut max_len) = (300, 1, 1024, 8192);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--count" => count = number(&arg, args.next())?,
            "--seed" => seed = number(&arg, args.next())?,
            "--min-len" => min_len = number(&arg, args.next())?,
            "--max-len" => max_len = number(&arg, args.next())?,
            "-h" | "--help" => return Err(String::new()),
            flag if flag.starts_with('-') => return Err(format!("unknown option `{flag}`")),
            _ => positional.push(arg),
        }
    }
    let [name, out] = <[String; 2]>::try_from(positional).map_err(|_| "expected TARGET and OUT_DIR".to_string())?;
    let target = targets::find(&name).ok_or_else(|| match targets::TYPED.contains(&name.as_str()) {
        true => format!("`{name}` is a typed target: build planted-corpus with `--features arbitrary`"),
        false => format!("unknown target `{name}`"),
    })?;
    if !(1..=max_len).contains(&min_len) || max_len > MAX_LEN {
        return Err(format!("lengths must satisfy 1 <= --min-len <= --max-len <= {MAX_LEN}"));
    }
    Ok(Options { target, out: PathBuf::from(out), count, seed, min_len, max_len })
}

fn main() -> ExitCode {
    let options = match cli::options("planted-corpus", &usage(), parse_args(std::env::args().skip(1))) {
        Ok(options) => options,
        Err(code) => return code,
    };
    check::silence_panics();
    let worker = std::thread::Builder::new().stack_size(STACK_SIZE).spawn(move || {
        let summary = generate::corpus(&options, |name, len| println!("{name}\t{len}"))?;
        Ok::<_, String>(format!("planted-corpus {} -> {}: {summary}", options.target.name, options.out.display()))
    });
    let summary =
        worker.map_err(|e| e.to_string()).and_then(|w| w.join().unwrap_or(Err("the generator panicked".into())));
    cli::exit("planted-corpus", summary.map(|summary| eprint!("{summary}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args;

    #[test]
    fn options_are_read_in_any_order_with_defaults() {
        let options = parse_args(args("--seed 9 triage out --count 30")).unwrap();
        assert_eq!(options.target.name, "triage");
        assert_eq!((options.out, options.count, options.seed), ("out".into(), 30, 9));
        assert_eq!((options.min_len, options.max_len), (1024, 8192));
    }

    #[test]
    fn bad_targets_lengths_and_flags_are_usage_errors() {
        assert_eq!(parse_args(args("nope out")).unwrap_err(), "unknown target `nope`");
        assert_eq!(parse_args(args("triage")).unwrap_err(), "expected TARGET and OUT_DIR");
        assert!(parse_args(args("triage out --min-len 10 --max-len 5")).unwrap_err().contains("--min-len"));
        assert!(parse_args(args("triage out --min-len 0")).unwrap_err().contains("--min-len"));
        assert!(parse_args(args("triage out --count many")).unwrap_err().contains("`many` is not a number"));
        assert!(parse_args(args("triage out --frob")).unwrap_err().contains("unknown option"));
    }
}
