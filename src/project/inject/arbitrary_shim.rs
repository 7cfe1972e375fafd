//! The `arbitrary` stand-in: a thin crate at the user's locked version that re-exports a renamed copy of their `arbitrary` and overrides `details::with_recursive_count` to record examples.
//!
//! Every `#[derive(Arbitrary)]` impl (arbitrary 1.4.2 and later; up to 1.4.1
//! the derive inlines its recursion guard) builds its value inside
//! `arbitrary::details::with_recursive_count(u, &COUNT, |mut u| ..)`, where
//! `arbitrary` is the user's dependency: with a `[patch]` it is this crate, so
//! the call is ours. It reads the `Unstructured` cursor (the pointer to the
//! first unread byte, via `peek_bytes(0)`, and `len()`) before and after the
//! real function builds the value, and reports both to the runtime
//! (`cmc_runtime::examples`) with `std::any::type_name` of the value as its
//! label. Derived fieldless enums (1.5.x) and hand-written impls do not call
//! the function and are not recorded. In the coverage build (`--cfg
//! cmc_coverage`) the function is the real one alone: the recording made
//! derived methods too large to inline where `cargo fuzz build` inlines them,
//! and the counters must be the same (decision 0077).
//!
//! Two packages are written into the scratch directory:
//!
//! - `arbitrary-<v>-real/`: the user's locked source, its version renamed
//!   (`<v>-real`, a pre-release no `^1` requirement matches by accident) so it
//!   can sit next to the stand-in; dev-dependencies and targets dropped; its
//!   `Unstructured` patched ([`super::draw_patch`]) so that every primitive
//!   read is recorded too, as a leaf example labelled `draw:*`, which needs
//!   the runtime as a dependency of the copy as well;
//! - `arbitrary-<v>/`: the stand-in, named `arbitrary` at the locked version
//!   `<v>` (else cargo ignores the patch) with one feature per feature of the
//!   real crate (`derive`, and the implicit `derive_arbitrary`; a missing one
//!   makes cargo refuse the patch), each forwarded to the copy.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context;
use toml_edit::{Array, DocumentMut, InlineTable, Item, Table};

use super::draw_patch::{self, UNSTRUCTURED};
use super::standin::{
    copy_tree, dependency_version, locked_packages, package_tables, LockedPackage, LIBFUZZER_SYS, RUNTIME_PACKAGE,
};
use crate::project::files::write_if_changed;
use crate::project::ProjectError;

/// The crate this module replaces.
pub const ARBITRARY: &str = "arbitrary";
/// The derive's crate, whose version decides whether derived impls call the hook.
const DERIVE: &str = "derive_arbitrary";
/// The name the stand-in gives the real copy.
const REAL_CRATE: &str = "arbitrary_real";
/// The real function the stand-in wraps; its signature, as 1.4.2-1.5.x declare it.
const HOOK_SIGNATURE: &str = "pub fn with_recursive_count<U: IsEmpty, R>(";

/// Whether the user's locked `arbitrary` can be hooked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Support {
    /// 1.4.2 to 1.5.x (with the derive, if any, at 1.4.2 or later): the stand-in records draws, and examples of derived values.
    Hooked(LockedPackage),
    /// No `arbitrary` at all: nothing to record, nothing to say.
    NotUsed,
    /// A version without the hook, or a source that cannot be patched: say why once, build without.
    Unsupported(String),
}

