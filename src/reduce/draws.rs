//! Draws: the primitive reads `arbitrary` made (recorded by the harness as leaf examples labelled `draw:*`), their values, and the typed order over test cases that compares them.
//!
//! A draw is a span of the input and how `arbitrary` turns it into a value:
//! fixed-width integers (and `bool`, `char`, floats, enum tags) little-endian
//! from the front, a short tail zero-filled (`draw:le:N`); `int_in_range`
//! big-endian from the front (`draw:range`); collection and string lengths
//! big-endian from the back (`draw:len`); string and byte-vector contents
//! (`draw:bytes`). For each, the all-zero encoding is the simplest value:
//! zero, `false`, the range's start, the empty length.
//!
//! The order: shorter first; at equal length, the draws of the current best,
//! in the order they were read, compared by value (the first that differs
//! decides), then the bytes. Against a fixed list of draws it is a total
//! order (the bytes break every tie), so "run a candidate only when it is
//! strictly better" still holds; a candidate that changes one draw to a
//! smaller value, leaving the draws before it alone, is better whatever it
//! does to the draws after. Without draws (raw `&[u8]` targets, `--exec`) it is
//! shortlex, byte for byte. Why values and not bytes: `arbitrary` reads
//! integers little-endian, so byte order would rank 512 (`00 02`) below 500
//! (`f4 01`), and a result would keep 512 where 500 crashes as well.

use std::cmp::Ordering;
use std::ops::Range;

use super::testcase::Example;
use super::text;
use crate::protocol::layout::{self, RangeBounds};

/// The label prefix of a recorded draw.
pub const DRAW_LABEL: &str = "draw:";

/// How a draw's bytes become a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DrawKind {
    /// A fixed-width integer, little-endian; `width` bytes were asked for (0: unknown).
    Int {
        /// The integer's width in bytes.
        width: u8,
    },
    /// `int_in_range`: big-endian, taken modulo the range's size from its start.
    Range,
    /// A length taken from the back: big-endian, modulo what was left.
    Len,
    /// Raw contents (a string's or a byte vector's).
    Bytes,
}

/// One primitive read.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Draw {
    /// The bytes it read (absolute offsets; front or back of the input).
    pub span: Range<usize>,
    /// How they were read.
    pub kind: DrawKind,
    /// Where the front cursor was when it was read (a length read from the
    /// back leaves it there: what was left then is `span.end - cursor`).
    pub cursor: usize,
    /// An `int_in_range` read's bounds, where the harness recorded them.
    pub bounds: Option<RangeBounds>,
}

impl Draw {
    /// The draw an example records, if it is one.
    pub fn of(example: &Example) -> Option<Draw> {
        let bounds = RangeBounds::parse(&example.label);
        let kind = match example.label.strip_prefix(DRAW_LABEL)? {
            "range" => DrawKind::Range,
            _ if bounds.is_some() => DrawKind::Range,
            "len" => DrawKind::Len,
            "bytes" => DrawKind::Bytes,
            "le" => DrawKind::Int { width: 0 },
            other => DrawKind::Int { width: other.strip_prefix("le:")?.parse().ok()? },
        };
        let span = if example.front.is_empty() { example.back.clone() } else { example.front.clone() };
        Some(Draw { span, kind, cursor: example.front.start, bounds })
    }

    /// Whether it read one whole byte as an integer (a `u8`, or a `bool`'s
    /// byte: `true` when odd, as every "one more element" flag reads).
    pub fn is_byte(&self) -> bool {
        self.kind == DrawKind::Int { width: 1 } && self.span.len() == 1
    }

    /// Whether it is a one-byte draw reading `true` (odd) in `bytes`.
    pub fn reads_true(&self, bytes: &[u8]) -> bool {
        self.is_byte() && self.value(bytes).is_some_and(|v| v % 2 == 1)
    }

    /// Whether it is an integer that ends an input of `len` bytes: a short
    /// read zero-fills its tail, so zero bytes at its end can go.
    pub fn ends_input_zero_filled(&self, len: usize) -> bool {
        self.span.end == len && self.is_integer()
    }

    /// Whether it is a fixed-width integer read little-endian.
    pub fn is_integer(&self) -> bool {
        matches!(self.kind, DrawKind::Int { .. })
    }

