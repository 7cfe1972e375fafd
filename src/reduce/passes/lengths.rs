//! Length fields: binary formats prefix records with their length, so deleting a record means deleting exactly as many bytes as a nearby field says.
//!
//! Block deletion grows blocks by doubling and binary search, which assumes
//! that what can be cut whole can be cut in part; a length-prefixed record
//! (tag, length, payload) breaks that: only its exact size can go. These passes
//! read the bytes near a position as candidate length fields (u8, u16 and u32,
//! either endianness) and try the sizes they imply.

use super::super::choice::Chooser;
use super::super::draws::DrawKind;
use super::super::shrinker::{Halt, Shrinker, StepResult};
use super::super::testcase::{delete_range, replace_ranges, TestCase};
use super::grow;

/// Field encodings tried: width in bytes, little-endian.
pub(super) const FIELDS: [(usize, bool); 5] = [(1, true), (2, true), (2, false), (4, true), (4, false)];

/// How far into a record its length field may start (after a tag or flags).
pub(super) const MAX_HEADER: usize = 4;

pub(super) fn read(bytes: &[u8], at: usize, width: usize, little: bool) -> Option<u64> {
    let field = bytes.get(at..at + width)?;
    let fold = |acc: u64, &b: &u8| acc << 8 | u64::from(b);
    Some(if little { field.iter().rev().fold(0, fold) } else { field.iter().fold(0, fold) })
}

fn write(value: u64, width: usize, little: bool) -> Vec<u8> {
    let be = value.to_be_bytes();
    let mut field = be[8 - width..].to_vec();
    if little {
        field.reverse();
    }
    field
}

