//! The fork server for real: `planted-server` (a harness built on `cmc_runtime::serve`) driven by `ForkServerExecutor`.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use cargo_minimize_crash::exec::{Executor, ForkServerConfig, ForkServerExecutor, HandshakeError, Outcome, Status};
use cargo_minimize_crash::protocol::{ResultKind, ENV_VAR};
use cargo_minimize_crash::signature::{Kind, Level, Signature};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

const SERVER: &str = env!("CARGO_BIN_EXE_planted-server");
const SIGABRT: i32 = 6;
const SIGSEGV: i32 = 11;

fn executor(timeout: Duration) -> ForkServerExecutor {
    ForkServerExecutor::start(ForkServerConfig::new(SERVER, timeout)).expect("start planted-server")
}

fn run(input: &[u8]) -> (Outcome, ForkServerExecutor) {
    let mut executor = executor(Duration::from_secs(20));
    let outcome = executor.run(input).unwrap();
    (outcome, executor)
}

/// Whether `pid` is still a live process (a zombie about to be reaped does not count).
fn alive(pid: i32) -> bool {
    kill(Pid::from_raw(pid), None).is_ok()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| s.contains(") Z "))
}

/// Waits up to a second for `pid` to be gone (reparented zombies are reaped asynchronously).
fn gone(pid: i32) -> bool {
    let until = Instant::now() + Duration::from_secs(1);
    while alive(pid) {
        if Instant::now() > until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

/// The line of `src/main.rs` that holds the planted panic.
fn panic_line() -> u32 {
    let source = include_str!("../src/main.rs");
    let index = source.lines().position(|l| l.contains("// PANIC-LINE")).expect("the marked line");
    index as u32 + 1
}

#[test]
fn an_ok_input_exits_zero_and_reports_ok() {
    let (outcome, executor) = run(b"ok");
    assert_eq!(outcome.status, Status::Exited(0));
    assert_eq!(executor.last_result().unwrap().kind, ResultKind::Ok);
    assert!(outcome.stderr.is_empty(), "{}", outcome.stderr_text());
    assert_eq!(executor.hello().unwrap().threads, 1);
}

#[test]
fn a_rejected_input_exits_zero_and_reports_rejected() {
    let (outcome, executor) = run(b"reject");
    assert_eq!(outcome.status, Status::Exited(0));
    assert_eq!(executor.last_result().unwrap().kind, ResultKind::Rejected);
    assert_eq!(Signature::of(&outcome), None);
}

#[test]
fn a_panic_aborts_with_its_location_recorded_and_printed() {
    let (outcome, executor) = run(b"panic:12345");
    assert_eq!(outcome.status, Status::Signaled(SIGABRT));
    let panic = executor.last_result().unwrap().panic.clone().expect("a recorded panic");
    assert_eq!(panic.message, "planted panic after 5 payload bytes");
    assert_eq!(panic.file, "crates/planted-server/src/main.rs");
    assert_eq!(panic.line, panic_line());
    assert_eq!(panic.column, 5);
    let signature = Signature::of(&outcome).unwrap();
    assert_eq!(signature.kind, Kind::Panic);
    assert_eq!(signature.location, Some(format!("crates/planted-server/src/main.rs:{}:5", panic_line())));
    assert!(!outcome.stderr_text().contains("backtrace"), "{}", outcome.stderr_text());
}

#[test]
fn a_planted_crash_sample_has_the_signature_its_expected_file_names() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus-samples/tlv");
    let crash = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("crash-"))
        .unwrap();
    let expected = std::fs::read_to_string(dir.join("expected.toml")).unwrap();
    let location = expected.lines().find_map(|l| l.strip_prefix("location = ")).unwrap().trim_matches('"');
    let mut input = b"tlv:".to_vec();
    input.extend(std::fs::read(crash).unwrap());
    let (outcome, executor) = run(&input);
    assert_eq!(Signature::of(&outcome).unwrap().location.as_deref(), Some(location));
    let panic = executor.last_result().unwrap().panic.clone().unwrap();
    assert_eq!(format!("{}:{}:{}", panic.file, panic.line, panic.column), location);
}

