//! cargo-minimize-crash: minimize crash inputs of Rust fuzz targets.
//!
//! The library holds the pipeline behind the `cargo minimize-crash` binary; its
//! heart is [`reduce`], a structure-aware test-case reducer that works with any
//! oracle. The modules follow the data flow: [`cli`] -> [`options`] -> [`run`],
//! which drives an [`exec`]utor, judges each outcome by its [`signature`],
//! lets the reducer choose candidates, and saves results through [`output`],
//! [`progress`] and [`report`]; in the harness mode [`verify`] cross-checks the
//! result with a plain libFuzzer build.

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
