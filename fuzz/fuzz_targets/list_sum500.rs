#![no_main]

//! A typed list target (issue 7, `benches/lists.rs`): panics when the elements
//! add up to at least 500 (`planted::lists::sum500`).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|xs: Vec<u64>| {
    if planted::lists::sum500(&xs) {
        panic!("the sum reached 500");
    }
});
