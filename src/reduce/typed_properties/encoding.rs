//! Values as `arbitrary` 1.5 reads them: the reads a value makes, written out (padded or not), and a decoder that records what the harness records.

use std::ops::Range;

use super::super::tape::{self, Read};
use super::super::Example;
use super::types::{Ty, Val};
use crate::protocol::layout::{decode_len, fill_label, len_width};

/// The least variant tag `#[derive(Arbitrary)]` reads as variant `v` of `n`
/// (`(tag * n) >> 32 == v`).
pub(super) fn tag(v: usize, n: usize) -> u32 {
    let tag = ((v as u64) << 32).div_ceil(n as u64);
    u32::try_from(tag).expect("a variant below n has a tag below 2^32")
}

/// The reads `arbitrary` makes to build `value` (of `ty`), appended to `out`,
/// in the least bytes each: flags 0 and 1, each variant's least tag.
pub(super) fn reads_of(value: &Val, ty: &Ty, out: &mut Vec<Read>) {
    match (value, ty) {
        (Val::Int(x), Ty::Int(width)) => out.push(Read::Front(x.to_le_bytes()[..*width].to_vec())),
        (Val::Bool(b), Ty::Bool) => out.push(Read::Front(vec![u8::from(*b)])),
        (Val::Str(s), Ty::Str) => out.extend([Read::Len(s.len() as u64), Read::Front(s.clone())]),
        (Val::Vec(items), Ty::Vec(t)) => {
            for item in items {
                out.push(Read::Front(vec![1]));
                reads_of(item, t, out);
            }
            out.push(Read::Front(vec![0]));
        }
        (Val::Opt(x), Ty::Opt(t)) => {
            out.push(Read::Front(vec![u8::from(x.is_some())]));
            if let Some(x) = x {
                reads_of(x, t, out);
            }
        }
        (Val::Struct(values), Ty::Struct(_, fields)) => {
            values.iter().zip(fields).for_each(|(x, t)| reads_of(x, t, out))
        }
        (Val::Enum(v, values), Ty::Enum(_, variants)) => {
            out.push(Read::Front(tag(*v, variants.len()).to_le_bytes().to_vec()));
            values.iter().zip(&variants[*v]).for_each(|(x, t)| reads_of(x, t, out));
        }
        _ => panic!("a value that does not fit its type"),
    }
}

/// Bytes `arbitrary` reads as `reads`, with `pad` unread between the
/// front reads and the lengths ([`tape::write_padded`]).
pub(super) fn encode(reads: &[Read], pad: &[u8]) -> Vec<u8> {
    tape::write_padded(reads, pad).expect("every length fits its room")
}

/// The bytes `value` (of `ty`) is read from, with `pad` unread between the front and the lengths.
pub(crate) fn encode_value(value: &Val, ty: &Ty, pad: &[u8]) -> Vec<u8> {
    let mut reads = Vec::new();
    reads_of(value, ty, &mut reads);
    encode(&reads, pad)
}

/// Reads values of [`Ty`]s as `arbitrary` 1.5 does, recording the examples
/// the harness records. What is left is `data[front..back]`.
#[derive(Debug)]
pub(super) struct Decoder<'a> {
    /// The input.
    data: &'a [u8],
    /// The first unread byte.
    front: usize,
    /// One past the last unread byte.
    back: usize,
    /// How many derived values are being built around the current read.
    depth: u32,
    /// Draws and derived values, in the order they were entered.
    examples: Vec<Example>,
}

impl<'a> Decoder<'a> {
    /// How many bytes are left.
    fn left(&self) -> usize {
        self.back - self.front
    }

    /// Records a draw at the current depth.
    fn draw(&mut self, front: Range<usize>, back: Range<usize>, label: &'static str) {
        self.examples.push(Example::new(front, back, label, self.depth));
    }

