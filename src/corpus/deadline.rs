//! `--max-time` in corpus mode bounds the whole run: once the first complete corpus is written, the run stops at the deadline and ends with the corpus as it is then (complete at every moment, decision 0086).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::session::interrupt::Interrupt;

/// When the run must end, and whether it did end there.
#[derive(Clone, Debug, Default)]
pub struct Deadline {
    at: Option<Instant>,
    reached: Arc<AtomicBool>,
}

impl Deadline {
    /// `max_time` after `started` (none without `--max-time`).
    pub fn new(max_time: Option<Duration>, started: Instant) -> Deadline {
        Deadline { at: max_time.map(|limit| started + limit), reached: Arc::default() }
    }

    /// From now on the deadline stops the run: at it (at once when it is
    /// past), the shrinks are cancelled as Ctrl-C cancels them.
    pub fn arm(&self, interrupt: &Interrupt) {
        let Some(at) = self.at else { return };
        let (reached, interrupt) = (self.reached.clone(), interrupt.clone());
        std::thread::spawn(move || {
            std::thread::sleep(at.saturating_duration_since(Instant::now()));
            if !interrupt.is_raised() {
                reached.store(true, Ordering::SeqCst);
                interrupt.raise();
            }
        });
    }

    /// Whether the run was stopped by the deadline (not by Ctrl-C).
    pub fn reached(&self) -> bool {
        self.reached.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_armed_deadline_cancels_the_run_and_says_so_while_ctrl_c_first_is_not_it() {
        let interrupt = Interrupt::default();
        let unarmed = Deadline::new(Some(Duration::ZERO), Instant::now());
        std::thread::sleep(Duration::from_millis(20));
        assert!(!interrupt.is_raised() && !unarmed.reached(), "nothing stops before the first corpus is written");
        unarmed.arm(&interrupt);
        let waited = Instant::now();
        while !interrupt.is_raised() && waited.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(interrupt.is_raised() && unarmed.reached(), "a deadline already past stops at once when armed");

        let interrupt = Interrupt::default();
        interrupt.raise();
        let later = Deadline::new(Some(Duration::ZERO), Instant::now());
        later.arm(&interrupt);
        std::thread::sleep(Duration::from_millis(50));
        assert!(!later.reached(), "Ctrl-C came first");
        let none = Deadline::new(None, Instant::now());
        none.arm(&Interrupt::default());
        assert!(!none.reached());
    }
}
