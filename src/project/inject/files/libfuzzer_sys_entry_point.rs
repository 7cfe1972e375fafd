//! Written as `src/cmc_standin.rs` of the `libfuzzer-sys` stand-in (`standin.rs`, `standin_module`): the harness's `main`, which serves the fork server's requests in place of libFuzzer's.
//!
//! This is the form for editions up to 2021 and for libfuzzer-sys 0.4.9 on,
//! whose `fuzz_target!` defines `LLVMFuzzerInitialize`. `standin_module`
//! edits it for the others: edition 2024 gets `#[unsafe(no_mangle)]` and
//! `unsafe extern "C"`; 0.4.0 to 0.4.8 lose the `extern` block and call the
//! library's own `super::initialize`. It compiles only as a module of the
//! stand-in (`super::test_input_wrap`). This note, up to the blank line, is
//! not written.

//! Written by cargo-minimize-crash: the harness's entry point.

extern crate cmc_runtime;

use std::os::raw::{c_char, c_int};

extern "C" {
    fn LLVMFuzzerInitialize(argc: *const isize, argv: *const *const *const u8) -> isize;
}

/// The process's entry point, in place of libFuzzer's.
#[no_mangle]
pub extern "C" fn main(argc: c_int, argv: *const *const c_char) -> c_int {
    let argc = argc as isize;
    let argv = argv as *const *const u8;
    unsafe { LLVMFuzzerInitialize(&argc, &argv) };
    // The copy's own `LLVMFuzzerTestOneInput`, called through a pointer as
    // libFuzzer calls it: not inlined here, so its code, counters and frame
    // are those of a `cargo fuzz build` binary.
    cmc_runtime::serve(super::test_input_wrap)
}

/// libFuzzer's mutator is not linked; the harness never mutates.
#[no_mangle]
pub extern "C" fn LLVMFuzzerMutate(_data: *mut u8, size: usize, max_size: usize) -> usize {
    if size < max_size {
        size
    } else {
        max_size
    }
}
