//! SanitizerCoverage in the harness: the callbacks an instrumented build links against, and each child's features, numbered as libFuzzer numbers them.
//!
//! A coverage harness is compiled as `cargo fuzz build` compiles a fuzz
//! target (`-Cpasses=sancov-module`, 8-bit counters, the PC table, traced
//! comparisons, stack depth on x86-64 Linux). Each instrumented module's
//! constructor registers its counters with
//! [`__sanitizer_cov_8bit_counters_init`] (every module of an executable
//! registers the same merged section, so a start seen before is ignored). The
//! comparison and indirect-call callbacks do nothing: there is no value
//! profile and no mutation. This is our own code, written to be compatible with libFuzzer's
//! `FuzzerTracePC`, not a copy of it:
//!
//! - **[`reset`]** before the target: every counter zeroed;
//! - **[`call`]**: the initial stack recorded where libFuzzer's
//!   `RecordInitialStack` records it, 20 bytes under the stack pointer the
//!   target is called from, and `__sancov_lowest_stack` set to it; the target
//!   called through its pointer (the stand-in's copy of libfuzzer-sys's
//!   `LLVMFuzzerTestOneInput`, so every frame from there down is a `cargo
//!   fuzz build` binary's, and so is the stack depth); right after it
//!   returns, before any other call, the lowest stack read and the counters
//!   copied aside. Where the runtime is instrumented too (built without our
//!   `RUSTC_WRAPPER`), counting on a copy keeps the features the same for
//!   runs that covered the same code, as only input-independent runtime code
//!   runs between [`reset`] and the copy;
//! - **[`collect`]**: for each non-zero counter at global index `i` (regions in
//!   registration order), the feature `i * 8 + bucket`, buckets [1] [2] [3]
//!   [4-7] [8-15] [16-31] [32-127] [128+]; then, when the run went deeper than
//!   where it started, one stack feature `counters * 8 + step(depth / 8)`,
//!   `step` growing like `8 * log2`. Ascending, as libFuzzer's `CollectFeatures`.
//!
//! `__sancov_lowest_stack` is an initial-exec thread-local `uintptr_t` the
//! stack-depth instrumentation reads and lowers in every non-leaf function;
//! `#[thread_local]` is unstable, so it is defined in `.tbss` with
//! `global_asm!` and read and written with `asm!`, on x86-64 Linux only
//! (elsewhere the build has no stack-depth flag and runs no stack feature).
//! The `__sanitizer_*` functions are not instrumented themselves (the pass
//! skips that prefix), so nothing recurses.

use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering::Relaxed};

use crate::shared::SharedMemory;

/// How many counter regions (instrumented modules) are kept; more are ignored.
const MAX_REGIONS: usize = 256;

/// Where each registered region starts.
static STARTS: [AtomicUsize; MAX_REGIONS] = [const { AtomicUsize::new(0) }; MAX_REGIONS];
/// How many counters each registered region has.
static LENS: [AtomicUsize; MAX_REGIONS] = [const { AtomicUsize::new(0) }; MAX_REGIONS];
/// How many regions are registered.
static REGIONS: AtomicUsize = AtomicUsize::new(0);
/// How many counters all regions have together.
static TOTAL: AtomicUsize = AtomicUsize::new(0);
/// The initial stack [`call`] recorded where the target is called.
static INITIAL_STACK: AtomicUsize = AtomicUsize::new(0);
/// The lowest stack the run reached, as [`stop`] read it.
static LOWEST_STACK: AtomicUsize = AtomicUsize::new(0);
/// The copy of the counters [`stop`] takes, once mapped.
static SNAPSHOT: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
/// How many bytes the snapshot has (it is used only while that is [`TOTAL`]).
static SNAPSHOT_LEN: AtomicUsize = AtomicUsize::new(0);

/// Registers the 8-bit counters `[start, stop)` of an instrumented module
/// (called by each module's constructor, before `main`).
#[no_mangle]
pub extern "C" fn __sanitizer_cov_8bit_counters_init(start: *const u8, stop: *const u8) {
    register(start as usize, stop as usize);
}

/// Accepts an instrumented module's PC table (not used: features need only the counters).
#[no_mangle]
pub extern "C" fn __sanitizer_cov_pcs_init(_start: *const usize, _stop: *const usize) {}

