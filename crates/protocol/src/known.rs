//! The value cache of typed targets: the child's value key, and the table of keys whose runs the client already has.
//!
//! A typed target (`fuzz_target!(|x: T| ..)`) sees only the value `T` that
//! `arbitrary` built from the input, so two inputs that decode to the same
//! value run the same way. The harness's `arbitrary` copy hashes, as it
//! decodes, every value its reads returned (and every answer about the data
//! left: `len`, `is_empty`, peeked bytes); when decoding is done the child
//! records the hash, the *value key* ([`Layout::write_value_key`]). The client
//! keeps each key's outcome and puts the key in the shared table
//! ([`Layout::insert_known`]); while the table is on ([`Layout::set_known_on`]),
//! a child whose key is in it ([`Layout::contains_known`]) stops before the
//! target with [`super::ResultKind::Known`], and the client answers with the
//! earlier outcome: a fork and a decode instead of a run of the target.
//!
//! A second key covers values that differ only where the target cannot see
//! it through the value's `Debug` rendering: an enum tag `0x59000000` and
//! `0x55000000` are one variant, a `bool` byte `0xf3` and `0x01` are both
//! `true`. While lookups are on, the child also hashes the decoded value's
//! `Debug` rendering, the *look-alike key* ([`Layout::write_alike_key`]). The
//! client puts a look-alike key in the same table only after a run that
//! returned without a crash, and a child that finds its look-alike key there
//! stops with [`super::ResultKind::Known`] and that key as its value key: a
//! `Debug` rendering can hide a difference (a hand-written impl), so this
//! answer is only ever "no crash", never a crash the candidate may not have.
//!
//! The table is open addressing with linear probing over `u64` slots; 0 marks
//! an empty slot, so a key of 0 is stored as 1 ([`stored`]). Only the client
//! writes it, between runs; children only read it.

use super::shm::{FLAG_ALIKE_KEY, FLAG_VALUE_KEY, H_KNOWN_CAPACITY, H_KNOWN_ON, R_ALIKE_KEY, R_FLAGS, R_VALUE_KEY};
use super::{get_u32, put_u32, Layout};

/// The key as the table stores it: never 0, which marks an empty slot.
pub fn stored(key: u64) -> u64 {
    key.max(1)
}

impl Layout {
    /// Records the value key of the run (the child, once decoding is done).
    pub fn write_value_key(&self, shm: &mut [u8], key: u64) {
        shm[R_VALUE_KEY..R_VALUE_KEY + 8].copy_from_slice(&key.to_le_bytes());
        put_u32(shm, R_FLAGS, get_u32(shm, R_FLAGS) | FLAG_VALUE_KEY);
    }

    /// Records the look-alike key of the run (the child, while lookups are on).
    pub fn write_alike_key(&self, shm: &mut [u8], key: u64) {
        shm[R_ALIKE_KEY..R_ALIKE_KEY + 8].copy_from_slice(&key.to_le_bytes());
        put_u32(shm, R_FLAGS, get_u32(shm, R_FLAGS) | FLAG_ALIKE_KEY);
    }

    /// Turns the children's lookups on or off (the client: off for runs that
    /// must really run, such as the initial runs and the final check).
    pub fn set_known_on(&self, shm: &mut [u8], on: bool) {
        put_u32(shm, H_KNOWN_ON, u32::from(on && self.known_capacity > 0));
    }

    /// Whether children look their keys up.
    pub fn known_on(&self, shm: &[u8]) -> bool {
        get_u32(shm, H_KNOWN_ON) != 0 && get_u32(shm, H_KNOWN_CAPACITY) == self.known_capacity
    }

    /// Adds `key` to the table; `false` when it has no free slot (a key
    /// already there counts as added).
    pub fn insert_known(&self, shm: &mut [u8], key: u64) -> bool {
        let key = stored(key);
        let Some(slot) = self.probe(shm, key) else { return false };
        let at = self.known_offset() + 8 * slot;
        shm[at..at + 8].copy_from_slice(&key.to_le_bytes());
        true
    }