/// What the lockfile says about `arbitrary`: the version `libfuzzer-sys` (or, failing that,
/// anything) uses, and whether its derive calls `details::with_recursive_count`.
pub fn support(lock: &DocumentMut) -> Support {
    let packages = locked_packages(lock);
    let arbitraries: Vec<&LockedPackage> = packages.iter().filter(|p| p.name == ARBITRARY).collect();
    let wanted = locked_dependency(lock, LIBFUZZER_SYS, ARBITRARY);
    let arbitrary = match wanted {
        Some(version) => arbitraries.iter().find(|p| p.version == version),
        None => arbitraries.first(),
    };
    let Some(arbitrary) = arbitrary.copied() else { return Support::NotUsed };
    // Draws need no derive: a `Vec<u64>` or a tuple is read through the same
    // `Unstructured`. Without the derive there are only no derived examples.
    let derive = match locked_dependency(lock, ARBITRARY, DERIVE) {
        Some(version) => packages.iter().find(|p| p.name == DERIVE && p.version == version),
        None => packages.iter().find(|p| p.name == DERIVE),
    };
    let hooked = |version: &str| {
        matches!(numbers(version), Some((1, 4, patch)) if patch >= 2)
            || numbers(version).is_some_and(|(major, minor, _)| major == 1 && minor == 5)
    };
    if !hooked(&arbitrary.version) || derive.is_some_and(|d| !hooked(&d.version)) {
        let with = derive.map(|d| format!(" with derive_arbitrary {}", d.version)).unwrap_or_default();
        // The way to them in one line, where it keeps what every input decodes to.
        let way = (!hooked(&arbitrary.version) && same_decoding(&arbitrary.version)).then(|| {
            format!(
                "; `cargo update -p arbitrary --precise 1.4.2` in the fuzz crate's directory adds them, and reads \
                 every input as {} does",
                arbitrary.version
            )
        });
        return Support::Unsupported(format!(
            "arbitrary {}{with}: only 1.4.2 to 1.5.x have the hooks values are recorded with{}",
            arbitrary.version,
            way.unwrap_or_default()
        ));
    }
    if arbitrary.source.is_none() {
        return Support::Unsupported(format!(
            "arbitrary {} is a path dependency, which a [patch] cannot replace",
            arbitrary.version
        ));
    }
    Support::Hooked(arbitrary.clone())
}

/// Whether `version` reads every input as 1.4.2 does, so that moving to
/// 1.4.2 keeps what each crash decodes to: 1.3.1 to 1.5.0 decoded 100,000
/// random inputs alike as derived structs and enums, collections, strings,
/// numbers and the `Unstructured` helpers; 1.3.0 and 1.2.3 read a
/// collection to the end otherwise (decision 0097).
fn same_decoding(version: &str) -> bool {
    matches!(numbers(version), Some((1, 3, patch)) if patch >= 1) || matches!(numbers(version), Some((1, 4, _)))
}

/// The version the lockfile's `package` entries lock for their dependency `dependency`.
fn locked_dependency(lock: &DocumentMut, package: &str, dependency: &str) -> Option<String> {
    dependency_version(
        package_tables(lock).filter(|p| p.get("name").and_then(Item::as_str) == Some(package)),
        dependency,
    )
}

/// `major.minor.patch` of a version (a pre-release or build suffix ignored).
fn numbers(version: &str) -> Option<(u64, u64, u64)> {
    let core = version.split(['-', '+']).next()?;
    let mut parts = core.split('.').map(str::parse::<u64>);
    let (major, minor, patch) = (parts.next()?.ok()?, parts.next()?.ok()?, parts.next()?.ok()?);
    Some((major, minor, patch))
}

/// The renamed copy's version: a pre-release of the locked one, which no
/// ordinary requirement (`1`, `^1.4`) matches.
pub fn real_version(version: &str) -> String {
    let separator = if version.contains('-') { '.' } else { '-' };
    format!("{version}{separator}real")
}

/// The stand-in and the real copy, written.
#[derive(Clone, Debug)]
pub struct ArbitraryShim {
    /// The stand-in's directory (a package named `arbitrary` at the locked version).
    pub dir: PathBuf,
    /// The renamed copy's directory.
    pub real_dir: PathBuf,
    /// The locked version.
    pub version: String,
    /// Whether the copy's primitive reads are recorded as `draw:*` examples
    /// (false when its `Unstructured` is not of the form [`draw_patch`] expects).
    pub draws: bool,
}

