#![no_main]

//! A typed list target (issue 7, `benches/lists.rs`): panics when the elements
//! add up to at least 3 (`planted::lists::sum3`).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|xs: Vec<u64>| {
    if planted::lists::sum3(&xs) {
        panic!("the sum reached 3");
    }
});
