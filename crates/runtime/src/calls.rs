//! Call chains: for each draw, the frames it was drawn under, read by walking the frame pointers (the harness is built with them).
//!
//! A target that builds its value by hand (wasm-smith's modules, any
//! `Arbitrary` written without the derive) marks no value's beginning or
//! end; the functions it calls do. Each draw records the chain of frames
//! between the child's call of the target ([`set_limit`]) and the draw, the
//! outermost first: for each frame a hash of its instance (its address and
//! its return address) and one of its call site (the return address alone).
//! The client reads spans from consecutive draws that share frames.
//!
//! The walk reads only inside the stack between the draw and the limit,
//! each frame above the last: a frame without a frame pointer (code not
//! built with them, on another architecture: no walk at all) ends the chain
//! early, never reads elsewhere.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The most frames a chain holds (the outermost are dropped past it).
pub(crate) const MAX_FRAMES: usize = 64;

/// The frame address of the child's function that calls the target: the
/// walk stops there. 0: no walk (replay, the server).
static LIMIT: AtomicUsize = AtomicUsize::new(0);

/// Records the caller's frame as where walks stop. Called by the child in
/// the function that calls the target, so every frame of the target's run
/// lies below it.
#[inline(always)]
pub(crate) fn set_limit() {
    LIMIT.store(frame_address(), Ordering::Relaxed);
}

/// The current function's frame address (its frame pointer), 0 where there is none to read.
#[inline(always)]
pub(crate) fn frame_address() -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        let fp: usize;
        // SAFETY: reads a register.
        unsafe { std::arch::asm!("mov {}, rbp", out(reg) fp, options(nomem, nostack, preserves_flags)) };
        fp
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        0
    }
}

/// The chain above the frame at `from` (the draw's own entry point, whose
/// frame is not part of it), the outermost first, into `out`; how many.
pub(crate) fn chain(from: usize, out: &mut [(u32, u32); MAX_FRAMES]) -> usize {
    let limit = LIMIT.load(Ordering::Relaxed);
    let mut n = 0;
    let mut fp = from;
    while n < MAX_FRAMES && limit != 0 && fp != 0 && fp < limit && fp % 16 == 0 {
        // SAFETY: `fp` is a frame address between the draw's frame and the
        // limit, on this thread's stack (checked above), so both words read
        // are stack memory of a live frame.
        let next = unsafe { *(fp as *const usize) };
        if next <= fp || next >= limit {
            break;
        }
        // SAFETY: as above, for the frame `next`, also below the limit.
        let site = unsafe { *((next + 8) as *const usize) };
        out[n] = (hash(next, site), hash(0, site));
        n += 1;
        fp = next;
    }
    out[..n].reverse();
    n
}

/// A 32-bit hash of a frame address and a return address.
fn hash(frame: usize, site: usize) -> u32 {
    let mixed = (frame as u64).rotate_left(29) ^ (site as u64);
    (mixed.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as u32
}
