//! `delete-realigning`: a run of a generator's items deleted after a count (the count lowered with it, or not), and when that run reads otherwise than meant, realigned once from what it read: a draw it no longer made deleted, one it made anew written at its simplest (decision 0120).
//!
//! Deleting a turn of a generator's loop changes what later turns read,
//! not only how many there are: wasm-smith's types read a ratio first
//! (subtype or not) once a non-final type exists, a final flag first
//! before that, so deleting the only non-final type leaves the next type's
//! ratio byte to be read as its flag and what follows one byte off; a
//! loop that stopped at its bound without reading its "one more" flag
//! reads one once the count is lower. Neither shows in the best's reads;
//! both show in the run of the deletion: its draws, compared by shape
//! (kind and width) with the draws the move meant, part where the two went
//! apart. The move takes the first such place (after the longest common
//! end, then the longest common start), deletes the meant draws the run
//! did not make, or writes the run's new draw at its simplest before them,
//! or, where each has one the other lacks, the run's at its simplest in
//! the meant one's place; and runs that, as `switch-variants` learns a
//! variant's fields from a boring run (decision 0094).
//!
//! What it deletes: one to [`WINDOW`] items (draws, or calls taken whole,
//! one call deeper than the count's span: decision 0118's reading) after
//! any count read with its range's bounds, anywhere among them, not only
//! the last turn: the types before the one a bug needs; and from each item
//! up to the next one that starts as it does, a whole turn of many draws
//! (a subtype of a struct reads a field type for each of its supertype's
//! fields). A guarantee pass (its choices are many; in the rounds the
//! budget ends it before it pays).

use std::collections::HashMap;
use std::ops::Range;

use super::super::choice::Chooser;
use super::super::draws::{Draw, DrawKind};
use super::super::shrinker::{Halt, Shrinker, StepResult};
use super::super::tape::{self, Read};
use super::super::testcase::TestCase;
use super::adjust::{count_of, flat_items_after};

/// The most items deleted at once.
const WINDOW: usize = 3;

/// The most items of a turn deleted at once: from an item up to the next
/// that starts as it does (a draw, or a call's first draw, of the same
/// kind and bounds), or for the last turn to the span's end.
const MAX_TURN: usize = 32;

/// The counts lowered with a deletion, the nearest first (after none).
const COUNTS: usize = 2;

/// A draw's shape: its kind and how many bytes it reads from the front
/// (an `int_in_range` as many as its range needs; lengths and contents 0).
type Shape = (DrawKind, usize);

/// A draw the move means to make: what it reads, its kind and shape.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Meant {
    read: Read,
    kind: DrawKind,
    shape: Shape,
}

/// Chooses a deletion ([`targets`]), runs it, and when that run is boring
/// and read otherwise than meant, runs it realigned ([`realign`]). Only
/// deletions: a candidate no shorter than the best is not run.
pub(crate) fn step(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let tc = sh.shared();
    if !tc.draws_only() || tc.examples.is_empty() {
        return Err(Halt::Dead);
    }
    let reads = sh.reads().ok_or(Halt::Dead)?;
    let targets = targets(&tc);
    let t = chooser.choose(targets.len(), |_| true)?;
    let (span, lowered) = targets[t].clone();
    let mut meant: Vec<Meant> = (0..tc.draws.len())
        .filter(|d| !span.contains(d))
        .map(|d| Meant { read: reads[d].clone(), kind: tc.draws[d].kind, shape: shape(&tc.draws[d], &reads[d]) })
        .collect();
    if let Some(d) = lowered {
        let draw = &tc.draws[d];
        let value = count_of(draw, &tc.bytes).expect("chosen as a count");
        meant[d].read = Read::Front(draw.encode_result(value - 1).expect("a count has one less"));
    }
    for _ in 0..2 {
        let kinds: Vec<DrawKind> = meant.iter().map(|m| m.kind).collect();
        let views = meant.iter().map(|m| m.read.view()).collect();
        let Some(candidate) = tape::write_shortest_views(views, &kinds).filter(|c| c.len() < tc.bytes.len()) else {
            break;
        };
        let (better, run) = sh.consider_learning(candidate)?;
        if better {
            chooser.resume_at(vec![t]);
            return Ok(());
        }
        let Some(next) = run.as_ref().and_then(drawn).and_then(|ran| realign(&meant, &ran)) else { break };
        meant = next;
    }
    Ok(())
}

