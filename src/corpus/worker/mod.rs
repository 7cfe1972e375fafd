//! What runs on a corpus worker: its two fork servers ([`runner`]), each job handled ([`work`]), a kept input shrunk and split ([`shrink`]), two results joined and shrunk ([`joined`]); it hears of the plan only through `jobs.rs`, and imports nothing of `plan/`.

pub mod covering;
pub mod failures;
pub mod joined;
pub mod runner;
pub mod shrink;
pub mod work;
