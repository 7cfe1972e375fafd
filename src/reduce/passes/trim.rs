//! Trimming what the target never read: the bytes between where the top-level values stopped reading from the front and from the back.

use super::super::choice::Chooser;
use super::super::shrinker::{Halt, Shrinker, StepResult};
use super::super::testcase::delete_range;

/// Deletes the unread middle of the input in one test. Needs examples: with
/// none, nothing is known to be unread.
pub(crate) fn step(sh: &mut Shrinker<'_>, _chooser: &mut Chooser<'_>) -> StepResult {
    let best = sh.best();
    let tops: Vec<_> = (0..best.examples.len()).filter(|&i| best.parent(i).is_none()).collect();
    if tops.is_empty() {
        return Err(Halt::Dead);
    }
    let read_front = tops.iter().map(|&i| best.examples[i].front.end).max().unwrap_or(0);
    let read_back = tops.iter().map(|&i| best.examples[i].back.start).min().unwrap_or(best.len());
    if read_front >= read_back {
        return Err(Halt::Dead);
    }
    let candidate = delete_range(&best.bytes, read_front..read_back);
    sh.consider(candidate)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::one_pass::run;
    use crate::reduce::{Example, Verdict};

    #[test]
    fn deletes_the_bytes_between_the_front_and_back_reads_in_one_test() {
        let mut tests = 0;
        let oracle = |input: &[u8]| {
            tests += 1;
            // Reads two bytes from the front and one from the back, like a
            // struct of two u8 fields and a length.
            let n = input.len();
            let top = Example::new(0..2.min(n), n.saturating_sub(1)..n, "Top", 0);
            Verdict::Interesting(if n >= 3 { vec![top] } else { Vec::new() })
        };
        assert_eq!(run("trim-unread", b"ab........z", oracle), b"abz");
        assert_eq!(tests, 2);
    }
}
