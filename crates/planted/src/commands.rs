//! A typed target's input: a program of stack-machine commands, built by
//! `arbitrary` from the fuzzer's bytes (with the `arbitrary` feature), and the
//! small interpreter that runs it.
//!
//! The bug: `pick n` copies the value `n` places below the top of the stack,
//! and its bounds check is off by one (`n > len` where `n >= len` was meant),
//! so `pick` with `n` equal to the stack's height (`pick 0` on an empty stack)
//! subtracts below zero (a panic in builds with debug assertions, which fuzz
//! builds have). The smallest program that shows it is that one command alone.

use crate::{Error, Result};

/// The most values the stack holds; a `Push` beyond it is rejected.
pub const MAX_STACK: usize = 64;

/// One command of a program.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Op {
    /// Push a value.
    Push(u32),
    /// Drop the top value (nothing on an empty stack).
    Pop,
    /// Replace the two top values by their (wrapping) sum.
    Add,
    /// Define a symbol.
    Name(String),
    /// Store a blob of data.
    Blob(Vec<u8>),
    /// Call a built-in function: `len`, `sum`, `dup` or `pick`; others do nothing.
    Call {
        /// The function's name.
        name: String,
        /// Its arguments.
        args: Vec<i16>,
    },
}

/// The interpreter's state.
#[derive(Clone, Debug, Default)]
pub struct Machine {
    /// The value stack, top last.
    pub stack: Vec<u32>,
    /// Symbols defined by `Name`.
    pub names: Vec<String>,
    /// Blobs stored by `Blob`.
    pub blobs: Vec<Vec<u8>>,
}

impl Machine {
    /// Runs one command.
    pub fn step(&mut self, op: &Op) -> Result<()> {
        match op {
            Op::Push(value) => {
                if self.stack.len() == MAX_STACK {
                    return Err(Error("stack full"));
                }
                self.stack.push(*value);
            }
            Op::Pop => {
                self.stack.pop();
            }
            Op::Add => {
                if self.stack.len() >= 2 {
                    let (a, b) = (self.stack.pop().unwrap_or(0), self.stack.pop().unwrap_or(0));
                    self.stack.push(a.wrapping_add(b));
                }
            }
            Op::Name(name) => self.names.push(name.clone()),
            Op::Blob(data) => self.blobs.push(data.clone()),
            Op::Call { name, args } => self.call(name, args)?,
        }
        Ok(())
    }

    fn call(&mut self, name: &str, args: &[i16]) -> Result<()> {
        let value = match name {
            "len" => (self.names.len() + self.blobs.len()) as u32,
            "sum" => args.iter().fold(0u32, |total, &a| total.wrapping_add(a as u32)),
            "dup" => match self.stack.last() {
                Some(&top) => top,
                None => return Ok(()),
            },
            "pick" => {
                let [depth] = args else { return Err(Error("pick takes one argument")) };
                let depth = usize::try_from(*depth).map_err(|_| Error("pick of a negative depth"))?;
                // The planted bug: `>` where `>=` was meant.
                if depth > self.stack.len() {
                    return Err(Error("pick below the bottom of the stack"));
                }
                self.stack[self.stack.len() - 1 - depth]
            }
            _ => return Ok(()),
        };
        if self.stack.len() == MAX_STACK {
            return Err(Error("stack full"));
        }
        self.stack.push(value);
        Ok(())
    }
}

/// Runs a program; returns a checksum of the final stack.
pub fn run(ops: &[Op]) -> Result<u64> {
    let mut machine = Machine::default();
    for op in ops {
        machine.step(op)?;
    }
    Ok(machine.stack.iter().fold(0u64, |total, &v| total.wrapping_mul(31).wrapping_add(u64::from(v))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(depth: i16) -> Op {
        Op::Call { name: "pick".into(), args: vec![depth] }
    }

    #[test]
    fn pick_copies_a_value_below_the_top() {
        assert_eq!(run(&[Op::Push(7), Op::Push(8), pick(1)]), run(&[Op::Push(7), Op::Push(8), Op::Push(7)]));
        assert_eq!(run(&[Op::Push(7), pick(2)]), Err(Error("pick below the bottom of the stack")));
        assert_eq!(run(&[pick(-1)]), Err(Error("pick of a negative depth")));
    }

    #[test]
    #[should_panic(expected = "attempt to subtract with overflow")]
    fn pick_0_on_an_empty_stack_subtracts_below_zero() {
        let _ = run(&[Op::Name("x".into()), pick(0)]);
    }

    #[test]
    #[should_panic(expected = "attempt to subtract with overflow")]
    fn pick_of_the_stack_height_subtracts_below_zero() {
        let _ = run(&[Op::Push(1), Op::Push(2), pick(2)]);
    }
}
