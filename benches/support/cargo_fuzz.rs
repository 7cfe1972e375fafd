//! cargo-fuzz for the benchmarks that compare with it: installed with `cargo install cargo-fuzz --locked` when `cargo fuzz` does not run (a few minutes, once).

use std::process::Command;

/// Whether `cargo fuzz` runs, after installing it if it did not; says why not.
pub(crate) fn ensure_installed() -> bool {
    if runs() {
        return true;
    }
    println!("cargo-fuzz is missing: cargo install cargo-fuzz --locked (a few minutes, once)");
    let installed = Command::new("cargo").args(["install", "cargo-fuzz", "--locked"]).status();
    match installed {
        Ok(status) if status.success() => runs(),
        Ok(status) => {
            println!("cargo install cargo-fuzz failed ({status})");
            false
        }
        Err(e) => {
            println!("cargo install did not run ({e})");
            false
        }
    }
}

fn runs() -> bool {
    Command::new("cargo").args(["fuzz", "--version"]).output().is_ok_and(|out| out.status.success())
}
