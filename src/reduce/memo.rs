//! Edits that failed, remembered across improvements: a round does not run the same edit at the same place again while what precedes it is unchanged; the final round (the proof) runs everything.
//!
//! A candidate is the best test case with one region replaced: a byte
//! deleted, zeroed or decremented, a record cut, a length and its payload
//! shrunk together. An improvement elsewhere, after that region, gives the
//! passes a new best, and their sweeps propose the same edit again on it (the
//! magic's bytes deleted, zeroed and decremented after every tail byte
//! lowered). A parser rejects an input where it first reads something wrong,
//! so an edit that failed behind the same bytes fails again, whatever follows
//! it; the memo answers those without running the target. The key is the edit
//! whole (the bytes before it, the bytes it removed and the bytes it put
//! there), so an edit at two places (a length and its payload) is remembered
//! as itself.
//!
//! The guess is wrong where the verdict depends on what follows (a checksum,
//! a hash of the whole input), so it only holds between proofs: the final
//! round runs with the memo off, over every choice again, and a candidate it
//! finds interesting that the memo had answered turns the memo off for the
//! rest of the reduction. Not on an input that draws alone describe (a
//! `Vec<u64>`): its values are lowered by binary searches, which a remembered
//! probe bends (decision 0020).

use std::collections::HashSet;
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher, Hasher};

/// The failed edits of one reduction, and the candidates it answered.
#[derive(Default)]
pub(crate) struct EditMemo {
    /// The keys ([`edit_key`]) of the edits that failed.
    failed: HashSet<u64>,
    /// The hashes of the candidates it answered as failures.
    answered: HashSet<u64>,
    /// Whether rounds may use it now (off during the proof and the polish).
    on: bool,
    /// Set when a candidate it answered turned out interesting: off for good.
    wrong: bool,
    /// The generation of the best test case when it last answered one.
    answered_at: Option<u64>,
}

impl EditMemo {
    /// Lets the memo answer candidates (a round), or not (the proof).
    pub(crate) fn set_on(&mut self, on: bool) {
        self.on = on;
    }

    /// Whether it would answer `candidate`: a round is on, it has not been
    /// wrong, and `candidate` changes `best` by an edit that failed before.
    pub(crate) fn remembers(&self, best: &[u8], candidate: &[u8]) -> bool {
        self.on && !self.wrong && edit_key(best, candidate).is_some_and(|edit| self.failed.contains(&edit))
    }

    /// Notes that it answered the candidate `key` (the hash of its bytes) on
    /// the best test case of `generation`.
    pub(crate) fn answered(&mut self, key: u64, generation: u64) {
        self.answered.insert(key);
        self.answered_at = Some(generation);
    }

    /// Records a candidate the target ran: a failure remembers its edit, an
    /// interesting one the memo had answered before turns it off.
    pub(crate) fn record(&mut self, best: &[u8], candidate: &[u8], key: u64, interesting: bool) {
        if interesting {
            self.wrong |= self.answered.contains(&key);
        } else if let Some(edit) = edit_key(best, candidate) {
            self.failed.insert(edit);
        }
    }

    /// Whether it answered a candidate of the best test case of `generation`:
    /// then the passes' choices on it are not all proven.
    pub(crate) fn answered_at(&self, generation: u64) -> bool {
        self.answered_at == Some(generation)
    }
}

/// The edit that turns `best` into `candidate`, as one hash: the bytes
/// before the first difference, the bytes `best` had between it and the
/// last difference, and those `candidate` has there. `None` when the
/// candidate only cuts bytes off the end (nothing is read behind them).
fn edit_key(best: &[u8], candidate: &[u8]) -> Option<u64> {
    let start = best.iter().zip(candidate).take_while(|(a, b)| a == b).count();
    if start >= candidate.len() {
        return None;
    }
    let room = best.len().min(candidate.len()) - start;
    let end = best.iter().rev().zip(candidate.iter().rev()).take_while(|(a, b)| a == b).count().min(room);
    let removed = &best[start..best.len() - end];
    let put = &candidate[start..candidate.len() - end];
    let mut hasher = BuildHasherDefault::<DefaultHasher>::default().build_hasher();
    for part in [&candidate[..start], removed, put] {
        hasher.write_usize(part.len());
        hasher.write(part);
    }
    Some(hasher.finish())
}

#[cfg(test)]
mod tests {
    use super::{edit_key, EditMemo};
    use crate::reduce::shrinker::hash;

    #[test]
    fn the_same_edit_behind_the_same_bytes_is_the_same_key_whatever_follows() {
        // The magic's second byte deleted, on two bests that differ after it.
        let deleted = |best: &[u8]| [&best[..1], &best[2..]].concat();
        let (old, new) = (b"IMG1\x05\x07\x00".as_slice(), b"IMG1\x05\x03\x00".as_slice());
        assert_eq!(edit_key(old, &deleted(old)), edit_key(new, &deleted(new)));
        // Not behind other bytes, nor another edit at the same place.
        let other = b"JMG1\x05\x07\x00".as_slice();
        assert_ne!(edit_key(old, &deleted(old)), edit_key(other, &deleted(other)));
        assert_ne!(edit_key(old, b"I\x00G1\x05\x07\x00"), edit_key(old, &deleted(old)));
        // Cutting the end is never remembered.
        assert_eq!(edit_key(old, &old[..5]), None);
    }

    #[test]
    fn a_failed_edit_is_answered_while_on_until_it_proves_wrong() {
        let mut memo = EditMemo::default();
        let (old, new) = (b"IMG1\x05\x07\x00".as_slice(), b"IMG1\x05\x03\x00".as_slice());
        let (tried, again) = (b"IMG\x05\x07\x00".as_slice(), b"IMG\x05\x03\x00".as_slice());
        memo.record(old, tried, hash(tried), false);
        assert!(!memo.remembers(new, again), "off until a round turns it on");
        memo.set_on(true);
        assert!(memo.remembers(new, again));
        assert!(!memo.remembers(new, b"IMG1\x05\x03"), "another edit");
        memo.answered(hash(again), 1);
        assert!(memo.answered_at(1) && !memo.answered_at(2));
        // The proof ran it, and it was interesting after all.
        memo.record(new, again, hash(again), true);
        assert!(!memo.remembers(new, again), "wrong once, off for good");
    }
}