    /// Whether its value is a number (every kind but raw contents).
    pub fn is_numeric(&self) -> bool {
        self.kind != DrawKind::Bytes
    }

    /// Its value in `bytes` as a number: little-endian for integers,
    /// big-endian for ranges and lengths (as `arbitrary` reads them: a
    /// length from the bytes of its field that its room needs, not taken
    /// modulo the room); spans over 16 bytes or raw contents give `None`.
    pub fn value(&self, bytes: &[u8]) -> Option<u128> {
        let span = bytes.get(self.span.clone())?;
        if !self.is_numeric() || span.len() > 16 {
            return None;
        }
        Some(match self.kind {
            DrawKind::Int { .. } => span.iter().rev().fold(0, |acc, &b| acc << 8 | u128::from(b)),
            _ => span[..self.bytes_read()].iter().fold(0, |acc, &b| acc << 8 | u128::from(b)),
        })
    }

    /// The integer `arbitrary` made of it in `bytes`: an `int_in_range`
    /// read's result where its bounds are known (its start plus its value
    /// modulo the range's size), else its value.
    pub fn result(&self, bytes: &[u8]) -> Option<u128> {
        let value = self.value(bytes)?;
        Some(self.bounds.map_or(value, |b| b.result(value)))
    }

    /// The least value that gives `result` (the inverse of [`Self::result`]);
    /// `None` where no value of its span does.
    pub fn value_of(&self, result: u128) -> Option<u128> {
        let value = match self.bounds {
            Some(b) => b.raw_of(result)?,
            None => result,
        };
        let bits = 8 * self.bytes_read() as u32;
        (bits >= 128 || value >> bits == 0).then_some(value)
    }

    /// The span's bytes that give `result` ([`Self::value_of`], encoded).
    pub fn encode_result(&self, result: u128) -> Option<Vec<u8>> {
        self.value_of(result).map(|v| self.encode(v))
    }

    /// The span's bytes that encode `value` (which must fit the span).
    pub fn encode(&self, value: u128) -> Vec<u8> {
        let width = self.span.len();
        let le = value.to_le_bytes();
        match self.kind {
            DrawKind::Int { .. } => le[..width].to_vec(),
            _ => {
                let mut field: Vec<u8> = le[..self.bytes_read()].iter().rev().copied().collect();
                field.resize(width, 0);
                field
            }
        }
    }

    /// How many of its bytes `arbitrary` reads: all but for a length, whose
    /// field can be wider than its room needs (4 bytes when 65,538 or more
    /// are left, of which 3 are read while fewer than 2^24 are).
    fn bytes_read(&self) -> usize {
        let width = self.span.len();
        match self.kind {
            DrawKind::Len => {
                let max = self.span.start.saturating_sub(self.cursor);
                layout::bytes_read(max as u64, width)
            }
            _ => width,
        }
    }

    /// Compares two inputs of the same length at this draw.
    /// Contents compare as characters ([`text::compare`]).
    fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        let (x, y) = (a.get(self.span.clone()), b.get(self.span.clone()));
        match (self.value(a), self.value(b), x, y) {
            (Some(x), Some(y), ..) => x.cmp(&y),
            (.., Some(x), Some(y)) if self.kind == DrawKind::Bytes => {
                text::compare(x, y, std::slice::from_ref(&(0..x.len())))
            }
            _ => x.cmp(&y),
        }
    }
}

/// The draws among recorded examples, in the order they were read.
pub fn draws_of(examples: &[Example]) -> Vec<Draw> {
    examples.iter().filter_map(Draw::of).collect()
}

