//! Real projects as they are: a fuzz crate that depends on `libfuzzer-sys` alone (no `arbitrary` derive) and commits no lockfile, as most libraries' do; an `arbitrary` too old to record; and the bad inputs a first run meets (a device as the crash, a directory as `-o`).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::*;

/// Writes `bytes` to `dir/relative` unless it holds them already (cargo's
/// fingerprints stay fresh between test runs).
fn write_file(dir: &Path, relative: &str, bytes: &[u8]) {
    let path = dir.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    if std::fs::read(&path).ok().as_deref() != Some(bytes) {
        std::fs::write(path, bytes).unwrap();
    }
}

/// The tests on [`plain_project`] take turns: they share its directory and lockfile.
fn plain_lock() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A project shaped like a library's: a crate at the root and its own fuzz
/// workspace in `fuzz/`, with `libfuzzer-sys` from crates.io its only
/// dependency and a `Vec<u64>` target (`sum500`, as the lists bench's
/// condition), in a fixed directory under the workspace's target dir (its
/// scratch build is kept between test runs). Any lockfile is removed.
fn plain_project() -> PathBuf {
    let dir = Path::new(BIN).parent().unwrap().parent().unwrap().join("tmp/cli-real/plain");
    let write = |relative: &str, text: &str| write_file(&dir, relative, text.as_bytes());
    write(
        "Cargo.toml",
        "[package]\nname = \"plain\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\nexclude = [\"fuzz\"]\n",
    );
    write("src/lib.rs", "//! A library with a fuzz crate.\n");
    write(
        "fuzz/Cargo.toml",
        "[package]\nname = \"plain-fuzz\"\nversion = \"0.0.0\"\npublish = false\nedition = \"2021\"\n\n\
         [package.metadata]\ncargo-fuzz = true\n\n[dependencies]\nlibfuzzer-sys = \"0.4\"\n\n\
         [workspace]\nmembers = [\".\"]\n\n\
         [[bin]]\nname = \"sum500\"\npath = \"fuzz_targets/sum500.rs\"\ntest = false\ndoc = false\nbench = false\n\n\
         [[bin]]\nname = \"stdpanics\"\npath = \"fuzz_targets/stdpanics.rs\"\ntest = false\ndoc = false\nbench = false\n\n\
         [[bin]]\nname = \"text\"\npath = \"fuzz_targets/text.rs\"\ntest = false\ndoc = false\nbench = false\n\n\
         [[bin]]\nname = \"ranges\"\npath = \"fuzz_targets/ranges.rs\"\ntest = false\ndoc = false\nbench = false\n\n\
         [[bin]]\nname = \"generate\"\npath = \"fuzz_targets/generate.rs\"\ntest = false\ndoc = false\nbench = false\n",
    );
    write(
        "fuzz/fuzz_targets/generate.rs",
        "#![no_main]\nuse libfuzzer_sys::arbitrary::Unstructured;\nuse libfuzzer_sys::fuzz_target;\n\n\
         // Values built by hand from the bytes, as a generator's target does.\n\
         fuzz_target!(|data: &[u8]| {\n    \
             let xs: Vec<u64> = Unstructured::new(data).arbitrary().unwrap_or_default();\n    \
             if xs.iter().map(|&x| u128::from(x)).sum::<u128>() >= 500 {\n        \
                 panic!(\"a sum of at least 500\");\n    \
             }\n\
         });\n",
    );
    write("fuzz/fuzz_targets/ranges.rs", RANGES);
    write(
        "fuzz/fuzz_targets/text.rs",
        "#![no_main]\nuse libfuzzer_sys::fuzz_target;\n\n\
         fuzz_target!(|s: &str| {\n    \
             if s.matches('}').count() >= 3 && s.contains('x') {\n        \
                 panic!(\"three braces and an x\");\n    \
             }\n\
         });\n",
    );
    write(
        "fuzz/fuzz_targets/sum500.rs",
        "#![no_main]\nuse libfuzzer_sys::fuzz_target;\n\n\
         fuzz_target!(|xs: Vec<u64>| {\n    \
             if xs.iter().fold(0u64, |sum, &x| sum.saturating_add(x)) >= 500 {\n        \
                 panic!(\"the sum reached 500\");\n    \
             }\n\
         });\n",
    );
    write(
        "fuzz/fuzz_targets/stdpanics.rs",
        "#![no_main]\nuse libfuzzer_sys::fuzz_target;\n\n\
         #[inline(never)]\nfn cut(v: &mut Vec<u8>, from: usize) {\n    v.drain(from..1);\n}\n\n\
         #[inline(never)]\nfn repeat(v: &mut Vec<u8>, from: usize) {\n    v.extend_from_within(from..);\n}\n\n\
         fuzz_target!(|data: &[u8]| {\n    \
             if data.len() < 2 {\n        return;\n    }\n    \
             let mut v = data.to_vec();\n    \
             match data[0] {\n        \
                 b'd' => cut(&mut v, usize::from(data[1])),\n        \
                 b'e' => repeat(&mut v, usize::from(data[1])),\n        \
                 _ => {}\n    \
             }\n\
         });\n",
    );
    let _ = std::fs::remove_file(dir.join("fuzz/Cargo.lock"));
    dir
}

