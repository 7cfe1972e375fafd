#![no_main]

//! A typed list target (issue 7, `benches/lists.rs`): panics when the list has
//! at least ten distinct elements (`planted::lists::ten_distinct`).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|xs: Vec<u64>| {
    if planted::lists::ten_distinct(&xs) {
        panic!("ten distinct elements");
    }
});
