//! `commands` inputs: programs of pushes, pops, adds, names, blobs and calls of `len`, `sum`, `dup`, `pick` and unknown functions.
//!
//! The generator follows the stack's height as the interpreter will, so a
//! `pick` reaches into the stack (most often), past its bottom, to a negative
//! depth or with the wrong argument count, never exactly the height (the
//! planted overflow; the check would drop it anyway); pushes and pops keep the
//! height around a level of each input's own, some programs run into the
//! stack's limit.

use std::cmp::Ordering;

use planted::commands::{run as interpret, Op, MAX_STACK};

use super::{bucket, list, run_decoded};
use crate::check::Verdict;
use crate::encode::Encoder;
use crate::formats::{mix, pick};
use crate::mutate::Rng;
use crate::text::{text, word};

/// The interpreter's functions, and a few it does not know.
const FUNCTIONS: [&str; 8] = ["len", "sum", "dup", "pick", "pick", "", "print", "Sum"];

/// What the generator knows of the machine: the stack's height; the program's level for it, and whether its
/// `pick`s may be rejected.
#[derive(Debug)]
struct Model {
    height: usize,
    level: usize,
    errors: bool,
}

/// An input of exactly `len` bytes and the program `arbitrary` reads from it.
pub(crate) fn build(rng: &mut Rng, len: usize) -> (Vec<u8>, Vec<Op>) {
    let weights = mix::<6>(rng);
    let level = if rng.one_in(6) { MAX_STACK + 1 } else { rng.range(0, 40) };
    let mut model = Model { height: 0, level, errors: rng.one_in(2) };
    let mut enc = Encoder::new(len, rng);
    let mut program = Vec::new();
    while enc.room() {
        enc.bool(true);
        let kind = match model.height.cmp(&model.level) {
            Ordering::Greater => rng.range(1, 2),
            Ordering::Less if rng.one_in(2) => 0,
            _ => pick(rng, &weights),
        };
        program.push(op(&mut enc, rng, kind, &mut model));
    }
    enc.bool(false);
    (enc.finish(), program)
}

/// A command of `kind` (the variant's index), written and followed on the model.
fn op(enc: &mut Encoder, rng: &mut Rng, kind: usize, model: &mut Model) -> Op {
    enc.variant(kind, 6);
    match kind {
        0 => {
            let value = if rng.one_in(2) { rng.below(100) as u32 } else { rng.next_u64() as u32 };
            enc.u32(value);
            model.height += 1;
            Op::Push(value)
        }
        1 => {
            model.height = model.height.saturating_sub(1);
            Op::Pop
        }
        2 => {
            model.height -= usize::from(model.height >= 2);
            Op::Add
        }
        3 => Op::Name(enc.string(&text(rng, 24))),
        4 => Op::Blob(list(enc, rng.below(64), |enc| {
            let byte = rng.byte();
            enc.u8(byte);
            byte
        })),
        _ => call(enc, rng, model),
    }
}

/// A `Call`: a function's name and arguments that suit it (a `pick`'s depth chosen against the model).
fn call(enc: &mut Encoder, rng: &mut Rng, model: &mut Model) -> Op {
    let mut name = if rng.one_in(8) { word(rng) } else { FUNCTIONS[rng.below(FUNCTIONS.len())].to_string() };
    if name == "pick" && model.height == 0 && !model.errors {
        name = "len".to_string();
    }
    let name = enc.string(&name);
    let wanted: Vec<i16> = match name.as_str() {
        "pick" => depth(rng, model),
        "sum" => (0..rng.below(20)).map(|_| rng.next_u64() as i16).collect(),
        _ => (0..rng.below(3)).map(|_| rng.next_u64() as i16).collect(),
    };
    let mut next = wanted.iter().copied();
    let args = list(enc, wanted.len(), |enc| {
        let arg = next.next().unwrap_or_default();
        enc.i16(arg);
        arg
    });
    model.height += usize::from(pushes(&name, &args, model.height));
    Op::Call { name, args }
}

/// A `pick`'s arguments: a depth into the stack (always, in a program without errors), past its bottom,
/// negative, or not one argument.
fn depth(rng: &mut Rng, model: &Model) -> Vec<i16> {
    let height = model.height;
    match rng.below(50) {
        0..=45 if height > 0 => vec![rng.below(height) as i16],
        _ if !model.errors => vec![rng.below(height.max(1)) as i16],
        46 => vec![-(rng.range(1, 100) as i16)],
        47 => Vec::new(),
        48 => vec![rng.below(height + 1) as i16, rng.below(4) as i16],
        _ => vec![(height + rng.range(1, 10)) as i16],
    }
}

/// Whether the interpreter's call of `name` with `args` pushes a value on a stack `height` high.
fn pushes(name: &str, args: &[i16], height: usize) -> bool {
    match (name, args) {
        ("len" | "sum", _) => true,
        ("dup", _) => height > 0,
        ("pick", &[depth]) => usize::try_from(depth).is_ok_and(|depth| depth < height),
        _ => false,
    }
}

/// The fuzz target on `data`: decode, then run the program; the outcome is the rejection, or `ok` and its length.
pub(crate) fn run(data: &[u8]) -> Verdict {
    run_decoded(data, |program: Vec<Op>| {
        Verdict::Runs(match interpret(&program) {
            Ok(_) => format!("ok: {} commands", bucket(program.len())),
            Err(error) => error.0.to_string(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::typed::checks::{assert_read_back, outcomes};

    #[test]
    fn arbitrary_reads_back_the_program_that_was_written() {
        assert_read_back(31, &[300, 1024, 3000, 8192], 30, build);
    }

    #[test]
    fn programs_reach_every_outcome_and_none_picks_below_the_stack() {
        let outcomes = outcomes(32, 300, build, run);
        let errors = ["stack full", "pick takes one argument", "pick of a negative depth"];
        for error in errors.into_iter().chain(["pick below the bottom of the stack"]) {
            assert!(outcomes.contains(error), "{error}: {outcomes:?}");
        }
        assert!(outcomes.iter().any(|o| o.starts_with("ok: 100+")), "{outcomes:?}");
    }
}