/// The record sizes the bytes at `start` suggest: header up to the field, the
/// field, and the payload it announces. Ascending, so the chooser's reverse
/// order meets the largest first.
fn record_sizes(bytes: &[u8], start: usize) -> Vec<usize> {
    let room = bytes.len() - start;
    let mut sizes: Vec<usize> = (0..MAX_HEADER)
        .flat_map(|offset| FIELDS.iter().map(move |&(width, little)| (offset, width, little)))
        .filter_map(|(offset, width, little)| {
            let value = usize::try_from(read(bytes, start + offset, width, little)?).ok()?;
            value.checked_add(offset + width)
        })
        .filter(|&size| size >= 2 && size <= room)
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

/// Where a format with length fields can be on a typed input: the raw
/// contents `arbitrary` read (a `&[u8]` or a `String` field, `draw:bytes`),
/// each as the end of its span; `None` on an input without draws (raw
/// bytes, `--exec`), where it can be anywhere. Elsewhere a typed input is
/// `arbitrary`'s own encoding, which puts no length before what it counts
/// (lengths come from the back): a field read there is a coincidence
/// (decision 0008).
fn raw_ends(tc: &TestCase) -> Option<Vec<usize>> {
    if tc.draws.is_empty() {
        return None;
    }
    let mut ends = vec![0; tc.len() + 1];
    for d in tc.draws.iter().filter(|d| d.kind == DrawKind::Bytes) {
        d.span.clone().for_each(|i| ends[i] = d.span.end);
    }
    Some(ends)
}

/// How many bytes from `at` on lie in the raw region that holds `at`.
fn room(ends: &Option<Vec<usize>>, len: usize, at: usize) -> usize {
    ends.as_ref().map_or(len, |ends| ends[at]).saturating_sub(at)
}

/// Chooses a start (from the end) and a record size suggested by the bytes
/// there, and deletes exactly that many bytes.
pub(crate) fn delete_records(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    if sh.best().draws_only() {
        return Err(Halt::Dead);
    }
    let ends = raw_ends(sh.best());
    let bytes = sh.best().bytes.clone();
    let limit = |s: usize| &bytes[..s + room(&ends, bytes.len(), s)];
    let start = chooser.choose(bytes.len(), |s| !record_sizes(limit(s), s).is_empty())?;
    let sizes = record_sizes(limit(start), start);
    let size = sizes[chooser.choose(sizes.len(), |_| true)?];
    sh.consider(delete_range(&bytes, start..start + size))?;
    Ok(())
}

/// Chooses a field (position and encoding) with a nonzero value and a side of
/// the payload it announces, then lowers the field by `d` while deleting `d`
/// payload bytes there, for the largest `d` that stays interesting.
pub(crate) fn shrink_payloads(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    payloads(sh, chooser, false)
}

/// [`shrink_payloads`] for a one-byte field, where the bytes after the
/// payload that hold its value (an index checked against the count, a copy
/// of it) go down with it, if there are at most [`MAX_ECHOES`]:
/// `asan_overread`'s pixel index must equal its palette's size, so neither
/// moves alone. Raw bytes only, right after `shrink-payloads`, and not in
/// the corpus mode (decision 0008).
pub(crate) fn shrink_linked_payloads(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    if !sh.best().untyped() || !sh.options().lowering {
        return Err(Halt::Dead);
    }
    payloads(sh, chooser, true)
}

fn payloads(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>, linked: bool) -> StepResult {
    if sh.best().draws_only() {
        return Err(Halt::Dead);
    }
    let ends = raw_ends(sh.best());
    let bytes = sh.best().bytes.clone();
    let fits = |at: usize, (width, little): (usize, bool)| {
        let room = room(&ends, bytes.len(), at).saturating_sub(width);
        (!linked || width == 1)
            && room > 0
            && read(&bytes, at, width, little).is_some_and(|v| v > 0 && v <= room as u64)
    };
    let at = chooser.choose(bytes.len(), |at| FIELDS.iter().any(|&f| fits(at, f)))?;
    let (width, little) = FIELDS[chooser.choose(FIELDS.len(), |f| fits(at, FIELDS[f]))?];
    let from_end = chooser.choose(2, |_| true)? == 1;
    let value = read(&bytes, at, width, little).unwrap_or(0) as usize;
    let payload = at + width..at + width + value;
    let shrink = |d: usize, echoes: &[usize]| {
        if d > value {
            return None;
        }
        let cut = if from_end { payload.end - d..payload.end } else { payload.start..payload.start + d };
        let field = write((value - d) as u64, width, little);
        let echo = [(value - d) as u8];
        let mut edits = vec![(at..at + width, &field[..]), (cut, &[][..])];
        edits.extend(echoes.iter().map(|&i| (i..i + 1, &echo[..])));
        Some(replace_ranges(&bytes, &edits))
    };
    if !linked {
        grow(sh, |d| shrink(d, &[]))?;
        return Ok(());
    }
    let end = at + room(&ends, bytes.len(), at);
    let echoes: Vec<usize> = (payload.end..end).filter(|&i| usize::from(bytes[i]) == value).collect();
    if (1..=MAX_ECHOES).contains(&echoes.len()) {
        grow(sh, |d| shrink(d, &echoes))?;
    }
    Ok(())
}

/// At most this many bytes after a one-byte length's payload that hold its
/// value are lowered with it ([`shrink_linked_payloads`]); more are coincidences.
const MAX_ECHOES: usize = 2;

#[cfg(test)]
mod tests {
    use super::super::one_pass::run;
    use crate::reduce::{Example, Verdict};

    /// Tag, u16 little-endian length, payload; interesting when a record with tag 7 follows a well-formed prefix.
    fn has_tag_7(input: &[u8]) -> Verdict {
        let mut pos = 0;
        while pos < input.len() {
            let Some(header) = input.get(pos..pos + 3) else { return Verdict::Boring };
            let len = usize::from(u16::from_le_bytes([header[1], header[2]]));
            if input.len() < pos + 3 + len {
                return Verdict::Boring;
            }
            if header[0] == 7 {
                return Verdict::from_bool(len > 0 && input[pos + 3] == 0xEE);
            }
            pos += 3 + len;
        }
        Verdict::Boring
    }

    #[test]
    fn deletes_whole_length_prefixed_records() {
        let input = [1, 3, 0, 9, 9, 9, 2, 1, 0, 5, 7, 2, 0, 0xEE, 4, 3, 1, 0, 8];
        // The sweep starts at the end, where `[1, 0, 8]` reads as a record of
        // its own; the lone `3` left is block deletion's job.
        assert_eq!(run("delete-records", &input, has_tag_7), [7, 2, 0, 0xEE, 4, 3]);
    }

    /// On a typed input, only inside the raw contents `arbitrary` read: a
    /// byte of its own encoding that reads as a length is a coincidence.
    #[test]
    fn on_a_typed_input_reads_lengths_only_inside_raw_contents() {
        let records = [1, 3, 0, 9, 9, 9, 7, 2, 0, 0xEE, 4];
        // A one-byte integer (3: a length by coincidence), then a `&[u8]` holding the records.
        let input: Vec<u8> = std::iter::once(3).chain(records).collect();
        let mut firsts = Vec::new();
        let oracle = |candidate: &[u8]| {
            firsts.push(candidate.first().copied());
            let end = candidate.len()..candidate.len();
            // A derived value (a struct) made of the two draws.
            let draws = vec![
                Example::new(0..candidate.len(), end.clone(), "Input", 0),
                Example::new(0..1.min(candidate.len()), end, "draw:le:1", 1),
                Example::new(
                    1.min(candidate.len())..candidate.len(),
                    candidate.len()..candidate.len(),
                    "draw:bytes",
                    1,
                ),
            ];
            match has_tag_7(candidate.get(1..).unwrap_or_default()) {
                Verdict::Interesting(_) => Verdict::Interesting(draws),
                Verdict::Boring => Verdict::Boring,
            }
        };
        assert_eq!(run("delete-records", &input, oracle), [3, 7, 2, 0, 0xEE, 4]);
        assert!(firsts.iter().all(|&first| first == Some(3)), "the integer was cut: {firsts:?}");
    }

    /// A count, its items, and an index after them that must equal the count.
    fn index_at_count(input: &[u8]) -> Verdict {
        let Some((&count, rest)) = input.split_first() else { return Verdict::Boring };
        let count = usize::from(count);
        Verdict::from_bool(count > 0 && rest.len() == count + 1 && usize::from(rest[count]) == count)
    }

    #[test]
    fn shrinks_a_payload_with_its_length_and_the_index_that_must_equal_it() {
        let input = [5, 0, 0, 0, 0, 0, 5];
        assert_eq!(run("shrink-payloads", &input, index_at_count), input, "neither moves alone");
        assert_eq!(run("shrink-linked-payloads", &input, index_at_count), [1, 0, 1]);
    }

    /// On a typed input the linked move does not run: it cost tests there
    /// and never paid (decision 0008).
    #[test]
    fn leaves_a_typed_input_to_the_other_passes() {
        let input = [5, 0, 0, 0, 0, 0, 5];
        let mut tests = 0;
        let typed = |candidate: &[u8]| {
            tests += 1;
            let (all, end) = (0..candidate.len(), candidate.len()..candidate.len());
            // A derived value (a struct) holding a `&[u8]`.
            let examples =
                vec![Example::new(all.clone(), end.clone(), "Input", 0), Example::new(all, end, "draw:bytes", 1)];
            match index_at_count(candidate) {
                Verdict::Interesting(_) => Verdict::Interesting(examples),
                Verdict::Boring => Verdict::Boring,
            }
        };
        assert_eq!(run("shrink-linked-payloads", &input, typed), input);
        assert_eq!(tests, 1, "only the initial run");
    }

    /// Nor in the corpus mode (no lowering).
    #[test]
    fn leaves_a_corpus_input_to_the_other_passes() {
        use crate::reduce::{run_pass, ReduceOptions, TestCase};
        let input = [5, 0, 0, 0, 0, 0, 5];
        let options = ReduceOptions { lowering: false, ..ReduceOptions::default() };
        let initial = TestCase::new(input.to_vec(), Vec::new());
        let reduction = run_pass("shrink-linked-payloads", initial, index_at_count, &options).expect("a known pass");
        assert_eq!(reduction.best.bytes, input);
    }

    #[test]
    fn shrinks_a_payload_together_with_its_length() {
        let input = [7, 6, 0, 0xEE, 1, 2, 3, 4, 5];
        assert_eq!(run("shrink-payloads", &input, has_tag_7), [7, 1, 0, 0xEE]);
    }
}
