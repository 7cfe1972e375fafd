//! The harness mode's set-up, shared by the single run and the batch: find the project and target, build the harness, start fork servers from it, and the command lines a summary shows.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use anyhow::{anyhow, Context};

use crate::exec::process::quote;
use crate::exec::{ForkServerConfig, ForkServerExecutor, RunningGroup};
use crate::exit_code::{Exit, Failure};
use crate::options::ProjectOptions;
use crate::project::cargo::cargo_program;
use crate::project::{build_harness, BuildOptions, FuzzProject, Harness, Sanitizer};
use crate::session::interrupt::Interrupt;
use crate::trace::path;
use crate::verify::{self, BuildRequest, LibFuzzerBuild, LibFuzzerCheck};

/// How many features a coverage harness's run can report (4 MiB of shared memory).
const FEATURE_CAPACITY: u32 = 1 << 20;

/// A built harness for one target, ready to start fork servers.
#[derive(Debug)]
pub struct HarnessSetup {
    /// The fuzz project.
    pub project: FuzzProject,
    /// The fuzz target.
    pub target: String,
    /// How it was built.
    pub options: ProjectOptions,
    /// The working directory (for relative paths given by the user).
    pub cwd: PathBuf,
    /// The built harness.
    pub harness: Harness,
    config: ForkServerConfig,
    /// The cross-check's `cargo fuzz build`, once started ([`Self::start_libfuzzer_build`]).
    libfuzzer_build: Mutex<Option<Result<LibFuzzerBuild, String>>>,
}

/// What the fork servers need besides the binary.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Per-test time limit.
    pub timeout: std::time::Duration,
    /// Per-test memory limit in MiB (0: none).
    pub rss_limit_mb: u64,
}

/// A fuzz project found from the working directory ([`HarnessSetup::locate`]),
/// which [`HarnessSetup::build`] builds a harness in.
#[derive(Clone, Debug)]
pub struct Located {
    /// The fuzz project.
    pub project: FuzzProject,
    /// The working directory it was found from (for relative paths given by the user).
    pub cwd: PathBuf,
}

impl HarnessSetup {
    /// Finds the project (`--fuzz-dir` or as cargo-fuzz does) from the working directory.
    pub fn locate(options: &ProjectOptions) -> Result<Located, Failure> {
        let cwd = std::env::current_dir().context("cannot read the working directory")?;
        let project = FuzzProject::locate(options.fuzz_dir.as_deref(), &cwd)?;
        // Signatures read the project's paths relative to its root, on any machine.
        if let Some(root) = path::project_root(&project.fuzz_dir, project.fuzz_dir.parent()) {
            path::set_project_root(&root);
        }
        Ok(Located { project, cwd })
    }

    /// Builds the harness of `target` (which must be one of the project's)
    /// in the project `located` ([`Self::locate`]).
    pub fn build(
        located: Located,
        target: &str,
        options: &ProjectOptions,
        limits: Limits,
        quiet: bool,
        interrupt: &Interrupt,
    ) -> Result<HarnessSetup, Failure> {
        let Located { project, cwd } = located;
        project.target(target)?;
        let build = build_options(options, &cwd);
        if !quiet {
            let variant = if options.coverage { " coverage" } else { "" };
            eprintln!("building {target}{variant} harness...");
        }
        let harness = build_harness(&project, target, &build).map_err(|error| {
            // Ctrl-C reaches cargo too (same process group): report the interrupt, not cargo's failure.
            if interrupt.is_raised() {
                Failure::new(
                    Exit::Interrupted,
                    anyhow!("interrupted while building the {target} harness; nothing was written"),
                )
            } else {
                Failure::from(error)
            }
        })?;
        if !quiet {
            eprintln!("built {} in {:.1?}", harness.binary.display(), harness.duration);
        }
        warn_of_lost_structure(&project, target, &harness);
        let config = fork_server_config(&harness, options, limits);
        Ok(HarnessSetup {
            project,
            target: target.to_owned(),
            options: options.clone(),
            cwd,
            harness,
            config,
            libfuzzer_build: Mutex::new(None),
        })
    }

