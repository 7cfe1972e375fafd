//! The inputs that must not be run in-process, found before the parser runs: vm's abort and wild write, rle's endless loops.
//!
//! `catch_unwind` catches panics only. vm's double free calls `abort` and its
//! write through handle 0 is a SIGSEGV, both fatal to this process; rle's
//! zero jump never returns. So vm programs are run first on a shadow of the
//! machine (values, slots, stack; the same rules as `planted::vm`), and rle
//! streams have their control flow walked: the decoder's next position depends
//! only on the op bytes (the output can only stop it early, with an error), so
//! a position reached twice is a loop, and a walk that ends means the decoder
//! does. (nest's unbounded recursion is not reached: there is no nest corpus.)

use planted::{rle, triage, vm};

/// Why `data`, given to the parser called `parser`, must not be run; None when it is safe.
pub(crate) fn check(parser: &str, data: &[u8]) -> Option<&'static str> {
    match parser {
        "vm" => vm_fault(data),
        "rle" => rle_loop(data),
        _ => None,
    }
}

/// [`check`] for the `triage` target: the parser its first byte picks, on the rest.
pub(crate) fn triage(data: &[u8]) -> Option<&'static str> {
    let (&selector, rest) = data.split_first()?;
    check(triage::parser(selector).name, rest)
}

/// The shadow machine's verdict: the abort or wild write the program would reach, else None
/// (it ends, or stops at an error first).
fn vm_fault(data: &[u8]) -> Option<&'static str> {
    let code = data.strip_prefix(vm::MAGIC)?;
    let mut stack: Vec<u8> = Vec::new();
    let mut live = [false; 16];
    let mut values = [0u8; 16];
    let mut pc = 0;
    while pc < code.len() {
        let op = code[pc];
        pc += 1;
        match op {
            vm::PUSH => {
                stack.push(*code.get(pc)?);
                pc += 1;
            }
            vm::ADD => {
                let (a, b) = (stack.pop()?, stack.pop()?);
                stack.push(a.wrapping_add(b));
            }
            vm::DUP => {
                let a = stack.pop()?;
                stack.extend([a, a]);
            }
            vm::SWAP => {
                let (a, b) = (stack.pop()?, stack.pop()?);
                stack.extend([a, b]);
            }
            vm::DROP => {
                stack.pop()?;
            }
            vm::ALLOC => {
                let handle = (1..live.len()).find(|&h| !live[h])?;
                live[handle] = true;
                stack.push(handle as u8);
            }
            vm::FREE => {
                let slot = live.get_mut(usize::from(stack.pop()?))?;
                if !*slot {
                    return Some("vm: double free (abort)");
                }
                *slot = false;
            }
            vm::WRITE => {
                let (value, handle) = (stack.pop()?, stack.pop()?);
                let slot = values.get_mut(usize::from(handle))?;
                if handle == 0 {
                    return Some("vm: write through the null slot (SIGSEGV)");
                }
                *slot = value;
            }
            vm::READ => {
                let value = *values.get(usize::from(stack.pop()?))?;
                stack.push(value);
            }
            _ => return None,
        }
        if stack.len() > 64 {
            return None;
        }
    }
    None
}

/// The walk of an rle stream's control flow: a loop if a position comes back, else None.
fn rle_loop(data: &[u8]) -> Option<&'static str> {
    let ops = data.strip_prefix(rle::MAGIC)?;
    let mut seen = vec![false; ops.len()];
    let mut pos = 0;
    while pos < ops.len() {
        if std::mem::replace(&mut seen[pos], true) {
            return Some("rle: a jump loops forever");
        }
        let arg = |i: usize| ops.get(pos + i).copied();
        pos = match ops[pos] {
            rle::LIT => {
                let n = usize::from(arg(1)?);
                ops.get(pos + 2..pos + 2 + n)?;
                pos + 2 + n
            }
            rle::RUN | rle::COPY => {
                arg(2)?;
                pos + 3
            }
            rle::JUMP => pos.checked_add_signed(isize::from(arg(1)? as i8))?,
            _ => return None,
        };
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vm_faults_are_found_and_safe_programs_pass() {
        assert_eq!(check("vm", b"VM01\x31\x13\x32\x32"), Some("vm: double free (abort)"));
        assert_eq!(check("vm", b"VM01\x10\x05\x32"), Some("vm: double free (abort)"));
        assert_eq!(check("vm", b"VM01\x10\x00\x10\x07\x33"), Some("vm: write through the null slot (SIGSEGV)"));
        assert_eq!(check("vm", b"VM01\x10\x02\x10\x03\x11\x31\x13\x10\x09\x33\x34"), None);
        assert_eq!(check("vm", b"VM01\x11\x31\x32\x32"), None, "stopped by the underflow first");
        assert_eq!(check("vm", b"VM01\x10\x20\x32"), None, "a bad handle is an error");
    }

    #[test]
    fn rle_loops_are_found_and_forward_streams_pass() {
        assert_eq!(check("rle", b"RLE1\x01\x01a\x05\x00"), Some("rle: a jump loops forever"));
        assert_eq!(check("rle", b"RLE1\x05\x02\x05\xfe"), Some("rle: a jump loops forever"));
        assert_eq!(check("rle", b"RLE1\x01\x02ab\x02\x03c\x03\x02\x02\x05\x05\x01\x01X\x02\x01z"), None);
        // A detour: jump over a block, jump back into it, leave it past the back jump.
        assert_eq!(check("rle", b"RLE1\x05\x07\x02\x03c\x05\x04\x05\xfb\x01\x01z"), None);
        assert_eq!(planted::rle::decode(b"RLE1\x05\x07\x02\x03c\x05\x04\x05\xfb\x01\x01z").unwrap(), b"cccz");
    }

    #[test]
    fn triage_inputs_are_checked_by_their_selector() {
        assert_eq!(triage(b"\x06VM01\x10\x00\x10\x07\x33"), Some("vm: write through the null slot (SIGSEGV)"));
        assert_eq!(triage(b"\x07RLE1\x05\x00"), Some("rle: a jump loops forever"));
        assert_eq!(triage(b"\x04VM01\x10\x00\x10\x07\x33"), None, "tlv, not vm");
        assert_eq!(triage(b""), None);
    }
}
