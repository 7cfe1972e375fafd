//! The shortest encoding of the value as it is: the reads `arbitrary` made, written again in the fewest bytes.
//!
//! Bytes the target never read between the front and the back reads cannot
//! go by deletion alone once they hold lengths apart: each size field is as
//! wide as what is left when it is read, so deleting any of them narrows
//! some field, and every length read before it then decodes otherwise.
//! Written again from its reads ([`tape::shortest`]), the same value needs
//! no unread byte, no zeros at the end that running out of input reads
//! anyway, and each length only as wide as its new room.
//!
//! Three passes make the move (decision 0001): `shortest-encoding`, first
//! of all, when it drops a quarter of the input or more (on the very first
//! test case, zeros at the end too), so a padded value reduces as the
//! compact one does; `shortest-encoding-any`, first of the shrink tier,
//! when it drops anything else; `shortest-encoding-last`, last of the
//! polish, whenever it is shorter, since a value lowered late can leave
//! zeros at the end that every length field reads anyway.

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