    /// The per-test limits its fork servers enforce.
    pub fn limits(&self) -> Limits {
        Limits { timeout: self.config.timeout, rss_limit_mb: self.config.rss_limit_mb }
    }

    /// Starts one fork server, publishing its running test in `running`.
    pub fn start(&self, running: RunningGroup) -> anyhow::Result<ForkServerExecutor> {
        self.start_with(self.config.clone(), running)
    }

    /// Starts one fork server for a corpus shrink's candidates, its
    /// children with the sanitizer's [`candidate_env`](Sanitizer::candidate_env);
    /// `None` without a sanitizer (the candidates run where the rest does).
    pub fn start_for_candidates(&self, running: RunningGroup) -> Option<anyhow::Result<ForkServerExecutor>> {
        let sanitizer = self.options.flags.sanitizer;
        if sanitizer == Sanitizer::None {
            return None;
        }
        let config = ForkServerConfig { env: fork_server_env(sanitizer.candidate_env()), ..self.config.clone() };
        Some(self.start_with(config, running))
    }

    fn start_with(&self, mut config: ForkServerConfig, running: RunningGroup) -> anyhow::Result<ForkServerExecutor> {
        let target = &self.target;
        config.running = running;
        let executor = ForkServerExecutor::start(config)
            .with_context(|| format!("cannot start the {target} harness as a fork server"))?;
        if let Some(hello) = executor.hello().filter(|hello| hello.threads > 1) {
            eprintln!(
                "warning: the {target} harness had {} threads when it started forking (the target's init code \
                 started threads?); forking a multi-threaded process is unsafe: tests may hang or behave oddly",
                hello.threads
            );
        }
        Ok(executor)
    }

    /// `cargo fuzz run [flags] TARGET FILE`: how a user reproduces a result.
    pub fn reproduce_line(&self, file: &Path) -> String {
        let mut line = vec![String::from("cargo fuzz run")];
        line.extend(self.options.cargo_fuzz_args().iter().map(|a| quote(a)));
        line.push(quote(&self.target));
        line.push(quote(&std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf()).to_string_lossy()));
        line.join(" ")
    }

    /// How the harness runs an input, for messages.
    pub fn run_line(&self, input: &Path) -> String {
        format!("{} {}", quote(&self.harness.binary.to_string_lossy()), quote(&input.to_string_lossy()))
    }

    /// What to check when an input does not crash the harness.
    pub fn no_crash_hint(&self) -> String {
        let target = &self.target;
        format!(
            "Check that it is a crash of `{target}` and that the build options (features, --dev, --release) \
             match the build that crashed; a stack overflow found with a smaller stack (a thread's, or \
             `ulimit -s`) needs the same limit here; a memory error that only a sanitizer reports does not show \
             in a harness built without one: minimize it with --exec and a `cargo fuzz build` binary.{}",
            crate::project::sources::hint(&self.project.fuzz_dir)
        )
    }

    /// The result run once with a plain libFuzzer build of the target, unless turned off.
    pub fn check_with_libfuzzer(&self, check: LibFuzzerRequest, interrupt: &Interrupt) -> LibFuzzerCheck {
        if !self.options.verify_libfuzzer {
            return LibFuzzerCheck::skipped("--no-verify-libfuzzer");
        }
        let started = self.libfuzzer_build.lock().unwrap_or_else(PoisonError::into_inner).take();
        if interrupt.is_raised() {
            // The build runs in a process group of its own: dropped, it stops.
            return LibFuzzerCheck::skipped("interrupted");
        }
        let absolute = std::path::absolute(check.result).unwrap_or_else(|_| check.result.to_path_buf());
        let build = started.unwrap_or_else(|| self.libfuzzer_build(check.running.clone()));
        let request = verify::Request {
            result: &absolute,
            expected: check.expected,
            level: check.level,
            timeout: self.config.timeout,
            rss_limit_mb: self.config.rss_limit_mb,
            running: check.running,
            verbose: check.verbose,
            harness_sanitizer: self.options.flags.sanitizer,
        };
        let result = verify::with_libfuzzer(&request, build);
        if interrupt.is_raised() {
            return LibFuzzerCheck::skipped("interrupted");
        }
        result
    }

    /// Starts the cross-check's `cargo fuzz build` in the background (unless
    /// `--no-verify-libfuzzer`): a no-op check once built, it then costs the
    /// run nothing; the first check takes it. Ctrl-C stops it, and so does
    /// dropping the setup.
    pub fn start_libfuzzer_build(&self, interrupt: &Interrupt, quiet: bool) {
        if self.options.verify_libfuzzer {
            let build = self.libfuzzer_build(interrupt.worker_group());
            if let (Ok(build), false) = (&build, quiet) {
                eprintln!("{}", build.purpose());
            }
            *self.libfuzzer_build.lock().unwrap_or_else(PoisonError::into_inner) = Some(build);
        }
    }

    fn libfuzzer_build(&self, running: RunningGroup) -> Result<LibFuzzerBuild, String> {
        let profile = if self.options.flags.dev { "debug" } else { "release" };
        let harness = &self.harness;
        let binary = harness.cargo_target_dir.join(&harness.host).join(profile).join(&self.target);
        let request =
            BuildRequest { project: &self.project, target: &self.target, options: &self.options, cwd: &self.cwd };
        LibFuzzerBuild::start(&cargo_program(), &request, binary, running)
    }
}

