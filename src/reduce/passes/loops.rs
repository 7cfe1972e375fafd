//! `loop-references`: a byte, or a big-endian pair of bytes, read as an offset into the input, made to point at itself.
//!
//! Formats that address their own bytes (DNS names' compression pointers,
//! tables reached by offset) overflow the stack through a reference that
//! loops, and the simplest such input holds one reference that points at
//! itself. A fuzzer's input loops the long way: a pointer to a pointer far
//! ahead, or back into a chain of labels. Deleting the way alone moves what
//! the reference points to, and lowering the reference alone reaches the
//! one value that loops only by chance (a binary search assumes lower is
//! as good, and here only one value is), so neither move found it.

use std::collections::BTreeSet;

use super::super::choice::Chooser;
use super::super::shrinker::{Shrinker, StepResult};

/// The widths of the offset field tried in a pair of bytes (its low bits;
/// the bits above are a tag the format keeps): one byte up to fifteen bits.
const WIDTHS: std::ops::RangeInclusive<u32> = 8..=15;

/// Chooses a position that is not zero with the byte before it (the last
/// first; not the bytes `lower-draws` lowers by value) and tries the ways
/// it can be made a reference to itself, the least candidate first (the
/// shortest, then by bytes), until one stays interesting (`candidates`).
pub(crate) fn step(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let bytes = sh.best().bytes.clone();
    let by_value = sh.best().lowered_by_value();
    let n = bytes.len();
    let p = chooser.choose(n, |p| !by_value[p] && (bytes[p] != 0 || p > 0 && bytes[p - 1] != 0))?;
    let mut candidates: Vec<Vec<u8>> = candidates(&bytes, p).into_iter().collect();
    candidates.sort_by_key(Vec::len);
    for candidate in candidates {
        if sh.consider(candidate)? {
            break;
        }
    }
    Ok(())
}

/// The candidates for the reference ending at `p`, read as the byte at `p`
/// alone or as the pair before and at `p` with each of [`WIDTHS`], where it
/// points inside the input:
/// - pointing ahead, it is lowered to point at itself (its first byte) and
///   what follows it is cut: a loop reads nothing past itself, and the
///   plain lowering, tried too, cost its tests on every input whose bytes
///   happen to read as an offset ahead (the samples' tests 12% more, for
///   nothing; decision 0098);
/// - pointing back, at `t`, the bytes from `t` to it are deleted, so that
///   it stands where it pointed, with and without what follows it;
/// - a pair pointing back or at itself is also moved, pointing at itself,
///   to each fourth place before it in the first [`EARLIEST`] bytes (a
///   header is whole words), what follows it cut: where the format reads
///   its first reference (a packet's first name after its header), which
///   the loop's own way need not pass, or passes only through the header.
fn candidates(bytes: &[u8], p: usize) -> BTreeSet<Vec<u8>> {
    let mut found = BTreeSet::new();
    let byte = usize::from(bytes[p]);
    if byte > p && byte < bytes.len() {
        found.insert(with(&bytes[..=p], p..p + 1, &[p as u8]));
    } else if byte < p {
        back(bytes, byte..p, p, &mut found);
    }
    let Some(start) = p.checked_sub(1) else { return found };
    let pair = u16::from_be_bytes([bytes[start], bytes[p]]);
    for width in WIDTHS {
        let mask = (1u16 << width) - 1;
        let target = usize::from(pair & mask);
        if target >= bytes.len() {
            continue;
        }
        let at = |a: usize| [&bytes[..a], &((pair & !mask) | a as u16).to_be_bytes()[..]].concat();
        if target > start && start <= usize::from(mask) {
            found.insert(at(start));
            continue;
        }
        if target < start {
            back(bytes, target..start, p, &mut found);
        }
        found.extend((0..start.min(EARLIEST)).step_by(4).map(at));
    }
    found
}

/// Where a reference can stand first: after a header of at most this many bytes.
const EARLIEST: usize = 32;

/// Adds the candidates with `bytes[deleted]` deleted, where the reference
/// from `deleted.end` to `p` points at `deleted.start`: with and without
/// what follows it.
fn back(bytes: &[u8], deleted: std::ops::Range<usize>, p: usize, found: &mut BTreeSet<Vec<u8>>) {
    let moved = [&bytes[..deleted.start], &bytes[deleted.end..]].concat();
    found.insert(moved[..deleted.start + p + 1 - deleted.end].to_vec());
    found.insert(moved);
}

/// `bytes` with `range` replaced by `new` (of the same length).
fn with(bytes: &[u8], range: std::ops::Range<usize>, new: &[u8]) -> Vec<u8> {
    let mut candidate = bytes.to_vec();
    candidate[range].copy_from_slice(new);
    candidate
}

#[cfg(test)]
mod tests {
    use super::super::one_pass::run;
    use crate::reduce::{Example, Verdict};

    /// How deep a name in `input` at `at` nests, DNS's way: a length byte
    /// and that many bytes per label, a zero length to end, and two bytes
    /// `11xxxxxx xxxxxxxx` a pointer to the name at the offset in the low
    /// fourteen bits. `None` where the name runs off the end.
    fn depth(input: &[u8], at: usize, nesting: usize) -> Option<usize> {
        if nesting > 100 {
            return Some(nesting);
        }
        let length = usize::from(*input.get(at)?);
        match length {
            0 => Some(nesting),
            l if l >= 0xc0 => {
                let target = (l & 0x3f) << 8 | usize::from(*input.get(at + 1)?);
                depth(input, target, nesting + 1)
            }
            l => depth(input, at + 1 + l, nesting),
        }
    }

    /// The bug: a name at offset `header` nests past 100.
    fn overflows(header: usize) -> impl Fn(&[u8]) -> Verdict {
        move |input| {
            let whole = vec![Example::new(0..input.len(), input.len()..input.len(), "Packet", 0)];
            if depth(input, header, 0).is_some_and(|d| d > 100) {
                Verdict::Interesting(whole)
            } else {
                Verdict::Boring
            }
        }
    }

    #[test]
    fn a_pointer_ahead_to_a_pointer_at_itself_is_made_to_point_at_itself() {
        // The name at 2 points at 300 (0x12c), where a pointer points at itself.
        let mut input = vec![0, 0, 0xc1, 0x2c];
        input.resize(300, 0);
        input.extend([0xc1, 0x2c]);
        let result = run("loop-references", &input, overflows(2));
        assert_eq!(result[..4], [0, 0, 0xc0, 0x02], "{:x?}", &result[..4]);
    }

    #[test]
    fn a_pointer_back_into_a_chain_of_labels_is_moved_to_where_it_pointed() {
        // A label of 3 at 2, then at 6 labels of 1 from 6 to 12, and at 14 a pointer back to 6.
        let input = [0, 0, 3, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0xc0, 6];
        let result = run("loop-references", &input, overflows(2));
        // (Bytes before it went too, where a pair read as a pointer back said so: still a loop.)
        assert_eq!((result.len(), &result[6..]), (8, &[0xc0, 6][..]), "{result:x?}");
    }

    #[test]
    fn a_loop_its_way_passes_by_is_moved_to_where_the_first_name_starts() {
        // After a 4-byte header a label of 8 runs to 13, where a pointer goes back to 9, a label
        // of 3 that ends at the pointer: moved to 9 it is not reached (the label of 8 runs past).
        let input = [0, 0, 0, 0, 8, 0, 0, 0, 0, 3, 0, 0, 0, 0xc0, 9];
        assert_eq!(run("loop-references", &input, overflows(4)), [0, 0, 0, 0, 0xc0, 4]);
    }
}