#[test]
fn an_abort_is_sigabrt_from_inside_the_target() {
    let (outcome, executor) = run(b"abort");
    assert_eq!(outcome.status, Status::Signaled(SIGABRT));
    assert_eq!(executor.last_result().unwrap().kind, ResultKind::Running);
    assert_eq!(Signature::of(&outcome).unwrap().kind, Kind::Signal { signal: SIGABRT });
}

#[test]
fn a_null_pointer_write_is_sigsegv() {
    let (outcome, _) = run(b"segv");
    assert_eq!(outcome.status, Status::Signaled(SIGSEGV));
}

/// The default signature of a crash by signal in the harness: the signal and the top frames of user code.
fn signal_signature(input: &[u8]) -> Signature {
    let (outcome, _) = run(input);
    let signature = Signature::of(&outcome).unwrap();
    assert!(matches!(signature.kind, Kind::Signal { .. }), "{signature}");
    signature
}

#[test]
fn two_different_segfaults_have_different_signatures_and_the_same_one_the_same() {
    let segv = signal_signature(b"segv");
    let other = signal_signature(b"segv-other");
    assert_eq!(segv.kind, Kind::Signal { signal: SIGSEGV });
    assert_eq!(other.kind, Kind::Signal { signal: SIGSEGV });
    let location = segv.location.clone().expect("frames of the segfault");
    assert!(location.starts_with("planted_server::test_one at "), "{location}");
    assert!(location.contains("crates/planted-server/src/main.rs:"), "{location}");
    let other_location = other.location.clone().expect("frames of the other segfault");
    assert!(other_location.starts_with("planted_server::wild_write at "), "{other_location}");
    assert!(other_location.contains("crates/planted-server/src/main.rs:"), "{other_location}");
    assert!(!segv.matches(&other, Level::Default), "{segv} / {other}");
    assert!(segv.matches(&other, Level::Loose));
    assert_eq!(signal_signature(b"segv"), segv);
    assert_eq!(signal_signature(b"segv-other:abc"), signal_signature(b"segv-other:xyz"));
}

#[test]
fn the_vm_samples_abort_is_located_in_the_vm() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus-samples/vm");
    let crash = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("crash-"))
        .unwrap();
    let mut input = b"vm:".to_vec();
    input.extend(std::fs::read(crash).unwrap());
    let signature = signal_signature(&input);
    assert_eq!(signature.kind, Kind::Signal { signal: SIGABRT });
    let location = signature.location.clone().expect("frames of the abort");
    assert!(location.starts_with("planted::vm::Slots::free at "), "{location}");
    assert!(location.contains("crates/planted/src/vm.rs:"), "{location}");
}

#[test]
fn an_exit_code_is_reported_as_such() {
    let (outcome, _) = run(b"exit:3");
    assert_eq!(outcome.status, Status::Exited(3));
}

#[test]
fn deep_recursion_is_a_stack_overflow() {
    let (outcome, _) = run(b"recurse");
    assert_eq!(outcome.status, Status::Signaled(SIGABRT), "{}", outcome.stderr_text());
    assert_eq!(Signature::of(&outcome).unwrap().kind, Kind::StackOverflow);
}

#[test]
fn an_endless_loop_times_out_and_the_child_is_killed() {
    let mut executor = executor(Duration::from_millis(300));
    let started = Instant::now();
    let outcome = executor.run(b"hang").unwrap();
    assert_eq!(outcome.status, Status::Timeout);
    assert!(outcome.duration >= Duration::from_millis(300), "{:?}", outcome.duration);
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    let child = executor.last_child().unwrap();
    assert!(gone(child), "the timed-out child {child} survived");
    // The same server goes on.
    let server = executor.hello().unwrap().pid;
    assert_eq!(executor.run(b"ok").unwrap().status, Status::Exited(0));
    assert_eq!(executor.hello().unwrap().pid, server);
    assert_eq!(executor.restarts(), 0);
}

