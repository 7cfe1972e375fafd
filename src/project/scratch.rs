//! The scratch workspace: the user's fuzz manifest copied with absolute paths, an empty `[workspace]`, the user's lockfile and a `[patch]` for the stand-in; the user's files are only read.
//!
//! Layout of a scratch directory (persistent, so rebuilds are incremental):
//!
//! ```text
//! <scratch>/harness/Cargo.toml         the copied manifest, patched
//! <scratch>/harness/Cargo.lock         the user's lockfile, then as cargo rewrites it
//! <scratch>/harness/user-Cargo.lock    the lockfile as last copied (the user's, or the probe's)
//! <scratch>/probe/                     the same without the patch (resolved when the user has no lockfile,
//!                                      and to find a source cargo must fetch)
//! <scratch>/libfuzzer-sys-<version>/   the stand-in
//! <scratch>/arbitrary-<version>/       the `arbitrary` stand-in (when the lockfile's version has the hook)
//! <scratch>/arbitrary-<version>-real/  the user's `arbitrary`, renamed, which it re-exports
//! <scratch>/target/                    cargo's target directory
//! ```
//!
//! Over 600 lines with its unit tests (about 430 of code): each manifest rewrite is tested on literal manifests beside it.

use super::files::write_if_changed;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context;
use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, TableLike, Value};

use super::inject::standin::{Patch, LIBFUZZER_SYS};
use super::locate::{infer_bin_path, normalize, read_toml, FuzzProject};
use super::ProjectError;

/// The directories of one scratch workspace.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The scratch directory.
    pub root: PathBuf,
}

impl Layout {
    /// The scratch directory at `root`.
    pub fn new(root: PathBuf) -> Layout {
        Layout { root }
    }

    /// The patched workspace that is built.
    pub fn harness_dir(&self) -> PathBuf {
        self.root.join("harness")
    }

    /// The unpatched workspace, resolved to find a source cargo has not unpacked yet.
    pub fn probe_dir(&self) -> PathBuf {
        self.root.join("probe")
    }

    /// Where the stand-in for `version` is written.
    pub fn standin_dir(&self, version: &str) -> PathBuf {
        self.root.join(format!("{LIBFUZZER_SYS}-{version}"))
    }

    /// cargo's target directory for the harness.
    pub fn target_dir(&self) -> PathBuf {
        self.root.join("target")
    }
}

/// The default scratch directory for a project whose cargo target directory
/// is `target_dir`: `<target_dir>/minimize-crash/<package>-<hash of the fuzz dir>`
/// (the hash keeps projects that share a target directory apart).
pub fn default_scratch_dir(project: &FuzzProject, target_dir: &Path) -> PathBuf {
    let hash = sha1_smol::Sha1::from(project.fuzz_dir.to_string_lossy().as_bytes()).digest().to_string();
    target_dir.join("minimize-crash").join(format!("{}-{}", project.package, &hash[..12]))
}

/// Writes the scratch workspace into `dir` (the manifest from
/// [`scratch_manifest`], and the lockfile `lockfile`: the user's, or one
/// resolved in the scratch directory) and returns its manifest's path.
/// Files are rewritten only when their contents change; the lockfile is copied
/// again only when `lockfile` changed, so cargo's own rewrite of it (the patch)
/// is kept between runs. With no `lockfile`, one copied before is removed
/// (cargo resolves afresh) and one cargo wrote here itself is kept.
pub fn write_workspace(
    project: &FuzzProject,
    dir: &Path,
    patches: &[Patch],
    lockfile: Option<&Path>,
) -> Result<PathBuf, ProjectError> {
    let manifest = read_toml(&project.manifest_path)?;
    let root =
        if project.workspace_root == project.fuzz_dir { None } else { Some(read_toml(&project.root_manifest_path())?) };
    let scratch = scratch_manifest(project, &manifest, root.as_ref(), patches)?;
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let manifest_path = dir.join("Cargo.toml");
    write_if_changed(&manifest_path, scratch.to_string().as_bytes())?;

    let lock = dir.join("Cargo.lock");
    let snapshot = dir.join("user-Cargo.lock");
    match lockfile {
        Some(source) => {
            let seed = fs::read(source).with_context(|| format!("cannot read {}", source.display()))?;
            if !lock.is_file() || fs::read(&snapshot).ok().as_deref() != Some(&seed[..]) {
                write_if_changed(&lock, &seed)?;
                write_if_changed(&snapshot, &seed)?;
            }
        }
        None => {
            // No lockfile: cargo resolves afresh, as `cargo fuzz build` would.
            if snapshot.is_file() {
                let _ = fs::remove_file(&snapshot);
                let _ = fs::remove_file(&lock);
            }
        }
    }
    Ok(manifest_path)
}

