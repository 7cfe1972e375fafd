//! Model (c): a struct of four collections (`Record`), ids, names, flags and a payload: decoder, encoder, generator.

use crate::cursor::{Cursor, Recorded};
use crate::encode::encode;
use crate::ops::random_name;

/// Model (c), decoded as `#[derive(Arbitrary)]` would (fields in order).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    /// Two bytes each, after a flag byte.
    pub ids: Vec<u16>,
    /// Strings (lengths from the back), after a flag byte each.
    pub names: Vec<String>,
    /// One byte each, after a flag byte.
    pub flags: Vec<bool>,
    /// `arbitrary`'s `Vec<u8>`: a flag byte before every byte.
    pub payload: Vec<u8>,
}

/// Decodes a `Record`.
pub fn decode_record(data: &[u8]) -> (Record, Vec<Recorded>) {
    let mut c = Cursor::new(data);
    // Struct fields are evaluated in the order written, like the derive's.
    let record = c.derived(|c| Record {
        ids: c.vec(Cursor::u16),
        names: c.vec(Cursor::string),
        flags: c.vec(Cursor::bool),
        payload: c.vec(Cursor::u8),
    });
    (record, c.into_examples())
}

/// Writes `record` as an input that [`decode_record`] decodes back to exactly
/// `record`, with noise chosen by `seed`.
pub fn encode_record(record: &Record, seed: u64) -> Vec<u8> {
    encode(seed, |w| {
        w.list(&record.ids, |w, &id| w.u16(id));
        w.list(&record.names, |w, name| w.bytes(name.as_bytes()));
        w.list(&record.flags, |w, &flag| w.bool(flag));
        w.list(&record.payload, |w, &byte| w.u8(byte));
    })
}

/// A random record whose encoding is about `approx_len` bytes, shared
/// roughly evenly among its four collections.
pub fn random_record(seed: u64, approx_len: usize) -> Record {
    let mut rng = fastrand::Rng::with_seed(seed);
    let share = approx_len / 4;
    let mut count = |per_item: usize| {
        let n = share / per_item;
        rng.usize(n * 3 / 4..=n)
    };
    let (ids, names, flags, payload) = (count(3), count(9), count(2), count(2));
    Record {
        ids: (0..ids).map(|_| rng.u16(..)).collect(),
        names: (0..names).map(|_| random_name(&mut rng, 12)).collect(),
        flags: (0..flags).map(|_| rng.bool()).collect(),
        payload: (0..payload).map(|_| rng.u8(..)).collect(),
    }
}

/// A large noisy `Record` input of about `approx_len` bytes.
pub fn noisy_record(seed: u64, approx_len: usize) -> Vec<u8> {
    encode_record(&random_record(seed, approx_len), seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::ex;

    const RECORD: &str = "testkit::record::Record";

    #[test]
    fn a_small_record_decodes_exactly_with_its_spans() {
        #[rustfmt::skip]
        let data = [
            0x01, 0x34, 0x12, 0x00, // ids: [0x1234]
            0x01, b'a', b'b', b'c', 0x00, // names: ["abc"]
            0x01, 0x03, 0x01, 0x02, 0x00, // flags: [true, false]
            0x01, 0xaa, 0x00, // payload: [0xaa]
            16, // the name's length: 16 % 13 = 3
        ];
        let (record, examples) = decode_record(&data);
        let expected =
            Record { ids: vec![0x1234], names: vec!["abc".into()], flags: vec![true, false], payload: vec![0xaa] };
        assert_eq!(record, expected);
        assert_eq!(examples, vec![ex(0..17, 17..18, RECORD, 0)]);
    }
}