/// The standard library's range and index checks, each in a function of
/// its own that the optimizer inlines into the target (no `#[inline(never)]`):
/// the input's first byte picks one, its second is the bad index.
const RANGES: &str = "#![no_main]\nuse libfuzzer_sys::fuzz_target;\n\n\
fn cut(v: &mut Vec<u8>, from: usize) {\n    v.drain(from..1);\n}\n\n\
fn repeat(v: &mut Vec<u8>, from: usize) {\n    v.extend_from_within(from..);\n}\n\n\
fn copy(v: &mut [u8], from: usize) {\n    v.copy_within(from.., 0);\n}\n\n\
fn split(v: &mut Vec<u8>, at: usize) {\n    drop(v.split_off(at));\n}\n\n\
fn rotate(v: &mut [u8], by: usize) {\n    v.rotate_left(by);\n}\n\n\
fn put(v: &mut Vec<u8>, at: usize) {\n    v.insert(at, 0);\n}\n\n\
fn take(v: &mut Vec<u8>, at: usize) {\n    v.remove(at);\n}\n\n\
fn halves(v: &[u8], at: usize) {\n    std::hint::black_box(v.split_at(at));\n}\n\n\
fn window(v: &[u8], from: usize) {\n    std::hint::black_box(&v[from..2]);\n}\n\n\
fuzz_target!(|data: &[u8]| {\n    \
    if data.len() < 2 {\n        return;\n    }\n    \
    let mut v = data.to_vec();\n    \
    let n = usize::from(data[1]);\n    \
    match data[0] {\n        \
        b'd' => cut(&mut v, n),\n        \
        b'e' => repeat(&mut v, n),\n        \
        b'c' => copy(&mut v, n),\n        \
        b's' => split(&mut v, n),\n        \
        b'r' => rotate(&mut v, n),\n        \
        b'i' => put(&mut v, n),\n        \
        b't' => take(&mut v, n),\n        \
        b'h' => halves(&v, n),\n        \
        b'w' => window(&v, n),\n        \
        _ => {}\n    \
    }\n\
});\n";

/// A crash of `sum500`: 40 bytes of 0xff (a first element of 2^64 - 1), then noise.
fn sum500_crash(dir: &Path) -> PathBuf {
    let mut bytes = vec![0xff; 40];
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    bytes.extend((0..300).map(|_| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state as u8
    }));
    let crash = dir.join("crash-sum500");
    std::fs::write(&crash, bytes).unwrap();
    crash
}

/// Runs the tool on `sum500` in `project` with `extra` arguments: its summary and stderr.
fn minimize_sum500(project: &Path, output: &Path, extra: &[&str]) -> (Value, String) {
    minimize_sum_target("sum500", project, output, extra)
}

/// Runs the tool on `target` (one of the sum-500 targets) in `project` with
/// `extra` arguments, from [`sum500_crash`]: its summary and stderr.
fn minimize_sum_target(target: &str, project: &Path, output: &Path, extra: &[&str]) -> (Value, String) {
    let crash = sum500_crash(output.parent().unwrap());
    let mut command = Command::new(BIN);
    command.current_dir(project).arg("--json").args(extra).arg("-o").arg(output).arg(target).arg(&crash);
    let assert = assert_cmd::Command::from_std(command).timeout(Duration::from_secs(600)).assert();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert_eq!(assert.get_output().status.code(), Some(0), "{target} failed:\n{stderr}");
    (serde_json::from_slice(&assert.get_output().stdout).expect("a JSON summary"), stderr)
}

fn cargo_in(project: &Path, args: &[&str]) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo).current_dir(project.join("fuzz")).args(args).output().unwrap();
    assert!(output.status.success(), "cargo {args:?} failed:\n{}", String::from_utf8_lossy(&output.stderr));
}

