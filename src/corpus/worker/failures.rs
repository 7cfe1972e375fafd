//! Candidates that failed against a shrink's result, kept for the next shrink that starts from that result: there the same candidates come again, and one that lacked a feature the new shrink still asks for fails again without a run.
//!
//! A shrink ends at a round of passes that finds nothing (or at its proof):
//! every candidate made from its result failed. The next round shrinks the
//! same bytes again, for fewer features (some are held by other results
//! now), and its passes make many of the same candidates first. Each
//! failure is kept with up to [`LACKED`] of the features it lacked, or as
//! one that did not run normally (a crash, a timeout, a rejection): it fails
//! again for any requirement that holds one of those features. On cmark's
//! corpus, 10-17% of the tests of rounds 2-4 were such repeats, and none of
//! them passed when run (decision 0115).

use std::collections::HashMap;
use std::sync::Mutex;

use crate::reduce::hash;

/// At most this many of a failure's lacked features are kept.
pub const LACKED: usize = 4;

/// At most this many failures are kept per result (the last ones: those
/// of its final round of passes).
pub const PER_RESULT: usize = 1024;

/// At most this many failures are kept in all (about 32 MiB); past it the
/// table starts over. Results that are not shrunk again (dropped, waiting,
/// final) leave theirs behind.
pub const MOST: usize = 1 << 20;

/// One candidate that failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Failed {
    /// The candidate's hash ([`hash`]).
    key: u64,
    /// Some of the required features it lacked, ascending; `None`: it did
    /// not run normally (then it fails whatever is required).
    lacked: Option<[u32; LACKED]>,
}

impl Failed {
    /// The candidate of hash `key` ([`hash`]) failed: it lacked `lacked`
    /// (the first [`LACKED`] of them are kept), or did not run normally (`None`).
    pub fn new(key: u64, lacked: Option<&[u32]>) -> Failed {
        let lacked = lacked.map(|lacked| {
            let mut kept = [u32::MAX; LACKED];
            for (slot, &feature) in kept.iter_mut().zip(lacked) {
                *slot = feature;
            }
            kept
        });
        Failed { key, lacked }
    }
}

/// The failures of the shrinks so far, by the hash of the result they were
/// made from; shared by the workers (a result's next shrink may run on
/// another one).
#[derive(Debug, Default)]
pub struct Failures {
    by_result: Mutex<Table>,
}

/// The failures by result, and how many there are in all.
#[derive(Debug, Default)]
struct Table {
    by_result: HashMap<u64, Vec<Failed>>,
    count: usize,
}

impl Failures {
    /// Keeps `failed`, made from `result`, for the next shrink from it (the
    /// last [`PER_RESULT`]).
    pub fn keep(&self, result: &[u8], mut failed: Vec<Failed>) {
        if failed.is_empty() {
            return;
        }
        failed.drain(..failed.len().saturating_sub(PER_RESULT));
        let key = hash(result);
        let mut table = self.by_result.lock().unwrap_or_else(|e| e.into_inner());
        let replaced = table.by_result.get(&key).map_or(0, Vec::len);
        if table.count - replaced + failed.len() > MOST {
            *table = Table::default();
        }
        table.count += failed.len();
        let replaced = table.by_result.insert(key, failed);
        table.count -= replaced.map_or(0, |r| r.len());
    }

    /// The failures made from `start`, taken out for the shrink that starts there.
    pub fn recall(&self, start: &[u8]) -> Recalled {
        let mut table = self.by_result.lock().unwrap_or_else(|e| e.into_inner());
        let failed = table.by_result.remove(&hash(start)).unwrap_or_default();
        table.count -= failed.len();
        Recalled(failed.into_iter().map(|f| (f.key, f.lacked)).collect())
    }
}

/// The failures a shrink recalled, by candidate.
#[derive(Debug, Default)]
pub struct Recalled(HashMap<u64, Option<[u32; LACKED]>>);

impl Recalled {
    /// Whether the candidate of hash `key` ([`hash`]) failed before in a
    /// way that makes it fail for `required` (ascending) too.
    pub fn fails(&self, key: u64, required: &[u32]) -> bool {
        match self.0.get(&key) {
            None => false,
            Some(None) => true,
            Some(Some(lacked)) => lacked.iter().any(|f| required.binary_search(f).is_ok()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_is_recalled_once_by_the_shrink_from_its_result_for_what_it_lacked() {
        let failures = Failures::default();
        let lacked = Failed::new(hash(b"ab"), Some(&[3, 9, 11, 20, 40]));
        failures.keep(b"result", vec![lacked, Failed::new(hash(b"crash"), None)]);
        assert!(failures.recall(b"other").0.is_empty(), "only from its result");
        let recalled = failures.recall(b"result");
        assert!(recalled.fails(hash(b"ab"), &[1, 9]), "9 is still required");
        assert!(recalled.fails(hash(b"ab"), &[20]), "the fourth lacked feature is kept");
        assert!(!recalled.fails(hash(b"ab"), &[40]), "the fifth is not: the candidate runs");
        assert!(!recalled.fails(hash(b"ab"), &[1, 2]), "nothing it lacked is required now");
        assert!(recalled.fails(hash(b"crash"), &[]), "did not run normally: fails for anything");
        assert!(!recalled.fails(hash(b"new"), &[9]), "never tried");
        assert!(failures.recall(b"result").0.is_empty(), "taken out");
    }

    #[test]
    fn only_the_last_failures_of_a_result_are_kept() {
        let failures = Failures::default();
        let failed: Vec<Failed> = (0..PER_RESULT + 10).map(|i| Failed::new(hash(&i.to_le_bytes()), None)).collect();
        failures.keep(b"result", failed);
        let recalled = failures.recall(b"result");
        assert!(!recalled.fails(hash(&0usize.to_le_bytes()), &[]), "the first ten went");
        assert!(recalled.fails(hash(&(PER_RESULT + 9).to_le_bytes()), &[]));
        assert_eq!(recalled.0.len(), PER_RESULT);
    }

    #[test]
    fn past_the_most_failures_in_all_the_table_starts_over() {
        let failures = Failures::default();
        let results = MOST / PER_RESULT;
        let full =
            |r: usize| (0..PER_RESULT).map(|i| Failed::new(hash(&((r << 20) | i).to_le_bytes()), None)).collect();
        for r in 0..results {
            failures.keep(&r.to_le_bytes(), full(r));
        }
        failures.keep(&0usize.to_le_bytes(), full(0));
        assert_eq!(failures.by_result.lock().unwrap().count, MOST, "kept again: replaced, not added");
        failures.keep(b"one more", vec![Failed::new(hash(b"x"), None)]);
        assert_eq!(failures.by_result.lock().unwrap().count, 1, "started over");
        assert!(failures.recall(&1usize.to_le_bytes()).0.is_empty());
        assert!(failures.recall(b"one more").fails(hash(b"x"), &[]));
        assert_eq!(failures.by_result.lock().unwrap().count, 0, "taken out");
    }
}
