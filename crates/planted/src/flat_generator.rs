//! A generator written as one function of loops (issue 48, decision 0105),
//! as regalloc2 builds its test functions: blocks of instructions drawn
//! straight from an `Unstructured`, no derive and no helper function, so
//! every draw is made under the same frames and nothing but the places the
//! draws come from tells where a block or an instruction begins.
//!
//! The bug: a second block holding a jump past the last block (a validator
//! that reports the first dangling jump and trips over the next). A person
//! would write two blocks of one instruction each, `jump 2`.

use arbitrary::{Result, Unstructured};

/// One instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Instr {
    /// Pushes a constant.
    Const(u16),
    /// Adds the top two values.
    Add,
    /// Jumps to the block at this index.
    Jump(u32),
}

/// The program: 1 to 16 blocks (a count drawn first), each of 1 to 8
/// instructions (a count drawn per block), all in this one function.
#[inline(never)]
pub fn program(u: &mut Unstructured<'_>) -> Result<Vec<Vec<Instr>>> {
    let blocks = u.int_in_range(1..=16u32)?;
    let mut program = Vec::new();
    for _ in 0..blocks {
        let length = u.int_in_range(1..=8u32)?;
        let mut block = Vec::new();
        for _ in 0..length {
            block.push(match u.int_in_range(0..=2u8)? {
                0 => Instr::Const(u.arbitrary()?),
                1 => Instr::Add,
                _ => Instr::Jump(u.arbitrary()?),
            });
        }
        program.push(block);
    }
    Ok(program)
}

/// The blocks holding a jump past the last block, in order.
pub fn dangling(program: &[Vec<Instr>]) -> Vec<usize> {
    let past = |i: &Instr| matches!(i, Instr::Jump(to) if *to as usize >= program.len());
    (0..program.len()).filter(|&b| program[b].iter().any(past)).collect()
}

/// The fuzz target's body: panics on the bug.
pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    if let Ok(program) = program(&mut u) {
        if let [first, second, ..] = dangling(&program)[..] {
            panic!("a second block jumps past the last: blocks {first} and {second} of {}", program.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_smallest_program_a_person_would_write_has_the_bug() {
        // Two blocks (a count of 1 in 1..=16), each of one instruction (0 in
        // 1..=8) that jumps (2) to block 2 (a little-endian u32; the last
        // one's other three bytes read zero from no data).
        let input = [1, 0, 2, 2, 0, 0, 0, 0, 2, 2];
        let program = program(&mut Unstructured::new(&input)).unwrap();
        assert_eq!(program, vec![vec![Instr::Jump(2)], vec![Instr::Jump(2)]]);
        assert_eq!(dangling(&program), [0, 1]);
        assert_eq!(dangling(&[vec![Instr::Jump(1)], vec![Instr::Jump(2)]]), [1]);
    }
}