/// What the move deletes: runs of one to [`WINDOW`] items after a count
/// read with its bounds (one call deeper: `adjust::flat_items_after`), and
/// from each item to the next that starts as it does (at most
/// [`MAX_TURN`] items), the last count's first, each run once; each with
/// no count lowered, then with each of the [`COUNTS`] nearest counts whose
/// items hold it.
fn targets(tc: &TestCase) -> Vec<(Range<usize>, Option<usize>)> {
    let mut counts: HashMap<Range<usize>, Vec<usize>> = HashMap::new();
    let mut order = Vec::new();
    let bounded = |d: &usize| tc.draws[*d].bounds.is_some() && count_of(&tc.draws[*d], &tc.bytes).is_some();
    for d in (0..tc.draws.len()).rev().filter(bounded) {
        let items = flat_items_after(tc, d);
        // How each item starts: a draw alone or a call, its first draw's kind and bounds.
        let starts: Vec<_> = items
            .iter()
            .map(|item| (item.len() == 1, tc.draws[item.start].kind, tc.draws[item.start].bounds))
            .collect();
        for i in 0..items.len() {
            // The next item that starts as this one does; for the last
            // turn (an earlier item started so), the span's end.
            let next = (i + 1..items.len().min(i + MAX_TURN + 1)).find(|&j| starts[j] == starts[i]);
            let last = || starts[i.saturating_sub(MAX_TURN)..i].contains(&starts[i]) && items.len() - i <= MAX_TURN;
            let turn = next.or_else(|| last().then_some(items.len())).filter(|&j| j - i > WINDOW);
            for k in (1..=WINDOW.min(items.len() - i)).chain(turn.map(|j| j - i)) {
                let span = items[i].start..items[i + k - 1].end;
                let nearest = counts.entry(span.clone()).or_insert_with(|| {
                    order.push(span);
                    Vec::new()
                });
                if nearest.len() < COUNTS {
                    nearest.push(d);
                }
            }
        }
    }
    let mut targets = Vec::new();
    for span in order {
        targets.push((span.clone(), None));
        targets.extend(counts[&span].iter().map(|&d| (span.clone(), Some(d))));
    }
    targets
}

/// The draws a run made, as meant draws.
fn drawn(run: &TestCase) -> Option<Vec<Meant>> {
    let reads = tape::reads(run)?;
    let meant = run.draws.iter().zip(reads);
    Some(meant.map(|(draw, read)| Meant { shape: shape(draw, &read), kind: draw.kind, read }).collect())
}

/// `draw`'s shape, `read` being what it read.
fn shape(draw: &Draw, read: &Read) -> Shape {
    let width = match (draw.kind, draw.bounds, read) {
        (DrawKind::Range, Some(bounds), _) => (u128::BITS - bounds.delta.leading_zeros()).div_ceil(8) as usize,
        (DrawKind::Int { width }, _, _) if width > 0 => usize::from(width),
        (DrawKind::Len | DrawKind::Bytes, _, _) | (_, _, Read::Len(_)) => 0,
        (_, _, Read::Front(bytes)) => bytes.len(),
    };
    (draw.kind, width)
}

/// `meant` with its first difference from what the run `ran` made
/// mended: where the two part after their longest common end and then
/// their longest common start (by shape), meant draws the run did not make
/// deleted; a draw it made that none meant written at its simplest before
/// them; where each has one the other lacks, the run's at its simplest in
/// the meant one's place. `None` when every shape agrees.
fn realign(meant: &[Meant], ran: &[Meant]) -> Option<Vec<Meant>> {
    let same = |a: &Meant, b: &Meant| a.shape == b.shape;
    let most = meant.len().min(ran.len());
    let end = meant.iter().rev().zip(ran.iter().rev()).take_while(|(a, b)| same(a, b)).count().min(most);
    let start = meant.iter().zip(ran).take(most - end).take_while(|(a, b)| same(a, b)).count();
    let (only_meant, only_ran) = (&meant[start..meant.len() - end], &ran[start..ran.len() - end]);
    let mut next = meant.to_vec();
    match (only_meant, only_ran) {
        ([], []) => return None,
        ([], [new, ..]) => next.insert(start, simplest(new)),
        (_, []) => {
            next.drain(start..meant.len() - end);
        }
        ([_, after, ..], [new, ..]) if same(after, new) => {
            next.remove(start);
        }
        ([old, ..], [new, again, ..]) if same(old, again) => next.insert(start, simplest(new)),
        (_, [new, ..]) => next[start] = simplest(new),
    }
    Some(next)
}

