//! Adaptive block deletion: at each index, the largest block of bytes ending there that can go.

use std::ops::Range;

use super::super::choice::Chooser;
use super::super::draws::DrawKind;
use super::super::shrinker::{Halt, Shrinker, StepResult};
use super::super::testcase::{delete_range, TestCase};
use super::grow;

/// Chooses an index `i` (from the end, moving down) and deletes the largest
/// block ending at `i` that keeps the input interesting: one test when even
/// byte `i` alone must stay, O(log k) tests to delete `k` bytes. Growing the
/// block backwards matches the order of the sweep, so the bytes after `i`
/// (already visited) are never retried, and an index whose byte the next
/// one repeats is skipped (deleting either gives the same bytes).
pub(crate) fn step(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    if sh.best().draws_only() {
        return whole_draws(sh, chooser);
    }
    let best = sh.shared();
    // In a run of equal bytes, deleting one of them is deleting the next:
    // that candidate was just tried (a run of padding made every step a
    // cache hit that cost the tool a copy and a hash of the whole input).
    let repeats = |i: usize| best.bytes.get(i + 1).is_some_and(|next| *next == best.bytes[i]);
    let i = chooser.choose(best.len(), |i| !repeats(i))?;
    let deleted = grow(sh, |k| (k <= i + 1).then(|| delete_range(&best.bytes, i + 1 - k..i + 1)))?;
    if deleted > 0 {
        // Continue just before the deleted block; from the top when it reached the start.
        chooser.resume_at(vec![(i + 1 - deleted).checked_sub(1).unwrap_or(usize::MAX)]);
    }
    Ok(())
}

/// Inputs this short, of bytes alone, get every block tried ([`every_block`]).
const EVERY_BLOCK_MAX_LEN: usize = 64;

/// On a short input of bytes alone (no draws: a `&[u8]` target), every
/// block of two bytes or more, not all one byte, that the input holds
/// elsewhere too, the largest first, wherever it starts: the blocks the adaptive sweep never
/// reaches, since it grows a block only where its last byte alone can go.
/// An input whose parts repeat (rustc-demangle 0.1.18's
/// `RXB_B_XB_B_XB_B_B_`, an overflow through its back-references) loses a
/// repeat only whole (`XB_B_`), and no single byte: the sweep kept all 18
/// bytes where `cargo fuzz tmin`'s random erasures reached 8. Only repeated
/// blocks: every block of the samples' byte results cost 236 tests that
/// made nothing smaller; and not runs of one byte, which cost the lists
/// bench's byte lists 5 to 6 tests a list for nothing (decision 0093).
pub(crate) fn every_block(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let best = sh.shared();
    let len = best.len();
    if !(3..=EVERY_BLOCK_MAX_LEN).contains(&len) || !sh.best().draws.is_empty() {
        return Err(Halt::Dead);
    }
    let repeated = repeated_blocks(&best.bytes);
    let held = |size: usize, start: usize| {
        let block = &best.bytes[start..start + size];
        block.iter().any(|&b| b != block[0]) && repeated.contains(&block)
    };
    // The chooser goes from the last index down: the largest block first.
    let size = 2 + chooser.choose(len - 2, |s| (0..len - s - 1).any(|start| held(s + 2, start)))?;
    let start = chooser.choose(len - size + 1, |start| held(size, start))?;
    sh.consider(delete_range(&best.bytes, start..start + size))?;
    Ok(())
}

/// The blocks of two bytes or more found at two places or more in `bytes`.
fn repeated_blocks(bytes: &[u8]) -> std::collections::HashSet<&[u8]> {
    let mut seen = std::collections::HashSet::new();
    let mut repeated = std::collections::HashSet::new();
    for size in 2..bytes.len() {
        for block in bytes.windows(size) {
            if !seen.insert(block) {
                repeated.insert(block);
            }
        }
    }
    repeated
}

