//! Characters of strings lowered in the order a person reads them: each toward `'0'` (`super::super::text`).

use super::super::choice::Chooser;
use super::super::shrinker::{Halt, Shrinker, StepResult};
use super::super::text;
use super::lower_candidate;

/// Chooses a byte of a string's contents that is not `'0'` and lowers it
/// in the characters' order: `'0'` first, then one place lower, then a
/// search between. Byte lowering cannot do it: it goes toward NUL, which
/// this order ranks last, so its moves on these bytes are never better.
pub(crate) fn lower(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    let tc = sh.shared();
    let positions: Vec<usize> = tc.text.iter().flat_map(|span| span.clone()).collect();
    if positions.is_empty() {
        return Err(Halt::Dead);
    }
    let i = positions[chooser.choose(positions.len(), |p| text::rank(tc.bytes[positions[p]]) > 0)?];
    let exhaustive = sh.options().exhaustive_lowering;
    lower_candidate(sh, u64::from(text::rank(tc.bytes[i])), exhaustive, false, |r| {
        let mut candidate = tc.bytes.clone();
        candidate[i] = text::of_rank(r as u8);
        candidate
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::one_pass::run;
    use crate::reduce::{Example, Verdict};

    #[test]
    fn characters_go_to_zero_or_as_near_as_the_bug_allows() {
        // A string after a length byte at the back; the bug needs a letter
        // and a newline in it.
        let oracle = |s: &[u8]| {
            let n = s.len();
            let examples =
                vec![Example::new(0..0, n - 1..n, "draw:len", 1), Example::new(0..n - 1, n..n, "draw:bytes", 1)];
            let text = &s[..n - 1];
            if text.iter().any(u8::is_ascii_alphabetic) && text.contains(&b'\n') {
                Verdict::Interesting(examples)
            } else {
                Verdict::Boring
            }
        };
        assert_eq!(run("lower-chars", b"Z\0\n~\x03", oracle), b"a0\n0\x03");
    }
}
