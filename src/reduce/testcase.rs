//! Test cases: bytes plus the examples recorded when they last ran, the shortlex order, and byte-splicing helpers.

use std::cmp::Ordering;
use std::ops::Range;
use std::sync::Arc;

use super::draws::{draws_of, Draw, DrawKind, DRAW_LABEL};

/// The label prefix of a span read from the draws' call chains
/// (`exec::forkserver::calls`): a value built by hand, not a derived one.
pub const CALL_LABEL: &str = "call:";

/// The name of the type an example was built as (for `arbitrary`, `std::any::type_name`).
pub type Label = Arc<str>;

/// One value read from the input while the target ran.
///
/// `arbitrary` reads most bytes from the front of its data and collection or
/// string lengths from the back, so a value owns two intervals of the input: the
/// bytes its reads advanced over from the start (`front`) and those taken from the
/// end (`back`). Both are absolute byte offsets into the test case; either may be
/// empty. Examples nest: a value's children lie inside its spans and have a larger
/// `depth`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Example {
    /// Bytes consumed from the start of the remaining data.
    pub front: Range<usize>,
    /// Bytes consumed from the end of the remaining data.
    pub back: Range<usize>,
    /// What was being built (a type name).
    pub label: Label,
    /// Nesting depth; the top-level value has depth 0.
    pub depth: u32,
}

impl Example {
    /// An example from its front and back spans.
    pub fn new(front: Range<usize>, back: Range<usize>, label: impl Into<Label>, depth: u32) -> Self {
        Example { front, back, label: label.into(), depth }
    }

    /// How many bytes the example covers, front and back together.
    pub fn len(&self) -> usize {
        self.front.len() + self.back.len()
    }

    /// Whether the example covers no bytes at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The example's bytes, front span then back span.
    pub fn content(&self, bytes: &[u8]) -> Vec<u8> {
        let mut content = bytes[self.front.clone()].to_vec();
        content.extend_from_slice(&bytes[self.back.clone()]);
        content
    }

    fn fits(&self, len: usize) -> bool {
        self.front.start <= self.front.end
            && self.front.end <= len
            && self.back.start <= self.back.end
            && self.back.end <= len
    }
}

/// A candidate input together with what it was recorded to contain.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TestCase {
    /// The input bytes.
    pub bytes: Vec<u8>,
    /// Examples in preorder (sorted by front start, parents before children);
    /// draws are not among them.
    pub examples: Vec<Example>,
    /// The primitive reads (`draw:*` examples), in the order they were made.
    pub draws: Vec<Draw>,
    /// The spans of string contents (`draw:bytes` reads), sorted: their
    /// bytes compare as characters ([`super::text`]).
    pub text: Vec<Range<usize>>,
    /// For each example, the draws read while it was built (indices into
    /// `draws`; empty when the recording did not say: [`draw_ranges`]).
    pub draw_ranges: Vec<Range<usize>>,
    /// `parents[i]` is the index of the smallest example enclosing example `i`.
    parents: Vec<Option<usize>>,
    /// Each parent's direct children in input order (top-level examples first).
    groups: Vec<Vec<usize>>,
    /// For each example, its group and its position there.
    place: Vec<(usize, usize)>,
    /// Whether an example other than a call span was recorded ([`TestCase::derived`]).
    derived: bool,
}

