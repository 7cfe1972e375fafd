//! The packaged crate installed as CI installs it: `cargo package`, the `.crate` unpacked and installed with `cargo install --path` into a fresh `CARGO_HOME`, its sources deleted; the installed binary then builds the sample `tlv` harness from the runtime it carries.
//!
//! Cost on 2 cores: 1-2 minutes the first time (a debug build of every
//! dependency, the harness build), 15-20 s when the package is unchanged, and
//! about 30 s when it changed (the crate itself is rebuilt). What makes
//! reruns fast, all under the workspace's `target/install-test/`: cargo's
//! target directory for the install persists, and the fresh `CARGO_HOME` is
//! emptied and filled again (crates.io downloads) at the same path each run,
//! because a dependency's source path is part of its fingerprint.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use nix::fcntl::{Flock, FlockArg};
use serde_json::Value;

const CRASH: &str = "corpus-samples/tlv/crash-a5d745a34e1c4ab6c754e74ce7ab6bb62040a215";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn cargo() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// Runs `command`, failing the test with its output unless it succeeds.
fn run(command: &mut Command) -> std::process::Output {
    let output = command.output().unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    assert!(
        output.status.success(),
        "{command:?} failed ({}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// `<workspace target dir>/install-test`, from this test binary's path
/// (`<target>/<profile>/deps/install-<hash>`).
fn persistent_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.ancestors().nth(3).unwrap().join("install-test")
}

/// `cargo package` of the main crate into `dir`, without cargo's verification
/// build (the install is one); the `.crate` file.
fn package(dir: &Path) -> PathBuf {
    let mut command = Command::new(cargo());
    command.current_dir(root()).args(["package", "-p", "cargo-minimize-crash", "--allow-dirty", "--no-verify"]);
    run(command.arg("--target-dir").arg(dir));
    dir.join(format!("package/cargo-minimize-crash-{}.crate", env!("CARGO_PKG_VERSION")))
}

/// Unpacks `krate` into `<temp dir>/cargo-minimize-crash-install-<hash of
/// persistent>/` (under `target/` cargo would take it for a stray member of
/// our workspace) and returns the package's directory and the `.crate`'s hash.
///
/// The `.crate` gives every file the same fixed mtime and cargo's fingerprint
/// of a path package does not depend on where it is, so a changed package
/// would look fresh: unless it is the one last installed from `persistent`
/// (`installed.sha1`), its files get the current time instead.
fn unpack(krate: &Path, persistent: &Path) -> (PathBuf, String) {
    let hash = sha1_smol::Sha1::from(fs::read(krate).unwrap()).digest().to_string();
    let key = sha1_smol::Sha1::from(persistent.as_os_str().as_encoded_bytes()).digest().to_string();
    let into = std::env::temp_dir().join(format!("cargo-minimize-crash-install-{}", &key[..16]));
    let _ = fs::remove_dir_all(&into);
    fs::create_dir_all(&into).unwrap();
    let mut tar = Command::new("tar");
    tar.arg("xzf").arg(krate).arg("-C").arg(&into);
    if fs::read_to_string(persistent.join("installed.sha1")).ok() != Some(hash.clone()) {
        tar.arg("-m"); // the current time as every mtime
    }
    run(&mut tar);
    (into.join(format!("cargo-minimize-crash-{}", env!("CARGO_PKG_VERSION"))), hash)
}

/// `cargo install --path package --root root --debug --locked` with a fresh
/// `CARGO_HOME` and the persistent target directory; the installed binary.
fn install(package: &Path, root: &Path, cargo_home: &Path, target_dir: &Path) -> PathBuf {
    let mut command = Command::new(cargo());
    command.args(["install", "--debug", "--locked", "--path"]).arg(package).arg("--root").arg(root);
    command.env("CARGO_HOME", cargo_home).env("CARGO_TARGET_DIR", target_dir);
    run(&mut command);
    root.join("bin/cargo-minimize-crash")
}

/// Every file under `dir` whose name ends with `suffix`.
fn files_ending(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.to_string_lossy().ends_with(suffix) {
                found.push(path);
            }
        }
    }
    found
}

