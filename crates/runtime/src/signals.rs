//! Crash frames: handlers for the fatal signals that record raw return addresses in shared memory, then die by the same signal.
//!
//! Installed once in the server (every child inherits the handlers and the
//! alternate stack). The handler allocates nothing: glibc's `backtrace()`
//! (called once in the server first, so that libgcc's unwinder is loaded
//! before any child needs it) fills a buffer on the alternate stack; the
//! addresses, starting at the interrupted instruction, go to shared memory
//! with the main executable's load base, measured once in the server (PIE).
//! The client symbolizes them (once per new address). Then the action that was
//! there before ours (the default, or Rust's stack-overflow handler under a
//! Rust `main`) is put back and the signal happens again (a fault by
//! returning, a sent signal by raising it), so the process dies as it would
//! have without us.

use std::sync::OnceLock;

use cmc_protocol::shm::{FRAME_CAPACITY, STACK_OVERFLOW};
use cmc_protocol::ResultKind;

use crate::shared::SharedMemory;

/// The signals whose crashes get frames.
const SIGNALS: [libc::c_int; 5] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGFPE, libc::SIGILL, libc::SIGABRT];
/// The alternate stack: room for the unwinder even after a stack overflow.
const ALT_STACK_LEN: usize = 256 << 10;
/// How many frames `backtrace()` may return (the handler's own and libc's come first).
const MAX_FRAMES: usize = FRAME_CAPACITY + 16;

extern "C" {
    // glibc's <execinfo.h>; the libc crate does not expose it everywhere.
    fn backtrace(buffer: *mut *mut libc::c_void, size: libc::c_int) -> libc::c_int;
}

/// What the handler needs, set once before the first fork.
struct State {
    shm: SharedMemory,
    image_base: u64,
    image_len: u64,
    /// The actions in place before ours (Rust's stack-overflow handler under a
    /// Rust `main`), in the order of [`SIGNALS`]: put back before dying.
    previous: [libc::sigaction; SIGNALS.len()],
}

static STATE: OnceLock<State> = OnceLock::new();

/// An `SA_SIGINFO` handler.
type Handler = extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void);