/// How the harness is built for `options`, relative paths taken from `cwd`.
fn build_options(options: &ProjectOptions, cwd: &Path) -> BuildOptions {
    BuildOptions {
        flags: options.flags.clone(),
        // The harness's binary never goes into cargo's own target directory
        // (it would replace `cargo fuzz build`'s of the same name), only
        // its intermediate files (see `build_harness`).
        cargo_target_dir: options.target_dir.as_deref().map(|dir| cwd.join(dir)),
        coverage: options.coverage,
        // This binary compiles the runtime uninstrumented (see `project::wrapper`).
        rustc_wrapper: std::env::current_exe().ok().filter(|_| options.coverage),
        ..BuildOptions::default()
    }
}

/// Warns, in one line, when the harness of `target` records less than all
/// of its inputs' structure and that loses the user something.
fn warn_of_lost_structure(project: &FuzzProject, target: &str, harness: &Harness) {
    // Only a typed target loses anything (a raw-bytes one records nothing
    // anyway), or one that builds typed values from its bytes by hand.
    let typed = || {
        let found = project.target(target).ok();
        found.as_ref().and_then(|t| t.is_typed()) != Some(false)
            || found.is_some_and(|t| crate::project::sources::builds_unstructured(&project.fuzz_dir, &t.path))
    };
    if let Some(warning) = harness.structure.warning().filter(|_| typed()) {
        eprintln!("warning: {warning}");
    }
}

/// What every fork server of `harness` starts with: the per-test limits,
/// room for a coverage build's features, and the sanitizer's runtime options.
fn fork_server_config(harness: &Harness, options: &ProjectOptions, limits: Limits) -> ForkServerConfig {
    let mut config = ForkServerConfig::new(&harness.binary, limits.timeout);
    config.rss_limit_mb = limits.rss_limit_mb;
    if options.coverage {
        config.feature_capacity = FEATURE_CAPACITY;
    }
    config.env = fork_server_env(options.flags.sanitizer.runtime_env());
    config
}

/// A sanitizer's environment as a fork server's children get it.
fn fork_server_env(env: Vec<(&'static str, String)>) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    env.into_iter().map(|(k, v)| (k.into(), v.into())).collect()
}

/// One cross-check with a plain libFuzzer build.
#[derive(Debug)]
pub struct LibFuzzerRequest<'a> {
    /// The result to run.
    pub result: &'a Path,
    /// The crash it must show.
    pub expected: &'a crate::signature::Signature,
    /// How closely.
    pub level: crate::signature::Level,
    /// Where its process group is published for Ctrl-C.
    pub running: RunningGroup,
    /// Show cargo's progress.
    pub verbose: bool,
}