    /// Whether `key` is in the table.
    pub fn contains_known(&self, shm: &[u8], key: u64) -> bool {
        let key = stored(key);
        self.probe(shm, key).is_some_and(|slot| self.slot(shm, slot) == key)
    }

    /// Empties the table.
    pub fn clear_known(&self, shm: &mut [u8]) {
        let start = self.known_offset();
        shm[start..start + 8 * self.known_capacity as usize].fill(0);
    }

    /// The slot that holds `key`, else the empty slot where it would go;
    /// `None` when the table is full of other keys (or has no slots).
    fn probe(&self, shm: &[u8], key: u64) -> Option<usize> {
        let capacity = self.known_capacity as usize;
        if capacity == 0 {
            return None;
        }
        let mask = capacity - 1;
        // The key is a hash already: its low bits are as good as any.
        let start = key as usize & mask;
        (0..capacity)
            .map(|i| (start + i) & mask)
            .find(|&slot| matches!(self.slot(shm, slot), 0) || self.slot(shm, slot) == key)
    }

    fn slot(&self, shm: &[u8], slot: usize) -> u64 {
        let at = self.known_offset() + 8 * slot;
        let mut word = [0; 8];
        word.copy_from_slice(&shm[at..at + 8]);
        u64::from_le_bytes(word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LAYOUT: Layout = Layout {
        input_capacity: 16,
        example_capacity: 1,
        label_capacity: 8,
        feature_capacity: 0,
        known_capacity: 4,
        chain_capacity: 0,
    };

    fn shm() -> Vec<u8> {
        let mut shm = vec![0; LAYOUT.total_len()];
        LAYOUT.write_header(&mut shm);
        shm
    }

    #[test]
    fn keys_are_found_once_inserted_and_colliding_keys_probe_on() {
        let mut shm = shm();
        assert!(!LAYOUT.contains_known(&shm, 5));
        assert!(LAYOUT.insert_known(&mut shm, 5));
        // 9 and 13 share 5's home slot (low two bits 01).
        assert!(LAYOUT.insert_known(&mut shm, 9));
        assert!(LAYOUT.contains_known(&shm, 5) && LAYOUT.contains_known(&shm, 9));
        assert!(!LAYOUT.contains_known(&shm, 13));
        assert!(LAYOUT.insert_known(&mut shm, 5), "a key already there counts as added");
        // Key 0 is stored as 1, so it never reads as an empty slot.
        assert!(LAYOUT.insert_known(&mut shm, 0));
        assert!(LAYOUT.contains_known(&shm, 0) && LAYOUT.contains_known(&shm, 1));
        assert!(LAYOUT.insert_known(&mut shm, 2));
        assert!(!LAYOUT.insert_known(&mut shm, 13), "four slots, all taken");
        assert!(!LAYOUT.contains_known(&shm, 13));
        LAYOUT.clear_known(&mut shm);
        assert!(!LAYOUT.contains_known(&shm, 5));
    }

    #[test]
    fn lookups_are_off_until_the_client_turns_them_on_and_the_key_is_read_back() {
        let mut shm = shm();
        assert!(!LAYOUT.known_on(&shm));
        LAYOUT.set_known_on(&mut shm, true);
        assert!(LAYOUT.known_on(&shm));
        let none = Layout { known_capacity: 0, ..LAYOUT };
        none.set_known_on(&mut shm, true);
        assert!(!LAYOUT.known_on(&shm), "no table, nothing to look up");

        assert_eq!(LAYOUT.read_result(&shm).unwrap().value_key, None);
        LAYOUT.write_value_key(&mut shm, 0xfeed);
        assert_eq!(LAYOUT.read_result(&shm).unwrap().value_key, Some(0xfeed));
        assert_eq!(LAYOUT.read_result(&shm).unwrap().alike_key, None);
        LAYOUT.write_alike_key(&mut shm, 0xbeef);
        let result = LAYOUT.read_result(&shm).unwrap();
        assert_eq!((result.value_key, result.alike_key), (Some(0xfeed), Some(0xbeef)));
        LAYOUT.clear_result(&mut shm);
        let result = LAYOUT.read_result(&shm).unwrap();
        assert_eq!((result.value_key, result.alike_key), (None, None));
    }
}
