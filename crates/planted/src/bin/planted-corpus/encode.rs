//! The bytes that `arbitrary`'s `Unstructured` reads back as chosen values (arbitrary 1.5.0, fuzz/Cargo.lock).
//!
//! `Unstructured` reads from both ends. From the front: integers (little
//! endian, zero-filled when the data runs out), booleans (the low bit of a
//! byte), enum variants (a `u32` scaled by the variant count, `(x * n) >> 32`),
//! the "one more element" boolean before each element of a `Vec` and string
//! contents. From the back: each string's length (`arbitrary_byte_size`), a
//! big-endian integer of 1, 2 or 4 bytes, by how much data is left at that
//! moment, taken modulo that amount plus one. So the input's length is fixed
//! first, every value is written in the order the derived code reads it, and
//! what is left between the two ends, never read, is filled with noise.
//!
//! A string never takes the last `slack / 2` bytes, and the generators stop
//! adding elements when fewer than `slack` bytes are left ([`Encoder::room`]),
//! so the closing booleans always fit and the input decodes to exactly the
//! values written (the round trips in `typed/*.rs` check it).

use crate::layout;
use crate::mutate::{self, Rng};

/// The bytes left unread that every input keeps at most, for its closing booleans.
const SLACK: usize = 64;

/// An input being written for `arbitrary`, front and back.
#[derive(Debug)]
pub(crate) struct Encoder {
    /// The whole input's length.
    len: usize,
    /// What the front is read as, in order.
    front: Vec<u8>,
    /// String lengths in the order they are read: the first is the input's last bytes.
    back: Vec<Vec<u8>>,
    back_len: usize,
    /// Stop adding elements below this many bytes left.
    slack: usize,
    /// Noise for the bits `arbitrary` ignores and for the unread middle.
    rng: Rng,
}

impl Encoder {
    /// An encoder for an input of exactly `len` bytes.
    pub(crate) fn new(len: usize, rng: &mut Rng) -> Self {
        let slack = SLACK.min(len / 4);
        Encoder { len, front: Vec::new(), back: Vec::new(), back_len: 0, slack, rng: Rng::new(rng.next_u64()) }
    }

    /// Bytes not yet read from either end.
    pub(crate) fn remaining(&self) -> usize {
        self.len - self.front.len() - self.back_len
    }

    /// Whether there is room for another element (and the closing booleans after it).
    pub(crate) fn room(&self) -> bool {
        self.remaining() > self.slack
    }

    /// Front bytes; those past the end are not written (`arbitrary` reads them as zeros).
    fn front(&mut self, bytes: &[u8]) {
        let n = bytes.len().min(self.remaining());
        self.front.extend(&bytes[..n]);
    }

    /// A `u8`.
    pub(crate) fn u8(&mut self, value: u8) {
        self.front(&[value]);
    }

    /// A `u16`.
    pub(crate) fn u16(&mut self, value: u16) {
        self.front(&value.to_le_bytes());
    }

    /// An `i16`.
    pub(crate) fn i16(&mut self, value: i16) {
        self.front(&value.to_le_bytes());
    }

    /// A `u32`.
    pub(crate) fn u32(&mut self, value: u32) {
        self.front(&value.to_le_bytes());
    }

    /// A `bool` (the other seven bits of its byte are noise).
    pub(crate) fn bool(&mut self, value: bool) {
        let noise = self.rng.byte() & !1;
        self.u8(noise | u8::from(value));
    }

    /// Variant `index` of an enum with `count` variants: any `u32` in the variant's share of the range.
    pub(crate) fn variant(&mut self, index: usize, count: usize) {
        let (index, count) = (index as u64, count as u64);
        let low = (index << 32).div_ceil(count);
        let high = ((index + 1) << 32).div_ceil(count);
        let x = low + self.rng.next_u64() % (high - low);
        self.u32(x as u32);
    }

    /// A `String`: the longest prefix of `text` that leaves `slack / 2` bytes, which it returns.
    pub(crate) fn string(&mut self, text: &str) -> String {
        let left = self.remaining();
        let cap = left.saturating_sub(self.slack / 2 + 4);
        let mut end = text.len().min(cap);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let field = length_field(left, end, &mut self.rng).expect("a length below the data left is readable");
        self.back_len += field.len();
        self.back.push(field);
        self.front(&text.as_bytes()[..end]);
        text[..end].to_string()
    }