/// Issue 34: draws need no derive, and a lockfile resolved in the scratch
/// directory is hooked like a committed one; the tree stays without one,
/// the libFuzzer cross-check's `cargo fuzz build` included.
#[test]
fn a_vec_target_without_a_derive_or_a_lockfile_reaches_the_simplest_value_and_leaves_no_lockfile() {
    let _lock = plain_lock();
    let project = plain_project();
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("minimized");
    let (summary, stderr) = minimize_sum500(&project, &output, &[]);
    assert_eq!(summary["value"], "[\n    500,\n]", "{stderr}");
    assert_eq!(std::fs::read(&output).unwrap(), [0x01, 0xf4, 0x01], "the shortest encoding of [500]");
    assert_eq!(summary["structure"]["recorded"], true, "{stderr}");
    assert_eq!(summary["structure"]["draws"], true);
    assert!(!project.join("fuzz/Cargo.lock").exists(), "no lockfile was left in the tree:\n{stderr}");
    assert!(!stderr.contains("warning: typed inputs"), "{stderr}");
    if cargo_fuzz_installed() {
        assert_eq!(summary["libfuzzer"]["verified"], "yes", "{stderr}");
    }

    // With a lockfile, the same result, and the lockfile as it was.
    cargo_in(&project, &["generate-lockfile"]);
    let lock = std::fs::read(project.join("fuzz/Cargo.lock")).unwrap();
    let again = dir.path().join("with-lock");
    let (summary, stderr) = minimize_sum500(&project, &again, &["--no-verify-libfuzzer"]);
    assert_eq!(std::fs::read(&again).unwrap(), [0x01, 0xf4, 0x01], "{stderr}");
    assert_eq!(summary["structure"]["recorded"], true);
    assert_eq!(std::fs::read(project.join("fuzz/Cargo.lock")).unwrap(), lock, "the user's lockfile is only read");
    std::fs::remove_file(project.join("fuzz/Cargo.lock")).unwrap();
}

/// The most common typed target, `|s: &str|` (`arbitrary` reads the whole
/// input as the string, no length): characters inside it are deleted, whole
/// (decision 0089). Before, only lowering reached it: 39 bytes of `'0'`s
/// and the four characters the bug needs.
#[test]
fn a_str_target_keeps_only_the_characters_the_bug_needs() {
    let _lock = plain_lock();
    let project = plain_project();
    let dir = tempfile::tempdir().unwrap();
    let crash = dir.path().join("crash-text");
    std::fs::write(&crash, "abc}dé}ghi}jkl x m\u{80}o pqr}}} stu vwx yz").unwrap();
    let output = dir.path().join("minimized");
    let mut command = Command::new(BIN);
    command.current_dir(&project).args(["--json", "--no-verify-libfuzzer", "-o"]).arg(&output).arg("text").arg(&crash);
    let assert = assert_cmd::Command::from_std(command).timeout(Duration::from_secs(600)).assert();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert_eq!(assert.get_output().status.code(), Some(0), "{stderr}");
    let result = String::from_utf8(std::fs::read(&output).unwrap()).unwrap();
    assert_eq!((result.matches('}').count(), result.matches('x').count(), result.len()), (3, 1, 4), "{result:?}");
}