/// The scratch copy of the fuzz manifest `manifest`: every relative path made
/// absolute (path dependencies, targets, the build script), what cargo would
/// discover next to it (`src/lib.rs`, `src/main.rs`, `src/bin/`, `build.rs`)
/// named explicitly, fields and dependencies inherited from the workspace
/// (`root`, when the fuzz crate is a member of another workspace) filled in,
/// the workspace root's `[patch]`, `[replace]` and `[profile]` carried over,
/// an empty `[workspace]` (keeping only `resolver`), and `patches` added.
/// Examples, tests and benches are dropped: only a bin is built.
pub fn scratch_manifest(
    project: &FuzzProject,
    manifest: &DocumentMut,
    root: Option<&DocumentMut>,
    patches: &[Patch],
) -> Result<DocumentMut, ProjectError> {
    let root_doc = root.unwrap_or(manifest);
    let workspace = root_doc.get("workspace").and_then(Item::as_table_like);
    let inherit = Inherit {
        package: workspace.and_then(|w| w.get("package")).and_then(Item::as_table_like),
        dependencies: workspace.and_then(|w| w.get("dependencies")).and_then(Item::as_table_like),
        root_dir: &project.workspace_root,
        manifest: &project.manifest_path,
    };
    let mut doc = manifest.clone();
    let (autolib, autobins) = rewrite_package(&mut doc, project, &inherit)?;
    rewrite_targets(&mut doc, project, autolib, autobins);

    // Dependencies, at the top level and per platform.
    rewrite_dependency_tables(doc.as_table_mut(), &project.fuzz_dir, &inherit)?;
    if let Some(targets) = doc.get_mut("target").and_then(Item::as_table_like_mut) {
        for (_, platform) in targets.iter_mut() {
            if let Some(platform) = platform.as_table_mut() {
                rewrite_dependency_tables(platform, &project.fuzz_dir, &inherit)?;
            }
        }
    }

    // [lints] workspace = true
    if doc.get("lints").is_some_and(is_inherited) {
        let lints = workspace.and_then(|w| w.get("lints")).cloned();
        let lints =
            lints.ok_or_else(|| manifest_error(project, "`lints.workspace = true` but no [workspace.lints]"))?;
        doc.insert("lints", lints);
    }
    take_root_tables(&mut doc, root, &project.workspace_root);

    // An empty [workspace], so cargo does not look for one above the scratch
    // directory; the resolver decides feature unification, so it stays.
    let mut new_workspace = Table::new();
    if let Some(resolver) = workspace.and_then(|w| w.get("resolver")) {
        new_workspace.insert("resolver", resolver.clone());
    }
    doc.insert("workspace", Item::Table(new_workspace));
    add_patches(&mut doc, project, patches)?;
    Ok(doc)
}

