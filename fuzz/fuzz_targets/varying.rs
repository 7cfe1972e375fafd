#![no_main]

//! Coverage that varies from run to run (issue 36, `tests/cli/corpus.rs`): a
//! `HashMap` with the standard library's random keys walks its entries in
//! another order in every process, so how often a key is smaller than the one
//! before it (a counter's hit-count bucket) changes from run to run.

use std::collections::HashMap;

use libfuzzer_sys::fuzz_target;

#[inline(never)]
fn descents(data: &[u8]) -> u32 {
    let map: HashMap<u8, ()> = data.iter().map(|&byte| (byte, ())).collect();
    let (mut last, mut descents) = (0u8, 0);
    for &key in map.keys() {
        if key < last {
            descents += 1;
        }
        last = key;
    }
    descents
}

fuzz_target!(|data: &[u8]| {
    std::hint::black_box(descents(data));
});
