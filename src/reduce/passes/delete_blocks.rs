//! Adaptive block deletion: at each index, the largest block of bytes ending there that can go.

use super::super::choice::Chooser;
use super::super::shrinker::{Shrinker, StepResult};
use super::super::testcase::delete_range;
use super::grow;

/// Chooses an index `i` (from the end, moving down) and deletes the largest
/// block ending at `i` that keeps the input interesting: one test when even
/// byte `i` alone must stay, O(log k) tests to delete `k` bytes. Growing the
/// block backwards matches the order of the sweep, so the bytes after `i`
/// (already visited) are never retried.
pub(crate) fn step(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let bytes = sh.best().bytes.clone();
    let i = chooser.choose(bytes.len(), |_| true)?;
    let deleted = grow(sh, |k| (k <= i + 1).then(|| delete_range(&bytes, i + 1 - k..i + 1)))?;
    if deleted > 0 {
        // Continue just before the deleted block; from the top when it reached the start.
        chooser.resume_at(vec![(i + 1 - deleted).checked_sub(1).unwrap_or(usize::MAX)]);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::testkit::run;
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
}
