//! Function names as signatures read them, the same under both manglings,
//! on every function of real crates: rustc-demangle 0.1.21, regex-syntax
//! 0.8.5 and serde_json 1.0.120 from crates.io (parsers, printers, visitors,
//! closures, generics, trait impls, items inside generic impls) built into
//! one program twice, with the legacy mangling (stable's default before Rust
//! 1.97) and with v0 (nightly's, and any rustc run with `RUSTC_BOOTSTRAP=1`),
//! every function symbol of the crate looked up by `llvm-symbolizer` as the
//! executors do, and the names [`canonical`] makes of one source function
//! compared. One difference is left, and asserted to be the only one: a
//! trait's default method is `Trait::method` in legacy (one symbol per
//! instance, named by the trait's path) and `<Type as Trait>::method` in v0.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use cargo_minimize_crash::trace::symbol::canonical;

/// The crate's functions by where they begin (`file:line`), each with the
/// canonical names found there.
type Names = BTreeMap<String, BTreeSet<String>>;

const CRATES: [&str; 3] = ["rustc-demangle-0.1.21", "regex-syntax-0.8.5", "serde_json-1.0.120"];

#[test]
fn every_function_of_real_crates_has_one_name_under_both_manglings() {
    let project = project();
    let legacy = names(&build(&project, "legacy", &[]));
    let v0 = names(&build(&project, "v0", &["-Csymbol-mangling-version=v0"]));
    assert!(legacy.len() >= 300, "the crates' functions were found: {legacy:#?}");
    let shared: Vec<&String> = legacy.keys().filter(|at| v0.contains_key(*at)).collect();
    let differ: Vec<&String> = shared.iter().copied().filter(|at| legacy[*at] != v0[*at]).collect();
    let (default_methods, other): (Vec<&String>, Vec<&String>) =
        differ.iter().partition(|at| is_default_method(&legacy[**at], &v0[**at]));
    eprintln!(
        "{} functions, {} under both, {} named alike, {} default trait methods, {} other",
        legacy.len(),
        shared.len(),
        shared.len() - differ.len(),
        default_methods.len(),
        other.len()
    );
    assert!(shared.len() * 10 >= legacy.len() * 9, "most functions are found under both: {}", shared.len());
    let other: Vec<_> = other.iter().map(|at| (at, &legacy[*at], &v0[*at])).collect();
    assert!(other.is_empty(), "named differently (where, legacy, v0): {other:#?}");
    let raw = legacy.values().flatten().chain(v0.values().flatten()).filter(|name| name.contains('$'));
    assert_eq!(raw.count(), 0, "legacy escapes are decoded");
}

/// Legacy's `path::Trait::method` where v0 has `<Type as path::Trait>::method`
/// for each type the default method was instantiated for.
fn is_default_method(legacy: &BTreeSet<String>, v0: &BTreeSet<String>) -> bool {
    let [trait_method] = &legacy.iter().collect::<Vec<_>>()[..] else { return false };
    let Some((trait_path, method)) = trait_method.rsplit_once("::") else { return false };
    let suffix = format!(" as {trait_path}>::{method}");
    v0.iter().all(|name| name.starts_with('<') && name.ends_with(&suffix))
}

/// A program that calls into the three crates, under the workspace's `target/tmp`.
fn project() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("symbols");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = "[package]\nname = \"symbols\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
        [dependencies]\nrustc-demangle = \"=0.1.21\"\nregex-syntax = \"=0.8.5\"\nserde_json = \"=1.0.120\"\n\n\
        [workspace]\n";
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    let main = "fn main() {\n    for arg in std::env::args() {\n        \
        println!(\"{} {:#}\", rustc_demangle::demangle(&arg), rustc_demangle::demangle(&arg));\n        \
        println!(\"{:?}\", rustc_demangle::try_demangle(&arg).map(|d| d.as_str().len()));\n        \
        println!(\"{:?}\", regex_syntax::parse(&arg));\n        \
        let value: Result<serde_json::Value, _> = serde_json::from_str(&arg);\n        \
        println!(\"{}\", serde_json::to_string_pretty(&value.ok()).unwrap());\n    }\n}\n";
    std::fs::write(dir.join("src/main.rs"), main).unwrap();
    dir
}

/// The program built with `rustflags` in its own target directory.
fn build(project: &Path, name: &str, rustflags: &[&str]) -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let target = project.join(format!("target-{name}"));
    let status = Command::new(cargo)
        .current_dir(project)
        .args(["build", "--quiet", "--target-dir"])
        .arg(&target)
        .env("RUSTFLAGS", rustflags.join(" "))
        .env_remove("RUSTC_BOOTSTRAP")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .status()
        .expect("cargo runs");
    assert!(status.success(), "the {name} build");
    target.join("debug/symbols")
}

/// Every function symbol of `binary` in the crates' sources, by where it begins.
fn names(binary: &Path) -> Names {
    let addresses = function_addresses(binary);
    let mut symbolizer = Command::new("llvm-symbolizer")
        .arg(format!("--obj={}", binary.display()))
        .args(["--functions=linkage", "--demangle", "--inlining"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("llvm-symbolizer runs (.ci/run installs it)");
    let mut stdin = symbolizer.stdin.take().unwrap();
    let input: String = addresses.iter().map(|address| format!("0x{address:x}\n")).collect();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = symbolizer.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    let mut names = Names::new();
    for block in String::from_utf8_lossy(&output.stdout).split("\n\n") {
        let lines: Vec<&str> = block.lines().collect();
        // The outermost frame (the last pair) is the symbol's own function.
        let [.., function, location] = lines[..] else { continue };
        if !CRATES.iter().any(|name| location.contains(name)) {
            continue;
        }
        let at = location.rsplit_once(':').map_or(location, |(at, _column)| at);
        names.entry(at.to_owned()).or_default().insert(canonical(function));
    }
    names
}

/// The addresses of `binary`'s function symbols, from `nm`.
fn function_addresses(binary: &Path) -> Vec<u64> {
    let output = Command::new("nm").arg("--defined-only").arg(binary).output().expect("nm runs");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let (address, kind) = (fields.next()?, fields.next()?);
            matches!(kind, "t" | "T").then(|| u64::from_str_radix(address, 16).ok()).flatten()
        })
        .collect()
}
