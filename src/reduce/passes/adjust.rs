//! Deletion with a counter adjusted: remove a value read before a small number, or a loop's turn read after one, and lower that number by one in the same move.
//!
//! An index or a count often refers to the values read before it (`pick 2`
//! on a stack of two pushes): deleting one of them alone changes what the
//! number means, and lowering the number alone does too, so neither single
//! move keeps the bug. Together they do. A value built by hand reads a
//! count first and then that many turns of a loop (`for _ in
//! 0..u.int_in_range(0..=6)?`): there the turn after it goes with the
//! count (`delete-turns`).

use std::ops::Range;

use super::super::choice::Chooser;
use super::super::draws::{Draw, DrawKind};
use super::super::shrinker::{Halt, Shrinker, StepResult};
use super::super::testcase::{replace_ranges, TestCase};
use super::delete_examples::spans;

/// The largest value taken as a counter: an index into what a small input
/// builds, not a quantity.
const MAX_COUNTER: u128 = 64;

/// Chooses a numeric draw whose value is a small counter (1 to
/// [`MAX_COUNTER`]; integers and ranges, not lengths), the last first, then
/// an example that ends before it and does not contain it, the nearest
/// first; deletes the example (with the flag byte before it) and lowers the
/// counter by one. Only where derived values were recorded: a flat list of
/// numbers has no such references. Each choice is checked as the chooser
/// reaches it (a list of every counter, made at each step, cost three
/// quarters of the tool's time on an input of 800 draws and no example,
/// where no counter has an example before it).
pub(crate) fn step(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let tc = sh.shared();
    if tc.examples.is_empty() {
        return Err(Halt::Dead);
    }
    let counter = |i: usize| {
        let d: &Draw = &tc.draws[i];
        matches!(d.kind, DrawKind::Int { .. } | DrawKind::Range)
            && d.result(&tc.bytes).is_some_and(|v| (1..=MAX_COUNTER).contains(&v) && d.value_of(v - 1).is_some())
    };
    let draw = &tc.draws[chooser.choose(tc.draws.len(), counter)?];
    let at = draw.span.start;
    let example = chooser.choose(tc.examples.len(), |i| {
        let e = &tc.examples[i];
        !e.front.is_empty() && e.front.end <= at && !e.back.contains(&at)
    })?;
    let value = draw.result(&tc.bytes).expect("chosen for its value");
    let lowered = draw.encode_result(value - 1).expect("chosen for it");
    let mut edits: Vec<(std::ops::Range<usize>, &[u8])> =
        spans(&tc, example, true).into_iter().map(|r| (r, &[][..])).collect();
    if edits.iter().any(|(r, _)| r.start < draw.span.end && draw.span.start < r.end) {
        return Ok(());
    }
    edits.push((draw.span.clone(), &lowered));
    sh.consider(replace_ranges(&tc.bytes, &edits))?;
    Ok(())
}

/// Chooses a draw whose value counts the turns of a loop after it, the
/// last first, and deletes the last turn while lowering the count by one.
/// The items after it in the span of the function that drew it (a draw,
/// or a call under it taken whole) are read as that many turns of equal
/// shape (the same draw kinds and call sites in the same order), what
/// follows them left alone; a count of one is tried with a turn of one to
/// [`ONE_TURN`] items. Only on draws alone with the spans of the call
/// chains (decision 0099): without them no turn is known, and a derived
/// collection's elements go with their length already (`delete-examples`).
/// On wit-smith 0.214 a function's three parameters stayed where its
/// results were the bug: deleting a parameter's name and type left the
/// count reading the next result's, and lowering the count alone read a
/// name as a type.
pub(crate) fn delete_turns(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    delete_read_turns(sh, chooser, turns, false)
}

/// `delete-inner-turns`: as `delete-turns`, for a count whose exact value
/// (its range's bounds recorded) is more than the items after it, the last
/// turn read one call deeper ([`last_turns_inside`]). A count at its
/// range's end is also tried with a zero byte where the turn was: the
/// loop around it may have stopped at its own bound there without reading
/// its "one more" flag, which it reads once the count is lower (wasm-smith's
/// types: a group of as many as the module may still hold, then no flag).
/// A guarantee pass: such counts are few, and in the rounds `delete-turns`'
/// many readings used its failures before it reached them (decision 0118).
pub(crate) fn delete_inner_turns(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    delete_read_turns(sh, chooser, inner_turns, true)
}

