//! `lower-with-stop`: a small number lowered by one with a later flag that reads "stop" deleted in the same move.
//!
//! A loop built by hand is often bounded by a number read before it: a
//! generator's `arbitrary_loop(u, min, max, ..)` (wasm-smith) reads a flag
//! before each turn past `min`, and stops at a flag that reads false or at
//! `max` turns, whichever comes first. Its bound (a configuration's "at
//! most three imports") cannot be lowered to the turns there are alone:
//! the loop then stops without reading its last flag, every read after it
//! moves up a byte, and the module generated is another. Nor can the flag
//! go alone. Together they leave every later read as it was, and the next
//! rounds can lower the bound again, a turn with it (`delete-turns`).
//! Found on wasm-smith 0.218: a result whose bound on types stayed at 3
//! for two went from a 55-byte module to a 41-byte one after one such
//! move and the rounds after it. A guarantee pass: the pairs it tries
//! (a bound, then a flag) are many and most fail, so within a round's
//! failure budget it rarely reaches the one that pays; the final round
//! tries them all (decision 0110).

use super::super::choice::Chooser;
use super::super::draws::{Draw, DrawKind};
use super::super::shrinker::{Halt, Shrinker, StepResult};
use super::super::testcase::{replace_ranges, TestCase};

/// The largest value taken as a bound: a count of what a small input
/// builds, not a quantity.
const MAX_BOUND: u128 = 64;

/// Chooses a numeric draw read with a small value (1 to [`MAX_BOUND`];
/// integers and ranges, not lengths), then a one-byte draw read after it
/// as zero (a flag that says stop), the first of a run of such bytes
/// (deleting any of the run writes the same input), and tries the number
/// one less without the flag. Only on draws alone with the spans of the
/// call chains, as `delete-turns`: a derived collection's flags go with
/// their elements (`delete-examples`), and a derived value reads no
/// bound before them.
pub(crate) fn step(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let tc = sh.shared();
    if !tc.draws_only() || tc.examples.is_empty() {
        return Err(Halt::Dead);
    }
    let d = chooser.choose(tc.draws.len(), |i| lowered(&tc.draws[i], &tc.bytes).is_some())?;
    let bound = &tc.draws[d];
    let f = chooser.choose(tc.draws.len(), |j| j > d && stop_flag(&tc, j) && apart(&bound.span, &tc.draws[j].span))?;
    let lower = lowered(bound, &tc.bytes).expect("chosen for it");
    let edits = [(bound.span.clone(), &lower[..]), (tc.draws[f].span.clone(), &[][..])];
    sh.consider(replace_ranges(&tc.bytes, &edits))?;
    Ok(())
}

/// Draw `d`'s value one less, written in its bytes, when it is a small
/// number above zero.
fn lowered(d: &Draw, bytes: &[u8]) -> Option<Vec<u8>> {
    if !matches!(d.kind, DrawKind::Int { .. } | DrawKind::Range) {
        return None;
    }
    let value = d.result(bytes).filter(|v| (1..=MAX_BOUND).contains(v))?;
    d.encode_result(value - 1)
}

/// Whether draw `j` is a one-byte draw reading zero in the input that is
/// not right after another such byte of the same value.
fn stop_flag(tc: &TestCase, j: usize) -> bool {
    let zero = |d: &Draw| d.is_byte() && d.span.end <= tc.len() && tc.bytes[d.span.start] == 0;
    let draw = &tc.draws[j];
    zero(draw) && !(j > 0 && zero(&tc.draws[j - 1]) && tc.draws[j - 1].span.end == draw.span.start)
}

/// Whether two spans do not overlap.
fn apart(a: &std::ops::Range<usize>, b: &std::ops::Range<usize>) -> bool {
    a.end <= b.start || b.end <= a.start
}

#[cfg(test)]
mod tests {
    use super::super::one_pass::run;
    use crate::reduce::{Example, Verdict};

    /// A generator: a bound (one byte, 0 to 7 as `int_in_range` reads it,
    /// its bounds recorded), then imports while a flag byte reads true and
    /// fewer than the bound were read, each one byte (`I` + its kind);
    /// then a body byte. The bug: a body of `B` after exactly two imports.
    fn generator(input: &[u8]) -> Verdict {
        let len = input.len();
        let mut examples = vec![Example::new(0..0, len..len, "call:0000000a", 0)];
        let Some(bound) = input.first().map(|b| b % 8) else { return Verdict::Boring };
        examples.push(Example::new(0..1, len..len, "draw:range:1:0:7", 1));
        let (mut at, mut imports) = (1, 0);
        while imports < bound {
            let Some(flag) = input.get(at) else { return Verdict::Boring };
            examples.push(Example::new(at..at + 1, len..len, "draw:le:1", 1));
            at += 1;
            if flag & 1 == 0 {
                break;
            }
            if input.get(at).is_none() {
                return Verdict::Boring;
            }
            examples.push(Example::new(at..at + 1, len..len, "draw:le:1", 1));
            at += 1;
            imports += 1;
        }
        let Some(&body) = input.get(at) else { return Verdict::Boring };
        examples.push(Example::new(at..at + 1, len..len, "draw:le:1", 1));
        examples[0].front = 0..at + 1;
        match (imports, body) {
            (2, b'B') => Verdict::Interesting(examples),
            _ => Verdict::Boring,
        }
    }

    #[test]
    fn lowers_a_bound_to_the_turns_there_are_with_the_flag_that_stopped_them() {
        // A bound of 3 (the least that reads the stop), two imports and the flag that stops them.
        let input = [3, 1, 7, 1, 9, 0, b'B'];
        assert_eq!(run("lower-with-stop", &input, generator), [2, 1, 7, 1, 9, b'B']);
    }
}
