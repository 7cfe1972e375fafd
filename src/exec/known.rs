//! Known values: the outcome of each value a typed target was run on, so a candidate that decodes to one of them is answered without running the target again.
//!
//! The harness's child hashes everything `arbitrary` read while it decoded
//! the input (the *value key*, see `protocol::known`) and writes it to shared
//! memory. [`KnownValues`] keeps the outcome of each key's first run and puts
//! the key in the shared table; while lookups are on, a child whose key is in
//! the table stops before the target and the executor answers with the
//! earlier outcome ([`KnownValues::replay`]). A typed target's body sees only
//! the decoded value, so its outcome is the same. This is Hypothesis's cache
//! keyed by the choice sequence rather than by the bytes: `01 03` and
//! `01 03 00 00` are two inputs but one `Vec<u32>`, `[3]`.
//!
//! Lookups are on only while a reduction runs: the initial runs and the final
//! check must run the target.

use std::collections::HashMap;

use crate::exec::Outcome;
use crate::protocol::Layout;

/// How many keys the shared table holds by default (8 bytes each, in the
/// sparse shared-memory file); it is filled to half at most.
pub const DEFAULT_CAPACITY: u32 = 1 << 16;

/// The outcomes of the values run so far, and whether children look them up.
#[derive(Debug, Default)]
pub struct KnownValues {
    outcomes: HashMap<u64, Outcome>,
    on: bool,
}

impl KnownValues {
    /// Turns lookups on or off in the shared memory `shm`.
    pub fn set_on(&mut self, layout: &Layout, shm: &mut [u8], on: bool) {
        self.on = on;
        layout.set_known_on(shm, on);
    }

    /// Keeps `outcome` as the outcome of the value `key` (the first run of a
    /// value only, while lookups are on and the table has room).
    pub fn learn(&mut self, layout: &Layout, shm: &mut [u8], key: u64, outcome: &Outcome) {
        let room = self.outcomes.len() < layout.known_capacity as usize / 2;
        if !self.on || !room || self.outcomes.contains_key(&key) {
            return;
        }
        if layout.insert_known(shm, key) {
            self.outcomes.insert(key, outcome.clone());
        }
    }

    /// The outcome of the run that first had the value `key`; `None` if no
    /// run had it (the child and the table disagree).
    pub fn replay(&self, key: u64) -> Option<Outcome> {
        self.outcomes.get(&key).cloned()
    }

    /// Puts every known key in a new shared memory (the old one was too small
    /// for an input), with lookups as they were.
    pub fn refill(&self, layout: &Layout, shm: &mut [u8]) {
        for &key in self.outcomes.keys() {
            layout.insert_known(shm, key);
        }
        layout.set_known_on(shm, self.on);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::exec::Status;

    const LAYOUT: Layout = Layout {
        input_capacity: 8,
        example_capacity: 1,
        label_capacity: 8,
        feature_capacity: 0,
        known_capacity: 8,
        chain_capacity: 0,
    };

    fn outcome(code: i32) -> Outcome {
        Outcome { value_key: Some(7), ..Outcome::new(Status::Exited(code), Vec::new(), Duration::ZERO) }
    }

    #[test]
    fn a_value_is_learned_while_on_and_replayed_from_then_on() {
        let mut shm = vec![0; LAYOUT.total_len()];
        LAYOUT.write_header(&mut shm);
        let mut known = KnownValues::default();
        known.learn(&LAYOUT, &mut shm, 7, &outcome(1));
        assert!(!LAYOUT.contains_known(&shm, 7), "off: nothing learned");
        known.set_on(&LAYOUT, &mut shm, true);
        known.learn(&LAYOUT, &mut shm, 7, &outcome(1));
        known.learn(&LAYOUT, &mut shm, 7, &outcome(2));
        assert!(LAYOUT.contains_known(&shm, 7) && LAYOUT.known_on(&shm));
        assert_eq!(known.replay(7), Some(outcome(1)), "the first run's");
        assert_eq!(known.replay(8), None);

        let mut bigger = vec![0; LAYOUT.total_len()];
        LAYOUT.write_header(&mut bigger);
        known.refill(&LAYOUT, &mut bigger);
        assert!(LAYOUT.contains_known(&bigger, 7) && LAYOUT.known_on(&bigger));
    }

    #[test]
    fn the_table_is_filled_to_half_at_most() {
        let mut shm = vec![0; LAYOUT.total_len()];
        LAYOUT.write_header(&mut shm);
        let mut known = KnownValues::default();
        known.set_on(&LAYOUT, &mut shm, true);
        for key in 1..=8 {
            known.learn(&LAYOUT, &mut shm, key, &outcome(0));
        }
        assert_eq!((1..=8).filter(|&key| LAYOUT.contains_known(&shm, key)).count(), 4);
    }
}