/// A traced comparison of 1-byte values (no value profile: nothing to do).
#[no_mangle]
pub extern "C" fn __sanitizer_cov_trace_cmp1(_a: u8, _b: u8) {}
/// A traced comparison of 2-byte values.
#[no_mangle]
pub extern "C" fn __sanitizer_cov_trace_cmp2(_a: u16, _b: u16) {}
/// A traced comparison of 4-byte values.
#[no_mangle]
pub extern "C" fn __sanitizer_cov_trace_cmp4(_a: u32, _b: u32) {}
/// A traced comparison of 8-byte values.
#[no_mangle]
pub extern "C" fn __sanitizer_cov_trace_cmp8(_a: u64, _b: u64) {}
/// A traced comparison of a 1-byte value with a constant.
#[no_mangle]
pub extern "C" fn __sanitizer_cov_trace_const_cmp1(_a: u8, _b: u8) {}
/// A traced comparison of a 2-byte value with a constant.
#[no_mangle]
pub extern "C" fn __sanitizer_cov_trace_const_cmp2(_a: u16, _b: u16) {}
/// A traced comparison of a 4-byte value with a constant.
#[no_mangle]
pub extern "C" fn __sanitizer_cov_trace_const_cmp4(_a: u32, _b: u32) {}
/// A traced comparison of an 8-byte value with a constant.
#[no_mangle]
pub extern "C" fn __sanitizer_cov_trace_const_cmp8(_a: u64, _b: u64) {}
/// A traced `switch` on `_value` with the case table `_cases`.
#[no_mangle]
pub extern "C" fn __sanitizer_cov_trace_switch(_value: u64, _cases: *const u64) {}
/// An indirect call to `_callee` (level 4 traces them; libFuzzer uses them
/// only for its value profile).
#[no_mangle]
pub extern "C" fn __sanitizer_cov_trace_pc_indir(_callee: usize) {}

/// Adds the region `[start, stop)` unless it is empty, its start is known
/// already, or the table is full.
fn register(start: usize, stop: usize) {
    let count = REGIONS.load(Relaxed);
    if start >= stop || count == MAX_REGIONS || STARTS[..count].iter().any(|s| s.load(Relaxed) == start) {
        return;
    }
    STARTS[count].store(start, Relaxed);
    LENS[count].store(stop - start, Relaxed);
    REGIONS.store(count + 1, Relaxed);
    TOTAL.fetch_add(stop - start, Relaxed);
}

/// The registered regions: `(start, length)` in registration order.
fn regions() -> impl Iterator<Item = (*mut u8, usize)> {
    (0..REGIONS.load(Relaxed)).map(|i| (STARTS[i].load(Relaxed) as *mut u8, LENS[i].load(Relaxed)))
}

/// How many 8-bit counters the harness registered (0: it is not instrumented).
pub(crate) fn counters() -> usize {
    TOTAL.load(Relaxed)
}

/// How deep below [`reset`]'s stack the run went, in bytes, as [`stop`] saw it.
pub(crate) fn stack_offset() -> u64 {
    let initial = INITIAL_STACK.load(Relaxed);
    initial.saturating_sub(LOWEST_STACK.load(Relaxed)) as u64
}

/// Prepares a run: zeroes every counter and maps the snapshot if need be.
pub(crate) fn reset() {
    for (start, len) in regions() {
        // SAFETY: an instrumented module's counter section, writable and `len` bytes long.
        unsafe { std::ptr::write_bytes(start, 0, len) };
    }
    map_snapshot();
}

/// How far below the caller's stack pointer libFuzzer's `RecordInitialStack`
/// puts the initial stack: `ExecuteCallback` calls it and then the target
/// from the same stack pointer, and it takes the address of its `int` local,
/// 4 bytes under its saved frame pointer, under the return address
/// (libfuzzer-sys compiles libFuzzer with frame pointers).
const INITIAL_STACK_BELOW_CALLER: usize = 8 + 8 + 4;

/// Runs the target on `input` as libFuzzer's `ExecuteCallback` does, the
/// initial stack recorded where `RecordInitialStack` records it, so the
/// stack feature is the one libFuzzer counts (from the target's entry down,
/// the frames are a `cargo fuzz build` binary's); then [`stop`].
#[inline(never)]
pub(crate) fn call(test_one: crate::TestOne, input: &[u8]) -> i32 {
    let initial = stack_pointer() - INITIAL_STACK_BELOW_CALLER;
    INITIAL_STACK.store(initial, Relaxed);
    LOWEST_STACK.store(initial, Relaxed);
    set_lowest_stack(initial);
    // SAFETY: the input and its length, as libFuzzer passes them.
    let code = unsafe { test_one(input.as_ptr(), input.len()) };
    stop();
    code
}