/// The `[package]` table: inherited fields filled in, paths made absolute,
/// the build script named; whether cargo would discover the lib and bins.
fn rewrite_package(
    doc: &mut DocumentMut,
    project: &FuzzProject,
    inherit: &Inherit<'_>,
) -> Result<(bool, bool), ProjectError> {
    let fuzz_dir = &project.fuzz_dir;
    let package = doc
        .get_mut("package")
        .and_then(Item::as_table_like_mut)
        .ok_or_else(|| manifest_error(project, "no [package] table"))?;
    package.remove("workspace");
    let keys: Vec<String> = package.iter().map(|(k, _)| k.to_string()).collect();
    for key in keys {
        let item = package.get_mut(&key).expect("listed");
        if is_inherited(item) {
            *item = inherit.package_field(&key)?;
        } else if matches!(key.as_str(), "readme" | "license-file") {
            absolutize_str(item, fuzz_dir);
        }
    }
    match package.get("build").map(|b| (b.as_str().map(str::to_string), b.as_bool())) {
        Some((Some(path), _)) => {
            package.insert("build", toml_edit::value(absolute(fuzz_dir, &path)));
        }
        Some((None, Some(false))) => {}
        _ => {
            if fuzz_dir.join("build.rs").is_file() {
                package.insert("build", toml_edit::value(absolute(fuzz_dir, "build.rs")));
            }
        }
    }
    let auto = |key: &str| package.get(key).and_then(Item::as_bool) != Some(false);
    Ok((auto("autolib"), auto("autobins")))
}

/// The targets: the lib and every bin at an absolute path, the ones cargo
/// would discover named explicitly; examples, tests and benches dropped.
fn rewrite_targets(doc: &mut DocumentMut, project: &FuzzProject, autolib: bool, autobins: bool) {
    let fuzz_dir = &project.fuzz_dir;
    if let Some(lib) = doc.get_mut("lib").and_then(Item::as_table_like_mut) {
        let path = lib.get("path").and_then(Item::as_str).unwrap_or("src/lib.rs").to_string();
        lib.insert("path", toml_edit::value(absolute(fuzz_dir, &path)));
    } else if autolib && fuzz_dir.join("src/lib.rs").is_file() {
        let mut lib = Table::new();
        lib.insert("path", toml_edit::value(absolute(fuzz_dir, "src/lib.rs")));
        doc.insert("lib", Item::Table(lib));
    }
    let mut bins = doc.remove("bin").and_then(|b| b.into_array_of_tables().ok()).unwrap_or_default();
    let mut names = Vec::new();
    for bin in bins.iter_mut() {
        let name = bin.get("name").and_then(Item::as_str).unwrap_or_default().to_string();
        let path = match bin.get("path").and_then(Item::as_str) {
            Some(path) => normalize(&fuzz_dir.join(path)),
            None => infer_bin_path(fuzz_dir, &name, &project.package),
        };
        bin.insert("path", toml_edit::value(path.display().to_string()));
        names.push(name);
    }
    if autobins {
        for (name, path) in discovered_bins(fuzz_dir, &project.package) {
            if !names.contains(&name) {
                let mut bin = Table::new();
                bin.insert("name", toml_edit::value(name.clone()));
                bin.insert("path", toml_edit::value(path.display().to_string()));
                bins.push(bin);
                names.push(name);
            }
        }
    }
    if !bins.is_empty() {
        doc.insert("bin", Item::ArrayOfTables(bins));
    }
    for key in ["example", "test", "bench"] {
        doc.remove(key);
    }
}

/// Only the workspace root's `[patch]`, `[replace]` and `[profile]` count:
/// taken from `root` (when the fuzz crate is a member of another workspace),
/// their paths made absolute from `root_dir`.
fn take_root_tables(doc: &mut DocumentMut, root: Option<&DocumentMut>, root_dir: &Path) {
    if let Some(root) = root {
        for key in ["patch", "replace", "profile"] {
            doc.remove(key);
            if let Some(item) = root.get(key) {
                doc.insert(key, item.clone());
            }
        }
    }
    if let Some(patches) = doc.get_mut("patch").and_then(Item::as_table_like_mut) {
        for (_, source) in patches.iter_mut() {
            if let Some(source) = source.as_table_like_mut() {
                for (_, dependency) in source.iter_mut() {
                    absolutize_path_key(dependency, root_dir);
                }
            }
        }
    }
    if let Some(replace) = doc.get_mut("replace").and_then(Item::as_table_like_mut) {
        for (_, dependency) in replace.iter_mut() {
            absolutize_path_key(dependency, root_dir);
        }
    }
}

