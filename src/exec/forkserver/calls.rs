//! Spans of values built by hand, read from the frames each draw was drawn under (issue 48).
//!
//! A target that builds its value through an `Unstructured` itself (a
//! generator such as wasm-smith) records draws and no derived value: nothing
//! says where an instruction or a function begins. The harness records,
//! for each draw, its call chain (`crates/runtime/src/calls.rs`): for each
//! frame, the outermost first, a hash of the frame's instance and one of its
//! call site. Consecutive draws in one instance of a function share its
//! frame, so a frame is a span: from the first draw under it to the last.
//!
//! A function called again from the same place, or a loop's next turn,
//! often has the very frame of the last: the chain is the same. So a frame
//! is ended where a draw comes whose chain from that frame down is the
//! chain its first draw had (the same call site drawing again: a new
//! element), the outermost such frame first. Each turn of a `while
//! u.arbitrary()?` loop is then a span of its own, as is each call of a
//! function that draws at once.
//!
//! Only spans of two draws or more are kept, one of each set of equal
//! spans (the outermost), and none that holds every draw. A span is an
//! example labelled `call:<site>` (instances called from one place share
//! a label), recorded before its first draw, as the harness records a
//! derived value.

use std::ops::Range;

use crate::reduce::Example;

/// One frame open over the draws so far.
struct Open {
    instance: u32,
    site: u32,
    /// The hash of the chain from this frame down, at its first draw.
    first_suffix: u64,
    /// Its first draw.
    first: usize,
}

/// A frame's span of draws, and its call site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Span {
    pub(super) draws: Range<usize>,
    pub(super) site: u32,
}

/// The spans of `chains` (one per draw, in drawing order), nested, each of
/// two draws or more, each once, none of every draw; sorted by first draw,
/// the outermost first.
pub(super) fn spans(chains: &[&[(u32, u32)]]) -> Vec<Span> {
    let mut open: Vec<Open> = Vec::new();
    let mut found = Vec::new();
    for (k, chain) in chains.iter().enumerate() {
        let suffixes = suffix_hashes(chain);
        let common = open.iter().zip(chain.iter()).take_while(|(o, frame)| o.instance == frame.0).count();
        let restart = (0..common).find(|&i| open[i].first_suffix == suffixes[i]);
        close(&mut open, restart.unwrap_or(common), k, &mut found);
        for (level, frame) in chain.iter().enumerate().skip(open.len()) {
            open.push(Open { instance: frame.0, site: frame.1, first_suffix: suffixes[level], first: k });
        }
    }
    close(&mut open, 0, chains.len(), &mut found);
    found.retain(|s| s.draws.len() >= 2 && s.draws.len() < chains.len());
    // Outermost first among equal starts: the longer span.
    found.sort_by_key(|s| (s.draws.start, std::cmp::Reverse(s.draws.end)));
    found.dedup_by(|inner, outer| inner.draws == outer.draws);
    found
}

/// Ends the frames from `level` on at draw `end`.
fn close(open: &mut Vec<Open>, level: usize, end: usize, found: &mut Vec<Span>) {
    while open.len() > level {
        let o = open.pop().expect("longer than level");
        found.push(Span { draws: o.first..end, site: o.site });
    }
}

/// For each level of `chain`, a hash of the instances from it to the innermost.
fn suffix_hashes(chain: &[(u32, u32)]) -> Vec<u64> {
    let mut hashes = vec![0u64; chain.len()];
    let mut acc = 0xcbf2_9ce4_8422_2325u64;
    for (i, frame) in chain.iter().enumerate().rev() {
        acc = (acc ^ u64::from(frame.0)).wrapping_mul(0x0100_0000_01b3).rotate_left(17);
        hashes[i] = acc;
    }
    hashes
}

