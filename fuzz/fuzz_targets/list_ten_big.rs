#![no_main]

//! A typed list target (issue 7, `benches/lists.rs`): panics when at least ten
//! elements are 5 or more (`planted::lists::ten_big`).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|xs: Vec<u64>| {
    if planted::lists::ten_big(&xs) {
        panic!("ten elements of 5 or more");
    }
});