/// `[patch.<source>] <name> = { path = .. }` for each stand-in.
fn add_patches(doc: &mut DocumentMut, project: &FuzzProject, patches: &[Patch]) -> Result<(), ProjectError> {
    for patch in patches {
        let patches = doc.entry("patch").or_insert_with(toml_edit::table);
        let patches = patches.as_table_like_mut().ok_or_else(|| manifest_error(project, "[patch] is not a table"))?;
        let source = patches.entry(&patch.source_key).or_insert_with(toml_edit::table);
        let source = source.as_table_like_mut().ok_or_else(|| manifest_error(project, "a [patch] is not a table"))?;
        let mut entry = InlineTable::new();
        entry.insert("path", patch.path.display().to_string().into());
        source.insert(&patch.name, toml_edit::value(entry));
        if let Some(table) = patches.get_mut(&patch.source_key).and_then(Item::as_table_mut) {
            table.set_implicit(false);
        }
    }
    if let Some(patches) = doc.get_mut("patch").and_then(Item::as_table_mut) {
        patches.set_implicit(true);
    }
    Ok(())
}

/// What a member inherits from its workspace root.
struct Inherit<'a> {
    package: Option<&'a dyn TableLike>,
    dependencies: Option<&'a dyn TableLike>,
    root_dir: &'a Path,
    manifest: &'a Path,
}

impl Inherit<'_> {
    /// `[workspace.package].<key>`, paths made absolute.
    fn package_field(&self, key: &str) -> Result<Item, ProjectError> {
        let mut item = self.package.and_then(|p| p.get(key)).cloned().ok_or_else(|| ProjectError::Manifest {
            path: self.manifest.to_path_buf(),
            message: format!("`{key}.workspace = true` but the workspace root has no [workspace.package] {key}"),
        })?;
        if matches!(key, "readme" | "license-file") {
            absolutize_str(&mut item, self.root_dir);
        }
        Ok(item)
    }

    /// A `{ workspace = true, ... }` dependency merged with `[workspace.dependencies].<name>`.
    fn dependency(&self, name: &str, member: &dyn TableLike) -> Result<Item, ProjectError> {
        let base = self.dependencies.and_then(|d| d.get(name)).ok_or_else(|| ProjectError::Manifest {
            path: self.manifest.to_path_buf(),
            message: format!("dependency `{name}` has `workspace = true` but [workspace.dependencies] has no `{name}`"),
        })?;
        let mut merged = InlineTable::new();
        if let Some(version) = base.as_str() {
            merged.insert("version", version.into());
        } else if let Some(table) = base.as_table_like() {
            for (key, value) in table.iter() {
                if let Some(value) = value.as_value() {
                    merged.insert(key, value.clone());
                }
            }
        }
        if let Some(path) = merged.get("path").and_then(Value::as_str) {
            let path = absolute(self.root_dir, path);
            merged.insert("path", path.into());
        }
        let mut features: Vec<String> = Vec::new();
        for source in [merged.get("features"), member.get("features").and_then(Item::as_value)].into_iter().flatten() {
            for feature in source.as_array().into_iter().flatten().filter_map(Value::as_str) {
                if !features.iter().any(|f| f == feature) {
                    features.push(feature.to_string());
                }
            }
        }
        if !features.is_empty() {
            merged.insert("features", Value::Array(features.into_iter().collect::<Array>()));
        }
        for key in ["optional", "public"] {
            if let Some(value) = member.get(key).and_then(Item::as_value) {
                merged.insert(key, value.clone());
            }
        }
        Ok(toml_edit::value(merged))
    }
}

const DEPENDENCY_TABLES: [&str; 5] =
    ["dependencies", "dev-dependencies", "dev_dependencies", "build-dependencies", "build_dependencies"];

