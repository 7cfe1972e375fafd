//! Build the harness: prepare the stand-in and the scratch workspace, run `cargo build` with cargo-fuzz's flags, report compile errors as a typed error, check that the patch was taken.

use std::ffi::{OsStr, OsString};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context};
use toml_edit::Item;

use super::arbitrary_shim::{self, Support, ARBITRARY};
use super::embedded;
use super::locate::{read_toml, FuzzProject};
use super::resolve::Sources;
use super::scratch::{default_scratch_dir, write_workspace, Layout};
use super::standin::{self, Patch, LIBFUZZER_SYS};
use super::ProjectError;

/// `--sanitizer`: the sanitizers the harness can be built with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Sanitizer {
    /// No sanitizer: panics, aborts, stack overflows and other signals are still caught.
    #[default]
    None,
    /// AddressSanitizer (`-Zsanitizer=address`; on a stable toolchain cargo runs
    /// with `RUSTC_BOOTSTRAP=1`, as `cargo +nightly fuzz build` would on nightly).
    Address,
}

impl Sanitizer {
    /// The name `cargo fuzz build --sanitizer` takes.
    pub fn name(self) -> &'static str {
        match self {
            Sanitizer::None => "none",
            Sanitizer::Address => "address",
        }
    }

    /// In words, for messages.
    pub fn description(self) -> &'static str {
        match self {
            Sanitizer::None => "no sanitizer",
            Sanitizer::Address => "AddressSanitizer",
        }
    }

    /// What a harness built with this sanitizer needs in its environment: for
    /// AddressSanitizer, options fit for a fork server (the user's own
    /// `ASAN_OPTIONS` come after ours, so they win). `symbolize=0`: a child
    /// that ran `llvm-symbolizer` itself would take ~90 ms per crash instead of
    /// ~6; its report's `(module+offset)` frames are symbolized in the parent
    /// (`exec::symbolize`, cached per address) for the signature;
    /// `detect_leaks=0` because children end with `_exit` (no leak check
    /// runs) and a leak is not a crash; `malloc_context_size=5` keeps the
    /// stack ASan unwinds on every allocation and free short (the report's
    /// "allocated by" trace, which the signature does not read);
    /// `detect_odr_violation=0` as cargo-fuzz sets it.
    pub fn runtime_env(self) -> Vec<(&'static str, String)> {
        self.asan_options("symbolize=0:detect_leaks=0:malloc_context_size=5:detect_odr_violation=0")
    }

    /// What the libFuzzer cross-check's run of a `cargo fuzz build` binary
    /// needs: the report unsymbolized (`symbolize=0`; its frames are looked
    /// up in this process, which costs an AddressSanitizer build's check
    /// half of its ~130 ms), all else as `cargo fuzz run` runs it, then the
    /// user's `ASAN_OPTIONS`.
    pub fn check_env(self) -> Vec<(&'static str, String)> {
        self.asan_options("symbolize=0")
    }

    /// `ASAN_OPTIONS` of `ours` followed by the user's, for AddressSanitizer.
    fn asan_options(self, ours: &str) -> Vec<(&'static str, String)> {
        match self {
            Sanitizer::None => Vec::new(),
            Sanitizer::Address => {
                let mut options = String::from(ours);
                if let Some(user) = std::env::var("ASAN_OPTIONS").ok().filter(|o| !o.is_empty()) {
                    options.push(':');
                    options.push_str(&user);
                }
                vec![("ASAN_OPTIONS", options)]
            }
        }
    }
}

/// The build flags `cargo fuzz build` takes, shared by the harness build, the
/// libFuzzer cross-check and the reproduce line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuildFlags {
    /// `--dev`: no optimizations (debug assertions on).
    pub dev: bool,
    /// `-O` / `--release`: optimized without debug assertions (cargo-fuzz's
    /// default is optimized *with* them).
    pub release: bool,
    /// `-a` / `--debug-assertions`: debug assertions even with `release`.
    pub debug_assertions: bool,
    /// `--features`.
    pub features: Option<String>,
    /// `--no-default-features`.
    pub no_default_features: bool,
    /// `--all-features`.
    pub all_features: bool,
    /// `-j`: cargo's parallel jobs (cargo's default when `None`).
    pub jobs: Option<u32>,
    /// `--sanitizer`.
    pub sanitizer: Sanitizer,
}

