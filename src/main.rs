//! `cargo minimize-crash`: parse the arguments, validate them into `Options`, run, exit with a documented code.

use std::process::ExitCode;

use cargo_minimize_crash::exit_code::Exit;
use cargo_minimize_crash::options::Options;
use cargo_minimize_crash::{cli, run};

/// The tool's own stack: users lower `ulimit -s` to reproduce a stack
/// overflow found on a small stack, and the limit must bind the target (the
/// harness inherits it), not this process's main thread.
const STACK_SIZE: usize = 64 << 20;

fn main() -> ExitCode {
    // Started by cargo as a coverage build's RUSTC_WRAPPER.
    if let Some(code) = cargo_minimize_crash::project::wrapper::run_if_wrapper() {
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    let worker = std::thread::Builder::new().name("main".into()).stack_size(STACK_SIZE).spawn(|| {
        match Options::from_cli(cli::parse()).and_then(|options| run::run(&options)) {
            Ok(exit) => exit,
            Err(failure) => {
                eprintln!("error: {failure}");
                failure.exit
            }
        }
    });
    let exit = match worker.map(|handle| handle.join()) {
        Ok(Ok(exit)) => exit,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(error) => {
            eprintln!("error: cannot start the main thread: {error}");
            Exit::Error
        }
    };
    exit.into()
}
