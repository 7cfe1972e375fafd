//! `planted-replay TARGET FILE`: runs one planted target on a file's bytes,
//! the way `./fuzz_target -runs=1 FILE` replays a crash.
//!
//! A rejected input exits 0. A bug kills the process as it would under a fuzzer:
//! a panic prints its message and exits 101, a stack overflow or an abort dies
//! of SIGABRT, a wild write of SIGSEGV, a hang never returns. Usage errors exit 2.
//!
//! The target runs on a thread with a fixed 256 KiB stack, so the nesting that
//! overflows it does not depend on `ulimit -s`.

use std::process::ExitCode;

const STACK_SIZE: usize = 256 * 1024;

fn usage() -> String {
    let names: Vec<&str> = planted::TARGETS.iter().map(|t| t.name).collect();
    format!("usage: planted-replay TARGET FILE\ntargets: {}", names.join(", "))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--list") {
        for target in planted::TARGETS {
            println!("{:<8} {}", target.name, target.bug);
        }
        return ExitCode::SUCCESS;
    }
    let [name, path] = args.as_slice() else {
        eprintln!("{}", usage());
        return ExitCode::from(2);
    };
    let Some(target) = planted::target(name) else {
        eprintln!("planted-replay: unknown target `{name}`\n{}", usage());
        return ExitCode::from(2);
    };
    let data = match std::fs::read(path) {
        Ok(data) => data,
        Err(e) => {
            eprintln!("planted-replay: cannot read {path}: {e}");
            return ExitCode::from(2);
        }
    };
    let run = target.run;
    let worker = std::thread::Builder::new()
        .name("fuzz-target".into())
        .stack_size(STACK_SIZE)
        .spawn(move || run(&data))
        .expect("spawn the target's thread");
    match worker.join() {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(rejected)) => {
            eprintln!("planted-replay: input rejected: {rejected}");
            ExitCode::SUCCESS
        }
        // The panic message is already printed; die of it as a fuzz target would.
        Err(panic) => std::panic::resume_unwind(panic),
    }
}
