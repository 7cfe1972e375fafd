//! cargo-minimize-crash: minimize crash inputs of Rust fuzz targets.
//!
//! The library holds the pipeline behind the `cargo minimize-crash` binary; its
//! heart is [`reduce`], a structure-aware test-case reducer that works with any
//! oracle.

#![warn(missing_docs)]

pub mod reduce;