#[test]
fn the_childs_cpu_time_is_reported_apart_from_its_wall_time() {
    let mut executor = executor(Duration::from_secs(20));
    let sleeper = executor.run(b"sleep:300").unwrap();
    assert_eq!(sleeper.status, Status::Exited(0));
    let cpu = sleeper.cpu.expect("a fork server reports the child's CPU time");
    assert!(sleeper.duration >= Duration::from_millis(300), "{:?}", sleeper.duration);
    assert!(cpu < Duration::from_millis(100), "a sleep used {cpu:?} of CPU");
    // Touching 256 MiB takes CPU (page faults), and never more than the wall time allows.
    let worker = executor.run(b"alloc:256").unwrap();
    let cpu = worker.cpu.expect("reported");
    assert!(cpu > Duration::ZERO && cpu <= worker.duration + Duration::from_millis(10), "{cpu:?} in {worker:?}");
}

#[test]
fn a_child_over_the_memory_limit_is_out_of_memory_at_its_peak_or_while_running() {
    let mut config = ForkServerConfig::new(SERVER, Duration::from_secs(20));
    config.rss_limit_mb = 64;
    let mut executor = ForkServerExecutor::start(config).expect("start planted-server");
    assert_eq!(executor.run(b"alloc:8").unwrap().status, Status::Exited(0));
    let peak = executor.run(b"alloc:200").unwrap();
    assert_eq!(peak.status, Status::OutOfMemory);
    assert_eq!(Signature::of(&peak).unwrap().kind, Kind::OutOfMemory);
    let started = Instant::now();
    let running = executor.run(b"alloc-hang:200").unwrap();
    assert_eq!(running.status, Status::OutOfMemory);
    assert!(started.elapsed() < Duration::from_secs(5), "caught while running, long before the timeout");
    // A crash over the limit keeps its own kind; no limit, no out-of-memory.
    assert_eq!(executor.run(b"abort").unwrap().status, Status::Signaled(SIGABRT));
    let (unlimited, _) = run(b"alloc:200");
    assert_eq!(unlimited.status, Status::Exited(0));
}

#[test]
fn a_timeout_kills_the_whole_process_group() {
    let scratch = tempfile::tempdir().unwrap();
    let pid_file = scratch.path().join("grandchild.pid");
    let mut executor = executor(Duration::from_millis(500));
    let outcome = executor.run(format!("spawn-hang:{}", pid_file.display()).as_bytes()).unwrap();
    assert_eq!(outcome.status, Status::Timeout);
    let grandchild: i32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
    assert!(gone(grandchild), "the target's own child {grandchild} survived the timeout");
    assert!(gone(executor.last_child().unwrap()));
}

#[test]
fn a_server_killed_between_tests_is_restarted() {
    let mut executor = executor(Duration::from_secs(20));
    let first = executor.hello().unwrap().pid;
    kill(Pid::from_raw(first), Signal::SIGKILL).unwrap();
    assert_eq!(executor.run(b"ok").unwrap().status, Status::Exited(0));
    assert_eq!(executor.restarts(), 1);
    assert_ne!(executor.hello().unwrap().pid, first);
    assert!(gone(first));
}

#[test]
fn a_server_killed_mid_test_is_restarted_and_the_test_run_again() {
    let mut executor = executor(Duration::from_secs(20));
    let first = executor.hello().unwrap().pid;
    let killer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        kill(Pid::from_raw(first), Signal::SIGKILL).unwrap();
    });
    let outcome = executor.run(b"sleep:1000").unwrap();
    killer.join().unwrap();
    assert_eq!(outcome.status, Status::Exited(0));
    assert_eq!(executor.restarts(), 1);
    assert_ne!(executor.hello().unwrap().pid, first);
    assert_eq!(executor.last_result().unwrap().kind, ResultKind::Ok);
}

#[test]
fn a_chatty_child_does_not_block_and_only_the_tail_is_kept() {
    let (outcome, _) = run(b"print:5000000");
    assert_eq!(outcome.status, Status::Exited(0));
    assert_eq!(outcome.stderr.len(), cargo_minimize_crash::exec::process::CAPTURE_LIMIT);
    assert!(outcome.stderr.ends_with(b"end"));
}