/// Chooses a count that `read` finds turns after (the last first) and
/// deletes its last turn, each reading in turn, while lowering the count by
/// one; with `stop_at_bound`, a count at its range's end is tried again
/// with a zero byte in the turn's place.
fn delete_read_turns(
    sh: &mut Shrinker<'_>,
    chooser: &mut Chooser<'_>,
    read: fn(&TestCase, usize) -> Vec<Range<usize>>,
    stop_at_bound: bool,
) -> StepResult {
    let tc = sh.shared();
    if !tc.draws_only() || tc.examples.is_empty() {
        return Err(Halt::Dead);
    }
    let d = chooser.choose(tc.draws.len(), |d| !read(&tc, d).is_empty())?;
    let draw = &tc.draws[d];
    let value = draw.result(&tc.bytes).expect("chosen for its value");
    let lowered = draw.encode_result(value - 1).expect("chosen for it");
    let at_bound = stop_at_bound && draw.bounds.is_some_and(|b| value == b.start.wrapping_add(b.delta));
    for last in read(&tc, d) {
        let mut edits: Vec<(Range<usize>, &[u8])> =
            tc.draws[last.clone()].iter().map(|w| (w.span.clone(), &[][..])).collect();
        edits.push((tc.draws[d].span.clone(), &lowered));
        if sh.consider(replace_ranges(&tc.bytes, &edits))? {
            break;
        }
        if at_bound {
            let at = tc.draws[last.start].span.start;
            edits.push((at..at, &[0][..]));
            if sh.consider(replace_ranges(&tc.bytes, &edits))? {
                break;
            }
        }
    }
    Ok(())
}

/// The longest turn tried after a count of one.
const ONE_TURN: usize = 3;

/// The most readings of a count above one tried.
const READINGS: usize = 3;

/// The most items a turn is read as.
const MAX_TURN: usize = 16;

/// Draw `d` as a count of the turns after it: the draws of its last turn,
/// for each reading that fits (none when it is no count). Its result as
/// the count: with the range's bounds recorded, the exact count, read
/// first as turns of unequal shape ([`unequal_last_turn`]); then as turns
/// of equal shape. Without the bounds a range's value can be above the
/// range's size (the count is the value modulo the size, unknown), so
/// failing that, the most turns of equal shape that follow it, at most its
/// value (one turn: all that follows it in the span). Lowering the value
/// by one lowers such a count by one all the same.
fn turns(tc: &TestCase, d: usize) -> Vec<Range<usize>> {
    let draw = &tc.draws[d];
    let Some(value) = count_of(draw, &tc.bytes) else { return Vec::new() };
    let items = items_after(tc, d);
    let same = |a: usize, b: usize, k: usize| (0..k).all(|j| items[a + j].1 == items[b + j].1);
    let repeats = |k: usize| (1..).take_while(|&c| (c + 1) * k <= items.len() && same(0, c * k, k)).count() + 1;
    let longest = MAX_TURN.min(items.len());
    let readings: Vec<(usize, usize)> = match usize::try_from(value).ok().filter(|&c| c as u128 <= MAX_COUNTER) {
        Some(1) => (1..=ONE_TURN.min(items.len())).map(|k| (1, k)).collect(),
        Some(count) => {
            // Turns that end the span first (a loop is often its last
            // statement), then the shortest: two equal draws at a turn's
            // start also read as turns of one.
            let mut fits: Vec<usize> =
                (1..=longest).filter(|&k| count * k <= items.len() && repeats(k) >= count).collect();
            fits.sort_by_key(|&k| (count * k != items.len(), k));
            fits.into_iter().take(READINGS).map(|k| (count, k)).collect()
        }
        None => Vec::new(),
    };
    let readings = if readings.is_empty() {
        let cap = value.min(MAX_COUNTER) as usize;
        let mut most: Vec<(usize, usize)> =
            (1..=longest).map(|k| (repeats(k).min(cap), k)).filter(|&(c, _)| c >= 2).collect();
        most.sort_by_key(|&(c, k)| (c * k != items.len(), std::cmp::Reverse(c), k));
        most.truncate(READINGS);
        // One turn left: all that follows it (the loop's last statement).
        if most.is_empty() && !items.is_empty() {
            most.push((1, items.len()));
        }
        most
    } else {
        readings
    };
    let unequal = draw.bounds.and_then(|_| unequal_last_turn(tc, &items, usize::try_from(value).ok()?));
    let end = |n: usize| items.get(n).map_or_else(|| items.last().map_or(d + 1, |i| i.0.end), |i| i.0.start);
    // A turn of no bytes (calls that drew nothing, draws past the input's
    // end) would lower the count alone, by one a test: lowering's work.
    unequal
        .into_iter()
        .chain(readings.into_iter().map(|(count, k)| (count - 1) * k..count * k))
        .map(|turn| items[turn.start].0.start..end(turn.end))
        .filter(|turn| tc.draws[turn.clone()].iter().any(|w| !w.span.is_empty()))
        .collect()
}

