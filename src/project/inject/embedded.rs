//! The fork-server runtime and the protocol crate it depends on, compiled into this binary and written into the scratch directory, so that an installed cargo-minimize-crash builds harnesses without its source checkout.
//!
//! `cargo package` leaves out every directory that has a `Cargo.toml` of its
//! own (a nested package), even when `include` names it, so `crates/runtime`
//! and `crates/protocol` would not travel in the package. `embedded/<crate>/src`
//! and `embedded/<crate>/manifest.toml` are symlinks to their sources and
//! manifests, inside the main package and without a `Cargo.toml` beside them:
//! the package carries those files and this module includes them with
//! `include_str!`, so the copy written out is the workspace crates' own
//! source, not a second one to keep in step. (The main crate compiles the
//! protocol's files as its `protocol` module for the same reason.)
//!
//! Written layout (files rewritten only when their contents change, so a no-op
//! harness rebuild stays a no-op):
//!
//! ```text
//! <scratch>/crates/protocol/Cargo.toml, src/*.rs   cargo-minimize-crash-protocol
//! <scratch>/crates/runtime/Cargo.toml, src/*.rs    cargo-minimize-crash-runtime (path dependency ../protocol)
//! ```
//!
//! The runtime keeps `crates/runtime/src/` in its path, which is how the
//! signature tells its frames from the user's code (`trace::parse`).

use std::path::{Path, PathBuf};

use anyhow::Context;
use toml_edit::DocumentMut;

use crate::project::files::write_if_changed;
use crate::project::ProjectError;

/// One crate compiled into this binary: its directory name under
/// `<scratch>/crates/`, its manifest and its `src/` files.
#[derive(Debug)]
pub struct EmbeddedCrate {
    /// The directory name, as under `crates/` in the repository.
    pub dir: &'static str,
    /// The workspace crate's `Cargo.toml`, as written in the repository.
    pub manifest: &'static str,
    /// Every file of its `src/` directory: name and contents.
    pub files: &'static [(&'static str, &'static str)],
}

/// `(name, contents)` for each named file of `embedded/<krate>/src/`.
macro_rules! sources {
    ($krate:literal: $($file:literal),+ $(,)?) => {
        &[$(($file, include_str!(concat!("../../../embedded/", $krate, "/src/", $file)))),+]
    };
}

/// `cargo-minimize-crash-protocol` (`cmc_protocol`): the wire format, no dependencies.
pub const PROTOCOL: EmbeddedCrate = EmbeddedCrate {
    dir: "protocol",
    manifest: include_str!("../../../embedded/protocol/manifest.toml"),
    files: sources!("protocol": "lib.rs", "known.rs", "layout.rs", "message.rs", "shm.rs", "start.rs"),
};

/// `cargo-minimize-crash-runtime` (`cmc_runtime`): the fork server, on libc and the protocol.
pub const RUNTIME: EmbeddedCrate = EmbeddedCrate {
    dir: "runtime",
    manifest: include_str!("../../../embedded/runtime/manifest.toml"),
    files: sources!(
        "runtime": "lib.rs", "calls.rs", "child.rs", "coverage.rs", "examples.rs", "replay.rs", "server.rs", "shared.rs", "signals.rs",
        "values.rs"
    ),
};

/// Writes the protocol and the runtime under `<scratch>/crates/` and returns
/// the runtime's directory, for the stand-ins' path dependency.
pub fn write_runtime(scratch: &Path) -> Result<PathBuf, ProjectError> {
    let crates = scratch.join("crates");
    for embedded in [&PROTOCOL, &RUNTIME] {
        write_crate(embedded, &crates.join(embedded.dir))?;
    }
    Ok(crates.join(RUNTIME.dir))
}

/// Writes one crate's manifest (see [`standalone_manifest`]) and sources into `dir`.
fn write_crate(embedded: &EmbeddedCrate, dir: &Path) -> Result<(), ProjectError> {
    write_if_changed(&dir.join("Cargo.toml"), standalone_manifest(embedded)?.as_bytes())?;
    for (name, contents) in embedded.files {
        write_if_changed(&dir.join("src").join(name), contents.as_bytes())?;
    }
    Ok(())
}

/// The crate's manifest without what it takes from our workspace (`[lints]`):
/// the written copy belongs to no workspace. Its path dependency on the
/// protocol (`../protocol`) holds as written.
pub fn standalone_manifest(embedded: &EmbeddedCrate) -> Result<String, ProjectError> {
    let mut manifest: DocumentMut = embedded.manifest.parse().with_context(|| {
        format!("the manifest of crates/{} in this binary does not parse: reinstall cargo-minimize-crash", embedded.dir)
    })?;
    manifest.remove("lints");
    Ok(manifest.to_string())
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::process::Command;

    use super::*;

    fn repo() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    }

    #[test]
    fn the_embedded_crates_are_the_workspace_crates_file_for_file() {
        for embedded in [&PROTOCOL, &RUNTIME] {
            let src = repo().join("crates").join(embedded.dir).join("src");
            let mut on_disk: Vec<String> =
                fs::read_dir(&src).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
            on_disk.sort();
            let mut listed: Vec<String> = embedded.files.iter().map(|(name, _)| name.to_string()).collect();
            listed.sort();
            assert_eq!(listed, on_disk, "list every file of {} in {}'s `sources!`", src.display(), file!());
            for (name, contents) in embedded.files {
                assert_eq!(
                    *contents,
                    fs::read_to_string(src.join(name)).unwrap(),
                    "{name} differs from {}",
                    src.display()
                );
            }
            let manifest = repo().join("crates").join(embedded.dir).join("Cargo.toml");
            assert_eq!(embedded.manifest, fs::read_to_string(&manifest).unwrap(), "{} differs", manifest.display());
        }
    }

    #[test]
    fn the_written_manifests_take_nothing_from_a_workspace() {
        for embedded in [&PROTOCOL, &RUNTIME] {
            let manifest = standalone_manifest(embedded).unwrap();
            assert!(!manifest.contains("workspace"), "crates/{}: {manifest}", embedded.dir);
        }
        let runtime: DocumentMut = standalone_manifest(&RUNTIME).unwrap().parse().unwrap();
        let protocol: DocumentMut = PROTOCOL.manifest.parse().unwrap();
        let dependency = &runtime["dependencies"][protocol["package"]["name"].as_str().unwrap()];
        assert_eq!(dependency["path"].as_str(), Some("../protocol"), "{runtime}");
    }

    #[test]
    fn the_written_runtime_is_a_package_cargo_reads_and_a_rewrite_touches_nothing() {
        let scratch = tempfile::tempdir().unwrap();
        let runtime = write_runtime(scratch.path()).unwrap();
        assert_eq!(runtime, scratch.path().join("crates/runtime"));
        let lib = runtime.join("src/lib.rs");
        let written = fs::metadata(&lib).unwrap().modified().unwrap();

        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let output = Command::new(cargo)
            .args(["metadata", "--format-version", "1", "--no-deps", "--offline", "--manifest-path"])
            .arg(runtime.join("Cargo.toml"))
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(metadata["packages"][0]["name"], "cargo-minimize-crash-runtime", "{metadata:#}");

        write_runtime(scratch.path()).unwrap();
        assert_eq!(fs::metadata(&lib).unwrap().modified().unwrap(), written, "an unchanged file was rewritten");
        fs::write(&lib, "edited").unwrap();
        write_runtime(scratch.path()).unwrap();
        assert_eq!(fs::read_to_string(&lib).unwrap(), RUNTIME.files[0].1);
    }
}