impl BuildFlags {
    /// The flags as `cargo fuzz build` / `cargo fuzz run` take them (no `-j`:
    /// cargo-fuzz has none; no `--sanitizer`).
    pub fn cargo_fuzz_args(&self) -> Vec<String> {
        let switches = [
            (self.dev, "--dev"),
            (self.release, "--release"),
            (self.debug_assertions, "--debug-assertions"),
            (self.no_default_features, "--no-default-features"),
            (self.all_features, "--all-features"),
        ];
        let mut args: Vec<String> = switches.iter().filter(|(on, _)| *on).map(|(_, flag)| flag.to_string()).collect();
        if let Some(features) = &self.features {
            args.extend(["--features".to_string(), features.clone()]);
        }
        args
    }
}

/// How to build the harness.
#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    /// The flags `cargo fuzz build` would take.
    pub flags: BuildFlags,
    /// The scratch directory; by default `<the project's target dir>/minimize-crash/<package>-<hash>`.
    pub scratch_dir: Option<PathBuf>,
    /// The target directory `cargo fuzz build` uses (`--target-dir`); by
    /// default cargo's own for the project.
    pub cargo_target_dir: Option<PathBuf>,
    /// cargo's target directory; by default `<scratch dir>/target`.
    pub target_dir: Option<PathBuf>,
    /// Show cargo's progress lines on stderr as they come (the first build takes a while).
    pub echo: bool,
    /// Instrument with SanitizerCoverage as `cargo fuzz build` does, so the
    /// harness reports the coverage features of each run (built apart, in
    /// `<target dir>/coverage[-sanitizer-<name>]/`).
    pub coverage: bool,
    /// For a coverage build: this tool's binary, run as `RUSTC_WRAPPER` so
    /// our runtime and protocol crates are compiled without instrumentation
    /// (`super::wrapper`); `None` instruments them too.
    pub rustc_wrapper: Option<PathBuf>,
}

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
    let (host, dirs) = (host?, dirs?);
    let scratch = options.scratch_dir.clone().unwrap_or_else(|| default_scratch_dir(project, &dirs.target_dir));
    let layout = Layout::new(scratch);
    let prepared = prepare_workspace(project, &layout, &cargo, &host)?;
    let target_dir = variant_target_dir(options.target_dir.clone().unwrap_or_else(|| layout.target_dir()), options);
    // A coverage build without the wrapper compiles our crates otherwise
    // under the same flags: cargo could not tell the two apart.
    let shared = dirs.build_dir.as_deref().filter(|_| !options.coverage || options.rustc_wrapper.is_some());
    let command = build_command(&cargo, project, (target, &host), (&prepared.manifest, &target_dir, shared), options);
    let built = run_build(command, target, options.echo)?;
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
/// once; RUSTFLAGS are in every file's name, so neither rebuilds the other's.
fn build_command(
    cargo: &OsStr,
    project: &FuzzProject,
    (target, host): (&str, &str),
    (manifest, target_dir, shared): (&Path, &Path, Option<&Path>),
    options: &BuildOptions,
) -> Command {
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
    if flags.sanitizer != Sanitizer::None {
        // `-Zsanitizer` is unstable: stable rustc takes it with RUSTC_BOOTSTRAP=1 (harmless on nightly).
        command.env("RUSTC_BOOTSTRAP", "1");
    }
    command
}

/// `cargo build`'s profile, feature and job arguments for `flags`.
fn cargo_build_args(flags: &BuildFlags) -> Vec<String> {
    let mut args = Vec::new();
    if !flags.dev {
        args.extend(["--release", "--config", "profile.release.debug=\"line-tables-only\""].map(String::from));
    }
    if flags.no_default_features {
        args.push("--no-default-features".into());
    }
    if flags.all_features {
        args.push("--all-features".into());
    }
    if let Some(features) = &flags.features {
        args.extend(["--features".into(), features.clone()]);
    }
    if let Some(jobs) = flags.jobs {
        args.extend(["--jobs".into(), jobs.to_string()]);
    }
    args
}

/// Where a build variant's binaries go under cargo's target directory:
/// sanitized and coverage builds each uplift their own binary of the
/// target's name (their intermediate files share the build dir, told apart
/// by their RUSTFLAGS).
fn variant_target_dir(target_dir: PathBuf, options: &BuildOptions) -> PathBuf {
    let sanitizer = match options.flags.sanitizer {
        Sanitizer::None => String::new(),
        sanitizer => format!("sanitizer-{}", sanitizer.name()),
    };
    if !options.coverage {
        return if sanitizer.is_empty() { target_dir } else { target_dir.join(sanitizer) };
    }
    // cargo does not rebuild when only RUSTC_WRAPPER changes: without the
    // wrapper (our crates instrumented too) the artifacts live apart.
    let mut name = String::from(if options.rustc_wrapper.is_some() { "coverage" } else { "coverage-all" });
    if !sanitizer.is_empty() {
        name = format!("{name}-{sanitizer}");
    }
    target_dir.join(name)
}

