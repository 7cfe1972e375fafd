//! A small stack machine ("VM01") with a slot allocator.
//!
//! Ops: `PUSH b`, `ADD`, `DUP`, `SWAP`, `DROP`, `ALLOC` (pushes a new handle),
//! `FREE` (pops a handle), `WRITE` (pops a value, then a handle, and stores the
//! value in the handle's slot), `READ` (pops a handle, pushes its value).
//! Stack underflow and unknown ops reject the program.
//!
//! Two planted bugs, both killing the process rather than panicking: freeing a
//! handle twice is detected by the allocator, which aborts (SIGABRT) the way
//! glibc's `free` does; writing through handle 0 (the null slot, never
//! allocated) goes through its null base pointer (SIGSEGV).

use crate::{Error, Result};

/// The program's first four bytes.
pub const MAGIC: &[u8; 4] = b"VM01";
/// Push the next byte.
pub const PUSH: u8 = 0x10;
/// Pop two values, push their wrapping sum.
pub const ADD: u8 = 0x11;
/// Duplicate the top value.
pub const DUP: u8 = 0x13;
/// Swap the top two values.
pub const SWAP: u8 = 0x14;
/// Pop and forget the top value.
pub const DROP: u8 = 0x15;
/// Allocate a slot; push its handle.
pub const ALLOC: u8 = 0x31;
/// Pop a handle and free its slot.
pub const FREE: u8 = 0x32;
/// Pop a value, then a handle; store the value in the slot.
pub const WRITE: u8 = 0x33;
/// Pop a handle; push the value in its slot.
pub const READ: u8 = 0x34;

/// Runs a program; returns the final stack.
pub fn run(data: &[u8]) -> Result<Vec<u8>> {
    let code = data.strip_prefix(MAGIC).ok_or(Error("vm: bad magic"))?;
    let mut vm = Machine { stack: Vec::new(), slots: Slots::new() };
    let mut pc = 0;
    while pc < code.len() {
        let op = code[pc];
        pc += 1;
        match op {
            PUSH => {
                let b = *code.get(pc).ok_or(Error("vm: truncated push"))?;
                vm.stack.push(b);
                pc += 1;
            }
            ADD => {
                let (a, b) = (vm.pop()?, vm.pop()?);
                vm.stack.push(a.wrapping_add(b));
            }
            DUP => {
                let a = vm.pop()?;
                vm.stack.extend([a, a]);
            }
            SWAP => {
                let (a, b) = (vm.pop()?, vm.pop()?);
                vm.stack.extend([a, b]);
            }
            DROP => {
                vm.pop()?;
            }
            ALLOC => {
                let handle = vm.slots.alloc()?;
                vm.stack.push(handle);
            }
            FREE => {
                let handle = vm.pop()?;
                vm.slots.free(handle)?;
            }
            WRITE => {
                let value = vm.pop()?;
                let handle = vm.pop()?;
                vm.slots.write(handle, value)?;
            }
            READ => {
                let handle = vm.pop()?;
                let value = vm.slots.read(handle)?;
                vm.stack.push(value);
            }
            _ => return Err(Error("vm: unknown op")),
        }
        if vm.stack.len() > 64 {
            return Err(Error("vm: stack overflow"));
        }
    }
    Ok(vm.stack)
}

struct Machine {
    stack: Vec<u8>,
    slots: Slots,
}

impl Machine {
    fn pop(&mut self) -> Result<u8> {
        self.stack.pop().ok_or(Error("vm: stack underflow"))
    }
}

/// Where a slot keeps its value (byte 0 is a tag).
const VALUE_FIELD: usize = 1;

/// Slot 0 is the null slot: reserved, never handed out, with a null base.
struct Slots {
    values: Vec<[u8; 8]>,
    live: Vec<bool>,
}

impl Slots {
    fn new() -> Self {
        Slots { values: vec![[0; 8]; 16], live: vec![false; 16] }
    }

    fn alloc(&mut self) -> Result<u8> {
        let handle = (1..self.live.len()).find(|&h| !self.live[h]).ok_or(Error("vm: out of slots"))?;
        self.live[handle] = true;
        Ok(handle as u8)
    }

    fn free(&mut self, handle: u8) -> Result<()> {
        let live = self.live.get_mut(usize::from(handle)).ok_or(Error("vm: bad handle"))?;
        if !*live {
            // The planted abort: the allocator treats this as heap corruption.
            eprintln!("vm: double free of handle {handle}");
            std::process::abort();
        }
        *live = false;
        Ok(())
    }

    fn base(&mut self, handle: u8) -> *mut u8 {
        if handle == 0 {
            std::ptr::null_mut()
        } else {
            self.values[usize::from(handle)].as_mut_ptr()
        }
    }

    fn write(&mut self, handle: u8, value: u8) -> Result<()> {
        if usize::from(handle) >= self.values.len() {
            return Err(Error("vm: bad handle"));
        }
        // The planted wild write: handle 0 passes the check; its base is null.
        let base = self.base(handle);
        // SAFETY: not safe for handle 0, which is the bug being planted.
        unsafe { std::ptr::write_volatile(base.wrapping_add(VALUE_FIELD), value) };
        Ok(())
    }

    fn read(&self, handle: u8) -> Result<u8> {
        let slot = self.values.get(usize::from(handle)).ok_or(Error("vm: bad handle"))?;
        Ok(slot[VALUE_FIELD])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_runs() {
        assert_eq!(run(b"VM01\x10\x02\x10\x03\x11\x31\x13\x10\x09\x33\x34").unwrap(), vec![5, 9]);
    }

    #[test]
    fn stack_underflow_is_rejected() {
        assert_eq!(run(b"VM01\x11"), Err(Error("vm: stack underflow")));
    }
}
