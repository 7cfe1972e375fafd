#![no_main]

//! A hand-built generator target (issue 48): a `&[u8]` target that builds a
//! module through an `Unstructured` itself, as wasm-smith's users do
//! (`planted::generator`).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    planted::generator::run(data);
});