/// Writes the renamed copy of the `arbitrary` source at `source` and the
/// stand-in under `scratch` (`arbitrary-<v>-real/`, `arbitrary-<v>/`), linking
/// the runtime at `runtime`. Only changed files are rewritten.
pub fn write_shim(source: &Path, scratch: &Path, runtime: &Path) -> Result<ArbitraryShim, ProjectError> {
    let (mut manifest, version, lib_path) = super::standin::read_package(source, ARBITRARY)?;
    let lib_source = source.join(&lib_path);
    let lib = fs::read_to_string(&lib_source).with_context(|| format!("cannot read {}", lib_source.display()))?;
    if !lib.contains(HOOK_SIGNATURE) {
        return Err(ProjectError::Unsupported {
            fuzz_dir: source.to_path_buf(),
            reason: format!("{ARBITRARY} {version} has no `details::with_recursive_count` of the expected form"),
        });
    }

    // Unreadable: no draws here, and copying it below says why.
    let unstructured = fs::read_to_string(source.join(UNSTRUCTURED)).ok();
    let draws = unstructured.as_deref().and_then(draw_patch::patch);

    let real = real_version(&version);
    let real_dir = scratch.join(format!("{ARBITRARY}-{real}"));
    let features = forwarded_features(&manifest);
    real_manifest(&mut manifest, &real);
    if draws.is_some() {
        let dependencies = manifest.entry("dependencies").or_insert_with(|| Item::Table(Table::new()));
        if let Some(dependencies) = dependencies.as_table_like_mut() {
            dependencies.insert("cmc_runtime", toml_edit::value(runtime_dependency(runtime)));
        }
    }
    fs::create_dir_all(&real_dir).with_context(|| format!("cannot create {}", real_dir.display()))?;
    write_if_changed(&real_dir.join("Cargo.toml"), manifest.to_string().as_bytes())?;
    let skip = |relative: &Path| {
        relative.starts_with("target")
            || (draws.is_some() && relative == Path::new(UNSTRUCTURED))
            || [lib_path.as_str(), "Cargo.toml", "Cargo.toml.orig", "Cargo.lock", ".cargo-ok", ".cargo_vcs_info.json"]
                .iter()
                .any(|name| relative == Path::new(name))
    };
    copy_tree(source, source, &real_dir, &skip)?;
    let capped = format!("#![allow(warnings)] // cargo-minimize-crash: lints are capped for registry crates\n{lib}");
    write_if_changed(&real_dir.join(&lib_path), capped.as_bytes())?;
    if let Some(patched) = &draws {
        write_if_changed(&real_dir.join(UNSTRUCTURED), patched.as_bytes())?;
    }

    let dir = scratch.join(format!("{ARBITRARY}-{version}"));
    let shim = shim_manifest(&version, &real, &real_dir, runtime, &features);
    write_if_changed(&dir.join("Cargo.toml"), shim.to_string().as_bytes())?;
    write_if_changed(&dir.join("src/lib.rs"), SHIM_LIB.as_bytes())?;
    Ok(ArbitraryShim { dir, real_dir, version, draws: draws.is_some() })
}

/// The real crate's features as the stand-in must offer them: every
/// `[features]` key, plus the implicit feature of each optional dependency
/// that no `dep:` entry hides.
fn forwarded_features(manifest: &DocumentMut) -> Vec<String> {
    let table = manifest.get("features").and_then(Item::as_table_like);
    let mut features: Vec<String> = table.iter().flat_map(|t| t.iter().map(|(k, _)| k.to_string())).collect();
    let uses_dep_syntax = |name: &str| {
        table.is_some_and(|t| {
            t.iter().any(|(_, list)| {
                list.as_array().is_some_and(|a| a.iter().any(|v| v.as_str() == Some(&format!("dep:{name}"))))
            })
        })
    };
    if let Some(dependencies) = manifest.get("dependencies").and_then(Item::as_table_like) {
        for (name, dependency) in dependencies.iter() {
            let optional = dependency.get("optional").and_then(Item::as_bool) == Some(true);
            if optional && !uses_dep_syntax(name) && !features.iter().any(|f| f == name) {
                features.push(name.to_string());
            }
        }
    }
    features
}

/// The copy's manifest: the renamed version, no dev-dependencies, targets or workspace.
fn real_manifest(manifest: &mut DocumentMut, real: &str) {
    if let Some(package) = manifest.get_mut("package").and_then(Item::as_table_like_mut) {
        package.insert("version", toml_edit::value(real));
        package.remove("workspace");
    }
    for key in ["dev-dependencies", "dev_dependencies", "workspace", "example", "test", "bench"] {
        manifest.remove(key);
    }
}

