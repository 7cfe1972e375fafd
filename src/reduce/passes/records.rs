//! Record chains: a binary format's length-prefixed records laid end to end, found from the bytes alone and deleted in runs.
//!
//! `delete-records` cuts one record at a time, wherever a few bytes read as a
//! length; on a file of eighty chunks whose bug sits in the last one that is
//! eighty moves, each among many false starts, and the stall limit stops it
//! long before (decision 0009). A *chain* is a sequence of records, each
//! exactly the size its length field announces (header, field, payload), that
//! tiles the input from some offset to its very end. Random bytes make such
//! chains all the time when the field is one byte (any value fits a large
//! input), seldom when it is wider, so only chains that random bytes would
//! hardly make count. Their records are deleted as a collection's elements
//! are: a run ending at a chosen record, grown backwards adaptively.

use super::super::choice::Chooser;
use super::super::shrinker::{Halt, Shrinker, StepResult};
use super::super::testcase::delete_range;
use super::grow;
use super::lengths::{read, FIELDS, MAX_HEADER};

/// How unlikely, in bits, a chain must be to come from random bytes, after
/// paying for every start and layout looked at: about one in a million.
const MIN_SURPRISE_BITS: f64 = 20.0;

/// How many of the most unlikely chains a step chooses from.
const MAX_CHAINS: usize = 4;

/// Candidate chain starts walked per step, before identical chains (one
/// layout read two ways) are merged.
const MAX_STARTS: usize = 16;

/// Where a record's length field sits and how it is read.
#[derive(Clone, Copy)]
struct Layout {
    offset: usize,
    width: usize,
    little: bool,
}

impl Layout {
    /// Where the record starting at `start` ends, when its size fits the input.
    fn end(self, bytes: &[u8], start: usize) -> Option<usize> {
        let value = usize::try_from(read(bytes, start + self.offset, self.width, self.little)?).ok()?;
        let size = value.checked_add(self.offset + self.width)?;
        let end = start.checked_add(size)?;
        (size >= 2 && end <= bytes.len()).then_some(end)
    }

    /// How unlikely, in bits, a random field at `start` is to announce a
    /// record that fits: a u8 almost always does, a u16 far from it. An
    /// empty record says nothing: zeros (what lowering leaves) read as a
    /// chain of them in every layout.
    fn surprise(self, bytes: &[u8], start: usize) -> f64 {
        if read(bytes, start + self.offset, self.width, self.little) == Some(0) {
            return 0.0;
        }
        let bits = (8 * self.width) as f64;
        let room = bytes.len().saturating_sub(start + self.offset + self.width) as f64;
        bits - (room + 1.0).log2().min(bits)
    }
}

fn layouts() -> impl Iterator<Item = Layout> {
    (0..MAX_HEADER).flat_map(|offset| FIELDS.iter().map(move |&(width, little)| Layout { offset, width, little }))
}

/// The chains that random bytes would hardly make, each as its record
/// boundaries (every record's start, then the input's end), the earliest
/// last (the chooser meets it first). A chain's surprise is the sum of its
/// records' ([`Layout::surprise`]), less the bits of the number of starts
/// and layouts searched: on random bytes the best of them all still looks
/// like a chain that often. A chain that joins one starting earlier (a
/// header byte read as a record of its own) is that chain.
fn chains(bytes: &[u8]) -> Vec<Vec<usize>> {
    let searched = ((bytes.len() * layouts().count()).max(1) as f64).log2();
    let mut starts: Vec<(f64, Layout, usize)> = layouts()
        .flat_map(|layout| chain_starts(bytes, layout))
        .filter(|&(surprise, _, _)| surprise - searched >= MIN_SURPRISE_BITS)
        .collect();
    starts.sort_by(|a, b| a.2.cmp(&b.2).then(b.0.total_cmp(&a.0)));
    let mut found: Vec<Vec<usize>> = Vec::new();
    for &(_, layout, start) in starts.iter().take(MAX_STARTS) {
        let mut bounds = vec![start];
        while let Some(end) = layout.end(bytes, *bounds.last().expect("starts with one")) {
            bounds.push(end);
        }
        if !found.iter().any(|chain| chain.contains(&bounds[1])) {
            found.push(bounds);
        }
    }
    found.truncate(MAX_CHAINS);
    found.reverse();
    found
}