/// An `arbitrary` without the hooks (1.3.2, locked by the user): one warning
/// line that says why, what is lost and the one command that gets it back,
/// the same in `--json`, and still a result that crashes. That command
/// (issue 48) keeps what the input decodes to, and records its structure.
#[test]
fn an_arbitrary_too_old_to_record_is_said_in_one_line_and_in_json() {
    let _lock = plain_lock();
    let project = plain_project();
    cargo_in(&project, &["generate-lockfile"]);
    cargo_in(&project, &["update", "-p", "arbitrary", "--precise", "1.3.2"]);
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("minimized");
    let (summary, stderr) = minimize_sum500(&project, &output, &["--no-verify-libfuzzer"]);
    // A `&[u8]` target that builds its values with `Unstructured` loses the same: said too.
    let (_, generator) = minimize_sum_target("generate", &project, &dir.path().join("g"), &["--no-verify-libfuzzer"]);
    // The command the warning gives; the result of 1.3.2, run once under 1.4.2, then the crash again.
    cargo_in(&project, &["update", "-p", "arbitrary", "--precise", "1.4.2"]);
    let mut once = Command::new(BIN);
    once.current_dir(&project).args(["--json", "--no-verify-libfuzzer", "--max-tests", "1", "-o"]);
    let replayed = once.arg(dir.path().join("again")).arg("sum500").arg(&output).output().unwrap();
    let replayed: Value = serde_json::from_slice(&replayed.stdout).unwrap();
    let (hooked, hooked_stderr) = minimize_sum500(&project, &dir.path().join("hooked"), &["--no-verify-libfuzzer"]);
    std::fs::remove_file(project.join("fuzz/Cargo.lock")).unwrap();
    assert!(generator.contains("warning: typed inputs will be reduced as bytes"), "{generator}");
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(
        warnings,
        ["warning: typed inputs will be reduced as bytes, without their structure (results can be larger, numbers \
          and strings less simple): arbitrary 1.3.2: only 1.4.2 to 1.5.x have the hooks values are recorded with; \
          `cargo update -p arbitrary --precise 1.4.2` in the fuzz crate's directory adds them, and reads every input \
          as 1.3.2 does"],
        "{stderr}"
    );
    assert_eq!(summary["structure"]["recorded"], false);
    let reason = summary["structure"]["reason"].as_str().unwrap();
    assert!(reason.starts_with("arbitrary 1.3.2"), "{reason}");
    assert!(stderr.contains("  structure  not recorded, reduced as bytes: arbitrary 1.3.2"), "{stderr}");
    assert_eq!(summary["verified"], true);
    assert!(summary["value"].is_string(), "{summary:#}");
    assert_eq!(replayed["value"], summary["value"], "1.4.2 reads 1.3.2's result as the same value");
    assert_eq!(hooked["structure"]["recorded"], true, "{hooked_stderr}");
    assert!(!hooked_stderr.contains("warning:"), "{hooked_stderr}");
    assert_eq!(hooked["value"].as_str().unwrap().split_whitespace().collect::<String>(), "[500,]", "{hooked:#}");
}

/// A device as the crash file is refused at once (it would be read forever);
/// a directory as `-o` takes the result under its default name.
#[test]
fn a_device_as_the_crash_is_refused_and_a_directory_as_the_output_takes_the_result_inside() {
    let assert = tool().current_dir(root()).arg("tlv").arg("/dev/zero").timeout(Duration::from_secs(60)).assert();
    let assert = assert.code(2);
    assert_stderr_contains(&assert, "cannot read the crash file /dev/zero");
    assert_stderr_contains(&assert, "it is a character device, not a regular file");

    let sample = Sample::copy("tlv");
    let out_dir = sample.dir.path().join("results");
    std::fs::create_dir(&out_dir).unwrap();
    let _lock = harness_lock();
    let assert = tool()
        .current_dir(root())
        .args(["--json", "--no-verify-libfuzzer", "-o"])
        .arg(&out_dir)
        .arg("tlv")
        .arg(&sample.crash)
        .timeout(Duration::from_secs(300))
        .assert()
        .code(0);
    let summary: Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    let original = std::fs::read(&sample.crash).unwrap();
    let inside = out_dir.join(format!("minimized-from-{}", sha1_hex(&original)));
    assert_eq!(summary["output"], inside.to_str().unwrap());
    assert!(inside.is_file());
    assert!(std::fs::metadata(&inside).unwrap().len() <= sample.max_size());
}
/// Issue 38: `Vec::drain` and `Vec::extend_from_within` with a bad range
/// panic inside the standard library (`core/src/slice/index.rs`), from two
/// call sites: two bugs, each located where the program called it (the
/// harness's frames), the same bugs on a second toolchain, and a libFuzzer
/// cross-check that agrees (it compares where in the standard library).
#[test]
fn two_standard_library_panics_from_two_call_sites_are_two_bugs_located_in_the_program() {
    let _lock = plain_lock();
    let project = plain_project();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("crash-drain"), b"d\xffxxxxxxxxxxxxxxxxxxxxxxxxxxx").unwrap();
    std::fs::write(dir.path().join("crash-extend"), b"e\xffyyyyyyyyyyyyyyyyyyyyyyyyy").unwrap();
    let bugs = |out: &str, toolchain: Option<&str>| -> Vec<(String, String, String)> {
        let mut command = Command::new(BIN);
        command.current_dir(&project).arg("stdpanics").arg(dir.path().join("crash-drain"));
        command.arg(dir.path().join("crash-extend")).arg("-o").arg(dir.path().join(out));
        if let Some(toolchain) = toolchain {
            // rustup's proxies (not `$CARGO`, this toolchain's own cargo) pick the toolchain.
            command.env("RUSTUP_TOOLCHAIN", toolchain).env_remove("CARGO").env_remove("RUSTC");
            command.arg("--no-verify-libfuzzer");
        }
        let assert = assert_cmd::Command::from_std(command).timeout(Duration::from_secs(600)).assert();
        let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
        assert_eq!(assert.get_output().status.code(), Some(7), "bugs found:\n{stderr}");
        let report: Value =
            serde_json::from_slice(&std::fs::read(dir.path().join(out).join("report.json")).unwrap()).unwrap();
        let mut bugs: Vec<(String, String, String)> = report["bugs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|bug| {
                let field = |name: &str| bug["signature"][name].as_str().unwrap_or_default().to_string();
                (field("location"), field("raised_in"), bug["id"].as_str().unwrap().to_string())
            })
            .collect();
        bugs.sort();
        if toolchain.is_none() && cargo_fuzz_installed() {
            for bug in report["bugs"].as_array().unwrap() {
                assert_eq!(bug["libfuzzer"]["verified"], "yes", "{bug}");
            }
        }
        bugs
    };
    let stable = bugs("stable", None);
    let locations: Vec<&str> = stable.iter().map(|(location, _, _)| location.as_str()).collect();
    assert_eq!(locations, ["fuzz_targets/stdpanics.rs:11:7", "fuzz_targets/stdpanics.rs:6:7"]);
    assert!(stable.iter().all(|(_, raised_in, _)| raised_in.starts_with("core/src/slice/index.rs:")), "{stable:?}");
    assert_ne!(stable[0].2, stable[1].2, "two bugs");
    let nightly = Command::new("rustup").args(["run", "nightly", "rustc", "--version"]).output();
    if nightly.is_ok_and(|out| out.status.success()) {
        let ids =
            |bugs: &[(String, String, String)]| bugs.iter().map(|b| (b.0.clone(), b.2.clone())).collect::<Vec<_>>();
        assert_eq!(ids(&bugs("nightly", Some("nightly"))), ids(&stable), "the same bugs on another toolchain");
    }
}