/// Ends a run: reads the lowest stack first, then copies the counters aside.
/// Called right after the target returns: inlined, so no frame of its own
/// comes before the read.
#[inline(always)]
fn stop() {
    LOWEST_STACK.store(lowest_stack().unwrap_or(INITIAL_STACK.load(Relaxed)), Relaxed);
    take_snapshot();
}

/// Writes the run's features into `out`, ascending: the counters' (from the
/// copy [`stop`] took, else the live counters), then the stack feature. The
/// number written, and whether some did not fit.
pub(crate) fn collect(out: &mut [u32]) -> (usize, bool) {
    let total = counters();
    let mut features = Features { out, count: 0, cut: false };
    match snapshot() {
        // SAFETY: the snapshot holds `total` bytes.
        Some(snapshot) => unsafe { scan(snapshot, total, 0, &mut features) },
        None => {
            let mut first = 0;
            for (start, len) in regions() {
                // SAFETY: a registered counter section of `len` bytes.
                unsafe { scan(start, len, first, &mut features) };
                first += len;
            }
        }
    }
    let offset = stack_offset();
    if offset != 0 {
        // libFuzzer's numbers are u32 and wrap past 512 M counters; so do these.
        features.push((total as u64 * 8 + stack_step(offset / 8)) as u32);
    }
    (features.count, features.cut)
}

/// Collects the run's coverage into shared memory: the features in place,
/// then their count, the counters and the stack depth.
pub(crate) fn record(shm: &SharedMemory) {
    shm.with(|shm, layout| {
        let area = layout.features_area(shm);
        // SAFETY: any four bytes are a valid u32; the area is 8-aligned in a page-aligned mapping.
        let (head, entries, _) = unsafe { area.align_to_mut::<u32>() };
        let (count, cut) = if head.is_empty() { collect(entries) } else { (0, true) };
        for entry in &mut entries[..count] {
            *entry = entry.to_le();
        }
        let counters = u32::try_from(counters()).unwrap_or(u32::MAX);
        layout.write_coverage(shm, count as u32, cut, counters, stack_offset());
    });
}

/// Where features go: `out` until it is full, then only `cut`.
struct Features<'a> {
    out: &'a mut [u32],
    count: usize,
    cut: bool,
}

impl Features<'_> {
    fn push(&mut self, feature: u32) {
        match self.out.get_mut(self.count) {
            Some(slot) => {
                *slot = feature;
                self.count += 1;
            }
            None => self.cut = true,
        }
    }

    /// The feature of counter `index` with value `value` (none for 0).
    fn counter(&mut self, index: usize, value: u8) {
        if value != 0 {
            self.push((index as u64 * 8 + u64::from(bucket(value))) as u32);
        }
    }
}

/// Pushes the features of the `len` counters at `start`, the first of which
/// has global index `first`; zero 8-byte words are skipped whole.
///
/// # Safety
///
/// `start..start + len` must be readable.
unsafe fn scan(start: *const u8, len: usize, first: usize, features: &mut Features<'_>) {
    let mut i = 0;
    // SAFETY (all reads): inside `start..start + len`, words 8-aligned.
    while i < len && (start as usize + i) % 8 != 0 {
        features.counter(first + i, unsafe { start.add(i).read() });
        i += 1;
    }
    while i + 8 <= len && !features.cut {
        let word = unsafe { start.add(i).cast::<u64>().read() };
        if word != 0 {
            for (j, byte) in word.to_ne_bytes().into_iter().enumerate() {
                features.counter(first + i + j, byte);
            }
        }
        i += 8;
    }
    while i < len {
        features.counter(first + i, unsafe { start.add(i).read() });
        i += 1;
    }
}

/// libFuzzer's counter buckets: [1] [2] [3] [4-7] [8-15] [16-31] [32-127] [128+] -> 0..=7.
fn bucket(value: u8) -> u32 {
    match value {
        0..=1 => 0,
        2 => 1,
        3 => 2,
        4..=7 => 3,
        8..=15 => 4,
        16..=31 => 5,
        32..=127 => 6,
        _ => 7,
    }
}

/// The stack-depth feature's step for a depth of `words` 8-byte words: the
/// depth itself below 8, then 8 steps per power of two (the three bits after
/// the leading one), so it grows like `8 * log2`.
fn stack_step(words: u64) -> u64 {
    if words == 0 {
        return 0;
    }
    let log2 = u64::from(63 - words.leading_zeros());
    if log2 < 3 {
        return words;
    }
    let shift = log2 - 3;
    (shift + 1) * 8 + ((words >> shift) & 7)
}

