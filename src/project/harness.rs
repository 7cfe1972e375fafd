//! Build the harness: prepare the stand-in and the scratch workspace, run `cargo build` with cargo-fuzz's flags, report compile errors as a typed error, check that the patch was taken.
//!
//! Over 600 lines with its unit tests (about 335 of code): the tests build real scratch workspaces and belong with the build they check.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context};
use toml_edit::Item;

use super::cargo::{cargo_command, cargo_dirs, cargo_program, command_line, host_triple};
use super::flags::{cargo_build_args, encoded_rustflags, variant_target_dir, BuildOptions, Sanitizer};
use super::inject::arbitrary_shim::{self, Support, ARBITRARY};
use super::inject::embedded;
use super::inject::standin::{self, Patch, LIBFUZZER_SYS};
use super::locate::{read_toml, FuzzProject};
use super::resolve::Sources;
use super::scratch::{default_scratch_dir, write_workspace, Layout};
use super::ProjectError;

/// A built harness.
#[derive(Clone, Debug)]
pub struct Harness {
    /// The executable.
    pub binary: PathBuf,
    /// The fuzz target it runs.
    pub target: String,
    /// The scratch directory it was built in.
    pub scratch_dir: PathBuf,
    /// The `libfuzzer-sys` version the stand-in copies.
    pub libfuzzer_sys: String,
    /// Whether typed inputs' structure is recorded, and if not, why.
    pub structure: Structure,
    /// The host triple it was built for.
    pub host: String,
    /// The target directory `cargo fuzz build` uses for the project (where
    /// its binaries are: `<dir>/<host>/<profile>/<target>`).
    pub cargo_target_dir: PathBuf,
    /// How long preparing and building took.
    pub duration: Duration,
}

/// Builds the harness binary for `target` of `project`: the user's fuzz crate
/// with `libfuzzer-sys` replaced by the stand-in whose `main` is the runtime's
/// fork server. Nothing under the user's project is written except the scratch
/// directory (by default inside the project's cargo target directory).
pub fn build_harness(project: &FuzzProject, target: &str, options: &BuildOptions) -> Result<Harness, ProjectError> {
    let start = Instant::now();
    project.target(target)?;
    let cargo = cargo_program();
    // `rustc -vV` and `cargo metadata` at once: each takes tens of milliseconds of every run.
    let (host, dirs) = std::thread::scope(|scope| {
        let dirs = scope.spawn(|| cargo_dirs(project, &cargo, options.cargo_target_dir.as_deref()));
        (host_triple(project), dirs.join().expect("the thread asking cargo for the target directory panicked"))
    });
    let ((host, not_nightly), dirs) = (host?, dirs?);
    let scratch = options.scratch_dir.clone().unwrap_or_else(|| default_scratch_dir(project, &dirs.target_dir));
    let layout = Layout::new(scratch);
    let prepared = prepare_workspace(project, &layout, &cargo, &host)?;
    let target_dir = variant_target_dir(options.target_dir.clone().unwrap_or_else(|| layout.target_dir()), options);
    // cargo keeps RUSTFLAGS out of file names: a coverage build sharing the
    // crash build's directory would replace its files at every run (0066).
    let shared = dirs.build_dir.as_deref().filter(|_| !options.coverage);
    let bootstrap = not_nightly && needs_zflags(options);
    let build = CargoBuild {
        cargo: &cargo,
        project,
        target,
        host: &host,
        manifest: &prepared.manifest,
        target_dir: &target_dir,
        shared,
        bootstrap,
        options,
    };
    let built = run_build(build_command(&build), target, options.echo)?;
    let mut checked = vec![(LIBFUZZER_SYS, None)];
    checked.extend(prepared.arbitrary.as_deref().map(|version| (ARBITRARY, Some(version))));
    check_patch_taken(&layout.harness_dir().join("Cargo.lock"), &checked)?;
    if !built.is_file() {
        return Err(anyhow!("cargo reported {} but it is not there", built.display()).into());
    }
    Ok(Harness {
        binary: built,
        target: target.to_string(),
        scratch_dir: layout.root.clone(),
        libfuzzer_sys: prepared.libfuzzer_sys,
        structure: prepared.structure,
        host,
        cargo_target_dir: dirs.target_dir,
        duration: start.elapsed(),
    })
}

/// Whether a build on a compiler that is not a nightly sets
/// `RUSTC_BOOTSTRAP=1`: when it takes `-Z` flags (a sanitizer), as the
/// cross-check's `cargo fuzz build` with the same sanitizer does. Otherwise
/// it is left as inherited: proc-macro2's build script reruns when it
/// changes, crates' build scripts probe it for nightly features (their
/// code and coverage change), and a harness built one way then the other
/// is another binary, whose batch results an earlier run does not find.
/// Decided by the options alone (decision 0066).
fn needs_zflags(options: &BuildOptions) -> bool {
    options.flags.sanitizer != Sanitizer::None
}

