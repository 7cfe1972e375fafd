//! Deletion with a counter adjusted: remove a value read before a small number, and lower that number by one in the same move.
//!
//! An index or a count often refers to the values read before it (`pick 2`
//! on a stack of two pushes): deleting one of them alone changes what the
//! number means, and lowering the number alone does too, so neither single
//! move keeps the bug. Together they do.

use super::super::choice::Chooser;
use super::super::draws::{Draw, DrawKind};
use super::super::shrinker::{Halt, Shrinker, StepResult};
use super::super::testcase::replace_ranges;
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
            && d.value(&tc.bytes).is_some_and(|v| (1..=MAX_COUNTER).contains(&v))
    };
    let draw = &tc.draws[chooser.choose(tc.draws.len(), counter)?];
    let at = draw.span.start;
    let example = chooser.choose(tc.examples.len(), |i| {
        let e = &tc.examples[i];
        !e.front.is_empty() && e.front.end <= at && !e.back.contains(&at)
    })?;
    let value = draw.value(&tc.bytes).expect("chosen for its value");
    let lowered = draw.encode(value - 1);
    let mut edits: Vec<(std::ops::Range<usize>, &[u8])> =
        spans(&tc, example, true).into_iter().map(|r| (r, &[][..])).collect();
    if edits.iter().any(|(r, _)| r.start < draw.span.end && draw.span.start < r.end) {
        return Ok(());
    }
    edits.push((draw.span.clone(), &lowered));
    sh.consider(replace_ranges(&tc.bytes, &edits))?;
    Ok(())
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
}