/// Maps room for a copy of every counter (once per process, or again when a
/// module registered more since; the server never does, so each child maps
/// its own, before the target runs). Without it, [`collect`] reads the live counters.
fn map_snapshot() {
    let total = counters();
    if total == 0 || SNAPSHOT_LEN.load(Relaxed) >= total {
        return;
    }
    let protection = libc::PROT_READ | libc::PROT_WRITE;
    let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;
    // SAFETY: a fresh anonymous mapping, never unmapped (a smaller old one is left alone).
    let map = unsafe { libc::mmap(std::ptr::null_mut(), total, protection, flags, -1, 0) };
    if map != libc::MAP_FAILED {
        SNAPSHOT.store(map.cast(), Relaxed);
        SNAPSHOT_LEN.store(total, Relaxed);
    }
}

/// The snapshot, when it has room for every registered counter.
fn snapshot() -> Option<*mut u8> {
    let snapshot = SNAPSHOT.load(Relaxed);
    (!snapshot.is_null() && SNAPSHOT_LEN.load(Relaxed) >= counters()).then_some(snapshot)
}

/// Copies every region's counters, in order, into the snapshot (if mapped).
fn take_snapshot() {
    let Some(snapshot) = snapshot() else { return };
    let mut at = 0;
    for (start, len) in regions() {
        // SAFETY: `len` readable counters; the snapshot has room for all of them, the sum of the lengths.
        unsafe { std::ptr::copy_nonoverlapping(start, snapshot.add(at), len) };
        at += len;
    }
}

/// The stack pointer here (inlined: the caller's, which a call from there
/// pushes its return address under; elsewhere than x86-64 Linux, where no
/// stack feature is counted, a local's address).
#[inline(always)]
fn stack_pointer() -> usize {
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    {
        let value: usize;
        // SAFETY: reads the stack pointer.
        unsafe { std::arch::asm!("mov {}, rsp", out(reg) value, options(nomem, nostack, preserves_flags)) };
        value
    }
    #[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
    {
        let marker = 0u8;
        std::hint::black_box(&marker) as *const u8 as usize
    }
}

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
std::arch::global_asm!(
    ".pushsection .tbss.__sancov_lowest_stack,\"awT\",@nobits",
    ".globl __sancov_lowest_stack",
    ".type __sancov_lowest_stack,@tls_object",
    ".size __sancov_lowest_stack,8",
    ".p2align 3",
    "__sancov_lowest_stack:",
    ".zero 8",
    ".popsection",
);

/// This thread's `__sancov_lowest_stack`; `None` where it is not defined.
#[inline(always)]
fn lowest_stack() -> Option<usize> {
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    {
        let value: usize;
        // SAFETY: reads the thread-local defined above (local-exec: it is in the executable).
        unsafe {
            std::arch::asm!(
                "mov {}, qword ptr fs:[__sancov_lowest_stack@tpoff]",
                out(reg) value,
                options(nostack, readonly, preserves_flags),
            );
        }
        Some(value)
    }
    #[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
    None
}