/// The stand-in's manifest: `arbitrary` at `version`, the copy (all features
/// off but those forwarded) and the runtime as dependencies.
fn shim_manifest(version: &str, real: &str, real_dir: &Path, runtime: &Path, features: &[String]) -> DocumentMut {
    let mut doc = DocumentMut::new();
    let mut package = Table::new();
    package.insert("name", toml_edit::value(ARBITRARY));
    package.insert("version", toml_edit::value(version));
    package.insert("edition", toml_edit::value("2021"));
    package.insert("description", toml_edit::value("cargo-minimize-crash's arbitrary stand-in: records examples"));
    doc.insert("package", Item::Table(package));

    let mut lib = Table::new();
    lib.insert("path", toml_edit::value("src/lib.rs"));
    doc.insert("lib", Item::Table(lib));

    let mut dependencies = Table::new();
    let mut real_dep = InlineTable::new();
    real_dep.insert("package", ARBITRARY.into());
    real_dep.insert("version", format!("={real}").into());
    real_dep.insert("path", real_dir.display().to_string().into());
    real_dep.insert("default-features", false.into());
    dependencies.insert(REAL_CRATE, toml_edit::value(real_dep));
    dependencies.insert("cmc_runtime", toml_edit::value(runtime_dependency(runtime)));
    doc.insert("dependencies", Item::Table(dependencies));

    let mut table = Table::new();
    for feature in features {
        let forwarded: Array = [format!("{REAL_CRATE}/{feature}")].into_iter().collect();
        table.insert(feature, toml_edit::value(forwarded));
    }
    doc.insert("features", Item::Table(table));
    // Its own workspace, so cargo does not look for one above the scratch directory.
    doc.insert("workspace", Item::Table(Table::new()));
    doc
}

/// The runtime as the stand-in and the patched copy depend on it (as `cmc_runtime`).
fn runtime_dependency(runtime: &Path) -> InlineTable {
    let mut dependency = InlineTable::new();
    dependency.insert("package", RUNTIME_PACKAGE.into());
    dependency.insert("path", runtime.display().to_string().into());
    dependency
}

/// The stand-in's whole source.
const SHIM_LIB: &str = super::text(include_str!("files/arbitrary_standin_lib.rs"));

#[cfg(test)]
mod tests {
    use super::*;

    fn lock(arbitrary: &str, derive: &str) -> DocumentMut {
        format!(
            r#"
version = 4

[[package]]
name = "arbitrary"
version = "{arbitrary}"
source = "registry+https://github.com/rust-lang/crates.io-index"
dependencies = ["derive_arbitrary"]

[[package]]
name = "derive_arbitrary"
version = "{derive}"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "libfuzzer-sys"
version = "0.4.13"
source = "registry+https://github.com/rust-lang/crates.io-index"
dependencies = ["arbitrary", "cc"]
"#
        )
        .parse()
        .unwrap()
    }

    #[test]
    fn only_versions_whose_derive_calls_the_hook_are_hooked() {
        let Support::Hooked(locked) = support(&lock("1.5.0", "1.5.0")) else { panic!() };
        assert_eq!(locked.version, "1.5.0");
        assert!(matches!(support(&lock("1.4.2", "1.4.2")), Support::Hooked(_)));
        for (a, d) in [("1.4.1", "1.4.1"), ("1.4.2", "1.4.1"), ("1.3.2", "1.3.2"), ("2.0.0", "2.0.0")] {
            let Support::Unsupported(reason) = support(&lock(a, d)) else { panic!("{a} {d}") };
            assert!(reason.contains(&format!("arbitrary {a} with derive_arbitrary {d}")), "{reason}");
        }
        let no_derive = |version: &str| -> DocumentMut {
            format!(
                "version = 4\n[[package]]\nname = \"arbitrary\"\nversion = \"{version}\"\nsource = \"registry+x\"\n"
            )
            .parse()
            .unwrap()
        };
        let Support::Hooked(locked) = support(&no_derive("1.5.0")) else { panic!("draws need no derive") };
        assert_eq!(locked.version, "1.5.0");
        let Support::Unsupported(reason) = support(&no_derive("1.3.2")) else { panic!() };
        assert!(reason.starts_with("arbitrary 1.3.2: only 1.4.2"), "{reason}");
        assert_eq!(support(&"version = 4\n".parse().unwrap()), Support::NotUsed);
    }

