#![no_main]

//! A typed list target (issue 7, `benches/lists.rs`): panics when the md5 of
//! Python's repr of the list starts with 0 (`planted::lists::messy`).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|xs: Vec<u64>| {
    if planted::lists::messy(&xs) {
        panic!("the md5 of the list starts with 0");
    }
});
