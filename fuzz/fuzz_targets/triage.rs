#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    planted::count::tick();
    // The first byte picks tlv, image, vm or rle; each parser's planted bugs are reachable.
    let _ = planted::triage::run(data);
});