/// The scratch workspace, written: its manifest, and what went into it.
struct Prepared {
    manifest: PathBuf,
    libfuzzer_sys: String,
    arbitrary: Option<String>,
    structure: Structure,
}

/// Writes the runtime, the stand-ins and the scratch workspace that patches them in.
fn prepare_workspace(
    project: &FuzzProject,
    layout: &Layout,
    cargo: &OsStr,
    host: &str,
) -> Result<Prepared, ProjectError> {
    // The runtime compiled into this binary, not a checkout's: an installed copy has none.
    let runtime = embedded::write_runtime(&layout.root)?;
    let mut sources = Sources::new(project, layout, cargo, host);
    let lockfile = sources.lockfile()?;
    let lock = read_toml(&lockfile)?;
    let (standin, patch) = prepare_standin(project, layout, &mut sources, &lock, &runtime)?;
    let mut patches = vec![patch];
    let (shim, structure) = prepare_arbitrary_shim(layout, &mut sources, &lock, &runtime);
    let arbitrary = shim.map(|(patch, version)| {
        patches.push(patch);
        version
    });
    let manifest = write_workspace(project, &layout.harness_dir(), &patches, Some(&lockfile))?;
    Ok(Prepared { manifest, libfuzzer_sys: standin.version, arbitrary, structure })
}

/// `cargo build` of the scratch workspace `manifest` for `target` on `host`,
/// its artifacts in `target_dir` and, when `shared` names one, its
/// intermediate files in the build directory `cargo fuzz build` uses: what
/// both compile alike (build scripts and proc macros at least) is compiled
/// once (the crash build's and `cargo fuzz build`'s files get different
/// names; a coverage build's would not, so it never shares: decision 0066).
struct CargoBuild<'a> {
    /// The program: `$CARGO` or `cargo`.
    cargo: &'a OsStr,
    /// The user's fuzz project.
    project: &'a FuzzProject,
    /// The fuzz target (the bin built).
    target: &'a str,
    /// The host triple (`--target`).
    host: &'a str,
    /// The scratch workspace's manifest.
    manifest: &'a Path,
    /// Where the artifacts go.
    target_dir: &'a Path,
    /// The build directory shared with `cargo fuzz build`, if any.
    shared: Option<&'a Path>,
    /// Whether it sets `RUSTC_BOOTSTRAP=1` ([`needs_zflags`]).
    bootstrap: bool,
    /// The user's build options.
    options: &'a BuildOptions,
}

/// The [`CargoBuild`] command, with its flags and environment.
fn build_command(build: &CargoBuild<'_>) -> Command {
    let CargoBuild { cargo, project, target, host, manifest, target_dir, shared, bootstrap, options } = *build;
    let flags = &options.flags;
    let mut command = cargo_command(cargo, project);
    command.arg("build").arg("--manifest-path").arg(manifest);
    // Like cargo-fuzz: --target keeps RUSTFLAGS off build scripts and proc macros.
    command.arg("--target").arg(host);
    command.args(cargo_build_args(flags));
    command.arg("--bin").arg(target).arg("--target-dir").arg(target_dir);
    if let Some(build_dir) = shared {
        let value = toml_edit::Value::from(build_dir.to_string_lossy().into_owned());
        command.arg("--config").arg(format!("build.build-dir={value}"));
    }
    command.arg("--message-format=json");
    let harness_dir = manifest.parent().expect("a manifest is in a directory");
    command.env_remove("RUSTFLAGS").env("CARGO_ENCODED_RUSTFLAGS", encoded_rustflags(project, options, harness_dir));
    if let Some(wrapper) = options.rustc_wrapper.as_deref().filter(|_| options.coverage) {
        command.envs(super::wrapper::cargo_env(wrapper));
    }
    if bootstrap {
        // `-Zsanitizer` is unstable: stable rustc takes it with RUSTC_BOOTSTRAP=1, as the user's build had it.
        command.env("RUSTC_BOOTSTRAP", "1");
    }
    command
}