/// The parts that need no build: the messages, the command lines and the
/// checks' early exits, on a set-up whose harness was never built; and the
/// errors of a bad project or target, which come before any build. Building,
/// starting fork servers, the cross-check itself and a successful `locate`
/// (it sets the process-wide project root) are the integration tests' (`tests/`).
#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::project::{Structure, Target};
    use crate::signature::{Kind, Level, Signature};

    /// A fuzz project in `dir` with targets `a` and `b`, as `locate` would read it.
    fn project(dir: &Path) -> FuzzProject {
        let target = |name: &str| Target { name: name.into(), path: dir.join(format!("fuzz_targets/{name}.rs")) };
        FuzzProject {
            fuzz_dir: dir.to_path_buf(),
            manifest_path: dir.join("Cargo.toml"),
            package: "p-fuzz".into(),
            targets: vec![target("a"), target("b")],
            workspace_root: dir.to_path_buf(),
            cwd: dir.to_path_buf(),
        }
    }

    /// A set-up of target `a` in `dir` whose harness (`dir/harness bin/a`) was never built.
    fn setup(dir: &Path, options: ProjectOptions) -> HarnessSetup {
        let binary = dir.join("harness bin/a");
        let mut config = ForkServerConfig::new(&binary, Duration::from_secs(3));
        config.rss_limit_mb = 512;
        let harness = Harness {
            binary,
            target: "a".into(),
            scratch_dir: dir.join("scratch"),
            libfuzzer_sys: "0.4.9".into(),
            structure: Structure::Off("a raw-bytes target".into()),
            host: "x86_64-unknown-linux-gnu".into(),
            cargo_target_dir: dir.join("target"),
            duration: Duration::ZERO,
        };
        let (project, cwd) = (project(dir), dir.to_path_buf());
        HarnessSetup { project, target: "a".into(), options, cwd, harness, config, libfuzzer_build: Mutex::new(None) }
    }

    #[test]
    fn the_reproduce_line_is_cargo_fuzz_run_with_the_build_flags_and_the_absolute_result() {
        let dir = tempfile::tempdir().unwrap();
        let flags = crate::project::BuildFlags { dev: true, features: Some("x y".into()), ..Default::default() };
        let options = ProjectOptions { fuzz_dir: Some("my fuzz".into()), flags, ..Default::default() };
        let line = setup(dir.path(), options).reproduce_line(Path::new("out/r"));
        let result = std::env::current_dir().unwrap().join("out/r");
        assert_eq!(line, format!("cargo fuzz run --fuzz-dir 'my fuzz' --dev --features 'x y' a {}", result.display()));
    }

    #[test]
    fn the_messages_name_the_harness_the_input_and_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let setup = setup(dir.path(), ProjectOptions::default());
        let harness = dir.path().join("harness bin/a");
        assert_eq!(setup.run_line(Path::new("crash-1")), format!("'{}' crash-1", harness.display()));
        let hint = setup.no_crash_hint();
        assert!(hint.starts_with("Check that it is a crash of `a` and that the build options"), "{hint}");
        assert!(hint.ends_with("minimize it with --exec and a `cargo fuzz build` binary."), "no sources: {hint}");
        assert_eq!((setup.limits().timeout, setup.limits().rss_limit_mb), (Duration::from_secs(3), 512));
    }

    fn request<'a>(result: &'a Path, expected: &'a Signature) -> LibFuzzerRequest<'a> {
        LibFuzzerRequest { result, expected, level: Level::Default, running: RunningGroup::default(), verbose: false }
    }

    #[test]
    fn the_cross_check_is_skipped_without_a_build_when_turned_off_or_interrupted() {
        let dir = tempfile::tempdir().unwrap();
        let expected = Signature { kind: Kind::Timeout, location: None, message: None, raised_in: None };
        let result = dir.path().join("r");
        let off = setup(dir.path(), ProjectOptions { verify_libfuzzer: false, ..Default::default() });
        let interrupt = Interrupt::default();
        off.start_libfuzzer_build(&interrupt, true);
        assert!(off.libfuzzer_build.lock().unwrap().is_none(), "no background build when turned off");
        let check = off.check_with_libfuzzer(request(&result, &expected), &interrupt);
        assert_eq!(check, LibFuzzerCheck::skipped("--no-verify-libfuzzer"));
        let on = setup(dir.path(), ProjectOptions { verify_libfuzzer: true, ..Default::default() });
        interrupt.raise();
        assert_eq!(
            on.check_with_libfuzzer(request(&result, &expected), &interrupt),
            LibFuzzerCheck::skipped("interrupted")
        );
        assert!(!dir.path().join("target").exists(), "nothing was built");
    }

    #[test]
    fn only_a_coverage_build_has_the_wrapper_and_room_for_features_and_both_keep_the_limits() {
        let dir = tempfile::tempdir().unwrap();
        let plain = ProjectOptions { target_dir: Some("t".into()), ..Default::default() };
        let coverage = ProjectOptions { coverage: true, ..plain.clone() };
        let build = build_options(&plain, dir.path());
        assert_eq!((build.cargo_target_dir, build.rustc_wrapper), (Some(dir.path().join("t")), None));
        assert_eq!(build_options(&coverage, dir.path()).rustc_wrapper, std::env::current_exe().ok());
        let harness = setup(dir.path(), plain.clone()).harness;
        let limits = Limits { timeout: Duration::from_secs(2), rss_limit_mb: 64 };
        let config = fork_server_config(&harness, &plain, limits);
        assert_eq!((&config.program, config.timeout, config.rss_limit_mb), (&harness.binary, limits.timeout, 64));
        assert_eq!((config.feature_capacity, config.env.len()), (0, 0), "no coverage, no sanitizer");
        assert_eq!(fork_server_config(&harness, &coverage, limits).feature_capacity, FEATURE_CAPACITY);
    }

    #[test]
    fn an_unknown_target_fails_before_any_build_and_lists_the_known_ones() {
        let dir = tempfile::tempdir().unwrap();
        let limits = Limits { timeout: Duration::from_secs(1), rss_limit_mb: 0 };
        let located = Located { project: project(dir.path()), cwd: dir.path().to_path_buf() };
        let options = ProjectOptions::default();
        let failure = HarnessSetup::build(located, "c", &options, limits, true, &Interrupt::default()).unwrap_err();
        assert_eq!(failure.exit, Exit::BuildFailed);
        let manifest = dir.path().join("Cargo.toml");
        let expected = format!("no fuzz target named `c` in {}; the targets are: a, b", manifest.display());
        assert_eq!(failure.error.to_string(), expected);
        assert!(!dir.path().join("target").exists() && !dir.path().join("scratch").exists(), "nothing was built");
    }

    #[test]
    fn a_fuzz_dir_that_is_no_cargo_fuzz_project_is_a_build_failure_that_says_what_it_lacks() {
        let dir = tempfile::tempdir().unwrap();
        let locate = |dir: &Path| {
            let options = ProjectOptions { fuzz_dir: Some(dir.to_path_buf()), ..Default::default() };
            let failure = HarnessSetup::locate(&options).unwrap_err();
            (failure.exit, failure.error.to_string())
        };
        let (exit, message) = locate(dir.path());
        assert_eq!(exit, Exit::BuildFailed);
        let lacks =
            format!("{} is not a cargo-fuzz project: it has no Cargo.toml; create one with", dir.path().display());
        assert!(message.starts_with(&lacks), "{message}");
        std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"p\"\n").unwrap();
        let (_, message) = locate(dir.path());
        assert!(message.contains("its Cargo.toml lacks `[package.metadata] cargo-fuzz = true`"), "{message}");
    }
}
