//! The cross-check's build: `cargo fuzz build --sanitizer SANITIZER [flags] TARGET`, started in the background before the reduction, so that cargo's check (a no-op once built) overlaps the reduction instead of following it.
//!
//! The build runs in a process group of its own, its output in a scratch
//! file (a pipe nobody reads until the end could fill and stall it). When
//! the run ends without waiting for it (an input that does not crash, an
//! error, Ctrl-C), dropping the build stops the whole group: no cargo or
//! rustc is left behind holding the fuzz project's build lock.

use std::ffi::OsString;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::Ordering;
use std::time::Instant;

use nix::sys::signal::Signal;

use super::mode::built_with_o;
use super::toolchain::{builder_for, Builder};
use crate::exec::process::{last_lines, signal_group};
use crate::exec::RunningGroup;
use crate::options::ProjectOptions;
use crate::project::cargo::command_line;
use crate::project::{BuildFlags, FuzzProject, Sanitizer};

/// The binary at `binary`, mapped to be read; `None` when there is no such file.
pub(super) fn mapped(binary: &Path) -> Option<memmap2::Mmap> {
    let file = File::open(binary).ok()?;
    // SAFETY: the map is only read; a binary rewritten meanwhile (a
    // concurrent build) gives a wrong answer at worst, which the build that
    // follows makes right.
    unsafe { memmap2::Mmap::map(&file) }.ok()
}

/// What a binary `cargo fuzz build` made was built with, read from its symbols.
fn built_with(binary: &[u8]) -> Result<Sanitizer, &'static str> {
    let has = |needle: &[u8]| {
        binary.iter().enumerate().any(|(at, &byte)| byte == needle[0] && binary[at..].starts_with(needle))
    };
    if has(b"__asan_init") {
        Ok(Sanitizer::Address)
    } else if has(b"__msan_init") || has(b"__tsan_init") {
        Err("another sanitizer")
    } else {
        Ok(Sanitizer::None)
    }
}

/// The sanitizer to build the cross-check's binary with, and the one of the
/// binary `cargo fuzz build` made before (`binary`, mapped), if any: that
/// one when the harness can compare with it, else the harness's own.
/// Another sanitizer would rebuild every crate and replace the user's
/// binary (decision 0053).
pub(crate) fn sanitizer_for(binary: Option<&[u8]>, harness: Sanitizer) -> (Sanitizer, Option<Sanitizer>) {
    match binary.map(built_with) {
        Some(Ok(existing)) => (existing, Some(existing)),
        Some(Err(_)) | None => (harness, None),
    }
}

/// Whether the cross-check adds `-O` where the user gave no build mode
/// (`--dev`, `-O`, `-a`): when the binary `cargo fuzz build` made at
/// `binary` was built with it (cargo's records say so,
/// [`built_with_o`]). Without, cargo-fuzz turns debug assertions on, and
/// the user's binary would be replaced by a build of every crate with
/// them (decision 0119).
pub(crate) fn release_for(binary: &Path, flags: &BuildFlags) -> bool {
    let moded = flags.dev || flags.release || flags.debug_assertions;
    !moded && built_with_o(binary) == Some(true)
}

/// What the cross-check builds: the user's target, with their build options.
#[derive(Clone, Copy, Debug)]
pub struct BuildRequest<'a> {
    /// The fuzz project.
    pub project: &'a FuzzProject,
    /// The fuzz target.
    pub target: &'a str,
    /// The user's build options.
    pub options: &'a ProjectOptions,
    /// The working directory (relative paths in the options are from it).
    pub cwd: &'a Path,
}

/// The binary a finished build made, and how.
#[derive(Debug)]
pub struct Built {
    /// Its path.
    pub binary: PathBuf,
    /// Its sanitizer.
    pub sanitizer: Sanitizer,
    /// Built with `-O` the user did not give, as the binary there was ([`release_for`]).
    pub release: bool,
}