    /// The input: the front, noise where nothing is read, the length fields last read first.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        let gap = self.remaining();
        let mut out = std::mem::take(&mut self.front);
        out.extend(mutate::noise(&mut self.rng, gap));
        for field in self.back.iter().rev() {
            out.extend(field);
        }
        debug_assert_eq!(out.len(), self.len);
        out
    }
}

/// The bytes `arbitrary_byte_size` reads as `len` when `left` bytes are left (None if it cannot).
///
/// Its width is as `cmc_protocol::layout` says; the value is read big-endian
/// from as many of its bytes as the range `0..=left - width` needs, modulo the
/// range's size; the width's other bytes are consumed but not read.
fn length_field(left: usize, len: usize, rng: &mut Rng) -> Option<Vec<u8>> {
    if left == 0 {
        return (len == 0).then(Vec::new);
    }
    let width = layout::len_width(left);
    let max = left - width;
    if len > max {
        return None;
    }
    let used = layout::bytes_read(max as u64, width);
    let mut field = layout::encode_len(len as u64, used, max as u64);
    field.extend(rng.bytes(width - used));
    Some(field)
}

#[cfg(test)]
mod tests {
    use arbitrary::{Arbitrary, Unstructured};

    use super::*;

    /// Strings and numbers written in order, read back by `arbitrary`.
    #[derive(Debug, PartialEq, Arbitrary)]
    struct Sample {
        a: String,
        b: u16,
        c: Vec<String>,
        d: Option<i16>,
        e: Vec<bool>,
    }

    fn encode(len: usize, seed: u64) -> (Vec<u8>, Sample) {
        let mut rng = Rng::new(seed);
        let mut enc = Encoder::new(len, &mut rng);
        let a = enc.string("héllo wörld");
        enc.u16(443);
        let mut c = Vec::new();
        while enc.room() && c.len() < 20 {
            enc.bool(true);
            c.push(enc.string(&"x".repeat(rng.below(300))));
        }
        enc.bool(false);
        enc.bool(true);
        enc.i16(-7);
        enc.bool(true);
        enc.bool(true);
        enc.bool(false);
        (enc.finish(), Sample { a, b: 443, c, d: Some(-7), e: vec![true] })
    }

    #[test]
    fn values_written_are_the_values_arbitrary_reads() {
        for (len, seed) in [(300, 1), (1000, 2), (8192, 3), (70_000, 4), (257, 5), (258, 6)] {
            let (data, expected) = encode(len, seed);
            assert_eq!(data.len(), len);
            let decoded = Sample::arbitrary_take_rest(Unstructured::new(&data)).unwrap();
            assert_eq!(decoded, expected, "len {len}");
        }
    }

    #[test]
    fn every_variant_is_read_back() {
        #[derive(Debug, PartialEq, Arbitrary)]
        enum Six {
            A,
            B,
            C,
            D,
            E,
            F,
        }
        let mut rng = Rng::new(9);
        for index in 0..6 {
            let mut enc = Encoder::new(16, &mut rng);
            enc.variant(index, 6);
            let data = enc.finish();
            let six = Six::arbitrary(&mut Unstructured::new(&data)).unwrap();
            assert_eq!(six as usize, index);
        }
    }

    #[test]
    fn a_length_field_is_readable_only_below_the_data_left() {
        let mut rng = Rng::new(1);
        assert_eq!(length_field(0, 0, &mut rng), Some(vec![]));
        assert_eq!(length_field(0, 1, &mut rng), None);
        assert_eq!(length_field(10, 9, &mut rng), Some(vec![9]));
        assert_eq!(length_field(10, 10, &mut rng), None);
        assert_eq!(length_field(1000, 300, &mut rng), Some(vec![1, 44]));
        assert_eq!(length_field(257, 200, &mut rng).map(|f| (f.len(), f[0])), Some((2, 200)));
    }
}
