//! The `libfuzzer-sys` stand-in: the user's own locked copy of the crate's source, without libFuzzer's C++, with a `main` that hands the target to the fork-server runtime.
//!
//! Why a copy of the user's version rather than a crate of our own: the patch
//! is only taken when the name, version and features match the locked crate
//! exactly, and old versions differ in API (0.4.0–0.4.8 export
//! `LLVMFuzzerInitialize` from the library; the fuzz target's macro defines it
//! from 0.4.9 on). Copying the source keeps every form of `fuzz_target!`,
//! `Corpus`, the `arbitrary` re-export and the mutator macros exactly as the
//! user's code expects them; only the build script (which compiles and links
//! libFuzzer) is dropped, and one module is appended.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context;
use toml_edit::{DocumentMut, InlineTable, Item, Table};

use crate::project::files::write_if_changed;
use crate::project::ProjectError;

/// The crate this module replaces.
pub const LIBFUZZER_SYS: &str = "libfuzzer-sys";

/// The runtime's package name and the name the stand-in uses for it.
pub const RUNTIME_PACKAGE: &str = "cargo-minimize-crash-runtime";
const RUNTIME_CRATE: &str = "cmc_runtime";

/// The module appended to the stand-in's crate root.
const MODULE_FILE: &str = "cmc_standin.rs";

/// A package as a lockfile pins it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockedPackage {
    /// The package name.
    pub name: String,
    /// The exact version.
    pub version: String,
    /// Where it comes from (`registry+…`, `sparse+…`, `git+…`); `None` for a path package.
    pub source: Option<String>,
}

/// A `[patch.<source>]` entry pointing at a stand-in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Patch {
    /// The crate it replaces.
    pub name: String,
    /// The `[patch]` table's key: `crates-io`, or the registry or git URL.
    pub source_key: String,
    /// The stand-in's directory.
    pub path: PathBuf,
}

/// The stand-in, written.
#[derive(Clone, Debug)]
pub struct StandIn {
    /// Its directory (a package named `libfuzzer-sys`).
    pub dir: PathBuf,
    /// Its version, the locked one.
    pub version: String,
}

/// The `libfuzzer-sys` the lockfile pins for `fuzz_package`, if any. With
/// several versions locked, the one the fuzz package depends on.
pub fn locked_libfuzzer_sys(lock: &DocumentMut, fuzz_package: &str) -> Option<LockedPackage> {
    let packages = locked_packages(lock);
    let mut candidates: Vec<&LockedPackage> = packages.iter().filter(|p| p.name == LIBFUZZER_SYS).collect();
    if candidates.len() > 1 {
        let fuzz = package_tables(lock)
            .filter(|p| p.get("name").and_then(Item::as_str) == Some(fuzz_package) && p.get("source").is_none());
        if let Some(version) = dependency_version(fuzz, LIBFUZZER_SYS) {
            candidates.retain(|p| p.version == version);
        }
    }
    candidates.first().map(|p| (*p).clone())
}

/// The `[[package]]` entries of a lockfile.
pub(crate) fn package_tables(lock: &DocumentMut) -> impl Iterator<Item = &Table> {
    lock.get("package").and_then(Item::as_array_of_tables).into_iter().flatten()
}

/// Every package a lockfile pins.
pub(crate) fn locked_packages(lock: &DocumentMut) -> Vec<LockedPackage> {
    package_tables(lock)
        .filter_map(|p| {
            Some(LockedPackage {
                name: p.get("name")?.as_str()?.to_string(),
                version: p.get("version")?.as_str()?.to_string(),
                source: p.get("source").and_then(Item::as_str).map(str::to_string),
            })
        })
        .collect()
}

