#![no_main]

//! A typed list target (issue 7, `benches/lists.rs`): panics when the list has
//! at least two elements (`planted::lists::len2`).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|xs: Vec<u64>| {
    if planted::lists::len2(&xs) {
        panic!("a list of two elements");
    }
});
