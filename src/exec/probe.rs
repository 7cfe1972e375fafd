//! Shorter time limits while reducing: a candidate that runs far longer than any run that finished is taken to hang, long before `--timeout`.
//!
//! A candidate that hangs costs the whole `--timeout`. Reducing a hang, those
//! are the successes (decision 0046), and tmin waits the same way; reducing a
//! crash of a target that loops on some inputs (an interpreter, a decoder),
//! they are failures, each as long. The runs that finish show how long the
//! target takes on inputs like these; a candidate still running after
//! [`FACTOR`] times the slowest of them (never less than [`FLOOR`]) is ended
//! and counted as a timeout. How long a run took is its CPU time where the
//! executor knows it (a fork server does), and at least a [`WALL_SHARE`]th of
//! its wall-clock time: on a busy machine (parallel tests on every core) one
//! run delayed by the scheduler stretched the wall-clock maximum, and every
//! later hang waited for it (decision 0046); a target that sleeps rather than
//! computes still gets five times its wall time. A run that was only slow
//! could be taken for a hang this way, so a hang's result is run once more
//! under the configured timeout before it is kept, and so is a hang met while
//! reducing another crash before it is noted as a bug of its own (see
//! `pipeline::reduce_crash`).

use std::time::Duration;

use super::{Outcome, Status};

/// No test is ended sooner than this: far above a fuzz target's usual run,
/// and above the scheduling delays of a busy machine.
pub const FLOOR: Duration = Duration::from_millis(100);

/// How many times the slowest finished run a test may take.
pub const FACTOR: u32 = 20;

/// A run took at least this share of its wall-clock time, whatever its CPU time.
pub const WALL_SHARE: u32 = 4;

/// The time limit of a hang's reduction, from the runs that finished.
#[derive(Debug, Default)]
pub struct HangProbe {
    /// The longest run that ended before its limit (CPU time, see the module's notes).
    slowest: Option<Duration>,
    /// Whether a test timed out under a shortened limit.
    cut_short: bool,
}

impl HangProbe {
    /// Notes a run; returns the limit to set when it changed.
    pub fn observe(&mut self, outcome: &Outcome) -> Option<Duration> {
        if outcome.status == Status::Timeout {
            self.cut_short |= self.slowest.is_some();
            return None;
        }
        let before = self.limit();
        let took = outcome.cpu.map_or(outcome.duration, |cpu| cpu.max(outcome.duration / WALL_SHARE));
        self.slowest = Some(self.slowest.map_or(took, |slowest| slowest.max(took)));
        let after = self.limit();
        (after != before).then_some(after).flatten()
    }

    /// The limit to test with: `None` (the configured timeout) until a run finished.
    pub fn limit(&self) -> Option<Duration> {
        Some((self.slowest? * FACTOR).max(FLOOR))
    }

    /// Whether some test timed out under a shortened limit, so the result
    /// may not hang under the configured one.
    pub fn cut_short(&self) -> bool {
        self.cut_short
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(status: Status, millis: u64) -> Outcome {
        Outcome::new(status, Vec::new(), Duration::from_millis(millis))
    }

    #[test]
    fn the_limit_follows_the_slowest_finished_run_above_the_floor() {
        let mut probe = HangProbe::default();
        assert_eq!(probe.observe(&run(Status::Timeout, 1000)), None, "no finished run yet");
        assert!(!probe.cut_short(), "that timeout ran the full limit");
        assert_eq!(probe.observe(&run(Status::Exited(0), 1)), Some(FLOOR));
        assert_eq!(probe.observe(&run(Status::Signaled(6), 2)), None, "still the floor");
        assert_eq!(probe.observe(&run(Status::Exited(1), 10)), Some(Duration::from_millis(200)));
        assert_eq!(probe.observe(&run(Status::Exited(0), 3)), None, "the slowest counts");
        assert!(!probe.cut_short());
        assert_eq!(probe.observe(&run(Status::Timeout, 200)), None);
        assert!(probe.cut_short());
        assert_eq!(probe.limit(), Some(Duration::from_millis(200)));
    }

    #[test]
    fn cpu_time_counts_where_known_and_a_share_of_the_wall_time_at_least() {
        let timed =
            |cpu: u64, wall: u64| Outcome { cpu: Some(Duration::from_millis(cpu)), ..run(Status::Exited(0), wall) };
        let mut probe = HangProbe::default();
        assert_eq!(probe.observe(&timed(10, 12)), Some(Duration::from_millis(200)));
        // Delayed by a busy machine: 10 ms of CPU in 30 ms leaves the limit alone.
        assert_eq!(probe.observe(&timed(10, 30)), None);
        // A run that sleeps: 1 ms of CPU in 80 ms counts as 20 ms.
        assert_eq!(probe.observe(&timed(1, 80)), Some(Duration::from_millis(400)));
    }
}
