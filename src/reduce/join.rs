//! Two typed inputs joined into one: the elements of one input's outermost collection put after the other's, every length respelled.
//!
//! The collection is found through the examples: from the top, the first
//! level where both inputs hold examples of one type, each preceded by a
//! "one more element" byte reading `true` and the last followed by one
//! reading `false` (how `arbitrary` reads every collection since 1.4); a
//! level of one example each (a struct around the collection) is stepped
//! into. The joined input makes `a`'s reads up to the end of its last
//! element, then `b`'s from the byte before its first element to the end of
//! its last, then the rest of `a`'s ([`super::tape`]).
//!
//! An input that ran out of bytes reads zeros where nothing was left, and
//! those reads left no bytes to move. So each input is first written again
//! with zeros after its reads ([`padded`]) and run: every read then has its
//! bytes, and the joint is taken from that run's examples.

use std::ops::Range;

use super::draws::DrawKind;
use super::tape::{reads, write, Read};
use super::testcase::TestCase;

/// A collection's elements: each one's draws, from its "one more" byte.
type Elements = Vec<Range<usize>>;

/// Zeros written after an input's reads ([`padded`]).
pub const PAD: usize = 256;

/// `tc`'s bytes written again from its reads, with `pad` zeros after them:
/// it reads what `tc` reads, and where `tc` ran out, zeros from the pad.
pub fn padded(tc: &TestCase, pad: usize) -> Option<Vec<u8>> {
    let mut reads = reads(tc)?;
    reads.push(Read::Front(vec![0; pad]));
    write(&reads)
}

/// Inputs that read as `a` with `b`'s collection elements after its own:
/// all of them, then the first half, the first quarter, .. down to one (a
/// count of hits that wraps past 256 with all of them may not with fewer).
/// Empty when the two have no collection in common or a read does not fit
/// the model. Both should be [`padded`] runs.
pub fn joins(a: &TestCase, b: &TestCase) -> Vec<Vec<u8>> {
    let Some((in_a, in_b)) = collections(a, b) else { return Vec::new() };
    let (Some(reads_a), Some(reads_b)) = (reads(a), reads(b)) else { return Vec::new() };
    let end_a = in_a.last().map_or(0, |e| e.end);
    let takes = std::iter::successors(Some(in_b.len()), |&n| (n > 1).then_some(n / 2));
    takes
        .filter_map(|take| {
            let mut joined = reads_a[..end_a].to_vec();
            joined.extend_from_slice(&reads_b[in_b[0].start..in_b[take - 1].end]);
            joined.extend_from_slice(&reads_a[end_a..]);
            // A string's length may reach past the bytes it took (`arbitrary` keeps
            // the valid UTF-8 before the first invalid byte): room for it, as in the padded runs.
            joined.push(Read::Front(vec![0; PAD]));
            write(&joined)
        })
        .collect()
}

/// The draws of the common collection's elements in each input, each from
/// its "one more" byte to its last read.
fn collections(a: &TestCase, b: &TestCase) -> Option<(Elements, Elements)> {
    let (mut group_a, mut group_b) = (top(a)?, top(b)?);
    loop {
        if let (Some(label_a), Some(label_b)) = (label(a, &group_a), label(b, &group_b)) {
            if label_a == label_b {
                if let (Some(in_a), Some(in_b)) = (elements(a, &group_a), elements(b, &group_b)) {
                    return Some((in_a, in_b));
                }
            }
        }
        if group_a.len() != 1 || group_b.len() != 1 {
            return None;
        }
        group_a = children(a, group_a[0])?;
        group_b = children(b, group_b[0])?;
    }
}

fn top(tc: &TestCase) -> Option<Vec<usize>> {
    (!tc.examples.is_empty()).then(|| tc.siblings(0).to_vec())
}

fn children(tc: &TestCase, parent: usize) -> Option<Vec<usize>> {
    let first = parent + 1;
    (first < tc.examples.len() && tc.parent(first) == Some(parent)).then(|| tc.siblings(first).to_vec())
}

/// The one label every example of `group` has.
fn label<'t>(tc: &'t TestCase, group: &[usize]) -> Option<&'t str> {
    let first = &tc.examples[*group.first()?].label;
    group.iter().all(|&i| tc.examples[i].label == *first).then_some(&**first)
}

/// The draws of `group`'s elements, each with the `true` byte before it,
/// when it is a collection: each element's draws follow such a byte, and a
/// byte reading `false` follows the last.
fn elements(tc: &TestCase, group: &[usize]) -> Option<Elements> {
    let mut out: Vec<Range<usize>> = Vec::with_capacity(group.len());
    for &i in group {
        let own = own_draws(tc, i)?;
        let flag = own.start.checked_sub(1)?;
        if out.last().is_some_and(|e| e.end != flag) || !tc.draws[flag].reads_true(&tc.bytes) {
            return None;
        }
        out.push(flag..own.end);
    }
    let last = tc.draws.get(out.last()?.end)?;
    (last.is_byte() && !last.reads_true(&tc.bytes)).then_some(out)
}

