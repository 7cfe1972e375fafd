//! Deleting parts of a typed input while every length `arbitrary` read from the back keeps its value.
//!
//! `arbitrary` reads a string's or collection's size as a field at the back
//! of what is left of the input, big-endian, modulo what is left after it
//! (`arbitrary_byte_size`), as wide as what is left says (one byte while 256
//! bytes or fewer are left: `crate::protocol::layout`). Deleting an element therefore changes how every
//! length read before it decodes (less is left when it is read), and once the
//! input falls under 257 bytes, how wide every field is: the text before the
//! element then reads as other strings, and an element after the bug cannot
//! go. A deletion made here writes each length that survives it again, so
//! that it reads in the new input what it read in the old one: the value
//! itself, in the bytes `int_in_range` reads for the new room, at the width
//! the new room gives (found by iterating: narrower fields leave less room).

use std::ops::Range;

use super::draws::{Draw, DrawKind};
use super::testcase::{delete_ranges, replace_ranges, TestCase};
use crate::protocol::layout;

/// One length read from the back.
#[derive(Clone, Debug)]
struct LenRead {
    /// Where the front cursor was when it was read.
    cursor: usize,
    /// The field (at the back).
    span: Range<usize>,
    /// What it read.
    value: u64,
}

/// `tc`'s bytes with `ranges` deleted: lengths respelled
/// ([`delete_respelled`]) where there are any and they can be kept, else plainly.
pub(crate) fn delete(tc: &TestCase, ranges: &[Range<usize>]) -> Vec<u8> {
    delete_respelled(tc, ranges).unwrap_or_else(|| delete_ranges(&tc.bytes, ranges))
}

/// `tc`'s bytes with `ranges` deleted and every length read from the back
/// that survives them written to read what it read before. `None` when no
/// length survives, or one cannot be kept: its value no longer fits what is
/// left, or the deletion cuts through its field.
pub(crate) fn delete_respelled(tc: &TestCase, ranges: &[Range<usize>]) -> Option<Vec<u8>> {
    let deleted = merged(ranges);
    let mut kept = Vec::new();
    for read in len_reads(&tc.bytes, &tc.draws)? {
        let overlapping = deleted.iter().find(|d| d.start < read.span.end && read.span.start < d.end);
        match overlapping {
            None => kept.push(read),
            Some(d) if d.start <= read.span.start && read.span.end <= d.end => {}
            Some(_) => return None,
        }
    }
    if kept.is_empty() {
        return None;
    }
    let (widths, rooms) = settle(&deleted, &kept)?;
    let mut fields = Vec::with_capacity(kept.len());
    for ((read, width), room) in kept.iter().zip(&widths).zip(&rooms) {
        let max = (room - width) as u64;
        if read.value > max {
            return None;
        }
        fields.push(layout::encode_len(read.value, *width, max));
    }
    let mut edits: Vec<(Range<usize>, &[u8])> = deleted.iter().map(|r| (r.clone(), &[][..])).collect();
    edits.extend(kept.iter().zip(&fields).map(|(read, field)| (read.span.clone(), field.as_slice())));
    Some(replace_ranges(&tc.bytes, &edits))
}

/// `ranges` without the empty ones, sorted, overlapping and touching ones joined.
fn merged(ranges: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut sorted: Vec<Range<usize>> = ranges.iter().filter(|r| !r.is_empty()).cloned().collect();
    sorted.sort_by_key(|r| (r.start, r.end));
    let mut out: Vec<Range<usize>> = Vec::with_capacity(sorted.len());
    for range in sorted {
        match out.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => out.push(range),
        }
    }
    out
}

/// The lengths `draws` read from the back of `bytes`, with their values; `None` when one
/// is not as wide as its room says.
fn len_reads(bytes: &[u8], draws: &[Draw]) -> Option<Vec<LenRead>> {
    let lens = draws.iter().filter(|d| d.kind == DrawKind::Len);
    lens.map(|draw| Some(LenRead { cursor: draw.cursor, span: draw.span.clone(), value: len_value(bytes, draw)? }))
        .collect()
}

/// What a length draw read in `bytes`; `None` when its field does not fit
/// the model (not as wide as its room says).
pub(super) fn len_value(bytes: &[u8], draw: &Draw) -> Option<u64> {
    let room = draw.span.end.checked_sub(draw.cursor)?;
    let field = bytes.get(draw.span.clone())?;
    (layout::len_width(room) == field.len()).then(|| layout::decode_len(field, (room - field.len()) as u64))
}

/// The width and room of each kept length once `deleted` is gone and each
/// field is as wide as its room says: narrower fields leave the others
/// less room, so until nothing changes (widths only fall, so it ends).
fn settle(deleted: &[Range<usize>], kept: &[LenRead]) -> Option<(Vec<usize>, Vec<usize>)> {
    let mut widths: Vec<usize> = kept.iter().map(|r| r.span.len()).collect();
    loop {
        let mut shrinks: Vec<(Range<usize>, usize)> = deleted.iter().map(|r| (r.clone(), r.len())).collect();
        shrinks.extend(kept.iter().zip(&widths).map(|(r, &w)| (r.span.clone(), r.span.len() - w)));
        let shift = Shift::new(shrinks);
        let mut rooms = Vec::with_capacity(kept.len());
        for read in kept {
            let end = read.span.end - shift.before(read.span.end)?;
            rooms.push(end.checked_sub(read.cursor - shift.before(read.cursor)?)?);
        }
        let settled: Vec<usize> = rooms.iter().map(|&room| layout::len_width(room)).collect();
        // Less room never widens a field; if the model says otherwise, cut plainly.
        if settled.iter().zip(kept).any(|(&w, r)| w > r.span.len()) {
            return None;
        }
        if settled == widths {
            return Some((widths, rooms));
        }
        widths = settled;
    }
}

