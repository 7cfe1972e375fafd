#![no_main]

//! Coverage that depends on the runs before it in the same process
//! (decision 0090, `tests/cli/corpus.rs`): whether any input so far ended
//! with `x` is kept for the life of the process, as a cache keeps what its
//! callers gave it. Run alone, an input covers the marked branch when it
//! ends with `x` and has 4 bytes or more; after such an input, every input
//! of 4 bytes or more does.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use libfuzzer_sys::fuzz_target;

static SEEN_X: AtomicBool = AtomicBool::new(false);

#[inline(never)]
fn marked(data: &[u8]) -> usize {
    data.len()
}

fuzz_target!(|data: &[u8]| {
    // No branch: every run of an input shows the same edges here.
    SEEN_X.fetch_or(data.last().copied().unwrap_or(0) == b'x', Relaxed);
    if SEEN_X.load(Relaxed) && data.len() >= 4 {
        std::hint::black_box(marked(data));
    }
});
