//! Find the fuzz directory as cargo-fuzz does, check it is a cargo-fuzz project, list its targets, find the workspace whose lockfile cargo uses.

use std::fs;
use std::path::{Component, Path, PathBuf};

use toml_edit::{DocumentMut, Item};

use super::ProjectError;

/// cargo-fuzz's default fuzz directory, under the project root.
pub const DEFAULT_FUZZ_DIR: &str = "fuzz";

/// A cargo-fuzz project: the fuzz crate's manifest and what was read from it.
#[derive(Clone, Debug)]
pub struct FuzzProject {
    /// The fuzz directory, absolute and normalized (no `.` or `..`).
    pub fuzz_dir: PathBuf,
    /// `<fuzz_dir>/Cargo.toml`.
    pub manifest_path: PathBuf,
    /// The fuzz crate's package name.
    pub package: String,
    /// The `[[bin]]` targets, sorted by name.
    pub targets: Vec<Target>,
    /// The root of the workspace the fuzz crate belongs to: the fuzz directory
    /// itself when the manifest has its own `[workspace]` (cargo-fuzz's
    /// default) or no ancestor has one.
    pub workspace_root: PathBuf,
    /// The working directory cargo runs in, as `cargo fuzz` would (it decides
    /// which `.cargo/config.toml` files and toolchain apply).
    pub cwd: PathBuf,
}

/// One fuzz target: a `[[bin]]` of the fuzz crate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The bin's name, as given to `cargo fuzz run`.
    pub name: String,
    /// Its crate root, absolute.
    pub path: PathBuf,
}

impl Target {
    /// Whether its `fuzz_target!` takes a typed input (`|x: T|`, not
    /// `|data: &[u8]|`), read from its source; `None` when the source does
    /// not say (unreadable, or the macro written another way).
    pub fn is_typed(&self) -> Option<bool> {
        let source = fs::read_to_string(&self.path).ok()?;
        let after = &source[source.find("fuzz_target!")?..];
        let closure = &after[after.find('|')? + 1..];
        let parameter = &closure[..closure.find('|')?];
        let ty: String = parameter[parameter.find(':')? + 1..].split_whitespace().collect();
        Some(ty != "&[u8]")
    }
}

impl FuzzProject {
    /// Finds the fuzz project the way `cargo fuzz` does: `fuzz_dir` if given
    /// (relative to `cwd`), else `fuzz/` under the nearest directory above
    /// `cwd` whose `Cargo.toml` is not itself a cargo-fuzz manifest.
    pub fn locate(fuzz_dir: Option<&Path>, cwd: &Path) -> Result<FuzzProject, ProjectError> {
        let cwd = normalize(&std::path::absolute(cwd).unwrap_or_else(|_| cwd.to_path_buf()));
        let fuzz_dir = match fuzz_dir {
            Some(dir) => normalize(&cwd.join(dir)),
            None => find_package(&cwd)?.join(DEFAULT_FUZZ_DIR),
        };
        let manifest_path = fuzz_dir.join("Cargo.toml");
        if !manifest_path.is_file() {
            return Err(ProjectError::NotAFuzzProject { fuzz_dir, reason: "it has no Cargo.toml".into() });
        }
        let manifest = read_toml(&manifest_path)?;
        if !is_fuzz_manifest(&manifest) {
            return Err(ProjectError::NotAFuzzProject {
                fuzz_dir,
                reason: "its Cargo.toml lacks `[package.metadata] cargo-fuzz = true`".into(),
            });
        }
        let package = manifest
            .get("package")
            .and_then(|p| p.get("name"))
            .and_then(Item::as_str)
            .ok_or_else(|| ProjectError::Manifest { path: manifest_path.clone(), message: "no package.name".into() })?
            .to_string();
        let mut targets = Vec::new();
        if let Some(bins) = manifest.get("bin").and_then(Item::as_array_of_tables) {
            for bin in bins {
                let Some(name) = bin.get("name").and_then(Item::as_str) else { continue };
                let path = match bin.get("path").and_then(Item::as_str) {
                    Some(path) => normalize(&fuzz_dir.join(path)),
                    None => infer_bin_path(&fuzz_dir, name, &package),
                };
                targets.push(Target { name: name.to_string(), path });
            }
        }
        targets.sort_by(|a, b| a.name.cmp(&b.name));
        let workspace_root = workspace_root(&fuzz_dir, &manifest)?;
        Ok(FuzzProject { fuzz_dir, manifest_path, package, targets, workspace_root, cwd })
    }

