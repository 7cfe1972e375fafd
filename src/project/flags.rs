//! The build's flags as `cargo fuzz build` takes them (`--sanitizer`, `-O`, features, jobs), and the cargo arguments and `RUSTFLAGS` they become, with the coverage and stack-depth instrumentation of a coverage build.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::locate::FuzzProject;

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

/// AddressSanitizer's options in a fork server's children ([`Sanitizer::runtime_env`]).
const RUNTIME_OPTIONS: &str = "symbolize=0:detect_leaks=0:malloc_context_size=5:detect_odr_violation=0";

/// Added to [`RUNTIME_OPTIONS`] for a corpus shrink's candidates ([`Sanitizer::candidate_env`]).
const CANDIDATE_OPTIONS: &str = "detect_stack_use_after_return=0:quarantine_size_mb=0:max_malloc_fill_size=0";

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
    /// that ran `llvm-symbolizer` itself was many times slower per crash
    /// (decision 0071); its report's `(module+offset)` frames are symbolized
    /// in the parent (`exec::symbolize`, cached per address) for the signature;
    /// `detect_leaks=0` because children end with `_exit` (no leak check
    /// runs) and a leak is not a crash; `malloc_context_size=5` keeps the
    /// stack ASan unwinds on every allocation and free short (the report's
    /// "allocated by" trace, which the signature does not read);
    /// `detect_odr_violation=0` as cargo-fuzz sets it.
    pub fn runtime_env(self) -> Vec<(&'static str, String)> {
        self.asan_options(RUNTIME_OPTIONS)
    }

    /// [`Sanitizer::runtime_env`] at less cost, for the candidates of a
    /// corpus shrink held to no stack-depth feature. Without fake stacks
    /// (`detect_stack_use_after_return=0`): a third fewer CPU seconds a run
    /// on pulldown-cmark; the stack depth moves (locals stay on the real
    /// stack), and so do a few counters' hit counts (decision 0116). Without
    /// the quarantine of freed memory (`quarantine_size_mb=0`), so a staying
    /// child reuses what it freed instead of faulting in fresh pages, and
    /// without filling each allocation (`max_malloc_fill_size=0`): a quarter
    /// more tests in the same time, the kernel's share of the CPU 32% -> 19%
    /// (decision 0117). A bug only these catch goes unseen in a candidate;
    /// every result is still checked on a [`Sanitizer::runtime_env`] child.
    /// The user's options still come last.
    pub fn candidate_env(self) -> Vec<(&'static str, String)> {
        self.asan_options(&format!("{RUNTIME_OPTIONS}:{CANDIDATE_OPTIONS}"))
    }

    /// What the libFuzzer cross-check's run of a `cargo fuzz build` binary
    /// needs: the report unsymbolized (`symbolize=0`), its frames looked up
    /// in this process, which makes an AddressSanitizer build's check faster
    /// (decision 0071); all else as `cargo fuzz run` runs it, then the user's
    /// `ASAN_OPTIONS`.
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

/// `cargo build`'s profile, feature and job arguments for `flags`.
pub(super) fn cargo_build_args(flags: &BuildFlags) -> Vec<String> {
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
pub(super) fn variant_target_dir(target_dir: PathBuf, options: &BuildOptions) -> PathBuf {
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
pub(super) const COVERAGE_FLAGS: [&str; 6] = [
    "-Cpasses=sancov-module",
    "-Cllvm-args=-sanitizer-coverage-level=4",
    "-Cllvm-args=-sanitizer-coverage-inline-8bit-counters",
    "-Cllvm-args=-sanitizer-coverage-pc-table",
    "-Cllvm-args=-sanitizer-coverage-trace-compares",
    "-Cllvm-args=-simplifycfg-branch-fold-threshold=0",
];

/// LLVM passes that merge identical calls on different paths into one
/// instruction, turned off in the crash harness: a function's cold calls
/// into the standard library's panics (`Vec::drain`'s and
/// `Vec::extend_from_within`'s bad ranges) were sunk into one call whose
/// return address reads line 0, and two bugs were one (decision 0092). Not
/// in a coverage build, whose edges are `cargo fuzz build`'s.
///
/// With them, frame pointers: the runtime walks them at every draw for the
/// frames it was drawn under (`crates/runtime/src/calls.rs`), where a value
/// built by hand begins and ends.
pub(super) const CALL_SITE_FLAGS: [&str; 3] = [
    "-Cllvm-args=-simplifycfg-sink-common=false",
    "-Cllvm-args=-enable-tail-merge=false",
    "-Cforce-frame-pointers=yes",
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
    if !options.coverage {
        flags.extend(CALL_SITE_FLAGS.map(str::to_string));
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
pub(super) fn encoded_rustflags(project: &FuzzProject, options: &BuildOptions, harness_dir: &Path) -> OsString {
    let mut flags = rustflags(project, options);
    flags.push(format!("--remap-path-prefix={}=", harness_dir.display()));
    if let Ok(user) = std::env::var("CARGO_ENCODED_RUSTFLAGS") {
        flags.extend(user.split('\x1f').filter(|f| !f.is_empty()).map(str::to_string));
    } else if let Ok(user) = std::env::var("RUSTFLAGS") {
        flags.extend(user.split_whitespace().map(str::to_string));
    }
    flags.join("\x1f").into()
}