/// A `cargo fuzz build` under way (or done).
#[derive(Debug)]
pub struct LibFuzzerBuild {
    child: Option<Child>,
    /// cargo's stdout and stderr.
    log: File,
    line: String,
    started: Instant,
    /// Where the binary goes.
    binary: PathBuf,
    /// The sanitizer it is built with.
    sanitizer: Sanitizer,
    /// Whether a binary was there already (built with that sanitizer).
    existing: bool,
    /// Whether it adds `-O`, as the binary there was built ([`release_for`]).
    release: bool,
    /// Whose cargo builds it: ours, the toolchain that built the binary there, or ours apart.
    builder: Builder,
    /// Where its process group is published while it runs, for Ctrl-C.
    running: RunningGroup,
    /// The project's lockfile when there was none before the build: cargo
    /// writes one, and the user's tree is left as it was found.
    new_lockfile: Option<PathBuf>,
}

impl LibFuzzerBuild {
    /// Starts `cargo fuzz build` for the `request`ed target with the user's
    /// build options (`cargo` is the program: `$CARGO` or `cargo`) and the
    /// sanitizer of the `binary` it already made, if any ([`sanitizer_for`]),
    /// its process group published in `running` until it ends (Ctrl-C stops
    /// it); why not, if it cannot start.
    pub fn start(
        cargo: &OsString,
        request: &BuildRequest<'_>,
        binary: PathBuf,
        running: RunningGroup,
    ) -> Result<Self, String> {
        let options = request.options;
        let mut target_dir = options.target_dir.as_ref().map(|dir| request.cwd.join(dir));
        let new_lockfile = Some(request.project.lockfile()).filter(|lock| !lock.exists());
        // Read once for both: the binary can be tens of megabytes.
        let existing_binary = mapped(&binary);
        let (sanitizer, existing) = sanitizer_for(existing_binary.as_deref(), options.flags.sanitizer);
        let builder = builder_for(existing_binary.as_deref(), cargo);
        drop(existing_binary);
        let release = release_for(&binary, &options.flags);
        let mut binary = binary;
        if let (Builder::Apart(_), Some((dir, apart))) = (&builder, apart(&binary)) {
            (target_dir, binary) = (Some(dir), apart);
        }
        let mut command = command(cargo, &builder, request, (sanitizer, release), target_dir.as_deref());
        let line = command_line(&command);
        let log = tempfile::tempfile().map_err(|e| format!("cannot make a scratch file for `{line}`: {e}"))?;
        let output = |log: &File| log.try_clone().map(Stdio::from);
        let (stdout, stderr) = match (output(&log), output(&log)) {
            (Ok(stdout), Ok(stderr)) => (stdout, stderr),
            (Err(e), _) | (_, Err(e)) => return Err(format!("cannot make a scratch file for `{line}`: {e}")),
        };
        let child = command
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr)
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot run `{line}`: {e}"))?;
        running.store(i32::try_from(child.id()).unwrap_or(0), Ordering::SeqCst);
        let started = Instant::now();
        let existing = existing.is_some();
        Ok(LibFuzzerBuild {
            child: Some(child),
            log,
            line,
            started,
            binary,
            sanitizer,
            existing,
            release,
            builder,
            running,
            new_lockfile,
        })
    }

    /// The command line, for messages.
    pub fn line(&self) -> &str {
        &self.line
    }

    /// The sanitizer its binary is built with.
    pub fn sanitizer(&self) -> Sanitizer {
        self.sanitizer
    }

    /// What is being built, and why, for the progress line.
    pub fn purpose(&self) -> String {
        if let Builder::Apart(version) = &self.builder {
            return format!(
                "libFuzzer cross-check: `{}` in the background, into a directory of its own: the binary `cargo \
                 fuzz build` made was built by rustc {version}, which is not installed (it is left as it is)",
                self.line
            );
        }
        if self.existing {
            let mode = if self.release { " and -O" } else { "" };
            format!(
                "libFuzzer cross-check: `{}` in the background (a no-op when the binary `cargo fuzz build` made, \
                 with {}{mode}, is up to date)",
                self.line,
                self.sanitizer.description()
            )
        } else {
            format!(
                "libFuzzer cross-check: `{}` in the background (no `cargo fuzz build` binary yet: the first one \
                 takes as long as `cargo fuzz build`)",
                self.line
            )
        }
    }

    /// Waits for the build; its binary and how it was built, or why there is none.
    /// `installed` says whether cargo-fuzz is there, asked only when the
    /// build failed (to say so rather than show cargo's error).
    pub fn finish(mut self, installed: impl FnOnce() -> bool, verbose: bool) -> Result<Built, String> {
        let line = self.line.clone();
        let child = self.child.as_mut().expect("a build is finished once");
        let status = child.wait();
        self.running.store(0, Ordering::SeqCst);
        let status = status.map_err(|e| format!("cannot wait for `{line}`: {e}"))?;
        self.child = None;
        self.remove_new_lockfile();
        if !status.success() {
            if !installed() {
                return Err("cargo-fuzz is not installed; `cargo install cargo-fuzz` enables this check".into());
            }
            return Err(format!("`{line}` failed ({status}):\n  {}", self.log_tail(5)));
        }
        let binary = self.binary.clone();
        if !binary.is_file() {
            return Err(format!("`{line}` succeeded but {} is not there", binary.display()));
        }
        if verbose {
            eprintln!("built {} in {:.1?}", binary.display(), self.started.elapsed());
        }
        Ok(Built { binary, sanitizer: self.sanitizer, release: self.release })
    }

    /// Removes the lockfile cargo wrote into a project that had none.
    fn remove_new_lockfile(&mut self) {
        if let Some(lock) = self.new_lockfile.take() {
            let _ = std::fs::remove_file(lock);
        }
    }

    /// The last `count` lines cargo printed that are not blank.
    fn log_tail(&mut self, count: usize) -> String {
        let mut text = String::new();
        if self.log.seek(SeekFrom::Start(0)).is_ok() {
            let _ = self.log.read_to_string(&mut text);
        }
        last_lines(&text, count).join("\n  ")
    }
}