/// Issue 46: nine range and index checks of the standard library, each
/// called from a function of its own that the optimized build inlines into
/// one (where LLVM used to sink the calls into one, whose return address
/// reads line 0, and three bugs were one): as many bugs as call sites, each
/// located at its call in its own function, and the libFuzzer cross-check
/// agrees.
#[test]
fn every_standard_library_panic_of_an_inlined_function_is_its_own_bug_at_its_call() {
    let _lock = plain_lock();
    let project = plain_project();
    let dir = tempfile::tempdir().unwrap();
    let calls: Vec<(u8, &str)> = vec![
        (b'd', "v.drain("),
        (b'e', "v.extend_from_within("),
        (b'c', "v.copy_within("),
        (b's', "v.split_off("),
        (b'r', "v.rotate_left("),
        (b'i', "v.insert("),
        (b't', "v.remove("),
        (b'h', "v.split_at("),
        (b'w', "&v[from..2]"),
    ];
    for (op, _) in &calls {
        std::fs::write(dir.path().join(format!("crash-{}", *op as char)), [*op, 0xff, b'x', b'y', b'z']).unwrap();
    }
    let out = dir.path().join("out");
    let mut command = Command::new(BIN);
    command.current_dir(&project).arg("ranges").arg(dir.path()).arg("-o").arg(&out);
    let assert = assert_cmd::Command::from_std(command).timeout(Duration::from_secs(900)).assert();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert_eq!(assert.get_output().status.code(), Some(7), "bugs found:\n{stderr}");
    let report: Value = serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    let bugs = report["bugs"].as_array().unwrap();
    let mut located: Vec<String> =
        bugs.iter().map(|b| b["signature"]["location"].as_str().unwrap().to_string()).collect();
    located.sort();
    let line_of = |call: &str| RANGES.lines().position(|line| line.contains(call)).unwrap() + 1;
    let mut expected: Vec<String> =
        calls.iter().map(|(_, call)| format!("fuzz_targets/ranges.rs:{}:", line_of(call))).collect();
    expected.sort();
    assert_eq!(located.len(), calls.len(), "one bug per call site: {located:#?}");
    for (location, line) in located.iter().zip(&expected) {
        assert!(location.starts_with(line), "{location} is not at its call {line}: {located:#?}");
    }
    if cargo_fuzz_installed() {
        for bug in bugs {
            assert_eq!(bug["libfuzzer"]["verified"], "yes", "{bug}");
        }
    }
}

