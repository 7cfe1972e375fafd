//! Keep a header and a tail: once block deletion has cut what the target never read, what a crash needs most often is the input's last bytes (what the parser read last) behind a magic.
//!
//! A file of frames sized by a product of header fields (width by height
//! pixels) or by an opcode has no length field for `delete-records` to
//! read, and no chain of them is unlikely enough in random bytes to trust,
//! so the frames before the crashing one went a row or a byte at a time.
//! When the bug lives in the last frame alone, the input is the magic and
//! the last few bytes: tried directly, shortest first, behind no header
//! (tails up to 16 bytes) or the usual four-byte magic (`IMG1`, `RIFF`,
//! `%PDF`) with tails up to 128 bytes (decision 0010).

use super::super::choice::Chooser;
use super::super::shrinker::{Shrinker, StepResult};

/// The header lengths tried, each with the longest tail kept behind it.
const HEADS: [(usize, usize); 2] = [(0, 16), (4, 128)];

/// Below this size block and chunk deletion cover the same inputs.
const MIN_LEN: usize = 64;

/// Tries every header and tail, in order of their total length (the
/// header's length on ties), until one is interesting: one step, once a
/// reduction (on an input whose bug needs more than its ends the pairs cost
/// their tests once, not again each time lowering changed a tail byte).
pub(crate) fn step(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let tc = sh.shared();
    chooser.choose(usize::from(tc.untyped() && sh.pass_stats().tests == 0 && tc.len() >= MIN_LEN), |_| true)?;
    let candidates: Vec<Vec<u8>> = pairs()
        .into_iter()
        .take_while(|&(head, tail)| head + tail < tc.len())
        .map(|(head, tail)| [&tc.bytes[..head], &tc.bytes[tc.len() - tail..]].concat())
        .collect();
    for (i, candidate) in candidates.iter().enumerate() {
        // One step tries them all: the oracle tests the next ones at once.
        let width = sh.wants_prediction();
        if width > 0 {
            sh.hint(candidates[i..].iter().take(width).cloned().collect(), false);
        }
        if sh.consider(candidate.clone())? {
            break;
        }
    }
    Ok(())
}

/// Every (header, tail) pair, shortest first.
fn pairs() -> Vec<(usize, usize)> {
    let mut pairs: Vec<(usize, usize)> =
        HEADS.iter().flat_map(|&(head, max_tail)| (1..=max_tail).map(move |tail| (head, tail))).collect();
    pairs.sort_by_key(|&(head, tail)| (head + tail, head));
    pairs
}

#[cfg(test)]
mod tests {
    use super::super::one_pass::run;
    use crate::reduce::Verdict;

    /// A magic, frames of width, height and width by height pixels, each
    /// pixel below 0x80; interesting when a frame holds the pixel 0xEE.
    fn frame_with_ee(input: &[u8]) -> Verdict {
        let Some(mut rest) = input.strip_prefix(b"FRM1") else { return Verdict::Boring };
        while let [width, height, after @ ..] = rest {
            let Some(pixels) = after.get(..usize::from(*width) * usize::from(*height)) else {
                return Verdict::Boring;
            };
            if pixels.contains(&0xEE) {
                return Verdict::Interesting(Vec::new());
            }
            rest = &after[pixels.len()..];
        }
        Verdict::Boring
    }

    #[test]
    fn keeps_the_magic_and_the_last_frame() {
        let mut input = b"FRM1".to_vec();
        for i in 0..20u8 {
            let (width, height) = (i % 7 + 1, i % 5 + 2);
            input.extend([width, height]);
            input.extend((0..u16::from(width) * u16::from(height)).map(|p| (p as u8 ^ i) & 0x7F));
        }
        input.extend([1, 1, 0xEE]);
        let mut tests = 0;
        let counted = |input: &[u8]| {
            tests += 1;
            frame_with_ee(input)
        };
        assert_eq!(run("keep-ends", &input, counted), b"FRM1\x01\x01\xEE");
        assert!(tests <= 12, "{tests} tests");
    }

    #[test]
    fn tries_each_pair_once_where_the_bug_needs_more_than_the_ends() {
        let input: Vec<u8> = (0..200u8).collect();
        let mut tests = 0;
        let needs_byte_10 = |input: &[u8]| {
            tests += 1;
            Verdict::from_bool(input.contains(&10) && input.len() > 1)
        };
        run("keep-ends", &input, needs_byte_10);
        let pairs: usize = super::HEADS.iter().map(|&(_, max_tail)| max_tail).sum();
        assert_eq!(tests, 1 + pairs, "the initial run and every pair once");
    }

    /// Below the longest tail, only the pairs shorter than the input (byte 4
    /// is in none of them).
    #[test]
    fn on_a_short_input_tries_only_the_pairs_shorter_than_it() {
        let input: Vec<u8> = (0..super::MIN_LEN as u8).collect();
        let mut tests = 0;
        let needs_byte_4 = |input: &[u8]| {
            tests += 1;
            Verdict::from_bool(input.contains(&4) && input.len() > 1)
        };
        run("keep-ends", &input, needs_byte_4);
        assert_eq!(tests, 1 + 16 + (super::MIN_LEN - 4 - 1), "the initial run, 16 tails alone, 59 behind the magic");
    }
}