/// Runs `cargo build` with JSON messages: the bin's path from its artifact
/// message, rustc's errors from the diagnostics, cargo's stderr kept (and
/// echoed if asked) for other failures.
fn run_build(mut command: Command, target: &str, echo: bool) -> Result<PathBuf, ProjectError> {
    let line = command_line(&command);
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot run `{line}`"))?;
    let stderr = child.stderr.take().expect("piped");
    let stderr_reader = std::thread::spawn(move || {
        let mut kept = Vec::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if echo {
                eprintln!("{line}");
            }
            kept.push(line);
        }
        kept
    });
    let mut executable = None;
    let mut errors = Vec::new();
    let stdout = child.stdout.take().expect("piped");
    for message in BufReader::new(stdout).lines().map_while(Result::ok) {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(&message) else { continue };
        match message["reason"].as_str() {
            Some("compiler-artifact") => {
                let is_bin = message["target"]["kind"].as_array().is_some_and(|k| k.iter().any(|k| k == "bin"));
                if is_bin && message["target"]["name"] == target {
                    if let Some(path) = message["executable"].as_str() {
                        executable = Some(PathBuf::from(path));
                    }
                }
            }
            Some("compiler-message") => {
                let diagnostic = &message["message"];
                if diagnostic["level"].as_str().is_some_and(|l| l.starts_with("error")) {
                    if let Some(rendered) = diagnostic["rendered"].as_str() {
                        if echo {
                            eprint!("{rendered}");
                        }
                        errors.push(rendered.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    let status = child.wait().with_context(|| format!("cannot wait for `{line}`"))?;
    let stderr = stderr_reader.join().unwrap_or_default();
    if !status.success() {
        if !errors.is_empty() {
            return Err(ProjectError::Compile { target: target.to_string(), diagnostics: errors.concat() });
        }
        return Err(ProjectError::Cargo { command: line, status, output: stderr.join("\n") });
    }
    executable.ok_or_else(|| anyhow!("`{line}` succeeded but reported no executable for `{target}`").into())
}

/// The stand-in for the locked `libfuzzer-sys`, written into the scratch
/// directory, and the `[patch]` that selects it.
fn prepare_standin(
    project: &FuzzProject,
    layout: &Layout,
    sources: &mut Sources<'_>,
    lock: &toml_edit::DocumentMut,
    runtime: &Path,
) -> Result<(standin::StandIn, Patch), ProjectError> {
    let locked = standin::locked_libfuzzer_sys(lock, &project.package);
    let (locked, source) = sources.source(LIBFUZZER_SYS, locked.as_ref())?;
    let key = standin::patch_key(LIBFUZZER_SYS, locked.source.as_deref())
        .map_err(|reason| ProjectError::Unsupported { fuzz_dir: project.fuzz_dir.clone(), reason })?;
    let standin = standin::write_standin(&source, &layout.standin_dir(&locked.version), runtime)?;
    let patch = Patch { name: LIBFUZZER_SYS.to_string(), source_key: key, path: standin.dir.clone() };
    Ok((standin, patch))
}

/// Whether a harness records the structure of typed inputs (what `arbitrary` read, and where).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Structure {
    /// The `arbitrary` stand-in at this version records derived values, and
    /// every primitive read too when `draws`.
    Recorded {
        /// The locked `arbitrary` version it wraps.
        arbitrary: String,
        /// Whether primitive reads are recorded as draws.
        draws: bool,
    },
    /// Nothing is recorded: why.
    Off(String),
}

impl Structure {
    /// Why not everything is recorded; `None` when it is.
    pub fn reason(&self) -> Option<String> {
        match self {
            Structure::Recorded { draws: true, .. } => None,
            Structure::Recorded { arbitrary, draws: false } => {
                Some(format!("arbitrary {arbitrary}'s `Unstructured` is not of the form 1.4.2 to 1.5.x have"))
            }
            Structure::Off(reason) => Some(reason.clone()),
        }
    }

    /// What a user loses when structure is off, for the one line that says so.
    pub fn warning(&self) -> Option<String> {
        let reason = self.reason()?;
        Some(match self {
            Structure::Recorded { .. } => format!(
                "typed inputs' primitive reads will not be recorded: {reason}; values are reduced as bytes (results \
                 can be larger, numbers and strings less simple)"
            ),
            Structure::Off(_) => format!(
                "typed inputs will be reduced as bytes, without their structure (results can be larger, numbers \
                 and strings less simple): {reason}"
            ),
        })
    }
}

/// The `[patch]` for the `arbitrary` stand-in and the locked version it
/// wraps, when that version has the hooks; otherwise why not, and the
/// harness is built without it.
fn prepare_arbitrary_shim(
    layout: &Layout,
    sources: &mut Sources<'_>,
    lock: &toml_edit::DocumentMut,
    runtime: &Path,
) -> (Option<(Patch, String)>, Structure) {
    match arbitrary_shim_patch(layout, sources, lock, runtime) {
        Ok(Some((patch, shim))) => {
            let structure = Structure::Recorded { arbitrary: shim.version.clone(), draws: shim.draws };
            (Some((patch, shim.version)), structure)
        }
        Ok(None) => (None, Structure::Off(format!("the fuzz crate does not depend on {ARBITRARY}"))),
        Err(reason) => (None, Structure::Off(reason)),
    }
}

fn arbitrary_shim_patch(
    layout: &Layout,
    sources: &mut Sources<'_>,
    lock: &toml_edit::DocumentMut,
    runtime: &Path,
) -> Result<Option<(Patch, arbitrary_shim::ArbitraryShim)>, String> {
    let locked = match arbitrary_shim::support(lock) {
        Support::Hooked(locked) => locked,
        Support::NotUsed => return Ok(None),
        Support::Unsupported(reason) => return Err(reason),
    };
    let key = standin::patch_key(ARBITRARY, locked.source.as_deref())?;
    if key != "crates-io" {
        return Err(format!("{ARBITRARY} {} comes from another registry than crates.io", locked.version));
    }
    let (_, source) = sources.source(ARBITRARY, Some(&locked)).map_err(|e| e.to_string())?;
    let shim = arbitrary_shim::write_shim(&source, &layout.root, runtime).map_err(|e| e.to_string())?;
    Ok(Some((Patch { name: ARBITRARY.to_string(), source_key: key, path: shim.dir.clone() }, shim)))
}

/// Fails unless every patched package in the scratch lockfile (each name,
/// at the given version or any) is the path (patched) one: a version mismatch
/// makes cargo ignore a patch with only a warning, and the real libFuzzer (or
/// the real `arbitrary`) would be linked.
fn check_patch_taken(lockfile: &Path, patched: &[(&str, Option<&str>)]) -> Result<(), ProjectError> {
    let lock = read_toml(lockfile)?;
    let packages = lock.get("package").and_then(Item::as_array_of_tables);
    for package in packages.into_iter().flatten() {
        let name = package.get("name").and_then(Item::as_str).unwrap_or_default();
        let version = package.get("version").and_then(Item::as_str).unwrap_or_default();
        if patched.iter().any(|&(n, v)| n == name && v.map_or(true, |v| v == version)) {
            if let Some(source) = package.get("source").and_then(Item::as_str) {
                return Err(ProjectError::PatchNotUsed {
                    package: name.to_string(),
                    lockfile: lockfile.to_path_buf(),
                    source_id: source.to_string(),
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::fs;

    use super::*;
    use crate::project::cargo::CargoDirs;
    use crate::project::flags::{rustflags, BuildFlags, CALL_SITE_FLAGS, COVERAGE_FLAGS};

    #[test]
    fn rustc_bootstrap_follows_the_sanitizer_alone() {
        let mut address = BuildOptions::default();
        address.flags.sanitizer = Sanitizer::Address;
        assert!(needs_zflags(&address), "-Zsanitizer");
        assert!(!needs_zflags(&BuildOptions::default()), "as a `--sanitizer none` cargo fuzz build has it");
    }

    #[test]
    fn flags_follow_cargo_fuzz_for_each_mode() {
        let project = FuzzProject {
            fuzz_dir: "/p/fuzz".into(),
            manifest_path: "/p/fuzz/Cargo.toml".into(),
            package: "p-fuzz".into(),
            targets: Vec::new(),
            workspace_root: "/p/fuzz".into(),
            cwd: "/p".into(),
        };
        let with = |flags: BuildFlags| BuildOptions { flags, ..BuildOptions::default() };
        let default = rustflags(&project, &BuildOptions::default());
        let [sink, tail, frames] = CALL_SITE_FLAGS;
        assert_eq!(
            default,
            [
                "--cfg",
                "fuzzing",
                "-Cdebug-assertions",
                "-Ccodegen-units=1",
                sink,
                tail,
                frames,
                "--remap-path-prefix=/p/fuzz/="
            ]
        );
        let release = rustflags(&project, &with(BuildFlags { release: true, ..BuildFlags::default() }));
        assert!(!release.contains(&"-Cdebug-assertions".to_string()));
        let release_a =
            rustflags(&project, &with(BuildFlags { release: true, debug_assertions: true, ..BuildFlags::default() }));
        assert!(release_a.contains(&"-Cdebug-assertions".to_string()));
        let dev = rustflags(&project, &with(BuildFlags { dev: true, ..BuildFlags::default() }));
        assert!(dev.contains(&"-Cdebug-assertions".to_string()) && !dev.contains(&"-Ccodegen-units=1".to_string()));
        let asan = rustflags(&project, &with(BuildFlags { sanitizer: Sanitizer::Address, ..BuildFlags::default() }));
        assert!(asan.contains(&"-Zsanitizer=address".to_string()), "{asan:?}");
        assert!(!default.iter().any(|f| f.contains("sanitizer")));
        let coverage = rustflags(&project, &BuildOptions { coverage: true, ..BuildOptions::default() });
        assert_eq!(coverage[..6], COVERAGE_FLAGS, "cargo-fuzz's instrumentation first");
        let plain: Vec<&String> = default.iter().filter(|f| !CALL_SITE_FLAGS.contains(&f.as_str())).collect();
        assert!(coverage[6..].iter().rev().zip(plain.iter().rev()).all(|(a, b)| a == *b), "{coverage:?}");
        assert!(
            !coverage.iter().any(|f| CALL_SITE_FLAGS.contains(&f.as_str())),
            "a coverage build's edges are cargo fuzz's"
        );
        let stack_depth = coverage.iter().any(|f| f == "-Cllvm-args=-sanitizer-coverage-stack-depth");
        assert_eq!(stack_depth, cfg!(all(target_arch = "x86_64", target_os = "linux")));
    }

    /// The fork server's children and the cross-check's libFuzzer binary both
    /// leave their reports unsymbolized; only the fork server changes what
    /// else AddressSanitizer does, and a corpus shrink's candidates run
    /// without fake stacks. The user's options come last, so they win.
    #[test]
    fn address_sanitizer_reports_come_unsymbolized_and_the_users_options_last() {
        assert!(Sanitizer::None.runtime_env().is_empty() && Sanitizer::None.check_env().is_empty());
        let user = std::env::var("ASAN_OPTIONS").ok().filter(|o| !o.is_empty()).map(|o| format!(":{o}"));
        let with_user = |ours: &str| vec![("ASAN_OPTIONS", format!("{ours}{}", user.as_deref().unwrap_or("")))];
        assert_eq!(Sanitizer::Address.check_env(), with_user("symbolize=0"));
        let server = "symbolize=0:detect_leaks=0:malloc_context_size=5:detect_odr_violation=0";
        assert_eq!(Sanitizer::Address.runtime_env(), with_user(server));
        let candidates =
            format!("{server}:detect_stack_use_after_return=0:quarantine_size_mb=0:max_malloc_fill_size=0");
        assert_eq!(
            Sanitizer::Address.candidate_env(),
            with_user(&candidates),
            "no fake stacks, quarantine or fill; the user's last"
        );
        assert!(Sanitizer::None.candidate_env().is_empty());
    }

    #[test]
    fn each_build_variant_has_a_target_directory_of_its_own() {
        let dir = |coverage: bool, sanitizer: Sanitizer| {
            let options = BuildOptions {
                coverage,
                flags: BuildFlags { sanitizer, ..BuildFlags::default() },
                rustc_wrapper: Some(PathBuf::from("/bin/cargo-minimize-crash")),
                ..Default::default()
            };
            variant_target_dir(PathBuf::from("/t"), &options)
        };
        assert_eq!(dir(false, Sanitizer::None), Path::new("/t"));
        assert_eq!(dir(false, Sanitizer::Address), Path::new("/t/sanitizer-address"));
        assert_eq!(dir(true, Sanitizer::None), Path::new("/t/coverage"));
        assert_eq!(dir(true, Sanitizer::Address), Path::new("/t/coverage-sanitizer-address"));
        let unwrapped = BuildOptions { coverage: true, ..Default::default() };
        assert_eq!(variant_target_dir(PathBuf::from("/t"), &unwrapped), Path::new("/t/coverage-all"));
    }

    #[test]
    fn a_lockfile_with_a_registry_libfuzzer_sys_means_the_patch_was_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join("Cargo.lock");
        fs::write(&lock, "version = 4\n[[package]]\nname = \"libfuzzer-sys\"\nversion = \"0.4.13\"\n").unwrap();
        check_patch_taken(&lock, &[(LIBFUZZER_SYS, None)]).unwrap();
        fs::write(
            &lock,
            "version = 4\n[[package]]\nname = \"libfuzzer-sys\"\nversion = \"0.4.13\"\n\
             source = \"registry+https://github.com/rust-lang/crates.io-index\"\n",
        )
        .unwrap();
        let error = check_patch_taken(&lock, &[(LIBFUZZER_SYS, None)]).unwrap_err();
        assert!(matches!(error, ProjectError::PatchNotUsed { .. }), "{error}");
        // arbitrary: only the patched version counts (another major may come from the registry).
        fs::write(
            &lock,
            "version = 4\n[[package]]\nname = \"arbitrary\"\nversion = \"1.5.0\"\n\
             [[package]]\nname = \"arbitrary\"\nversion = \"1.5.0-real\"\n\
             [[package]]\nname = \"arbitrary\"\nversion = \"0.4.7\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n",
        )
        .unwrap();
        check_patch_taken(&lock, &[(LIBFUZZER_SYS, None), (ARBITRARY, Some("1.5.0"))]).unwrap();
        let error = check_patch_taken(&lock, &[(ARBITRARY, Some("0.4.7"))]).unwrap_err();
        assert!(error.to_string().contains("did not use the arbitrary stand-in"), "{error}");
    }

    #[test]
    fn the_default_scratch_dir_is_in_the_projects_own_target_dir() {
        let dir = tempfile::tempdir().unwrap();
        let fuzz = dir.path().join("fuzz");
        fs::create_dir_all(&fuzz).unwrap();
        fs::write(
            fuzz.join("Cargo.toml"),
            "[package]\nname = \"d-fuzz\"\nversion = \"0.0.0\"\n[package.metadata]\ncargo-fuzz = true\n\
             [workspace]\n[[bin]]\nname = \"t\"\npath = \"t.rs\"\n",
        )
        .unwrap();
        let project = FuzzProject::locate(Some(Path::new("fuzz")), dir.path()).unwrap();
        let dirs = cargo_dirs(&project, &cargo_program(), None).unwrap();
        let target_dir = dirs.target_dir.clone();
        // cargo may resolve symlinks in the temp dir's path; compare the tail.
        assert!(target_dir.ends_with("fuzz/target"), "{}", target_dir.display());
        // cargo 1.91 on reports a build directory, the same unless configured.
        assert_eq!(dirs.build_dir.as_deref(), Some(target_dir.as_path()), "this cargo can share one");
        let given = cargo_dirs(&project, &cargo_program(), Some(Path::new("/elsewhere"))).unwrap();
        let elsewhere = PathBuf::from("/elsewhere");
        assert_eq!(given, CargoDirs { target_dir: elsewhere.clone(), build_dir: Some(elsewhere) });
        assert!(!fuzz.join("Cargo.lock").exists(), "cargo metadata --no-deps must not write a lockfile");
    }

    // ---- End to end: real cargo builds (one of the sample project, one of a
    // broken project). They share the workspace's target directory, so only
    // the first `cargo test` pays the full build (~30 s on 2 cores).

    /// `<workspace target dir>/tmp/project-harness`, found from the test binary's path
    /// (`<target>/debug/deps/<test binary>`), outside the user's fuzz directory.
    fn shared_scratch(name: &str) -> PathBuf {
        let exe = std::env::current_exe().unwrap();
        let target = exe.ancestors().nth(3).unwrap();
        target.join("tmp/project-harness").join(name)
    }

    fn repo() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    }

    /// The crash file of `corpus-samples/<name>`.
    fn sample_crash(name: &str) -> PathBuf {
        fs::read_dir(repo().join("corpus-samples").join(name))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("crash-"))
            .unwrap()
    }

    /// A fork server on `binary` that has run `input` once.
    fn run_once(binary: &Path, input: &[u8]) -> crate::exec::forkserver::ForkServerExecutor {
        use crate::exec::Executor;
        let config = crate::exec::forkserver::ForkServerConfig::new(binary, Duration::from_secs(10));
        let mut executor =
            crate::exec::forkserver::ForkServerExecutor::start(config).unwrap_or_else(|e| panic!("{e:#}"));
        executor.run(input).unwrap();
        executor
    }

    /// Every file under `dir` (but cargo's and the fuzzer's output directories) with its hash and mtime.
    fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (String, std::time::SystemTime)> {
        let mut files = BTreeMap::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                if path.is_dir() {
                    if !["target", "corpus", "artifacts", "coverage"].contains(&name.as_str()) {
                        stack.push(path);
                    }
                } else {
                    let hash = sha1_smol::Sha1::from(fs::read(&path).unwrap()).digest().to_string();
                    files.insert(path.clone(), (hash, fs::metadata(&path).unwrap().modified().unwrap()));
                }
            }
        }
        files
    }

    #[test]
    fn the_sample_tlv_harness_builds_replays_the_crash_and_leaves_fuzz_untouched() {
        let fuzz = repo().join("fuzz");
        let before = snapshot(&fuzz);
        assert!(before.contains_key(&fuzz.join("Cargo.lock")));
        let project = FuzzProject::locate(None, &repo()).unwrap();
        assert_eq!(project.fuzz_dir, fuzz);
        let unknown = project.target("nope").unwrap_err();
        assert!(unknown.to_string().contains("nest, orders, rle, scene, tlv, triage, varying, vm"), "{unknown}");

        let options = BuildOptions { scratch_dir: Some(shared_scratch("planted-fuzz")), ..BuildOptions::default() };
        let harness = build_harness(&project, "tlv", &options).unwrap_or_else(|e| panic!("{e}"));
        eprintln!("built {} in {:.1?}", harness.binary.display(), harness.duration);
        assert!(harness.binary.is_file());
        assert_eq!(harness.libfuzzer_sys, "0.4.13");

        let crash = sample_crash("tlv");
        let output = Command::new(&harness.binary).arg(&crash).env_remove("RUST_BACKTRACE").output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "the crash must crash the harness; stderr:\n{stderr}");
        assert!(stderr.contains("crates/planted/src/tlv.rs:140"), "stderr:\n{stderr}");

        // Built again: nothing changed, so cargo has nothing to do.
        let again = build_harness(&project, "tlv", &options).unwrap();
        eprintln!("rebuilt in {:.1?}", again.duration);
        assert_eq!(again.binary, harness.binary);

        assert_eq!(snapshot(&fuzz), before, "the fuzz directory changed");
    }

    /// The typed `scene` target: the `arbitrary` stand-in records every
    /// derived value of the sample crash (`corpus-samples/scene`, found by
    /// running random inputs through `Scene::arbitrary_take_rest` and `render`
    /// in-process until one panicked) as a properly nested example.
    #[test]
    fn the_typed_scene_harness_records_derived_values_as_nested_examples() {
        use crate::exec::Executor;
        use crate::protocol::ResultKind;

        let fuzz = repo().join("fuzz");
        let before = snapshot(&fuzz);
        let project = FuzzProject::locate(None, &repo()).unwrap();
        let options = BuildOptions { scratch_dir: Some(shared_scratch("planted-fuzz")), ..BuildOptions::default() };
        let harness = build_harness(&project, "scene", &options).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(harness.structure, Structure::Recorded { arbitrary: "1.5.0".into(), draws: true });
        let lock = fs::read_to_string(harness.scratch_dir.join("harness/Cargo.lock")).unwrap();
        assert!(lock.contains("name = \"arbitrary\"\nversion = \"1.5.0-real\""), "{lock}");

        let crash = sample_crash("scene");
        let input = fs::read(&crash).unwrap();
        let executor = run_once(&harness.binary, &input);
        let result = executor.last_result().expect("the child's result");
        assert_eq!(result.kind, ResultKind::Panicked);
        assert!(result.panic.as_ref().unwrap().file.ends_with("crates/planted/src/scene.rs"), "{result:?}");
        assert_eq!(result.examples_dropped, 0);

        let examples = executor.examples();
        eprintln!("{} examples; the first ones:", examples.len());
        for example in examples.iter().take(8) {
            eprintln!("  {:?}", example);
        }
        assert!(examples.len() > 3, "{examples:?}");
        assert_eq!(examples[0].depth, 0);
        assert_eq!(&*examples[0].label, "planted::scene::Scene");
        assert_eq!(examples[0].front.start, 0);
        assert_eq!(examples[0].back.end, input.len(), "the top level takes the rest");
        assert_eq!(examples[0].front.end, examples[0].back.start, "the top level takes the rest");
        let known = ["planted::scene::Scene", "planted::scene::Layer", "planted::scene::Blend", "planted::scene::Op"];
        let draws = examples.iter().filter(|e| e.label.starts_with("draw:")).count();
        assert!(draws > examples.len() / 2, "every primitive read is a draw: {draws} of {}", examples.len());
        for example in &examples {
            let draw = example.label.starts_with("draw:");
            assert!(draw || known.contains(&&*example.label), "{example:?}");
        }
        assert_nested(&examples, input.len());
        for label in ["planted::scene::Layer", "planted::scene::Blend", "planted::scene::Op"] {
            assert!(examples.iter().any(|e| &*e.label == label), "no {label}");
        }
        assert!(examples.iter().any(|e| e.depth >= 3), "ops nest inside groups inside layers");
        assert_eq!(snapshot(&fuzz), before, "the fuzz directory changed");
    }

    /// Each example inside the input, and inside its parent: the nearest
    /// earlier example one level up (preorder).
    fn assert_nested(examples: &[crate::reduce::Example], len: usize) {
        for (i, example) in examples.iter().enumerate() {
            assert!(example.front.end <= len && example.back.end <= len, "{example:?}");
            if example.depth == 0 {
                continue;
            }
            let parent = examples[..i].iter().rev().find(|p| p.depth + 1 == example.depth);
            let parent = parent.unwrap_or_else(|| panic!("no parent for {example:?}"));
            let inside = |child: &std::ops::Range<usize>, parent: &std::ops::Range<usize>| {
                child.is_empty() || (parent.start <= child.start && child.end <= parent.end)
            };
            assert!(inside(&example.front, &parent.front), "{example:?} not inside {parent:?}");
            assert!(inside(&example.back, &parent.back), "{example:?} not inside {parent:?}");
        }
    }

    /// The hand-built `generator` target (no derive: draws alone): the
    /// frames each draw was drawn under become spans (`exec::forkserver::calls`),
    /// each turn of a body's loop one, a block's turns inside its own.
    #[test]
    fn the_generator_harness_records_the_frames_of_a_module_built_by_hand_as_nested_spans() {
        use crate::exec::Executor;

        let project = FuzzProject::locate(None, &repo()).unwrap();
        let options = BuildOptions { scratch_dir: Some(shared_scratch("planted-fuzz")), ..BuildOptions::default() };
        let harness = build_harness(&project, "generator", &options).unwrap_or_else(|e| panic!("{e}"));
        let crash = sample_crash("generator");
        let input = fs::read(&crash).unwrap();
        let executor = run_once(&harness.binary, &input);
        let examples = executor.examples();
        let spans: Vec<_> = examples.iter().filter(|e| e.label.starts_with("call:")).collect();
        let draws = examples.iter().filter(|e| e.label.starts_with("draw:")).count();
        eprintln!("{draws} draws, {} spans; the first: {:?}", spans.len(), &spans[..spans.len().min(4)]);
        assert_eq!(draws + spans.len(), examples.len(), "draws and spans, no derived value");
        assert_nested(&examples, input.len());
        // Every turn of a body is a span: about one per instruction (a flag and a tag at least).
        assert!(spans.len() * 4 > draws, "{} spans for {draws} draws", spans.len());
        assert!(spans.iter().all(|s| s.front.len() >= 2), "two draws or more");
        assert!(spans.iter().any(|s| s.depth >= 1), "blocks' turns inside their own turn");
    }

    /// The look-alike key on the real `scene` harness: a candidate whose
    /// value renders as a clean run's did stops before the target, and one
    /// that renders as a crash's runs (a look-alike never answers a crash).
    #[test]
    fn a_look_alike_of_a_clean_run_is_answered_and_one_of_a_crash_is_run() {
        use crate::exec::forkserver::{ForkServerConfig, ForkServerExecutor};
        use crate::exec::{Executor, Status};
        use crate::protocol::ResultKind;

        let project = FuzzProject::locate(None, &repo()).unwrap();
        let options = BuildOptions { scratch_dir: Some(shared_scratch("planted-fuzz")), ..BuildOptions::default() };
        let harness = build_harness(&project, "scene", &options).unwrap_or_else(|e| panic!("{e}"));
        let config = ForkServerConfig::new(&harness.binary, Duration::from_secs(10));
        let mut executor = ForkServerExecutor::start(config).unwrap_or_else(|e| panic!("{e:#}"));
        executor.replay_known_values(true);
        let mut run = |input: &[u8]| {
            let outcome = executor.run(input).unwrap();
            (outcome, executor.last_result().expect("the child's result").clone())
        };
        // One bit of one byte flipped, each in turn.
        let flips = |input: &[u8]| -> Vec<Vec<u8>> {
            (0..input.len() * 8)
                .map(|bit| {
                    let mut flipped = input.to_vec();
                    flipped[bit / 8] ^= 1 << (bit % 8);
                    flipped
                })
                .collect()
        };
        // scene's minimal crash (corpus-samples/scene/expected.toml).
        let crash: Vec<u8> = (0..18)
            .map(|i| u8::from_str_radix(&"01000000ab0001000000ab01000000560000"[2 * i..2 * i + 2], 16).unwrap())
            .collect();
        let (_, crashed) = run(&crash);
        assert_eq!(crashed.kind, ResultKind::Panicked);
        let crash_alike = crashed.alike_key.expect("lookups are on: the child hashes the rendering");
        let mut crash_alikes = 0;
        for flipped in flips(&crash) {
            let (outcome, result) = run(&flipped);
            if result.alike_key == Some(crash_alike) && result.value_key != crashed.value_key {
                crash_alikes += 1;
                assert_eq!(result.kind, ResultKind::Panicked, "a crash's look-alike runs: {flipped:02x?}");
                assert_eq!(outcome.alike_key, None, "and a crash's look-alike key is not kept");
            }
        }
        assert!(crash_alikes > 0, "the enum tags' low bytes render alike");

        // A clean run: the crash with one byte zeroed, the first that does not crash.
        let (clean, clean_run) = (0..crash.len())
            .map(|i| [&crash[..i], &[0], &crash[i + 1..]].concat())
            .find_map(|input| {
                let (outcome, result) = run(&input);
                (outcome.status == Status::Exited(0) && result.alike_key.is_some())
                    .then_some((input, (outcome, result)))
            })
            .expect("some byte zeroed makes the crash go away");
        assert_eq!(clean_run.0.alike_key, clean_run.1.alike_key, "a clean run's look-alike key is kept");
        let answered: Vec<Vec<u8>> = flips(&clean)
            .into_iter()
            .filter(|flipped| {
                let (outcome, result) = run(flipped);
                let known = result.kind == ResultKind::Known && result.value_key == clean_run.1.alike_key;
                assert!(!known || outcome == clean_run.0, "answered with the clean run's outcome");
                known
            })
            .collect();
        assert!(!answered.is_empty(), "a look-alike of the clean run is answered without running the target");
    }

    #[test]
    fn a_target_that_does_not_compile_is_a_typed_build_error() {
        let dir = tempfile::tempdir().unwrap();
        let fuzz = dir.path().join("fuzz");
        fs::create_dir_all(fuzz.join("fuzz_targets")).unwrap();
        fs::write(
            fuzz.join("Cargo.toml"),
            "[package]\nname = \"broken-fuzz\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
             [package.metadata]\ncargo-fuzz = true\n[dependencies]\nlibfuzzer-sys = \"0.4\"\n\
             [workspace]\nmembers = [\".\"]\n[[bin]]\nname = \"bad\"\npath = \"fuzz_targets/bad.rs\"\n",
        )
        .unwrap();
        fs::write(
            fuzz.join("fuzz_targets/bad.rs"),
            "#![no_main]\nlibfuzzer_sys::fuzz_target!(|data: &[u8]| {\n    let n: u32 = data;\n});\n",
        )
        .unwrap();
        // The sample project's lockfile pins the versions already in cargo's cache.
        let lock = fs::read_to_string(repo().join("fuzz/Cargo.lock")).unwrap();
        fs::write(fuzz.join("Cargo.lock"), lock.replace("planted-fuzz", "broken-fuzz")).unwrap();

        let project = FuzzProject::locate(Some(Path::new("fuzz")), dir.path()).unwrap();
        let options = BuildOptions { scratch_dir: Some(shared_scratch("broken-fuzz")), ..BuildOptions::default() };
        let error = build_harness(&project, "bad", &options).unwrap_err();
        assert!(matches!(error, ProjectError::Compile { .. }), "{error}");
        assert_eq!(error.exit(), crate::exit_code::Exit::BuildFailed);
        let message = error.to_string();
        assert!(message.contains("the fuzz target `bad` does not compile"), "{message}");
        assert!(message.contains("mismatched types"), "{message}");
        assert!(message.contains("fuzz_targets/bad.rs"), "{message}");
    }
}