/// SanitizerCoverage as cargo-fuzz 0.13 instruments a fuzz target (its
/// defaults: 8-bit counters, the PC table, traced comparisons, branch folding
/// off, stack depth on Linux), so a coverage harness has the same code, edges
/// and frames as a `cargo fuzz build` binary. Stack depth only where the
/// runtime defines `__sancov_lowest_stack` (x86-64 Linux): the harness is
/// built for the host, the one this binary runs on.
const COVERAGE_FLAGS: [&str; 6] = [
    "-Cpasses=sancov-module",
    "-Cllvm-args=-sanitizer-coverage-level=4",
    "-Cllvm-args=-sanitizer-coverage-inline-8bit-counters",
    "-Cllvm-args=-sanitizer-coverage-pc-table",
    "-Cllvm-args=-sanitizer-coverage-trace-compares",
    "-Cllvm-args=-simplifycfg-branch-fold-threshold=0",
];

/// The stack-depth flag, where the runtime supports it.
const STACK_DEPTH_FLAG: Option<&str> = if cfg!(all(target_arch = "x86_64", target_os = "linux")) {
    Some("-Cllvm-args=-sanitizer-coverage-stack-depth")
} else {
    None
};

/// cargo-fuzz's RUSTFLAGS for the sanitizer (`-Zsanitizer=address`; as
/// cargo-fuzz on toolchains without `-Csanitizer`), its SanitizerCoverage
/// flags only for a coverage build ([`BuildOptions::coverage`]), the
/// remapping that makes panic locations in the fuzz crate read as they do in
/// a `cargo fuzz` build, then the user's own flags (last, so they win, as with cargo-fuzz).
pub fn rustflags(project: &FuzzProject, options: &BuildOptions) -> Vec<String> {
    let build = &options.flags;
    let mut flags = Vec::new();
    if options.coverage {
        flags.extend(COVERAGE_FLAGS.map(str::to_string));
        flags.extend(STACK_DEPTH_FLAG.map(str::to_string));
        // The `arbitrary` copy's value answers (known values, which a
        // coverage harness does not use) are left out: code of ours that
        // cargo fuzz build would not instrument (`draw_patch`).
        flags.extend(["--cfg".to_string(), "cmc_coverage".to_string()]);
    }
    flags.extend(["--cfg".to_string(), "fuzzing".to_string()]);
    // cargo-fuzz: debug assertions (which imply overflow checks) unless -O without -a.
    if !build.release || build.debug_assertions {
        flags.push("-Cdebug-assertions".into());
    }
    if !build.dev {
        flags.push("-Ccodegen-units=1".into());
    }
    if build.sanitizer != Sanitizer::None {
        flags.push(format!("-Zsanitizer={}", build.sanitizer.name()));
    }
    // cargo passes paths under the workspace root as relative ones; the
    // scratch workspace's root is elsewhere, so strip the user's root.
    flags.push(format!("--remap-path-prefix={}/=", project.workspace_root.display()));
    flags
}

