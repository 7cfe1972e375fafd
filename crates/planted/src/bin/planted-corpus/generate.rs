//! The generation loop: candidates drawn (a quarter of them mutated as a fuzzer would), run, kept when new and
//! harmless, written under their SHA-1.

use std::collections::HashSet;
use std::fs;

use crate::check::Verdict;
use crate::mutate::{self, Rng};
use crate::summary::Summary;
use crate::{sha1, Options};

/// Candidates tried for one file before giving up.
const TRIES: usize = 1000;

/// A candidate that passed: its bytes, what running it did, whether it was mutated.
#[derive(Debug)]
pub(crate) struct Kept {
    /// The input.
    pub data: Vec<u8>,
    /// What running it did (the verdict's description).
    pub outcome: String,
    /// Whether fuzzer mutations made it from a drawn input.
    pub mutated: bool,
}

/// Writes `options.count` files into `options.out`, calling `report(name, len)` for each; the tallies.
pub(crate) fn corpus(options: &Options, mut report: impl FnMut(&str, usize)) -> Result<Summary, String> {
    fs::create_dir_all(&options.out).map_err(|e| format!("cannot create {}: {e}", options.out.display()))?;
    let mut rng = Rng::stream(options.seed, options.target.name);
    let mut names = HashSet::new();
    let mut summary = Summary::default();
    for _ in 0..options.count {
        let kept = find(options, &mut rng, &names, &mut summary)?;
        let name = sha1::hex(&kept.data);
        let path = options.out.join(&name);
        fs::write(&path, &kept.data).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        report(&name, kept.data.len());
        summary.keep(&kept);
        names.insert(name);
    }
    Ok(summary)
}

/// The next candidate within the lengths asked for, not written before, that runs without a crash.
fn find(options: &Options, rng: &mut Rng, names: &HashSet<String>, summary: &mut Summary) -> Result<Kept, String> {
    for _ in 0..TRIES {
        let (data, mutated) = candidate(options, rng);
        summary.candidates += 1;
        if !(options.min_len..=options.max_len).contains(&data.len()) {
            summary.off_length += 1;
        } else if names.contains(&sha1::hex(&data)) {
            summary.duplicates += 1;
        } else {
            match (options.target.run)(&data) {
                Verdict::Runs(outcome) => return Ok(Kept { data, outcome, mutated }),
                Verdict::Panics(message) => summary.panicked(&message),
                Verdict::Unsafe(why) => *summary.unsafe_.entry(why).or_default() += 1,
            }
        }
    }
    Err(format!(
        "no new input for {} passed in {TRIES} candidates (are --min-len and --max-len too close?)",
        options.target.name
    ))
}

/// An input drawn at a length between the bounds, and a quarter of the time mutated 1 to 3 times.
fn candidate(options: &Options, rng: &mut Rng) -> (Vec<u8>, bool) {
    let len = rng.range(options.min_len, options.max_len);
    let mut data = (options.target.draw)(rng, len);
    let mutated = rng.one_in(4);
    if mutated {
        for _ in 0..rng.range(1, 3) {
            mutate::mutate(rng, &mut data, options.target.keep);
        }
    }
    (data, mutated)
}
