//! Running cargo for the user's project: which `cargo`, a command in the project, `cargo metadata`'s JSON, the host triple and the directories `cargo fuzz build` uses.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{anyhow, Context};

use super::locate::FuzzProject;
use super::ProjectError;

/// Runs a `cargo metadata` command: its command line (for messages) and its JSON.
pub(crate) fn cargo_metadata(mut command: Command) -> Result<(String, serde_json::Value), ProjectError> {
    let line = command_line(&command);
    let output = command.output().with_context(|| format!("cannot run `{line}`"))?;
    if !output.status.success() {
        return Err(ProjectError::Cargo {
            command: line,
            status: output.status,
            output: String::from_utf8_lossy(&output.stderr).into_owned(),
        });
    }
    let metadata =
        serde_json::from_slice(&output.stdout).with_context(|| format!("`{line}` printed something unexpected"))?;
    Ok((line, metadata))
}

/// Where `cargo fuzz build` puts what it builds for a project.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CargoDirs {
    /// The target directory: the binaries (`<dir>/<host>/<profile>/<target>`).
    pub target_dir: PathBuf,
    /// The build directory (the intermediate files), when this cargo can
    /// share one with another target directory (`build.build-dir`, cargo 1.91 on).
    pub build_dir: Option<PathBuf>,
}

/// The fuzz project's cargo directories as `cargo fuzz build` uses them (it
/// honours `CARGO_TARGET_DIR`, `build.target-dir` and `build.build-dir`), or
/// `target_dir` for both when the user gave one (`--target-dir`).
pub(crate) fn cargo_dirs(
    project: &FuzzProject,
    cargo: &OsStr,
    target_dir: Option<&Path>,
) -> Result<CargoDirs, ProjectError> {
    let mut command = cargo_command(cargo, project);
    command.args(["metadata", "--no-deps", "--format-version", "1", "--manifest-path"]).arg(&project.manifest_path);
    let (line, metadata) = cargo_metadata(command)?;
    let found = metadata["target_directory"].as_str().ok_or_else(|| anyhow!("`{line}`: no target_directory"))?;
    let build_dir = metadata["build_directory"].as_str().map(PathBuf::from);
    Ok(match target_dir {
        Some(dir) => CargoDirs { target_dir: dir.to_path_buf(), build_dir: build_dir.map(|_| dir.to_path_buf()) },
        None => CargoDirs { target_dir: PathBuf::from(found), build_dir },
    })
}

/// The host triple, from the rustc cargo would run here, and whether that
/// rustc needs `RUSTC_BOOTSTRAP=1` for `-Z` flags ([`needs_bootstrap`]).
pub(crate) fn host_triple(project: &FuzzProject) -> Result<(String, bool), ProjectError> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(&rustc)
        .arg("-vV")
        .current_dir(&project.cwd)
        .output()
        .with_context(|| format!("cannot run `{} -vV`", rustc.to_string_lossy()))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let host = text.lines().find_map(|l| l.strip_prefix("host: "));
    let host = host.ok_or_else(|| anyhow!("`{} -vV` printed no host triple", rustc.to_string_lossy()))?;
    let version = text.lines().next().unwrap_or_default().trim_start_matches("rustc ");
    Ok((host.trim().to_string(), needs_bootstrap(version)))
}

/// Whether the rustc of this version (`1.95.0 (...)`, `1.97.0-nightly
/// (...)`) takes `-Z` flags (`-Zsanitizer`) only with `RUSTC_BOOTSTRAP=1`:
/// any but a nightly. A user's `cargo fuzz build` with a sanitizer there
/// must have had it; the crash harness and the cross-check set it as that
/// build had it (decision 0066), on a nightly never.
pub(crate) fn needs_bootstrap(version: &str) -> bool {
    !version.contains("-nightly") && !version.contains("-dev")
}

/// `$CARGO` (set when we run as `cargo minimize-crash`), else `cargo`.
pub(crate) fn cargo_program() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// cargo, run where `cargo fuzz` would run it: in the user's working
/// directory, so the same `.cargo/config.toml` files and toolchain apply.
pub(crate) fn cargo_command(cargo: &OsStr, project: &FuzzProject) -> Command {
    let mut command = Command::new(cargo);
    command.current_dir(&project.cwd);
    command
}

pub(crate) fn command_line(command: &Command) -> String {
    let mut words = vec![command.get_program().to_string_lossy().into_owned()];
    words.extend(command.get_args().map(|a| a.to_string_lossy().into_owned()));
    shell_words::join(words)
}

#[cfg(test)]
mod tests {
    use super::needs_bootstrap;

    #[test]
    fn only_a_nightly_builds_without_rustc_bootstrap() {
        assert!(needs_bootstrap("1.95.0 (f2d3ce0bd 2026-03-21)"));
        assert!(needs_bootstrap("1.96.0-beta.3 (0123abcd 2026-04-30)"));
        assert!(!needs_bootstrap("1.97.0-nightly (e50aa6fba 2026-05-19)"));
        assert!(!needs_bootstrap("1.97.0-dev"));
    }
}