    /// 1.3.1 to 1.4.1 read every input as 1.4.2 does: the one-line way to the
    /// hooks is said; before 1.3.1 (another decoding), or with only the derive
    /// old, it is not.
    #[test]
    fn the_way_to_the_hooks_is_said_where_it_keeps_the_decoding() {
        let way = "`cargo update -p arbitrary --precise 1.4.2` in the fuzz crate's directory adds them";
        for version in ["1.3.1", "1.3.2", "1.4.0", "1.4.1"] {
            let Support::Unsupported(reason) = support(&lock(version, version)) else { panic!("{version}") };
            assert!(reason.contains(way) && reason.ends_with(&format!("as {version} does")), "{reason}");
        }
        for (a, d) in [("1.3.0", "1.3.0"), ("1.2.3", "1.2.3"), ("1.5.0", "1.4.1")] {
            let Support::Unsupported(reason) = support(&lock(a, d)) else { panic!("{a} {d}") };
            assert!(!reason.contains("cargo update"), "{reason}");
        }
    }

    #[test]
    fn with_several_versions_the_one_libfuzzer_sys_uses_is_hooked() {
        let mut text = lock("1.5.0", "1.5.0").to_string();
        text = text.replace("dependencies = [\"arbitrary\", \"cc\"]", "dependencies = [\"arbitrary 1.5.0\", \"cc\"]");
        text.push_str(
            "\n[[package]]\nname = \"arbitrary\"\nversion = \"0.4.7\"\n\
             source = \"registry+https://github.com/rust-lang/crates.io-index\"\n",
        );
        let Support::Hooked(locked) = support(&text.parse().unwrap()) else { panic!() };
        assert_eq!(locked.version, "1.5.0");
    }

    #[test]
    fn the_real_copy_is_a_prerelease_no_requirement_matches() {
        assert_eq!(real_version("1.5.0"), "1.5.0-real");
        assert_eq!(real_version("1.5.0-rc.1"), "1.5.0-rc.1.real");
        assert_eq!(numbers("1.4.2-real"), Some((1, 4, 2)));
    }

    const ARBITRARY_MANIFEST: &str = r#"
[package]
edition = "2021"
name = "arbitrary"
version = "1.5.0"
build = false

[features]
derive = ["derive_arbitrary"]

[lib]
name = "arbitrary"
path = "src/lib.rs"

[[test]]
name = "derive"
path = "tests/derive.rs"

[dependencies.derive_arbitrary]
version = "~1.5.0"
optional = true

[dev-dependencies.exhaustigen]
version = "0.1.0"
"#;

    fn fake_arbitrary(dir: &Path, lib: &str) {
        fs::create_dir_all(dir.join("src")).unwrap();
        fs::write(dir.join("Cargo.toml"), ARBITRARY_MANIFEST).unwrap();
        fs::write(dir.join("Cargo.toml.orig"), "orig").unwrap();
        fs::write(dir.join("src/lib.rs"), lib).unwrap();
        fs::write(dir.join("src/unstructured.rs"), draw_patch::FAKE_UNSTRUCTURED).unwrap();
    }

    const LIB: &str = "pub mod details {\n    pub fn with_recursive_count<U: IsEmpty, R>(u: U) {}\n}\n";

    #[test]
    fn the_shim_is_the_locked_version_with_the_same_features_over_a_renamed_copy() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("arbitrary-1.5.0");
        fake_arbitrary(&source, LIB);
        let scratch = dir.path().join("scratch");
        let shim = write_shim(&source, &scratch, Path::new("/opt/runtime")).unwrap();
        assert_eq!(shim.version, "1.5.0");
        assert_eq!(shim.dir, scratch.join("arbitrary-1.5.0"));
        assert_eq!(shim.real_dir, scratch.join("arbitrary-1.5.0-real"));

        let real: DocumentMut = fs::read_to_string(shim.real_dir.join("Cargo.toml")).unwrap().parse().unwrap();
        assert_eq!(real["package"]["name"].as_str(), Some("arbitrary"));
        assert_eq!(real["package"]["version"].as_str(), Some("1.5.0-real"));
        assert!(real.get("dev-dependencies").is_none() && real.get("test").is_none());
        assert_eq!(real["dependencies"]["derive_arbitrary"]["version"].as_str(), Some("~1.5.0"));
        assert!(shim.draws);
        assert_eq!(real["dependencies"]["cmc_runtime"]["path"].as_str(), Some("/opt/runtime"));
        let unstructured = fs::read_to_string(shim.real_dir.join(UNSTRUCTURED)).unwrap();
        assert_eq!(Some(unstructured), draw_patch::patch(draw_patch::FAKE_UNSTRUCTURED));
        assert!(!shim.real_dir.join("Cargo.toml.orig").exists());
        let real_lib = fs::read_to_string(shim.real_dir.join("src/lib.rs")).unwrap();
        assert!(real_lib.starts_with("#![allow(warnings)]") && real_lib.ends_with(LIB));

