//! Tests run ahead on several executors at once (speculative tests): the candidates the reducer predicts, spread over the lanes, each outcome kept for the serial run that asks for it.
//!
//! Lane 0 runs everything the reducer asks for that was not run ahead (the
//! first runs of the crash, the re-check, a success's follow-up moves); the
//! others only run ahead. Each lane is a whole executor of its own (a fork
//! server, or a scratch file for a command), so lanes share nothing, not even
//! the values they know ([`super::known`]): a value one lane ran is run again
//! by another, with the same outcome.

use std::collections::HashMap;

use super::{Executor, Outcome};
use crate::reduce::Example;

/// Several executors, one per lane, seen as one.
pub struct Lanes<E> {
    lanes: Vec<E>,
    /// Outcomes of the inputs run ahead, with the examples each run recorded.
    ready: HashMap<Vec<u8>, (Outcome, Vec<Example>)>,
    /// The examples of the run that `run` returned last.
    examples: Vec<Example>,
    /// Whether known values are replayed ([`Executor::replay_known_values`]), for lanes added later.
    replaying: bool,
    /// The time limit ([`Executor::limit_time`]), for lanes added later.
    limit: Option<std::time::Duration>,
}

impl<E: Executor + Send> Lanes<E> {
    /// One lane: runs one test at a time until [`Lanes::add`] adds more.
    pub fn new(first: E) -> Self {
        Lanes { lanes: vec![first], ready: HashMap::new(), examples: Vec::new(), replaying: false, limit: None }
    }

    /// Adds a lane.
    pub fn add(&mut self, mut lane: E) {
        lane.replay_known_values(self.replaying);
        lane.limit_time(self.limit);
        self.lanes.push(lane);
    }

    /// The first lane, which runs everything not run ahead.
    pub fn first(&mut self) -> &mut E {
        &mut self.lanes[0]
    }
}

impl<E> std::fmt::Debug for Lanes<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lanes").field("width", &self.lanes.len()).field("ready", &self.ready.len()).finish()
    }
}

impl<E: Executor + Send> Executor for Lanes<E> {
    fn run(&mut self, input: &[u8]) -> anyhow::Result<Outcome> {
        if let Some((outcome, examples)) = self.ready.remove(input) {
            self.examples = examples;
            return Ok(outcome);
        }
        let lane = &mut self.lanes[0];
        let outcome = lane.run(input)?;
        self.examples = lane.examples();
        Ok(outcome)
    }

    fn examples(&self) -> Vec<Example> {
        self.examples.clone()
    }

    fn width(&self) -> usize {
        self.lanes.len()
    }

    fn replay_known_values(&mut self, on: bool) {
        self.replaying = on;
        for lane in &mut self.lanes {
            lane.replay_known_values(on);
        }
    }

    fn limit_time(&mut self, limit: Option<std::time::Duration>) {
        self.limit = limit;
        for lane in &mut self.lanes {
            lane.limit_time(limit);
        }
    }

    /// Runs `inputs` across the lanes (input `i` on lane `i % width`), all
    /// lanes at once, and waits for them. What was run ahead before and not
    /// asked for is dropped. A run that fails is not kept: the serial run
    /// runs it again on lane 0 and meets the error there.
    fn prefetch(&mut self, inputs: &[Vec<u8>]) {
        self.ready.clear();
        let width = self.lanes.len();
        let (first, rest) = self.lanes.split_first_mut().expect("at least one lane");
        let done = std::thread::scope(|scope| {
            let others: Vec<_> = rest
                .iter_mut()
                .enumerate()
                .map(|(i, lane)| scope.spawn(move || run_share(lane, inputs, i + 1, width)))
                .collect();
            let mut done = run_share(first, inputs, 0, width);
            for other in others {
                done.extend(other.join().unwrap_or_default());
            }
            done
        });
        for (i, outcome, examples) in done {
            self.ready.insert(inputs[i].clone(), (outcome, examples));
        }
    }
}

/// Lane `lane`'s share of `inputs`: every `width`-th one from `lane`, with
/// its index, outcome and examples.
fn run_share<E: Executor>(
    executor: &mut E,
    inputs: &[Vec<u8>],
    lane: usize,
    width: usize,
) -> Vec<(usize, Outcome, Vec<Example>)> {
    let mut done = Vec::new();
    for (i, input) in inputs.iter().enumerate().skip(lane).step_by(width) {
        if let Ok(outcome) = executor.run(input) {
            done.push((i, outcome, executor.examples()));
        }
    }
    done
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use super::*;
    use crate::exec::fake::Fake;
    use crate::exec::Status;

    /// Which lane ran which input.
    type Log = Arc<Mutex<Vec<(usize, Vec<u8>)>>>;

    /// Lane `lane`: records which input it ran and says its number on
    /// stderr; fails on inputs starting with `!` on lanes other than 0.
    fn logged(lane: usize, log: Log) -> Fake<impl crate::exec::fake::Target> {
        Fake::new(move |input: &[u8], _| {
            if lane > 0 && input.first() == Some(&b'!') {
                anyhow::bail!("lane {lane} failed");
            }
            log.lock().unwrap().push((lane, input.to_vec()));
            Ok(Outcome::new(Status::Exited(0), format!("lane {lane}").into_bytes(), Duration::ZERO))
        })
    }

    #[test]
    fn inputs_run_ahead_are_spread_over_the_lanes_and_taken_once() {
        let log = Log::default();
        let mut lanes = Lanes::new(logged(0, log.clone()));
        lanes.add(logged(1, log.clone()));
        assert_eq!(lanes.width(), 2);
        let inputs = vec![b"a".to_vec(), b"b".to_vec(), b"!c".to_vec()];
        lanes.prefetch(&inputs);
        let mut ran = log.lock().unwrap().clone();
        ran.sort();
        assert_eq!(ran, [(0, b"!c".to_vec()), (0, b"a".to_vec()), (1, b"b".to_vec())]);
        assert_eq!(lanes.run(b"b").unwrap().stderr, b"lane 1", "taken from what ran ahead");
        assert_eq!(lanes.run(b"b").unwrap().stderr, b"lane 0", "taken once, then run again");
        log.lock().unwrap().clear();
        lanes.prefetch(&[b"x".to_vec(), b"!y".to_vec()]);
        assert_eq!(lanes.run(b"!y").unwrap().stderr, b"lane 0", "a failed run ahead is run again on lane 0");
        assert_eq!(lanes.run(b"a").unwrap().stderr, b"lane 0", "an earlier prediction is dropped");
    }
}