/// The version the first of `entries` that names `dependency` locks for it:
/// an entry names a dependency as "name" or, when several versions are
/// locked, "name version"; `None` without a version.
pub(crate) fn dependency_version<'a>(entries: impl Iterator<Item = &'a Table>, dependency: &str) -> Option<String> {
    entries
        .filter_map(|p| p.get("dependencies").and_then(Item::as_array))
        .flatten()
        .filter_map(|d| d.as_str())
        .find_map(|d| {
            let mut words = d.split_whitespace();
            (words.next() == Some(dependency)).then(|| words.next().unwrap_or("").to_string())
        })
        .filter(|v| !v.is_empty())
}

/// The `[patch]` key for the lockfile source of package `name`, or why it cannot be patched.
pub fn patch_key(name: &str, source: Option<&str>) -> Result<String, String> {
    let Some(source) = source else {
        return Err(format!("{name} is a path dependency, which a [patch] cannot replace"));
    };
    let is_crates_io = source == "registry+https://github.com/rust-lang/crates.io-index"
        || source.starts_with("sparse+https://index.crates.io");
    if is_crates_io {
        return Ok("crates-io".into());
    }
    if let Some(url) = source.strip_prefix("registry+") {
        return Ok(url.to_string());
    }
    if source.starts_with("sparse+") {
        return Ok(source.to_string());
    }
    if let Some(url) = source.strip_prefix("git+") {
        let end = url.find(['?', '#']).unwrap_or(url.len());
        return Ok(url[..end].to_string());
    }
    Err(format!("{name} comes from `{source}`, a source this tool cannot patch"))
}

/// `$CARGO_HOME`, or `~/.cargo`.
pub fn cargo_home() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("CARGO_HOME") {
        return Some(PathBuf::from(home));
    }
    std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo"))
}

/// The unpacked source of the registry crate `name` at `version` in cargo's
/// registry cache (`$CARGO_HOME/registry/src/<index>/<name>-<version>/`), if
/// cargo has unpacked it; crates.io's own index directories first.
pub fn registry_source_of(cargo_home: &Path, name: &str, version: &str) -> Option<PathBuf> {
    let dir_name = format!("{name}-{version}");
    let mut found: Vec<PathBuf> = fs::read_dir(cargo_home.join("registry/src"))
        .ok()?
        .filter_map(Result::ok)
        .map(|index| index.path().join(&dir_name))
        .filter(|dir| dir.join("Cargo.toml").is_file() && dir.join("src").is_dir())
        .collect();
    found.sort_by_key(|dir| {
        let index = dir.parent().and_then(Path::file_name).and_then(|n| n.to_str()).unwrap_or("");
        (!(index.starts_with("index.crates.io-") || index.starts_with("github.com-")), index.to_string())
    });
    found.into_iter().next()
}

/// Reads a crate source's manifest and checks that it is the package `name`:
/// the manifest, the package's version and its library's path.
pub(crate) fn read_package(source: &Path, name: &str) -> Result<(DocumentMut, String, String), ProjectError> {
    let manifest_path = source.join("Cargo.toml");
    let manifest = crate::project::locate::read_toml(&manifest_path)?;
    let package = manifest.get("package").and_then(Item::as_table_like);
    let found = package.and_then(|p| p.get("name")).and_then(Item::as_str);
    let version = package.and_then(|p| p.get("version")).and_then(Item::as_str).map(str::to_string);
    let (true, Some(version)) = (found == Some(name), version) else {
        return Err(ProjectError::Manifest { path: manifest_path, message: format!("expected the {name} package") });
    };
    let lib_path =
        manifest.get("lib").and_then(|l| l.get("path")).and_then(Item::as_str).unwrap_or("src/lib.rs").to_string();
    Ok((manifest, version, lib_path))
}