/// The sample's `max_size` from its `expected.toml`.
fn max_size() -> u64 {
    let expected = fs::read_to_string(root().join("corpus-samples/tlv/expected.toml")).unwrap();
    let expected: toml_edit::DocumentMut = expected.parse().unwrap();
    expected["max_size"].as_integer().unwrap() as u64
}

#[test]
fn a_packaged_install_builds_harnesses_without_the_checkout() {
    let start = Instant::now();
    let persistent = persistent_dir();
    fs::create_dir_all(&persistent).unwrap();
    // Concurrent runs share the persistent directories.
    let lock = fs::File::create(persistent.join("lock")).unwrap();
    let _lock = Flock::lock(lock, FlockArg::LockExclusive).map_err(|(_, e)| e).unwrap();
    let tmp = tempfile::tempdir().unwrap();

    let cargo_home = persistent.join("cargo-home");
    let _ = fs::remove_dir_all(&cargo_home);
    let krate = package(&persistent.join("package"));
    let (unpacked, hash) = unpack(&krate, &persistent);
    let runtime_lib = unpacked.join("embedded/runtime/src/lib.rs");
    assert!(
        fs::symlink_metadata(&runtime_lib).is_ok_and(|m| m.is_file()),
        "{} is not in the package",
        runtime_lib.display()
    );
    assert!(unpacked.join("embedded/protocol/manifest.toml").is_file());
    assert!(!unpacked.join("crates").exists(), "nested packages are left out of a package");
    eprintln!("packaged in {:.1?}", start.elapsed());

    let binary = install(&unpacked, &tmp.path().join("root"), &cargo_home, &persistent.join("target"));
    fs::write(persistent.join("installed.sha1"), hash).unwrap();
    fs::remove_dir_all(unpacked.parent().unwrap()).unwrap();
    eprintln!("installed by {:.1?}", start.elapsed());

    // Run as a user would, in the project with their own CARGO_HOME; the
    // harness build goes to a fresh directory (nothing left from another binary).
    let harness_dir = tmp.path().join("harness");
    let result = tmp.path().join("out");
    let mut command = Command::new(&binary);
    command.current_dir(root()).args(["--no-verify-libfuzzer", "--json", "--target-dir"]).arg(&harness_dir);
    command.arg("-o").arg(&result).args(["tlv", CRASH]);
    let output = run(&mut command);
    eprintln!("minimized by {:.1?}", start.elapsed());
    let summary: Value = serde_json::from_slice(&output.stdout).expect("--json prints a JSON summary");
    let size = fs::metadata(&result).unwrap().len();
    assert_eq!(summary["final_size"], size, "{summary:#}");
    assert!(size <= max_size(), "{size} bytes, above the sample's bound: {summary:#}");
    assert_eq!(summary["signature"]["kind"], "panic", "{summary:#}");

    assert_built_from_the_embedded_runtime(&harness_dir);
    eprintln!("checked by {:.1?}", start.elapsed());
}

/// No manifest of the scratch build names, and no compiled file came from,
/// this checkout's runtime or protocol (`embedded/` links to them); cargo's
/// dep-info shows the runtime compiled from the copy in the scratch directory.
fn assert_built_from_the_embedded_runtime(harness_dir: &Path) {
    let checkout: Vec<String> = ["crates/runtime", "crates/protocol", "embedded"]
        .iter()
        .map(|dir| root().join(dir).display().to_string())
        .collect();
    let manifests = files_ending(harness_dir, "Cargo.toml");
    let dep_info = files_ending(harness_dir, ".d");
    assert!(!manifests.is_empty() && !dep_info.is_empty(), "no scratch build under {}", harness_dir.display());
    for file in manifests.iter().chain(&dep_info) {
        let text = fs::read_to_string(file).unwrap();
        for dir in &checkout {
            assert!(!text.contains(dir.as_str()), "{} names {dir}:\n{text}", file.display());
        }
    }
    let runtime = dep_info.iter().find(|f| f.file_name().unwrap().to_string_lossy().starts_with("cmc_runtime-"));
    let runtime = fs::read_to_string(runtime.expect("cargo's dep-info for cmc_runtime")).unwrap();
    assert!(runtime.contains("/minimize-crash/") && runtime.contains("/crates/runtime/src/lib.rs"), "{runtime}");
}