/// Installs the handlers and the alternate stack in the server. Best effort: a
/// failure only means crashes by signal have no frames.
pub(crate) fn install(shm: SharedMemory) {
    let (image_base, image_len) = main_image();
    // SAFETY: a zeroed `sigaction` is a valid value (SIG_DFL); `sigaction` only reads the current one.
    let previous = SIGNALS.map(|signal| unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut old);
        old
    });
    if STATE.set(State { shm, image_base, image_len, previous }).is_err() {
        return;
    }
    // SAFETY: plain system calls with valid pointers; the stack mapping lives
    // as long as the process; the handler only does async-signal-safe work
    // (after the warm-up call below, `backtrace` does not allocate or load).
    unsafe {
        let mut warm_up = [std::ptr::null_mut(); 4];
        backtrace(warm_up.as_mut_ptr(), warm_up.len() as libc::c_int);
        let protection = libc::PROT_READ | libc::PROT_WRITE;
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;
        let stack = libc::mmap(std::ptr::null_mut(), ALT_STACK_LEN, protection, flags, -1, 0);
        if stack == libc::MAP_FAILED {
            return;
        }
        let alt = libc::stack_t { ss_sp: stack, ss_flags: 0, ss_size: ALT_STACK_LEN };
        if libc::sigaltstack(&alt, std::ptr::null_mut()) != 0 {
            return;
        }
        for signal in SIGNALS {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = handler as Handler as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_RESETHAND;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

extern "C" fn handler(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    let Some(state) = STATE.get() else { return };
    // A panic aborts after the hook recorded it: its location is the signature, no frames needed.
    let panicked = state.shm.with(|shm, layout| layout.kind(shm) == ResultKind::Panicked);
    if !panicked {
        let mut addresses = [0u64; MAX_FRAMES];
        let n = capture(&mut addresses);
        let frames = &addresses[..n];
        // Start at the interrupted instruction: the handler and the signal trampoline are ours and libc's.
        let start = interrupted(context).and_then(|(pc, _)| frames.iter().position(|&a| a == pc)).unwrap_or(1);
        let frames = &frames[start.min(frames.len())..];
        let overflow = if ran_out_of_stack(signal, info, context) { STACK_OVERFLOW } else { 0 };
        state.shm.with(|shm, layout| {
            layout.write_frames(shm, signal as u32 | overflow, state.image_base, state.image_len, frames);
        });
    }
    // Put back what was there before us (SA_RESETHAND already restored the
    // default action), so the process dies as it would have without us: a
    // fault happens again when we return; a signal that was sent (`abort`,
    // `kill`: no fault address) is sent again, delivered once we return.
    if let Some(index) = SIGNALS.iter().position(|&s| s == signal) {
        // SAFETY: async-signal-safe system calls with valid pointers.
        unsafe { libc::sigaction(signal, &state.previous[index], std::ptr::null_mut()) };
    }
    // SAFETY: the kernel passes a valid `siginfo_t` to an SA_SIGINFO handler.
    let sent = info.is_null() || unsafe { (*info).si_code } <= 0;
    if sent {
        // SAFETY: raise is async-signal-safe.
        unsafe { libc::raise(signal) };
    }
}

/// The calling thread's return addresses, innermost first, into `addresses`;
/// how many. Allocates nothing (see [`install`]'s warm-up).
fn capture(addresses: &mut [u64; MAX_FRAMES]) -> usize {
    let mut buffer = [std::ptr::null_mut(); MAX_FRAMES];
    // SAFETY: `buffer` has room for `MAX_FRAMES` pointers.
    let n = unsafe { backtrace(buffer.as_mut_ptr(), MAX_FRAMES as libc::c_int) }.max(0) as usize;
    for (slot, frame) in addresses.iter_mut().zip(&buffer[..n]) {
        *slot = *frame as u64;
    }
    n
}

/// Records the calling thread's frames as a crash's, under signal 0: the
/// panic hook's, for a panic raised inside the standard library, which the
/// client locates by its first caller outside it. Only then: a panic in the
/// program's own code pays nothing.
pub(crate) fn record_panic_frames() {
    let Some(state) = STATE.get() else { return };
    let mut addresses = [0u64; MAX_FRAMES];
    let n = capture(&mut addresses);
    // This function's own frame first: skipped.
    let frames = &addresses[1.min(n)..n];
    state.shm.with(|shm, layout| layout.write_frames(shm, 0, state.image_base, state.image_len, frames));
}

/// How far below the stack pointer a fault still counts as the stack
/// running out: a frame's stack probe touches the page it needs next.
const OVERFLOW_REACH: u64 = 1 << 20;

/// Whether a SIGSEGV or SIGBUS faulted next to the stack pointer (at most
/// [`OVERFLOW_REACH`] below it, or a page above): the guard page below the
/// stack, which a deep recursion runs into wherever its frames happen to
/// end; any other fault is a bad pointer.
fn ran_out_of_stack(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) -> bool {
    if !(signal == libc::SIGSEGV || signal == libc::SIGBUS) || info.is_null() {
        return false;
    }
    // SAFETY: the kernel passes a valid `siginfo_t` to an SA_SIGINFO handler; a fault's has its address.
    let fault = unsafe { (*info).si_addr() } as u64;
    let Some((_, sp)) = interrupted(context) else { return false };
    fault <= sp.saturating_add(4096) && sp.saturating_sub(fault) <= OVERFLOW_REACH
}

/// The interrupted instruction's address and stack pointer, from the signal's context.
fn interrupted(context: *mut libc::c_void) -> Option<(u64, u64)> {
    if context.is_null() {
        return None;
    }
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    {
        // SAFETY: the kernel passes a `ucontext_t` to an SA_SIGINFO handler.
        let registers = unsafe { &*context.cast::<libc::ucontext_t>() }.uc_mcontext.gregs;
        Some((registers[libc::REG_RIP as usize] as u64, registers[libc::REG_RSP as usize] as u64))
    }
    #[cfg(all(target_os = "linux", target_arch = "aarch64"))]
    {
        // SAFETY: as above.
        let registers = &unsafe { &*context.cast::<libc::ucontext_t>() }.uc_mcontext;
        Some((registers.pc, registers.sp))
    }
    #[cfg(not(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64"))))]
    None
}

/// The main executable's load bias and the end of its last loadable segment
/// (from the bias), from the first object `dl_iterate_phdr` reports.
fn main_image() -> (u64, u64) {
    // `Elf_Addr` is 32 bits wide on 32-bit targets.
    #[allow(clippy::unnecessary_cast)]
    unsafe extern "C" fn first(info: *mut libc::dl_phdr_info, _size: libc::size_t, data: *mut libc::c_void) -> i32 {
        // SAFETY: the loader passes a valid `dl_phdr_info`; `data` is our `(u64, u64)`.
        unsafe {
            let info = &*info;
            let out = &mut *data.cast::<(u64, u64)>();
            let headers = std::slice::from_raw_parts(info.dlpi_phdr, usize::from(info.dlpi_phnum));
            let end = headers
                .iter()
                .filter(|h| h.p_type == libc::PT_LOAD)
                .map(|h| h.p_vaddr as u64 + h.p_memsz as u64)
                .max()
                .unwrap_or(0);
            *out = (info.dlpi_addr as u64, end);
        }
        1 // the first object is the executable: stop
    }
    let mut image = (0u64, 0u64);
    // SAFETY: the callback writes only through `data`, which points at `image`.
    unsafe { libc::dl_iterate_phdr(Some(first), (&mut image as *mut (u64, u64)).cast()) };
    image
}