#[test]
fn one_server_runs_many_tests_and_each_sees_only_its_own_stderr() {
    let mut executor = executor(Duration::from_secs(20));
    let server = executor.hello().unwrap().pid;
    for i in 0..100 {
        let input: &[u8] = if i % 2 == 0 { b"panic" } else { b"ok" };
        let outcome = executor.run(input).unwrap();
        if i % 2 == 0 {
            assert_eq!(outcome.status, Status::Signaled(SIGABRT));
            assert_eq!(outcome.stderr_text().matches("panicked at").count(), 1, "{}", outcome.stderr_text());
        } else {
            assert_eq!(outcome.status, Status::Exited(0));
            assert!(outcome.stderr.is_empty());
        }
    }
    assert_eq!(executor.hello().unwrap().pid, server);
    assert_eq!(executor.restarts(), 0);
}

#[test]
fn an_input_larger_than_the_shared_memory_grows_it() {
    let mut config = ForkServerConfig::new(SERVER, Duration::from_secs(20));
    config.input_capacity = 64;
    let mut executor = ForkServerExecutor::start(config).unwrap();
    let mut input = b"panic:".to_vec();
    input.resize(100_000, b'x');
    let outcome = executor.run(&input).unwrap();
    assert_eq!(outcome.status, Status::Signaled(SIGABRT));
    let panic = executor.last_result().unwrap().panic.clone().unwrap();
    assert_eq!(panic.message, "planted panic after 99994 payload bytes");
    assert_eq!(executor.run(b"ok").unwrap().status, Status::Exited(0));
}

#[test]
fn a_program_that_is_not_a_harness_fails_the_handshake_clearly() {
    let shell = |script: &str, handshake: Duration| {
        let mut config = ForkServerConfig::new("/bin/sh", Duration::from_secs(1));
        config.args = vec!["-c".into(), script.into()];
        config.handshake_timeout = handshake;
        ForkServerExecutor::start(config).unwrap_err()
    };
    let long = Duration::from_secs(20);

    let exited = shell("echo 'INFO: Seed: 1234' >&2; exit 1", long);
    let text = format!("{exited:#}");
    assert!(matches!(exited.downcast_ref(), Some(HandshakeError::Exited { .. })), "{text}");
    assert!(text.contains("`/bin/sh` exited with code 1 before the fork-server handshake"), "{text}");
    assert!(text.contains("not a cargo-minimize-crash harness"), "{text}");
    assert!(text.contains("INFO: Seed: 1234"), "{text}");

    // Silent, like a libFuzzer binary busy fuzzing; what it started goes with it.
    let scratch = tempfile::tempdir().unwrap();
    let pid_file = scratch.path().join("sleep.pid");
    let started = Instant::now();
    let silent = shell(&format!("sleep 30 & echo $! > {}; wait", pid_file.display()), Duration::from_millis(300));
    assert!(matches!(silent.downcast_ref(), Some(HandshakeError::Silent { .. })), "{silent:#}");
    assert!(format!("{silent:#}").contains("did not answer the fork-server handshake within 0.3 s"), "{silent:#}");
    assert!(started.elapsed() < Duration::from_secs(5));
    let sleeper: i32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
    assert!(gone(sleeper), "the silent program's child {sleeper} survived");

    // Write to the status descriptor the variable names (through /dev/fd: dash's `>&N` stops at 9).
    let status_fd = format!("fd=${{{ENV_VAR}#*status=}}; fd=${{fd%%,*}}");
    let garbled = shell(&format!("{status_fd}; printf 'INFO: Running with' >/dev/fd/$fd; sleep 5"), long);
    assert!(matches!(garbled.downcast_ref(), Some(HandshakeError::Garbled { .. })), "{garbled:#}");
    assert!(format!("{garbled:#}").contains("INFO: Running"), "{garbled:#}");

    let newer = shell(
        &format!(
            r"{status_fd}; printf 'cmcH\011\000\000\000\001\000\000\000\001\000\000\000\000\000\000\000' >/dev/fd/$fd"
        ),
        long,
    );
    let text = format!("{newer:#}");
    assert!(matches!(newer.downcast_ref(), Some(HandshakeError::Version { found: 9, .. })), "{text}");
    assert!(text.contains("protocol version 9"), "{text}");
}

