//! VM01 programs: arithmetic, stack shuffles, deep pushes, slots allocated, written, read and freed; some stop at an error.
//!
//! A few handles are allocated first and stay at the bottom of the stack; every
//! snippet after them leaves the stack and the slots as it found them, so none
//! frees a slot twice or writes through handle 0 (the guard checks it anyway).

use planted::vm;

use super::{fill, Records};
use crate::mutate::Rng;

/// Handles held at the bottom of the stack, at most.
const HELD: usize = 5;
/// The longest snippet.
const SNIPPET: usize = 64;
/// The longest ending (pushes past the stack's 64 values).
const ENDING: usize = 2 * 65;

/// A VM01 program of at most `len` bytes.
pub(crate) fn draw(rng: &mut Rng, len: usize) -> Vec<u8> {
    let held = rng.below(HELD + 1);
    let mut program = Program { out: [&vm::MAGIC[..], &vec![vm::ALLOC; held]].concat(), held };
    if fill::<9>(rng, &mut program, len, ENDING, SNIPPET) {
        program.out.extend(rejected(rng, held, true));
    } else if rng.one_in(2) {
        program.out.extend(vec![vm::FREE; held]);
    }
    program.out
}

/// A program being written, `held` handles allocated at its start.
#[derive(Debug)]
struct Program {
    out: Vec<u8>,
    held: usize,
}

impl Records for Program {
    fn written(&self) -> usize {
        self.out.len()
    }

    /// A snippet of `kind`: at most `SNIPPET` bytes, the least room `fill` leaves.
    fn accepted(&mut self, rng: &mut Rng, kind: usize, _room: usize) {
        self.out.extend(snippet(rng, kind));
    }

    fn rejected(&mut self, rng: &mut Rng) {
        self.out.extend(rejected(rng, self.held, false));
    }
}

/// Code of `kind` that leaves the stack and the slots as it found them.
fn snippet(rng: &mut Rng, kind: usize) -> Vec<u8> {
    let (a, b, v) = (rng.byte(), rng.byte(), rng.byte());
    match kind {
        0 => vec![vm::PUSH, a, vm::PUSH, b, vm::ADD, vm::DROP],
        1 => vec![vm::PUSH, a, vm::DUP, vm::ADD, vm::DROP],
        2 => vec![vm::PUSH, a, vm::PUSH, b, vm::SWAP, vm::DROP, vm::DROP],
        3 => vec![vm::ALLOC, vm::FREE],
        4 => vec![vm::ALLOC, vm::DUP, vm::PUSH, v, vm::WRITE, vm::DUP, vm::READ, vm::DROP, vm::FREE],
        5 => {
            let k = rng.range(2, 20);
            let pushes = (0..k).flat_map(|_| [vm::PUSH, rng.byte()]);
            pushes.chain(vec![vm::ADD; k - 1]).chain([vm::DROP]).collect()
        }
        6 => vec![vm::PUSH, rng.below(16) as u8, vm::READ, vm::DROP],
        7 => vec![vm::PUSH, rng.range(1, 15) as u8, vm::PUSH, v, vm::WRITE],
        _ => {
            let m = rng.range(2, 8);
            [vec![vm::ALLOC; m], vec![vm::FREE; m]].concat()
        }
    }
}

/// Code the machine stops at with an error, `held` handles on the stack; a truncated push only `at_end`.
fn rejected(rng: &mut Rng, held: usize, at_end: bool) -> Vec<u8> {
    match rng.below(if at_end { 6 } else { 5 }) {
        0 => {
            const OPS: [u8; 9] =
                [vm::PUSH, vm::ADD, vm::DUP, vm::SWAP, vm::DROP, vm::ALLOC, vm::FREE, vm::WRITE, vm::READ];
            let unknown = (0..=255).filter(|op| !OPS.contains(op)).nth(rng.below(256 - OPS.len()));
            vec![unknown.unwrap_or(0)]
        }
        1 => vec![vm::DROP; held + 1],
        2 => (0..65 - held).flat_map(|_| [vm::PUSH, rng.byte()]).collect(),
        3 => vec![vm::ALLOC; 16 - held],
        4 => {
            let handle = rng.range(16, 255) as u8;
            match rng.below(3) {
                0 => vec![vm::PUSH, handle, vm::FREE],
                1 => vec![vm::PUSH, handle, vm::READ],
                _ => vec![vm::PUSH, handle, vm::PUSH, rng.byte(), vm::WRITE],
            }
        }
        _ => vec![vm::PUSH],
    }
}

#[cfg(test)]
mod tests {
    use crate::formats::outcomes;

    #[test]
    fn programs_are_safe_stay_within_their_length_and_reach_many_outcomes() {
        let outcomes = outcomes("vm", 7, 300);
        assert_eq!(outcomes.len(), 7, "{outcomes:?}");
    }
}