impl Drop for LibFuzzerBuild {
    /// A build not waited for is stopped, with every process it started.
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            if let Ok(None) = child.try_wait() {
                let group = i32::try_from(child.id()).unwrap_or(0);
                signal_group(group, Signal::SIGKILL);
            }
            let _ = child.wait();
            self.running.store(0, Ordering::SeqCst);
        }
        self.remove_new_lockfile();
    }
}

/// Where a build apart from `binary`'s target directory goes (a directory
/// of our own in it), and the binary it makes there.
fn apart(binary: &Path) -> Option<(PathBuf, PathBuf)> {
    let target_dir = binary.ancestors().nth(3)?;
    let dir = target_dir.join("minimize-crash").join("cross-check");
    let built = dir.join(binary.strip_prefix(target_dir).ok()?);
    Some((dir, built))
}

/// `cargo fuzz build --sanitizer SANITIZER --fuzz-dir DIR [flags] [--release] [--target-dir DIR] TARGET`,
/// with our cargo or under `rustup run TOOLCHAIN`; `--release` where the
/// user gave no mode but the binary there was built so ([`release_for`]).
fn command(
    cargo: &OsString,
    builder: &Builder,
    request: &BuildRequest<'_>,
    (sanitizer, release): (Sanitizer, bool),
    target_dir: Option<&Path>,
) -> Command {
    let BuildRequest { project, target, options, cwd } = *request;
    let mut command = match builder {
        Builder::Rustup(toolchain) => {
            let mut command = Command::new("rustup");
            // The toolchain's own compiler, whatever `RUSTC` the outer cargo set.
            command.args(["run", toolchain, "cargo"]).env_remove("RUSTC");
            command
        }
        Builder::Ours | Builder::Apart(_) => Command::new(cargo),
    };
    command.current_dir(cwd).args(["fuzz", "build", "--sanitizer", sanitizer.name(), "--fuzz-dir"]);
    if sanitizer != Sanitizer::None && builder.bootstrap(cargo) {
        // As for the harness: `-Zsanitizer` allowed on stable, as the user's build had it.
        command.env("RUSTC_BOOTSTRAP", "1");
    }
    command.arg(&project.fuzz_dir);
    command.args(options.flags.cargo_fuzz_args());
    if release {
        command.arg("--release");
    }
    if let Some(dir) = target_dir {
        command.arg("--target-dir").arg(dir);
    }
    if let Some(jobs) = options.flags.jobs {
        command.env("CARGO_BUILD_JOBS", jobs.to_string());
    }
    command.arg(target);
    command
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use nix::errno::Errno;
    use nix::sys::signal::kill;
    use nix::unistd::Pid;

    use super::*;

    /// A fake `cargo`: a shell script with `body`, and a project around it.
    fn fake_cargo(dir: &Path, body: &str) -> (OsString, FuzzProject) {
        let script = dir.join("cargo");
        super::super::tests::write_script(&script, body);
        let project = FuzzProject {
            fuzz_dir: dir.to_path_buf(),
            manifest_path: dir.join("Cargo.toml"),
            package: "fuzz".into(),
            targets: Vec::new(),
            workspace_root: dir.to_path_buf(),
            cwd: dir.to_path_buf(),
        };
        (script.into_os_string(), project)
    }

    fn gone(pid: i32) -> bool {
        // Reaped children are gone; a grandchild orphaned to init is reaped by it.
        (0..200).any(|_| {
            let gone = kill(Pid::from_raw(pid), None) == Err(Errno::ESRCH);
            gone || {
                std::thread::sleep(Duration::from_millis(10));
                false
            }
        })
    }

    /// Dropped before it ends, the build stops with what it started.
    #[test]
    fn a_build_not_waited_for_stops_with_its_children() {
        let dir = tempfile::tempdir().unwrap();
        let pids = dir.path().join("pids");
        let (cargo, project) = fake_cargo(dir.path(), &format!("sleep 60 & echo $$ $! > {}; wait", pids.display()));
        let options = ProjectOptions { target_dir: Some(dir.path().to_path_buf()), ..ProjectOptions::default() };
        let running = RunningGroup::default();
        let request = BuildRequest { project: &project, target: "t", options: &options, cwd: dir.path() };
        let build = LibFuzzerBuild::start(&cargo, &request, dir.path().join("t"), running.clone()).unwrap();
        assert!(running.load(Ordering::SeqCst) > 0, "the build's group is published");
        let started = (0..500).find_map(|_| {
            let text = std::fs::read_to_string(&pids).unwrap_or_default();
            let pids: Vec<i32> = text.split_whitespace().filter_map(|p| p.parse().ok()).collect();
            (pids.len() == 2).then_some(pids).or_else(|| {
                std::thread::sleep(Duration::from_millis(10));
                None
            })
        });
        let started = started.expect("the fake cargo started its child");
        drop(build);
        assert!(started.iter().all(|&pid| gone(pid)), "{started:?} still running");
        assert_eq!(running.load(Ordering::SeqCst), 0, "nothing published once it stopped");
    }

    /// A failed build says what cargo said last, or that cargo-fuzz is missing.
    #[test]
    fn a_failed_build_gives_cargo_s_last_words() {
        let dir = tempfile::tempdir().unwrap();
        let (cargo, project) = fake_cargo(dir.path(), "echo 'error: no such command: `fuzz`' >&2; exit 101");
        let options = ProjectOptions { target_dir: Some(dir.path().to_path_buf()), ..ProjectOptions::default() };
        let request = BuildRequest { project: &project, target: "t", options: &options, cwd: dir.path() };
        let start = || {
            let binary = dir.path().join("t");
            LibFuzzerBuild::start(&cargo, &request, binary, Default::default()).unwrap()
        };
        let reason = start().finish(|| true, false).unwrap_err();
        assert!(reason.contains("failed (exit status: 101)") && reason.contains("no such command"), "{reason}");
        let reason = start().finish(|| false, false).unwrap_err();
        assert!(reason.starts_with("cargo-fuzz is not installed"), "{reason}");
    }

    /// cargo writes a lockfile into a project that had none; the build takes it away again.
    #[test]
    fn a_lockfile_cargo_wrote_where_there_was_none_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let (cargo, project) =
            fake_cargo(dir.path(), &format!("echo new > {}/Cargo.lock; exit 1", dir.path().display()));
        let options = ProjectOptions { target_dir: Some(dir.path().to_path_buf()), ..ProjectOptions::default() };
        let request = BuildRequest { project: &project, target: "t", options: &options, cwd: dir.path() };
        let start = || {
            let binary = dir.path().join("t");
            LibFuzzerBuild::start(&cargo, &request, binary, Default::default()).unwrap()
        };
        let _ = start().finish(|| true, false);
        assert!(!project.lockfile().exists(), "the lockfile cargo wrote is gone");
        std::fs::write(project.lockfile(), "the user's").unwrap();
        let _ = start().finish(|| true, false);
        assert_eq!(std::fs::read_to_string(project.lockfile()).unwrap(), "new\n", "a lockfile that was there stays");
    }

    /// The cross-check keeps the sanitizer of the binary `cargo fuzz build`
    /// made before, when there is one: its build is then a no-op, or builds
    /// only what changed, where another sanitizer would rebuild every crate.
    #[test]
    fn the_binary_cargo_fuzz_build_made_decides_the_sanitizer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t");
        let sanitizer_for = |harness| sanitizer_for(mapped(&path).as_deref(), harness);
        assert_eq!(sanitizer_for(Sanitizer::None), (Sanitizer::None, None), "none there yet");
        assert_eq!(sanitizer_for(Sanitizer::Address), (Sanitizer::Address, None));
        std::fs::write(&path, b"\x7fELF ... __asan_init ... AddressSanitizer").unwrap();
        assert_eq!(sanitizer_for(Sanitizer::None), (Sanitizer::Address, Some(Sanitizer::Address)));
        std::fs::write(&path, b"\x7fELF ... __sanitizer_cov_8bit_counters_init ... _").unwrap();
        assert_eq!(sanitizer_for(Sanitizer::Address), (Sanitizer::None, Some(Sanitizer::None)));
        std::fs::write(&path, b"\x7fELF ... __msan_init").unwrap();
        assert_eq!(sanitizer_for(Sanitizer::None), (Sanitizer::None, None), "one the harness cannot have");
    }

    /// Where the user gave no build mode, the cross-check builds as the
    /// binary there was (cargo's records say): with `-O` when it was built
    /// so, else as cargo-fuzz does by default; a mode the user gave is theirs.
    #[test]
    fn a_binary_built_with_o_is_cross_checked_with_o() {
        let dir = tempfile::tempdir().unwrap();
        let args = dir.path().join("args");
        let binary = dir.path().join("t");
        let body = format!("echo \"$@\" > {}; touch {}", args.display(), binary.display());
        let (cargo, project) = fake_cargo(dir.path(), &body);
        let built_with = |flags: BuildFlags| {
            let _ = std::fs::remove_file(&args);
            let options = ProjectOptions { target_dir: Some(dir.path().to_path_buf()), flags, ..Default::default() };
            let request = BuildRequest { project: &project, target: "t", options: &options, cwd: dir.path() };
            let build = LibFuzzerBuild::start(&cargo, &request, binary.clone(), Default::default()).unwrap();
            let release = build.finish(|| true, false).unwrap().release;
            let args = std::fs::read_to_string(&args).unwrap();
            let words: Vec<&str> = args.split_whitespace().collect();
            assert_eq!(words.last(), Some(&"t"), "{args}");
            (release, words.contains(&"--release"))
        };
        let none = BuildFlags::default;
        let [with, without] = super::super::mode::tests::two_builds(dir.path(), "t");
        std::fs::hard_link(without, &binary).unwrap();
        assert_eq!(built_with(none()), (true, true), "a binary built with -O");
        assert_eq!(built_with(BuildFlags { debug_assertions: true, ..none() }), (false, false), "-a given");
        assert_eq!(built_with(BuildFlags { dev: true, ..none() }), (false, false), "--dev given");
        assert_eq!(built_with(BuildFlags { release: true, ..none() }), (false, true), "-O given");
        std::fs::remove_file(&binary).unwrap();
        std::fs::hard_link(with, &binary).unwrap();
        assert_eq!(built_with(none()), (false, false), "a binary built without");
        std::fs::remove_file(&binary).unwrap();
        assert_eq!(built_with(none()), (false, false), "no binary yet");
    }
}