/// Makes the path dependencies in `table`'s dependency tables absolute and fills in inherited ones.
fn rewrite_dependency_tables(table: &mut Table, base: &Path, inherit: &Inherit<'_>) -> Result<(), ProjectError> {
    for key in DEPENDENCY_TABLES {
        let Some(dependencies) = table.get_mut(key).and_then(Item::as_table_like_mut) else { continue };
        for (name, dependency) in dependencies.iter_mut() {
            if is_inherited(dependency) {
                let member = dependency.as_table_like().expect("inherited entries are tables");
                *dependency = inherit.dependency(name.get(), member)?;
            } else {
                absolutize_path_key(dependency, base);
            }
        }
    }
    Ok(())
}

/// `{ workspace = true }` (inline, a table, or dotted `x.workspace = true`).
fn is_inherited(item: &Item) -> bool {
    item.as_table_like().and_then(|t| t.get("workspace")).and_then(Item::as_bool) == Some(true)
}

/// The bins cargo discovers in `package_dir`: `src/main.rs`, `src/bin/*.rs`, `src/bin/*/main.rs`.
fn discovered_bins(package_dir: &Path, package: &str) -> Vec<(String, PathBuf)> {
    let mut bins = Vec::new();
    if package_dir.join("src/main.rs").is_file() {
        bins.push((package.to_string(), package_dir.join("src/main.rs")));
    }
    let mut entries: Vec<PathBuf> = fs::read_dir(package_dir.join("src/bin"))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()).map(str::to_string) else { continue };
        if path.extension().is_some_and(|e| e == "rs") && path.is_file() {
            bins.push((stem, path));
        } else if path.join("main.rs").is_file() {
            bins.push((stem, path.join("main.rs")));
        }
    }
    bins
}

/// `base/path`, normalized, as a string for a manifest.
fn absolute(base: &Path, path: &str) -> String {
    normalize(&base.join(path)).display().to_string()
}

/// Makes a string item that is a path absolute.
fn absolutize_str(item: &mut Item, base: &Path) {
    if let Some(path) = item.as_str() {
        *item = toml_edit::value(absolute(base, path));
    }
}

/// Makes the `path` key of a dependency-like table absolute.
fn absolutize_path_key(item: &mut Item, base: &Path) {
    if let Some(table) = item.as_table_like_mut() {
        if let Some(path) = table.get_mut("path") {
            absolutize_str(path, base);
        }
    }
}

