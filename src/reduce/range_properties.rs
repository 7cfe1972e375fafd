//! Population test of decision 0106: generators written as one function of a loop, whose count and opcodes are `int_in_range` reads spelled above their ranges, reduced with the ranges' bounds recorded and without.
//!
//! A program: a count of instructions (a range of 0 or 1 to 7 more), then
//! per instruction an opcode (0 to 2) and its operand: a `u16` constant, a
//! `u32` jump target, nothing for an add. Reads past the end read zero (a
//! range its start). The fuzzer's inputs spell counts and opcodes above
//! their ranges (a count of 3 as 19) among random instructions.

use super::oracle::Recording;
use super::*;

/// Which instructions a bug needs, and the least input that has it for a count starting at `low`.
#[derive(Clone, Copy, Debug)]
enum Bug {
    /// A jump to 1000 or further.
    FarJump,
    /// Two jumps.
    TwoJumps,
    /// A constant 7 right after a jump.
    SevenAfterJump,
}

/// One instruction: its opcode and operand.
type Instr = (u8, u32);

impl Bug {
    /// Whether `program` has the bug.
    fn holds(self, program: &[Instr]) -> bool {
        match self {
            Bug::FarJump => program.iter().any(|&(op, x)| op == 2 && x >= 1000),
            Bug::TwoJumps => program.iter().filter(|&&(op, _)| op == 2).count() >= 2,
            Bug::SevenAfterJump => program.windows(2).any(|w| w[0].0 == 2 && w[1] == (0, 7)),
        }
    }

    /// The instructions a person would write for it.
    fn least(self) -> Vec<Instr> {
        match self {
            Bug::FarJump => vec![(2, 1000)],
            Bug::TwoJumps => vec![(2, 0), (2, 0)],
            Bug::SevenAfterJump => vec![(2, 0), (0, 7)],
        }
    }
}

/// The input that writes `program`, counts and opcodes spelled `spell(x) * size + x`, trailing zeros cut.
fn write(low: u8, program: &[Instr], mut spell: impl FnMut() -> u8) -> Vec<u8> {
    let mut out = vec![(program.len() as u8 - low) + 8 * spell()];
    for &(op, x) in program {
        out.push(op + 3 * spell());
        match op {
            0 => out.extend_from_slice(&(x as u16).to_le_bytes()),
            2 => out.extend_from_slice(&x.to_le_bytes()),
            _ => {}
        }
    }
    while out.last() == Some(&0) {
        out.pop();
    }
    out
}

/// Reads `input` as a program with a count from `low`, recording its draws
/// (ranges labelled with their bounds when `bounds`) under one frame span.
fn read(input: &[u8], low: u8, bounds: bool) -> (Vec<Instr>, Vec<Example>) {
    let len = input.len();
    let mut at = 0;
    let mut examples = vec![Example::new(0..0, len..len, "call:0000000c", 0)];
    let mut draw = |width: usize, label: &str, examples: &mut Vec<Example>| {
        let span = at.min(len)..(at + width).min(len);
        let value = input[span.clone()].iter().rev().fold(0u32, |acc, &b| acc << 8 | u32::from(b));
        examples.push(Example::new(span, len..len, label, 1));
        at += width;
        value
    };
    let (count_label, op_label) = if bounds {
        (format!("draw:range:1:{low:x}:7"), "draw:range:1:0:2")
    } else {
        ("draw:range".to_string(), "draw:range")
    };
    let count = low + (draw(1, &count_label, &mut examples) % 8) as u8;
    let mut program = Vec::new();
    for _ in 0..count {
        let op = (draw(1, op_label, &mut examples) % 3) as u8;
        let operand = match op {
            0 => draw(2, "draw:le:2", &mut examples),
            2 => draw(4, "draw:le:4", &mut examples),
            _ => 0,
        };
        program.push((op, operand));
    }
    examples[0].front = 0..at.min(len);
    (program, examples)
}

/// A random program with `bug` planted, and the input a fuzzer would have found for it.
fn random_input(rng: &mut fastrand::Rng, bug: Bug, low: u8) -> Vec<u8> {
    loop {
        let mut program: Vec<Instr> = (0..rng.usize(2..6))
            .map(|_| match rng.u8(..3) {
                0 => (0, rng.u32(..1 << 16)),
                1 => (1, 0),
                _ => (2, rng.u32(..)),
            })
            .collect();
        let at = rng.usize(..=program.len());
        program.splice(at..at, bug.least());
        program.truncate(7 + usize::from(low));
        let spell = || rng.u8(..4);
        let input = write(low, &program, spell);
        if bug.holds(&read(&input, low, true).0) {
            return input;
        }
    }
}

#[test]
fn counts_and_opcodes_read_with_their_bounds_reduce_to_the_program_a_person_writes() {
    let mut rng = fastrand::Rng::with_seed(106);
    let (mut least, mut least_without, mut cases) = (0, 0, 0);
    for case in 0..240 {
        let bug = [Bug::FarJump, Bug::TwoJumps, Bug::SevenAfterJump][case % 3];
        let low = (case / 3 % 2) as u8;
        let input = random_input(&mut rng, bug, low);
        let expected = write(low, &bug.least(), || 0);
        for bounds in [true, false] {
            let oracle = Recording::new(|s: &[u8]| {
                let (program, examples) = read(s, low, bounds);
                (bug.holds(&program), examples)
            });
            let result = reduce(&input, oracle).unwrap().best.bytes;
            assert!(bug.holds(&read(&result, low, true).0), "{bug:?} {input:02x?}: {result:02x?}");
            match bounds {
                true => least += usize::from(result == expected),
                false => least_without += usize::from(result == expected),
            }
        }
        cases += 1;
    }
    eprintln!("the least program: {least} of {cases} with the bounds, {least_without} without");
    assert!(least * 100 >= cases * 95, "{least} of {cases} with the bounds ({least_without} without)");
    assert!(least > least_without, "{least} with the bounds, {least_without} without");
}
