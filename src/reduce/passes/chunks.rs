//! Structure-blind chunk deletion with halving chunk sizes (Lithium's strategy), the fallback when nothing else applies.

use super::super::choice::Chooser;
use super::super::shrinker::{Halt, Shrinker, StepResult};
use super::super::testcase::delete_range;

/// How many of the largest chunk sizes the coarse pass tries.
const COARSE_LEVELS: usize = 3;

/// Below this size the coarse pass leaves the input to block deletion, which
/// covers the same cuts.
const COARSE_MIN_LEN: usize = 64;

/// The same on an input that draws alone describe (a `Vec<u64>`: about a
/// dozen elements). There a chunk that is not whole elements rerolls every
/// value after it: a guess that pays where the bug is a hash of the list and
/// never where it needs a number of elements; on a short list the element
/// deletions and prefixes have tried most shorter lists already
/// (decision 0023).
const COARSE_MIN_LEN_DRAWS: usize = 128;

/// Chooses a chunk size (a power of two, largest first) and a chunk, and
/// deletes it.
///
/// Not on inputs with draws when minimizing a crash (lowering on): every
/// read is recorded there, and the structured deletions left it nothing on
/// the typed samples. A corpus's shrink (lowering off) keeps it, since it
/// pays there (decision 0024).
pub(crate) fn step(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let typed_crash = sh.options().lowering && !sh.best().draws.is_empty();
    if sh.best().draws_only() || typed_crash {
        return Err(Halt::Dead);
    }
    delete_chunk(sh, chooser, usize::MAX)
}

/// The same with only the few largest chunk sizes (halves, quarters,
/// eighths): cheap when most of a large input is noise around one region,
/// and left to the adaptive block deletion below that.
pub(crate) fn coarse(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let tc = sh.best();
    if tc.len() < if tc.draws_only() { COARSE_MIN_LEN_DRAWS } else { COARSE_MIN_LEN } {
        return Err(Halt::Dead);
    }
    delete_chunk(sh, chooser, COARSE_LEVELS)
}

fn delete_chunk(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>, max_levels: usize) -> StepResult {
    let len = sh.best().len();
    let levels = if len == 0 { 0 } else { len.ilog2() as usize + 1 };
    let skipped = levels.saturating_sub(max_levels);
    let level = skipped + chooser.choose(levels - skipped, |_| true)?;
    let size = 1usize << level;
    let chunk = chooser.choose(len.div_ceil(size), |_| true)?;
    let candidate = delete_range(&sh.best().bytes, chunk * size..((chunk + 1) * size).min(len));
    sh.consider(candidate)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::one_pass::run;
    use crate::reduce::{run_pass, Example, ReduceOptions, TestCase, Verdict};

    #[test]
    fn deletes_chunks_down_to_single_bytes() {
        let three_xs = |input: &[u8]| Verdict::from_bool(input.iter().filter(|&&b| b == b'X').count() >= 3);
        assert_eq!(run("delete-chunks", b"..X....X.......X..", three_xs), b"XXX");
    }

    /// A typed input (a derived value over one-byte draws) holding three
    /// `X`s: a crash's minimization leaves it to the structured deletions,
    /// a corpus's shrink (lowering off) cuts chunks.
    #[test]
    fn leaves_a_typed_crash_to_the_structured_deletions() {
        let three_xs = |input: &[u8]| {
            if input.iter().filter(|&&b| b == b'X').count() < 3 {
                return Verdict::Boring;
            }
            let len = input.len();
            let draws = (0..len).map(|i| Example::new(i..i + 1, len..len, "draw:le:1", 1));
            Verdict::Interesting(std::iter::once(Example::new(0..len, len..len, "Thing", 0)).chain(draws).collect())
        };
        let input = b"..X....X.......X..";
        let Verdict::Interesting(examples) = three_xs(input) else { unreachable!() };
        let reduce = |options: &ReduceOptions| {
            let initial = TestCase::new(input.to_vec(), examples.clone());
            run_pass("delete-chunks", initial, three_xs, options).unwrap().best.bytes
        };
        assert_eq!(reduce(&ReduceOptions::default()), input);
        assert_eq!(reduce(&ReduceOptions { lowering: false, ..ReduceOptions::default() }), b"XXX");
    }
}
