//! The generation loop: variants of each bug, each kept only when a replay shows exactly that bug, written under libFuzzer's names.

use std::collections::HashSet;
use std::fs;
use std::path::PathBuf;
use std::time::Duration;

use crate::bugs::{Bug, Expect, CRASHES, HANG, NO_CRASH};
use crate::mutate::Rng;
use crate::replay::{self, Outcome};
use crate::{sha1, Options};

/// A crash replays in milliseconds; this only stops a variant that hangs by accident.
const CRASH_LIMIT: Duration = Duration::from_secs(5);
/// A hang is an input still running after this long.
const HANG_LIMIT: Duration = Duration::from_secs(1);
/// Variants tried per file before giving up; the last few are seeds without mutations.
const TRIES: usize = 200;
const UNMUTATED_TRIES: usize = 20;
const MAX_MUTATIONS: usize = 3;

/// Writes every artifact into `options.out`, calling `report(name, bug)` for each file written.
pub(crate) fn all(options: &Options, mut report: impl FnMut(&str, &str)) -> Result<(), String> {
    fs::create_dir_all(&options.out).map_err(|e| format!("cannot create {}: {e}", options.out.display()))?;
    let scratch = std::env::temp_dir().join(format!("planted-artifacts-{}.candidate", std::process::id()));
    let mut generator = Generator { options, scratch, names: HashSet::new() };
    let result = generator.everything(&mut report);
    let _ = fs::remove_file(&generator.scratch);
    result
}

struct Generator<'a> {
    options: &'a Options,
    /// Where each candidate is written for its replay (outside OUT_DIR, which holds only artifacts).
    scratch: PathBuf,
    /// The names written so far: a variant equal to an earlier one is tried again.
    names: HashSet<String>,
}

impl Generator<'_> {
    fn everything(&mut self, report: &mut impl FnMut(&str, &str)) -> Result<(), String> {
        for bug in &CRASHES {
            self.bug(bug, self.options.per_bug, report)?;
        }
        self.bug(&HANG, self.options.hangs, report)?;
        self.bug(&NO_CRASH, 1, report)?;
        let empty = self.write("crash", b"")?;
        report(&empty, "empty");
        Ok(())
    }

    /// `count` distinct artifacts of `bug`, from its own random stream.
    fn bug(&mut self, bug: &Bug, count: usize, report: &mut impl FnMut(&str, &str)) -> Result<(), String> {
        if count == 0 {
            return Ok(());
        }
        let location = match bug.expect {
            Expect::Panic(file) => Some(self.reference_location(bug, file)?),
            _ => None,
        };
        let mut rng = Rng::stream(self.options.seed, bug.name);
        for _ in 0..count {
            let data = self.find(bug, &mut rng, location.as_deref())?;
            let name = self.write(bug.prefix(), &data)?;
            report(&name, bug.name);
        }
        Ok(())
    }

    /// The panic location of the bug's minimal input, which every variant must share.
    fn reference_location(&mut self, bug: &Bug, file: &str) -> Result<String, String> {
        match self.replay(&bug.minimal(), CRASH_LIMIT)? {
            Outcome::Exit { code: 101, panic_at: Some(at) } if at.starts_with(&format!("{file}:")) => Ok(at),
            other => Err(format!("the minimal {} input did not panic in {file}: {other:?}", bug.name)),
        }
    }

    /// A new variant of `bug` whose replay shows exactly that bug.
    fn find(&mut self, bug: &Bug, rng: &mut Rng, location: Option<&str>) -> Result<Vec<u8>, String> {
        let limit = if bug.expect == Expect::Hang { HANG_LIMIT } else { CRASH_LIMIT };
        for attempt in 0..TRIES {
            let mutations = if attempt < TRIES - UNMUTATED_TRIES { MAX_MUTATIONS } else { 0 };
            let data = bug.variant(rng, mutations);
            if self.names.contains(&name(bug.prefix(), &data)) {
                continue;
            }
            if shows(bug.expect, &self.replay(&data, limit)?, location) {
                return Ok(data);
            }
        }
        Err(format!("no new variant of {} showed the bug in {TRIES} tries (is planted-replay up to date?)", bug.name))
    }

    fn replay(&self, data: &[u8], limit: Duration) -> Result<Outcome, String> {
        fs::write(&self.scratch, data).map_err(|e| format!("cannot write {}: {e}", self.scratch.display()))?;
        replay::run(&self.options.replay, &self.scratch, limit)
    }

    fn write(&mut self, prefix: &str, data: &[u8]) -> Result<String, String> {
        let name = name(prefix, data);
        let path = self.options.out.join(&name);
        fs::write(&path, data).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        self.names.insert(name.clone());
        Ok(name)
    }
}

/// libFuzzer's artifact name: the prefix and the SHA-1 of the contents.
fn name(prefix: &str, data: &[u8]) -> String {
    format!("{prefix}-{}", sha1::hex(data))
}

/// Whether a replay's outcome is exactly the expected bug (a panic at `location`, for a panic).
fn shows(expect: Expect, outcome: &Outcome, location: Option<&str>) -> bool {
    match (expect, outcome) {
        (Expect::Panic(_), Outcome::Exit { code: 101, panic_at: Some(at) }) => Some(at.as_str()) == location,
        (Expect::Signal(expected), Outcome::Signal(signal)) => expected == *signal,
        (Expect::Hang, Outcome::Timeout) => true,
        (Expect::Clean, Outcome::Exit { code: 0, .. }) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn panic_at(at: &str) -> Outcome {
        Outcome::Exit { code: 101, panic_at: Some(at.to_string()) }
    }

    #[test]
    fn a_panic_shows_the_bug_only_at_the_reference_location() {
        let expect = Expect::Panic("crates/planted/src/tlv.rs");
        assert!(shows(expect, &panic_at("crates/planted/src/tlv.rs:140:5"), Some("crates/planted/src/tlv.rs:140:5")));
        assert!(!shows(expect, &panic_at("crates/planted/src/tlv.rs:99:1"), Some("crates/planted/src/tlv.rs:140:5")));
        assert!(!shows(expect, &Outcome::Exit { code: 0, panic_at: None }, Some("crates/planted/src/tlv.rs:140:5")));
    }

    #[test]
    fn a_signal_shows_the_bug_only_when_it_is_the_expected_one() {
        assert!(shows(Expect::Signal(6), &Outcome::Signal(6), None));
        assert!(!shows(Expect::Signal(6), &Outcome::Signal(11), None));
        assert!(!shows(Expect::Signal(6), &Outcome::Timeout, None));
    }

    #[test]
    fn only_a_timeout_shows_a_hang_and_only_exit_zero_is_clean() {
        assert!(shows(Expect::Hang, &Outcome::Timeout, None));
        assert!(!shows(Expect::Hang, &Outcome::Exit { code: 0, panic_at: None }, None));
        assert!(shows(Expect::Clean, &Outcome::Exit { code: 0, panic_at: None }, None));
        assert!(!shows(Expect::Clean, &panic_at("a.rs:1:1"), None));
    }

    #[test]
    fn names_are_libfuzzers() {
        assert_eq!(name("crash", b""), "crash-da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(name("timeout", b"abc"), "timeout-a9993e364706816aba3e25717850c26c9cd0d89d");
    }
}
