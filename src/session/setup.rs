//! The harness mode's set-up, shared by the single run and the batch: find the project and target, build the harness, start fork servers from it, and the command lines a summary shows.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use anyhow::{anyhow, Context};

use crate::exec::process::quote;
use crate::exec::{ForkServerConfig, ForkServerExecutor, RunningGroup};
use crate::exit_code::{Exit, Failure};
use crate::options::ProjectOptions;
use crate::project::cargo::cargo_program;
use crate::project::{build_harness, BuildOptions, FuzzProject, Harness};
use crate::session::interrupt::Interrupt;
use crate::trace::path;
use crate::verify::{self, LibFuzzerBuild, LibFuzzerCheck};

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

impl HarnessSetup {
    /// Finds the project (`--fuzz-dir` or as cargo-fuzz does) from the working directory.
    pub fn locate(options: &ProjectOptions) -> Result<(FuzzProject, PathBuf), Failure> {
        let cwd = std::env::current_dir().context("cannot read the working directory")?;
        let project = FuzzProject::locate(options.fuzz_dir.as_deref(), &cwd)?;
        // Signatures read the project's paths relative to its root, on any machine.
        if let Some(root) = path::project_root(&project.fuzz_dir, project.fuzz_dir.parent()) {
            path::set_project_root(&root);
        }
        Ok((project, cwd))
    }

    /// Builds the harness of `target` (which must be one of the project's).
    pub fn build(
        (project, cwd): (FuzzProject, PathBuf),
        target: &str,
        options: &ProjectOptions,
        limits: Limits,
        quiet: bool,
        interrupt: &Interrupt,
    ) -> Result<HarnessSetup, Failure> {
        project.target(target)?;
        let build = BuildOptions {
            flags: options.flags.clone(),
            // The harness's binary never goes into cargo's own target directory
            // (it would replace `cargo fuzz build`'s of the same name), only
            // its intermediate files (see `build_harness`).
            cargo_target_dir: options.target_dir.as_deref().map(|dir| cwd.join(dir)),
            coverage: options.coverage,
            // This binary compiles the runtime uninstrumented (see `project::wrapper`).
            rustc_wrapper: std::env::current_exe().ok().filter(|_| options.coverage),
            ..BuildOptions::default()
        };
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
        let mut config = ForkServerConfig::new(&harness.binary, limits.timeout);
        config.rss_limit_mb = limits.rss_limit_mb;
        if options.coverage {
            config.feature_capacity = FEATURE_CAPACITY;
        }
        config.env = options.flags.sanitizer.runtime_env().into_iter().map(|(k, v)| (k.into(), v.into())).collect();
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
        let target = &self.target;
        let mut config = self.config.clone();
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
        let (options, cwd) = (&self.options, self.cwd.as_path());
        let profile = if options.flags.dev { "debug" } else { "release" };
        let harness = &self.harness;
        let binary = harness.cargo_target_dir.join(&harness.host).join(profile).join(&self.target);
        LibFuzzerBuild::start(&cargo_program(), (&self.project, &self.target), (options, cwd), binary, running)
    }
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