/// How far positions move left when ranges shrink by given amounts.
struct Shift {
    /// (range, bytes it loses), by end.
    shrinks: Vec<(Range<usize>, usize)>,
    /// Bytes lost by the ranges up to each index (exclusive prefix sums).
    lost: Vec<usize>,
}

impl Shift {
    fn new(mut shrinks: Vec<(Range<usize>, usize)>) -> Shift {
        shrinks.sort_by_key(|(r, _)| r.end);
        let lost = std::iter::once(0)
            .chain(shrinks.iter().scan(0, |sum, (_, n)| {
                *sum += n;
                Some(*sum)
            }))
            .collect();
        Shift { shrinks, lost }
    }

    /// Bytes lost before position `p` (by ranges ending at or before it);
    /// `None` when `p` falls inside a range that shrinks. The ranges are
    /// disjoint (cuts merged, fields apart from them and from each other),
    /// so only the first one ending after `p` can hold it: a look at every
    /// later one made a deletion quadratic (decision 0019).
    fn before(&self, p: usize) -> Option<usize> {
        let ended = self.shrinks.partition_point(|(r, _)| r.end <= p);
        let inside = self.shrinks.get(ended).is_some_and(|(r, n)| *n > 0 && r.start < p && p < r.end);
        (!inside).then_some(self.lost[ended])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::Example;

    /// Strings as `arbitrary` reads them one after another: a length field
    /// at the back of what is left, then that many bytes at the front.
    /// Returns the strings and the examples recorded.
    fn strings(input: &[u8], count: usize) -> (Vec<Vec<u8>>, Vec<Example>) {
        let (mut front, mut back) = (0, input.len());
        let (mut out, mut examples) = (Vec::new(), Vec::new());
        for _ in 0..count {
            let room = back - front;
            let w = layout::len_width(room);
            let size = layout::decode_len(&input[back - w..back], (room - w) as u64) as usize;
            examples.push(Example::new(front..front, back - w..back, "draw:len", 1));
            back -= w;
            examples.push(Example::new(front..front + size, back..back, "draw:bytes", 1));
            out.push(input[front..front + size].to_vec());
            front += size;
        }
        (out, examples)
    }

    fn case(input: Vec<u8>, count: usize) -> TestCase {
        let examples = strings(&input, count).1;
        TestCase::new(input, examples)
    }

    #[test]
    fn a_deletion_after_a_string_leaves_it_as_it_was() {
        // "ab", "cde", "fg": the first length is spelled 12 (modulo 10: 2),
        // so deleting "cde" alone changes how "ab" reads (modulo 6: 0).
        let tc = case(b"abcdefg\x02\x0a\x0c".to_vec(), 3);
        assert_eq!(strings(&tc.bytes, 3).0, [&b"ab"[..], b"cde", b"fg"]);
        let ranges = [2..5, 8..9];
        let plain = crate::reduce::testcase::delete_ranges(&tc.bytes, &ranges);
        assert_eq!(strings(&plain, 2).0[0], b"", "the plain deletion reads otherwise");
        let respelled = delete_respelled(&tc, &ranges).expect("respelled");
        assert_eq!(respelled, b"abfg\x02\x02");
        assert_eq!(strings(&respelled, 2).0, [&b"ab"[..], b"fg"]);
    }

    #[test]
    fn fields_narrow_when_the_input_falls_under_257_bytes() {
        // Two strings in 298 bytes: 3 bytes and 291; two-byte fields.
        let mut input = b"xyz".to_vec();
        input.extend((0..291).map(|i| (i % 26) as u8 + b'a'));
        input.extend([0x01, 0x23, 0x00, 0x03]);
        let tc = case(input, 2);
        assert_eq!(strings(&tc.bytes, 2).0[0], b"xyz");
        // Deleting 100 bytes of the second string (and nothing else) cannot keep
        // its length; deleting it whole leaves "xyz" in 5 bytes, one-byte field.
        let whole = delete_respelled(&tc, &[3..294, 294..296]).expect("respelled");
        assert_eq!(whole, [b'x', b'y', b'z', 3]);
        assert_eq!(strings(&whole, 1).0, [b"xyz"]);
        assert_eq!(delete_respelled(&tc, std::slice::from_ref(&(3..103))), None, "the second length no longer fits");
    }

    #[test]
    fn overlapping_cuts_count_once() {
        assert_eq!(merged(&[5..7, 0..2, 1..3, 7..7, 6..9]), [0..3, 5..9]);
        let tc = case(b"abcdefg\x02\x0a\x0c".to_vec(), 3);
        assert_eq!(delete_respelled(&tc, &[2..4, 3..5, 8..9]), delete_respelled(&tc, &[2..5, 8..9]));
    }

    #[test]
    fn nothing_to_respell_or_a_cut_field_gives_none() {
        let tc = TestCase::new(b"abc".to_vec(), Vec::new());
        assert_eq!(delete_respelled(&tc, std::slice::from_ref(&(0..1))), None);
        let mut input = b"xyz".to_vec();
        input.extend((0..291).map(|i| (i % 26) as u8 + b'a'));
        input.extend([0x01, 0x23, 0x00, 0x03]);
        let tc = case(input, 2);
        assert_eq!(delete_respelled(&tc, std::slice::from_ref(&(295..297))), None, "both fields cut");
    }
}