/// The last of `count` turns of unequal shape (an instruction of one of
/// several kinds per turn): where the first item comes again (a draw of the
/// same kind, and the same bounds for a range), a turn opens; when exactly
/// `count` open, the last runs to the span's end. Only for a count read
/// with its range's bounds (decision 0106): an exact count, not the value
/// of bytes that may read above the range.
fn unequal_last_turn(tc: &TestCase, items: &[Item<'_>], count: usize) -> Option<Range<usize>> {
    let first = items.first()?;
    let bounds = |item: &Item<'_>| match item.1 {
        Shape::Draw(_) => tc.draws[item.0.start].bounds,
        Shape::Call(_) => None,
    };
    let opens: Vec<usize> =
        (0..items.len()).filter(|&j| items[j].1 == first.1 && bounds(&items[j]) == bounds(first)).collect();
    (count >= 2 && opens.len() == count).then(|| opens[count - 1]..items.len())
}

/// `draw`'s result in `bytes` as a count a turn can be taken from: a
/// number (an integer or a range) of one or more whose value one less has
/// a spelling in its span.
pub(super) fn count_of(draw: &Draw, bytes: &[u8]) -> Option<u128> {
    if !matches!(draw.kind, DrawKind::Int { .. } | DrawKind::Range) {
        return None;
    }
    draw.result(bytes).filter(|&v| v >= 1 && draw.value_of(v - 1).is_some())
}

/// Draw `d` as a count whose exact value (its bounds recorded) is more
/// than the items after it: the draws of its last turn, for each reading
/// of [`last_turns_inside`] that holds bytes.
fn inner_turns(tc: &TestCase, d: usize) -> Vec<Range<usize>> {
    let draw = &tc.draws[d];
    let exact = draw.bounds.and_then(|_| count_of(draw, &tc.bytes));
    let Some(count) = exact.and_then(|v| usize::try_from(v).ok()) else { return Vec::new() };
    let turns = last_turns_inside(tc, &items_after(tc, d), count);
    turns.into_iter().filter(|turn| tc.draws[turn.clone()].iter().any(|w| !w.span.is_empty())).collect()
}

