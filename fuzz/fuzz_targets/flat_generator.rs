#![no_main]

//! A generator written as one function of loops (issue 48): a `&[u8]`
//! target whose blocks of instructions are drawn through an `Unstructured`
//! in one function, as regalloc2's are (`planted::flat_generator`).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    planted::flat_generator::run(data);
});
