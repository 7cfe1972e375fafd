//! The one fake executor of the unit tests: a closure from an input (and the time limit the executor was given) to what the run did, so a test states its simulated target in a few lines and keeps its own counters in what the closure captures.

use std::time::Duration;

use super::{Executor, Outcome, Status};

/// What the closure of a [`Fake`] is: the input and the time limit set by
/// [`Executor::limit_time`] (`None`: the configured one) to an outcome,
/// or an `Err` for a run that itself failed.
pub(crate) trait Target: FnMut(&[u8], Option<Duration>) -> anyhow::Result<Outcome> {}

impl<F: FnMut(&[u8], Option<Duration>) -> anyhow::Result<Outcome>> Target for F {}

/// An executor that runs its closure.
pub(crate) struct Fake<F> {
    target: F,
    limit: Option<Duration>,
}

impl<F: Target> Fake<F> {
    /// An executor whose runs are what `target` says.
    pub(crate) fn new(target: F) -> Self {
        Fake { target, limit: None }
    }

    /// The time limit it was last given (`None`: the configured one).
    pub(crate) fn limit(&self) -> Option<Duration> {
        self.limit
    }
}

impl<F: Target> Executor for Fake<F> {
    fn run(&mut self, input: &[u8]) -> anyhow::Result<Outcome> {
        (self.target)(input, self.limit)
    }

    fn limit_time(&mut self, limit: Option<Duration>) {
        self.limit = limit;
    }
}

/// A fake with its closure boxed: a type that an associated `Executor` type
/// can name (a test backend starts one per worker).
pub(crate) type Boxed = Fake<Box<dyn Target>>;

/// A [`Boxed`] fake whose runs are what `target` says.
pub(crate) fn boxed(target: impl Target + 'static) -> Boxed {
    Fake::new(Box::new(target))
}

/// A run that returned (exit code 0) in `duration`, printing nothing.
pub(crate) fn clean(duration: Duration) -> Outcome {
    Outcome::new(Status::Exited(0), Vec::new(), duration)
}

/// A Rust panic at `location` (`file:line:col`) with `message`, as its stderr says it.
pub(crate) fn panic_at(location: &str, message: &str) -> Outcome {
    let stderr = format!("thread 'main' panicked at {location}:\n{message}\n");
    Outcome::new(Status::Exited(101), stderr.into_bytes(), Duration::ZERO)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signature::{Kind, Signature};

    #[test]
    fn a_fake_runs_its_closure_under_the_limit_it_was_given() {
        let mut limits = Vec::new();
        let mut fake = Fake::new(|input: &[u8], limit| {
            limits.push(limit);
            Ok(if input == b"boom" { panic_at("src/a.rs:1:2", "boom") } else { clean(Duration::ZERO) })
        });
        assert_eq!(fake.run(b"ok").unwrap().status, Status::Exited(0));
        fake.limit_time(Some(Duration::from_millis(5)));
        let signature = Signature::of(&fake.run(b"boom").unwrap()).unwrap();
        assert_eq!((signature.kind, signature.location.as_deref()), (Kind::Panic, Some("src/a.rs:1:2")));
        assert_eq!(fake.limit(), Some(Duration::from_millis(5)));
        assert_eq!(limits, [None, Some(Duration::from_millis(5))]);
    }
}