/// Sets this thread's `__sancov_lowest_stack` (nothing where it is not defined).
fn set_lowest_stack(value: usize) {
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    // SAFETY: writes the thread-local defined above.
    unsafe {
        std::arch::asm!(
            "mov qword ptr fs:[__sancov_lowest_stack@tpoff], {}",
            in(reg) value,
            options(nostack, preserves_flags),
        );
    }
    #[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
    let _ = value;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_fall_in_libfuzzers_buckets() {
        let expected = [(1, 0), (2, 1), (3, 2), (4, 3), (7, 3), (8, 4), (15, 4), (16, 5), (31, 5)];
        for (value, bucket_) in expected.into_iter().chain([(32, 6), (127, 6), (128, 7), (255, 7)]) {
            assert_eq!(bucket(value), bucket_, "{value}");
        }
    }

    #[test]
    fn the_stack_step_grows_like_eight_log2() {
        assert_eq!((0..8).map(stack_step).collect::<Vec<_>>(), [0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(stack_step(8), 8);
        assert_eq!(stack_step(15), 15);
        assert_eq!(stack_step(16), 16);
        assert_eq!(stack_step(1024), 64);
        assert_eq!(stack_step(4096), 80);
        assert_eq!(stack_step(1 << 20), 144);
        assert_eq!(stack_step(u64::MAX), 495, "libFuzzer's room for the stack features");
        let steps: Vec<u64> = (1..100_000).map(stack_step).collect();
        assert!(steps.windows(2).all(|w| w[0] <= w[1]), "monotonic");
    }

    /// Scans `counters` as one region starting at global index `first`, into room for `room` features.
    fn scanned(counters: &[u8], first: usize, room: usize) -> (Vec<u32>, bool) {
        let mut out = vec![0; room];
        let mut features = Features { out: &mut out, count: 0, cut: false };
        // SAFETY: a live slice.
        unsafe { scan(counters.as_ptr(), counters.len(), first, &mut features) };
        let (count, cut) = (features.count, features.cut);
        out.truncate(count);
        (out, cut)
    }

    #[test]
    fn non_zero_counters_become_ascending_features_across_words() {
        let mut counters = vec![0u8; 40];
        counters[0] = 1;
        counters[7] = 2;
        counters[8] = 200;
        counters[21] = 5;
        counters[39] = 40;
        let (features, cut) = scanned(&counters, 0, 100);
        assert_eq!(features, [0, 7 * 8 + 1, 8 * 8 + 7, 21 * 8 + 3, 39 * 8 + 6]);
        assert!(!cut);
        // Unaligned starts and tails too, with a region's first index.
        let (features, _) = scanned(&counters[3..], 1000, 100);
        assert_eq!(features, [(1000 + 4) * 8 + 1, (1000 + 5) * 8 + 7, (1000 + 18) * 8 + 3, (1000 + 36) * 8 + 6]);
    }

    #[test]
    fn features_past_the_room_are_cut() {
        let counters = [1u8; 16];
        let (features, cut) = scanned(&counters, 0, 3);
        assert_eq!(features, [0, 8, 16]);
        assert!(cut);
    }

    #[test]
    fn registered_regions_number_the_counters_in_order_and_a_run_is_measured() {
        // Leaked: the registry keeps the addresses for the process's life.
        let first: &'static mut [u8] = Box::leak(vec![0u8; 24].into_boxed_slice());
        let second: &'static mut [u8] = Box::leak(vec![0u8; 5].into_boxed_slice());
        let range = |s: &mut [u8]| (s.as_mut_ptr() as *const u8, s.as_mut_ptr().wrapping_add(s.len()) as *const u8);
        let (a, b) = (range(first), range(second));
        __sanitizer_cov_8bit_counters_init(a.0, a.1);
        __sanitizer_cov_8bit_counters_init(a.0, a.1);
        __sanitizer_cov_8bit_counters_init(b.0, b.0);
        __sanitizer_cov_8bit_counters_init(b.0, b.1);
        assert_eq!(counters(), 29, "a repeated start and an empty region are ignored");

        static AT: [AtomicUsize; 2] = [AtomicUsize::new(0), AtomicUsize::new(0)];
        /// A target that counts as instrumented code would: a counter in each region.
        unsafe fn target(_data: *const u8, _size: usize) -> i32 {
            // SAFETY: the registered regions are live.
            unsafe {
                (AT[0].load(Relaxed) as *mut u8).add(23).write(1);
                (AT[1].load(Relaxed) as *mut u8).add(1).write(3);
            }
            0
        }
        AT[0].store(a.0 as usize, Relaxed);
        AT[1].store(b.0 as usize, Relaxed);
        first[2] = 9;
        reset();
        assert_eq!(first[2], 0, "reset zeroes the counters");
        assert_eq!(call(target, b"input"), 0);
        // A counter changed after the call returned is not seen.
        // SAFETY: as above.
        unsafe { a.0.cast_mut().write(1) };
        let mut out = [0; 8];
        let (count, cut) = collect(&mut out);
        let expected_counters = [23 * 8, (24 + 1) * 8 + 2];
        assert_eq!(&out[..2], expected_counters);
        assert!(!cut);
        // Nothing instrumented ran: the stack offset is 0, no stack feature.
        assert_eq!((count, stack_offset()), (2, 0));
        if lowest_stack().is_some() {
            // As an instrumented function 8 KiB deeper would.
            set_lowest_stack(INITIAL_STACK.load(Relaxed) - 8192);
            stop();
            assert_eq!(stack_offset(), 8192);
            let (count, _) = collect(&mut out);
            // The counter written after the first stop is in this copy.
            assert_eq!(out[..count], [0, 23 * 8, 25 * 8 + 2, 29 * 8 + 64], "step(1024 words) = 64, after the counters");
        }
    }
}