/// `draws` (the recorded draw examples, in drawing order) with the spans
/// of `chains` (each draw's, in the same order) among them: each span an
/// example before its first draw, each draw one level deeper for each span
/// it is in, so that the order and depths read as a derived value's.
pub(super) fn with_spans(draws: Vec<Example>, chains: &[&[(u32, u32)]]) -> Vec<Example> {
    let spans = spans(chains);
    // Each span's example first (it reads the draws' ranges), so the draws
    // themselves can then move into the result.
    let span_examples: Vec<(Range<usize>, Example)> =
        spans.iter().map(|s| (s.draws.clone(), span_example(&draws[s.draws.clone()], s.site))).collect();
    let mut span_examples = span_examples.into_iter().peekable();
    let mut out = Vec::with_capacity(draws.len() + spans.len());
    let mut ends: Vec<usize> = Vec::new();
    for (k, mut draw) in draws.into_iter().enumerate() {
        while ends.last().is_some_and(|&end| end <= k) {
            ends.pop();
        }
        while let Some((range, mut example)) = span_examples.next_if(|(r, _)| r.start == k) {
            example.depth = ends.len() as u32;
            out.push(example);
            ends.push(range.end);
        }
        draw.depth = ends.len() as u32;
        out.push(draw);
    }
    out
}

/// The example of a span over `draws`: its front from the first front read
/// to the last, its back likewise (empty where it read none); its depth is
/// set where it is placed.
fn span_example(draws: &[Example], site: u32) -> Example {
    let cover = |ranges: Vec<&Range<usize>>, at: usize| {
        let start = ranges.iter().map(|r| r.start).min().unwrap_or(at);
        start..ranges.iter().map(|r| r.end).max().unwrap_or(at)
    };
    let front = cover(draws.iter().map(|d| &d.front).filter(|r| !r.is_empty()).collect(), draws[0].front.start);
    let back = cover(draws.iter().map(|d| &d.back).filter(|r| !r.is_empty()).collect(), draws[0].back.start);
    Example::new(front, back, format!("{}{site:08x}", crate::reduce::CALL_LABEL), 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A generator's draws: `module` draws a count, then for each of two
    /// functions `body` draws a flag and, while it reads true, a tag; the
    /// second function's second instruction is a block, a `body` one frame
    /// deeper. Frames: (instance, site); the innermost is the draw's own
    /// call, from the flag's place or the tag's; a loop's turns, and the
    /// second call of `body`, have every frame of the first.
    fn generator_chains() -> Vec<Vec<(u32, u32)>> {
        let (module, body, inner) = ((1, 100), (2, 200), (3, 200));
        let (count, flag, tag) = ((7, 700), (9, 900), (8, 800));
        let c = |frames: &[(u32, u32)]| frames.to_vec();
        vec![
            c(&[module, count]),
            // function 1: flag, tag, flag, tag, flag (false)
            c(&[module, body, flag]),
            c(&[module, body, tag]),
            c(&[module, body, flag]),
            c(&[module, body, tag]),
            c(&[module, body, flag]),
            // function 2: flag, tag (a block: flag, tag, flag false), flag false
            c(&[module, body, flag]),
            c(&[module, body, tag]),
            c(&[module, body, inner, flag]),
            c(&[module, body, inner, tag]),
            c(&[module, body, inner, flag]),
            c(&[module, body, flag]),
        ]
    }

    #[test]
    fn each_turn_of_a_loop_is_a_span_and_a_block_nests_in_its_turn() {
        let chains = generator_chains();
        let views: Vec<&[(u32, u32)]> = chains.iter().map(Vec::as_slice).collect();
        let found: Vec<Range<usize>> = spans(&views).into_iter().map(|s| s.draws).collect();
        // A flag drawn from the place a frame's first draw came from ends
        // the frame: each turn (flag, tag) is a span, the block's turn holds
        // the inner turn; the count, the false flags and the whole are not.
        assert_eq!(found, [1..3, 3..5, 6..11, 8..10]);
    }

    #[test]
    fn spans_become_examples_before_their_first_draw_with_the_draws_one_deeper() {
        let draw = |i: usize| Example::new(i..i + 1, 20..20, "draw:le:1", 0);
        let chains = [vec![(1, 1), (2, 2), (9, 9)], vec![(1, 1), (2, 2), (8, 8)], vec![(1, 1), (3, 3), (9, 9)]];
        let views: Vec<&[(u32, u32)]> = chains.iter().map(Vec::as_slice).collect();
        let out = with_spans((0..3).map(draw).collect(), &views);
        let shown: Vec<(Range<usize>, &str, u32)> = out.iter().map(|e| (e.front.clone(), &*e.label, e.depth)).collect();
        assert_eq!(
            shown,
            [(0..2, "call:00000002", 0), (0..1, "draw:le:1", 1), (1..2, "draw:le:1", 1), (2..3, "draw:le:1", 0)]
        );
    }
}
