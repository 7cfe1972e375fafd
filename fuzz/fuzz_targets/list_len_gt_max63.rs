#![no_main]

//! A typed list target (issue 7, `benches/lists.rs`): panics when the list is
//! longer than its maximum's low six bits (`max & 63`)
//! (`planted::lists::len_gt_max63`).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|xs: Vec<u64>| {
    if planted::lists::len_gt_max63(&xs) {
        panic!("more elements than the maximum's low six bits");
    }
});
