#![no_main]

//! The typed target: `arbitrary` builds a whole `Scene` (strings, nested
//! vectors of enums) from the fuzzer's bytes.

use libfuzzer_sys::fuzz_target;
use planted::scene::{render, Scene};

fuzz_target!(|scene: Scene| {
    planted::count::tick();
    render(&scene);
});