/// The last turn of a loop whose exact `count` is more than the `items`
/// after it, read in the items one call deeper: runs of two or more at
/// their end that repeat the run before them, the shortest first, then
/// runs whose shape came earlier anywhere (a last turn of a kind the turn
/// before it was not), at most [`READINGS`]. A function called per turn
/// whose first draw differs between turns (wasm-smith's types: a subtype's
/// first draw is a ratio an earlier type did not read) leaves one call's
/// span running on over the turns after it, as a frame ends only where its
/// first draw's place draws again (decision 0099).
fn last_turns_inside(tc: &TestCase, items: &[Item<'_>], count: usize) -> Vec<Range<usize>> {
    if count <= items.len() {
        return Vec::new();
    }
    let flat = flatten(tc, items);
    let n = flat.len();
    let same = |a: usize, b: usize, k: usize| (0..k).all(|j| flat[a + j].1 == flat[b + j].1);
    let lengths = (2..=MAX_TURN).take_while(|&k| 2 * k <= n);
    let periods = lengths.clone().filter(|&k| same(n - k, n - 2 * k, k));
    let earlier = lengths.filter(|&k| !same(n - k, n - 2 * k, k) && (0..n - 2 * k).any(|a| same(n - k, a, k)));
    periods.chain(earlier).take(READINGS).map(|k| flat[n - k].0.start..flat[n - 1].0.end).collect()
}

/// `items` one call deeper: each call replaced by the items under it.
fn flatten<'a>(tc: &'a TestCase, items: &[Item<'a>]) -> Vec<Item<'a>> {
    items
        .iter()
        .flat_map(|item| match item.2 {
            Some(call) => items_in(tc, tc.draw_ranges[call].clone(), children(tc, call)),
            None => vec![item.clone()],
        })
        .collect()
}

/// The draws of each item after draw `d` one call deeper ([`flatten`]).
pub(super) fn flat_items_after(tc: &TestCase, d: usize) -> Vec<Range<usize>> {
    flatten(tc, &items_after(tc, d)).into_iter().map(|item| item.0).collect()
}

/// A draw, or a call under a span taken whole: its draws, its shape, and
/// the call's example.
type Item<'a> = (Range<usize>, Shape<'a>, Option<usize>);

/// An item's shape: a draw's kind, or a call's site.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape<'a> {
    Draw(DrawKind),
    Call(&'a str),
}

/// The items after draw `d` in the innermost span holding it: each a draw
/// or a call under the span, taken whole.
fn items_after(tc: &TestCase, d: usize) -> Vec<Item<'_>> {
    match (0..tc.examples.len()).rev().find(|&e| tc.draw_ranges[e].contains(&d)) {
        Some(p) => items_in(tc, d + 1..tc.draw_ranges[p].end, children(tc, p)),
        None => items_in(tc, d + 1..tc.draws.len(), tc.sibling_groups()[0].as_slice()),
    }
}

/// The items among `draws`: each a draw, or one of `calls` (examples) taken whole.
fn items_in<'a>(tc: &'a TestCase, draws: Range<usize>, calls: &[usize]) -> Vec<Item<'a>> {
    // The calls in input order, their draws in order too: one pass over both.
    let mut calls = calls.iter().filter(|&&c| tc.draw_ranges[c].start >= draws.start).peekable();
    let mut items = Vec::new();
    let mut k = draws.start;
    while k < draws.end {
        while calls.next_if(|&&c| tc.draw_ranges[c].start < k || tc.draw_ranges[c].is_empty()).is_some() {}
        let item = match calls.next_if(|&&c| tc.draw_ranges[c].start == k) {
            Some(&c) => (tc.draw_ranges[c].clone(), Shape::Call(&tc.examples[c].label), Some(c)),
            None => (k..k + 1, Shape::Draw(tc.draws[k].kind), None),
        };
        k = item.0.end;
        items.push(item);
    }
    items
}

