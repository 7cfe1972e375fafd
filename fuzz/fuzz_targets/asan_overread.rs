#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    planted::count::tick();
    // Rejected inputs are fine; the planted bug reads past a heap buffer,
    // which only AddressSanitizer reports (`--sanitizer address`).
    let _ = planted::indexed::decode(data);
});
