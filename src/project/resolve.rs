//! The lockfile a harness is built from (the user's, or one resolved in the scratch directory when they have none) and where cargo keeps a locked package's source.
//!
//! Libraries rarely commit `fuzz/Cargo.lock`. Without one, the versions the
//! stand-ins copy must still be known before the build: `cargo metadata` on
//! the unpatched scratch copy of the workspace (the *probe*) resolves them
//! as `cargo fuzz build` would, writes the lockfile there (never in the
//! user's tree) and downloads every package's source. Later runs find that
//! lockfile again, so cargo resolves only what changed.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use anyhow::anyhow;

use super::cargo::{cargo_command, cargo_metadata};
use super::inject::standin::{self, LockedPackage};
use super::locate::FuzzProject;
use super::scratch::{write_workspace, Layout};
use super::ProjectError;

/// Finds the locked packages' sources for one harness build; `cargo metadata`
/// runs at most once (on the probe), and only when it is needed.
#[derive(Debug)]
pub struct Sources<'a> {
    project: &'a FuzzProject,
    layout: &'a Layout,
    cargo: &'a OsStr,
    host: &'a str,
    metadata: Option<serde_json::Value>,
}

impl<'a> Sources<'a> {
    /// Sources for `project`, probing (when needed) in `layout`'s probe directory.
    pub fn new(project: &'a FuzzProject, layout: &'a Layout, cargo: &'a OsStr, host: &'a str) -> Self {
        Sources { project, layout, cargo, host, metadata: None }
    }

    /// The lockfile to build from: the user's, else the probe's (resolved now,
    /// or kept from an earlier run and brought up to date by cargo).
    pub fn lockfile(&mut self) -> Result<PathBuf, ProjectError> {
        let user = self.project.lockfile();
        if user.is_file() {
            return Ok(user);
        }
        self.metadata()?;
        let resolved = self.layout.probe_dir().join("Cargo.lock");
        if !resolved.is_file() {
            return Err(anyhow!("`cargo metadata` wrote no lockfile in {}", self.layout.probe_dir().display()).into());
        }
        Ok(resolved)
    }

    /// The unpacked source of `name` at `version` (any version when `None`,
    /// which must then be the only one): cargo's registry cache when `locked`
    /// is a crates.io package found there, else what `cargo metadata` (which
    /// downloads it) says.
    pub fn source(
        &mut self,
        name: &str,
        locked: Option<&LockedPackage>,
    ) -> Result<(LockedPackage, PathBuf), ProjectError> {
        let from_crates_io =
            locked.filter(|l| standin::patch_key(name, l.source.as_deref()).as_deref() == Ok("crates-io"));
        let cached = from_crates_io
            .and_then(|l| Some((l.clone(), standin::registry_source_of(&standin::cargo_home()?, name, &l.version)?)));
        if let Some(found) = cached {
            return Ok(found);
        }
        self.in_metadata(name, locked.map(|l| l.version.as_str()))
    }

    /// The package `name` (at `version`) in the probe's metadata.
    fn in_metadata(&mut self, name: &str, version: Option<&str>) -> Result<(LockedPackage, PathBuf), ProjectError> {
        let fuzz_dir = self.project.fuzz_dir.clone();
        let metadata = self.metadata()?;
        let candidates: Vec<&serde_json::Value> = metadata["packages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| p["name"] == name)
            .filter(|p| version.map_or(true, |v| p["version"] == v))
            .collect();
        let [package] = candidates[..] else {
            let reason = if candidates.is_empty() {
                format!(
                    "its dependencies do not include {name}{}",
                    version.map(|v| format!(" {v}")).unwrap_or_default()
                )
            } else {
                format!("it depends on several versions of {name}")
            };
            return Err(ProjectError::Unsupported { fuzz_dir, reason });
        };
        let manifest_path =
            package["manifest_path"].as_str().ok_or_else(|| anyhow!("cargo metadata: no manifest_path"))?;
        let locked = LockedPackage {
            name: name.to_string(),
            version: package["version"].as_str().unwrap_or_default().to_string(),
            source: package["source"].as_str().map(str::to_string),
        };
        let dir = Path::new(manifest_path).parent().expect("a manifest is in a directory").to_path_buf();
        Ok((locked, dir))
    }

    /// `cargo metadata` of the unpatched scratch workspace, run once.
    fn metadata(&mut self) -> Result<&serde_json::Value, ProjectError> {
        if self.metadata.is_none() {
            let user = Some(self.project.lockfile()).filter(|lock| lock.is_file());
            let manifest = write_workspace(self.project, &self.layout.probe_dir(), &[], user.as_deref())?;
            let mut command = cargo_command(self.cargo, self.project);
            command.args(["metadata", "--format-version", "1", "--filter-platform", self.host, "--manifest-path"]);
            command.arg(&manifest);
            self.metadata = Some(cargo_metadata(command)?.1);
        }
        Ok(self.metadata.as_ref().expect("just set"))
    }
}