    /// The target called `name`, or an error listing the known ones.
    pub fn target(&self, name: &str) -> Result<&Target, ProjectError> {
        self.targets.iter().find(|t| t.name == name).ok_or_else(|| ProjectError::UnknownTarget {
            name: name.to_string(),
            known: self.target_names(),
            manifest: self.manifest_path.clone(),
        })
    }

    /// The targets' names, sorted.
    pub fn target_names(&self) -> Vec<String> {
        self.targets.iter().map(|t| t.name.clone()).collect()
    }

    /// The lockfile cargo uses for the fuzz crate (it may not exist yet).
    pub fn lockfile(&self) -> PathBuf {
        self.workspace_root.join("Cargo.lock")
    }

    /// The manifest of the workspace root (the fuzz manifest itself when the fuzz crate is its own workspace).
    pub fn root_manifest_path(&self) -> PathBuf {
        self.workspace_root.join("Cargo.toml")
    }
}

/// Reads and parses a TOML file (a manifest or a lockfile).
pub(crate) fn read_toml(path: &Path) -> Result<DocumentMut, ProjectError> {
    let text = fs::read_to_string(path)
        .map_err(|e| ProjectError::Manifest { path: path.to_path_buf(), message: format!("cannot read it: {e}") })?;
    text.parse::<DocumentMut>()
        .map_err(|e| ProjectError::Manifest { path: path.to_path_buf(), message: format!("invalid TOML: {e}") })
}

/// cargo-fuzz's test: `[package.metadata] cargo-fuzz = true`.
pub fn is_fuzz_manifest(manifest: &DocumentMut) -> bool {
    manifest
        .get("package")
        .and_then(|p| p.get("metadata"))
        .and_then(|m| m.get("cargo-fuzz"))
        .and_then(Item::as_bool)
        .unwrap_or(false)
}

/// The nearest directory at or above `cwd` with a `Cargo.toml` that is not a
/// cargo-fuzz manifest (so running from inside `fuzz/` finds its parent).
fn find_package(cwd: &Path) -> Result<PathBuf, ProjectError> {
    for dir in cwd.ancestors() {
        let manifest = dir.join("Cargo.toml");
        if manifest.is_file() && !is_fuzz_manifest(&read_toml(&manifest)?) {
            return Ok(dir.to_path_buf());
        }
    }
    Err(ProjectError::NoCargoProject { cwd: cwd.to_path_buf() })
}

/// Where cargo looks for a bin target that has no `path`.
pub(crate) fn infer_bin_path(package_dir: &Path, name: &str, package: &str) -> PathBuf {
    let candidates = [
        package_dir.join("src/bin").join(format!("{name}.rs")),
        package_dir.join("src/bin").join(name).join("main.rs"),
    ];
    if let Some(found) = candidates.iter().find(|p| p.is_file()) {
        return found.clone();
    }
    if name == package || name == package.replace('-', "_") {
        return package_dir.join("src/main.rs");
    }
    candidates[0].clone()
}

