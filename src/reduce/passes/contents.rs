//! String and byte-vector contents: delete bytes inside them while rewriting the length `arbitrary` read for them from the back, or none for contents read to the end.
//!
//! `arbitrary` reads a `String`, `&str` or `Vec<u8>` as a length (a draw from
//! the back of the input) followed by that many bytes from the front. A byte
//! of the contents can only go if the length goes down in the same move, and
//! the two are far apart, so no deletion of a span does it; this pass does.

use std::ops::Range;

use super::super::choice::Chooser;
use super::super::draws::{Draw, DrawKind};
use super::super::shrinker::{Shrinker, StepResult};
use super::super::tape::{self, Read, View};
use super::super::testcase::{replace_ranges, TestCase};
use super::grow;

/// Chooses contents read right after their length (a `len` draw then a
/// `bytes` draw), the last first, and an end (the back first), then deletes
/// the most bytes at that end that stay interesting, writing the length
/// each time as the bytes left.
pub(crate) fn step(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let tc = sh.shared();
    let pairs: Vec<usize> =
        contents(&tc.draws).filter(|&i| !tc.draws[i].span.is_empty() && tc.draws[i - 1].span.len() <= 8).collect();
    let i = pairs[chooser.choose(pairs.len(), |_| true)?];
    let (len, contents) = (&tc.draws[i - 1], &tc.draws[i]);
    let from_back = chooser.choose(2, |_| true)? == 1;
    let size = contents.span.len();
    let text = std::str::from_utf8(&tc.bytes[contents.span.clone()]).ok();
    grow(sh, |k| {
        let k = whole_chars(text, k, from_back);
        if k > size {
            return None;
        }
        let cut = if from_back {
            contents.span.end - k..contents.span.end
        } else {
            contents.span.start..contents.span.start + k
        };
        let written = len.encode((size - k) as u128);
        Some(replace_ranges(&tc.bytes, &[(cut, &[]), (len.span.clone(), &written)]))
    })?;
    Ok(())
}

/// Chooses contents (the last first) on an input that draws alone describe
/// (`&str`, `Vec<String>`) and an index in them (from the end down), and
/// deletes the largest block ending there that stays interesting, in whole
/// characters when they are UTF-8, writing their length in its own field
/// when one was read for them. Contents read to the end
/// (`arbitrary_take_rest`'s `&str`) have no length to write: a `|s: &str|`
/// target's string lost no character to any other pass but lowering
/// (decision 0089).
pub(crate) fn delete_inside(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    delete_inside_where(sh, chooser, true)
}

/// [`delete_inside`] on an input with derived values: the cut is made on
/// the reads and the input written anew in the shortest encoding, so no
/// length around it reads otherwise. Last of the shrink tier, once whole
/// values and variants had their turn: a string an element deletion takes
/// whole is not shortened first (decision 0094).
pub(crate) fn delete_inside_values(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    delete_inside_where(sh, chooser, false)
}

/// The step of [`delete_inside`] (`draws_only`) or [`delete_inside_values`].
fn delete_inside_where(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>, draws_only: bool) -> StepResult {
    let tc = sh.shared();
    let draws = &tc.draws;
    let read_to_end = draws.len().checked_sub(1).filter(|&i| draws[i].kind == DrawKind::Bytes && tc.draws_only());
    let mut targets: Vec<usize> = contents(draws).chain(read_to_end).filter(|&i| !draws[i].span.is_empty()).collect();
    targets.dedup();
    let reads = if tc.draws_only() { None } else { sh.reads() };
    if tc.draws_only() != draws_only || (!draws_only && reads.is_none()) {
        targets.clear();
    }
    let t = chooser.choose(targets.len(), |_| true)?;
    let i = targets[t];
    let len = contents(draws).any(|c| c == i).then(|| &draws[i - 1]);
    let span = draws[i].span.clone();
    let units = Units::of(&tc.bytes[span.clone()]);
    // An end whose unit the next one repeats: deleting either gives the same bytes.
    let j = chooser.choose(units.count(), |j| !units.repeats(j))?;
    let kinds: Vec<DrawKind> = draws.iter().map(|d| d.kind).collect();
    let deleted = grow(sh, |k| {
        let cut = units.block(j, k)?;
        match &reads {
            Some(reads) => on_reads(reads, &kinds, i, cut),
            None => {
                let cut = span.start + cut.start..span.start + cut.end;
                let mut edits: Vec<(Range<usize>, &[u8])> = vec![(cut.clone(), &[])];
                let written = len.map(|len| len.encode((span.len() - cut.len()) as u128));
                edits.extend(len.zip(written.as_deref()).map(|(len, written)| (len.span.clone(), written)));
                Some(replace_ranges(&tc.bytes, &edits))
            }
        }
    })?;
    if deleted > 0 {
        chooser.resume_at(vec![t, (j + 1 - deleted).checked_sub(1).unwrap_or(usize::MAX)]);
    }
    Ok(())
}