impl TestCase {
    /// Builds a test case, dropping examples that do not fit the bytes and
    /// putting the rest in preorder.
    pub fn new(bytes: Vec<u8>, mut examples: Vec<Example>) -> Self {
        examples.retain(|e| e.fits(bytes.len()));
        let draws = draws_of(&examples);
        let text = text_spans(&draws);
        let (examples, draw_ranges) = preorder(examples);
        let mut parents = Vec::with_capacity(examples.len());
        let mut stack: Vec<usize> = Vec::new();
        for (i, e) in examples.iter().enumerate() {
            while let Some(&top) = stack.last() {
                if examples[top].depth < e.depth {
                    break;
                }
                stack.pop();
            }
            parents.push(stack.last().copied());
            stack.push(i);
        }
        // Group 0 holds the top level; group `g(p)` the children of `p`.
        let mut group_of_parent: Vec<Option<usize>> = vec![None; examples.len()];
        let mut groups: Vec<Vec<usize>> = vec![Vec::new()];
        let mut place = Vec::with_capacity(examples.len());
        for (i, parent) in parents.iter().enumerate() {
            let g = match parent {
                None => 0,
                Some(p) => *group_of_parent[*p].get_or_insert_with(|| {
                    groups.push(Vec::new());
                    groups.len() - 1
                }),
            };
            place.push((g, groups[g].len()));
            groups[g].push(i);
        }
        if groups[0].is_empty() {
            groups.remove(0);
            place.iter_mut().for_each(|(g, _)| *g -= 1);
        }
        let derived = examples.iter().any(|e| !e.label.starts_with(CALL_LABEL));
        TestCase { bytes, examples, draws, text, draw_ranges, parents, groups, place, derived }
    }

    /// The input length.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether draws alone describe it: primitive reads recorded, no derived
    /// value (a `Vec<u64>`; the spans of a value built by hand, `call:`
    /// examples, are not derived values). Byte-format guesses (length
    /// fields, chunks) have nothing to find there that the draw passes miss.
    pub fn draws_only(&self) -> bool {
        !self.derived() && !self.draws.is_empty()
    }

    /// Whether a derived value was recorded: an example other than the
    /// spans the call chains give (decision 0099). Found once, in [`TestCase::new`]:
    /// the shrinker asks it for every candidate.
    pub fn derived(&self) -> bool {
        self.derived
    }

    /// Whether nothing typed was recorded, no example and no draw: raw
    /// bytes (a `&[u8]` target, `--exec`, `--no-structure`).
    pub fn untyped(&self) -> bool {
        self.examples.is_empty() && self.draws.is_empty()
    }

    /// Per byte, whether its value is left to a pass that lowers it by what it
    /// means rather than byte by byte. A byte of a number on an input that
    /// draws alone describe: `lower-draws` lowers the number by value (zero,
    /// one, half, one less), and a byte of a `u64` zeroed or one less is only
    /// another value, a guess that pays as often as any other where the bug is
    /// a hash of the list and never where it is not (decision 0023). And a
    /// character of a string: `lower-chars` lowers it toward `'0'`, where byte
    /// lowering goes toward NUL and tried the same characters again.
    pub fn lowered_by_value(&self) -> Vec<bool> {
        let mut mask = vec![false; self.len()];
        if self.draws_only() {
            for d in self.draws.iter().filter(|d| d.is_numeric()) {
                mask.get_mut(d.span.clone()).into_iter().flatten().for_each(|m| *m = true);
            }
        }
        for span in &self.text {
            mask.get_mut(span.clone()).into_iter().flatten().for_each(|m| *m = true);
        }
        mask
    }

    /// Whether the input is empty.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The enclosing example of example `i`, if any.
    pub fn parent(&self, i: usize) -> Option<usize> {
        self.parents[i]
    }

    /// Indices of the examples sharing example `i`'s parent, in input order.
    pub fn siblings(&self, i: usize) -> &[usize] {
        &self.groups[self.place[i].0]
    }

    /// Example `i`'s position among its siblings.
    pub fn sibling_position(&self, i: usize) -> usize {
        self.place[i].1
    }

    /// Groups of siblings: for each parent (and the top level), its direct children in order.
    pub fn sibling_groups(&self) -> &[Vec<usize>] {
        &self.groups
    }