/// The examples directly under example `p`.
fn children(tc: &TestCase, p: usize) -> &[usize] {
    match tc.examples.get(p + 1) {
        Some(_) if tc.parent(p + 1) == Some(p) => tc.siblings(p + 1),
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::super::one_pass::run;
    use crate::reduce::{Example, Verdict};

    /// A stack program: a flag byte before each command (low bit), a command
    /// byte (`P` push, else `K` pick) and for a pick its one-byte index; the
    /// bug is a pick of the index equal to the stack's height.
    fn program(input: &[u8]) -> Verdict {
        let (mut at, mut height, mut examples) = (0, 0u8, Vec::new());
        while input.get(at).is_some_and(|b| b & 1 == 1) {
            let start = at + 1;
            examples.push(Example::new(at..at + 1, input.len()..input.len(), "draw:le:1", 1));
            match input.get(start) {
                Some(b'P') => {
                    examples.push(Example::new(start..start + 1, input.len()..input.len(), "Op", 0));
                    height += 1;
                    at = start + 1;
                }
                Some(b'K') => {
                    let index = input.get(start + 1).copied().unwrap_or(0);
                    examples.push(Example::new(start..start + 2, input.len()..input.len(), "Op", 0));
                    examples.push(Example::new(start + 1..start + 2, input.len()..input.len(), "draw:le:1", 1));
                    if index == height {
                        return Verdict::Interesting(examples);
                    }
                    at = start + 2;
                }
                _ => return Verdict::Boring,
            }
        }
        Verdict::Boring
    }

    #[test]
    fn deletes_what_an_index_counts_while_lowering_the_index() {
        // push, push, pick 2: neither deleting a push nor lowering the index alone keeps the bug.
        let result = run("delete-adjusting", &[1, b'P', 1, b'P', 1, b'K', 2], program);
        assert_eq!(result, [1, b'K', 0]);
    }

    /// A function built by hand: a count (a one-byte range draw of 0 to 6,
    /// its byte taken modulo 7 as `int_in_range` does), then per
    /// turn a name (one draw) and a type (a call of two draws: a tag and a
    /// width), then a count of results and theirs; the bug is two results.
    fn function(input: &[u8]) -> Verdict {
        let mut at = 0;
        let mut examples = Vec::new();
        let turns = |at: &mut usize, examples: &mut Vec<Example>| -> Option<u8> {
            let count = *input.get(*at)? % 7;
            examples.push(Example::new(*at..*at + 1, input.len()..input.len(), "draw:range", 1));
            for turn in 0..count {
                let start = *at + 1 + 3 * usize::from(turn);
                input.get(start + 2)?;
                examples.push(Example::new(start..start + 1, input.len()..input.len(), "draw:le:1", 1));
                examples.push(Example::new(start + 1..start + 3, input.len()..input.len(), "call:0000000b", 1));
                examples.push(Example::new(start + 1..start + 2, input.len()..input.len(), "draw:le:1", 2));
                examples.push(Example::new(start + 2..start + 3, input.len()..input.len(), "draw:le:1", 2));
            }
            *at += 1 + 3 * usize::from(count);
            Some(count)
        };
        examples.push(Example::new(0..0, input.len()..input.len(), "call:0000000a", 0));
        let params = turns(&mut at, &mut examples);
        let len = examples.len();
        examples.push(Example::new(at..at, input.len()..input.len(), "call:0000000a", 0));
        let results = turns(&mut at, &mut examples);
        let end = examples.iter().skip(len + 1).map(|e| e.front.end).max().unwrap_or(at);
        examples[len].front = examples[len].front.start..end;
        examples[0].front = 0..examples[..len].iter().map(|e| e.front.end).max().unwrap_or(0);
        match (params, results) {
            (Some(_), Some(2)) => Verdict::Interesting(examples),
            _ => Verdict::Boring,
        }
    }

    #[test]
    fn deletes_a_loops_turns_while_lowering_its_count() {
        // Three parameters, two results: the parameters go, a turn with its count each time.
        let input = [3, 7, 1, 1, 8, 2, 2, 9, 3, 3, 2, 5, 1, 1, 6, 2, 2];
        assert_eq!(run("delete-turns", &input, function), [0, 2, 5, 1, 1, 6, 2, 2]);
    }

    /// A block built by hand in one function: a count of 1 to 8
    /// instructions (a range read with its bounds recorded), then per turn
    /// an opcode (0 to 2) and its operand: two bytes for a constant, four
    /// for a jump, none for an add. The bug: the first instruction jumps.
    fn block(input: &[u8]) -> Verdict {
        let len = input.len();
        let mut examples = vec![Example::new(0..1, len..len, "draw:range:4:1:7", 1)];
        let Some(count) = input.first().map(|b| 1 + b % 8) else { return Verdict::Boring };
        let (mut at, mut first) = (1, None);
        for _ in 0..count {
            let Some(op) = input.get(at).map(|b| b % 3) else { return Verdict::Boring };
            examples.push(Example::new(at..at + 1, len..len, "draw:range:1:0:2", 1));
            let width = [2, 0, 4][usize::from(op)];
            if at + 1 + width > len {
                return Verdict::Boring;
            }
            if width > 0 {
                examples.push(Example::new(
                    at + 1..at + 1 + width,
                    len..len,
                    ["draw:le:2", "", "draw:le:4"][usize::from(op)],
                    1,
                ));
            }
            first.get_or_insert(op);
            at += 1 + width;
        }
        examples.insert(0, Example::new(0..at, len..len, "call:0000000c", 0));
        match first {
            Some(2) => Verdict::Interesting(examples),
            _ => Verdict::Boring,
        }
    }

    #[test]
    fn deletes_a_last_turn_of_another_shape_where_the_count_has_its_bounds() {
        // Two instructions (1 + 1): a jump, then a constant; the constant goes with the count lowered to 1.
        let input = [1, 2, 9, 0, 0, 0, 0, 5, 5];
        assert_eq!(run("delete-turns", &input, block), [0, 2, 9, 0, 0, 0]);
    }

    /// A group of types built by hand, as wasm-smith's rec groups: a bound
    /// (0 to 7), a count up to it (both ranges with their bounds), then per
    /// turn three draws: a final type (`le`, then two ranges) or, from the
    /// third turn on, a subtype (a ratio range first). One call's span runs
    /// from the third turn to the last (its first draw's place never draws
    /// again). A flag follows the group only where the count is below the
    /// bound (a set flag: another group, not modelled), then a body byte.
    /// The bug: a third turn whose ratio reads 1, and a body of `B`.
    fn group(input: &[u8]) -> Verdict {
        let len = input.len();
        let (Some(bound), Some(count)) = (input.first().map(|b| b % 8), input.get(1)) else { return Verdict::Boring };
        let count = count % (bound + 1);
        let mut examples = vec![Example::new(0..1, len..len, "draw:range:1:0:7", 0)];
        examples.push(Example::new(1..2, len..len, format!("draw:range:1:0:{bound:x}").as_str(), 1));
        let end = 2 + 3 * usize::from(count);
        if end > len {
            return Verdict::Boring;
        }
        for turn in 0..usize::from(count) {
            let at = 2 + 3 * turn;
            let (labels, call) = match turn {
                0 | 1 => (["draw:le:1", "draw:range:1:0:2", "draw:range:1:0:2"], Some(at..at + 3)),
                2 => (["draw:range:1:1:1f", "draw:range:1:0:2", "draw:le:1"], Some(at..end)),
                _ => (["draw:range:1:1:1f", "draw:range:1:0:2", "draw:le:1"], None),
            };
            if let Some(call) = call {
                examples.push(Example::new(call, len..len, "call:0000000b", 1));
            }
            for (j, label) in labels.into_iter().enumerate() {
                examples.push(Example::new(at + j..at + j + 1, len..len, label, 2));
            }
        }
        examples.insert(1, Example::new(1..end, len..len, "call:0000000a", 0));
        let mut at = end;
        if count < bound {
            match input.get(at) {
                Some(flag) if flag & 1 == 0 => examples.push(Example::new(at..at + 1, len..len, "draw:le:1", 0)),
                _ => return Verdict::Boring,
            }
            at += 1;
        }
        let Some(&body) = input.get(at) else { return Verdict::Boring };
        examples.push(Example::new(at..at + 1, len..len, "draw:le:1", 0));
        match (count >= 3 && input[8] == 1, body) {
            (true, b'B') => Verdict::Interesting(examples),
            _ => Verdict::Boring,
        }
    }

    #[test]
    fn deletes_last_turns_inside_a_span_that_runs_over_them_with_the_flag_a_bound_left_unread() {
        // Five types at the bound of five: the last two go, the first with
        // a stop flag where the group no longer reaches its bound.
        let input = [5, 5, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, b'B'];
        assert_eq!(run("delete-inner-turns", &input, group), [5, 3, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0, b'B']);
    }

    #[test]
    fn reads_a_range_above_its_size_as_the_turns_that_follow() {
        // 10 is three turns (10 mod 7): lowered to 7, no turn left.
        let input = [10, 7, 1, 1, 8, 2, 2, 9, 3, 3, 2, 5, 1, 1, 6, 2, 2];
        assert_eq!(run("delete-turns", &input, function), [7, 2, 5, 1, 1, 6, 2, 2]);
    }
}