/// A project whose bugs are in a registry crate (url 2.2.0's, found by
/// libFuzzer, `path_segments.rs`) and in its own library (a path dependency
/// outside the fuzz workspace, compiled by its absolute path), with both
/// crashes in `fuzz/artifacts/`, written into `dir`.
fn located_project(dir: &Path) {
    let write = |relative: &str, bytes: &[u8]| write_file(dir, relative, bytes);
    write("Cargo.toml", b"[package]\nname = \"located\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\nexclude = [\"fuzz\"]\n");
    write(
        "src/lib.rs",
        b"pub fn check(data: &[u8]) {\n    if data.starts_with(b\"boom\") {\n        panic!(\"boom\");\n    }\n}\n",
    );
    write(".git/HEAD", b"ref: refs/heads/main\n");
    let manifest = "[package]\nname = \"located-fuzz\"\nversion = \"0.0.0\"\npublish = false\nedition = \"2021\"\n\n\
        [package.metadata]\ncargo-fuzz = true\n\n\
        [dependencies]\nlibfuzzer-sys = \"0.4\"\nurl = \"=2.2.0\"\nlocated = { path = \"..\" }\n\n\
        [workspace]\nmembers = [\".\"]\n\n\
        [[bin]]\nname = \"segments\"\npath = \"fuzz_targets/segments.rs\"\ntest = false\ndoc = false\n\n\
        [[bin]]\nname = \"own\"\npath = \"fuzz_targets/own.rs\"\ntest = false\ndoc = false\n";
    write("fuzz/Cargo.toml", manifest.as_bytes());
    write(
        "fuzz/fuzz_targets/segments.rs",
        b"#![no_main]\nuse libfuzzer_sys::fuzz_target;\n\n\
          fuzz_target!(|input: (String, Vec<String>, bool)| {\n    \
              let (base, segments, pop) = input;\n    \
              if let Ok(mut url) = url::Url::parse(&base) {\n        \
                  if let Ok(mut path) = url.path_segments_mut() {\n            \
                      if pop {\n                path.pop_if_empty();\n                path.pop();\n            }\n            \
                      path.extend(&segments);\n        \
                  }\n        \
                  let _ = url.to_string();\n    \
              }\n\
          });\n",
    );
    write(
        "fuzz/fuzz_targets/own.rs",
        b"#![no_main]\nlibfuzzer_sys::fuzz_target!(|data: &[u8]| located::check(data));\n",
    );
    write(
        "fuzz/artifacts/segments/crash-39b0d24d4ac18b07d4feb20d686ce6ef4a75a1e8",
        b"\x01\x41\x3a\x2f\x2f\xdd\x94\x41\xa1\xdd\x94\x41\xa1\x2f\x3a\x57\x3a\xff\x6a\x3d\x23\x41\x35\x57",
    );
    write("fuzz/artifacts/own/crash-boom", b"boom and then some bytes");
}

/// Issues 38 and 46: a signature holds no path of this machine's, so the
/// same bugs have the same ids (and SARIF fingerprints) in another checkout
/// directory under another `CARGO_HOME`: outside the project, inside it
/// (GitLab CI caches only paths there: `$CI_PROJECT_DIR/.cargo`), and
/// relative. A registry crate's place reads `url-2.2.0/src/...` wherever
/// cargo keeps it, the project's own `src/lib.rs`.
#[test]
fn the_same_bugs_have_the_same_ids_in_another_checkout_under_any_cargo_home() {
    let base = Path::new(BIN).parent().unwrap().parent().unwrap().join("tmp/cli-real/located");
    let run = |name: &str, cargo_home: &dyn Fn(&Path) -> PathBuf| -> (Vec<(String, String)>, Value) {
        let dir = base.join(name);
        let checkout = dir.join("checkout");
        located_project(&checkout);
        let out = dir.join("out");
        let _ = std::fs::remove_dir_all(&out);
        let mut command = Command::new(BIN);
        command.current_dir(&checkout).args(["--artifacts", "--no-verify-libfuzzer", "-o"]).arg(&out);
        command.env("CARGO_HOME", cargo_home(&dir));
        let assert = assert_cmd::Command::from_std(command).timeout(Duration::from_secs(900)).assert();
        let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
        assert_eq!(assert.get_output().status.code(), Some(7), "bugs found:\n{stderr}");
        let report: Value = serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
        let sarif: Value = serde_json::from_slice(&std::fs::read(out.join("report.sarif")).unwrap()).unwrap();
        let mut bugs: Vec<(String, String)> = report["bugs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|bug| {
                (bug["signature"]["location"].as_str().unwrap().to_string(), bug["id"].as_str().unwrap().to_string())
            })
            .collect();
        bugs.sort();
        (bugs, sarif["runs"][0]["results"].clone())
    };
    let fingerprints = |results: &Value| {
        let mut all: Vec<String> =
            results.as_array().unwrap().iter().map(|r| r["partialFingerprints"].to_string()).collect();
        all.sort();
        all
    };
    let (here, here_sarif) = run("a", &|dir| dir.join("cargo-home"));
    let locations: Vec<&str> = here.iter().map(|(location, _)| location.as_str()).collect();
    assert_eq!(locations, ["src/lib.rs:3:9", "url-2.2.0/src/path_segments.rs:126:34"]);
    let inside = |dir: &Path| dir.join("checkout/.cargo");
    let relative = |_: &Path| PathBuf::from("cargo-home");
    for (name, cargo_home) in [("b", &inside as &dyn Fn(&Path) -> PathBuf), ("c", &relative)] {
        let (there, there_sarif) = run(name, cargo_home);
        assert_eq!(here, there, "the same bugs, the same ids, with CARGO_HOME as in checkout {name}");
        assert_eq!(fingerprints(&here_sarif), fingerprints(&there_sarif));
    }
}