    /// The bytes before example `i`'s front span that belong to neither it nor an
    /// earlier sibling: where a collection keeps its "one more element" byte.
    pub fn gap_before(&self, i: usize) -> Range<usize> {
        let start = self.examples[i].front.start;
        let (group, pos) = self.place[i];
        let lower = if pos > 0 {
            self.examples[self.groups[group][pos - 1]].front.end
        } else {
            self.parent(i).map_or(0, |p| self.examples[p].front.start)
        };
        lower.min(start)..start
    }
}

/// The examples that are not draws, in preorder, each with its draws.
fn preorder(examples: Vec<Example>) -> (Vec<Example>, Vec<Range<usize>>) {
    let ranges = draw_ranges(&examples);
    let mut ranged: Vec<(Example, Range<usize>)> =
        examples.into_iter().zip(ranges).filter(|(e, _)| !e.label.starts_with(DRAW_LABEL)).collect();
    // Stable: equal keys keep the recording order.
    ranged.sort_by_key(|(e, _)| (e.front.start, e.depth));
    ranged.into_iter().unzip()
}

/// For each example in recording order, the draws recorded while it was
/// open. The harness records a value when it starts building it, before its
/// children, so a derived value's draws are those recorded after it until an
/// example no deeper than it comes (a draw's own range is itself).
fn draw_ranges(examples: &[Example]) -> Vec<Range<usize>> {
    let mut ranges = vec![0..0; examples.len()];
    let (mut count, mut open): (usize, Vec<usize>) = (0, Vec::new());
    for (i, e) in examples.iter().enumerate() {
        while let Some(&top) = open.last().filter(|&&top| examples[top].depth >= e.depth) {
            ranges[top].end = count;
            open.pop();
        }
        ranges[i] = count..count;
        if e.label.starts_with(DRAW_LABEL) {
            count += usize::from(Draw::of(e).is_some());
            ranges[i].end = count;
        } else {
            open.push(i);
        }
    }
    open.into_iter().for_each(|top| ranges[top].end = count);
    ranges
}

/// The non-empty contents spans among `draws`, sorted and disjoint.
fn text_spans(draws: &[Draw]) -> Vec<Range<usize>> {
    let mut spans: Vec<Range<usize>> =
        draws.iter().filter(|d| d.kind == DrawKind::Bytes && !d.span.is_empty()).map(|d| d.span.clone()).collect();
    spans.sort_by_key(|s| s.start);
    spans.dedup_by(|next, kept| next.start < kept.end);
    spans
}

/// Shortlex: shorter is better, then lexicographically smaller.
pub fn shortlex(a: &[u8], b: &[u8]) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

/// Whether `a` is strictly better than `b` in the shortlex order.
pub fn better(a: &[u8], b: &[u8]) -> bool {
    shortlex(a, b) == Ordering::Less
}

/// A copy of `bytes` without `range`.
pub fn delete_range(bytes: &[u8], range: Range<usize>) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() - range.len());
    out.extend_from_slice(&bytes[..range.start]);
    out.extend_from_slice(&bytes[range.end..]);
    out
}

/// A copy of `bytes` with the given ranges removed. Ranges may overlap or be unsorted.
pub fn delete_ranges(bytes: &[u8], ranges: &[Range<usize>]) -> Vec<u8> {
    let edits: Vec<(Range<usize>, &[u8])> = ranges.iter().map(|r| (r.clone(), &[][..])).collect();
    replace_ranges(bytes, &edits)
}