/// The typed order: shorter first, then `draws` (the current best's) by
/// value in read order (contents as characters), then the bytes (those in
/// `text` as characters); shortlex when there are no draws.
pub fn typed_order(a: &[u8], b: &[u8], draws: &[Draw], text: &[Range<usize>]) -> Ordering {
    if a.len() != b.len() {
        return a.len().cmp(&b.len());
    }
    draws.iter().map(|d| d.compare(a, b)).find(|o| o.is_ne()).unwrap_or_else(|| text::shortlex(a, b, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draw(front: Range<usize>, back: Range<usize>, label: &str) -> Option<Draw> {
        Draw::of(&Example::new(front, back, label, 1))
    }

    #[test]
    fn labels_become_draws_and_other_examples_do_not() {
        assert_eq!(
            draw(1..9, 9..9, "draw:le:8"),
            Some(Draw { span: 1..9, kind: DrawKind::Int { width: 8 }, cursor: 1, bounds: None })
        );
        assert_eq!(
            draw(4..4, 7..8, "draw:len"),
            Some(Draw { span: 7..8, kind: DrawKind::Len, cursor: 4, bounds: None })
        );
        assert_eq!(draw(0..3, 9..9, "draw:le").map(|d| d.kind), Some(DrawKind::Int { width: 0 }));
        assert_eq!(draw(0..3, 3..3, "planted::scene::Op"), None);
        assert_eq!(draw(0..3, 3..3, "draw:le:x"), None);
        // A range read with its bounds (1 to 8): its result, and the least value for one.
        let count = draw(0..1, 1..1, "draw:range:4:1:7").unwrap();
        assert_eq!((count.kind, count.bounds.map(|b| (b.start, b.delta))), (DrawKind::Range, Some((1, 7))));
        assert_eq!((count.value(&[9]), count.result(&[9])), (Some(9), Some(2)));
        assert_eq!((count.value_of(2), count.value_of(0), count.value_of(9)), (Some(1), None, None));
        let wide = draw(0..1, 1..1, "draw:range:4:0:1ff").unwrap();
        assert_eq!((wide.value_of(0xff), wide.value_of(0x100)), (Some(0xff), None), "one byte read of two");
        // Every label the harness records with is one this parser knows.
        for label in crate::project::inject::draw_patch::LABELS {
            assert!(draw(0..1, 1..1, label).is_some(), "{label}");
        }
    }

    #[test]
    fn values_read_as_arbitrary_reads_them_and_encode_back() {
        let le = Draw { span: 0..2, kind: DrawKind::Int { width: 8 }, cursor: 0, bounds: None };
        assert_eq!(le.value(&[0xf4, 0x01]), Some(500));
        assert_eq!(le.encode(512), [0x00, 0x02]);
        let be = Draw { span: 301..303, kind: DrawKind::Len, cursor: 0, bounds: None };
        let mut bytes = vec![9; 303];
        bytes[301..].copy_from_slice(&[0x01, 0x02]);
        assert_eq!(be.value(&bytes), Some(258));
        assert_eq!(be.encode(258), [0x01, 0x02]);
        // 70,000 bytes left: a four-byte field, of which three are read.
        let wide = Draw { span: 69_996..70_000, kind: DrawKind::Len, cursor: 0, bounds: None };
        let mut bytes = vec![0; 70_000];
        bytes[69_996..].copy_from_slice(&[0x00, 0x00, 0x01, 0x07]);
        assert_eq!(wide.value(&bytes), Some(1));
        assert_eq!(wide.encode(1), [0x00, 0x00, 0x01, 0x00]);
    }

    #[test]
    fn the_typed_order_ranks_integers_by_value_and_is_shortlex_without_draws() {
        let draws = [Draw { span: 1..9, kind: DrawKind::Int { width: 8 }, cursor: 1, bounds: None }];
        let five_hundred = [1, 0xf4, 1, 0, 0, 0, 0, 0, 0];
        let five_twelve = [1, 0, 2, 0, 0, 0, 0, 0, 0];
        assert_eq!(typed_order(&five_hundred, &five_twelve, &draws, &[]), Ordering::Less);
        assert_eq!(typed_order(&five_hundred, &five_twelve, &[], &[]), Ordering::Greater, "shortlex");
        assert_eq!(typed_order(&[1, 2], &five_hundred, &draws, &[]), Ordering::Less, "shorter first");
        assert_eq!(typed_order(&five_hundred, &five_hundred, &draws, &[]), Ordering::Equal);
        // An earlier draw decides before a later one.
        let two = [Draw { span: 0..1, kind: DrawKind::Int { width: 1 }, cursor: 0, bounds: None }, draws[0].clone()];
        assert_eq!(typed_order(&five_twelve, &[3, 0, 0, 0, 0, 0, 0, 0, 0], &two, &[]), Ordering::Less);
    }
}
