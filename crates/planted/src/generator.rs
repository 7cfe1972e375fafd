//! A hand-built generator (issue 48): a module of functions of instructions,
//! built in loops straight from an `Unstructured` with no derive, as
//! wasm-smith builds its modules. Nothing marks where a value begins or
//! ends: the harness records only the primitive reads (draws).
//!
//! The bug: a call to a function past the last, inside a block inside a
//! block (a validator that forgot nested blocks). A person would write a
//! module of one function holding `block { block { call 1 } }`.

use arbitrary::{Result, Unstructured};

/// One instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Instr {
    /// Pushes a constant.
    Const(i64),
    /// Adds the top two values.
    Add,
    /// Calls the function at this index.
    Call(u32),
    /// A nested block of instructions.
    Block(Vec<Instr>),
}

/// The deepest blocks nest.
const MAX_DEPTH: u32 = 4;

/// A module: up to 20 functions (a count drawn first), each a body of
/// instructions drawn while a continuation flag reads true.
pub fn module(u: &mut Unstructured<'_>) -> Result<Vec<Vec<Instr>>> {
    let n = u.int_in_range(0..=20u32)?;
    (0..n).map(|_| body(u, 0)).collect()
}

/// Instructions while a flag reads true; a block's body one level deeper.
fn body(u: &mut Unstructured<'_>, depth: u32) -> Result<Vec<Instr>> {
    let mut out = Vec::new();
    while u.arbitrary::<bool>()? {
        out.push(match u.int_in_range(0..=3u8)? {
            0 => Instr::Const(u.arbitrary()?),
            1 => Instr::Add,
            2 => Instr::Call(u.arbitrary()?),
            _ if depth < MAX_DEPTH => Instr::Block(body(u, depth + 1)?),
            _ => Instr::Add,
        });
    }
    Ok(out)
}

/// Whether some call at a depth of at least two blocks names a function
/// past the last.
pub fn calls_past_the_end_nested(module: &[Vec<Instr>]) -> bool {
    fn search(body: &[Instr], depth: u32, n: usize) -> bool {
        body.iter().any(|i| match i {
            Instr::Call(f) => depth >= 2 && *f as usize >= n,
            Instr::Block(inner) => search(inner, depth + 1, n),
            _ => false,
        })
    }
    module.iter().any(|f| search(f, 0, module.len()))
}

/// The fuzz target's body: panics on the bug.
pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    if let Ok(module) = module(&mut u) {
        if calls_past_the_end_nested(&module) {
            panic!("a call past the last function in a nested block: {} functions", module.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_smallest_module_a_person_would_write_has_the_bug() {
        // One function: flag, block, flag, block, flag, call 1 (little-endian u32), then the flags that end each body.
        let input = [1, 1, 3, 1, 3, 1, 2, 1, 0, 0, 0, 0, 0, 0];
        let module = module(&mut Unstructured::new(&input)).unwrap();
        let expected = vec![vec![Instr::Block(vec![Instr::Block(vec![Instr::Call(1)])])]];
        assert_eq!(module, expected);
        assert!(calls_past_the_end_nested(&module));
        assert!(!calls_past_the_end_nested(&[vec![Instr::Block(vec![Instr::Call(1)])]]));
    }
}