    /// `fill_buffer` of `width` bytes: what is left of them from the front,
    /// little-endian, the missing ones zeros.
    fn int(&mut self, width: usize) -> u128 {
        let span = self.front..self.front + width.min(self.left());
        let value = self.data[span.clone()].iter().rev().fold(0, |acc, &b| acc << 8 | u128::from(b));
        self.draw(span.clone(), self.back..self.back, fill_label(width));
        self.front = span.end;
        value
    }

    /// A `bool` (a flag): one byte, true when odd; false when none is left.
    fn flag(&mut self) -> bool {
        self.int(1) & 1 == 1
    }

    /// `arbitrary_byte_size`: none left reads nothing and 0; one left is
    /// taken and 0 (the harness sees it go from the front: `arbitrary` puts
    /// an empty slice of its own in its place); else a field as wide as the
    /// room says, from the back, modulo what is left after it.
    fn byte_size(&mut self) -> usize {
        let (front, back, left) = (self.front, self.back, self.left());
        if left <= 1 {
            self.draw(front..front + left, back..back, "draw:len");
            self.front += left;
            return 0;
        }
        let width = len_width(left);
        let value = decode_len(&self.data[back - width..back], (left - width) as u64);
        self.draw(front..front, back - width..back, "draw:len");
        self.back -= width;
        usize::try_from(value).expect("a size below the input's length")
    }

    /// A `String`: a size, then the longest valid UTF-8 prefix of that many bytes.
    fn string(&mut self) -> Vec<u8> {
        let size = self.byte_size();
        let data = self.data;
        let bytes = &data[self.front..self.front + size];
        let valid = std::str::from_utf8(bytes).map_or_else(|e| e.valid_up_to(), str::len);
        self.draw(self.front..self.front + valid, self.back..self.back, "draw:bytes");
        self.front += valid;
        bytes[..valid].to_vec()
    }

    /// Builds a derived value with `build`, recorded as an example labelled
    /// `label`: pushed before its children, its spans filled in at the end.
    fn derived(&mut self, label: &str, build: impl FnOnce(&mut Self) -> Val) -> Val {
        let (front, back, slot) = (self.front, self.back, self.examples.len());
        self.examples.push(Example::new(front..front, back..back, label, self.depth));
        self.depth += 1;
        let value = build(self);
        self.depth -= 1;
        self.examples[slot].front = front..self.front;
        self.examples[slot].back = self.back..back;
        value
    }

    /// An enum's variant and fields: a `u32` tag, its variant `(tag * n) >> 32`.
    fn variant(&mut self, variants: &[Vec<Ty>]) -> Val {
        let tag = self.int(4) as u64;
        let v = ((tag * variants.len() as u64) >> 32) as usize;
        Val::Enum(v, variants[v].iter().map(|t| self.value(t)).collect())
    }

    /// A value of `ty`.
    fn value(&mut self, ty: &Ty) -> Val {
        match ty {
            Ty::Int(width) => Val::Int(self.int(*width)),
            Ty::Bool => Val::Bool(self.flag()),
            Ty::Str => Val::Str(self.string()),
            Ty::Vec(t) => {
                let mut items = Vec::new();
                while self.flag() {
                    items.push(self.value(t));
                }
                Val::Vec(items)
            }
            Ty::Opt(t) => Val::Opt(self.flag().then(|| Box::new(self.value(t)))),
            Ty::Struct(name, fields) => {
                self.derived(name, |d| Val::Struct(fields.iter().map(|t| d.value(t)).collect()))
            }
            // 1.5's derive builds a fieldless enum without the hook that records it.
            Ty::Enum(_, variants) if variants.iter().all(Vec::is_empty) => self.variant(variants),
            Ty::Enum(name, variants) => self.derived(name, |d| d.variant(variants)),
        }
    }
}

/// The value of `ty` that `data` is read as (bytes after it stay unread), and the examples recorded.
pub(crate) fn decode(ty: &Ty, data: &[u8]) -> (Val, Vec<Example>) {
    let mut decoder = Decoder { data, front: 0, back: data.len(), depth: 0, examples: Vec::new() };
    let value = decoder.value(ty);
    (value, decoder.examples)
}