/// The draws inside example `i`'s spans, when they are consecutive and each
/// has its bytes (a read at the end of the input has none: see [`padded`]).
fn own_draws(tc: &TestCase, i: usize) -> Option<Range<usize>> {
    let example = &tc.examples[i];
    let inside = |span: &Range<usize>| {
        let within = |outer: &Range<usize>| outer.start <= span.start && span.end <= outer.end;
        !span.is_empty() && (within(&example.front) || within(&example.back))
    };
    let first = tc.draws.iter().position(|d| inside(&d.span))?;
    let count = tc.draws[first..].iter().take_while(|d| inside(&d.span) || d.span.is_empty()).count();
    let own = first..first + count;
    let empty_read = tc.draws[own.clone()].iter().any(|d| d.span.is_empty() && d.kind != DrawKind::Bytes);
    let later = tc.draws[own.end..].iter().any(|d| inside(&d.span));
    (!empty_read && !later).then_some(own)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::layout::{decode_len as decode, len_width as width};
    use crate::reduce::Example;

    type Element = (Vec<u8>, u8);

    /// Reads a `Vec<(String, u8)>` the way `arbitrary` does (a "one more"
    /// byte before each element, the string's length from the back, zeros
    /// where the input ran out), recording the examples the harness would.
    fn parse(input: &[u8]) -> (Vec<Element>, TestCase) {
        let (mut front, mut back) = (0, input.len());
        let (mut out, mut examples) = (Vec::new(), vec![Example::new(0..0, 0..0, "Root", 0)]);
        let byte = |front: &mut usize, back: usize, examples: &mut Vec<Example>| {
            let end = (*front + 1).min(back);
            examples.push(Example::new(*front..end, back..back, "draw:le:1", 2));
            let value = if end > *front { input[*front] } else { 0 };
            *front = end;
            value
        };
        while byte(&mut front, back, &mut examples) % 2 == 1 {
            let (start, top) = (front, back);
            let room = back - front;
            let w = width(room);
            let size = if w == 0 { 0 } else { decode(&input[back - w..back], (room - w) as u64) as usize };
            examples.push(Example::new(front..front, back - w..back, "draw:len", 2));
            back -= w;
            examples.push(Example::new(front..front + size, back..back, "draw:bytes", 2));
            let name = input[front..front + size].to_vec();
            front += size;
            let x = byte(&mut front, back, &mut examples);
            examples.push(Example::new(start..front, back..top, "Elem", 1));
            out.push((name, x));
        }
        examples[0] = Example::new(0..front, back..input.len(), "Root", 0);
        (out, TestCase::new(input.to_vec(), examples))
    }

    /// `parse` run on its own padded bytes: what the harness records on the padded run.
    fn padded_run(input: &[u8]) -> TestCase {
        let (_, tc) = parse(input);
        parse(&padded(&tc, PAD).expect("padded")).1
    }

    #[test]
    fn the_parser_reads_as_arbitrary_does() {
        // ("ab", 1), ("c", 2), then a false byte; lengths at the back: 1 then 2 (read first).
        let (value, _) = parse(b"\x01ab\x01\x01c\x02\x00\x01\x02");
        assert_eq!(value, [(b"ab".to_vec(), 1), (b"c".to_vec(), 2)]);
    }

    #[test]
    fn a_padded_input_reads_the_same_and_every_read_has_bytes() {
        // Runs out inside the second element: its number reads zero.
        let input = b"\x01ab\x07\x01c\x01\x02";
        let (value, tc) = parse(input);
        assert_eq!(value, [(b"ab".to_vec(), 7), (b"c".to_vec(), 0)]);
        let bytes = padded(&tc, PAD).expect("padded");
        let (again, run) = parse(&bytes);
        assert_eq!(again, value);
        assert!(run.draws.iter().all(|d| !d.span.is_empty()), "{:?}", run.draws);
    }

    #[test]
    fn joined_inputs_hold_both_collections_elements() {
        let a = b"\x01ab\x07\x01c\x01\x02";
        let b = b"\x01xyz\x09\x01\x05\x00\x03";
        let (value_a, _) = parse(a);
        let (value_b, _) = parse(b);
        assert_eq!(value_b, [(b"xyz".to_vec(), 9), (Vec::new(), 5)]);
        let joins = joins(&padded_run(a), &padded_run(b));
        assert_eq!(joins.len(), 2, "both elements, then the first");
        assert_eq!(parse(&joins[0]).0, [value_a.clone(), value_b.clone()].concat());
        assert_eq!(parse(&joins[1]).0, [value_a, value_b[..1].to_vec()].concat());
    }

    #[test]
    fn no_collection_in_common_no_join() {
        let a = padded_run(b"\x01ab\x07\x00\x02");
        let other = TestCase::new(a.bytes.clone(), vec![Example::new(0..4, 5..6, "Other", 0)]);
        assert!(joins(&a, &other).is_empty());
        let plain = TestCase::new(b"abc".to_vec(), Vec::new());
        assert!(joins(&a, &plain).is_empty());
    }
}
