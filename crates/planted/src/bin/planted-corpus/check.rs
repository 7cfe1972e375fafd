//! What a candidate did when run in-process as its fuzz target runs it: the outcome, a panic, or not run at all.

use std::panic::{self, UnwindSafe};

/// What running one candidate showed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// It returned; what it did (`ok`, a rejection's message, the branches it took), for the summary.
    Runs(String),
    /// It panicked, with this message: a crash under the fuzzer.
    Panics(String),
    /// Not run: it would kill the process or never return (why).
    Unsafe(&'static str),
}

/// Panics are expected (they are how a candidate is found to crash): no message for each.
pub(crate) fn silence_panics() {
    panic::set_hook(Box::new(|_| {}));
}

/// Runs `f`, turning a panic into [`Verdict::Panics`].
pub(crate) fn catching(f: impl FnOnce() -> Verdict + UnwindSafe) -> Verdict {
    panic::catch_unwind(f).unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_string());
        Verdict::Panics(message)
    })
}

/// The outcome of a target that returns a planted `Result`: `ok`, or the rejection's message.
pub(crate) fn outcome<T>(result: planted::Result<T>) -> Verdict {
    Verdict::Runs(match result {
        Ok(_) => "ok".to_string(),
        Err(error) => error.0.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_a_verdict_with_its_message() {
        silence_panics();
        assert_eq!(catching(|| panic!("boom {}", 1)), Verdict::Panics("boom 1".into()));
        assert_eq!(catching(|| outcome::<()>(Err(planted::Error("no")))), Verdict::Runs("no".into()));
        let _ = panic::take_hook();
    }
}
