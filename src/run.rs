//! One run: the options name a job, and it runs here: a batch of inputs
//! ([`crate::batch`]), a corpus ([`crate::corpus`]) or one crash
//! ([`crate::minimize`]); each gets the interrupt handler installed once.

use crate::exit_code::{Exit, Failure};
use crate::options::{Job, Options};
use crate::session::interrupt::Interrupt;

/// Runs the whole pipeline; `Ok` carries the exit code of a run that produced
/// a result (minimized, unverified, interrupted).
pub fn run(options: &Options) -> Result<Exit, Failure> {
    let interrupt = Interrupt::install()?;
    if let (true, Ok(cwd)) = (options.runs_a_command(), std::env::current_dir()) {
        // The harness mode's root is its project's (`HarnessSetup::locate`); a command's, the repository it runs in.
        if let Some(root) = crate::trace::path::project_root(&cwd, None) {
            crate::trace::path::set_project_root(&root);
        }
    }
    match &options.job {
        Job::Minimize(minimize) => crate::minimize::run(options, minimize, &interrupt),
        Job::Batch(batch) => crate::batch::run(options, batch, &interrupt),
        Job::Merge(merge) => crate::batch::merge::run(&merge.shards, &merge.output, options.quiet),
        Job::Corpus(corpus) => crate::corpus::run(options, corpus, &interrupt),
    }
}