/// The workspace root cargo would use for the package at `package_dir`: the
/// package itself if its manifest has `[workspace]`; the directory named by
/// `package.workspace`; else the nearest ancestor whose manifest has
/// `[workspace]` and does not `exclude` the package; else the package itself.
fn workspace_root(package_dir: &Path, manifest: &DocumentMut) -> Result<PathBuf, ProjectError> {
    if manifest.contains_key("workspace") {
        return Ok(package_dir.to_path_buf());
    }
    if let Some(root) = manifest.get("package").and_then(|p| p.get("workspace")).and_then(Item::as_str) {
        return Ok(normalize(&package_dir.join(root)));
    }
    for dir in package_dir.ancestors().skip(1) {
        let path = dir.join("Cargo.toml");
        if !path.is_file() {
            continue;
        }
        let root = read_toml(&path)?;
        let Some(workspace) = root.get("workspace") else { continue };
        let excluded = workspace
            .get("exclude")
            .and_then(Item::as_array)
            .into_iter()
            .flatten()
            .filter_map(|e| e.as_str())
            .any(|e| package_dir.starts_with(normalize(&dir.join(e))));
        return Ok(if excluded { package_dir.to_path_buf() } else { dir.to_path_buf() });
    }
    Ok(package_dir.to_path_buf())
}

/// Makes `..` and `.` disappear without touching the file system, as cargo
/// does for path dependencies (so symlinks are not resolved).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(component);
                }
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const FUZZ_MANIFEST: &str = r#"
[package]
name = "demo-fuzz"
version = "0.0.0"
edition = "2021"

[package.metadata]
cargo-fuzz = true

[dependencies]
libfuzzer-sys = "0.4"

[[bin]]
name = "zeta"
path = "fuzz_targets/zeta.rs"

