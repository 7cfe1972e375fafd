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

use super::super::choice::Chooser;
use super::super::shrinker::{Halt, Shrinker, StepResult};
use super::super::tape;

/// Tries the best test case's shortest encoding when it is shorter, in one
/// test. Needs draws; first of all passes, so each round starts from it.
pub(crate) fn shortest(sh: &mut Shrinker<'_>, _chooser: &mut Chooser<'_>) -> StepResult {
    let best = sh.best();
    if best.draws.is_empty() {
        return Err(Halt::Dead);
    }
    match tape::shortest(best) {
        Some((candidate, true)) => {
            sh.consider(candidate)?;
            Ok(())
        }
        _ => Err(Halt::Dead),
    }
}
