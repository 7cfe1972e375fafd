//! What every job shares: the backend a target runs on (a harness built
//! from the cargo-fuzz project, or a command), the inputs it is given,
//! worker threads, interrupts, output files, progress, and the steps of
//! minimizing one crash.

pub mod backend;
pub mod input;
pub mod inputs;
pub mod interrupt;
pub mod output;
pub mod pipeline;
pub mod progress;
pub mod setup;
pub mod workers;

use crate::options::Options;
use crate::reduce::ReduceOptions;
use interrupt::Interrupt;

/// The reducer's settings from the options.
pub fn reduce_options(options: &Options, interrupt: &Interrupt) -> ReduceOptions {
    ReduceOptions {
        max_tests: options.max_tests,
        max_time: options.max_time,
        order: options.order,
        structure: options.structure,
        draws: options.draws,
        cancel: Some(interrupt.cancel.clone()),
        ..ReduceOptions::default()
    }
}
