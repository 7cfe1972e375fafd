//! The manifests of a library-shaped project the benches write (shared through `#[path]`): a crate at the root and its cargo-fuzz crate in `fuzz/`, a workspace of its own with one target, no lockfile.

/// The root crate's `Cargo.toml` (`fuzz/` left out of its workspace).
pub(crate) fn crate_manifest(name: &str) -> String {
    format!(
        "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\nexclude = [\"fuzz\"]\n"
    )
}

/// `fuzz/Cargo.toml`: `libfuzzer-sys` and the `dependency` line, one bin `target` at `fuzz_targets/<target>.rs`.
pub(crate) fn fuzz_manifest(name: &str, dependency: &str, target: &str) -> String {
    format!(
        "[package]\nname = \"{name}-fuzz\"\nversion = \"0.0.0\"\npublish = false\nedition = \"2021\"\n\n\
         [package.metadata]\ncargo-fuzz = true\n\n[dependencies]\nlibfuzzer-sys = \"0.4\"\n{dependency}\n\n\
         [workspace]\nmembers = [\".\"]\n\n\
         [[bin]]\nname = \"{target}\"\npath = \"fuzz_targets/{target}.rs\"\ntest = false\ndoc = false\nbench = false\n"
    )
}
