//! Source paths as they read on any machine: the standard library without the toolchain's commit, a registry or git dependency by name and version rather than where cargo keeps it.
//!
//! A location is compared and hashed (the reduction's oracle, batch's bug ids
//! and SARIF fingerprints), so it must not hold this machine's `CARGO_HOME`,
//! rustup directory or toolchain commit:
//!
//! - `/rustc/<commit>/library/core/src/slice/index.rs` (or the same under a
//!   rustup toolchain's `lib/rustlib/src/rust/`) reads `core/src/slice/index.rs`;
//! - `<CARGO_HOME>/registry/src/<index>-<hash>/url-2.2.0/src/lib.rs` reads
//!   `url-2.2.0/src/lib.rs`;
//! - `<CARGO_HOME>/git/checkouts/<repository>-<hash>/<revision>/src/lib.rs`
//!   reads `<repository>@<revision>/src/lib.rs`.
//!
//! - a path under the project's root (its repository's, else the directory
//!   the fuzz directory is in; [`set_project_root`], once per run) reads
//!   relative to it: `/home/me/project/crates/parser/src/lib.rs` reads
//!   `crates/parser/src/lib.rs`, in the harness and in a `cargo fuzz build`
//!   binary alike (both compile a path dependency outside the fuzz
//!   workspace by its absolute path).
//!
//! A path is read by what it is before where it is: the toolchain's sources,
//! then a registry or git checkout (wherever `CARGO_HOME` is: inside the
//! project, as GitLab CI caches it, relative, behind a symlink), and only
//! then the project's own files. Anything else is left as it is: the harness
//! already builds the fuzz workspace's own files with paths relative to its
//! root, as `cargo fuzz build` does.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The project's root, set once per run (a process minimizes one project's crashes).
static PROJECT_ROOT: OnceLock<String> = OnceLock::new();

/// Makes paths under `root` read relative to it from now on (the first call wins).
pub fn set_project_root(root: &Path) {
    let _ = PROJECT_ROOT.set(root.to_string_lossy().trim_end_matches('/').to_owned());
}

/// The root a project's paths are read from: the repository `start` is in
/// (the nearest directory above it with a `.git`), else `fallback`.
pub fn project_root(start: &Path, fallback: Option<&Path>) -> Option<PathBuf> {
    let repository = start.ancestors().find(|dir| dir.join(".git").exists());
    repository.or(fallback).map(Path::to_path_buf)
}

/// `path` (or `path:line:col`) normalized as the module says.
pub fn normalize(path: &str) -> Cow<'_, str> {
    normalize_under(path, PROJECT_ROOT.get().map(String::as_str))
}

/// [`normalize`] with the project's root `root`: a dependency or the
/// toolchain first, wherever they are kept, then the project's own files.
fn normalize_under<'a>(path: &'a str, root: Option<&str>) -> Cow<'a, str> {
    if let Some(rest) = standard_library(path) {
        return Cow::Owned(rest.to_owned());
    }
    if let Some(dependency) = dependency(path) {
        return Cow::Owned(dependency);
    }
    let relative = root.and_then(|root| path.strip_prefix(root)?.strip_prefix('/'));
    match relative.filter(|r| !r.is_empty()) {
        Some(relative) => Cow::Owned(relative.to_owned()),
        None => Cow::Borrowed(path),
    }
}

/// A registry crate's path as `<name>-<version>/...`, a git checkout's as
/// `<repository>@<revision>/...`; `None` for any other path.
fn dependency(path: &str) -> Option<String> {
    if let Some(rest) = after_marker(path, "/registry/src/") {
        // `<index>-<hash>/<name>-<version>/...`: drop the index's directory.
        let (_, package) = rest.split_once('/')?;
        return Some(package.to_owned());
    }
    let rest = after_marker(path, "/git/checkouts/")?;
    // `<repository>-<16 hex>/<revision>/...`.
    let mut parts = rest.splitn(3, '/');
    let (checkout, revision, file) = (parts.next()?, parts.next()?, parts.next()?);
    Some(format!("{}@{revision}/{file}", strip_hash_suffix(checkout)))
}

/// Whether `path` (or `path:line:col`) is in `arbitrary` or `libfuzzer-sys`
/// (the user's registry copies or the harness's stand-ins): the machinery
/// that feeds the target, never where its bug is.
pub fn is_fuzzing_machinery(path: &str) -> bool {
    let normalized = normalize_under(path, None);
    let first = normalized.split('/').find(|part| part.starts_with("arbitrary") || part.starts_with("libfuzzer-sys"));
    first.is_some_and(|crate_dir| {
        let version = crate_dir.trim_start_matches("arbitrary").trim_start_matches("libfuzzer-sys");
        version.is_empty() || version.starts_with('-')
    })
}

/// Whether `path` is in the standard library's sources (std, core, alloc, ...).
pub fn is_standard_library(path: &str) -> bool {
    standard_library(path).is_some()
}

/// What follows `library/` in a path of the standard library's sources
/// (`/rustc/<commit>/library/...`, `.../lib/rustlib/src/rust/library/...`).
fn standard_library(path: &str) -> Option<&str> {
    let rest = if let Some(rest) = path.strip_prefix("/rustc/") {
        rest.split_once('/')?.1
    } else {
        after_marker(path, "/lib/rustlib/src/rust/")?
    };
    rest.strip_prefix("library/")
}

/// What follows the first `marker` in `path` (a marker `/x/` also matches a
/// relative path that starts with `x/`).
fn after_marker<'a>(path: &'a str, marker: &str) -> Option<&'a str> {
    match path.find(marker) {
        Some(at) => Some(&path[at + marker.len()..]),
        None => path.strip_prefix(&marker[1..]),
    }
}