#[test]
fn without_the_variable_the_harness_replays_files() {
    let usage = Command::new(SERVER).env_remove(ENV_VAR).output().unwrap();
    assert_eq!(usage.status.code(), Some(2));
    let text = String::from_utf8_lossy(&usage.stderr);
    assert!(text.starts_with("usage: ") && text.contains("FILE..."), "{text}");

    let scratch = tempfile::tempdir().unwrap();
    let ok = scratch.path().join("ok");
    let panic = scratch.path().join("panic");
    std::fs::write(&ok, "reject").unwrap();
    std::fs::write(&panic, "panic:ab").unwrap();
    let replay = Command::new(SERVER).env_remove(ENV_VAR).arg("-runs=1").arg(&ok).output().unwrap();
    assert_eq!(replay.status.code(), Some(0), "{}", String::from_utf8_lossy(&replay.stderr));
    assert!(String::from_utf8_lossy(&replay.stderr).contains("(rejected)"));
    let crash = Command::new(SERVER).env_remove(ENV_VAR).env("RUST_BACKTRACE", "0").arg(&panic).output().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(crash.status.signal(), Some(SIGABRT));
    assert!(String::from_utf8_lossy(&crash.stderr).contains("planted panic after 2 payload bytes"));
}

/// A staying child (decision 0090) runs test after test, each with its own
/// result and stderr; a crash, a timeout or memory over the limit ends it,
/// and so does killing it from outside between tests: the next test runs in
/// a new child, on the same server.
#[test]
fn a_staying_child_runs_test_after_test_until_one_ends_it() {
    let mut config = ForkServerConfig::new(SERVER, Duration::from_millis(500));
    config.rss_limit_mb = 64;
    let mut executor = ForkServerExecutor::start(config).expect("start planted-server");
    let server = executor.hello().unwrap().pid;
    executor.set_staying(true);
    let staying = |executor: &mut ForkServerExecutor, input: &[u8]| {
        let outcome = executor.run(input).unwrap();
        assert_eq!(outcome.status, Status::Exited(0), "{}", String::from_utf8_lossy(input));
        executor.last_child().unwrap()
    };
    let child = staying(&mut executor, b"ok");
    for input in [&b"reject"[..], b"print:10", b"ok", b"alloc:8"] {
        assert_eq!(staying(&mut executor, input), child, "{}", String::from_utf8_lossy(input));
        let expected = if input == b"reject" { ResultKind::Rejected } else { ResultKind::Ok };
        assert_eq!(executor.last_result().unwrap().kind, expected);
    }
    assert!(executor.run(b"ok").unwrap().stderr.is_empty(), "the print run's stderr was its own");
    let ended: [(&[u8], Status); 3] =
        [(b"panic", Status::Signaled(SIGABRT)), (b"hang", Status::Timeout), (b"alloc:200", Status::OutOfMemory)];
    let mut child = child;
    for (input, status) in ended {
        assert_eq!(executor.run(input).unwrap().status, status);
        assert!(gone(child), "the staying child {child} outlived {}", String::from_utf8_lossy(input));
        let next = staying(&mut executor, b"ok");
        assert_ne!(next, child);
        child = next;
    }
    kill(Pid::from_raw(child), Signal::SIGKILL).unwrap();
    assert!(gone(child));
    let next = staying(&mut executor, b"ok");
    assert_ne!(next, child);
    executor.set_staying(false);
    assert!(gone(next), "turning staying off ends the staying child");
    let fresh = staying(&mut executor, b"ok");
    assert!(gone(fresh), "without staying, a child runs one test");
    assert_eq!((executor.hello().unwrap().pid, executor.restarts()), (server, 0));
}