fn manifest_error(project: &FuzzProject, message: &str) -> ProjectError {
    ProjectError::Manifest { path: project.manifest_path.clone(), message: message.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    const FUZZ_MANIFEST: &str = r#"
[package]
name = "demo-fuzz"
version = "0.0.0"
edition = "2021"
readme = "README.md"

[package.metadata]
cargo-fuzz = true

[dependencies]
libfuzzer-sys = { version = "0.4", features = ["arbitrary-derive"] }
demo = { path = ".." }
helper = { path = "../helper", optional = true }

[target.'cfg(unix)'.dependencies]
unixy = { path = "unixy" }

[dev-dependencies.devdep]
path = "../devdep"

[features]
extra = ["dep:helper"]

[[bin]]
name = "parse"
path = "fuzz_targets/parse.rs"
test = false

[[bin]]
name = "nopath"

[[example]]
name = "ex"
path = "examples/ex.rs"

[profile.release]
debug = 1

[patch.crates-io]
somecrate = { path = "../vendor/somecrate" }

[workspace]
members = ["."]
resolver = "2"
"#;

    fn project(manifest: &str) -> (tempfile::TempDir, FuzzProject) {
        let dir = tempfile::tempdir().unwrap();
        write(&dir.path().join("Cargo.toml"), "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n");
        write(&dir.path().join("fuzz/Cargo.toml"), manifest);
        let project = FuzzProject::locate(None, dir.path()).unwrap();
        (dir, project)
    }

    fn patch() -> Patch {
        Patch {
            name: LIBFUZZER_SYS.into(),
            source_key: "crates-io".into(),
            path: PathBuf::from("/scratch/libfuzzer-sys-0.4.13"),
        }
    }

    #[test]
    fn every_relative_path_becomes_absolute() {
        let (_dir, project) = project(FUZZ_MANIFEST);
        let fuzz = project.fuzz_dir.clone();
        let parent = fuzz.parent().unwrap().to_path_buf();
        let manifest = read_toml(&project.manifest_path).unwrap();
        let doc = scratch_manifest(&project, &manifest, None, &[patch()]).unwrap();
        let s = |p: &Path| p.display().to_string();

        assert_eq!(doc["dependencies"]["demo"]["path"].as_str(), Some(s(&parent).as_str()));
        assert_eq!(doc["dependencies"]["helper"]["path"].as_str(), Some(s(&parent.join("helper")).as_str()));
        assert_eq!(doc["dependencies"]["helper"]["optional"].as_bool(), Some(true));
        assert_eq!(
            doc["target"]["cfg(unix)"]["dependencies"]["unixy"]["path"].as_str(),
            Some(s(&fuzz.join("unixy")).as_str())
        );
        assert_eq!(doc["dev-dependencies"]["devdep"]["path"].as_str(), Some(s(&parent.join("devdep")).as_str()));
        assert_eq!(doc["package"]["readme"].as_str(), Some(s(&fuzz.join("README.md")).as_str()));
        let bins = doc["bin"].as_array_of_tables().unwrap();
        assert_eq!(bins.get(0).unwrap()["path"].as_str(), Some(s(&fuzz.join("fuzz_targets/parse.rs")).as_str()));
        assert_eq!(bins.get(0).unwrap()["test"].as_bool(), Some(false));
        assert_eq!(bins.get(1).unwrap()["path"].as_str(), Some(s(&fuzz.join("src/bin/nopath.rs")).as_str()));
        assert!(doc.get("example").is_none());
        assert_eq!(
            doc["patch"]["crates-io"]["somecrate"]["path"].as_str(),
            Some(s(&parent.join("vendor/somecrate")).as_str())
        );
    }

    #[test]
    fn the_workspace_is_emptied_and_the_patch_added() {
        let (_dir, project) = project(FUZZ_MANIFEST);
        let manifest = read_toml(&project.manifest_path).unwrap();
        let doc = scratch_manifest(&project, &manifest, None, &[patch()]).unwrap();
        let workspace = doc["workspace"].as_table().unwrap();
        assert_eq!(workspace.iter().map(|(k, _)| k).collect::<Vec<_>>(), ["resolver"]);
        assert_eq!(doc["patch"]["crates-io"]["libfuzzer-sys"]["path"].as_str(), Some("/scratch/libfuzzer-sys-0.4.13"));
        // Kept as the user wrote them: features, profiles, the dependency's own features.
        assert_eq!(doc["profile"]["release"]["debug"].as_integer(), Some(1));
        assert_eq!(doc["features"]["extra"].as_array().unwrap().len(), 1);
        assert_eq!(doc["dependencies"]["libfuzzer-sys"]["features"].as_array().unwrap().len(), 1);
        // The result is a manifest cargo can read back.
        let text = doc.to_string();
        assert!(text.contains("[workspace]"), "{text}");
        text.parse::<DocumentMut>().unwrap();
    }

    #[test]
    fn a_patch_for_a_git_source_gets_a_quoted_key() {
        let (_dir, project) = project(FUZZ_MANIFEST);
        let manifest = read_toml(&project.manifest_path).unwrap();
        let git = Patch {
            name: LIBFUZZER_SYS.into(),
            source_key: "https://github.com/rust-fuzz/libfuzzer".into(),
            path: PathBuf::from("/s"),
        };
        let text = scratch_manifest(&project, &manifest, None, &[git]).unwrap().to_string();
        assert!(text.contains("[patch.\"https://github.com/rust-fuzz/libfuzzer\"]"), "{text}");
    }

    #[test]
    fn discovered_targets_and_build_script_are_named_explicitly() {
        let (dir, project) = project(
            "[package]\nname = \"demo-fuzz\"\nversion = \"0.0.0\"\n[package.metadata]\ncargo-fuzz = true\n\
             [[bin]]\nname = \"t\"\npath = \"fuzz_targets/t.rs\"\n",
        );
        let fuzz = &project.fuzz_dir;
        for file in ["build.rs", "src/lib.rs", "src/bin/extra.rs", "src/bin/dir/main.rs"] {
            write(&fuzz.join(file), "");
        }
        let manifest = read_toml(&project.manifest_path).unwrap();
        let doc = scratch_manifest(&project, &manifest, None, &[]).unwrap();
        assert_eq!(doc["package"]["build"].as_str(), Some(fuzz.join("build.rs").display().to_string().as_str()));
        assert_eq!(doc["lib"]["path"].as_str(), Some(fuzz.join("src/lib.rs").display().to_string().as_str()));
        let bins: Vec<&str> =
            doc["bin"].as_array_of_tables().unwrap().iter().map(|b| b["name"].as_str().unwrap()).collect();
        assert_eq!(bins, ["t", "dir", "extra"]);
        assert!(doc.get("patch").is_none());
        drop(dir);
    }

    /// A workspace root with everything a member can inherit.
    const MEMBER_ROOT: &str = r#"
[workspace]
members = ["lib", "fuzz"]
resolver = "2"

[workspace.package]
version = "1.2.3"
edition = "2021"
license-file = "LICENSE"

[workspace.dependencies]
arbitrary = { version = "1", features = ["derive"] }
mylib = { path = "lib" }
libfuzzer-sys = "0.4"

[workspace.lints.rust]
unsafe_code = "forbid"

[profile.release]
debug = true

[patch.crates-io]
other = { path = "patched/other" }
"#;

    /// A fuzz crate that is a member of [`MEMBER_ROOT`]'s workspace and inherits from it.
    const MEMBER_FUZZ: &str = r#"
[package]
name = "member-fuzz"
version.workspace = true
edition = { workspace = true }
license-file.workspace = true

[package.metadata]
cargo-fuzz = true

[dependencies]
libfuzzer-sys.workspace = true
arbitrary = { workspace = true, features = ["std"] }
mylib = { workspace = true, optional = true }

[lints]
workspace = true

[profile.dev]
opt-level = 3

[[bin]]
name = "t"
path = "fuzz_targets/t.rs"
"#;

    /// The scratch manifest of [`MEMBER_FUZZ`] under [`MEMBER_ROOT`], and the root's directory.
    fn member_scratch_manifest() -> (tempfile::TempDir, PathBuf, DocumentMut) {
        let dir = tempfile::tempdir().unwrap();
        write(&dir.path().join("Cargo.toml"), MEMBER_ROOT);
        write(&dir.path().join("fuzz/Cargo.toml"), MEMBER_FUZZ);
        let project = FuzzProject::locate(Some(Path::new("fuzz")), dir.path()).unwrap();
        let root_dir = normalize(dir.path());
        assert_eq!(project.workspace_root, root_dir);
        let manifest = read_toml(&project.manifest_path).unwrap();
        let root = read_toml(&project.root_manifest_path()).unwrap();
        let doc = scratch_manifest(&project, &manifest, Some(&root), &[patch()]).unwrap();
        (dir, root_dir, doc)
    }

    #[test]
    fn a_workspace_member_inherits_from_the_root() {
        let (_dir, root_dir, doc) = member_scratch_manifest();
        assert_eq!(doc["package"]["version"].as_str(), Some("1.2.3"));
        assert_eq!(doc["package"]["edition"].as_str(), Some("2021"));
        assert_eq!(
            doc["package"]["license-file"].as_str(),
            Some(root_dir.join("LICENSE").display().to_string().as_str())
        );
        assert_eq!(doc["dependencies"]["libfuzzer-sys"]["version"].as_str(), Some("0.4"));
        let features: Vec<&str> = doc["dependencies"]["arbitrary"]["features"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|v| v.as_str())
            .collect();
        assert_eq!(features, ["derive", "std"]);
        assert_eq!(
            doc["dependencies"]["mylib"]["path"].as_str(),
            Some(root_dir.join("lib").display().to_string().as_str())
        );
        assert_eq!(doc["dependencies"]["mylib"]["optional"].as_bool(), Some(true));
        assert_eq!(doc["lints"]["rust"]["unsafe_code"].as_str(), Some("forbid"));
    }

    #[test]
    fn a_workspace_member_takes_the_roots_profiles_patches_and_resolver() {
        let (_dir, root_dir, doc) = member_scratch_manifest();
        // The root's profiles and patches, not the member's.
        assert_eq!(doc["profile"]["release"]["debug"].as_bool(), Some(true));
        assert!(doc["profile"].get("dev").is_none());
        assert_eq!(
            doc["patch"]["crates-io"]["other"]["path"].as_str(),
            Some(root_dir.join("patched/other").display().to_string().as_str())
        );
        assert_eq!(doc["patch"]["crates-io"]["libfuzzer-sys"]["path"].as_str(), Some("/scratch/libfuzzer-sys-0.4.13"));
        assert_eq!(doc["workspace"]["resolver"].as_str(), Some("2"));
        assert!(doc["workspace"].get("members").is_none());
    }

    #[test]
    fn the_workspace_is_written_and_the_user_files_only_read() {
        let (dir, project) = project(FUZZ_MANIFEST);
        let lock = "version = 4\n";
        write(&project.lockfile(), lock);
        let before = fs::read(&project.manifest_path).unwrap();
        let scratch = dir.path().join("scratch");
        let manifest = write_workspace(&project, &scratch, &[patch()], Some(&project.lockfile())).unwrap();
        assert_eq!(manifest, scratch.join("Cargo.toml"));
        assert_eq!(fs::read_to_string(scratch.join("Cargo.lock")).unwrap(), lock);
        assert_eq!(fs::read(&project.manifest_path).unwrap(), before);
        assert_eq!(fs::read_to_string(project.lockfile()).unwrap(), lock);

        // cargo rewrites the scratch lockfile; an unchanged user lockfile leaves that alone,
        // a changed one is copied again.
        fs::write(scratch.join("Cargo.lock"), "version = 4\n# rewritten by cargo\n").unwrap();
        write_workspace(&project, &scratch, &[patch()], Some(&project.lockfile())).unwrap();
        assert!(fs::read_to_string(scratch.join("Cargo.lock")).unwrap().contains("rewritten"));
        write(&project.lockfile(), "version = 3\n");
        write_workspace(&project, &scratch, &[patch()], Some(&project.lockfile())).unwrap();
        assert_eq!(fs::read_to_string(scratch.join("Cargo.lock")).unwrap(), "version = 3\n");

        // No lockfile to start from: the copied one goes, one cargo wrote itself stays.
        write_workspace(&project, &scratch, &[patch()], None).unwrap();
        assert!(!scratch.join("Cargo.lock").exists());
        fs::write(scratch.join("Cargo.lock"), "version = 4\n# resolved by cargo\n").unwrap();
        write_workspace(&project, &scratch, &[patch()], None).unwrap();
        assert!(fs::read_to_string(scratch.join("Cargo.lock")).unwrap().contains("resolved"));
    }

    #[test]
    fn write_if_changed_keeps_an_identical_file_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b.txt");
        assert!(write_if_changed(&path, b"one").unwrap());
        assert!(!write_if_changed(&path, b"one").unwrap());
        assert!(write_if_changed(&path, b"two").unwrap());
        assert_eq!(fs::read(&path).unwrap(), b"two");
    }

    #[test]
    fn scratch_dirs_of_different_projects_differ() {
        let (_a, one) = project(FUZZ_MANIFEST);
        let (_b, two) = project(FUZZ_MANIFEST);
        let target = Path::new("/t");
        let (x, y) = (default_scratch_dir(&one, target), default_scratch_dir(&two, target));
        assert_ne!(x, y);
        assert!(
            x.starts_with("/t/minimize-crash") && x.file_name().unwrap().to_str().unwrap().starts_with("demo-fuzz-")
        );
    }
}