/// Writes the stand-in for the crate source at `source` into `dest`: the
/// source without its build script and libFuzzer's C++, a manifest without
/// build and dev dependencies plus the runtime at `runtime`, and the appended
/// module. Files are only rewritten when their contents change, so cargo's
/// fingerprints stay fresh and rebuilds stay incremental.
pub fn write_standin(source: &Path, dest: &Path, runtime: &Path) -> Result<StandIn, ProjectError> {
    let (mut manifest, version, lib_path) = read_package(source, LIBFUZZER_SYS)?;
    let package = manifest.get("package").and_then(Item::as_table_like);
    let edition = package.and_then(|p| p.get("edition")).and_then(Item::as_str).unwrap_or("2015").to_string();
    let build_script = package.and_then(|p| p.get("build")).and_then(Item::as_str).unwrap_or("build.rs").to_string();

    standin_manifest(&mut manifest, runtime);
    fs::create_dir_all(dest).with_context(|| format!("cannot create {}", dest.display()))?;
    write_if_changed(&dest.join("Cargo.toml"), manifest.to_string().as_bytes())?;

    let skip = |relative: &Path| {
        relative == Path::new(&build_script)
            || relative.starts_with("libfuzzer")
            || relative.starts_with("target")
            || [lib_path.as_str(), "Cargo.toml", "Cargo.toml.orig", "Cargo.lock", ".cargo-ok", ".cargo_vcs_info.json"]
                .iter()
                .any(|name| relative == Path::new(name))
    };
    copy_tree(source, source, dest, &skip)?;

    let lib_source = source.join(&lib_path);
    let lib = fs::read_to_string(&lib_source).with_context(|| format!("cannot read {}", lib_source.display()))?;
    if !lib.contains("fn test_input_wrap(") {
        return Err(ProjectError::Unsupported {
            fuzz_dir: source.to_path_buf(),
            reason: format!("{LIBFUZZER_SYS} {version} has no `test_input_wrap` (LLVMFuzzerTestOneInput)"),
        });
    }
    let lib_dest = dest.join(&lib_path);
    let module = lib_dest.with_file_name(MODULE_FILE);
    write_if_changed(&lib_dest, patched_lib(&lib).as_bytes())?;
    write_if_changed(&module, standin_module(&lib, &edition).as_bytes())?;
    Ok(StandIn { dir: dest.to_path_buf(), version })
}

/// The stand-in's manifest: same name, version and features (so the patch is
/// taken), no build script, no build or dev dependencies, plus the runtime.
fn standin_manifest(manifest: &mut DocumentMut, runtime: &Path) {
    if let Some(package) = manifest.get_mut("package").and_then(Item::as_table_like_mut) {
        package.insert("build", toml_edit::value(false));
        // `links` needs a build script.
        package.remove("links");
    }
    for key in ["build-dependencies", "build_dependencies", "dev-dependencies", "dev_dependencies"] {
        manifest.remove(key);
        if let Some(targets) = manifest.get_mut("target").and_then(Item::as_table_like_mut) {
            for (_, platform) in targets.iter_mut() {
                if let Some(platform) = platform.as_table_like_mut() {
                    platform.remove(key);
                }
            }
        }
    }
    for key in ["workspace", "example", "test", "bench"] {
        manifest.remove(key);
    }
    let mut runtime_dep = InlineTable::new();
    runtime_dep.insert("package", RUNTIME_PACKAGE.into());
    runtime_dep.insert("path", runtime.display().to_string().into());
    let dependencies = manifest.entry("dependencies").or_insert_with(toml_edit::table);
    if let Some(dependencies) = dependencies.as_table_like_mut() {
        dependencies.insert(RUNTIME_CRATE, toml_edit::value(runtime_dep));
    }
}

/// The function `fuzz_target!`'s expansion calls between decoding a typed
/// target's input and running its body (and first thing for a raw-bytes
/// target), in libfuzzer-sys 0.4.7 and later.
const DECODED_ANCHOR: &str = "pub fn rust_libfuzzer_debug_path() -> &'static Option<String> {\n";

/// The line of a typed `fuzz_target!`'s expansion that decodes the input
/// (`data` is then a `Result<T, arbitrary::Error>`, `T: Debug`), in 0.4.7 and
/// later; the look-alike hook goes at its end ([`patched_lib`]).
const VALUE_ANCHOR: &str = "let data = <$dty as Arbitrary>::arbitrary_take_rest(u);\n";