/// The starts of `layout`'s chains that end exactly at the input's end and
/// that no longer chain contains (no record ends there), each with its
/// surprise: `(bits, layout, start)`.
fn chain_starts(bytes: &[u8], layout: Layout) -> Vec<(f64, Layout, usize)> {
    let n = bytes.len();
    let mut surprise: Vec<Option<f64>> = vec![None; n + 1];
    surprise[n] = Some(0.0);
    let mut inner = vec![false; n + 1];
    for start in (0..n).rev() {
        if let Some(end) = layout.end(bytes, start) {
            surprise[start] = surprise[end].map(|bits| bits + layout.surprise(bytes, start));
            inner[end] |= surprise[start].is_some();
        }
    }
    (0..n).filter(|&start| !inner[start]).filter_map(|start| Some((surprise[start]?, layout, start))).collect()
}

/// Chooses a chain (the earliest first) and a record (from the end, moving
/// down), and deletes the longest run of records ending with it that keeps
/// the input interesting.
pub(crate) fn delete_runs(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    if !sh.best().untyped() {
        return Err(Halt::Dead);
    }
    let bytes = sh.best().bytes.clone();
    let chains = chains(&bytes);
    let c = chooser.choose(chains.len(), |_| true)?;
    let bounds = &chains[c];
    let last = chooser.choose(bounds.len() - 1, |_| true)?;
    let deleted = grow(sh, |k| {
        let first = (last + 1).checked_sub(k)?;
        Some(delete_range(&bytes, bounds[first]..bounds[last + 1]))
    })?;
    if deleted > 0 {
        // Continue with the record before the run, in the same chain.
        chooser.resume_at(vec![c, (last + 1 - deleted).checked_sub(1).unwrap_or(usize::MAX)]);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::one_pass::run;
    use super::chains;
    use crate::reduce::Verdict;

    /// A magic, then chunks of tag, u16 little-endian length and payload up
    /// to the end; interesting when one has tag 7 and the first byte `EE`.
    fn has_tag_7(input: &[u8]) -> Verdict {
        let Some(mut rest) = input.strip_prefix(b"MG") else { return Verdict::Boring };
        let mut found = false;
        while !rest.is_empty() {
            let Some(header) = rest.get(..3) else { return Verdict::Boring };
            let len = usize::from(u16::from_le_bytes([header[1], header[2]]));
            let Some(payload) = rest.get(3..3 + len) else { return Verdict::Boring };
            found |= header[0] == 7 && payload.first() == Some(&0xEE);
            rest = &rest[3 + len..];
        }
        Verdict::from_bool(found)
    }

    fn chunked(count: u8, bug_at: u8) -> Vec<u8> {
        let mut input = b"MG".to_vec();
        for i in 0..count {
            let (tag, len) = if i == bug_at { (7, 2) } else { (i % 5, usize::from(i % 9) + 1) };
            input.extend([tag, len as u8, 0]);
            input.extend((0..len).map(|j| if tag == 7 && j == 0 { 0xEE } else { i.wrapping_mul(37) ^ j as u8 }));
        }
        input
    }

    #[test]
    fn finds_the_chain_of_chunks_after_a_magic() {
        let input = chunked(10, 4);
        let longest = chains(&input).pop().expect("a chain");
        assert_eq!(longest.len(), 11, "{longest:?}");
        assert_eq!((longest[0], longest[10]), (2, input.len()));
    }

    #[test]
    fn deletes_every_chunk_but_the_one_with_the_bug_in_few_tests() {
        let mut tests = 0;
        let counted = |input: &[u8]| {
            tests += 1;
            has_tag_7(input)
        };
        assert_eq!(
            run("delete-record-runs", &chunked(80, 61), counted),
            [b'M', b'G', 7, 2, 0, 0xEE, 61u8.wrapping_mul(37) ^ 1]
        );
        assert!(tests < 40, "{tests} tests to delete 79 chunks");
    }

    #[test]
    fn finds_no_chain_in_random_bytes() {
        let mut rng = fastrand::Rng::with_seed(7);
        for len in [50, 500, 5000] {
            let bytes: Vec<u8> = (0..len).map(|_| rng.u8(..)).collect();
            assert!(chains(&bytes).is_empty(), "{len} bytes");
        }
    }

    #[test]
    fn finds_no_chain_in_text() {
        assert!(chains(b"the quick brown fox jumps over the lazy dog").is_empty());
    }
}