[[bin]]
name = "alpha"
path = "fuzz_targets/alpha.rs"
"#;

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn project_with_fuzz_dir(workspace_in_fuzz: bool) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        write(&dir.path().join("Cargo.toml"), "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n");
        let manifest = if workspace_in_fuzz {
            format!("{FUZZ_MANIFEST}\n[workspace]\nmembers = [\".\"]\n")
        } else {
            FUZZ_MANIFEST.to_string()
        };
        write(&dir.path().join("fuzz/Cargo.toml"), &manifest);
        dir
    }

    #[test]
    fn the_fuzz_dir_is_found_from_the_project_root_and_from_inside_it() {
        let dir = project_with_fuzz_dir(true);
        let root = normalize(dir.path());
        for cwd in [root.clone(), root.join("src"), root.join("fuzz"), root.join("fuzz/fuzz_targets")] {
            let project = FuzzProject::locate(None, &cwd).unwrap();
            assert_eq!(project.fuzz_dir, root.join("fuzz"), "from {}", cwd.display());
            assert_eq!(project.cwd, cwd);
        }
    }

    #[test]
    fn targets_are_the_bin_entries_sorted_with_absolute_paths() {
        let dir = project_with_fuzz_dir(true);
        let project = FuzzProject::locate(None, dir.path()).unwrap();
        let fuzz = normalize(dir.path()).join("fuzz");
        assert_eq!(project.package, "demo-fuzz");
        assert_eq!(
            project.targets,
            vec![
                Target { name: "alpha".into(), path: fuzz.join("fuzz_targets/alpha.rs") },
                Target { name: "zeta".into(), path: fuzz.join("fuzz_targets/zeta.rs") },
            ]
        );
        assert_eq!(project.target("zeta").unwrap().name, "zeta");
    }

    #[test]
    fn an_unknown_target_lists_the_known_ones() {
        let dir = project_with_fuzz_dir(true);
        let project = FuzzProject::locate(None, dir.path()).unwrap();
        let error = project.target("beta").unwrap_err();
        assert!(matches!(&error, ProjectError::UnknownTarget { known, .. } if known == &["alpha", "zeta"]));
        assert_eq!(error.exit(), crate::exit_code::Exit::BuildFailed);
        let message = error.to_string();
        assert!(message.contains("no fuzz target named `beta`"), "{message}");
        assert!(message.contains("the targets are: alpha, zeta"), "{message}");
    }

    #[test]
    fn an_explicit_fuzz_dir_is_relative_to_the_working_directory() {
        let dir = project_with_fuzz_dir(true);
        fs::rename(dir.path().join("fuzz"), dir.path().join("fuzzing")).unwrap();
        let project = FuzzProject::locate(Some(Path::new("./fuzzing/../fuzzing")), dir.path()).unwrap();
        assert_eq!(project.fuzz_dir, normalize(dir.path()).join("fuzzing"));
        let missing = FuzzProject::locate(None, dir.path()).unwrap_err();
        assert!(matches!(missing, ProjectError::NotAFuzzProject { .. }), "{missing}");
    }

    #[test]
    fn a_manifest_without_the_cargo_fuzz_marker_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        write(&dir.path().join("fuzz/Cargo.toml"), "[package]\nname = \"x\"\nversion = \"0.1.0\"\n");
        let error = FuzzProject::locate(Some(Path::new("fuzz")), dir.path()).unwrap_err();
        assert!(error.to_string().contains("cargo-fuzz = true"), "{error}");
    }

    #[test]
    fn no_cargo_project_anywhere_is_its_own_error() {
        let dir = tempfile::tempdir().unwrap();
        // Only meaningful when no ancestor of the temp dir has a Cargo.toml.
        if dir.path().ancestors().any(|d| d.join("Cargo.toml").is_file()) {
            return;
        }
        let error = FuzzProject::locate(None, dir.path()).unwrap_err();
        assert!(matches!(error, ProjectError::NoCargoProject { .. }), "{error}");
    }

    #[test]
    fn the_workspace_root_is_the_fuzz_dir_or_the_enclosing_workspace() {
        let own = project_with_fuzz_dir(true);
        let project = FuzzProject::locate(None, own.path()).unwrap();
        assert_eq!(project.workspace_root, project.fuzz_dir);
        assert_eq!(project.lockfile(), project.fuzz_dir.join("Cargo.lock"));

        let member = project_with_fuzz_dir(false);
        write(
            &member.path().join("Cargo.toml"),
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n[workspace]\nmembers = [\".\", \"fuzz\"]\n",
        );
        let project = FuzzProject::locate(None, member.path()).unwrap();
        assert_eq!(project.workspace_root, normalize(member.path()));

        let excluded = project_with_fuzz_dir(false);
        write(
            &excluded.path().join("Cargo.toml"),
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n[workspace]\nexclude = [\"fuzz\"]\n",
        );
        let project = FuzzProject::locate(None, excluded.path()).unwrap();
        assert_eq!(project.workspace_root, project.fuzz_dir);
    }

    #[test]
    fn a_bin_without_a_path_gets_cargos_default() {
        let dir = tempfile::tempdir().unwrap();
        let base = normalize(dir.path());
        write(&base.join("src/bin/b/main.rs"), "");
        assert_eq!(infer_bin_path(&base, "a", "pkg"), base.join("src/bin/a.rs"));
        assert_eq!(infer_bin_path(&base, "b", "pkg"), base.join("src/bin/b/main.rs"));
        assert_eq!(infer_bin_path(&base, "pkg", "pkg"), base.join("src/main.rs"));
    }

    #[test]
    fn normalize_removes_dots_lexically() {
        assert_eq!(normalize(Path::new("/a/b/../c/./d")), PathBuf::from("/a/c/d"));
        assert_eq!(normalize(Path::new("/a/fuzz/../crates/x")), PathBuf::from("/a/crates/x"));
    }

    #[test]
    fn a_target_is_typed_unless_it_takes_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let typed = |text: &str| {
            let path = dir.path().join("t.rs");
            fs::write(&path, text).unwrap();
            Target { name: "t".into(), path }.is_typed()
        };
        assert_eq!(typed("fuzz_target!(|data: &[u8]| { f(data) });"), Some(false));
        assert_eq!(typed("fuzz_target!(init: { setup() }, | data : & [ u8 ] | f(data));"), Some(false));
        assert_eq!(typed("fuzz_target!(|xs: Vec<u64>| { f(xs) });"), Some(true));
        assert_eq!(typed("fuzz_target!(|input: (Vec<u8>, Vec<u8>)| -> Corpus { f(input) });"), Some(true));
        assert_eq!(typed("fn main() {}"), None);
    }
}