/// The hook that hands the decoded value to the runtime (see `cmc_runtime::values::value`).
const VALUE_HOOK: &str = super::text(include_str!("files/libfuzzer_sys_value_hook.rs"));

/// The crate root, with warnings allowed (cargo caps lints for registry
/// crates but not for path ones, and a user's `RUSTFLAGS=-Dwarnings` must not
/// fail an old version's code on a new compiler), our module declared, and
/// the runtime's hooks, on lines of their own or at the end of one, so no
/// line moves: for decoded values ([`DECODED_ANCHOR`]) and for the value
/// itself ([`VALUE_ANCHOR`]), where the version has the anchor.
fn patched_lib(lib: &str) -> String {
    let hooked = DECODED_ANCHOR.replace('\n', " cmc_runtime::values::decoded(); // cargo-minimize-crash\n");
    let mut lib = if lib.matches(DECODED_ANCHOR).count() == 1 {
        lib.replacen(DECODED_ANCHOR, &hooked, 1)
    } else {
        lib.to_string()
    };
    if lib.contains(VALUE_ANCHOR) {
        let hooked = VALUE_ANCHOR.replace('\n', " $crate::__cmc_value(&data); // cargo-minimize-crash\n");
        lib = lib.replace(VALUE_ANCHOR, &hooked) + "\n" + VALUE_HOOK;
    }
    format!(
        "#![allow(warnings)] // cargo-minimize-crash: lints are capped for registry crates\n{lib}\n\
         // cargo-minimize-crash: run the fuzz target under the fork server instead of libFuzzer.\n\
         #[path = \"{MODULE_FILE}\"]\nmod __cmc_standin;\n"
    )
}

/// The appended module, as written for editions up to 2021 and for
/// libfuzzer-sys 0.4.9 on: `main` (libFuzzer's is not linked) calls the
/// initializer the way libFuzzer does, then serves the runtime's requests,
/// each one a call of `LLVMFuzzerTestOneInput`. `LLVMFuzzerMutate` (libFuzzer's
/// mutator, referenced by `fuzzer_mutate`) returns the data unchanged.
const ENTRY_POINT: &str = super::text(include_str!("files/libfuzzer_sys_entry_point.rs"));

/// [`ENTRY_POINT`]'s declaration of the initializer the fuzz target's macro
/// defines: from its first line to the next line that is `}`.
const INITIALIZER_BLOCK: &str = "extern \"C\" {\n    fn LLVMFuzzerInitialize(";
/// [`ENTRY_POINT`]'s call of that initializer.
const INITIALIZER_CALL: &str = "unsafe { LLVMFuzzerInitialize(&argc, &argv) };";

/// [`ENTRY_POINT`] for the stand-in of `lib` at `edition`: 0.4.0–0.4.8 export
/// the initializer from the library itself (later versions generate it in
/// the fuzz target's `fuzz_target!` expansion), and edition 2024 wants
/// `unsafe` on `no_mangle` and on `extern` blocks.
fn standin_module(lib: &str, edition: &str) -> String {
    let mut module = ENTRY_POINT.to_string();
    if lib.contains("export_name = \"LLVMFuzzerInitialize\"") {
        let start = module.find(INITIALIZER_BLOCK).expect("the entry point declares the initializer");
        let end = start + module[start..].find("\n}\n").expect("the declaration ends") + "\n}\n".len();
        module.replace_range(start..end, "");
        module = module.replacen(INITIALIZER_CALL, "super::initialize(&argc, &argv);", 1);
    }
    if edition >= "2024" {
        module = module.replace("#[no_mangle]", "#[unsafe(no_mangle)]");
        module = module.replacen(INITIALIZER_BLOCK, &format!("unsafe {INITIALIZER_BLOCK}"), 1);
    }
    module
}