/// The same over whole draws, on an input that draws alone describe (a
/// `Vec<u64>`): a block is the draws from the `k`-th before the chosen one
/// through it (in input order), so no value is cut in two: the byte sweep
/// paid there only for the tail a short read zero-fills, which deleting the
/// whole last draw gives as well, or, when the last value is not zero,
/// deleting the zero bytes it ends with (the first step, one test): `[3]`'s
/// `01 03 00 00 00` becomes `01 03`.
///
/// Only blocks after which the draws go on as the block began ([`aligned`]):
/// deleting an element's flag alone, or its value alone, makes every later
/// value read from the wrong bytes (a flag from a value's first byte), a
/// crude lowering that `lower-draws` does by value (decision 0023).
fn whole_draws(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let bytes = sh.best().bytes.clone();
    let mut draws: Vec<(Range<usize>, DrawKind)> = sh
        .best()
        .draws
        .iter()
        .filter(|draw| !draw.span.is_empty())
        .map(|draw| (draw.span.clone(), draw.kind))
        .collect();
    draws.sort_by_key(|(span, _)| (span.start, span.end));
    let kinds: Vec<DrawKind> = draws.iter().map(|(_, kind)| *kind).collect();
    let zeros = zero_tail(sh.best());
    // The chooser goes from the last index down: the tail first.
    let d =
        chooser
            .choose(draws.len() + 1, |d| if d < draws.len() { aligned(&kinds, d, 1).is_some() } else { zeros > 0 })?;
    if d == draws.len() {
        sh.consider(bytes[..bytes.len() - zeros].to_vec())?;
        return Ok(());
    }
    let deleted = grow(sh, |k| {
        let size = aligned(&kinds, d, k)?;
        Some(delete_range(&bytes, draws[d + 1 - size].0.start..draws[d].0.end))
    })?;
    if let Some(size) = (deleted > 0).then(|| aligned(&kinds, d, deleted)).flatten() {
        chooser.resume_at(vec![(d + 1 - size).checked_sub(1).unwrap_or(usize::MAX)]);
    }
    Ok(())
}

/// The size of the `k`-th smallest block of draws ending at draw `d` after
/// which the draws go on as the block began: the first `m` kinds after it
/// are the block's first `m` (`m` the block's size, or what is left), so the
/// values after it still read from their own bytes. Any block that ends the
/// input qualifies.
fn aligned(kinds: &[DrawKind], d: usize, k: usize) -> Option<usize> {
    let after = &kinds[d + 1..];
    (1..=d + 1)
        .filter(|&size| {
            let m = size.min(after.len());
            kinds[d + 1 - size..][..m] == after[..m]
        })
        .nth(k - 1)
}