/// A copy of `bytes` with each range replaced by its new contents.
///
/// Overlapping ranges are merged into their union, whose replacement is the
/// concatenation of the replacements (only sensible for deletions, which is the
/// only case where callers overlap).
pub fn replace_ranges(bytes: &[u8], edits: &[(Range<usize>, &[u8])]) -> Vec<u8> {
    let mut edits: Vec<&(Range<usize>, &[u8])> =
        edits.iter().filter(|(r, new)| !r.is_empty() || !new.is_empty()).collect();
    edits.sort_by_key(|(r, _)| (r.start, r.end));
    let mut out = Vec::with_capacity(bytes.len());
    let mut pos = 0;
    for (range, new) in edits {
        let start = range.start.clamp(pos, bytes.len());
        let end = range.end.clamp(start, bytes.len());
        out.extend_from_slice(&bytes[pos..start]);
        out.extend_from_slice(new);
        pos = pos.max(end);
    }
    out.extend_from_slice(&bytes[pos.min(bytes.len())..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(front: Range<usize>, back: Range<usize>, depth: u32) -> Example {
        Example::new(front, back, "T", depth)
    }

    #[test]
    fn spans_of_a_value_built_by_hand_leave_an_input_to_the_draw_passes() {
        let draw = |i: usize| Example::new(i..i + 1, 4..4, "draw:le:1", 1);
        let span = Example::new(0..2, 4..4, "call:0000abcd", 0);
        let by_hand = TestCase::new(vec![1, 2, 3, 4], vec![span.clone(), draw(0), draw(1), draw(2)]);
        assert!(by_hand.draws_only() && !by_hand.derived(), "spans are no derived value");
        assert_eq!(by_hand.examples.len(), 1, "but examples for the example passes");
        let derived = Example::new(0..2, 4..4, "demo::Op", 0);
        let typed = TestCase::new(vec![1, 2, 3, 4], vec![derived, draw(0), draw(1), draw(2)]);
        assert!(typed.derived() && !typed.draws_only());
    }

    #[test]
    fn shortlex_prefers_shorter_then_smaller() {
        assert!(better(b"zz", b"aaa"));
        assert!(better(b"ab", b"ac"));
        assert!(!better(b"ab", b"ab"));
        assert!(!better(b"abcd", b"abc"));
    }

    #[test]
    fn parents_follow_depth_in_preorder() {
        let tc = TestCase::new(
            vec![0; 10],
            vec![ex(0..8, 8..10, 0), ex(1..3, 9..10, 1), ex(3..5, 8..9, 1), ex(3..4, 5..5, 2)],
        );
        assert_eq!(tc.parent(0), None);
        assert_eq!(tc.parent(1), Some(0));
        assert_eq!(tc.parent(2), Some(0));
        assert_eq!(tc.parent(3), Some(2));
        assert_eq!(tc.siblings(1), [1, 2]);
        assert_eq!(tc.sibling_groups(), vec![vec![0], vec![1, 2], vec![3]]);
        assert_eq!(tc.gap_before(2), 3..3);
        assert_eq!(tc.gap_before(1), 0..1);
    }

    #[test]
    fn each_example_knows_the_draws_recorded_while_it_was_open() {
        // Recorded as the harness records: a value before its reads.
        let draw = |at: usize, depth| Example::new(at..at + 1, 6..6, "draw:le:1", depth);
        let recorded = vec![ex(0..6, 6..6, 0), draw(0, 1), ex(1..3, 6..6, 1), draw(1, 2), draw(2, 2), draw(3, 1)];
        let tc = TestCase::new(vec![0; 6], recorded);
        assert_eq!(tc.draws.len(), 4);
        assert_eq!(tc.draw_ranges, vec![0..4, 1..3]);
    }

    #[test]
    fn examples_outside_the_input_are_dropped() {
        let tc = TestCase::new(vec![0; 4], vec![ex(0..5, 4..4, 0), ex(0..2, 3..4, 0)]);
        assert_eq!(tc.examples, vec![ex(0..2, 3..4, 0)]);
    }

    #[test]
    fn ranges_are_deleted_and_replaced() {
        assert_eq!(delete_ranges(b"abcdef", &[4..5, 0..2]), b"cdf");
        assert_eq!(delete_ranges(b"abcdef", &[1..4, 2..5]), b"af");
        assert_eq!(replace_ranges(b"abcdef", &[(4..6, b"X"), (0..1, b"YZ")]), b"YZbcdX");
        assert_eq!(replace_ranges(b"abc", &[(3..3, b"!")]), b"abc!");
    }
}