/// rustc-demangle 0.1.18's own kind of fuzz target (demangle any UTF-8
/// string), whose v0 printer recurses without end on a backref to itself
/// (a bug libFuzzer found), with five inputs of it in `fuzz/artifacts/`.
fn recursion_project(dir: &Path) {
    let write = |relative: &str, bytes: &[u8]| write_file(dir, relative, bytes);
    write("Cargo.toml", b"[package]\nname = \"recursion\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\nexclude = [\"fuzz\"]\n");
    write("src/lib.rs", b"");
    let manifest = "[package]\nname = \"recursion-fuzz\"\nversion = \"0.0.0\"\npublish = false\nedition = \"2021\"\n\n\
        [package.metadata]\ncargo-fuzz = true\n\n\
        [dependencies]\nlibfuzzer-sys = \"0.4\"\nrustc-demangle = \"=0.1.18\"\n\n\
        [workspace]\nmembers = [\".\"]\n\n\
        [[bin]]\nname = \"demangle\"\npath = \"fuzz_targets/demangle.rs\"\ntest = false\ndoc = false\n";
    write("fuzz/Cargo.toml", manifest.as_bytes());
    write(
        "fuzz/fuzz_targets/demangle.rs",
        b"#![no_main]\nuse libfuzzer_sys::fuzz_target;\n\n\
          fuzz_target!(|data: &[u8]| {\n    \
              if let Ok(s) = std::str::from_utf8(data) {\n        \
                  let _ = rustc_demangle::demangle(s).to_string();\n    \
              }\n\
          });\n",
    );
    let inputs: [&[u8]; 5] = [b"_RNvB_1a", b"_RNvB_1a.llvm.1234", b"RNAB_1a", b"_RNvB_1a.lto.priv.0", b"_RINvB_1aE"];
    for (i, input) in inputs.iter().enumerate() {
        write(&format!("fuzz/artifacts/demangle/crash-{i}"), input);
    }
}

/// Issue 38: an unbounded recursion is one stack overflow, named by the
/// functions that repeat, not by the frame where the stack ran out (which
/// moves with the input and the stack's size): five inputs of it are one bug
/// with one id on an 8 MiB and on a 2 MiB stack, and the libFuzzer binary,
/// killed by the SIGSEGV, agrees.
#[test]
fn one_recursion_is_one_stack_overflow_whatever_the_input_or_the_stack_size() {
    let dir = Path::new(BIN).parent().unwrap().parent().unwrap().join("tmp/cli-real/recursion");
    recursion_project(&dir);
    let bugs = |out: &str, stack_kib: u64| -> Vec<Value> {
        let out = dir.join(out);
        let _ = std::fs::remove_dir_all(&out);
        let mut command = Command::new(BIN);
        command.current_dir(&dir).args(["--artifacts", "demangle", "-o"]).arg(&out);
        limit_stack_to(&mut command, stack_kib);
        let assert = assert_cmd::Command::from_std(command).timeout(Duration::from_secs(600)).assert();
        let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
        assert_eq!(assert.get_output().status.code(), Some(7), "bugs found:\n{stderr}");
        let report: Value = serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
        report["bugs"].as_array().unwrap().clone()
    };
    let big = bugs("out-8m", 8 << 10);
    assert_eq!(big.len(), 1, "one recursion, one bug: {big:#?}");
    let signature = &big[0]["signature"];
    assert_eq!(signature["kind"], "stack-overflow", "{signature}");
    assert_eq!(signature["location"], "recursion: rustc_demangle::v0::Printer::print_path", "{signature}");
    if cargo_fuzz_installed() {
        assert_eq!(big[0]["libfuzzer"]["verified"], "yes", "{:#}", big[0]);
    }
    let small = bugs("out-2m", 2 << 10);
    assert_eq!(small.len(), 1, "{small:#?}");
    assert_eq!(small[0]["id"], big[0]["id"], "the same bug on another stack size");
}