/// `reads` with `cut` (a range inside contents read `i`, whose length is
/// read `i - 1`) deleted and the length made the size left, in the fewest bytes.
fn on_reads(reads: &[Read], kinds: &[DrawKind], i: usize, cut: Range<usize>) -> Option<Vec<u8>> {
    let Read::Front(bytes) = &reads[i] else { return None };
    let mut left = bytes.clone();
    left.drain(cut);
    let mut edited = tape::views(reads);
    edited[i - 1] = View::Len(left.len() as u64);
    edited[i] = View::Front(&left);
    tape::write_shortest_views(edited, kinds)
}

/// Contents cut into the units a deletion takes whole: characters when they
/// are UTF-8 (cutting into one leaves bytes `arbitrary` stops the string
/// at), bytes otherwise. Unit `j` is `starts[j]..starts[j + 1]`.
struct Units<'a> {
    bytes: &'a [u8],
    starts: Vec<usize>,
}

impl<'a> Units<'a> {
    fn of(bytes: &'a [u8]) -> Self {
        let starts = match std::str::from_utf8(bytes) {
            Ok(text) => text.char_indices().map(|(i, _)| i).chain([bytes.len()]).collect(),
            Err(_) => (0..=bytes.len()).collect(),
        };
        Units { bytes, starts }
    }

    fn count(&self) -> usize {
        self.starts.len() - 1
    }

    fn unit(&self, j: usize) -> &[u8] {
        &self.bytes[self.starts[j]..self.starts[j + 1]]
    }

    fn repeats(&self, j: usize) -> bool {
        j + 1 < self.count() && self.unit(j) == self.unit(j + 1)
    }

    /// The bytes of the `k` units ending with unit `j`, if there are that many.
    fn block(&self, j: usize, k: usize) -> Option<Range<usize>> {
        (k <= j + 1).then(|| self.starts[j + 1 - k]..self.starts[j + 1])
    }
}

/// `k` bytes at one end of a string's contents, or more, to the next
/// character boundary: cutting into a character leaves bytes that are not
/// UTF-8, which `arbitrary` stops the string at (url 2.2.0's result kept
/// `"a://\u{80}"`: neither byte of the character could go alone). Raw
/// contents (`None`) take `k` as it is.
fn whole_chars(text: Option<&str>, k: usize, from_back: bool) -> usize {
    let Some(text) = text else { return k };
    let at = |k: usize| if from_back { text.len().checked_sub(k) } else { Some(k) };
    (k..=text.len()).find(|&k| at(k).is_some_and(|i| text.is_char_boundary(i))).unwrap_or(k)
}

/// Chooses contents read right after their length whose length draw is not
/// spelled as their size (`arbitrary` takes it modulo what is left: `1c`
/// reads as 4 with 6 bytes left) and writes the size there. Polish: the
/// length then says what it means.
pub(crate) fn exact_lengths(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let tc = sh.shared();
    let spelled: Vec<(Range<usize>, Vec<u8>)> = contents(&tc.draws).filter_map(|i| exact(&tc, i)).collect();
    let (span, bytes) = &spelled[chooser.choose(spelled.len(), |_| true)?];
    sh.consider(replace_ranges(&tc.bytes, &[(span.clone(), bytes)]))?;
    Ok(())
}

/// Spells every length read right after its contents' length, and read
/// larger than its size, as that size, in one candidate: `arbitrary` reads
/// a length modulo what is left, so a deletion further on changes how a raw
/// length before it decodes, and an element after the bug cannot go; spelled
/// exactly, a length reads the same after every deletion that leaves its
/// width alone.
pub(crate) fn spell_lengths(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    // A rewrite of the same size, so not where lowering is off: in the
    // corpus mode bytes are the cost (decision 0007).
    let lowering = sh.options().lowering;
    let tc = sh.shared();
    let spelled: Vec<(Range<usize>, Vec<u8>)> = contents(&tc.draws).filter_map(|i| exact(&tc, i)).collect();
    chooser.choose(usize::from(lowering && !spelled.is_empty()), |_| true)?;
    let edits: Vec<_> = spelled.iter().map(|(span, bytes)| (span.clone(), bytes.as_slice())).collect();
    sh.consider(replace_ranges(&tc.bytes, &edits))?;
    Ok(())
}

/// The length of contents `i` (draw `i - 1`) spelled as their size, when
/// it reads larger than that (`arbitrary` takes it modulo what is left) and
/// the size fits its field.
fn exact(tc: &TestCase, i: usize) -> Option<(Range<usize>, Vec<u8>)> {
    let (len, size) = (&tc.draws[i - 1], tc.draws[i].span.len() as u128);
    let spelled = len.encode(size);
    (len.value(&tc.bytes)? > size && spelled.len() == len.span.len()).then(|| (len.span.clone(), spelled))
}