/// How many zero bytes the input ends with inside its last draw, when that
/// is an integer read little-endian: a short read zero-fills them, so the
/// value stays the same without them.
fn zero_tail(tc: &TestCase) -> usize {
    let last = tc.draws.iter().filter(|d| !d.span.is_empty()).max_by_key(|d| d.span.end);
    match last {
        Some(d) if d.ends_input_zero_filled(tc.len()) => {
            tc.bytes[d.span.clone()].iter().rev().take_while(|&&b| b == 0).count()
        }
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::super::one_pass::{run, u64_list, u64_oracle};
    use super::{aligned, DrawKind};
    use crate::reduce::Verdict;

    fn x_then_y(input: &[u8]) -> Verdict {
        let x = input.iter().position(|&b| b == b'X');
        Verdict::from_bool(x.is_some_and(|x| input[x..].contains(&b'Y')))
    }

    #[test]
    fn deletes_everything_but_the_needed_bytes() {
        assert_eq!(run("delete-blocks", b"aaXbbbbbbbbbbbbbbbbbbbbbYcc", x_then_y), b"XY");
    }

    #[test]
    fn keeps_an_input_where_every_byte_is_needed() {
        assert_eq!(run("delete-blocks", b"XY", x_then_y), b"XY");
    }

    /// On a `Vec<u64>` (draws alone), blocks are whole draws: the same
    /// result as the byte sweep, in fewer tests.
    #[test]
    fn on_draws_alone_deletes_whole_draws() {
        let input: Vec<u8> = (1..=3u8).flat_map(|v| [1, v, 9, 9, 9, 9, 9, 9, 9]).collect();
        let mut tests = [0, 0];
        let mut result = Vec::new();
        for (with_draws, tests) in [true, false].into_iter().zip(&mut tests) {
            let oracle = |candidate: &[u8]| {
                *tests += 1;
                let (values, draws) = u64_list(candidate);
                let examples = if with_draws { draws } else { Vec::new() };
                if values.len() >= 2 {
                    Verdict::Interesting(examples)
                } else {
                    Verdict::Boring
                }
            };
            result.push(run("delete-blocks", &input, oracle));
        }
        assert_eq!(result[0], [1, 1, 9, 9, 9, 9, 9, 9, 9, 1], "the first value, then a flag");
        assert_eq!(result[0], result[1]);
        assert!(tests[0] < tests[1], "{tests:?}");
    }

    /// A flag or a value deleted alone would make the values after it read
    /// from the wrong bytes: only whole elements go, and the tail.
    #[test]
    fn on_draws_alone_deletes_only_blocks_the_draws_after_can_follow() {
        let (flag, value) = (DrawKind::Int { width: 1 }, DrawKind::Int { width: 8 });
        let kinds = [flag, value, flag, value, flag, value];
        assert_eq!(aligned(&kinds, 1, 1), Some(2), "a value alone: no; its element: yes");
        assert_eq!(aligned(&kinds, 2, 1), Some(2), "a flag with the value before it");
        assert_eq!(aligned(&kinds, 3, 2), Some(4), "two elements");
        assert_eq!(aligned(&kinds, 5, 1), Some(1), "the last value alone: nothing reads after it");
        assert_eq!(aligned(&kinds, 0, 1), None, "the first flag alone");
        let mut tests = 0;
        let input = [1, 0x39, 0xd8, 0x64, 0x41, 0x99, 0xc0, 0xe5, 0xbd];
        let oracle = u64_oracle(&mut tests, |values| values.iter().map(|&v| u128::from(v)).sum::<u128>() >= 3);
        assert_eq!(run("delete-blocks", &input, oracle), input, "the flag's deletion (0x39 as a flag) is not tried");
        assert_eq!(tests, 2, "the initial run, then [0]");
    }

    /// `[3]` needs only the value's first byte: a short read zero-fills
    /// the rest, so the tail goes byte by byte where a whole draw cannot.
    #[test]
    fn on_draws_alone_deletes_the_zero_tail_of_the_last_value() {
        let mut tests = 0;
        let oracle = u64_oracle(&mut tests, |values| values.iter().map(|&v| u128::from(v)).sum::<u128>() >= 3);
        assert_eq!(run("delete-blocks", &[1, 3, 0, 0, 0], oracle), [1, 3]);
    }

    /// A repeat that goes only whole (no single byte can): every block is tried.
    #[test]
    fn every_block_deletes_a_repeat_no_single_byte_deletion_reaches() {
        let repeats = |input: &[u8]| {
            let inner = input.strip_prefix(b"RX").and_then(|rest| rest.strip_suffix(b"B_B_B_"));
            Verdict::from_bool(
                inner.is_some_and(|inner| inner.len() % 5 == 0 && inner.chunks(5).all(|c| c == b"B_B_X")),
            )
        };
        assert_eq!(run("delete-blocks", b"RXB_B_XB_B_XB_B_B_", repeats), b"RXB_B_XB_B_XB_B_B_");
        assert_eq!(run("delete-every-block", b"RXB_B_XB_B_XB_B_B_", repeats), b"RXB_B_B_");
    }
}
