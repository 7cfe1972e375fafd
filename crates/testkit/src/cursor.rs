//! The decoding cursor: reads bytes as `arbitrary::Unstructured` does and records an example for each derived value.
//!
//! [`Cursor`] is checked against `src/unstructured.rs`, `src/foreign/` and
//! `derive/src/lib.rs` of rust-fuzz/arbitrary 1.4: integers are little-endian
//! from the front with missing bytes read as zero, collection and string
//! lengths come from the back, collections read a "one more element" byte
//! before each element. Like the `with_recursive_count` hook our `arbitrary`
//! shim overrides, only derived types (structs and enums, see
//! [`Cursor::derived`]) record examples; primitives, `Option`, `Box`, `Vec`
//! and `String` do not.

use std::ops::Range;

use cmc_protocol::layout;

/// An example as a [`Cursor`] records it: the spans a derived value was read
/// from, its label and its depth, the fields of cargo-minimize-crash's
/// `reduce::Example` (which this crate cannot name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// What the value's reads advanced over from the front.
    pub front: Range<usize>,
    /// What the value's reads took from the back.
    pub back: Range<usize>,
    /// The value's type, as `std::any::type_name` spells it.
    pub label: &'static str,
    /// How many derived values enclose this one.
    pub depth: u32,
}

/// A decoding cursor over bytes, reading like `arbitrary::Unstructured` and
/// recording a [`Recorded`] example for each derived value.
///
/// The remaining data is `data[front..back]`: ordinary reads advance `front`,
/// lengths taken from the end lower `back`.
#[derive(Debug)]
pub struct Cursor<'a> {
    data: &'a [u8],
    front: usize,
    back: usize,
    depth: u32,
    examples: Vec<Recorded>,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `data`, with nothing recorded yet.
    pub fn new(data: &'a [u8]) -> Self {
        Cursor { data, front: 0, back: data.len(), depth: 0, examples: Vec::new() }
    }

    /// Bytes read from the front so far (absolute offset of the next front read).
    pub fn front(&self) -> usize {
        self.front
    }

    /// Absolute offset one past the last unread byte (the end of the remaining data).
    pub fn back(&self) -> usize {
        self.back
    }

    /// How many bytes are left between the two cursors.
    pub fn remaining(&self) -> usize {
        self.back - self.front
    }

    /// Whether the data is used up.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// How many derived values are being built around the current read.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The examples recorded so far, in preorder (parents before children).
    pub fn examples(&self) -> &[Recorded] {
        &self.examples
    }

    /// The recorded examples, in preorder.
    pub fn into_examples(self) -> Vec<Recorded> {
        self.examples
    }

    /// Fills `buf` from the front; bytes past the end of the data are zero
    /// (`Unstructured::fill_buffer`).
    pub fn fill(&mut self, buf: &mut [u8]) {
        let n = buf.len().min(self.remaining());
        buf[..n].copy_from_slice(&self.data[self.front..self.front + n]);
        buf[n..].fill(0);
        self.front += n;
    }

    /// One byte from the front (zero when the data is used up).
    pub fn u8(&mut self) -> u8 {
        if self.front < self.back {
            self.front += 1;
            self.data[self.front - 1]
        } else {
            0
        }
    }

    /// A little-endian `u16` from the front.
    pub fn u16(&mut self) -> u16 {
        let mut buf = [0; 2];
        self.fill(&mut buf);
        u16::from_le_bytes(buf)
    }

    /// A little-endian `u32` from the front.
    pub fn u32(&mut self) -> u32 {
        let mut buf = [0; 4];
        self.fill(&mut buf);
        u32::from_le_bytes(buf)
    }

    /// A little-endian `u64` from the front.
    pub fn u64(&mut self) -> u64 {
        let mut buf = [0; 8];
        self.fill(&mut buf);
        u64::from_le_bytes(buf)
    }

    /// A `bool`: one byte from the front, true when odd.
    pub fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }

    /// An enum variant in `0..n` the way `#[derive(Arbitrary)]` picks it:
    /// `(u32 as u64 * n) >> 32` (Lemire's multiply-shift). This is the derive's
    /// rule, not `Unstructured::choose_index`, which uses `int_in_range`.
    ///
    /// # Panics
    ///
    /// When `n` is zero.
    pub fn choose_index(&mut self, n: usize) -> usize {
        assert!(n > 0, "choose_index needs at least one choice");
        ((u64::from(self.u32()) * n as u64) >> 32) as usize
    }

    /// A byte count read from the back, as `Unstructured::arbitrary_byte_size`:
    /// nothing left gives 0; one byte left is consumed and gives 0; otherwise
    /// 1, 2, 4 or 8 bytes are taken from the end (remaining up to 256, 65,537,
    /// 2^32 + 3, or more) and read big-endian as an integer in
    /// `0..=remaining_after` (only as many of them as that range needs; the
    /// value wraps modulo the range size).
    pub fn byte_size(&mut self) -> usize {
        let rem = self.remaining();
        if rem <= 1 {
            self.back -= rem;
            return 0;
        }
        let width = layout::len_width(rem);
        let max = (rem - width) as u64;
        let start = self.back - width;
        let value = layout::decode_len(&self.data[start..self.back], max);
        self.back = start;
        value as usize
    }

    /// A byte string as `arbitrary` reads `&[u8]`: a [`byte_size`](Self::byte_size)
    /// from the back, then that many bytes from the front (they always fit).
    pub fn bytes(&mut self) -> Vec<u8> {
        let n = self.byte_size();
        self.front += n;
        self.data[self.front - n..self.front].to_vec()
    }

    /// A `String` as `arbitrary` reads one: a [`byte_size`](Self::byte_size)
    /// from the back, then the longest valid UTF-8 prefix of that many bytes
    /// from the front; bytes after an invalid sequence stay unread.
    pub fn string(&mut self) -> String {
        let n = self.byte_size();
        let bytes = &self.data[self.front..self.front + n];
        let valid = match std::str::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default(),
        };
        self.front += valid.len();
        valid.to_owned()
    }

    /// A collection as `arbitrary` 1.x reads `Vec<T>` (`arbitrary_iter`): before
    /// each element a [`bool`](Self::bool), stopping at the first false one,
    /// which is also what a used-up input reads as.
    pub fn vec<T>(&mut self, mut element: impl FnMut(&mut Self) -> T) -> Vec<T> {
        let mut items = Vec::new();
        while self.bool() {
            items.push(element(self));
        }
        items
    }

    /// An `Option`: a [`bool`](Self::bool), then the value when it is true.
    pub fn option<T>(&mut self, value: impl FnOnce(&mut Self) -> T) -> Option<T> {
        if self.bool() {
            Some(value(self))
        } else {
            None
        }
    }

    /// Builds a value with `f` and records it as an example labelled `label`:
    /// its front span is what the reads advanced over, its back span what they
    /// took from the end. The example is recorded at entry (preorder) and
    /// completed at exit; values built inside `f` are one level deeper.
    pub fn value<T>(&mut self, label: &'static str, f: impl FnOnce(&mut Self) -> T) -> T {
        let (front, back) = (self.front, self.back);
        let slot = self.examples.len();
        self.examples.push(Recorded { front: front..front, back: back..back, label, depth: self.depth });
        self.depth += 1;
        let value = f(self);
        self.depth -= 1;
        let example = &mut self.examples[slot];
        example.front = front..self.front;
        example.back = self.back..back;
        value
    }

    /// [`value`](Self::value) labelled with `std::any::type_name::<T>()`, as our
    /// `arbitrary` shim labels what `#[derive(Arbitrary)]` builds.
    pub fn derived<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        self.value(std::any::type_name::<T>(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_little_endian_and_missing_bytes_read_as_zero() {
        let mut c = Cursor::new(&[0x34, 0x12, 0x01, 0x02, 0x03]);
        assert_eq!(c.u16(), 0x1234);
        assert_eq!(c.u32(), 0x0003_0201);
        assert_eq!(c.u8(), 0);
        assert!(!c.bool());
        assert_eq!((c.front(), c.back()), (5, 5));
    }

    #[test]
    fn choose_index_multiplies_and_shifts_like_the_derive() {
        assert_eq!(Cursor::new(&[0, 0, 0, 0]).choose_index(5), 0);
        assert_eq!(Cursor::new(&[0xff; 4]).choose_index(5), 4);
        assert_eq!(Cursor::new(&[0, 0, 0, 0x80]).choose_index(5), 2);
        assert_eq!(Cursor::new(&[0x66, 0x66, 0x66, 0x66]).choose_index(5), 1);
        assert_eq!(Cursor::new(&[0x67, 0x66, 0x66, 0x66]).choose_index(5), 2);
    }

    #[test]
    fn byte_size_takes_one_byte_from_the_back_up_to_256_remaining() {
        let mut data = vec![0; 256];
        data[255] = 200;
        let mut c = Cursor::new(&data);
        assert_eq!(c.byte_size(), 200);
        assert_eq!(c.back(), 255);
        // The value wraps modulo the number of bytes left after it, plus one.
        let mut c = Cursor::new(&[9, 9, 9, 7]);
        assert_eq!(c.byte_size(), 3);
        let mut c = Cursor::new(&[9]);
        assert_eq!((c.byte_size(), c.remaining()), (0, 0));
        let mut c = Cursor::new(&[]);
        assert_eq!(c.byte_size(), 0);
    }

    #[test]
    fn byte_size_takes_two_bytes_big_endian_above_256_remaining() {
        let mut data = vec![0; 300];
        data[298] = 0x01;
        data[299] = 0x05;
        let mut c = Cursor::new(&data);
        assert_eq!(c.byte_size(), 0x0105);
        assert_eq!(c.back(), 298);
        data[298] = 0xff;
        data[299] = 0xff;
        assert_eq!(Cursor::new(&data).byte_size(), 0xffff % 299);
        // With 257 bytes left the range is 0..=255: only the first size byte is read.
        let mut data = vec![0; 257];
        data[255] = 7;
        data[256] = 0xee;
        let mut c = Cursor::new(&data);
        assert_eq!(c.byte_size(), 7);
        assert_eq!(c.back(), 255);
    }

    #[test]
    fn strings_keep_the_longest_valid_utf8_prefix() {
        let mut c = Cursor::new(&[b'a', 0xff, b'b', 3]);
        assert_eq!(c.string(), "a");
        assert_eq!((c.front(), c.back()), (1, 3));
        assert_eq!(c.u8(), 0xff);
        let mut c = Cursor::new(&[b'a', b'b', b'c', 2]);
        assert_eq!(c.bytes(), b"ab");
    }
}