/// `draw` at its simplest: zeros, a length of zero, no contents.
fn simplest(draw: &Meant) -> Meant {
    let read = match (draw.kind, &draw.read) {
        (DrawKind::Len, _) | (_, Read::Len(_)) => Read::Len(0),
        (DrawKind::Bytes, _) => Read::Front(Vec::new()),
        _ => Read::Front(vec![0; draw.shape.1]),
    };
    Meant { read, ..draw.clone() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::Example;

    /// A count of 3 (a range of 0 to 15) and three turns of five draws,
    /// each a range of 0 to 9 and four flags, in one call's span.
    fn three_long_turns() -> TestCase {
        let mut bytes = vec![3];
        let mut examples = vec![Example::new(0..16, 16..16, "call:00000001", 0)];
        examples.push(Example::new(0..1, 16..16, "draw:range:1:0:f", 1));
        for turn in 0..3 {
            let at = 1 + 5 * turn;
            bytes.extend([7, 1, 1, 1, 1]);
            examples.push(Example::new(at..at + 1, 16..16, "draw:range:1:0:9", 1));
            examples.extend((at + 1..at + 5).map(|i| Example::new(i..i + 1, 16..16, "draw:le:1", 1)));
        }
        TestCase::new(bytes, examples)
    }

    /// Runs of up to three items, and whole turns longer than that, each
    /// with no count lowered and with the count lowered.
    #[test]
    fn a_turn_longer_than_the_window_is_deleted_whole() {
        let targets = targets(&three_long_turns());
        for turn in [1..6, 6..11, 11..16] {
            assert!(targets.contains(&(turn.clone(), None)), "{turn:?} in {targets:?}");
            assert!(targets.contains(&(turn.clone(), Some(0))), "{turn:?} lowering the count");
        }
        assert!(targets.contains(&(2..5, Some(0))), "three flags");
        assert!(!targets.iter().any(|(span, _)| span.len() == 4), "no run of four but a turn");
    }

    fn byte(kind: DrawKind, value: u8) -> Meant {
        Meant { read: Read::Front(vec![value]), kind, shape: (kind, 1) }
    }

    const FLAG: DrawKind = DrawKind::Int { width: 1 };
    const RANGE: DrawKind = DrawKind::Range;

    /// The run read a flag where a ratio was meant, then what followed one
    /// draw early: the ratio goes.
    #[test]
    fn a_draw_the_run_skipped_is_deleted() {
        let meant = [byte(FLAG, 1), byte(RANGE, 0), byte(FLAG, 0), byte(RANGE, 2)];
        let ran = [byte(FLAG, 1), byte(FLAG, 0), byte(RANGE, 0), byte(FLAG, 2)];
        assert_eq!(realign(&meant, &ran).unwrap(), [byte(FLAG, 1), byte(FLAG, 0), byte(RANGE, 2)]);
    }

    /// The run read one more flag before the last draw (a loop that now
    /// asks whether to go on): a zero flag goes there.
    #[test]
    fn a_draw_the_run_made_anew_is_written_at_its_simplest() {
        let meant = [byte(RANGE, 3), byte(FLAG, 5), byte(FLAG, 1)];
        let ran = [byte(RANGE, 3), byte(FLAG, 5), byte(FLAG, 1), byte(RANGE, 0), byte(FLAG, 0)];
        assert_eq!(realign(&meant, &ran).unwrap(), [byte(RANGE, 3), byte(FLAG, 5), byte(FLAG, 0), byte(FLAG, 1)]);
        assert_eq!(realign(&meant, &meant), None, "nothing to mend");
    }

    /// Where each has a draw the other lacks, the run's goes in at its simplest.
    #[test]
    fn a_draw_read_as_another_is_replaced_by_the_other_at_its_simplest() {
        let two = DrawKind::Int { width: 2 };
        let wide = Meant { read: Read::Front(vec![7, 7]), kind: two, shape: (two, 2) };
        let meant = [byte(FLAG, 1), byte(RANGE, 9), byte(FLAG, 4)];
        let ran = [byte(FLAG, 1), wide.clone(), byte(FLAG, 4)];
        let zeros = Meant { read: Read::Front(vec![0, 0]), ..wide };
        assert_eq!(realign(&meant, &ran).unwrap(), [byte(FLAG, 1), zeros, byte(FLAG, 4)]);
    }
}
