#![no_main]

//! A typed target: `arbitrary` builds a day's purchase orders, structs with
//! integer, string, vector and enum fields, which the shop's check reads.

use libfuzzer_sys::fuzz_target;
use planted::orders::{check, Order};

fuzz_target!(|orders: Vec<Order>| {
    planted::count::tick();
    let _ = check(&orders);
});
