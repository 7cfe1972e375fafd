//! `cargo minimize-crash`: parse the arguments, validate them into `Options`, run, exit with a documented code.

use std::process::ExitCode;

use cargo_minimize_crash::options::Options;
use cargo_minimize_crash::{cli, run};

fn main() -> ExitCode {
    let exit = match Options::from_cli(cli::parse()).and_then(|options| run::run(&options)) {
        Ok(exit) => exit,
        Err(failure) => {
            eprintln!("error: {failure}");
            failure.exit
        }
    };
    exit.into()
}
