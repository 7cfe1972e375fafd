//! Products of two one-byte fields: an image frame holds width by height pixels, so lowering one side by `d` takes `d` times the other side's bytes out of the pixels.
//!
//! `shrink-payloads` lowers a field by `d` while deleting `d` bytes, which
//! fits a length, not a product: a 5 by 3 frame's width goes to 4 only with
//! three pixels, its height to 2 only with five. Lowering drove the pixels
//! that matter to the frame's end (zeros first is the shortlex order), so
//! the move deletes from the front of the product's bytes, taken to be the
//! input's last `width * height` bytes: `keep-ends` and block deletion leave
//! the record that crashes last, where no single deletion or lowering is
//! interesting (decision 0011).

use super::super::choice::Chooser;
use super::super::shrinker::{Halt, Shrinker, StepResult};
use super::super::testcase::replace_ranges;
use super::grow;

/// Chooses a pair of adjacent bytes whose product fits behind them (from
/// the end) and which of the two to lower, then lowers it by `d` while
/// deleting `d` times the other from the front of the input's last
/// `product` bytes, for the largest `d` that stays interesting.
pub(crate) fn step(sh: &mut Shrinker<'_>, chooser: &mut Chooser<'_>) -> StepResult {
    if !sh.best().draws.is_empty() {
        return Err(Halt::Dead);
    }
    let bytes = sh.best().bytes.clone();
    let sides = |at: usize| (usize::from(bytes[at]), usize::from(bytes[at + 1]));
    let fits = |at: usize| {
        let (a, b) = sides(at);
        a > 0 && b > 0 && a.max(b) > 1 && at + 2 + a * b <= bytes.len()
    };
    let at = chooser.choose(bytes.len().saturating_sub(1), fits)?;
    let (a, b) = sides(at);
    let lowered = chooser.choose(2, |side| [a, b][side] > 1)?;
    let (value, unit) = if lowered == 0 { (a, b) } else { (b, a) };
    let start = bytes.len() - a * b;
    grow(sh, |d| {
        (d <= value).then(|| {
            let field = [(value - d) as u8];
            replace_ranges(&bytes, &[(at + lowered..at + lowered + 1, &field[..]), (start..start + d * unit, &[][..])])
        })
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::one_pass::run;
    use crate::reduce::Verdict;

    /// A magic, width, height, then width by height pixels; interesting
    /// when a pixel is 0xEE.
    fn frame_with_ee(input: &[u8]) -> Verdict {
        let Some([width, height, pixels @ ..]) = input.strip_prefix(b"FRM1") else { return Verdict::Boring };
        let complete = pixels.len() == usize::from(*width) * usize::from(*height);
        Verdict::from_bool(complete && pixels.contains(&0xEE))
    }

    #[test]
    fn lowers_either_side_with_its_share_of_the_pixels() {
        let mut input = b"FRM1\x05\x03".to_vec();
        input.extend([0; 14]);
        input.push(0xEE);
        assert_eq!(run("shrink-products", &input, frame_with_ee), b"FRM1\x01\x01\xEE");
    }
}
