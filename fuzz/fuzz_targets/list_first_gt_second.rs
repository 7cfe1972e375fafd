#![no_main]

//! A typed list target (issue 7, `benches/lists.rs`): panics when the first
//! element is greater than the second (`planted::lists::first_gt_second`).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|xs: Vec<u64>| {
    if planted::lists::first_gt_second(&xs) {
        panic!("the first element exceeds the second");
    }
});