/// A fuzz crate for a registry crate as it is: rustc-demangle 0.1.21 behind
/// a typed target like its own (`&str`, both formats), no lockfile.
fn demangle_project() -> PathBuf {
    let dir = Path::new(BIN).parent().unwrap().parent().unwrap().join("tmp/cli-real/demangle");
    let write = |relative: &str, text: &str| write_file(&dir, relative, text.as_bytes());
    write(
        "Cargo.toml",
        "[package]\nname = \"demangle\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\nexclude = [\"fuzz\"]\n",
    );
    write("src/lib.rs", "//! A crate whose fuzz crate fuzzes a registry crate.\n");
    write(
        "fuzz/Cargo.toml",
        "[package]\nname = \"demangle-fuzz\"\nversion = \"0.0.0\"\npublish = false\nedition = \"2021\"\n\n\
         [package.metadata]\ncargo-fuzz = true\n\n\
         [dependencies]\nlibfuzzer-sys = \"0.4\"\nrustc-demangle = \"=0.1.21\"\n\n\
         [workspace]\nmembers = [\".\"]\n\n\
         [[bin]]\nname = \"demangle\"\npath = \"fuzz_targets/demangle.rs\"\ntest = false\ndoc = false\nbench = false\n",
    );
    write(
        "fuzz/fuzz_targets/demangle.rs",
        "#![no_main]\nuse libfuzzer_sys::fuzz_target;\n\n\
         fuzz_target!(|data: &str| {\n    \
             if let Ok(symbol) = rustc_demangle::try_demangle(data) {\n        \
                 let _ = format!(\"{symbol} {symbol:#}\");\n    \
             }\n\
         });\n",
    );
    dir
}

/// Issue 36: features are counted on the build users fuzz with. A corpus
/// that libFuzzer grew itself, on `cargo fuzz build`'s default binary
/// (AddressSanitizer), loses nothing by libFuzzer's own count there.
#[test]
fn a_registry_crates_corpus_keeps_libfuzzers_count_on_the_address_sanitizer_build() {
    cargo_fuzz::require();
    let project = demangle_project();
    let _ = std::fs::remove_file(project.join("fuzz/Cargo.lock"));
    let _lock = harness_lock();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // cargo-fuzz's default sanitizer needs -Z flags: a stable toolchain takes them so.
    let built = Command::new(cargo)
        .current_dir(&project)
        .env("RUSTC_BOOTSTRAP", "1")
        .args(["fuzz", "build", "demangle"])
        .output()
        .unwrap();
    assert!(built.status.success(), "cargo fuzz build failed:\n{}", String::from_utf8_lossy(&built.stderr));
    let binary = project.join("fuzz/target/x86_64-unknown-linux-gnu/release/demangle");
    let dir = tempfile::tempdir().unwrap();
    let (corpus, output) = (dir.path().join("corpus"), dir.path().join("new"));
    std::fs::create_dir(&corpus).unwrap();
    let grown = Command::new(&binary).args(["-runs=200000", "-seed=7", "-max_len=256"]).arg(&corpus).output().unwrap();
    assert!(grown.status.success(), "{}", String::from_utf8_lossy(&grown.stderr));
    let mut command = Command::new(BIN);
    command.current_dir(&project).args(["--json", "--timeout", "1s", "demangle", "--corpus"]).arg(&corpus);
    command.arg("-o").arg(&output);
    let assert = assert_cmd::Command::from_std(command).timeout(Duration::from_secs(900)).assert();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert_eq!(assert.get_output().status.code(), Some(0), "{stderr}");
    let report: Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    assert_eq!(report["coverage_build"], "address", "{report:#}");
    assert!(stderr.contains("counted on the build with AddressSanitizer"), "{stderr}");
    let old = inited_counts(&binary, &[&corpus]);
    let new = inited_counts(&binary, &[&output]);
    let both = inited_counts(&binary, &[&output, &corpus]);
    eprintln!(
        "rustc-demangle 0.1.21: {} files -> {}; libFuzzer's cov/ft old {old:?}, new {new:?}, both {both:?}",
        report["before"]["files"], report["after"]["files"]
    );
    assert!(new.0 >= old.0 && new.1 >= old.1, "{old:?} -> {new:?}");
    assert_eq!(both, new, "libFuzzer finds nothing in the old corpus that the new one lacks");
}