/// `regex-1a2b3c4d5e6f7a8b` -> `regex`: cargo names a git checkout after the
/// repository and a hash of its URL.
fn strip_hash_suffix(checkout: &str) -> &str {
    match checkout.rsplit_once('-') {
        Some((name, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => name,
        _ => checkout,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standard_library_reads_without_the_toolchains_commit() {
        let commit = "/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860";
        assert_eq!(
            normalize(&format!("{commit}/library/core/src/slice/index.rs:1020:51")),
            "core/src/slice/index.rs:1020:51"
        );
        let rustup = "/home/me/.rustup/toolchains/nightly-x86_64-unknown-linux-gnu/lib/rustlib/src/rust";
        assert_eq!(normalize(&format!("{rustup}/library/alloc/src/vec/mod.rs:9:5")), "alloc/src/vec/mod.rs:9:5");
    }

    #[test]
    fn dependencies_read_by_name_and_version_not_by_where_cargo_keeps_them() {
        let registry = "/home/me/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f";
        assert_eq!(
            normalize(&format!("{registry}/url-2.2.0/src/path_segments.rs:138:48")),
            "url-2.2.0/src/path_segments.rs:138:48"
        );
        let elsewhere = "/ci/cache/cargo/registry/src/github.com-1ecc6299db9ec823/url-2.2.0/src/path_segments.rs";
        assert_eq!(normalize(elsewhere), "url-2.2.0/src/path_segments.rs");
        let git = "/home/me/.cargo/git/checkouts/regex-1a2b3c4d5e6f7a8b/abc1234/regex-syntax/src/lib.rs:5:1";
        assert_eq!(normalize(git), "regex@abc1234/regex-syntax/src/lib.rs:5:1");
    }

    #[test]
    fn paths_under_the_projects_root_read_relative_to_it() {
        let root = Some("/home/me/project");
        assert_eq!(normalize_under("/home/me/project/crates/a/src/lib.rs:3:9", root), "crates/a/src/lib.rs:3:9");
        assert_eq!(normalize_under("/home/me/projectile/src/lib.rs", root), "/home/me/projectile/src/lib.rs");
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("repo/crates/parser/fuzz");
        std::fs::create_dir_all(&nested).unwrap();
        assert_eq!(project_root(&nested, None), None);
        assert_eq!(project_root(&nested, Some(dir.path())).as_deref(), Some(dir.path()));
        std::fs::create_dir(dir.path().join("repo/.git")).unwrap();
        assert_eq!(project_root(&nested, None), Some(dir.path().join("repo")));
    }

    /// GitLab CI caches only paths inside the project, so `CARGO_HOME` is
    /// often `$CI_PROJECT_DIR/.cargo`: a registry crate there still reads by
    /// name and version, as with `CARGO_HOME` anywhere else.
    #[test]
    fn a_dependency_reads_the_same_wherever_cargo_home_is() {
        let root = Some("/builds/group/project");
        let file = "index.crates.io-1949cf8c6b5b557f/url-2.2.0/src/path_segments.rs:126:34";
        for home in ["/builds/group/project/.cargo", "/builds/group/project/cargo-home", "/root/.cargo", "/cache"] {
            assert_eq!(
                normalize_under(&format!("{home}/registry/src/{file}"), root),
                "url-2.2.0/src/path_segments.rs:126:34",
                "{home}"
            );
        }
        // Under the fuzz workspace's remapping the registry reads relative.
        assert_eq!(normalize_under(&format!("registry/src/{file}"), root), "url-2.2.0/src/path_segments.rs:126:34");
        assert_eq!(
            normalize_under(&format!(".cargo/registry/src/{file}"), root),
            "url-2.2.0/src/path_segments.rs:126:34"
        );
        let git = "/builds/group/project/.cargo/git/checkouts/regex-1a2b3c4d5e6f7a8b/abc1234/src/lib.rs";
        assert_eq!(normalize_under(git, root), "regex@abc1234/src/lib.rs");
        assert_eq!(normalize_under("/builds/group/project/src/lib.rs", root), "src/lib.rs");
        let toolchain = "/builds/group/project/.rustup/toolchains/stable/lib/rustlib/src/rust/library/core/src/x.rs";
        assert_eq!(normalize_under(toolchain, root), "core/src/x.rs");
    }

    #[test]
    fn the_fuzzing_machinery_is_told_by_its_crate_directory() {
        assert!(is_fuzzing_machinery("/h/.cargo/registry/src/i-1/arbitrary-1.4.2/src/lib.rs:5:5"));
        assert!(is_fuzzing_machinery("target/minimize-crash/p-1/libfuzzer-sys-0.4.13/src/lib.rs:277:60"));
        assert!(is_fuzzing_machinery("/h/.cargo/registry/src/x/arbitrary/src/lib.rs"));
        assert!(!is_fuzzing_machinery("fuzz_targets/arbitrary.rs:3:1"));
        assert!(!is_fuzzing_machinery("crates/arbitrary_ext/src/lib.rs"));
    }

    #[test]
    fn the_projects_own_paths_are_left_as_they_are() {
        assert_eq!(normalize("fuzz_targets/tlv.rs:12:5"), "fuzz_targets/tlv.rs:12:5");
        assert_eq!(normalize("/home/me/project/src/lib.rs:3:9"), "/home/me/project/src/lib.rs:3:9");
        assert!(matches!(normalize("src/lib.rs"), Cow::Borrowed(_)));
    }
}
