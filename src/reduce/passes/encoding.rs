//! The shortest encoding of the value as it is: the reads `arbitrary` made, written again in the fewest bytes.
//!
//! Bytes the target never read between the front and the back reads cannot
//! go by deletion alone once they hold lengths apart: each size field is as
//! wide as what is left when it is read, so deleting any of them narrows
//! some field, and every length read before it then decodes otherwise
//! (`doc`'s sample: 303 bytes stopped at 268 with 280 of them unread).
//! Written again from its reads ([`tape::shortest`]), the same value needs
//! no unread byte, no zeros at the end that running out of input reads
//! anyway, and each length only as wide as its new room.
//!
//! Three passes make the move. `shortest-encoding`, first of all, when it
//! drops a quarter of the input or more: then the reduction goes on from the
//! value as if it had come compact, and a value padded with unread bytes
//! reduces as the compact one does (`typed_properties`: 46 of 500 padded
//! inputs reached another result with the move after `delete-examples`, 3
//! with it first). On the very first test case it also drops zeros at the
//! end alone, so that a compact input starts where its padded copy does
//! (the last 3 of 500 went). `shortest-encoding-any`, first of the shrink
//! tier, when it drops anything else: tried first on every input, it cost
//! the samples tests (orders 153 -> 175, commands 165 -> 171, where a few
//! percent of the input was unread and the deletions would have taken it
//! anyway). `shortest-encoding-last`, last of the polish, whenever it is
//! shorter: a value lowered late can leave zeros at the end that every
//! length field reads anyway, and no deletion runs after the polish.

use super::super::choice::Chooser;
use super::super::shrinker::{Halt, Shrinker, StepResult};
use super::super::tape;

/// Tries the shortest encoding first of all when it is at most three
/// quarters of the best test case (or, on the first test case, when it only
/// drops zeros at the end), in one test.
pub(crate) fn shortest_early(sh: &mut Shrinker<'_>, _chooser: &mut Chooser<'_>) -> StepResult {
    let first = sh.generation() == 0;
    try_encoding(sh, |shortest, len, compact| if compact { shortest * 4 <= len * 3 } else { first && shortest < len })
}

/// Tries the shortest encoding whenever it drops more than zeros at the end.
pub(crate) fn shortest(sh: &mut Shrinker<'_>, _chooser: &mut Chooser<'_>) -> StepResult {
    try_shortest(sh, |_, _| true)
}

/// Tries the shortest encoding once the reduction is done, whenever it is
/// shorter, zeros at the end too: a value lowered by a polish move can
/// leave zeros that every length field after it reads anyway, and then the
/// rounds run again.
pub(crate) fn shortest_last(sh: &mut Shrinker<'_>, _chooser: &mut Chooser<'_>) -> StepResult {
    try_encoding(sh, |shortest, len, _| shortest < len)
}

/// Tries the best test case's shortest encoding when it drops more than
/// zeros at the end (which `delete-blocks` takes) and `worth(its length,
/// the best's)` holds. Needs draws.
fn try_shortest(sh: &mut Shrinker<'_>, worth: impl Fn(usize, usize) -> bool) -> StepResult {
    try_encoding(sh, |shortest, len, compact| compact && worth(shortest, len))
}

/// Tries the best test case's shortest encoding when `worth(its length, the
/// best's, whether it drops more than zeros at the end)` holds. Needs draws.
fn try_encoding(sh: &mut Shrinker<'_>, worth: impl Fn(usize, usize, bool) -> bool) -> StepResult {
    let best = sh.best();
    if best.draws.is_empty() {
        return Err(Halt::Dead);
    }
    match tape::shortest(best) {
        Some((candidate, compact)) if worth(candidate.len(), best.len(), compact) => {
            sh.consider(candidate)?;
            Ok(())
        }
        _ => Err(Halt::Dead),
    }
}