/// The contents draws read right after their length (`draws[i - 1]` is
/// the length of `draws[i]`), by index.
fn contents(draws: &[Draw]) -> impl Iterator<Item = usize> + '_ {
    (1..draws.len()).filter(|&i| draws[i - 1].kind == DrawKind::Len && draws[i].kind == DrawKind::Bytes)
}

#[cfg(test)]
mod tests {
    use super::super::one_pass::run;
    use crate::reduce::{Example, Verdict};

    /// Decodes like `arbitrary` decodes a `String` from a short input: the
    /// last byte is the length (modulo what is left), then that many bytes
    /// from the front. Records both draws.
    fn string(input: &[u8]) -> (Vec<u8>, Vec<Example>) {
        let n = input.len();
        if n < 2 {
            return (Vec::new(), Vec::new());
        }
        let size = usize::from(input[n - 1]) % n;
        let examples = vec![Example::new(0..0, n - 1..n, "draw:len", 1), Example::new(0..size, n..n, "draw:bytes", 1)];
        (input[..size].to_vec(), examples)
    }

    #[test]
    fn spells_every_length_as_its_contents_size_in_one_test() {
        // "abc" with two bytes nobody reads after it: the length byte 9 reads
        // 3 (modulo the 6 bytes there are).
        let mut tests = 0;
        let oracle = |s: &[u8]| {
            tests += 1;
            let (text, examples) = string(s);
            if text == b"abc" {
                Verdict::Interesting(examples)
            } else {
                Verdict::Boring
            }
        };
        assert_eq!(run("spell-lengths", b"abcXY\x09", oracle), b"abcXY\x03");
        assert_eq!(tests, 2, "the input's own run, then one test");
    }

    /// A `|s: &str|` target's input: one string read to the end, no length.
    fn rest(input: &[u8]) -> Vec<Example> {
        vec![Example::new(0..input.len(), input.len()..input.len(), "draw:bytes", 1)]
    }

    #[test]
    fn deletes_inside_a_string_read_to_the_end_down_to_what_the_bug_needs() {
        let mut tests = 0;
        let oracle = |s: &[u8]| {
            tests += 1;
            let text = std::str::from_utf8(s).expect("characters are deleted whole");
            let braces = text.chars().filter(|&c| c == '}').count();
            if braces >= 3 && text.contains('x') {
                Verdict::Interesting(rest(s))
            } else {
                Verdict::Boring
            }
        };
        let input = "abc}dé}ghi}jkl x m\u{80}o pqr}}} stu vwx yz";
        let result = run("delete-in-contents", input.as_bytes(), oracle);
        assert_eq!(result.len(), 4, "{:?}", String::from_utf8_lossy(&result));
        assert!(tests < 3 * input.len(), "{tests} tests");
    }

    #[test]
    fn deletes_inside_contents_read_after_their_length_writing_the_length() {
        // "x" then "y" apart, in noise, with a tail nobody reads and the length last.
        let mut input = b"qqqxqqqqyqqq".to_vec();
        input.extend([7u8; 5]);
        input.push(12);
        let oracle = |s: &[u8]| {
            let (text, examples) = string(s);
            let x = text.iter().position(|&b| b == b'x');
            if x.is_some_and(|x| text[x..].contains(&b'y')) {
                Verdict::Interesting(examples)
            } else {
                Verdict::Boring
            }
        };
        let result = run("delete-in-contents", &input, oracle);
        assert_eq!(string(&result).0, b"xy", "{result:?}");
    }

    #[test]
    fn a_character_goes_whole_from_either_end() {
        let text = Some("a\u{80}b\u{e9}");
        assert_eq!(super::whole_chars(text, 1, true), 2, "é is two bytes");
        assert_eq!(super::whole_chars(text, 3, true), 3);
        assert_eq!(super::whole_chars(text, 2, false), 3, "\u{80} is two bytes");
        assert_eq!(super::whole_chars(None, 1, true), 1, "raw contents");
    }

    #[test]
    fn shrinks_a_string_to_what_the_bug_needs_with_its_length() {
        // The bug: the string contains "://". Around it, 40 bytes of noise and a
        // long tail nobody reads.
        let mut input: Vec<u8> = (0..20).map(|i| b'a' + i).collect();
        input.extend_from_slice(b"://");
        input.extend((0..20).map(|i| b'A' + i));
        let size = input.len() as u8;
        input.extend([7u8; 10]);
        input.push(size);
        let oracle = |s: &[u8]| {
            let (text, examples) = string(s);
            if text.windows(3).any(|w| w == b"://") {
                Verdict::Interesting(examples)
            } else {
                Verdict::Boring
            }
        };
        let result = run("shrink-contents", &input, oracle);
        assert!(result.starts_with(b"://") && result.ends_with(&[3]), "{result:?}");
    }
}