/// [`rustflags`], the scratch workspace's own directory (`harness`, rustc's
/// working directory: the DWARF compilation directory) remapped to nothing,
/// then the user's flags. Without it a frame in the fuzz crate's own files
/// read `target/minimize-crash/<package>-<hash>/harness/fuzz_targets/x.rs`
/// (the compilation directory under the workspace root's remapping, joined
/// to the file's relative name); with it, `fuzz_targets/x.rs`, as its panics
/// read. Given after the workspace root's: the last matching prefix wins.
fn encoded_rustflags(project: &FuzzProject, options: &BuildOptions, harness_dir: &Path) -> OsString {
    let mut flags = rustflags(project, options);
    flags.push(format!("--remap-path-prefix={}=", harness_dir.display()));
    if let Ok(user) = std::env::var("CARGO_ENCODED_RUSTFLAGS") {
        flags.extend(user.split('\x1f').filter(|f| !f.is_empty()).map(str::to_string));
    } else if let Ok(user) = std::env::var("RUSTFLAGS") {
        flags.extend(user.split_whitespace().map(str::to_string));
    }
    flags.join("\x1f").into()
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

/// The host triple, from the rustc cargo would run here.
pub(crate) fn host_triple(project: &FuzzProject) -> Result<String, ProjectError> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(&rustc)
        .arg("-vV")
        .current_dir(&project.cwd)
        .output()
        .with_context(|| format!("cannot run `{} -vV`", rustc.to_string_lossy()))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let host = text.lines().find_map(|l| l.strip_prefix("host: "));
    Ok(host.ok_or_else(|| anyhow!("`{} -vV` printed no host triple", rustc.to_string_lossy()))?.trim().to_string())
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
    use std::collections::BTreeMap;
    use std::fs;

    use super::*;

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
        assert_eq!(
            default,
            ["--cfg", "fuzzing", "-Cdebug-assertions", "-Ccodegen-units=1", "--remap-path-prefix=/p/fuzz/="]
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
        assert!(coverage[6..].ends_with(&default), "then the plain build's flags: {coverage:?}");
        let stack_depth = coverage.iter().any(|f| f == "-Cllvm-args=-sanitizer-coverage-stack-depth");
        assert_eq!(stack_depth, cfg!(all(target_arch = "x86_64", target_os = "linux")));
    }

    /// The fork server's children and the cross-check's libFuzzer binary both
    /// leave their reports unsymbolized; only the fork server changes what
    /// else AddressSanitizer does. The user's options come last, so they win.
    #[test]
    fn address_sanitizer_reports_come_unsymbolized_and_the_users_options_last() {
        assert!(Sanitizer::None.runtime_env().is_empty() && Sanitizer::None.check_env().is_empty());
        let user = std::env::var("ASAN_OPTIONS").ok().filter(|o| !o.is_empty()).map(|o| format!(":{o}"));
        let with_user = |ours: &str| vec![("ASAN_OPTIONS", format!("{ours}{}", user.as_deref().unwrap_or("")))];
        assert_eq!(Sanitizer::Address.check_env(), with_user("symbolize=0"));
        let server = "symbolize=0:detect_leaks=0:malloc_context_size=5:detect_odr_violation=0";
        assert_eq!(Sanitizer::Address.runtime_env(), with_user(server));
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
        assert!(unknown.to_string().contains("nest, orders, rle, scene, tlv, triage, vm"), "{unknown}");

        let options = BuildOptions { scratch_dir: Some(shared_scratch("planted-fuzz")), ..BuildOptions::default() };
        let harness = build_harness(&project, "tlv", &options).unwrap_or_else(|e| panic!("{e}"));
        eprintln!("built {} in {:.1?}", harness.binary.display(), harness.duration);
        assert!(harness.binary.is_file());
        assert_eq!(harness.libfuzzer_sys, "0.4.13");

        let crash = fs::read_dir(repo().join("corpus-samples/tlv"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("crash-"))
            .unwrap();
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
        use crate::exec::forkserver::{ForkServerConfig, ForkServerExecutor};
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

        let crash = fs::read_dir(repo().join("corpus-samples/scene"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("crash-"))
            .unwrap();
        let input = fs::read(&crash).unwrap();
        let config = ForkServerConfig::new(&harness.binary, Duration::from_secs(10));
        let mut executor = ForkServerExecutor::start(config).unwrap_or_else(|e| panic!("{e:#}"));
        executor.run(&input).unwrap();
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
        for (i, example) in examples.iter().enumerate() {
            let draw = example.label.starts_with("draw:");
            assert!(draw || known.contains(&&*example.label), "{example:?}");
            assert!(example.front.end <= input.len() && example.back.end <= input.len(), "{example:?}");
            if i == 0 {
                continue;
            }
            // Preorder: the parent is the nearest earlier example one level up.
            let parent = examples[..i].iter().rev().find(|p| p.depth + 1 == example.depth);
            let parent = parent.unwrap_or_else(|| panic!("no parent for {example:?}"));
            let inside = |child: &std::ops::Range<usize>, parent: &std::ops::Range<usize>| {
                child.is_empty() || (parent.start <= child.start && child.end <= parent.end)
            };
            assert!(inside(&example.front, &parent.front), "{example:?} not inside {parent:?}");
            assert!(inside(&example.back, &parent.back), "{example:?} not inside {parent:?}");
        }
        for label in ["planted::scene::Layer", "planted::scene::Blend", "planted::scene::Op"] {
            assert!(examples.iter().any(|e| &*e.label == label), "no {label}");
        }
        assert!(examples.iter().any(|e| e.depth >= 3), "ops nest inside groups inside layers");
        assert_eq!(snapshot(&fuzz), before, "the fuzz directory changed");
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