/// Copies the files under `dir` (relative to `root`) into `dest`, except those `skip` names.
pub(super) fn copy_tree(
    root: &Path,
    dir: &Path,
    dest: &Path,
    skip: &dyn Fn(&Path) -> bool,
) -> Result<(), ProjectError> {
    let entries = fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot list {}", dir.display()))?;
        let path = entry.path();
        let relative = path.strip_prefix(root).expect("under the root");
        if skip(relative) {
            continue;
        }
        if entry.file_type().with_context(|| format!("cannot stat {}", path.display()))?.is_dir() {
            copy_tree(root, &path, dest, skip)?;
        } else {
            let contents = fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
            let target = dest.join(relative);
            if let Some(parent) = target.parent() {
                fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
            }
            write_if_changed(&target, &contents)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCK: &str = r#"
version = 4

[[package]]
name = "arbitrary"
version = "1.5.0"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "libfuzzer-sys"
version = "0.3.5"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "libfuzzer-sys"
version = "0.4.13"
source = "registry+https://github.com/rust-lang/crates.io-index"
dependencies = ["arbitrary", "cc"]

[[package]]
name = "old-fuzz"
version = "0.1.0"
dependencies = ["libfuzzer-sys 0.3.5"]

[[package]]
name = "demo-fuzz"
version = "0.0.0"
dependencies = ["arbitrary", "libfuzzer-sys 0.4.13"]
"#;

    #[test]
    fn the_locked_version_is_the_one_the_fuzz_package_depends_on() {
        let lock: DocumentMut = LOCK.parse().unwrap();
        let locked = locked_libfuzzer_sys(&lock, "demo-fuzz").unwrap();
        assert_eq!(locked.version, "0.4.13");
        assert_eq!(locked.source.as_deref(), Some("registry+https://github.com/rust-lang/crates.io-index"));
        assert_eq!(locked_libfuzzer_sys(&lock, "old-fuzz").unwrap().version, "0.3.5");
        let none: DocumentMut = "version = 4\n".parse().unwrap();
        assert_eq!(locked_libfuzzer_sys(&none, "demo-fuzz"), None);
    }

    #[test]
    fn patch_keys_follow_the_locked_source() {
        assert_eq!(
            patch_key(LIBFUZZER_SYS, Some("registry+https://github.com/rust-lang/crates.io-index")).unwrap(),
            "crates-io"
        );
        assert_eq!(patch_key(LIBFUZZER_SYS, Some("sparse+https://index.crates.io/")).unwrap(), "crates-io");
        assert_eq!(
            patch_key(LIBFUZZER_SYS, Some("git+https://github.com/rust-fuzz/libfuzzer?branch=main#0123abcd")).unwrap(),
            "https://github.com/rust-fuzz/libfuzzer"
        );
        assert_eq!(
            patch_key(LIBFUZZER_SYS, Some("registry+https://my.registry/index")).unwrap(),
            "https://my.registry/index"
        );
        assert!(patch_key(LIBFUZZER_SYS, None).is_err());
    }

    fn fake_crate(dir: &Path, lib: &str) {
        fs::create_dir_all(dir.join("src")).unwrap();
        fs::create_dir_all(dir.join("libfuzzer")).unwrap();
        fs::write(dir.join("libfuzzer/FuzzerDriver.cpp"), "int main() {}").unwrap();
        fs::write(dir.join("build.rs"), "fn main() {}").unwrap();
        fs::write(dir.join("README.md"), "readme").unwrap();
        fs::write(dir.join("src/lib.rs"), lib).unwrap();
        fs::write(
            dir.join("Cargo.toml"),
            r#"
[package]
edition = "2018"
name = "libfuzzer-sys"
version = "0.4.13"
build = "build.rs"
links = "fuzzer"

[features]
arbitrary-derive = ["arbitrary/derive"]
default = ["link_libfuzzer"]
link_libfuzzer = []

[lib]
name = "libfuzzer_sys"
path = "src/lib.rs"

[dependencies.arbitrary]
version = "1"

[dev-dependencies.rand]
version = "0.10"

[build-dependencies.cc]
version = "1.0.83"
"#,
        )
        .unwrap();
    }

    #[test]
    fn the_standin_keeps_name_version_and_features_and_drops_the_cpp_build() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("libfuzzer-sys-0.4.13");
        fake_crate(&source, "pub unsafe fn test_input_wrap(data: *const u8, size: usize) -> i32 { 0 }\n");
        let dest = dir.path().join("standin");
        let standin = write_standin(&source, &dest, Path::new("/opt/runtime")).unwrap();
        assert_eq!(standin.version, "0.4.13");

        let manifest: DocumentMut = fs::read_to_string(dest.join("Cargo.toml")).unwrap().parse().unwrap();
        assert_eq!(manifest["package"]["name"].as_str(), Some("libfuzzer-sys"));
        assert_eq!(manifest["package"]["version"].as_str(), Some("0.4.13"));
        assert_eq!(manifest["package"]["build"].as_bool(), Some(false));
        assert!(manifest["package"].get("links").is_none());
        assert!(manifest.get("build-dependencies").is_none() && manifest.get("dev-dependencies").is_none());
        let features: Vec<&str> = manifest["features"].as_table().unwrap().iter().map(|(k, _)| k).collect();
        assert_eq!(features, ["arbitrary-derive", "default", "link_libfuzzer"]);
        assert_eq!(manifest["dependencies"]["cmc_runtime"]["package"].as_str(), Some(RUNTIME_PACKAGE));
        assert_eq!(manifest["dependencies"]["cmc_runtime"]["path"].as_str(), Some("/opt/runtime"));
        assert_eq!(manifest["dependencies"]["arbitrary"]["version"].as_str(), Some("1"));

        assert!(!dest.join("build.rs").exists());
        assert!(!dest.join("libfuzzer").exists());
        assert!(dest.join("README.md").is_file());
        let lib = fs::read_to_string(dest.join("src/lib.rs")).unwrap();
        assert!(lib.starts_with("#![allow(warnings)]"));
        assert!(lib.contains("pub unsafe fn test_input_wrap") && lib.contains("mod __cmc_standin;"));
        let module = fs::read_to_string(dest.join("src/cmc_standin.rs")).unwrap();
        assert!(module.contains("pub extern \"C\" fn main("), "{module}");
        assert!(module.contains("cmc_runtime::serve(super::test_input_wrap)"), "{module}");
        // 0.4.9 and later: the initializer comes from the fuzz target's macro expansion.
        assert!(module.contains("fn LLVMFuzzerInitialize("), "{module}");
    }

    #[test]
    fn the_decoded_value_hook_goes_on_the_debug_path_functions_own_line() {
        let lib = "pub fn test_input_wrap() {}\n\n#[doc(hidden)]\npub fn rust_libfuzzer_debug_path() -> &'static Option<String> {\n    &None\n}\n";
        let patched = patched_lib(lib);
        assert!(patched.contains(
            "pub fn rust_libfuzzer_debug_path() -> &'static Option<String> { cmc_runtime::values::decoded(); // cargo-minimize-crash\n    &None\n"
        ));
        assert_eq!(patched.lines().count(), patched_lib("pub fn test_input_wrap() {}\n\n\n\n\n\n").lines().count());
        // A version without the function (before 0.4.7) is left as it is: no value cache.
        let old = "pub fn test_input_wrap() {}\n";
        assert!(!patched_lib(old).contains("decoded"));
    }

    #[test]
    fn the_value_hook_goes_at_the_end_of_each_typed_decoding_line() {
        let decode = "                let data = <$dty as Arbitrary>::arbitrary_take_rest(u);\n";
        let lib = format!("macro_rules! fuzz_target {{\n{decode}\n}}\nmacro_rules! other {{\n{decode}}}\n");
        let patched = patched_lib(&lib);
        let hooked = "let data = <$dty as Arbitrary>::arbitrary_take_rest(u); $crate::__cmc_value(&data); // cargo-minimize-crash\n";
        assert_eq!(patched.matches(hooked).count(), 2, "{patched}");
        assert_eq!(patched.matches("pub fn __cmc_value<T: ::core::fmt::Debug>(value: &T)").count(), 1);
        // After the `allow` line, every line of the copy where it was, hooked at its end or not.
        assert!(lib.lines().zip(patched.lines().skip(1)).all(|(line, now)| now.starts_with(line)), "{patched}");
        assert!(!patched_lib("pub fn test_input_wrap() {}\n").contains("__cmc_value"), "a version without the line");
    }

    #[test]
    fn old_versions_call_the_librarys_own_initializer() {
        let lib = "#[export_name = \"LLVMFuzzerInitialize\"]\npub fn initialize(_argc: *const isize, _argv: *const *const *const u8) -> isize { 0 }\n";
        let module = standin_module(lib, "2018");
        assert!(module.contains("super::initialize(&argc, &argv);"), "{module}");
        assert!(!module.contains("fn LLVMFuzzerInitialize("), "{module}");
        assert!(module.contains("#[no_mangle]"));
        assert!(standin_module(lib, "2024").contains("#[unsafe(no_mangle)]"));
    }

    #[test]
    fn the_entry_point_links_the_runtime_and_has_each_edited_part_once() {
        assert!(ENTRY_POINT.contains(&format!("\nextern crate {RUNTIME_CRATE};\n")));
        assert!(ENTRY_POINT.contains(&format!("{RUNTIME_CRATE}::serve(super::test_input_wrap)")));
        for part in [INITIALIZER_BLOCK, INITIALIZER_CALL] {
            assert_eq!(ENTRY_POINT.matches(part).count(), 1, "{part}");
        }
        assert_eq!(ENTRY_POINT.matches("#[no_mangle]").count(), 2);
        let modern = standin_module("", "2024");
        assert!(
            modern.contains(&format!("\nunsafe {INITIALIZER_BLOCK}")) && !modern.contains("#[no_mangle]"),
            "{modern}"
        );
    }

    #[test]
    fn rewriting_an_unchanged_standin_touches_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("src-crate");
        fake_crate(&source, "pub fn test_input_wrap(data: *const u8, size: usize) -> i32 { 0 }\n");
        let dest = dir.path().join("standin");
        write_standin(&source, &dest, Path::new("/rt")).unwrap();
        let mtime = |p: &str| fs::metadata(dest.join(p)).unwrap().modified().unwrap();
        let before = [mtime("Cargo.toml"), mtime("src/lib.rs"), mtime("src/cmc_standin.rs")];
        std::thread::sleep(std::time::Duration::from_millis(20));
        write_standin(&source, &dest, Path::new("/rt")).unwrap();
        assert_eq!(before, [mtime("Cargo.toml"), mtime("src/lib.rs"), mtime("src/cmc_standin.rs")]);
    }

    #[test]
    fn a_crate_without_the_test_entry_point_is_unsupported() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("odd");
        fake_crate(&source, "pub fn something_else() {}\n");
        let error = write_standin(&source, &dir.path().join("out"), Path::new("/rt")).unwrap_err();
        assert!(matches!(error, ProjectError::Unsupported { .. }), "{error}");
    }

    #[test]
    fn the_registry_copy_is_found_by_version() {
        let home = tempfile::tempdir().unwrap();
        let crate_dir = home.path().join("registry/src/index.crates.io-1949cf8c6b5b557f/libfuzzer-sys-0.4.13");
        fake_crate(&crate_dir, "");
        assert_eq!(registry_source_of(home.path(), LIBFUZZER_SYS, "0.4.13"), Some(crate_dir));
        assert_eq!(registry_source_of(home.path(), LIBFUZZER_SYS, "0.4.12"), None);
    }
}
