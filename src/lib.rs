//! cargo-minimize-crash: minimize crash inputs of Rust fuzz targets.
//!
//! The library holds the pipeline behind the `cargo minimize-crash` binary; its
//! heart is [`reduce`], a structure-aware test-case reducer that works with any
//! oracle. The modules follow the data flow: [`cli`] -> [`options`] -> [`run`],
//! which dispatches to a job: one crash ([`minimize`]), many inputs
//! ([`batch`]) or a corpus ([`corpus`]). Every job builds on [`session`]
//! (the backend, inputs, workers, interrupts, output files, progress): it
//! drives an [`exec`]utor, judges each outcome by its [`signature`] (read
//! from crash reports by [`trace`]), and lets the reducer choose candidates;
//! [`project`] turns the user's cargo-fuzz project into a harness, and
//! [`verify`] cross-checks a result with a plain libFuzzer build.

#![warn(missing_docs)]

pub mod batch;
pub mod cli;
pub mod corpus;
pub mod exec;
pub mod exit_code;
pub mod minimize;
pub mod options;
pub mod project;
// The wire format, compiled from the same files as the `cmc_protocol` crate
// the runtime uses: a path dependency would not survive `cargo package`
// (see `project::inject::embedded`).
#[path = "../embedded/protocol/src/lib.rs"]
pub mod protocol;
pub mod reduce;
pub mod run;
pub mod session;
pub mod signature;
pub mod trace;
pub mod verify;