        let manifest: DocumentMut = fs::read_to_string(shim.dir.join("Cargo.toml")).unwrap().parse().unwrap();
        assert_eq!(manifest["package"]["name"].as_str(), Some("arbitrary"));
        assert_eq!(manifest["package"]["version"].as_str(), Some("1.5.0"));
        let features: Vec<(String, String)> = manifest["features"]
            .as_table()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.to_string(), v.as_array().unwrap().iter().next().unwrap().as_str().unwrap().to_string()))
            .collect();
        assert_eq!(
            features,
            [
                ("derive".to_string(), "arbitrary_real/derive".to_string()),
                ("derive_arbitrary".to_string(), "arbitrary_real/derive_arbitrary".to_string())
            ]
        );
        let real_dep = &manifest["dependencies"]["arbitrary_real"];
        assert_eq!(real_dep["package"].as_str(), Some("arbitrary"));
        assert_eq!(real_dep["version"].as_str(), Some("=1.5.0-real"));
        assert_eq!(real_dep["default-features"].as_bool(), Some(false));
        assert_eq!(manifest["dependencies"]["cmc_runtime"]["path"].as_str(), Some("/opt/runtime"));
        let lib = fs::read_to_string(shim.dir.join("src/lib.rs")).unwrap();
        assert!(lib.contains("pub use arbitrary_real::*;") && lib.contains("pub fn with_recursive_count<"), "{lib}");
        assert!(lib.contains("cmc_runtime::examples::enter("), "{lib}");

        // Written again unchanged: no file is touched (cargo's fingerprints stay fresh).
        let mtime = |p: PathBuf| fs::metadata(p).unwrap().modified().unwrap();
        let written = || {
            [shim.dir.join("src/lib.rs"), shim.real_dir.join("Cargo.toml"), shim.real_dir.join(UNSTRUCTURED)].map(mtime)
        };
        let before = written();
        std::thread::sleep(std::time::Duration::from_millis(20));
        write_shim(&source, &scratch, Path::new("/opt/runtime")).unwrap();
        assert_eq!(before, written());
    }

    #[test]
    fn an_unstructured_of_another_form_is_copied_as_is_without_draws() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("arbitrary-1.6.0");
        fake_arbitrary(&source, LIB);
        let other = draw_patch::FAKE_UNSTRUCTURED.replace("pub fn fill_buffer(", "pub fn fill_buffer<B>(");
        fs::write(source.join(UNSTRUCTURED), &other).unwrap();
        let shim = write_shim(&source, &dir.path().join("scratch"), Path::new("/opt/runtime")).unwrap();
        assert!(!shim.draws);
        assert_eq!(fs::read_to_string(shim.real_dir.join(UNSTRUCTURED)).unwrap(), other);
        let real: DocumentMut = fs::read_to_string(shim.real_dir.join("Cargo.toml")).unwrap().parse().unwrap();
        assert!(real["dependencies"].get("cmc_runtime").is_none(), "{real}");
        assert!(real.get("lints").is_none(), "{real}");
    }

    #[test]
    fn dep_syntax_hides_the_implicit_feature() {
        let manifest: DocumentMut =
            ARBITRARY_MANIFEST.replace("[\"derive_arbitrary\"]", "[\"dep:derive_arbitrary\"]").parse().unwrap();
        assert_eq!(forwarded_features(&manifest), ["derive"]);
    }

    #[test]
    fn a_source_without_the_hook_is_unsupported() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("arbitrary-1.4.1");
        fake_arbitrary(&source, "pub mod details {}\n");
        let error = write_shim(&source, &dir.path().join("scratch"), Path::new("/rt")).unwrap_err();
        assert!(matches!(error, ProjectError::Unsupported { .. }), "{error}");
    }
}
